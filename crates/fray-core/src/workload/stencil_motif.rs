//! A [`Stencil`] halo exchange (5P, 9P, 7P, 27P) repeated as iterations with compute.

use super::census::overlap;
use super::exchange::{compute_then_exchange, Round};
use super::motif::{check_rounds, invalid, Motif};
use super::{Dag, DagCensus, Message, Stencil, WorkloadError};

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

    fn census(&self, long: &dyn Fn(f64) -> bool) -> Result<DagCensus, WorkloadError> {
        check_rounds(NAME, self.iterations, self.compute_s, self.size_bytes)?;
        self.stencil.check_dims(&self.grid)?;
        let n = self.num_ranks()?;
        let sides: Vec<u128> = self.grid.iter().map(|&g| g as u128).collect();
        let offsets = self.stencil.kind.offsets();
        // The ranks that send to their neighbour at offset `a` and to the one at `b`. On a
        // wrapping grid every rank does, unless the neighbour is the rank itself (every side
        // the offset crosses is 1); without wrap-around, those not at the edge.
        let sends_to = |a: &[isize]| a.iter().zip(&sides).any(|(&o, &g)| o != 0 && g > 1);
        let both = |a: &[isize], b: &[isize]| -> u128 {
            if self.stencil.periodic {
                if sends_to(a) && sends_to(b) {
                    u128::from(n)
                } else {
                    0
                }
            } else {
                (0..sides.len())
                    .map(|d| overlap(sides[d], a[d] as i64, b[d] as i64))
                    .product()
            }
        };
        let messages: u128 = offsets.iter().map(|a| both(a, a)).sum();
        let mut round = Round {
            messages,
            ..Round::default()
        };
        if long(self.size_bytes) {
            // The offsets come in opposite pairs: a rank receives from as many neighbours as
            // it sends to.
            round.long = messages;
            round.posted_before_sends = offsets
                .iter()
                .flat_map(|a| offsets.iter().map(move |b| (a, b)))
                .map(|(a, b)| both(a, b))
                .sum();
        }
        Ok(round.census(n, self.iterations))
    }

    fn dag(&self) -> Result<Dag, WorkloadError> {
        self.check_dag_size(1, f64::INFINITY)?;
        let messages: Vec<Message> = self.stencil.messages(&self.grid, self.size_bytes)?;
        compute_then_exchange(
            self.num_ranks()?,
            self.iterations,
            self.compute_s,
            |round| round.extend_from_slice(&messages),
        )
    }
}
