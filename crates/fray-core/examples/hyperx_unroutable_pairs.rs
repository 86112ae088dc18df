//! Fraction of router pairs a routing cannot route, per fraction of failed router cables,
//! and the time to route every pair (one thread).
//!
//! ```text
//! cargo run --release -p fray-core --example hyperx_unroutable_pairs -- \
//!     [SPEC=hyperx:21x21,t=20] [ROUTING=doal] [SEED=1] [FRACTIONS=0.1,0.2,0.3,0.4,0.5]
//! ```
//!
//! Every ordered pair of distinct routers is routed once, with the pair's index as entropy
//! and no congestion; cables fail by `Faults::fail_random_cables` over every router cable.

use std::time::Instant;

use fray_core::fabric::{Fabric, RouterId};
use fray_core::faults::{CableSelector, Faults};
use fray_core::routing::{build, RouteRequest};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or(default.to_string());
    let spec = arg(0, "hyperx:21x21,t=20");
    let routing_name = arg(1, "doal");
    let seed: u64 = arg(2, "1").parse()?;
    let fractions: Vec<f64> = arg(3, "0.1,0.2,0.3,0.4,0.5")
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let fabric = Fabric::parse(&spec)?;
    let n = fabric.num_routers() as RouterId;
    let pairs = u64::from(n) * u64::from(n - 1);
    println!("{spec} {routing_name} seed={seed}: {pairs} ordered router pairs");
    println!("failed_fraction failed_cables unroutable_pairs unroutable_fraction route_all_s");
    let mut path = Vec::new();
    for fraction in fractions {
        let mut faults = Faults::none(&fabric);
        let failed = faults.fail_random_cables(&fabric, &CableSelector::Router, fraction, seed)?;
        let routing = build(&routing_name, &fabric, &faults)?;
        let start = Instant::now();
        let mut unroutable = 0u64;
        for src in 0..n {
            for dst in (0..n).filter(|&d| d != src) {
                let req = RouteRequest {
                    entropy: u64::from(src) * u64::from(n) + u64::from(dst),
                    ..RouteRequest::new(&fabric, &faults)
                };
                unroutable += u64::from(routing.route_into(&req, src, dst, &mut path).is_err());
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        println!(
            "{fraction:.2} {failed} {unroutable} {:.6} {seconds:.3}",
            unroutable as f64 / pairs as f64
        );
    }
    Ok(())
}
