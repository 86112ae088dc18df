//! Times the flow engine on one Halo3D26 iteration of the failed-links study: one job, the
//! largest cube of ranks that fits, laid out after random idle endpoints, on a fabric with a
//! fraction of one cable class failed:
//! `cargo run --release -p fray-core --example links_speed -- SPEC ROUTING CLASS FRACTION [TOL [RESOLUTION_S [NIC]]]`
//! (defaults `dragonfly:p=16,a=32,h=16,g=17 ugal global 0.1 1e-4 0 shared`; NIC is the flow
//! engine's `nic`, `shared` or `fifo`). Prints the counts, the iteration and the wall time of
//! the simulation, then the process's peak memory where Linux gives it.

use std::time::Instant;

use fray_core::fabric::Fabric;
use fray_core::faults::{CableSelector, Faults};
use fray_core::routing;
use fray_core::sim::flow::{simulate, FlowConfig};
use fray_core::workload::{largest_cube, linear_after_random_idle, Halo3D26, Job, Motif};

fn main() {
    let arg = |i: usize, default: &str| std::env::args().nth(i).unwrap_or(default.to_string());
    let spec = arg(1, "dragonfly:p=16,a=32,h=16,g=17");
    let routing_name = arg(2, "ugal");
    let class = arg(3, "global");
    let fraction: f64 = arg(4, "0.1").parse().expect("fraction");
    let tolerance: f64 = arg(5, "1e-4").parse().expect("tolerance");
    let resolution: f64 = arg(6, "0").parse().expect("resolution, seconds");
    let nic = FlowConfig::parse_options(&format!("nic={}", arg(7, "shared")))
        .expect("NIC: shared or fifo")
        .nic;
    let fabric = Fabric::parse(&spec).unwrap();
    let n = fabric.num_endpoints() as u32;
    let (p, _, _) = largest_cube(n);
    let motif = Halo3D26::new(p, p, p);
    let placement = linear_after_random_idle(n as usize, &[p * p * p], 1)
        .unwrap()
        .remove(0);
    let job = Job::new("halo", motif.dag().unwrap(), placement, &fabric).unwrap();
    let mut faults = Faults::none(&fabric);
    faults
        .fail_random_cables(&fabric, &CableSelector::parse(&class), fraction, 1)
        .unwrap();
    let routing = routing::build(&routing_name, &fabric, &faults).unwrap();
    let t0 = Instant::now();
    let r = simulate(
        &fabric,
        &faults,
        routing.as_ref(),
        &[job],
        FlowConfig {
            seed: 1,
            time_tolerance: tolerance,
            time_resolution_s: resolution,
            nic,
        },
    )
    .unwrap();
    println!(
        "{spec} {routing_name}, {:.0} % {class} failed: {p}^3 ranks, {} messages, iteration {:.6e} s, {} events, {} solves, wall {:.3} s",
        fraction * 100.0,
        r.jobs[0].messages,
        r.jobs[0].iteration_s,
        r.events,
        r.rate_solves,
        t0.elapsed().as_secs_f64()
    );
    if let Some(kib) = peak_memory_kib() {
        println!("peak memory {:.0} MB", kib as f64 / 1024.0);
    }
}

/// This process's peak resident memory in KiB (Linux's `VmHWM`), or `None` where the system
/// does not say.
fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
