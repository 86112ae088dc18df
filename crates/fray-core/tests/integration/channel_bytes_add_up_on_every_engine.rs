//! Where the bytes went, as every engine reports it ([`run`]'s `channel_bytes`): each
//! message's bytes cross its source's injection channel and its destination's ejection
//! channel once, and with a deterministic routing the three engines put the same bytes on
//! every channel.

use crate::common::faults::random_cables;

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing;
use fray_core::sim::flow::FlowConfig;
use fray_core::sim::packet::PacketConfig;
use fray_core::sim::{run, Engine, Run};
use fray_core::workload::{Job, Op, WorkloadSpec};

const CONFIG: FlowConfig = FlowConfig {
    seed: 5,
    ..FlowConfig::EXACT
};

fn engines() -> [Engine; 3] {
    [
        Engine::Load,
        Engine::Flow(CONFIG),
        Engine::Packet(PacketConfig::default()),
    ]
}

/// Bytes each endpoint sends and receives over the network (messages to itself stay off it).
fn endpoint_bytes(fabric: &Fabric, jobs: &[Job]) -> (Vec<f64>, Vec<f64>) {
    let n = fabric.num_endpoints();
    let (mut sent, mut received) = (vec![0.0; n], vec![0.0; n]);
    for job in jobs {
        for op in job.dag.ops() {
            if let Op::Send {
                src,
                dst,
                size_bytes,
            } = *op
            {
                let (s, d) = (job.placement[src as usize], job.placement[dst as usize]);
                if s != d {
                    sent[s as usize] += size_bytes;
                    received[d as usize] += size_bytes;
                }
            }
        }
    }
    (sent, received)
}

fn run_on(engine: Engine, fabric: &Fabric, faults: &Faults, name: &str, jobs: &[Job]) -> Run {
    let r = routing::build(name, fabric, faults).unwrap();
    run(engine, fabric, faults, r.as_ref(), jobs, CONFIG.seed).unwrap()
}

#[test]
fn every_message_crosses_its_host_channels_once_on_every_engine() {
    let fabric = Fabric::parse("dragonfly:p=2,a=4,h=2,g=5").unwrap();
    let faults = random_cables(&fabric, "global", 0.2, 9);
    let jobs = WorkloadSpec::parse("halo3d26:nx=4,jobs=2")
        .unwrap()
        .place(&fabric, 3)
        .unwrap();
    let (sent, received) = endpoint_bytes(&fabric, &jobs);
    assert!(sent.iter().sum::<f64>() > 0.0);
    for engine in engines() {
        let bytes = run_on(engine, &fabric, &faults, "ugal", &jobs).channel_bytes;
        assert_eq!(bytes.len(), fabric.channels().len());
        for e in 0..fabric.num_endpoints() as u32 {
            let inj = bytes[fabric.injection_channel(e) as usize];
            let ej = bytes[fabric.ejection_channel(e) as usize];
            assert_eq!(inj, sent[e as usize], "{engine}: endpoint {e} sent");
            assert_eq!(ej, received[e as usize], "{engine}: endpoint {e} received");
        }
        for (c, &b) in bytes.iter().enumerate() {
            if faults.channel_is_down(c as u32) {
                assert_eq!(b, 0.0, "{engine}: failed channel {c} carried bytes");
            }
        }
    }
}

#[test]
fn with_one_route_per_pair_the_engines_load_every_channel_alike() {
    let fabric = Fabric::parse("torus:4x4x2").unwrap();
    let faults = Faults::none(&fabric);
    let jobs = WorkloadSpec::parse("halo3d26:nx=5")
        .unwrap()
        .place(&fabric, 2)
        .unwrap();
    let [load, flow, packet] =
        engines().map(|e| run_on(e, &fabric, &faults, "dor", &jobs).channel_bytes);
    assert!(load.iter().any(|&b| b > 0.0));
    for c in 0..load.len() {
        assert_eq!(load[c], flow[c], "channel {c}: load against flow");
        assert_eq!(load[c], packet[c], "channel {c}: load against packet");
    }
}
