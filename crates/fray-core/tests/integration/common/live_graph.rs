//! An independent reference for routing tests: breadth-first search over the live graph,
//! route checks, and small irregular fabrics.

use std::collections::VecDeque;

use fray_core::fabric::{Fabric, FabricBuilder, LinkParameters, RouterId, Topology};
use fray_core::faults::Faults;

/// Hops from `src` to every router over live channels and live routers, forward (`None`
/// where unreachable; everything is unreachable from a down router).
pub fn live_hops_from(fabric: &Fabric, faults: &Faults, src: RouterId) -> Vec<Option<usize>> {
    let mut dist = vec![None; fabric.num_routers()];
    if faults.router_is_down(src) {
        return dist;
    }
    let ch = fabric.channels();
    dist[src as usize] = Some(0);
    let mut queue = VecDeque::from([src]);
    while let Some(v) = queue.pop_front() {
        let d = dist[v as usize].unwrap();
        for &c in fabric.out_channels(v) {
            let u = ch.dst[c as usize];
            if !faults.channel_is_down(c) && !faults.router_is_down(u) && dist[u as usize].is_none()
            {
                dist[u as usize] = Some(d + 1);
                queue.push_back(u);
            }
        }
    }
    dist
}

/// A fabric of `num_routers` routers with one cable per listed pair (pairs of one router
/// skipped; repeated pairs make parallel cables), all of class `cable`, one endpoint each.
pub fn irregular_fabric(num_routers: usize, pairs: &[(u32, u32)]) -> Fabric {
    let mut b = FabricBuilder::new(num_routers);
    let class = b.class("cable");
    for &(a, c) in pairs {
        let (a, c) = (a % num_routers as u32, c % num_routers as u32);
        if a != c {
            b.cable(a, c, class, LinkParameters::default()).unwrap();
        }
    }
    b.endpoints_everywhere(1, LinkParameters::default())
        .unwrap();
    b.build(Topology::Graph).unwrap()
}
