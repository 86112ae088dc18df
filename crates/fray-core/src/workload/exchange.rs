//! Bulk-synchronous iterations: every rank computes, then the ranks exchange messages, and a
//! rank's next compute waits for its own previous compute and for every message it sent or
//! received in the exchange (Ember's compute, isend/irecv, waitall).

use super::{Dag, DagBuilder, Message, OpId, WorkloadError};

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
