//! An independent reference for routing tests: breadth-first search over the live graph,
//! route checks, and small irregular fabrics.

use std::collections::VecDeque;

use fray_core::fabric::{ChannelId, Fabric, FabricBuilder, LinkParameters, RouterId, Topology};
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

/// Checks that `path` leads from `src` to `dst` over router channels, one after the other,
/// and crosses no failed channel or router.
pub fn check_route(
    fabric: &Fabric,
    faults: &Faults,
    src: RouterId,
    dst: RouterId,
    path: &[ChannelId],
) -> Result<(), String> {
    let ch = fabric.channels();
    let mut at = src;
    if faults.router_is_down(at) {
        return Err(format!("starts at down router {at}"));
    }
    for &c in path {
        if !fabric.is_router_channel(c) {
            return Err(format!("channel {c} is not a router channel"));
        }
        if ch.src[c as usize] != at {
            return Err(format!("channel {c} does not leave router {at}"));
        }
        if faults.channel_is_down(c) {
            return Err(format!("uses failed channel {c}"));
        }
        at = ch.dst[c as usize];
        if faults.router_is_down(at) {
            return Err(format!("crosses down router {at}"));
        }
    }
    if at == dst {
        Ok(())
    } else {
        Err(format!("ends at {at}, not {dst}"))
    }
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
