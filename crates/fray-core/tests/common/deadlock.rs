//! Channel dependency graphs: a routing with virtual channels is free of deadlock when the
//! graph of (channel, VC) pairs a packet may hold while waiting for the next has no cycle.

use std::collections::HashMap;

/// A dependency graph: `edges[a]` lists the nodes a packet holding `a` waits for.
pub type Dependencies<N> = HashMap<N, Vec<N>>;

/// Whether the directed graph has a cycle (Kahn's algorithm leaves nodes over).
pub fn has_cycle<N: Copy + Eq + std::hash::Hash>(edges: &Dependencies<N>) -> bool {
    let mut indegree: HashMap<N, usize> = HashMap::new();
    for (&a, outs) in edges {
        indegree.entry(a).or_insert(0);
        for &b in outs {
            *indegree.entry(b).or_insert(0) += 1;
        }
    }
    let total = indegree.len();
    let mut ready: Vec<N> = indegree
        .iter()
        .filter(|(_, &d)| d == 0)
        .map(|(&n, _)| n)
        .collect();
    let mut done = 0;
    while let Some(a) = ready.pop() {
        done += 1;
        for &b in edges.get(&a).map_or(&[][..], |v| v) {
            let d = indegree.get_mut(&b).unwrap();
            *d -= 1;
            if *d == 0 {
                ready.push(b);
            }
        }
    }
    done < total
}
