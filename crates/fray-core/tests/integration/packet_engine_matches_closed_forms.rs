//! The packet engine against closed forms: one message of `n` packets over `h` channels takes
//! `h x latency + n x serialisation` (cut-through pipelining), `k` messages through one
//! channel take `h x latency + k x B / bandwidth`, a faster next link waits for the tail (it
//! may not overtake it), a DAG's compute and message times add up, and a NIC's setup delays
//! each message of its source once, after the one before has left.

use crate::common::packets::dor_end_ps;
use fray_core::fabric::Fabric;
use fray_core::sim::packet::PacketConfig;
use fray_core::workload::DagBuilder;

/// 10 GB/s and 100 ns per hop (the fabric defaults): 100 ps per byte.
const PS_PER_BYTE: u64 = 100;
const LATENCY_PS: u64 = 100_000;

fn run(fabric: &Fabric, dag: fray_core::workload::Dag, placement: Vec<u32>) -> u64 {
    dor_end_ps(PacketConfig::default(), fabric, dag, placement)
}

#[test]
fn one_message_pipelines_its_packets_over_the_hops() {
    let fabric = Fabric::parse("mesh:8").unwrap();
    for (hops, packets) in [(1u64, 1u64), (3, 1), (7, 10), (5, 37)] {
        let bytes = 256 * packets;
        let mut b = DagBuilder::new(2);
        b.send(0, 1, bytes as f64, &[]).unwrap();
        let placement = vec![0, hops as u32];
        let channels = hops + 2; // injection, router hops, ejection
        let expect = channels * LATENCY_PS + bytes * PS_PER_BYTE;
        assert_eq!(
            run(&fabric, b.build(1).unwrap(), placement),
            expect,
            "{hops} hops"
        );
    }
}

#[test]
fn a_short_last_packet_costs_only_its_bytes() {
    let fabric = Fabric::parse("mesh:2").unwrap();
    let mut b = DagBuilder::new(2);
    b.send(0, 1, 1000.0, &[]).unwrap(); // 3 full packets and one of 232 B
    assert_eq!(
        run(&fabric, b.build(1).unwrap(), vec![0, 1]),
        3 * LATENCY_PS + 1000 * PS_PER_BYTE
    );
}

#[test]
fn k_messages_share_one_channel_back_to_back() {
    // Three endpoints of router 0 send to one endpoint of router 1: the channel between the
    // routers and the ejection channel carry all 3 x B bytes without a gap.
    let fabric = Fabric::parse("mesh:2,t=4").unwrap();
    let bytes = 256 * 20;
    let mut b = DagBuilder::new(4);
    for src in 0..3 {
        b.send(src, 3, bytes as f64, &[]).unwrap();
    }
    let end = run(&fabric, b.build(1).unwrap(), vec![0, 1, 2, 4]);
    assert_eq!(end, 3 * LATENCY_PS + 3 * bytes * PS_PER_BYTE);
}

#[test]
fn compute_and_dependent_messages_add_up() {
    let fabric = Fabric::parse("mesh:4").unwrap();
    let mut b = DagBuilder::new(2);
    let work = b.compute(0, 1e-6, &[]).unwrap();
    let there = b.send(0, 1, 512.0, &[work]).unwrap();
    b.send(1, 0, 256.0, &[there]).unwrap();
    let one_way = 5 * LATENCY_PS; // 3 router hops + host channels
    let expect = 1_000_000 + 2 * one_way + 768 * PS_PER_BYTE;
    assert_eq!(run(&fabric, b.build(1).unwrap(), vec![0, 3]), expect);
}

#[test]
fn a_faster_next_link_waits_for_the_tail() {
    // Host links at 1 GB/s (s = 256 ns for 256 B), the router link at 10 GB/s (f = 25.6 ns).
    // The router link may start only f before the tail is in (else it would overtake it);
    // the slow ejection starts as soon as the head is in: 2s + 3L - f.
    let mut fabric = Fabric::parse("mesh:2").unwrap();
    let slow = fray_core::fabric::LinkParameters {
        bandwidth_bytes_s: 1e9,
        latency_s: 100e-9,
        lanes: 1,
    };
    fabric.set_class_link("host", slow).unwrap();
    let mut b = DagBuilder::new(2);
    b.send(0, 1, 256.0, &[]).unwrap();
    let (s, f) = (256_000, 25_600);
    assert_eq!(
        run(&fabric, b.build(1).unwrap(), vec![0, 1]),
        2 * s + 3 * LATENCY_PS - f
    );
}

#[test]
fn a_nic_sets_up_each_message_after_the_one_before_has_left() {
    // Setup S per message: one message ends S later; of two from one source, the second
    // starts its setup once the first's tail is on the injection wire, so it ends 2S plus
    // both messages' bytes after the start. A message from another source is set up by its
    // own NIC, beside the first.
    let fabric = Fabric::parse("mesh:2,t=4").unwrap();
    let config = PacketConfig::parse_options("nic_setup=300ns").unwrap();
    let setup = 300_000;
    let (b1, b2) = (256 * 3, 1000u64);
    let channels = 3; // injection, the router link, ejection
    let mut one = DagBuilder::new(2);
    one.send(0, 1, b1 as f64, &[]).unwrap();
    assert_eq!(
        dor_end_ps(config, &fabric, one.build(1).unwrap(), vec![0, 4]),
        setup + channels * LATENCY_PS + b1 * PS_PER_BYTE
    );
    let mut two = DagBuilder::new(2);
    two.send(0, 1, b1 as f64, &[]).unwrap();
    two.send(0, 1, b2 as f64, &[]).unwrap();
    assert_eq!(
        dor_end_ps(config, &fabric, two.build(1).unwrap(), vec![0, 4]),
        2 * setup + channels * LATENCY_PS + (b1 + b2) * PS_PER_BYTE
    );
    // Two sources, one destination each: both set up at once, the messages then share
    // nothing but the router link (b1 + b2 bytes back to back on it).
    let mut apart = DagBuilder::new(4);
    apart.send(0, 2, b1 as f64, &[]).unwrap();
    apart.send(1, 3, b2 as f64, &[]).unwrap();
    assert_eq!(
        dor_end_ps(config, &fabric, apart.build(1).unwrap(), vec![0, 1, 4, 5]),
        setup + channels * LATENCY_PS + (b1 + b2) * PS_PER_BYTE
    );
}
