//! Link-level retry: a packet hit by a soft error on a channel is dropped at the receiver as
//! its tail arrives, the NAK takes the channel's latency back, and the sender resends it:
//! each hit costs serialisation + 2 x latency + the NAK time, on any channel.

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::build;
use fray_core::sim::packet::{simulate, ErrorProcess, PacketConfig, SoftErrors};
use fray_core::workload::{DagBuilder, Job};

const SER_PS: u64 = 25_600; // 256 B at 10 GB/s
const LATENCY_PS: u64 = 100_000;

fn one_packet(hits: &[(&str, u32)], nak_ps: u64) -> (u64, u64) {
    let fabric = Fabric::parse("mesh:4").unwrap();
    let faults = Faults::none(&fabric);
    let routing = build("dor", &fabric, &faults).unwrap();
    let mut b = DagBuilder::new(2);
    b.send(0, 1, 256.0, &[]).unwrap();
    let job = Job::new("j", b.build(1).unwrap(), vec![0, 3], &fabric).unwrap();
    let mut errors = SoftErrors::none(fabric.channels().len());
    for &(name, count) in hits {
        let c = (0..fabric.channels().len() as u32)
            .find(|&c| fabric.channel_name(c) == name)
            .unwrap();
        errors.set(c as usize, ErrorProcess::Scripted { count });
    }
    let config = PacketConfig {
        nak_ps,
        ..PacketConfig::default()
    };
    let r = simulate(
        &fabric,
        &faults,
        routing.as_ref(),
        &[job],
        config,
        &mut errors,
    )
    .unwrap();
    assert_eq!(r.counters.packets_delivered, 1);
    (r.end_ps, r.counters.retransmissions)
}

#[test]
fn each_hit_costs_one_retry_round_trip() {
    let clean = 5 * LATENCY_PS + SER_PS;
    assert_eq!(one_packet(&[], 0), (clean, 0));
    let retry = SER_PS + 2 * LATENCY_PS;
    assert_eq!(one_packet(&[("(1)->(2)", 1)], 0), (clean + retry, 1));
    assert_eq!(one_packet(&[("(1)->(2)", 2)], 0), (clean + 2 * retry, 2));
    assert_eq!(
        one_packet(&[("(0)->(1)", 1), ("(3)->(3)/0", 1)], 0).0,
        clean + 2 * retry
    );
    assert_eq!(
        one_packet(&[("(1)->(2)", 1)], 7_000).0,
        clean + retry + 7_000
    );
}

#[test]
fn errors_on_other_channels_cost_nothing() {
    let clean = 5 * LATENCY_PS + SER_PS;
    assert_eq!(one_packet(&[("(2)->(1)", 3)], 0), (clean, 0));
}
