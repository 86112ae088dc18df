//! Uniform random traffic: every rank sends to a random other rank, iteration after
//! iteration.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use super::exchange::{compute_then_exchange, Round};
use super::motif::{at_least_two_ranks, check_rounds, Motif};
use super::{Dag, DagCensus, Message, WorkloadError};

const NAME: &str = "uniform_random";

/// Uniform random traffic among `ranks` ranks.
///
/// Each iteration, on every rank: compute for `compute_s` seconds (0 for pure traffic), then
/// send `size_bytes` to one other rank drawn uniformly (never itself); the next iteration on
/// a rank waits for its send and every message it received. Destinations come from a PCG
/// generator seeded with `seed`, drawn iteration by iteration, rank 0 first: the same seed
/// gives the same DAG.
#[derive(Debug, Clone, PartialEq)]
pub struct UniformRandom {
    /// Number of ranks (at least 2).
    pub ranks: u32,
    /// Bytes of every message.
    pub size_bytes: f64,
    /// Compute per rank per iteration, in seconds.
    pub compute_s: f64,
    /// Number of iterations.
    pub iterations: u32,
    /// Seed of the destinations.
    pub seed: u64,
}

impl Motif for UniformRandom {
    fn name(&self) -> &'static str {
        NAME
    }

    fn num_ranks(&self) -> Result<u32, WorkloadError> {
        at_least_two_ranks(NAME, self.ranks)
    }

    fn census(&self, long: &dyn Fn(f64) -> bool) -> Result<DagCensus, WorkloadError> {
        let n = self.num_ranks()?;
        check_rounds(NAME, self.iterations, self.compute_s, self.size_bytes)?;
        // One message per rank a round, all of one size: wherever they go, the messages a
        // rank sends (one) times the long ones it receives add up to the long messages.
        let messages = u128::from(n);
        let long = if long(self.size_bytes) { messages } else { 0 };
        let round = Round {
            messages,
            long,
            posted_before_sends: long,
        };
        Ok(round.census(n, self.iterations))
    }

    fn dag(&self) -> Result<Dag, WorkloadError> {
        self.check_dag_size(1, f64::INFINITY)?;
        let n = self.num_ranks()?;
        let mut rng = Pcg64::seed_from_u64(self.seed);
        compute_then_exchange(n, self.iterations, self.compute_s, |round| {
            round.extend((0..n).map(|src| {
                // One of the n - 1 others: skip over the sender itself.
                let pick = rng.random_range(0..n - 1);
                Message {
                    src,
                    dst: if pick >= src { pick + 1 } else { pick },
                    size_bytes: self.size_bytes,
                }
            }))
        })
    }
}
