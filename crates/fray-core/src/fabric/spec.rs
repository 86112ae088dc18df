//! Topology spec strings: `mesh:100x100`, `torus:12x12x12`, `torus:8x8x8,t=2`,
//! `hyperx:16x16x9,k=1x1x2,t=16`, `xgft:3;24,12,6;1,12,6`, `dragonfly:p=4,a=8,h=4,g=9`,
//! `gemini:4x4x4`.
//!
//! A spec is `FAMILY:BODY`. The body is a comma-separated list: positional parts first, then
//! `key=value` options ([`SpecParts`]), so every family reads its options the same way and an
//! unknown or repeated key is an error naming it. `xgft` separates its three lists with `;`.

use std::fmt;
use std::str::FromStr;

use super::gemini::{parse_gemini, Gemini};
use super::xgft::parse_xgft;
use super::{dragonfly, Cartesian, DragonflyShape, FabricError, HyperXShape, XgftShape};

/// A parsed topology spec string.
#[derive(Debug, Clone, PartialEq)]
pub enum FabricSpec {
    /// `mesh:AxBx..` (no wrap-around) or `torus:AxBx..` (wrap-around in every dimension), with
    /// `t=T` endpoints per router (default 1).
    Cartesian {
        /// Sizes and wrap-around flags.
        shape: Cartesian,
        /// Endpoints attached to each router.
        endpoints_per_router: u32,
    },
    /// `hyperx:S1xS2x..,k=K,t=T`: all-to-all in every dimension, `k` parallel cables per
    /// neighbour pair (one number, or one per dimension such as `1x1x2`; default 1), `t`
    /// endpoints per router (default 1).
    HyperX {
        /// Sizes and parallel cables per dimension.
        shape: HyperXShape,
        /// Endpoints attached to each router.
        endpoints_per_router: u32,
    },
    /// `xgft:H;M1,..,MH;W1,..,WH`: an extended generalized fat tree ([`crate::fabric::Xgft`]).
    Xgft(XgftShape),
    /// `dragonfly:p=P,a=A,h=H,g=G[,arrangement=..]` (see [`crate::fabric::dragonfly`]).
    Dragonfly(DragonflyShape),
    /// `gemini:XxYxZ`: a Cray Gemini torus with its own link classes
    /// ([`crate::fabric::gemini`]); only the latency of the link parameters applies.
    Gemini(Gemini),
}

impl FabricSpec {
    /// The mesh or torus shape, if this spec is one.
    pub fn as_cartesian(&self) -> Option<&Cartesian> {
        match self {
            Self::Cartesian { shape, .. } => Some(shape),
            _ => None,
        }
    }
}

/// Largest number of routers a spec may ask for (guards against typos such as `mesh:1000000x1000`).
pub const MAX_ROUTERS: usize = 1 << 26;

/// Largest number of endpoints a spec may ask for.
pub const MAX_ENDPOINTS: usize = 1 << 26;

/// Memory a fabric may take, in bytes (4 GiB): the engines keep several more numbers per
/// channel beside it, so a larger fabric would not leave them room on a workstation or a
/// cluster node of 16 to 32 GiB. Checked before anything is allocated.
pub const MAX_FABRIC_BYTES: u128 = 4 << 30;

/// Bytes a built fabric holds per router (its name, CSR offsets, endpoint count), per
/// endpoint (its name and router) and per directed channel (its fields and CSR entry).
const ROUTER_BYTES: u128 = 56;
const ENDPOINT_BYTES: u128 = 52;
const CHANNEL_BYTES: u128 = 40;

/// Bytes a fabric of `routers` routers, `endpoints` endpoints and `router_channels` directed
/// router-to-router channels takes once built (each endpoint adds two host channels).
pub fn fabric_bytes(routers: usize, endpoints: usize, router_channels: usize) -> u128 {
    routers as u128 * ROUTER_BYTES
        + endpoints as u128 * (ENDPOINT_BYTES + 2 * CHANNEL_BYTES)
        + router_channels as u128 * CHANNEL_BYTES
}

/// Why a fabric of this size cannot be built: it would take more than
/// [`MAX_FABRIC_BYTES`] (the reason names the memory it would take).
pub(crate) fn check_fabric_bytes(
    routers: usize,
    endpoints: usize,
    router_channels: usize,
) -> Result<(), String> {
    let bytes = fabric_bytes(routers, endpoints, router_channels);
    if bytes <= MAX_FABRIC_BYTES {
        return Ok(());
    }
    let gib = |b: u128| b as f64 / f64::from(1u32 << 30);
    Err(format!(
        "{routers} routers, {endpoints} endpoints and {router_channels} channels would take \
         {:.1} GiB, more than the {:.0} GiB a fabric may take",
        gib(bytes),
        gib(MAX_FABRIC_BYTES)
    ))
}

/// The error for a bad spec, naming the spec and what is wrong.
pub(crate) fn spec_error(spec: &str, reason: impl Into<String>) -> FabricError {
    field_error(spec, "fabric", reason)
}

/// The error for option or part `field` of a bad spec.
pub(crate) fn field_error(spec: &str, field: &str, reason: impl Into<String>) -> FabricError {
    FabricError::Spec {
        spec: spec.to_string(),
        field: field.to_string(),
        reason: reason.into(),
    }
}

/// The body of a spec split into positional parts and `key=value` options.
pub(crate) struct SpecParts<'a> {
    spec: &'a str,
    /// Parts without `=`, in order.
    pub positional: Vec<&'a str>,
    options: Vec<(&'a str, &'a str, bool)>,
}

impl<'a> SpecParts<'a> {
    /// Splits `body` (the part after `FAMILY:`) on commas; positional parts must come first.
    pub fn new(spec: &'a str, body: &'a str) -> Result<Self, FabricError> {
        let mut positional = Vec::new();
        let mut options: Vec<(&str, &str, bool)> = Vec::new();
        for part in body.split(',') {
            let part = part.trim();
            match part.split_once('=') {
                Some((k, v)) => {
                    let k = k.trim();
                    if options.iter().any(|(seen, _, _)| *seen == k) {
                        return Err(field_error(spec, k, format!("option {k:?} given twice")));
                    }
                    options.push((k, v.trim(), false));
                }
                None if options.is_empty() => positional.push(part),
                None => {
                    return Err(field_error(
                        spec,
                        part,
                        format!("{part:?} must come before the key=value options"),
                    ))
                }
            }
        }
        Ok(Self {
            spec,
            positional,
            options,
        })
    }

    /// The value of option `key`, if given (marks it as used).
    pub fn take(&mut self, key: &str) -> Option<&'a str> {
        self.options
            .iter_mut()
            .find(|(k, _, _)| *k == key)
            .map(|(_, v, used)| {
                *used = true;
                *v
            })
    }

    /// The whole-number option `key` (at least `min`), or `default` when absent.
    pub fn take_count(
        &mut self,
        key: &str,
        default: usize,
        min: usize,
    ) -> Result<usize, FabricError> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => parse_count(self.spec, key, v, min),
        }
    }

    /// Fails naming the first option no family reader asked for, listing the known ones.
    pub fn finish(self, known: &[&str]) -> Result<(), FabricError> {
        match self.options.iter().find(|(_, _, used)| !used) {
            None => Ok(()),
            Some((k, _, _)) if known.is_empty() => Err(field_error(
                self.spec,
                k,
                format!("unknown option {k:?} (this family takes no options)"),
            )),
            Some((k, _, _)) => Err(field_error(
                self.spec,
                k,
                format!("unknown option {k:?} (known: {})", known.join(", ")),
            )),
        }
    }
}

/// A whole number at least `min`, or an error naming `what`.
pub(crate) fn parse_count(
    spec: &str,
    what: &str,
    value: &str,
    min: usize,
) -> Result<usize, FabricError> {
    match value.trim().parse::<usize>() {
        Ok(n) if n >= min => Ok(n),
        Ok(_) => Err(field_error(
            spec,
            what,
            format!("{what}: must be at least {min}, got {value}"),
        )),
        Err(_) => Err(field_error(
            spec,
            what,
            format!("{what}: {value:?} is not a whole number"),
        )),
    }
}

/// Sizes separated by `x` (`12x12x12`), each at least `min`.
pub(crate) fn parse_sizes(
    spec: &str,
    what: &str,
    text: &str,
    min: usize,
) -> Result<Vec<usize>, FabricError> {
    text.split('x')
        .enumerate()
        .map(|(i, part)| parse_count(spec, &format!("{what} {i}"), part, min))
        .collect()
}

/// The product of `factors`, or an error when it exceeds `limit` (`what` names the count).
pub(crate) fn checked_total(
    spec: &str,
    what: &str,
    factors: &[usize],
    limit: usize,
) -> Result<usize, FabricError> {
    match factors
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
    {
        Some(n) if n <= limit => Ok(n),
        _ => Err(spec_error(spec, format!("more than {limit} {what}"))),
    }
}

fn parse_cartesian(spec: &str, body: &str, wrap: bool) -> Result<FabricSpec, FabricError> {
    let mut parts = SpecParts::new(spec, body)?;
    if parts.positional.len() != 1 {
        return Err(spec_error(
            spec,
            "expected the sizes, e.g. 12x12x12, then options",
        ));
    }
    let dims = parse_sizes(spec, "dimension", parts.positional[0], 1)?;
    let t = parts.take_count("t", 1, 1)?;
    parts.finish(&["t"])?;
    let routers = checked_total(spec, "routers", &dims, MAX_ROUTERS)?;
    let endpoints = checked_total(spec, "endpoints", &[routers, t], MAX_ENDPOINTS)?;
    // At most two channels per router and dimension (a ring or a line of cables).
    check_fabric_bytes(routers, endpoints, 2 * routers * dims.len())
        .map_err(|reason| spec_error(spec, reason))?;
    let wraps = vec![wrap; dims.len()];
    Ok(FabricSpec::Cartesian {
        shape: Cartesian::new(dims, wraps),
        endpoints_per_router: t as u32,
    })
}

/// Family names a spec may start with.
pub const FAMILIES: &[&str] = &["mesh", "torus", "hyperx", "xgft", "dragonfly", "gemini"];

impl FromStr for FabricSpec {
    type Err = FabricError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let (family, body) = spec
            .split_once(':')
            .ok_or_else(|| spec_error(spec, "expected FAMILY:PARAMETERS, e.g. torus:12x12x12"))?;
        match family.trim() {
            "mesh" => parse_cartesian(spec, body, false),
            "torus" => parse_cartesian(spec, body, true),
            "hyperx" => super::hyperx::parse_hyperx(spec, body),
            "xgft" => parse_xgft(spec, body),
            "dragonfly" => dragonfly::parse_spec(spec, body),
            "gemini" => parse_gemini(spec, body).map(FabricSpec::Gemini),
            other => Err(spec_error(
                spec,
                format!("unknown family {other:?} (known: {})", FAMILIES.join(", ")),
            )),
        }
    }
}

impl fmt::Display for FabricSpec {
    /// The canonical spec string, which [`FabricSpec::from_str`] reads back to the same
    /// spec: sizes joined by `x`, options left out at their defaults (`t=1`, `k=1`,
    /// `arrangement=absolute`), `k` one number when every dimension has the same. A mesh or
    /// torus prints as `torus` when every dimension wraps, else as `mesh` (no spec string
    /// wraps some dimensions only).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |values: &[usize], separator: &str| {
            values
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(separator)
        };
        let endpoints = |f: &mut fmt::Formatter<'_>, t: u32| match t {
            1 => Ok(()),
            t => write!(f, ",t={t}"),
        };
        match self {
            Self::Cartesian {
                shape,
                endpoints_per_router,
            } => {
                let family = if shape.wraps().iter().all(|&w| w) {
                    "torus"
                } else {
                    "mesh"
                };
                write!(f, "{family}:{}", join(shape.dims(), "x"))?;
                endpoints(f, *endpoints_per_router)
            }
            Self::HyperX {
                shape,
                endpoints_per_router,
            } => {
                write!(f, "hyperx:{}", join(shape.sizes(), "x"))?;
                match shape.links() {
                    k if k.iter().all(|&n| n == 1) => {}
                    k if k.iter().all(|&n| n == k[0]) => write!(f, ",k={}", k[0])?,
                    k => write!(f, ",k={}", join(k, "x"))?,
                }
                endpoints(f, *endpoints_per_router)
            }
            Self::Xgft(shape) => write!(
                f,
                "xgft:{};{};{}",
                shape.m().len(),
                join(shape.m(), ","),
                join(shape.w(), ",")
            ),
            Self::Dragonfly(d) => {
                write!(
                    f,
                    "dragonfly:p={},a={},h={},g={}",
                    d.endpoints_per_router,
                    d.routers_per_group,
                    d.global_ports_per_router,
                    d.groups
                )?;
                if d.arrangement != Default::default() {
                    write!(f, ",arrangement={}", d.arrangement)?;
                }
                Ok(())
            }
            Self::Gemini(g) => write!(f, "gemini:{}", join(&g.dims(), "x")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn printing_leaves_out_the_defaults() {
        for (given, canonical) in [
            ("torus:12x12x12", "torus:12x12x12"),
            ("mesh:4x4,t=1", "mesh:4x4"),
            ("torus:8x8x8,t=2", "torus:8x8x8,t=2"),
            ("hyperx:4x4x3,k=1x1x2,t=4", "hyperx:4x4x3,k=1x1x2,t=4"),
            ("hyperx:4x4,k=2x2", "hyperx:4x4,k=2"),
            ("hyperx:4x4,k=1", "hyperx:4x4"),
            ("xgft:3;24,12,6;1,12,6", "xgft:3;24,12,6;1,12,6"),
            ("dragonfly:g=9,h=4,a=8,p=4", "dragonfly:p=4,a=8,h=4,g=9"),
            (
                "dragonfly:p=4,a=8,h=4,g=9,arrangement=relative",
                "dragonfly:p=4,a=8,h=4,g=9,arrangement=relative",
            ),
            (
                "dragonfly:p=4,a=8,h=4,g=9,arrangement=absolute",
                "dragonfly:p=4,a=8,h=4,g=9",
            ),
            ("gemini:4x4x4", "gemini:4x4x4"),
        ] {
            let spec: FabricSpec = given.parse().unwrap();
            assert_eq!(spec.to_string(), canonical, "{given}");
            assert_eq!(canonical.parse::<FabricSpec>().unwrap(), spec, "{given}");
        }
    }

    #[test]
    fn bad_options_name_their_field() {
        for (bad, field) in [
            ("torus:4x4,t=0", "t"),
            ("torus:4x4,p=2", "p"),
            ("torus:4x4,t=2,t=3", "t"),
            ("mesh:4xq", "dimension 1"),
            ("ring:4", "fabric"),
            ("dragonfly:p=4,a=8,h=4", "g"),
            (
                "dragonfly:p=4,a=8,h=4,g=9,arrangement=spiral",
                "arrangement",
            ),
            ("hyperx:4x4x4,k=1x2", "k"),
        ] {
            let FabricError::Spec { field: got, .. } = bad.parse::<FabricSpec>().unwrap_err()
            else {
                panic!("{bad}: not a spec error")
            };
            assert_eq!(got, field, "{bad}");
        }
    }

    fn fabric_specs() -> impl Strategy<Value = String> {
        let sizes = |n| proptest::collection::vec(1usize..6, 1..=n);
        let t = prop_oneof![Just(1usize), 1usize..5];
        prop_oneof![
            (any::<bool>(), sizes(3), t.clone()).prop_map(|(wrap, d, t)| format!(
                "{}:{},t={t}",
                if wrap { "torus" } else { "mesh" },
                d.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("x")
            )),
            (sizes(3), proptest::collection::vec(1usize..3, 3), t).prop_map(|(d, k, t)| {
                let k = &k[..d.len()];
                let x = |v: &[usize]| {
                    v.iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("x")
                };
                format!("hyperx:{},k={},t={t}", x(&d), x(k))
            }),
            (1usize..4, 1usize..5, 2usize..6, any::<bool>()).prop_map(|(p, a, g, relative)| {
                // h global ports per router so that a*h divides evenly among the g-1 others.
                let h = g - 1;
                let arrangement = if relative {
                    ",arrangement=relative"
                } else {
                    ""
                };
                format!("dragonfly:p={p},a={a},h={h},g={g}{arrangement}")
            }),
            (1usize..4).prop_map(|x| format!("gemini:{x}x2x{x}")),
            (2usize..5, 2usize..5).prop_map(|(m1, m2)| format!("xgft:2;{m1},{m2};1,{m1}")),
        ]
    }

    proptest! {
        #[test]
        fn a_fabric_spec_reads_back_as_it_prints(text in fabric_specs()) {
            let spec: FabricSpec = text.parse().unwrap();
            let printed = spec.to_string();
            prop_assert_eq!(printed.parse::<FabricSpec>().unwrap(), spec, "{}", printed);
            prop_assert_eq!(printed.parse::<FabricSpec>().unwrap().to_string(), printed);
        }

        #[test]
        fn bad_fabric_specs_name_a_field(text in "\\PC{0,30}") {
            if let Err(FabricError::Spec { field, reason, .. }) = text.parse::<FabricSpec>() {
                prop_assert!(!field.is_empty() && !reason.contains('\n'));
            }
        }
    }

    #[test]
    fn fabrics_larger_than_memory_allows_are_refused_before_building() {
        // The dragonfly was refused only while building, after 4 GB, with 0 endpoints counted.
        for spec in [
            "torus:8192x8192",
            "mesh:4096x4096,t=4",
            "dragonfly:p=1,a=10000,h=1,g=2",
        ] {
            let e = spec.parse::<FabricSpec>().unwrap_err().to_string();
            assert!(e.contains("GiB, more than the 4 GiB"), "{spec}: {e}");
            assert!(e.contains(spec), "{spec}: {e}");
        }
        let e = "dragonfly:p=1,a=10000,h=1,g=2"
            .parse::<FabricSpec>()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("20000 routers, 20000 endpoints and 200000000 channels"),
            "{e}"
        );
        // The largest square torus under the cap parses.
        let side = (1..8192usize)
            .rev()
            .find(|&s| fabric_bytes(s * s, s * s, 4 * s * s) <= MAX_FABRIC_BYTES)
            .unwrap();
        assert!(format!("torus:{side}x{side}").parse::<FabricSpec>().is_ok());
        assert!(format!("torus:{0}x{0}", side + 1)
            .parse::<FabricSpec>()
            .is_err());
    }

    fn shape(spec: &str) -> (Cartesian, u32) {
        match spec.parse().unwrap() {
            FabricSpec::Cartesian {
                shape,
                endpoints_per_router,
            } => (shape, endpoints_per_router),
            other => panic!("{spec} parsed as {other:?}"),
        }
    }

    #[test]
    fn parses_mesh_and_torus() {
        let (c, t) = shape("torus:16x8x8");
        assert_eq!(c.dims(), &[16, 8, 8]);
        assert!(c.wraps().iter().all(|&w| w));
        assert_eq!(t, 1);
        let (c, _) = shape("mesh:100x100");
        assert_eq!(c.dims(), &[100, 100]);
        assert!(c.wraps().iter().all(|&w| !w));
        assert_eq!(shape("torus:8x8x8,t=2").1, 2);
    }

    #[test]
    fn rejects_bad_specs_naming_the_part() {
        for (bad, needle) in [
            ("mesh", "FAMILY:PARAMETERS"),
            ("ring:4", "unknown family"),
            ("mesh:4xq", "dimension 1"),
            ("torus:0x3", "at least 1"),
            ("mesh:100000x100000", "routers"),
            ("mesh:", "dimension 0"),
            ("torus:4x4,t=0", "t: must be at least 1"),
            ("torus:4x4,p=2", "unknown option \"p\""),
            ("torus:4x4,t=2,t=3", "given twice"),
            ("torus:t=2,4x4", "must come before"),
        ] {
            let err = bad.parse::<FabricSpec>().unwrap_err().to_string();
            assert!(err.contains(needle), "{bad}: {err}");
        }
    }
}
