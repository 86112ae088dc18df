//! Times the flow engine on one 27-point halo exchange (every rank to its 26 neighbours) on a
//! torus: `cargo run --release -p fray-core --example flow_speed -- 20` (torus side, default 20).

use std::time::Instant;

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::DimensionOrder;
use fray_core::sim::flow::{simulate, FlowConfig};
use fray_core::workload::{DagBuilder, Job, Stencil, StencilKind};

fn main() {
    let side: usize = std::env::args()
        .nth(1)
        .map_or(20, |s| s.parse().expect("torus side"));
    let tolerance: f64 = std::env::args()
        .nth(2)
        .map_or(1e-4, |s| s.parse().expect("tolerance"));
    let fabric = Fabric::parse(&format!("torus:{side}x{side}x{side}")).unwrap();
    let n = fabric.num_endpoints() as u32;
    let pairs = Stencil {
        kind: StencilKind::TwentySevenP,
        periodic: true,
    }
    .pairs(&[side, side, side])
    .unwrap();
    let mut dag = DagBuilder::new(n);
    for &(a, b) in &pairs {
        dag.send(a, b, 7200.0, &[]).unwrap();
    }
    let job = Job::new("halo", dag.build(1).unwrap(), (0..n).collect(), &fabric).unwrap();
    let routing = DimensionOrder::new(&fabric).unwrap();
    let t0 = Instant::now();
    let r = simulate(
        &fabric,
        &Faults::none(&fabric),
        &routing,
        &[job],
        FlowConfig {
            seed: 1,
            time_tolerance: tolerance,
        },
    )
    .unwrap();
    println!(
        "torus {side}^3: {} messages, simulated {:.6e} s, {} events, {} solves, wall {:.3} s",
        pairs.len(),
        r.end_s,
        r.events,
        r.rate_solves,
        t0.elapsed().as_secs_f64()
    );
}
