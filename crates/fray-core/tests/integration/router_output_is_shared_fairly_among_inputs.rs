//! `N` inputs of a router sending to one output share it fairly: the output carries all
//! their bytes back to back (`h x latency + N x B / bandwidth`) and every input's message ends
//! within one round of packets (`N` serialisations) of the last, with input-queued routers
//! and with output-buffered routers at any speedup.

use crate::common::packets::simulate_clean;

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::build;
use fray_core::sim::packet::PacketConfig;
use fray_core::workload::{DagBuilder, Job};

const PS_PER_BYTE: f64 = 100.0; // 10 GB/s
const LATENCY_PS: f64 = 100_000.0;

#[test]
fn every_input_gets_its_share_of_one_output() {
    let n = 6u32;
    let spec = format!("mesh:2,t={}", n + 1);
    let fabric = Fabric::parse(&spec).unwrap();
    let faults = Faults::none(&fabric);
    let routing = build("dor", &fabric, &faults).unwrap();
    let dst = n + 1; // the first endpoint of router 1
    let bytes = 256 * 40;
    let configs = [
        PacketConfig::default(),
        PacketConfig {
            out_buffer_bytes: 2048,
            ..PacketConfig::default()
        },
        PacketConfig {
            speedup: 2.0,
            out_buffer_bytes: 32_768,
            ..PacketConfig::default()
        },
    ];
    for config in configs {
        let jobs: Vec<Job> = (0..n)
            .map(|src| {
                let mut b = DagBuilder::new(2);
                b.send(0, 1, f64::from(bytes), &[]).unwrap();
                Job::new(
                    format!("in{src}"),
                    b.build(1).unwrap(),
                    vec![src, dst],
                    &fabric,
                )
                .unwrap()
            })
            .collect();
        let r = simulate_clean(&fabric, &faults, routing.as_ref(), &jobs, config).unwrap();
        let total = 3.0 * LATENCY_PS + f64::from(n * bytes) * PS_PER_BYTE;
        assert_eq!(r.end_ps as f64, total, "{config:?}");
        let round = f64::from(n * 256) * PS_PER_BYTE;
        for job in &r.jobs {
            let end_ps = job.makespan_s * 1e12;
            assert!(
                end_ps >= total - round - 1.0,
                "{}: ended at {end_ps} ps, the last at {total} ({config:?})",
                job.name
            );
        }
    }
}
