//! When down cables are repaired: at once, in maintenance windows, or past a threshold.

use std::fmt;
use std::str::FromStr;

use super::failure::{duration, key_values};
use super::{PlanError, MAX_HORIZON_S};
use crate::units::format_duration;

/// A repair policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RepairPolicy {
    /// Each cable is repaired `repair_s` seconds after it fails, the machine running degraded
    /// meanwhile: `immediate:repair=24h`.
    Immediate {
        /// Time from a failure to its repair, in seconds.
        repair_s: f64,
    },
    /// A maintenance window every `every_s` seconds (the first at `every_s`), lasting
    /// `length_s`, during which the machine does no work; every cable down at the window's
    /// end is repaired by it: `windows:every=30d,length=8h`.
    Windows {
        /// Interval between the starts of two windows, in seconds.
        every_s: f64,
        /// Length of a window, in seconds (less than the interval).
        length_s: f64,
    },
    /// A repair visit when the loss of the machine as it is reaches `loss` (a share of its
    /// throughput, 0 to 1) or a pair of endpoints is cut off; it comes `repair_s` seconds
    /// later and repairs every cable down then, the machine running meanwhile:
    /// `threshold:loss=2%,repair=24h`.
    Threshold {
        /// Share of machine throughput lost that calls a visit (0 to 1).
        loss: f64,
        /// Time from the call to the visit, in seconds.
        repair_s: f64,
    },
}

impl RepairPolicy {
    /// The policy's name: `immediate`, `windows` or `threshold`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Immediate { .. } => "immediate",
            Self::Windows { .. } => "windows",
            Self::Threshold { .. } => "threshold",
        }
    }

    fn check(self) -> Result<Self, PlanError> {
        // A repair or an interval longer than the longest horizon is a typo (and 1e300d
        // printed as a 300-digit policy name).
        let positive = |v: f64, what: &str| {
            if v > 0.0 && v <= MAX_HORIZON_S {
                Ok(())
            } else {
                Err(PlanError::invalid(
                    what,
                    format!(
                        "must be positive and at most the longest horizon, 1000 years \
                         ({MAX_HORIZON_S} s), got {v} s"
                    ),
                ))
            }
        };
        match self {
            Self::Immediate { repair_s } => positive(repair_s, "repair")?,
            Self::Windows { every_s, length_s } => {
                positive(every_s, "every")?;
                if !(0.0..every_s).contains(&length_s) {
                    return Err(PlanError::invalid(
                        "length",
                        format!("a window lasts 0 s or more and less than its interval ({every_s} s), got {length_s} s"),
                    ));
                }
            }
            Self::Threshold { loss, repair_s } => {
                positive(repair_s, "repair")?;
                if !(0.0..=1.0).contains(&loss) {
                    return Err(PlanError::invalid(
                        "loss",
                        format!("a share between 0% and 100%, got {}%", loss * 100.0),
                    ));
                }
            }
        }
        Ok(self)
    }
}

impl fmt::Display for RepairPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Immediate { repair_s } => {
                write!(f, "immediate:repair={}", format_duration(repair_s))
            }
            Self::Windows { every_s, length_s } => write!(
                f,
                "windows:every={},length={}",
                format_duration(every_s),
                format_duration(length_s)
            ),
            Self::Threshold { loss, repair_s } => write!(
                f,
                "threshold:loss={}%,repair={}",
                loss * 100.0,
                format_duration(repair_s)
            ),
        }
    }
}

impl FromStr for RepairPolicy {
    type Err = PlanError;

    /// Reads `immediate:repair=D`, `windows:every=D,length=D` or
    /// `threshold:loss=P%,repair=D` (durations as the units parser reads them: `24h`,
    /// `30d`; `length` defaults to `8h`, `repair` to `24h`).
    fn from_str(text: &str) -> Result<Self, PlanError> {
        let (kind, options) = text.trim().split_once(':').unwrap_or((text.trim(), ""));
        let options = key_values(options, "policy", "repair=D, every=D, length=D, loss=P%")?;
        let known: &[&str] = match kind {
            "immediate" => &["repair"],
            "windows" => &["every", "length"],
            "threshold" => &["loss", "repair"],
            other => {
                return Err(PlanError::invalid(
                    "policy",
                    format!("unknown policy {other:?} (known: immediate, windows, threshold)"),
                ))
            }
        };
        if let Some((k, _)) = options.iter().find(|(k, _)| !known.contains(k)) {
            return Err(PlanError::invalid(
                "policy",
                format!(
                    "{text:?}: unknown option {k:?} (known: {})",
                    known.join(", ")
                ),
            ));
        }
        let get = |key: &str, default: Option<&'static str>| {
            options
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| *v)
                .or(default)
                .ok_or_else(|| PlanError::invalid("policy", format!("{text:?} needs {key}=")))
        };
        let policy = match kind {
            "immediate" => Self::Immediate {
                repair_s: duration(get("repair", Some("24h"))?, "repair")?,
            },
            "windows" => Self::Windows {
                every_s: duration(get("every", None)?, "every")?,
                length_s: duration(get("length", Some("8h"))?, "length")?,
            },
            _ => {
                let loss = get("loss", None)?;
                let pct = loss.strip_suffix('%').ok_or_else(|| {
                    PlanError::invalid(
                        "loss",
                        format!("expected a percentage like 2%, got {loss:?}"),
                    )
                })?;
                Self::Threshold {
                    loss: pct.trim().parse::<f64>().map_err(|_| {
                        PlanError::invalid(
                            "loss",
                            format!("expected a percentage like 2%, got {loss:?}"),
                        )
                    })? / 100.0,
                    repair_s: duration(get("repair", Some("24h"))?, "repair")?,
                }
            }
        };
        policy.check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_round_trip_and_read_their_defaults() {
        for text in [
            "immediate:repair=24h",
            "windows:every=30d,length=8h",
            "threshold:loss=2.5%,repair=12h",
        ] {
            let p: RepairPolicy = text.parse().unwrap();
            assert_eq!(p.to_string().parse::<RepairPolicy>().unwrap(), p);
        }
        assert_eq!(
            "windows:every=7d".parse::<RepairPolicy>().unwrap(),
            RepairPolicy::Windows {
                every_s: 7.0 * 86400.0,
                length_s: 8.0 * 3600.0
            }
        );
        for bad in [
            "windows",
            "windows:every=8h,length=8h",
            "threshold:loss=2,repair=1d",
            "threshold:loss=120%",
            "immediate:repair=0s",
            "sometimes",
            "immediate:every=1d",
            "immediate:repair=1e300d",
            "windows:every=365251d",
        ] {
            assert!(bad.parse::<RepairPolicy>().is_err(), "{bad}");
        }
        let err = "immediate:repair=1e300d"
            .parse::<RepairPolicy>()
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("repair: must be positive and at most the longest horizon"),
            "{err}"
        );
        assert!("threshold:loss=2%,repair=365250d"
            .parse::<RepairPolicy>()
            .is_ok());
    }
}
