//! All-to-all: every rank sends the same number of bytes to every other rank, after SST
//! Ember's `Alltoall` motif and the pairwise exchange SST Firefly runs it as.

use super::motif::{at_least_two_ranks, check_rounds, Motif};
use super::{Dag, DagBuilder, DagCensus, OpId, WorkloadError};

const NAME: &str = "alltoall";

/// An all-to-all among `ranks` ranks, `size_bytes` from every rank to every other one.
///
/// Each iteration, on every rank `r` of `n`: compute for `compute_s` seconds, then `n - 1`
/// steps of a pairwise exchange: at step `k` (1 to `n - 1`) rank `r` sends `size_bytes` to
/// rank `(r + k) mod n` and receives from rank `(r - k) mod n`. A rank's step `k + 1` starts
/// once its send of step `k` has arrived and the message it receives at step `k` has arrived
/// (Firefly's `AlltoallvFuncSM`: post the receive, send, wait for the receive). The next
/// iteration's compute waits for the rank's last step. So every rank sends to every other
/// rank exactly once per iteration: `n (n - 1)` messages and `n (n - 1) size_bytes` bytes.
///
/// Ember's `arg.bytes` defaults to 1 byte; a spec's `bytes` defaults to 65,536 (see
/// [`crate::workload::WORKLOADS`]), so that the exchange is bound by bandwidth rather than
/// latency.
#[derive(Debug, Clone, PartialEq)]
pub struct AllToAll {
    /// Number of ranks (at least 2).
    pub ranks: u32,
    /// Bytes every rank sends to every other rank per iteration (Ember's `bytes`).
    pub size_bytes: f64,
    /// Compute per rank per iteration before the exchange, in seconds.
    pub compute_s: f64,
    /// Number of iterations.
    pub iterations: u32,
}

impl Motif for AllToAll {
    fn name(&self) -> &'static str {
        NAME
    }

    fn num_ranks(&self) -> Result<u32, WorkloadError> {
        at_least_two_ranks(NAME, self.ranks)
    }

    fn census(&self, long: &dyn Fn(f64) -> bool) -> Result<DagCensus, WorkloadError> {
        let n = u128::from(self.num_ranks()?);
        check_rounds(NAME, self.iterations, self.compute_s, self.size_bytes)?;
        let it = u128::from(self.iterations);
        let sends = n * (n - 1) * it;
        let long = long(self.size_bytes);
        let long_sends = if long { sends } else { 0 };
        Ok(DagCensus {
            computes: n * it,
            sends,
            compute_to_compute: 0,
            // Step 1 waits for the rank's compute; the next compute for its last send and
            // the last message it received; steps 2 to n - 1 for the rank's previous send
            // and the message it received at the previous step.
            compute_to_send: n * it,
            send_to_compute: 2 * n * (it - 1),
            send_to_send: 2 * n * (n - 2) * it,
            long_sends,
            long_sends_posted_first: 0,
            // A rank's compute posts the receives of the iteration's n - 1 messages to it
            // before its step 1.
            posted_before_sends: long_sends,
        })
    }

    fn dag(&self) -> Result<Dag, WorkloadError> {
        self.check_dag_size(1, f64::INFINITY)?;
        let n = self.num_ranks()?;
        let mut b = DagBuilder::new(n);
        // What each rank's next step waits for: its own last send and the last message it
        // received (the same compute op before the first step).
        let mut sent: Vec<OpId> = Vec::with_capacity(n as usize);
        let mut received: Vec<OpId> = Vec::with_capacity(n as usize);
        for iteration in 0..self.iterations {
            for r in 0..n {
                let after: &[OpId] = if iteration == 0 {
                    &[]
                } else {
                    &[sent[r as usize], received[r as usize]]
                };
                let op = b.compute(r, self.compute_s, after)?;
                if iteration == 0 {
                    sent.push(op);
                    received.push(op);
                } else {
                    sent[r as usize] = op;
                    received[r as usize] = op;
                }
            }
            for k in 1..n {
                let mut arrived = received.clone();
                for r in 0..n {
                    let dst = (r + k) % n;
                    let after = [sent[r as usize], received[r as usize]];
                    let after = if after[0] == after[1] {
                        &after[..1]
                    } else {
                        &after[..]
                    };
                    let op = b.send(r, dst, self.size_bytes, after)?;
                    sent[r as usize] = op;
                    arrived[dst as usize] = op;
                }
                received = arrived;
            }
        }
        b.build(self.iterations)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Op;
    use proptest::prelude::*;

    fn motif(ranks: u32, iterations: u32) -> AllToAll {
        AllToAll {
            ranks,
            size_bytes: 100.0,
            compute_s: 1e-6,
            iterations,
        }
    }

    proptest! {
        #[test]
        fn every_rank_sends_to_every_other_once_per_iteration(n in 2u32..24, iterations in 1u32..4) {
            let dag = motif(n, iterations).dag().unwrap();
            let mut count = vec![vec![0u32; n as usize]; n as usize];
            for op in dag.ops() {
                if let Some((src, dst, bytes)) = op.message() {
                    prop_assert_eq!(bytes, 100.0);
                    count[src as usize][dst as usize] += 1;
                }
            }
            for (src, row) in count.iter().enumerate() {
                for (dst, &c) in row.iter().enumerate() {
                    prop_assert_eq!(c, if src == dst { 0 } else { iterations }, "{}->{}", src, dst);
                }
            }
            let pairs = f64::from(n * (n - 1) * iterations);
            prop_assert_eq!(dag.total_bytes(), 100.0 * pairs);
            prop_assert_eq!(dag.num_messages() as f64, pairs);
        }
    }

    #[test]
    fn a_step_waits_for_the_rank_s_last_send_and_receive() {
        let n = 4;
        let dag = motif(n, 2).dag().unwrap();
        let ops = dag.ops();
        let waits_for = |op: usize| -> Vec<usize> {
            (0..op)
                .filter(|&a| dag.successors(a as OpId).contains(&(op as OpId)))
                .collect()
        };
        // Per iteration: n computes, then n - 1 steps of n sends, rank order.
        let per_iteration = (n + n * (n - 1)) as usize;
        let send = |it: usize, k: u32, r: u32| per_iteration * it + (n + (k - 1) * n + r) as usize;
        assert_eq!(
            ops[send(0, 2, 1)],
            Op::Send {
                src: 1,
                dst: 3,
                size_bytes: 100.0
            }
        );
        // Rank 1's step 2 waits for its step-1 send (1 -> 2) and the step-1 message into it
        // (0 -> 1).
        assert_eq!(waits_for(send(0, 2, 1)), vec![send(0, 1, 0), send(0, 1, 1)]);
        // Step 1 waits for the rank's compute only; the next compute for the last step's
        // send (1 -> 0) and receive (2 -> 1).
        assert_eq!(waits_for(send(0, 1, 1)), vec![1]);
        assert_eq!(
            waits_for(per_iteration + 1),
            vec![send(0, 3, 1), send(0, 3, 2)]
        );
    }

    #[test]
    fn too_few_ranks_or_bad_sizes_are_named() {
        let err = |m: AllToAll| m.dag().unwrap_err().to_string();
        assert!(err(motif(1, 1)).contains("ranks"));
        assert!(err(motif(3, 0)).contains("iterations"));
        let mut m = motif(3, 1);
        m.size_bytes = f64::NAN;
        assert!(err(m).contains("size_bytes"));
    }
}
