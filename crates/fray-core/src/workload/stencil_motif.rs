//! A [`Stencil`] halo exchange (5P, 9P, 7P, 27P) repeated as iterations with compute.

use super::exchange::compute_then_exchange;
use super::motif::{check_rounds, invalid, Motif};
use super::{Dag, Message, Stencil, WorkloadError};

const NAME: &str = "stencil";

/// Iterations of a stencil exchange with messages of one size.
///
/// Each iteration, on every rank of the logical grid `grid` (dimension 0 fastest):
/// compute for `compute_s` seconds, then send `size_bytes` to every neighbour the stencil
/// names (all at once, wrapping around if the stencil is periodic); the next iteration's
/// compute on a rank waits for every message the rank sent or received.
#[derive(Debug, Clone, PartialEq)]
pub struct StencilMotif {
    /// Which neighbours, and whether the grid wraps around.
    pub stencil: Stencil,
    /// Ranks per dimension (2 for 5P/9P, 3 for 7P/27P).
    pub grid: Vec<usize>,
    /// Bytes of every message.
    pub size_bytes: f64,
    /// Compute per rank per iteration, in seconds.
    pub compute_s: f64,
    /// Number of iterations.
    pub iterations: u32,
}

impl Motif for StencilMotif {
    fn name(&self) -> &'static str {
        NAME
    }

    fn num_ranks(&self) -> Result<u32, WorkloadError> {
        let bad = || {
            invalid(
                NAME,
                "grid",
                format!(
                    "{:?}: every side must be at least 1 and the ranks fewer than 2^32",
                    self.grid
                ),
            )
        };
        self.grid.iter().try_fold(1u32, |total, &side| {
            u32::try_from(side)
                .ok()
                .filter(|&s| s > 0)
                .and_then(|s| total.checked_mul(s))
                .ok_or_else(bad)
        })
    }

    fn dag(&self) -> Result<Dag, WorkloadError> {
        check_rounds(NAME, self.iterations, self.compute_s, self.size_bytes)?;
        let messages: Vec<Message> = self.stencil.messages(&self.grid, self.size_bytes)?;
        compute_then_exchange(
            self.num_ranks()?,
            self.iterations,
            self.compute_s,
            |round| round.extend_from_slice(&messages),
        )
    }
}
