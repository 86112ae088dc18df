//! The load engine's per-job estimate and the flow engine agree where both are exact: one
//! message alone (latency plus bytes over bandwidth) and an incast bound by one link.

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing;
use fray_core::sim::flow::FlowConfig;
use fray_core::sim::{run, Engine};
use fray_core::workload::{DagBuilder, Job};

fn both(fabric: &Fabric, faults: &Faults, name: &str, jobs: &[Job]) -> (Vec<f64>, Vec<f64>) {
    let r = routing::build(name, fabric, faults).unwrap();
    let config = FlowConfig {
        seed: 3,
        ..FlowConfig::EXACT
    };
    let times = |engine| {
        run(engine, fabric, faults, r.as_ref(), jobs, 3)
            .unwrap()
            .jobs
            .iter()
            .map(|j| j.iteration_s)
            .collect::<Vec<f64>>()
    };
    (times(Engine::Load), times(Engine::Flow(config)))
}

#[test]
fn one_message_alone_takes_the_same_time_on_both() {
    let fabric = Fabric::parse("torus:4x4").unwrap();
    let mut dag = DagBuilder::new(2);
    dag.send(0, 1, 1e6, &[]).unwrap();
    let job = Job::new("one", dag.build(1).unwrap(), vec![0, 10], &fabric).unwrap();
    let (load, flow) = both(&fabric, &Faults::none(&fabric), "dor", &[job]);
    assert!(
        (load[0] - flow[0]).abs() <= 1e-12 * flow[0],
        "{load:?} {flow:?}"
    );
}

/// Four endpoints send 1 MB each to one endpoint, two hops away or less: its ejection link
/// carries 4 MB, so both engines give 4 MB over the link's bandwidth plus the path latency.
#[test]
fn incast_is_bound_by_the_ejection_link_on_both() {
    let fabric = Fabric::parse("torus:4x4").unwrap();
    let mut dag = DagBuilder::new(5);
    for src in 1..5 {
        dag.send(src, 0, 1e6, &[]).unwrap();
    }
    // Rank 0 on router 5, its senders on the four neighbours of router 5.
    let job = Job::new(
        "incast",
        dag.build(1).unwrap(),
        vec![5, 1, 4, 6, 9],
        &fabric,
    )
    .unwrap();
    let (load, flow) = both(&fabric, &Faults::none(&fabric), "dor", &[job]);
    let host = fabric.num_router_channels() as u32; // a host channel: host links are alike
    let bw = fabric.channels().bandwidth_bytes_s[host as usize];
    let hop = fabric.channels().latency_s[0];
    let host_latency = fabric.channels().latency_s[host as usize];
    let expected = 4e6 / bw + hop + 2.0 * host_latency;
    for t in [load[0], flow[0]] {
        assert!((t - expected).abs() <= 1e-9 * expected, "{t} vs {expected}");
    }
}
