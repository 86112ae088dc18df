//! How fast table routing builds and routes on the 33,280-endpoint dragonfly (65 groups of 32
//! routers, 16 endpoints each, 8 global cables per group pair) with 30 % of its global cables
//! failed: prints the time to build the tables and the time to route every router pair.
//!
//! `cargo run --release -p fray-core --example table_speed [SPEC]`

use std::time::Instant;

use fray_core::fabric::{Fabric, RouterId};
use fray_core::faults::{CableSelector, Faults};
use fray_core::routing::{RouteRequest, Routing, TableRouting};

const GLOBAL_FAILED: f64 = 0.3;

fn main() {
    let spec = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "dragonfly:p=16,a=32,h=16,g=65".to_string());
    let fabric = Fabric::parse(&spec).unwrap();
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
