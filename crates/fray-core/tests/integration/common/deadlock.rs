//! Channel dependency graphs: a routing with virtual channels is free of deadlock when the
//! graph of (channel, VC) pairs a packet may hold while waiting for the next has no cycle.

use std::collections::HashMap;

use fray_core::fabric::{ChannelId, Fabric};
use fray_core::faults::Faults;
use fray_core::routing::{route_endpoints, RouteRequest, Routing};
use fray_core::sim::packet::VcClasses;

/// Calls `visit` with the path `route` gives for every pair `src, dst` in `0..n` under each
/// of `entropies` random choices; `route` returns false for a pair it cannot serve, which
/// is skipped.
pub fn for_each_route(
    fabric: &Fabric,
    faults: &Faults,
    n: u32,
    entropies: u64,
    mut route: impl FnMut(&RouteRequest<'_>, u32, u32, &mut Vec<ChannelId>) -> bool,
    mut visit: impl FnMut(&[ChannelId]),
) {
    let mut path = Vec::new();
    for src in 0..n {
        for dst in 0..n {
            for entropy in 0..entropies {
                let req = RouteRequest {
                    entropy,
                    ..RouteRequest::new(fabric, faults)
                };
                if route(&req, src, dst, &mut path) {
                    visit(&path);
                }
            }
        }
    }
}

/// Calls `visit` with the route `routing` gives every pair of endpoints under each of
/// `entropies` random choices ([`route_endpoints`]: injection, router path, ejection);
/// pairs it cannot serve are skipped.
pub fn for_each_endpoint_route(
    fabric: &Fabric,
    faults: &Faults,
    routing: &dyn Routing,
    entropies: u64,
    visit: impl FnMut(&[ChannelId]),
) {
    for_each_route(
        fabric,
        faults,
        fabric.num_endpoints() as u32,
        entropies,
        |req, src, dst, path| route_endpoints(routing, req, src, dst, path).is_ok(),
        visit,
    );
}

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

/// Adds the dependencies of one route to `graph`: a packet holding `path[h - 1]` in class
/// `classes[h - 1]` waits for `path[h]` in class `classes[h]`.
pub fn add_route(graph: &mut Dependencies<(ChannelId, u16)>, path: &[ChannelId], classes: &[u16]) {
    for h in 1..path.len() {
        graph
            .entry((path[h - 1], classes[h - 1]))
            .or_default()
            .push((path[h], classes[h]));
    }
}

/// The class the packet engine gives each hop of `path`.
pub fn engine_classes(classes: &VcClasses, path: &[ChannelId]) -> Vec<u16> {
    (0..path.len())
        .map(|h| classes.allowed(path, h).start)
        .collect()
}
