//! Helpers shared by the motif integration tests: walking a DAG backwards.

use fray_core::workload::{Dag, Op, OpId};

/// The operations each operation waits for.
pub fn predecessors(dag: &Dag) -> Vec<Vec<OpId>> {
    let mut preds = vec![Vec::new(); dag.ops().len()];
    for op in 0..dag.ops().len() as OpId {
        for &s in dag.successors(op) {
            preds[s as usize].push(op);
        }
    }
    preds
}

/// Every operation `op` waits for, directly or not.
pub fn ancestors(preds: &[Vec<OpId>], op: OpId) -> Vec<bool> {
    let mut seen = vec![false; preds.len()];
    let mut stack = vec![op];
    while let Some(o) = stack.pop() {
        for &p in &preds[o as usize] {
            if !seen[p as usize] {
                seen[p as usize] = true;
                stack.push(p);
            }
        }
    }
    seen
}

/// Whether `op` is a message to or from `rank`.
pub fn involves(op: &Op, rank: u32) -> bool {
    matches!(*op, Op::Send { src, dst, .. } if src == rank || dst == rank)
}

/// The rank of a compute.
pub fn compute_rank(op: &Op) -> Option<u32> {
    match *op {
        Op::Compute { rank, .. } => Some(rank),
        _ => None,
    }
}

/// Checks that the DAG is laid out iteration by iteration (the same number of operations in
/// each) and that every compute of iteration `i + 1` on a rank waits, directly or not, for
/// every compute of that rank and every message it sent or received in iteration `i`.
pub fn assert_iterations_wait_for_previous(dag: &Dag) {
    let n = dag.ops().len();
    let iterations = dag.iterations() as usize;
    assert!(iterations >= 2, "needs two iterations to check");
    assert_eq!(n % iterations, 0, "iterations of unequal length");
    let per = n / iterations;
    let preds = predecessors(dag);
    for (id, op) in dag.ops().iter().enumerate().skip(per) {
        let Some(rank) = compute_rank(op) else {
            continue;
        };
        let seen = ancestors(&preds, id as OpId);
        let previous = (id / per - 1) * per..(id / per) * per;
        for earlier in previous {
            let o = &dag.ops()[earlier];
            if involves(o, rank) || compute_rank(o) == Some(rank) {
                assert!(
                    seen[earlier],
                    "compute {id} of rank {rank} does not wait for op {earlier} ({o:?})"
                );
            }
        }
    }
}
