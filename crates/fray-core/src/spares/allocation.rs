//! Spare allocation `qD(r,s)`: `s` layers of spare nodes on the high side of the first `r`
//! dimensions of a `q`-dimensional grid.

use std::fmt;
use std::str::FromStr;

use super::SparesError;
use crate::fabric::Cartesian;

/// The paper's `qD(r,s)`: on a `q`-dimensional grid, the last `s` indices of each of the
/// first `r` dimensions are spare. `2D(1,1)` on `mesh:WxH` reserves the column `x = W-1`;
/// `2D(2,1)` also reserves the row `y = H-1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SpareAllocation {
    /// Number of grid dimensions, `q`.
    pub dims: usize,
    /// Number of dimensions with a spare side, `r <= q`.
    pub sides: usize,
    /// Thickness of each spare side, in nodes, `s >= 1`.
    pub thickness: usize,
}

impl FromStr for SpareAllocation {
    type Err = SparesError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let err = |reason: &str| SparesError::Allocation {
            spec: spec.into(),
            reason: reason.into(),
        };
        let text: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
        let (q, rest) = text
            .split_once(['D', 'd'])
            .ok_or_else(|| err("expected qD(r,s), e.g. 3D(2,1)"))?;
        let inner = rest
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .ok_or_else(|| err("expected qD(r,s), e.g. 3D(2,1)"))?;
        let (r, s) = inner
            .split_once(',')
            .ok_or_else(|| err("expected two numbers r,s in the brackets"))?;
        let num = |t: &str, what: &str| {
            t.parse::<usize>()
                .map_err(|_| err(&format!("{what} {t:?} is not a whole number")))
        };
        let (q, r, s) = (num(q, "q")?, num(r, "r")?, num(s, "s")?);
        if q == 0 {
            return Err(err("q must be at least 1"));
        }
        if r == 0 || r > q {
            return Err(err(&format!("r must be between 1 and q = {q}")));
        }
        if s == 0 {
            return Err(err("s must be at least 1"));
        }
        Ok(Self {
            dims: q,
            sides: r,
            thickness: s,
        })
    }
}

impl fmt::Display for SpareAllocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}D({},{})", self.dims, self.sides, self.thickness)
    }
}

impl SpareAllocation {
    /// Checks that the allocation fits `shape`: as many dimensions, and every spare side
    /// thinner than its dimension.
    pub fn check_fits(&self, shape: &Cartesian) -> Result<(), SparesError> {
        let err = |reason: String| SparesError::Allocation {
            spec: self.to_string(),
            reason,
        };
        if shape.num_dims() != self.dims {
            return Err(err(format!(
                "is for {} dimensions but the fabric has {}",
                self.dims,
                shape.num_dims()
            )));
        }
        for d in 0..self.sides {
            if shape.dims()[d] <= self.thickness {
                return Err(err(format!(
                    "spare side of thickness {} does not fit dimension {} of size {}",
                    self.thickness,
                    Cartesian::dimension_name(d),
                    shape.dims()[d]
                )));
            }
        }
        Ok(())
    }

    /// Extent of the compute (non-spare) box along each dimension.
    pub fn compute_extents(&self, shape: &Cartesian) -> Vec<usize> {
        shape
            .dims()
            .iter()
            .enumerate()
            .map(|(d, &n)| {
                if d < self.sides {
                    n - self.thickness
                } else {
                    n
                }
            })
            .collect()
    }

    /// The spare side a node lies on: the first dimension `d < r` whose coordinate is in the
    /// spare band, or `None` for a compute node.
    pub fn side_of(&self, shape: &Cartesian, node: u32) -> Option<usize> {
        (0..self.sides).find(|&d| shape.coord(node, d) >= shape.dims()[d] - self.thickness)
    }

    /// Number of spare nodes on `shape`.
    pub fn num_spares(&self, shape: &Cartesian) -> usize {
        shape.num_nodes() - self.compute_extents(shape).iter().product::<usize>()
    }

    /// Exact share of spare nodes on `shape`, in [0, 1).
    pub fn spare_fraction(&self, shape: &Cartesian) -> f64 {
        self.num_spares(shape) as f64 / shape.num_nodes() as f64
    }

    /// The paper's approximation `R = 1 - (N^(1/q) - s)^r * (N^(1/q))^(q-r) / N` for `N`
    /// nodes; exact when the grid is a cube of side `N^(1/q)`.
    pub fn paper_fraction(&self, num_nodes: usize) -> f64 {
        let n = num_nodes as f64;
        let side = n.powf(1.0 / self.dims as f64);
        1.0 - (side - self.thickness as f64).powi(self.sides as i32)
            * side.powi((self.dims - self.sides) as i32)
            / n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let a: SpareAllocation = "3D(2,1)".parse().unwrap();
        assert_eq!(
            a,
            SpareAllocation {
                dims: 3,
                sides: 2,
                thickness: 1
            }
        );
        assert_eq!(a.to_string(), "3D(2,1)");
        assert_eq!(
            " 2d( 2 , 2 ) "
                .parse::<SpareAllocation>()
                .unwrap()
                .thickness,
            2
        );
    }

    #[test]
    fn rejects_bad_specs() {
        for bad in [
            "3D", "3D(2)", "3D(4,1)", "0D(0,1)", "2D(1,0)", "xD(1,1)", "2D(1,1",
        ] {
            assert!(bad.parse::<SpareAllocation>().is_err(), "{bad}");
        }
    }

    #[test]
    fn spare_counts_match_the_paper() {
        // 24x24x24 with 3D(2,1): the paper's 1128 spare nodes.
        let shape = Cartesian::torus(&[24, 24, 24]);
        let a: SpareAllocation = "3D(2,1)".parse().unwrap();
        assert_eq!(a.num_spares(&shape), 1128);
        assert!((a.spare_fraction(&shape) - a.paper_fraction(24 * 24 * 24)).abs() < 1e-12);
        // 100x100 with 2D(2,2): R = 1 - 98^2/10^4.
        let shape = Cartesian::mesh(&[100, 100]);
        let a: SpareAllocation = "2D(2,2)".parse().unwrap();
        assert!((a.spare_fraction(&shape) - (1.0 - 98.0 * 98.0 / 1e4)).abs() < 1e-12);
    }

    #[test]
    fn fit_is_checked() {
        let a: SpareAllocation = "3D(2,1)".parse().unwrap();
        assert!(a.check_fits(&Cartesian::mesh(&[4, 4])).is_err());
        assert!(a.check_fits(&Cartesian::mesh(&[1, 4, 4])).is_err());
        assert!(a.check_fits(&Cartesian::mesh(&[2, 2, 1])).is_ok());
    }
}
