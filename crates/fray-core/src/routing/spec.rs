//! The routing spec: one typed value per routing family ([`RoutingSpec`]), read from its
//! short form (`ugal:threshold=800,links=adaptive`) and printed back canonically. Each
//! routing's own options are read in its module ([`UgalOptions`] in the dragonfly routings,
//! [`DoalWeights`] in the HyperX ones).

use std::fmt;
use std::str::FromStr;

use super::{
    DimensionOrder, DimensionOrderRetry, DoalWeights, DragonflyMinimal, DragonflyUgal,
    DragonflyValiant, HyperXDoal, HyperXDor, Routing, RoutingError, TableRouting, UgalOptions,
    UpDown, UpDownFaultTolerant, ROUTINGS,
};
use crate::fabric::{Fabric, Topology};
use crate::faults::Faults;
use crate::options::{write_spec, OptionError, OptionFamily};

/// A routing and its options, as a spec names them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RoutingSpec {
    /// `dor`: dimension order ([`DimensionOrder`] on a mesh or torus, [`HyperXDor`] on a
    /// HyperX).
    Dor,
    /// `dor-retry`: dimension order, other orders around failed links
    /// ([`DimensionOrderRetry`]).
    DorRetry,
    /// `doal[:weights=path|merlin]`: HyperX DOAL ([`HyperXDoal`]).
    Doal(DoalWeights),
    /// `updown`: fat-tree up/down with D-mod-k up ports ([`UpDown`]).
    UpDown,
    /// `updown-ft`: up/down around failed parts ([`UpDownFaultTolerant`]).
    UpDownFt,
    /// `table`: shortest paths around failed parts on any fabric ([`TableRouting`]).
    Table,
    /// `minimal`: dragonfly minimal ([`DragonflyMinimal`]).
    Minimal,
    /// `valiant`: dragonfly Valiant ([`DragonflyValiant`]).
    Valiant,
    /// `ugal[:OPTIONS]`: dragonfly UGAL ([`DragonflyUgal`], options [`UgalOptions`]).
    Ugal(UgalOptions),
}

/// The error for option `field` of routing spec `spec`: `routing "SPEC": REASON`.
/// An empty `field` (an empty option) is the routing's.
pub(crate) fn bad_option(spec: &str, field: &str, reason: String) -> OptionError {
    let field = if field.is_empty() { "routing" } else { field };
    OptionError::new(field, format!("routing {spec:?}: {reason}"))
}

impl RoutingSpec {
    /// The routing's name, as its spec starts.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Dor => "dor",
            Self::DorRetry => "dor-retry",
            Self::Doal(_) => "doal",
            Self::UpDown => "updown",
            Self::UpDownFt => "updown-ft",
            Self::Table => "table",
            Self::Minimal => "minimal",
            Self::Valiant => "valiant",
            Self::Ugal(_) => "ugal",
        }
    }

    /// The routing for `fabric` under `faults`; the family picked by the fabric's topology
    /// where a name covers two (`dor`). Routings that precompute their routes (`table`)
    /// build them for these faults and route only under them; the others read the faults
    /// of each request.
    pub fn build(
        &self,
        fabric: &Fabric,
        faults: &Faults,
    ) -> Result<Box<dyn Routing>, RoutingError> {
        Ok(match *self {
            Self::Dor => match fabric.topology() {
                Topology::HyperX(_) => Box::new(HyperXDor::new(fabric)?),
                _ => Box::new(DimensionOrder::new(fabric)?),
            },
            Self::DorRetry => Box::new(DimensionOrderRetry::new(fabric)?),
            Self::Doal(weights) => Box::new(HyperXDoal::new(fabric, weights)?),
            Self::UpDown => Box::new(UpDown::new(fabric)?),
            Self::UpDownFt => Box::new(UpDownFaultTolerant::new(fabric)?),
            Self::Table => Box::new(TableRouting::new(fabric, faults)?),
            Self::Minimal => Box::new(DragonflyMinimal::new(fabric)?),
            Self::Valiant => Box::new(DragonflyValiant::new(fabric)?),
            Self::Ugal(o) => Box::new(DragonflyUgal::new(fabric, o)?),
        })
    }
}

impl FromStr for RoutingSpec {
    type Err = OptionError;

    /// Reads a name of [`ROUTINGS`], options after a colon where the routing takes them
    /// (`ugal:threshold=4`, `doal:weights=merlin`).
    fn from_str(spec: &str) -> Result<Self, OptionError> {
        let (name, options) = match spec.split_once(':') {
            Some((name, options)) => (name, Some(options)),
            None => (spec, None),
        };
        match (name, options) {
            ("ugal", Some(options)) => UgalOptions::parse(spec, options).map(Self::Ugal),
            ("ugal", None) => Ok(Self::Ugal(UgalOptions::default())),
            ("doal", Some(options)) => DoalWeights::parse_options(spec, options).map(Self::Doal),
            ("doal", None) => Ok(Self::Doal(DoalWeights::default())),
            (_, None) => [
                Self::Dor,
                Self::DorRetry,
                Self::UpDown,
                Self::UpDownFt,
                Self::Table,
                Self::Minimal,
                Self::Valiant,
            ]
            .into_iter()
            .find(|r| r.name() == name)
            .ok_or_else(|| unknown(spec)),
            (_, Some(_)) if ROUTINGS.iter().any(|(n, _)| *n == name) => {
                Err(bad_option(spec, name, format!("{name} takes no options")))
            }
            _ => Err(unknown(spec)),
        }
    }
}

/// The error for a spec that names no routing.
fn unknown(spec: &str) -> OptionError {
    OptionError::new(
        "routing",
        format!(
            "unknown routing {spec:?} (known: {})",
            ROUTINGS
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}

impl OptionFamily for RoutingSpec {
    const FAMILY: &'static str = "routing";

    fn kind(&self) -> &'static str {
        self.name()
    }

    fn options(&self) -> Vec<(&'static str, String)> {
        match self {
            Self::Ugal(o) => o.options(),
            Self::Doal(w) => w.options(),
            _ => Vec::new(),
        }
    }
}

impl fmt::Display for RoutingSpec {
    /// The canonical short form: the name, then the options that differ from the defaults
    /// (`ugal:threshold=800,links=adaptive`, `doal:weights=merlin`, `ugal`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_spec(f, self.kind(), &self.options())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::{CongestionUnit, GlobalLinks, UgalRule};
    use proptest::prelude::*;

    #[test]
    fn a_routing_option_given_twice_is_refused() {
        let e = "ugal:threshold=5,threshold=6"
            .parse::<RoutingSpec>()
            .unwrap_err();
        assert!(e.message.contains("threshold given twice"), "{e}");
        assert_eq!(e.field, "threshold");
        assert!("ugal:threshold=5,links=adaptive"
            .parse::<RoutingSpec>()
            .is_ok());
    }

    #[test]
    fn printing_leaves_out_the_defaults() {
        for (given, canonical) in [
            ("ugal", "ugal"),
            ("ugal:threshold=0,links=random,queues=port", "ugal"),
            (
                "ugal:links=adaptive,threshold=800",
                "ugal:threshold=800,links=adaptive",
            ),
            (
                "ugal:queues=vc,credits=32000,factor=2",
                "ugal:credits=32000,queues=vc",
            ),
            (
                "ugal:credits=1e3,factor=1.5",
                "ugal:credits=1000,factor=1.5",
            ),
            (
                "ugal:links=adaptive,threshold=800B",
                "ugal:threshold=800B,links=adaptive",
            ),
            ("ugal:threshold=2 KiB", "ugal:threshold=2KiB"),
            ("ugal:threshold=0B", "ugal"),
            ("ugal:credits=32kB", "ugal:credits=32000B"),
            ("doal:weights=path", "doal"),
            ("doal:weights=merlin", "doal:weights=merlin"),
            ("dor-retry", "dor-retry"),
        ] {
            let spec: RoutingSpec = given.parse().unwrap();
            assert_eq!(spec.to_string(), canonical, "{given}");
            assert_eq!(canonical.parse::<RoutingSpec>(), Ok(spec));
        }
    }

    #[test]
    fn an_amount_with_a_unit_is_bytes_queued() {
        let spec: RoutingSpec = "ugal:threshold=2KiB".parse().unwrap();
        assert_eq!(
            spec,
            RoutingSpec::Ugal(UgalOptions {
                rule: UgalRule::Queues {
                    threshold: 2048.0,
                    links: GlobalLinks::Random,
                },
                per_vc: false,
                unit: Some(CongestionUnit::Bytes),
            })
        );
        let RoutingSpec::Ugal(options) = spec else {
            unreachable!()
        };
        assert_eq!(
            options.congestion_unit(),
            Some(("threshold=2KiB".to_string(), CongestionUnit::Bytes))
        );
        let bare: RoutingSpec = "ugal:threshold=2048".parse().unwrap();
        let RoutingSpec::Ugal(bare) = bare else {
            unreachable!()
        };
        assert_eq!((bare.rule, bare.unit), (options.rule, None));
        assert_eq!(bare.congestion_unit(), None);
    }

    #[test]
    fn bad_specs_name_the_field() {
        for (bad, field, says) in [
            ("ugal:threshold=-1", "threshold", "finite number >= 0"),
            ("ugal:links=fast", "links", "random or adaptive"),
            ("ugal:credits=0", "credits", "finite number > 0"),
            ("ugal:credits=0B", "credits", "or a size in bytes"),
            (
                "ugal:threshold=800b",
                "threshold",
                "a size in bytes such as 800B",
            ),
            ("ugal:threshold=1.5B", "threshold", "got \"1.5B\""),
            ("ugal:threshold=1e16B", "threshold", "size in bytes"),
            ("ugal:threshold=inf", "threshold", "finite number >= 0"),
            ("ugal:factor=3", "factor", "needs credits=B"),
            ("ugal:credits=8,links=adaptive", "credits", "takes factor=F"),
            ("ugal:speed=3", "speed", "expected threshold=T"),
            ("ugal:", "routing", "expected threshold=T"),
            ("ugal:queues=all", "queues", "vc or port"),
            ("doal:weights=even", "weights", "weights=path|merlin"),
            ("doal:weight=merlin", "weight", "weights=path|merlin"),
            ("table:fast", "table", "takes no options"),
            ("dijkstra", "routing", "unknown routing \"dijkstra\""),
            ("UGAL", "routing", "known: dor, dor-retry"),
        ] {
            let e = bad.parse::<RoutingSpec>().unwrap_err();
            assert_eq!(e.field, field, "{bad}: {e}");
            assert!(e.message.contains(says), "{bad}: {e}");
            assert!(!e.message.contains('\n'), "{bad}: {e}");
        }
    }

    fn routing_specs() -> impl Strategy<Value = RoutingSpec> {
        let number = prop_oneof![Just(0.0), 0.0f64..1e6, (0u32..100_000).prop_map(f64::from)];
        let positive = prop_oneof![1e-3f64..1e6, (1u32..100_000).prop_map(f64::from)];
        let rule = prop_oneof![
            (number, any::<bool>()).prop_map(|(threshold, adaptive)| UgalRule::Queues {
                threshold,
                links: if adaptive {
                    GlobalLinks::Adaptive
                } else {
                    GlobalLinks::Random
                },
            }),
            (positive.clone(), positive)
                .prop_map(|(buffer, factor)| UgalRule::Credits { buffer, factor }),
        ];
        prop_oneof![
            Just(RoutingSpec::Dor),
            Just(RoutingSpec::DorRetry),
            Just(RoutingSpec::UpDown),
            Just(RoutingSpec::UpDownFt),
            Just(RoutingSpec::Table),
            Just(RoutingSpec::Minimal),
            Just(RoutingSpec::Valiant),
            Just(RoutingSpec::Doal(DoalWeights::Path)),
            Just(RoutingSpec::Doal(DoalWeights::Merlin)),
            (rule, any::<bool>()).prop_map(|(rule, per_vc)| RoutingSpec::Ugal(UgalOptions {
                rule,
                per_vc,
                unit: None,
            })),
            // Amounts in bytes: whole numbers of bytes, above 0.
            (
                (1u32..100_000).prop_map(f64::from),
                any::<bool>(),
                any::<bool>()
            )
                .prop_map(|(amount, credits, per_vc)| RoutingSpec::Ugal(UgalOptions {
                    rule: if credits {
                        UgalRule::Credits {
                            buffer: amount,
                            factor: 1.5,
                        }
                    } else {
                        UgalRule::Queues {
                            threshold: amount,
                            links: GlobalLinks::Adaptive,
                        }
                    },
                    per_vc,
                    unit: Some(CongestionUnit::Bytes),
                })),
        ]
    }

    proptest! {
        #[test]
        fn a_routing_reads_back_as_it_prints(spec in routing_specs()) {
            let printed = spec.to_string();
            prop_assert_eq!(printed.parse::<RoutingSpec>(), Ok(spec));
            let view = RoutingSpec::from_options(
                spec.kind(),
                &spec.options().iter().map(|(k, v)| (*k, v.as_str())).collect::<Vec<_>>(),
            );
            prop_assert_eq!(view, Ok(spec));
        }

        #[test]
        fn a_printed_routing_is_stable(
            options in proptest::sample::subsequence(
                vec!["links=adaptive", "threshold=12.5", "queues=vc", "threshold=0", "links=random"],
                0..3,
            )
        ) {
            let given = if options.is_empty() {
                "ugal".to_string()
            } else {
                format!("ugal:{}", options.join(","))
            };
            if let Ok(spec) = given.parse::<RoutingSpec>() {
                let once = spec.to_string();
                prop_assert_eq!(once.parse::<RoutingSpec>().unwrap().to_string(), once);
            }
        }

        #[test]
        fn any_text_parses_or_names_a_field(text in "\\PC{0,40}") {
            if let Err(e) = text.parse::<RoutingSpec>() {
                prop_assert!(!e.message.is_empty());
                prop_assert!(e.message.contains("routing"));
            }
        }
    }
}
