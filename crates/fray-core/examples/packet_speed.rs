//! Speed of the packet engine on uniform random traffic: `packet_speed FABRIC ROUTING LOAD VCS PACKET_BYTES`.
use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::build;
use fray_core::sim::packet::{traffic, PacketConfig, TrafficConfig};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let fabric = Fabric::parse(&a[1]).unwrap();
    let faults = Faults::none(&fabric);
    let routing = build(&a[2], &fabric, &faults).unwrap();
    let config = PacketConfig {
        vcs: a[4].parse().unwrap(),
        packet_bytes: a[5].parse().unwrap(),
        ..PacketConfig::default()
    };
    let t = TrafficConfig {
        load: a[3].parse().unwrap(),
        warmup_s: 5e-6,
        measure_s: 20e-6,
    };
    let r = traffic(&fabric, &faults, routing.as_ref(), config, t).unwrap();
    println!("{r:?} packets/s {:.0}", r.packets as f64 / r.wall_s);
}
