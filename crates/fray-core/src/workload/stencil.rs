//! Stencil halo exchanges on a logical grid of ranks: 5P and 9P (2D), 7P and 27P (3D).

use std::str::FromStr;

use super::{Message, WorkloadError};

/// The neighbourhood of a stencil.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StencilKind {
    /// 2D, the four face neighbours.
    FiveP,
    /// 2D, faces and corners (eight neighbours).
    NineP,
    /// 3D, the six face neighbours.
    SevenP,
    /// 3D, faces, edges and corners (26 neighbours).
    TwentySevenP,
}

impl StencilKind {
    /// Number of grid dimensions the stencil needs.
    pub fn num_dims(self) -> usize {
        match self {
            Self::FiveP | Self::NineP => 2,
            Self::SevenP | Self::TwentySevenP => 3,
        }
    }

    /// The name written in specs: `5P`, `9P`, `7P`, `27P`.
    pub fn name(self) -> &'static str {
        match self {
            Self::FiveP => "5P",
            Self::NineP => "9P",
            Self::SevenP => "7P",
            Self::TwentySevenP => "27P",
        }
    }

    /// The face stencil of a `q`-dimensional grid (5P in 2D, 7P in 3D), if there is one.
    pub fn faces_for(q: usize) -> Option<Self> {
        match q {
            2 => Some(Self::FiveP),
            3 => Some(Self::SevenP),
            _ => None,
        }
    }

    /// Neighbour offsets, each a vector of -1/0/+1 per dimension.
    pub(crate) fn offsets(self) -> Vec<Vec<isize>> {
        let q = self.num_dims();
        let full = matches!(self, Self::NineP | Self::TwentySevenP);
        let mut out = Vec::new();
        let mut off = vec![-1isize; q];
        loop {
            let nonzero = off.iter().filter(|&&o| o != 0).count();
            if nonzero == 1 || (full && nonzero > 0) {
                out.push(off.clone());
            }
            let mut d = 0;
            loop {
                if d == q {
                    return out;
                }
                if off[d] < 1 {
                    off[d] += 1;
                    break;
                }
                off[d] = -1;
                d += 1;
            }
        }
    }
}

impl FromStr for StencilKind {
    type Err = WorkloadError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_uppercase().as_str() {
            "5P" => Ok(Self::FiveP),
            "9P" => Ok(Self::NineP),
            "7P" => Ok(Self::SevenP),
            "27P" => Ok(Self::TwentySevenP),
            _ => Err(WorkloadError::Invalid {
                what: format!("stencil {s:?}"),
                reason: "unknown stencil (known: 5P, 9P, 7P, 27P)".into(),
            }),
        }
    }
}

/// A stencil halo exchange: every rank sends one message to each neighbour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stencil {
    /// Which neighbours.
    pub kind: StencilKind,
    /// Whether the rank grid wraps around (neighbours across the edges).
    pub periodic: bool,
}

impl Stencil {
    /// The `(src, dst)` rank pairs of one exchange on a logical grid of `grid` ranks (rank
    /// index with dimension 0 fastest). A neighbour that is the rank itself is skipped.
    pub fn pairs(&self, grid: &[usize]) -> Result<Vec<(u32, u32)>, WorkloadError> {
        self.check_dims(grid)?;
        let offsets = self.kind.offsets();
        let total: usize = grid.iter().product();
        let mut pairs = Vec::with_capacity(total * offsets.len());
        let mut coord = vec![0usize; grid.len()];
        for rank in 0..total {
            let mut r = rank;
            for (c, &g) in coord.iter_mut().zip(grid) {
                *c = r % g;
                r /= g;
            }
            'offsets: for off in &offsets {
                let mut peer = 0usize;
                let mut stride = 1usize;
                for ((&c, &o), &g) in coord.iter().zip(off).zip(grid) {
                    let mut n = c as isize + o;
                    if n < 0 || n >= g as isize {
                        if !self.periodic {
                            continue 'offsets;
                        }
                        n = n.rem_euclid(g as isize);
                    }
                    peer += n as usize * stride;
                    stride *= g;
                }
                if peer != rank {
                    pairs.push((rank as u32, peer as u32));
                }
            }
        }
        Ok(pairs)
    }

    /// An error unless `grid` has as many dimensions as the stencil needs.
    pub(crate) fn check_dims(&self, grid: &[usize]) -> Result<(), WorkloadError> {
        if grid.len() != self.kind.num_dims() {
            return Err(WorkloadError::Invalid {
                what: format!("stencil {}", self.kind.name()),
                reason: format!(
                    "needs a {}-dimensional grid of ranks, got {} dimensions",
                    self.kind.num_dims(),
                    grid.len()
                ),
            });
        }
        Ok(())
    }

    /// Like [`messages`](Self::messages), checking that the grid's ranks fit on
    /// `num_endpoints` endpoints (rank `i` on endpoint `i`).
    pub fn messages_on(
        &self,
        grid: &[usize],
        num_endpoints: usize,
        size_bytes: f64,
    ) -> Result<Vec<Message>, WorkloadError> {
        let ranks: usize = grid.iter().product();
        if ranks > num_endpoints {
            return Err(WorkloadError::Invalid {
                what: format!("grid {grid:?}"),
                reason: format!("{ranks} ranks do not fit on {num_endpoints} endpoints"),
            });
        }
        self.messages(grid, size_bytes)
    }

    /// The messages of one exchange, each of `size_bytes`.
    pub fn messages(&self, grid: &[usize], size_bytes: f64) -> Result<Vec<Message>, WorkloadError> {
        Ok(self
            .pairs(grid)?
            .into_iter()
            .map(|(src, dst)| Message {
                src,
                dst,
                size_bytes,
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbour_counts() {
        assert_eq!(StencilKind::FiveP.offsets().len(), 4);
        assert_eq!(StencilKind::NineP.offsets().len(), 8);
        assert_eq!(StencilKind::SevenP.offsets().len(), 6);
        assert_eq!(StencilKind::TwentySevenP.offsets().len(), 26);
    }

    #[test]
    fn message_counts_closed_form() {
        // Non-periodic 5P on WxH: 2 * (2WH - W - H) messages; periodic: 4WH.
        let s = Stencil {
            kind: StencilKind::FiveP,
            periodic: false,
        };
        assert_eq!(s.pairs(&[7, 5]).unwrap().len(), 2 * (2 * 35 - 7 - 5));
        let s = Stencil {
            kind: StencilKind::FiveP,
            periodic: true,
        };
        assert_eq!(s.pairs(&[7, 5]).unwrap().len(), 4 * 35);
        let s = Stencil {
            kind: StencilKind::TwentySevenP,
            periodic: true,
        };
        assert_eq!(s.pairs(&[4, 4, 4]).unwrap().len(), 26 * 64);
    }

    #[test]
    fn wrong_grid_dimension_is_an_error() {
        let s = Stencil {
            kind: StencilKind::SevenP,
            periodic: false,
        };
        assert!(s
            .pairs(&[4, 4])
            .unwrap_err()
            .to_string()
            .contains("3-dimensional"));
    }
}
