//! Topology spec strings: `mesh:100x100`, `torus:12x12x12`, `torus:16x8x8`.

use std::str::FromStr;

use super::{Cartesian, FabricError};

/// A parsed topology spec string.
#[derive(Debug, Clone, PartialEq)]
pub enum FabricSpec {
    /// `mesh:AxBx..` (no wrap-around) or `torus:AxBx..` (wrap-around in every dimension).
    Cartesian(Cartesian),
}

/// Largest number of routers a spec may ask for (guards against typos such as `mesh:1000000x1000`).
pub const MAX_ROUTERS: usize = 1 << 26;

fn spec_error(spec: &str, reason: impl Into<String>) -> FabricError {
    FabricError::Spec {
        spec: spec.to_string(),
        reason: reason.into(),
    }
}

impl FromStr for FabricSpec {
    type Err = FabricError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let (family, body) = spec
            .split_once(':')
            .ok_or_else(|| spec_error(spec, "expected FAMILY:PARAMETERS, e.g. torus:12x12x12"))?;
        let wrap = match family.trim() {
            "mesh" => false,
            "torus" => true,
            other => {
                return Err(spec_error(
                    spec,
                    format!("unknown family {other:?} (known: mesh, torus)"),
                ))
            }
        };
        let mut dims = Vec::new();
        for (i, part) in body.split('x').enumerate() {
            let size: usize = part.trim().parse().map_err(|_| {
                spec_error(
                    spec,
                    format!("dimension {i}: {part:?} is not a whole number"),
                )
            })?;
            if size == 0 {
                return Err(spec_error(
                    spec,
                    format!("dimension {i}: size must be at least 1"),
                ));
            }
            dims.push(size);
        }
        let total = dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
        match total {
            Some(n) if n <= MAX_ROUTERS => {}
            _ => return Err(spec_error(spec, format!("more than {MAX_ROUTERS} routers"))),
        }
        let wraps = vec![wrap; dims.len()];
        Ok(FabricSpec::Cartesian(Cartesian::new(dims, wraps)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_mesh_and_torus() {
        let FabricSpec::Cartesian(c) = "torus:16x8x8".parse().unwrap();
        assert_eq!(c.dims(), &[16, 8, 8]);
        assert!(c.wraps().iter().all(|&w| w));
        let FabricSpec::Cartesian(c) = "mesh:100x100".parse().unwrap();
        assert_eq!(c.dims(), &[100, 100]);
        assert!(c.wraps().iter().all(|&w| !w));
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
        ] {
            let err = bad.parse::<FabricSpec>().unwrap_err().to_string();
            assert!(err.contains(needle), "{bad}: {err}");
        }
    }
}
