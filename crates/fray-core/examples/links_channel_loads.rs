//! Which cables bound a failed-links case: one Halo3D26 iteration (one job, Ember's host
//! costs, as `fray links` places it) on the packet engine with 2 KiB packets routed one by
//! one, then the bytes each channel carried, summed up by channel class (total, busiest,
//! 99th percentile, median, in MB per iteration):
//! `cargo run --release -p fray-core --example links_channel_loads -- SPEC FAILED_PCT ROUTING SEED`
//! (defaults `dragonfly:p=16,a=32,h=4,g=65 20 ugal:links=adaptive,threshold=800 7`; links
//! at 50 GB/s, global cables failed).

use fray_core::fabric::{Fabric, FabricSpec, LinkParameters};
use fray_core::faults::{CableSelector, Faults};
use fray_core::routing;
use fray_core::sim::packet::{simulate, PacketConfig, SoftErrors};
use fray_core::workload::WorkloadSpec;

fn main() {
    let arg = |i: usize, default: &str| std::env::args().nth(i).unwrap_or(default.to_string());
    let spec_text = arg(1, "dragonfly:p=16,a=32,h=4,g=65");
    let spec: FabricSpec = spec_text.parse().unwrap();
    let failed_pct: f64 = arg(2, "20").parse().expect("failed percentage");
    let routing_name = arg(3, "ugal:links=adaptive,threshold=800");
    let seed: u64 = arg(4, "7").parse().expect("seed");
    let link = LinkParameters {
        bandwidth_bytes_s: 50e9,
        ..LinkParameters::default()
    };
    let fabric = Fabric::from_spec(&spec, link).unwrap();
    let jobs = WorkloadSpec::parse("halo3d26:host=ember")
        .unwrap()
        .with_jobs(1)
        .place(&fabric, seed)
        .unwrap();
    let mut faults = Faults::none(&fabric);
    faults
        .fail_random_cables(
            &fabric,
            &CableSelector::parse("global"),
            failed_pct / 100.0,
            seed,
        )
        .unwrap();
    let router = routing::build(&routing_name, &fabric, &faults).unwrap();
    let config = PacketConfig {
        route_per_packet: true,
        packet_bytes: 2048,
        buffer_bytes: 16384,
        seed,
        ..PacketConfig::default()
    }
    .with_enough_vcs(&fabric, router.as_ref());
    let mut errors = SoftErrors::none(fabric.channels().len());
    let r = simulate(
        &fabric,
        &faults,
        router.as_ref(),
        &jobs,
        config,
        &mut errors,
    )
    .unwrap();
    println!(
        "{spec_text}, {failed_pct} % global failed, {routing_name}: iteration {:.1} us",
        r.jobs[0].iteration_s * 1e6
    );
    let channels = fabric.channels();
    for class in ["local", "global"] {
        let id = fabric.class_id(class).unwrap();
        let mut bytes: Vec<u64> = (0..channels.len())
            .filter(|&c| channels.class[c] == id)
            .map(|c| r.channel_bytes[c])
            .collect();
        bytes.sort_unstable();
        let n = bytes.len();
        let mb = |b: u64| b as f64 / 1e6;
        println!(
            "  {class}: {n} channels, {:.1} MB in all, busiest {:.2} MB, 99th percentile {:.2} MB, median {:.3} MB",
            mb(bytes.iter().sum()),
            mb(bytes[n - 1]),
            mb(bytes[n * 99 / 100]),
            mb(bytes[n / 2])
        );
    }
}
