//! Times the flow engine on one 27-point halo exchange (every rank to its 26 neighbours, with
//! Halo3D26's face, edge and corner sizes) on a torus with dimension-order retry routing:
//! `cargo run --release -p fray-core --example flow_speed -- SIDE TOLERANCE FAILED_FRACTION`
//! (defaults 20, 1e-4, 0).

use std::time::Instant;

use fray_core::fabric::Fabric;
use fray_core::faults::{CableSelector, Faults};
use fray_core::routing::DimensionOrderRetry;
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
    // Ember's Halo3D26 sizes for 30^3 elements of 8 bytes: faces, edges, corners.
    let size = |a: u32, b: u32| {
        let (a, b) = (a as usize, b as usize);
        let differ = [1, side, side * side]
            .iter()
            .filter(|&&st| (a / st) % side != (b / st) % side)
            .count();
        [0.0, 7200.0, 240.0, 8.0][differ]
    };
    let mut dag = DagBuilder::new(n);
    for &(a, b) in &pairs {
        dag.send(a, b, size(a, b), &[]).unwrap();
    }
    // A fourth argument `shuffle` places the ranks in a random order (irregular routes).
    let mut placement: Vec<u32> = (0..n).collect();
    if std::env::args().nth(4).as_deref() == Some("shuffle") {
        let mut e = fray_core::routing::Entropy::new(7);
        for i in (1..placement.len()).rev() {
            placement.swap(i, e.below(i + 1));
        }
    }
    let job = Job::new("halo", dag.build(1).unwrap(), placement, &fabric).unwrap();
    let routing = DimensionOrderRetry::new(&fabric).unwrap();
    let fail: f64 = std::env::args()
        .nth(3)
        .map_or(0.0, |s| s.parse().expect("failed fraction"));
    let mut faults = Faults::none(&fabric);
    faults
        .fail_random_cables(&fabric, &CableSelector::Router, fail, 1)
        .unwrap();
    let t0 = Instant::now();
    let r = simulate(
        &fabric,
        &faults,
        &routing,
        &[job],
        FlowConfig {
            seed: 1,
            time_tolerance: tolerance,
            time_resolution_s: 0.0,
            ..FlowConfig::default()
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
