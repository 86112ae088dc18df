//! The all-to-all motif on a ring of 9 routers: every rank injects and receives `8 bytes`
//! per iteration, every directed ring channel carries `1 + 2 + 3 + 4 = 10` messages per
//! iteration (dimension order takes the shorter way round), so the load engine's time is
//! `10 bytes I / bandwidth` plus the latency of a 4-hop path, over `I` iterations.

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing;
use fray_core::sim::{run, Engine};
use fray_core::workload::WorkloadSpec;

#[test]
fn alltoall_on_a_ring_conserves_bytes_and_matches_the_closed_form() {
    let fabric = Fabric::parse("torus:9").unwrap();
    let faults = Faults::none(&fabric);
    let r = routing::build("dor", &fabric, &faults).unwrap();
    let (bytes, iterations) = (1000.0, 3.0);
    let jobs = WorkloadSpec::parse("alltoall:bytes=1000,iterations=3,compute=no")
        .unwrap()
        .place(&fabric, 1)
        .unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].dag.num_messages(), 9 * 8 * 3);
    let out = run(Engine::Load, &fabric, &faults, r.as_ref(), &jobs, 1).unwrap();
    let channels = fabric.channels();
    let routers = fabric.num_router_channels();
    // Bytes conserved: each endpoint sends and receives 8 x bytes per iteration.
    for e in 0..fabric.num_endpoints() as u32 {
        for c in [fabric.injection_channel(e), fabric.ejection_channel(e)] {
            assert_eq!(out.channel_bytes[c as usize], 8.0 * bytes * iterations);
        }
    }
    for c in 0..routers {
        assert_eq!(
            out.channel_bytes[c],
            10.0 * bytes * iterations,
            "channel {c}"
        );
    }
    let bw = channels.bandwidth_bytes_s[0];
    let hop = channels.latency_s[0];
    let host = channels.latency_s[routers];
    let expected = (10.0 * bytes * iterations / bw + 4.0 * hop + 2.0 * host) / iterations;
    let got = out.jobs[0].iteration_s;
    assert!(
        (got - expected).abs() <= 1e-12 * expected,
        "{got} vs {expected}"
    );
}
