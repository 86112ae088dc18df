//! How fast table routing builds and routes on a dragonfly-sized irregular graph.
//!
//! The graph has the size of the 33,280-endpoint dragonfly: 65 groups of 32 routers, every
//! router cabled to every other router of its group, 8 parallel global cables between every
//! pair of groups (group `i` hands its global cables to its routers in turn), 16 endpoints
//! per router; 30 % of the global cables fail. Prints the time to build the tables and the
//! time to route every router pair.
//!
//! `cargo run --release -p fray-core --example table_speed`

use std::time::Instant;

use fray_core::fabric::{Fabric, FabricBuilder, LinkParameters, RouterId, Topology};
use fray_core::faults::{CableSelector, Faults};
use fray_core::routing::{RouteRequest, Routing, TableRouting};

const GROUPS: u32 = 65;
const ROUTERS_PER_GROUP: u32 = 32;
const CABLES_PER_GROUP_PAIR: u32 = 8;
const ENDPOINTS_PER_ROUTER: u32 = 16;
const GLOBAL_FAILED: f64 = 0.3;

/// The router of group `group` that hosts its `cable`-th global cable to group `peer`:
/// group `group` numbers its global cables peer by peer and deals them to its routers in
/// turn.
fn global_port(group: u32, peer: u32, cable: u32) -> RouterId {
    let peer_slot = if peer < group { peer } else { peer - 1 };
    let slot = peer_slot * CABLES_PER_GROUP_PAIR + cable;
    group * ROUTERS_PER_GROUP + slot % ROUTERS_PER_GROUP
}

fn dragonfly_like() -> Fabric {
    let link = LinkParameters::default();
    let mut b = FabricBuilder::new((GROUPS * ROUTERS_PER_GROUP) as usize);
    let local = b.class("local");
    let global = b.class("global");
    for g in 0..GROUPS {
        let first = g * ROUTERS_PER_GROUP;
        for a in 0..ROUTERS_PER_GROUP {
            for c in a + 1..ROUTERS_PER_GROUP {
                b.cable(first + a, first + c, local, link).unwrap();
            }
        }
    }
    for g in 0..GROUPS {
        for h in g + 1..GROUPS {
            for k in 0..CABLES_PER_GROUP_PAIR {
                b.cable(global_port(g, h, k), global_port(h, g, k), global, link)
                    .unwrap();
            }
        }
    }
    b.endpoints_everywhere(ENDPOINTS_PER_ROUTER, link).unwrap();
    b.build(Topology::Graph).unwrap()
}

fn main() {
    let fabric = dragonfly_like();
    let mut faults = Faults::none(&fabric);
    let failed = faults
        .fail_random_cables(&fabric, &CableSelector::parse("global"), GLOBAL_FAILED, 1)
        .unwrap();
    println!(
        "{} routers, {} endpoints, {} router channels, {} global cables failed",
        fabric.num_routers(),
        fabric.num_endpoints(),
        fabric.num_router_channels(),
        failed
    );

    let t = Instant::now();
    let routing = TableRouting::new(&fabric, &faults).unwrap();
    let build_s = t.elapsed().as_secs_f64();
    println!(
        "build: {build_s:.3} s on {} threads ({} byte entries, {} VCs for hop-indexed deadlock freedom)",
        rayon::current_num_threads(),
        routing.bytes_per_entry(),
        routing.required_vcs()
    );

    let n = fabric.num_routers() as RouterId;
    let mut path = Vec::new();
    let (mut hops, mut unroutable) = (0u64, 0u64);
    let t = Instant::now();
    for src in 0..n {
        for dst in 0..n {
            let req = RouteRequest {
                entropy: u64::from(src) << 32 | u64::from(dst),
                ..RouteRequest::new(&fabric, &faults)
            };
            match routing.route_into(&req, src, dst, &mut path) {
                Ok(()) => hops += path.len() as u64,
                Err(_) => unroutable += 1,
            }
        }
    }
    let route_s = t.elapsed().as_secs_f64();
    let pairs = u64::from(n) * u64::from(n);
    println!(
        "route every pair: {route_s:.3} s on one thread ({pairs} pairs, {:.0} ns per route, \
         mean {:.3} hops, {unroutable} unroutable)",
        route_s * 1e9 / pairs as f64,
        hops as f64 / (pairs - unroutable) as f64
    );
}
