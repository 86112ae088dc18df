//! A logical grid of ranks as Ember lays them out: dimension 0 fastest
//! (`rank = x + pex * (y + pey * z)`), no wrap-around (a neighbour past an edge does not
//! exist).

use super::motif::{check_positive, invalid};
use super::WorkloadError;

/// A `D`-dimensional grid of ranks without wrap-around.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RankGrid<const D: usize> {
    dims: [u32; D],
    num_ranks: u32,
}

impl<const D: usize> RankGrid<D> {
    /// The grid `dims` of `motif`, whose fields are called `names`; every side at least 1,
    /// and the rank count must fit a `u32`.
    pub(crate) fn new(
        motif: &str,
        names: [&str; D],
        dims: [u32; D],
    ) -> Result<Self, WorkloadError> {
        let mut total = 1u32;
        for (&name, &side) in names.iter().zip(&dims) {
            check_positive(motif, name, side)?;
            total = total.checked_mul(side).ok_or_else(|| {
                invalid(
                    motif,
                    &names.join(" x "),
                    format!("{dims:?} is more than 2^32 ranks"),
                )
            })?;
        }
        Ok(Self {
            dims,
            num_ranks: total,
        })
    }

    /// Ranks along each dimension.
    pub(crate) fn dims(&self) -> [u32; D] {
        self.dims
    }

    /// Number of ranks.
    pub(crate) fn num_ranks(&self) -> u32 {
        self.num_ranks
    }

    /// Coordinates of `rank`, dimension 0 fastest.
    pub(crate) fn coords(&self, rank: u32) -> [u32; D] {
        let mut r = rank;
        let mut c = [0; D];
        for (c, &side) in c.iter_mut().zip(&self.dims) {
            *c = r % side;
            r /= side;
        }
        c
    }

    /// The rank `step` places from `rank` along dimension `dim`, if it is inside the grid.
    pub(crate) fn neighbour(&self, rank: u32, dim: usize, step: i64) -> Option<u32> {
        let stride: u32 = self.dims[..dim].iter().product();
        let c = i64::from(self.coords(rank)[dim]) + step;
        if c < 0 || c >= i64::from(self.dims[dim]) {
            return None;
        }
        Some((i64::from(rank) + step * i64::from(stride)) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_and_neighbours_follow_ember() {
        let g = RankGrid::new("t", ["pex", "pey", "pez"], [3, 4, 5]).unwrap();
        assert_eq!(g.num_ranks(), 60);
        // rank = x + 3 * (y + 4 * z)
        assert_eq!(g.coords(1 + 3 * (2 + 4 * 3)), [1, 2, 3]);
        let r = 1 + 3 * (2 + 4 * 3);
        assert_eq!(g.neighbour(r, 0, 1), Some(r + 1));
        assert_eq!(g.neighbour(r, 1, -1), Some(r - 3));
        assert_eq!(g.neighbour(r, 2, 1), Some(r + 12));
        assert_eq!(g.neighbour(r, 2, 2), None);
        assert_eq!(g.neighbour(0, 0, -1), None);
    }

    #[test]
    fn zero_side_and_overflow_are_errors() {
        let e = RankGrid::new("m", ["pex", "pey"], [3, 0]).unwrap_err();
        assert!(e.to_string().contains("m pey"));
        let e = RankGrid::new("m", ["pex", "pey"], [1 << 16, 1 << 16]).unwrap_err();
        assert!(e.to_string().contains("2^32"));
    }
}
