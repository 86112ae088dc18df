//! The packet and flow engines on the same jobs, fabric and routing: a Halo3D26 exchange, a
//! permutation and uniform random traffic on a torus. The packet engine adds what the fluid
//! model leaves out (per-packet serialisation at every hop before cut-through, credit
//! stalls, head-of-line blocking) and shares channels packet by packet instead of max-min;
//! the makespans agree within the bounds below (see docs/packet.md for the measured gaps).

use crate::common::packets::simulate_clean;

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::build;
use fray_core::sim::flow::{self, FlowConfig};
use fray_core::sim::packet::PacketConfig;
use fray_core::workload::{Dag, DagBuilder, Halo3D26, Job, Motif, UniformRandom};

fn both(dag: Dag) -> (f64, f64) {
    let fabric = Fabric::parse("torus:4x4x4").unwrap();
    let faults = Faults::none(&fabric);
    let routing = build("dor", &fabric, &faults).unwrap();
    let n = dag.num_ranks();
    let job = Job::new("j", dag, (0..n).collect(), &fabric).unwrap();
    let jobs = [job];
    let f = flow::simulate(&fabric, &faults, routing.as_ref(), &jobs, FlowConfig::EXACT).unwrap();
    let p = simulate_clean(
        &fabric,
        &faults,
        routing.as_ref(),
        &jobs,
        PacketConfig::default(),
    )
    .unwrap();
    (f.end_s, p.end_s)
}

fn ratio(dag: Dag) -> f64 {
    let (flow_s, packet_s) = both(dag);
    println!(
        "flow {flow_s:.4e} s, packet {packet_s:.4e} s, packet/flow {:.4}",
        packet_s / flow_s
    );
    packet_s / flow_s
}

#[test]
fn a_permutation_of_large_messages_agrees_within_one_percent() {
    // Every rank sends 1 MB half way round the x ring: no two messages share a channel.
    let mut b = DagBuilder::new(64);
    for src in 0..64u32 {
        let dst = (src & !3) | ((src + 2) & 3);
        b.send(src, dst, 1e6, &[]).unwrap();
    }
    let r = ratio(b.build(1).unwrap());
    assert!((r - 1.0).abs() < 0.01, "{r}");
}

#[test]
fn an_empty_message_takes_its_path_latency_on_both() {
    // Rank 0 sends nothing two hops along x, then 8 bytes: each arrives after its path's
    // latency (and the bytes' time), on both engines; the packet engine used to end the
    // empty one at once.
    let mut b = DagBuilder::new(64);
    let first = b.send(0, 2, 0.0, &[]).unwrap();
    b.send(0, 2, 8.0, &[first]).unwrap();
    let (flow_s, packet_s) = both(b.build(1).unwrap());
    let alone = {
        let mut b = DagBuilder::new(64);
        b.send(0, 2, 8.0, &[]).unwrap();
        both(b.build(1).unwrap())
    };
    assert!(flow_s > 1.9 * alone.0, "{flow_s} {alone:?}");
    assert!(
        (packet_s - flow_s).abs() < 1e-3 * flow_s,
        "{packet_s} {flow_s}"
    );
}

#[test]
fn halo3d26_packets_are_slower_by_at_most_thirty_percent() {
    // 26 small messages per rank: the flow engine shares the injection channel fairly among
    // them, the packet engine sends them in order and blocks behind busy heads.
    let r = ratio(Halo3D26::new(4, 4, 4).dag().unwrap());
    assert!((1.0..1.3).contains(&r), "{r}");
}

#[test]
fn uniform_random_packets_are_slower_by_at_most_thirty_percent() {
    let motif = UniformRandom {
        ranks: 64,
        size_bytes: 65536.0,
        compute_s: 0.0,
        iterations: 4,
        seed: 3,
    };
    let r = ratio(motif.dag().unwrap());
    assert!((1.0..1.3).contains(&r), "{r}");
}
