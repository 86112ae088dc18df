//! The flow engine's options as the engine spec writes them: `flow:time_tolerance=0.003,
//! time_resolution=20ns,nic=fifo` ([`FlowConfig::parse_options`], [`FlowConfig::options`]).

use super::{FlowConfig, NicOrder};
use crate::options::{key_values, OptionError};
use crate::units::{format_seconds, parse_seconds};

/// The flow engine's options, as a help text lists them.
pub const FLOW_OPTIONS: &str = "time_tolerance=SHARE, time_resolution=TIME, nic=shared|fifo";

impl FlowConfig {
    /// Reads the flow engine's options, `KEY=VALUE` separated by commas, over the defaults
    /// ([`FlowConfig::default`]): `time_tolerance` (a share of a message's time, in
    /// `[0, 0.5)`), `time_resolution` (a time with its unit, `10ns`, in `[0, 1 ms)`; a
    /// bare number is seconds) and `nic` ([`NicOrder`]: `shared` or `fifo`). An empty
    /// text is the defaults. The error names the option;
    /// an option given twice or unknown is refused.
    pub fn parse_options(options: &str) -> Result<Self, OptionError> {
        let mut config = Self::default();
        for (key, value) in key_values(options, FLOW_OPTIONS)? {
            match key {
                "time_tolerance" => {
                    config.time_tolerance = value.parse().map_err(|_| {
                        OptionError::new(
                            key,
                            format!("{key}: expected a share such as 0.003, got {value:?}"),
                        )
                    })?
                }
                "time_resolution" => {
                    config.time_resolution_s = parse_seconds(value).map_err(|e| {
                        OptionError::new(
                            key,
                            format!("{key}: expected {}, got {value:?}", e.expected),
                        )
                    })?
                }
                "nic" => {
                    config.nic = [NicOrder::Shared, NicOrder::Fifo]
                        .into_iter()
                        .find(|n| n.name() == value)
                        .ok_or_else(|| {
                            OptionError::new(
                                key,
                                format!("{key}: expected shared or fifo, got {value:?}"),
                            )
                        })?
                }
                _ => {
                    return Err(OptionError::new(
                        key,
                        format!("unknown option {key:?} of the flow engine ({FLOW_OPTIONS})"),
                    ))
                }
            }
        }
        config
            .check()
            .map_err(|e| OptionError::new(e.field().unwrap_or("engine"), e.to_string()))?;
        Ok(config)
    }

    /// The options that differ from the defaults, as `(name, value)` in the order
    /// [`FlowConfig::parse_options`] reads back to the same settings: the tolerance as Rust
    /// prints an `f64` (shortest exact form), the resolution with its unit.
    pub fn options(&self) -> Vec<(&'static str, String)> {
        let default = Self::default();
        let mut options = Vec::new();
        if self.time_tolerance != default.time_tolerance {
            options.push(("time_tolerance", self.time_tolerance.to_string()));
        }
        if self.time_resolution_s != default.time_resolution_s {
            options.push(("time_resolution", format_seconds(self.time_resolution_s)));
        }
        if self.nic != default.nic {
            options.push(("nic", self.nic.name().to_string()));
        }
        options
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_defaults_are_the_empty_spec() {
        assert_eq!(FlowConfig::parse_options(""), Ok(FlowConfig::default()));
        assert!(FlowConfig::default().options().is_empty());
        let exact = FlowConfig::parse_options("time_tolerance=0, time_resolution=0s").unwrap();
        assert_eq!((exact.time_tolerance, exact.time_resolution_s), (0.0, 0.0));
        assert_eq!(
            exact.options(),
            vec![
                ("time_tolerance", "0".to_string()),
                ("time_resolution", "0s".to_string())
            ]
        );
    }

    #[test]
    fn bad_options_are_named() {
        let field = |text: &str| FlowConfig::parse_options(text).unwrap_err().field;
        assert_eq!(field("time_tolerance=0.7"), "time_tolerance");
        assert_eq!(field("time_tolerance=NaN"), "time_tolerance");
        assert_eq!(field("time_tolerance=lots"), "time_tolerance");
        assert_eq!(field("time_resolution=2ms"), "time_resolution");
        assert_eq!(field("time_resolution=-1ns"), "time_resolution");
        assert_eq!(field("time_resolution=10 parsecs"), "time_resolution");
        assert_eq!(
            field("time_tolerance=0,time_tolerance=0.1"),
            "time_tolerance"
        );
        assert_eq!(field("nic=lifo"), "nic");
        assert_eq!(field("nic=fifo,nic=shared"), "nic");
        assert_eq!(field("tolerance=0.1"), "tolerance");
        assert_eq!(field("exact"), "exact");
    }

    proptest! {
        #[test]
        fn options_read_back_to_the_same_settings(
            tolerance in 0.0f64..0.5,
            resolution_ps in 0u64..1_000_000_000,
            fifo in any::<bool>(),
        ) {
            let config = FlowConfig {
                time_tolerance: tolerance,
                time_resolution_s: resolution_ps as f64 * 1e-12,
                nic: if fifo { NicOrder::Fifo } else { NicOrder::Shared },
                ..FlowConfig::default()
            };
            let text: Vec<String> =
                config.options().iter().map(|(k, v)| format!("{k}={v}")).collect();
            prop_assert_eq!(FlowConfig::parse_options(&text.join(",")), Ok(config));
        }
    }
}
