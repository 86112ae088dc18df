//! How long a large dragonfly takes to build and to route every ordered router pair, with a
//! fraction of its global cables failed.
//!
//! ```text
//! cargo run --release -p fray-core --example dragonfly_speed -- \
//!     [SPEC (dragonfly:p=16,a=32,h=16,g=65)] [FAILED_GLOBAL_FRACTION (0.3)] [SEED (1)]
//! ```
//!
//! Prints one line per step, `STEP SECONDS [ROUTES ROUTES_PER_S UNROUTABLE MEAN_HOPS]`, so
//! a harness can split on whitespace. Routing steps route every ordered pair of distinct
//! routers, message `k` with entropy `message_entropy(seed, k)`. `ugal-counts` feeds UGAL the
//! load engine's kind of congestion: the number of routes placed so far on each channel.

use std::time::Instant;

use fray_core::fabric::{ChannelId, Fabric, RouterId};
use fray_core::faults::{CableSelector, Faults};
use fray_core::routing::{build, message_entropy, Congestion, NoCongestion, RouteRequest, Routing};

/// Routes placed so far on each channel.
struct PlacedRoutes(Vec<u32>);

impl Congestion for PlacedRoutes {
    fn congestion(&self, channel: ChannelId) -> f64 {
        f64::from(self.0[channel as usize])
    }
}

/// Routes every ordered pair of distinct routers; with `placed`, counts each route on its
/// channels before the next is routed. Returns `(routes, unroutable, hops)`.
fn route_all(
    fabric: &Fabric,
    faults: &Faults,
    routing: &dyn Routing,
    mut placed: Option<&mut PlacedRoutes>,
    seed: u64,
) -> (u64, u64, u64) {
    let n = fabric.num_routers() as RouterId;
    let mut path = Vec::new();
    let (mut routes, mut unroutable, mut hops) = (0u64, 0u64, 0u64);
    for src in 0..n {
        for dst in (0..n).filter(|&d| d != src) {
            let req = RouteRequest {
                fabric,
                faults,
                congestion: match placed.as_deref() {
                    Some(p) => p,
                    None => &NoCongestion,
                },
                entropy: message_entropy(seed, routes + unroutable),
            };
            match routing.route_into(&req, src, dst, &mut path) {
                Ok(()) => {
                    routes += 1;
                    hops += path.len() as u64;
                    if let Some(p) = placed.as_deref_mut() {
                        for &c in &path {
                            p.0[c as usize] += 1;
                        }
                    }
                }
                Err(_) => unroutable += 1,
            }
        }
    }
    (routes, unroutable, hops)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = args
        .first()
        .map_or("dragonfly:p=16,a=32,h=16,g=65", String::as_str);
    let fraction: f64 = args.get(1).map_or(0.3, |f| f.parse().expect("fraction"));
    let seed: u64 = args.get(2).map_or(1, |s| s.parse().expect("seed"));

    let t = Instant::now();
    let fabric = Fabric::parse(spec).unwrap_or_else(|e| panic!("{e}"));
    println!("build-fabric {:.3}", t.elapsed().as_secs_f64());

    let t = Instant::now();
    let mut faults = Faults::none(&fabric);
    let failed = faults
        .fail_random_cables(&fabric, &CableSelector::parse("global"), fraction, seed)
        .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "fail-{failed}-global-cables {:.3}",
        t.elapsed().as_secs_f64()
    );

    for (label, name, counts) in [
        ("minimal", "minimal", false),
        ("valiant", "valiant", false),
        ("ugal-none", "ugal", false),
        ("ugal-counts", "ugal", true),
    ] {
        let t = Instant::now();
        let routing =
            build(name, &fabric, &Faults::none(&fabric)).unwrap_or_else(|e| panic!("{e}"));
        let mut placed = counts.then(|| PlacedRoutes(vec![0; fabric.channels().len()]));
        let (routes, unroutable, hops) =
            route_all(&fabric, &faults, routing.as_ref(), placed.as_mut(), seed);
        let s = t.elapsed().as_secs_f64();
        println!(
            "route-{label} {s:.3} {routes} {:.0} {unroutable} {:.3}",
            (routes + unroutable) as f64 / s,
            hops as f64 / routes.max(1) as f64
        );
    }
}
