//! Routers with a crossbar speedup and output buffers against closed forms: one message of
//! `n` packets over `h` channels still takes `h x latency + n x serialisation` whatever the
//! speedup (the link, not the crossbar, limits a single flow), `k` messages into one channel
//! still take `h x latency + k x B / bandwidth`, and a router's input and output latency add
//! once per router crossed.

use crate::common::packets::dor_end_ps;
use fray_core::fabric::Fabric;
use fray_core::sim::packet::PacketConfig;
use fray_core::workload::DagBuilder;

/// 10 GB/s and 100 ns per hop (the fabric defaults): 100 ps per byte.
const PS_PER_BYTE: u64 = 100;
const LATENCY_PS: u64 = 100_000;

fn output_buffered(speedup: f64) -> PacketConfig {
    PacketConfig {
        speedup,
        out_buffer_bytes: 4096,
        ..PacketConfig::default()
    }
}

#[test]
fn a_single_flow_runs_at_the_link_rate_whatever_the_speedup() {
    let fabric = Fabric::parse("mesh:8").unwrap();
    for speedup in [1.0, 1.5, 2.0, 4.0] {
        for (hops, packets) in [(1u64, 1u64), (3, 1), (7, 10), (5, 37)] {
            let bytes = 256 * packets;
            let mut b = DagBuilder::new(2);
            b.send(0, 1, bytes as f64, &[]).unwrap();
            let channels = hops + 2; // injection, router hops, ejection
            let expect = channels * LATENCY_PS + bytes * PS_PER_BYTE;
            let got = dor_end_ps(
                output_buffered(speedup),
                &fabric,
                b.build(1).unwrap(),
                vec![0, hops as u32],
            );
            assert_eq!(got, expect, "speedup {speedup}, {hops} hops");
        }
    }
}

#[test]
fn k_messages_into_one_channel_are_back_to_back_with_output_buffers() {
    // Three endpoints of router 0 send to one endpoint of router 1: the channel between the
    // routers and the ejection channel carry all 3 x B bytes without a gap, with a crossbar
    // as fast as the links or faster.
    let fabric = Fabric::parse("mesh:2,t=4").unwrap();
    let bytes = 256 * 20;
    for speedup in [1.0, 1.5, 2.0] {
        let mut b = DagBuilder::new(4);
        for src in 0..3 {
            b.send(src, 3, bytes as f64, &[]).unwrap();
        }
        let got = dor_end_ps(
            output_buffered(speedup),
            &fabric,
            b.build(1).unwrap(),
            vec![0, 1, 2, 4],
        );
        assert_eq!(
            got,
            3 * LATENCY_PS + 3 * bytes * PS_PER_BYTE,
            "speedup {speedup}"
        );
    }
}

#[test]
fn router_latencies_add_once_per_router_crossed() {
    let fabric = Fabric::parse("mesh:8").unwrap();
    let (input_ps, output_ps) = (20_000, 30_000);
    for (hops, packets) in [(1u64, 1u64), (4, 9)] {
        for base in [PacketConfig::default(), output_buffered(1.5)] {
            let config = PacketConfig {
                input_latency_ps: input_ps,
                output_latency_ps: output_ps,
                ..base
            };
            let bytes = 256 * packets;
            let mut b = DagBuilder::new(2);
            b.send(0, 1, bytes as f64, &[]).unwrap();
            let routers = hops + 1;
            let expect =
                (hops + 2) * LATENCY_PS + routers * (input_ps + output_ps) + bytes * PS_PER_BYTE;
            let got = dor_end_ps(config, &fabric, b.build(1).unwrap(), vec![0, hops as u32]);
            assert_eq!(got, expect, "{hops} hops, {config:?}");
        }
    }
}
