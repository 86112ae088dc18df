//! Routing per packet: under Valiant routing a message routed once crosses exactly the two
//! global cables of its one path, while the same message routed packet by packet spreads
//! over many intermediate groups; either way every byte arrives once.

use crate::common;

use common::packets::simulate_clean;
use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::build;
use fray_core::sim::packet::PacketConfig;
use fray_core::workload::{DagBuilder, Job};

/// Global channels that carried bytes, and the bytes delivered, for one 64 KiB message
/// between two groups.
fn globals_used(route_per_packet: bool) -> (usize, u64) {
    let fabric = Fabric::parse("dragonfly:p=1,a=4,h=2,g=9").unwrap();
    let faults = Faults::none(&fabric);
    let routing = build("valiant", &fabric, &faults).unwrap();
    let mut dag = DagBuilder::new(2);
    dag.send(0, 1, 65536.0, &[]).unwrap();
    // Endpoint 0 in group 0, endpoint 20 in group 5.
    let job = Job::new("one", dag.build(1).unwrap(), vec![0, 20], &fabric).unwrap();
    let config = PacketConfig {
        route_per_packet,
        ..PacketConfig::default()
    };
    let config = config.with_enough_vcs(&fabric, routing.as_ref());
    let r = simulate_clean(&fabric, &faults, routing.as_ref(), &[job], config).unwrap();
    let global = fabric.class_id("global").unwrap();
    let used = (0..fabric.channels().len())
        .filter(|&c| fabric.channels().class[c] == global && r.channel_bytes[c] > 0)
        .count();
    assert_eq!(r.counters.packets_delivered, 256);
    (used, r.counters.bytes_delivered)
}

#[test]
fn a_message_routed_once_takes_one_valiant_path() {
    assert_eq!(globals_used(false), (2, 65536));
}

#[test]
fn packets_routed_one_by_one_spread_over_intermediate_groups() {
    let (used, bytes) = globals_used(true);
    assert_eq!(bytes, 65536);
    // 7 intermediate groups, 2 cables each way: far more than one path's two.
    assert!(used > 6, "{used} global channels");
}
