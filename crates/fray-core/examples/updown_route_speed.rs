//! How fast `updown` and `updown-ft` route every pair on the paper's 1,728-node slimmed fat
//! tree `xgft:3;24,12,6;1,12,6` with a fraction of its switch-to-switch cables failed.
//!
//! ```text
//! cargo run --release -p fray-core --example updown_route_speed -- [FRACTION] [SEED] [TRIALS]
//! ```
//!
//! Defaults: 10 % of the cables, seed 1, 5 trials. For each routing, one thread routes every
//! ordered pair of level-1 switches, of switches, and of endpoints (through
//! `route_endpoints`, host channels included) and prints the pairs routed, the pairs found
//! unroutable, and the fastest trial's time per pair in nanoseconds.

use std::time::Instant;

use fray_core::fabric::{ChannelId, Fabric};
use fray_core::faults::{CableSelector, Faults};
use fray_core::routing::{self, route_endpoints, RouteRequest, Routing, RoutingError};

const SPEC: &str = "xgft:3;24,12,6;1,12,6";

/// Pairs routed, pairs unroutable, hops of the routed ones.
#[derive(Default)]
struct Tally {
    routed: u64,
    unroutable: u64,
    hops: u64,
}

impl Tally {
    fn add(&mut self, result: Result<(), RoutingError>, path: &[ChannelId]) {
        match result {
            Ok(()) => {
                self.routed += 1;
                self.hops += path.len() as u64;
            }
            Err(_) => self.unroutable += 1,
        }
    }
}

/// Which pairs a sweep routes.
#[derive(Clone, Copy)]
enum Pairs {
    /// Every ordered pair of level-1 switches (`route_into`).
    LevelOneSwitches,
    /// Every ordered pair of switches (`route_into`).
    Switches,
    /// Every ordered pair of endpoints (`route_endpoints`, host channels included).
    Endpoints,
}

impl Pairs {
    fn label(self) -> &'static str {
        match self {
            Self::LevelOneSwitches => "level-1 switches",
            Self::Switches => "all switches",
            Self::Endpoints => "endpoints",
        }
    }

    /// Routes every pair once.
    fn sweep(self, routing: &dyn Routing, req: &RouteRequest<'_>) -> Tally {
        let fabric = req.fabric;
        let mut tally = Tally::default();
        let mut path = Vec::new();
        let routers = match self {
            Self::LevelOneSwitches => fabric.as_xgft().expect("an XGFT").switches_at(1),
            _ => 0..fabric.num_routers() as u32,
        };
        match self {
            Self::LevelOneSwitches | Self::Switches => {
                for s in routers.clone() {
                    for d in routers.clone() {
                        tally.add(routing.route_into(req, s, d, &mut path), &path);
                    }
                }
            }
            Self::Endpoints => {
                let n = fabric.num_endpoints() as u32;
                for s in 0..n {
                    for d in 0..n {
                        tally.add(route_endpoints(routing, req, s, d, &mut path), &path);
                    }
                }
            }
        }
        tally
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or(default.to_string());
    let fraction: f64 = arg(0, "0.1").parse().expect("FRACTION: a number in [0, 1]");
    let seed: u64 = arg(1, "1").parse().expect("SEED: a whole number");
    let trials: usize = arg(2, "5").parse().expect("TRIALS: a whole number");

    let fabric = Fabric::parse(SPEC).expect("the paper's fabric");
    let mut faults = Faults::none(&fabric);
    let failed = faults
        .fail_random_cables(&fabric, &CableSelector::parse("router"), fraction, seed)
        .expect("fault fraction");
    println!(
        "{SPEC}: {} switches, {} endpoints; {failed} of {} switch cables failed (seed {seed}); \
         best of {trials} trials, one thread",
        fabric.num_routers(),
        fabric.num_endpoints(),
        fabric.num_router_channels() / 2,
    );
    println!(
        "{:<10} {:<16} {:>10} {:>11} {:>9} {:>10} {:>12}",
        "routing", "pairs", "routed", "unroutable", "mean hops", "ns/pair", "pairs/s"
    );
    let req = RouteRequest::new(&fabric, &faults);
    for name in ["updown", "updown-ft"] {
        let routing = routing::build(name, &fabric, &faults).expect("routing");
        for pairs in [Pairs::LevelOneSwitches, Pairs::Switches, Pairs::Endpoints] {
            let mut best_s = f64::INFINITY;
            let mut tally = Tally::default();
            for _ in 0..trials {
                let start = Instant::now();
                tally = std::hint::black_box(pairs.sweep(routing.as_ref(), &req));
                best_s = best_s.min(start.elapsed().as_secs_f64());
            }
            let count = (tally.routed + tally.unroutable) as f64;
            println!(
                "{name:<10} {:<16} {:>10} {:>11} {:>9.3} {:>10.1} {:>12.3e}",
                pairs.label(),
                tally.routed,
                tally.unroutable,
                tally.hops as f64 / tally.routed.max(1) as f64,
                best_s * 1e9 / count,
                count / best_s,
            );
        }
    }
}
