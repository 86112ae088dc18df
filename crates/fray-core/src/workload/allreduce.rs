//! An allreduce as point-to-point messages: recursive doubling.

use super::{DagBuilder, OpId, WorkloadError};

/// Adds a recursive-doubling allreduce of `size_bytes` per message over ranks
/// `0..ready.len()` to `b`.
///
/// `ready[r]` holds the operations rank `r` waits for before it enters the allreduce; on
/// return it holds the operations after which the allreduce has finished on `r` (the rank's
/// next operation waits for them).
///
/// With `p` the largest power of two not above `n = ready.len()`:
/// 1. each rank `r >= p` sends to `r - p` (folding its value in);
/// 2. `log2(p)` rounds: in round `k` each rank `r < p` sends to `r XOR 2^k`, starting once it
///    has both sent and received in the previous round;
/// 3. each rank `r - p` sends the result back to `r`.
///
/// That is `p * log2(p) + 2 * (n - p)` messages.
pub fn allreduce_recursive_doubling(
    b: &mut DagBuilder,
    ready: &mut [Vec<OpId>],
    size_bytes: f64,
) -> Result<(), WorkloadError> {
    let n = ready.len();
    if n < 2 {
        return Ok(());
    }
    let p = 1usize << (usize::BITS - 1 - n.leading_zeros());
    for r in p..n {
        let op = b.send(r as u32, (r - p) as u32, size_bytes, &ready[r])?;
        ready[r - p].push(op);
        ready[r] = vec![op];
    }
    let mut sent = vec![0; p];
    let mut mask = 1;
    while mask < p {
        for (r, op) in sent.iter_mut().enumerate() {
            *op = b.send(r as u32, (r ^ mask) as u32, size_bytes, &ready[r])?;
        }
        for (r, wait) in ready[..p].iter_mut().enumerate() {
            wait.clear();
            wait.extend([sent[r], sent[r ^ mask]]);
        }
        mask <<= 1;
    }
    for r in p..n {
        let op = b.send((r - p) as u32, r as u32, size_bytes, &ready[r - p])?;
        ready[r - p] = vec![op];
        ready[r].push(op);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Op;

    fn allreduce(n: usize) -> crate::workload::Dag {
        let mut b = DagBuilder::new(n as u32);
        let mut ready: Vec<Vec<OpId>> = (0..n)
            .map(|r| vec![b.compute(r as u32, 1.0, &[]).unwrap()])
            .collect();
        allreduce_recursive_doubling(&mut b, &mut ready, 8.0).unwrap();
        for (r, wait) in ready.iter().enumerate() {
            b.compute(r as u32, 1.0, wait).unwrap();
        }
        b.build(1).unwrap()
    }

    #[test]
    fn message_count_closed_form() {
        for n in 2..40usize {
            let p = 1usize << (usize::BITS - 1 - n.leading_zeros());
            let expected = p * p.trailing_zeros() as usize + 2 * (n - p);
            assert_eq!(allreduce(n).num_messages(), expected, "n = {n}");
        }
    }

    #[test]
    fn every_final_compute_depends_on_every_first_compute() {
        for n in [2usize, 5, 8, 13] {
            let dag = allreduce(n);
            let last: Vec<OpId> = (dag.ops().len() - n..dag.ops().len())
                .map(|i| i as OpId)
                .collect();
            for first in 0..n as OpId {
                // everything reachable from `first`
                let mut seen = vec![false; dag.ops().len()];
                let mut stack = vec![first];
                while let Some(op) = stack.pop() {
                    for &s in dag.successors(op) {
                        if !seen[s as usize] {
                            seen[s as usize] = true;
                            stack.push(s);
                        }
                    }
                }
                assert!(last.iter().all(|&l| seen[l as usize]), "n = {n}");
                assert!(matches!(dag.ops()[first as usize], Op::Compute { .. }));
            }
        }
    }
}
