//! Speed of the packet engine on uniform random traffic, in simulated packets per second of
//! wall time and of CPU time:
//! `cargo run --release -p fray-core --example packet_speed -- FABRIC ROUTING LOAD VCS
//! PACKET_BYTES [MEASURE_S [OPTIONS]]` (5 us of warm-up, 20 us measured by default; OPTIONS
//! the packet engine's, as `packet:OPTIONS` takes them, e.g. `router=merlin`).

use std::time::Instant;

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::build;
use fray_core::sim::packet::{traffic, PacketConfig, TrafficConfig};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let arg = |i: usize, what: &str| a.get(i).unwrap_or_else(|| panic!("missing {what}"));
    let fabric = Fabric::parse(arg(1, "FABRIC")).unwrap();
    let faults = Faults::none(&fabric);
    let routing = build(arg(2, "ROUTING"), &fabric, &faults).unwrap();
    let config = PacketConfig {
        vcs: arg(4, "VCS").parse().unwrap(),
        packet_bytes: arg(5, "PACKET_BYTES").parse().unwrap(),
        ..PacketConfig::parse_options(a.get(7).map_or("", String::as_str)).unwrap()
    };
    let t = TrafficConfig {
        load: arg(3, "LOAD").parse().unwrap(),
        warmup_s: 5e-6,
        measure_s: a.get(6).map_or(20e-6, |m| m.parse().unwrap()),
    };
    let start = Instant::now();
    let r = traffic(&fabric, &faults, routing.as_ref(), config, t).unwrap();
    println!(
        "offered {:.3} accepted {:.3} latency {:.3e} s, {} packets in {:.2} s: {:.0} packets/s",
        r.offered,
        r.accepted,
        r.latency_mean_s,
        r.packets,
        start.elapsed().as_secs_f64(),
        r.packets as f64 / r.wall_s
    );
}
