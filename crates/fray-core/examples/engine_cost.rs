//! Times one engine on one workload spec over a fabric with a fraction of its global cables
//! failed:
//! `cargo run --release -p fray-core --example engine_cost -- SPEC WORKLOAD ENGINE [FAILED [BANDWIDTH [TOL [RESOLUTION_S [ROUTING]]]]]`
//! e.g. `dragonfly:p=4,a=8,h=4,g=17 halo3d26:nx=30,compute=no,host=ember flow 0.1 4e9 3e-3 2e-8`
//! (defaults: 10 % failed, 10 GB/s links, tolerance 0, resolution 0, `ugal`; a fabric without
//! global cables takes FAILED 0). Prints the iteration time, the flow engine's events and
//! solves, and the wall time of the run alone.

use std::time::Instant;

use fray_core::fabric::{Fabric, LinkParameters};
use fray_core::faults::{CableSelector, Faults};
use fray_core::routing;
use fray_core::sim::{flow, run, Engine};
use fray_core::workload::WorkloadSpec;

fn main() {
    let arg = |i: usize, default: &str| std::env::args().nth(i).unwrap_or(default.to_string());
    let spec = arg(1, "dragonfly:p=4,a=8,h=4,g=17");
    let workload = arg(2, "halo3d26:nx=30,compute=no,host=ember");
    let engine: Engine = arg(3, "flow").parse().expect("engine");
    let failed: f64 = arg(4, "0.1").parse().expect("failed fraction");
    let bandwidth: f64 = arg(5, "10e9").parse().expect("bandwidth, bytes/s");
    let tolerance: f64 = arg(6, "0").parse().expect("tolerance");
    let resolution: f64 = arg(7, "0").parse().expect("resolution, seconds");
    let link = LinkParameters {
        bandwidth_bytes_s: bandwidth,
        ..LinkParameters::default()
    };
    let fabric = Fabric::from_spec(&spec.parse().expect("fabric spec"), link).unwrap();
    let jobs = WorkloadSpec::parse(&workload)
        .unwrap()
        .place(&fabric, 1)
        .unwrap();
    let mut faults = Faults::none(&fabric);
    if failed > 0.0 {
        faults
            .fail_random_cables(&fabric, &CableSelector::parse("global"), failed, 1)
            .unwrap();
    }
    let routing = routing::build(&arg(8, "ugal"), &fabric, &faults).unwrap();
    let t0 = Instant::now();
    let engine = engine
        .with_flow_times(Some(tolerance), Some(resolution))
        .expect("flow settings");
    let (iteration_s, messages, counts) = if let Engine::Flow(config) = engine {
        let r = flow::simulate(&fabric, &faults, routing.as_ref(), &jobs, config).unwrap();
        let counts = format!(", {} events, {} solves", r.events, r.rate_solves);
        (r.jobs[0].iteration_s, r.jobs[0].messages, counts)
    } else {
        let r = run(engine, &fabric, &faults, routing.as_ref(), &jobs, 1).unwrap();
        (r.jobs[0].iteration_s, r.jobs[0].messages, String::new())
    };
    println!(
        "{spec} {workload} {engine} {:.0} % global failed: {messages} messages, iteration {iteration_s:.9e} s{counts}, wall {:.3} s",
        failed * 100.0,
        t0.elapsed().as_secs_f64()
    );
}
