//! Bulk-synchronous iterations: every rank computes, then the ranks exchange messages, and a
//! rank's next compute waits for its own previous compute and for every message it sent or
//! received in the exchange (Ember's compute, isend/irecv, waitall).

use super::{Dag, DagBuilder, DagCensus, Message, OpId, WorkloadError};

/// `iterations` rounds of: a compute of `compute_s` seconds on every rank, then the messages
/// `exchange` writes for that round (called once per round with an empty vector), each
/// starting when its sender's compute has finished.
///
/// Ops are laid out round by round: the `num_ranks` computes of round `i` (rank order), then
/// its messages in the order `exchange` wrote them.
pub(crate) fn compute_then_exchange(
    num_ranks: u32,
    iterations: u32,
    compute_s: f64,
    mut exchange: impl FnMut(&mut Vec<Message>),
) -> Result<Dag, WorkloadError> {
    let mut b = DagBuilder::new(num_ranks);
    let mut waits: Vec<Vec<OpId>> = vec![Vec::new(); num_ranks as usize];
    let mut computes: Vec<OpId> = vec![0; num_ranks as usize];
    let mut messages = Vec::new();
    for _ in 0..iterations {
        for (rank, wait) in waits.iter_mut().enumerate() {
            computes[rank] = b.compute(rank as u32, compute_s, wait)?;
            wait.clear();
            wait.push(computes[rank]);
        }
        messages.clear();
        exchange(&mut messages);
        for m in &messages {
            // A bad rank is reported by `send`, so look the compute up without panicking.
            let sent_after = computes.get(m.src as usize).copied().unwrap_or(0);
            let op = b.send(m.src, m.dst, m.size_bytes, &[sent_after])?;
            waits[m.src as usize].push(op);
            waits[m.dst as usize].push(op);
        }
    }
    b.build(iterations)
}

/// What one round of [`compute_then_exchange`] sends, counted: the census of the whole DAG
/// follows from it ([`Round::census`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Round {
    /// Messages of the round.
    pub(crate) messages: u128,
    /// Messages of the round marked long.
    pub(crate) long: u128,
    /// Over the ranks, the messages a rank sends times the long ones it receives, in the
    /// round (what its compute posts before each of its sends under a rendezvous).
    pub(crate) posted_before_sends: u128,
}

impl Round {
    /// The census of [`compute_then_exchange`] of `iterations` rounds on `num_ranks` ranks,
    /// each round sending what `self` counts: every compute waits for the rank's previous
    /// one and for every message it sent or received, every message for its sender's
    /// compute, and a long message's receive is posted by the receiver's compute of its
    /// round.
    pub(crate) fn census(self, num_ranks: u32, iterations: u32) -> DagCensus {
        let n = u128::from(num_ranks);
        let it = u128::from(iterations);
        let later = it.saturating_sub(1);
        DagCensus {
            computes: n * it,
            sends: self.messages * it,
            compute_to_compute: n * later,
            compute_to_send: self.messages * it,
            send_to_compute: 2 * self.messages * later,
            send_to_send: 0,
            long_sends: self.long * it,
            long_sends_posted_first: 0,
            posted_before_sends: self.posted_before_sends * it,
        }
    }
}
