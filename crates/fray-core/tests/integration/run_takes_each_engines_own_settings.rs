//! `sim::run` takes each engine's own settings with the seed apart, and every engine fails
//! with the one `SimError`, naming the setting at fault; `sim::Simulation` runs a phase of
//! messages or traffic through the same entry.

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::{self, RoutingError};
use fray_core::sim::flow::FlowConfig;
use fray_core::sim::packet::{PacketConfig, TrafficConfig};
use fray_core::sim::{run, Engine, SimError, Simulation, Workload};
use fray_core::workload::{Message, WorkloadSpec};

fn engines(flow: FlowConfig, packets: PacketConfig) -> [Engine; 3] {
    [Engine::Load, Engine::Flow(flow), Engine::Packet(packets)]
}

#[test]
fn the_seed_is_the_runs_whatever_the_settings_hold() {
    let fabric = Fabric::parse("dragonfly:p=2,a=4,h=2,g=5").unwrap();
    let faults = Faults::none(&fabric);
    let ugal = routing::build("ugal", &fabric, &faults).unwrap();
    let jobs = WorkloadSpec::parse("halo3d26:jobs=2,nx=6,compute=no")
        .unwrap()
        .place(&fabric, 4)
        .unwrap();
    let plain = engines(FlowConfig::default(), PacketConfig::default());
    let seeded = engines(
        FlowConfig {
            seed: 99,
            ..FlowConfig::default()
        },
        PacketConfig {
            seed: 99,
            ..PacketConfig::default()
        },
    );
    for (a, b) in plain.into_iter().zip(seeded) {
        let x = run(a, &fabric, &faults, ugal.as_ref(), &jobs, 3).unwrap();
        let y = run(b, &fabric, &faults, ugal.as_ref(), &jobs, 3).unwrap();
        assert_eq!(x, y, "{a}");
    }
    // UGAL's choices come from the run's seed: another seed moves the bytes on the flow
    // engine.
    let flow = Engine::Flow(FlowConfig::default());
    let one = run(flow, &fabric, &faults, ugal.as_ref(), &jobs, 3).unwrap();
    let other = run(flow, &fabric, &faults, ugal.as_ref(), &jobs, 4).unwrap();
    assert_ne!(one.channel_bytes, other.channel_bytes);
}

#[test]
fn the_flow_engines_settings_are_checked_where_it_runs() {
    let fabric = Fabric::parse("torus:4x4").unwrap();
    let faults = Faults::none(&fabric);
    let dor = routing::build("dor", &fabric, &faults).unwrap();
    let jobs = WorkloadSpec::parse("uniform")
        .unwrap()
        .place(&fabric, 1)
        .unwrap();
    for (config, field) in [
        (
            FlowConfig {
                time_tolerance: 0.5,
                ..FlowConfig::default()
            },
            "time_tolerance",
        ),
        (
            FlowConfig {
                time_resolution_s: f64::NAN,
                ..FlowConfig::default()
            },
            "time_resolution",
        ),
    ] {
        let e = run(
            Engine::Flow(config),
            &fabric,
            &faults,
            dor.as_ref(),
            &jobs,
            1,
        )
        .unwrap_err();
        assert!(
            matches!(e, SimError::Config { field: f, .. } if f == field),
            "{e}"
        );
        assert_eq!(e.field(), Some(field));
        assert!(
            e.to_string().starts_with(&format!("{field}: must be in")),
            "{e}"
        );
    }
}

#[test]
fn an_unroutable_pair_is_the_same_error_on_every_engine() {
    let fabric = Fabric::parse("torus:4x4").unwrap();
    let mut faults = Faults::none(&fabric);
    faults.fail_endpoint(5).unwrap();
    let simulation = |engine| Simulation {
        workload: Workload::Messages(vec![Message::from((0, 5, 1e3))]),
        routing: Some("dor".into()),
        engine: Some(engine),
        time_tolerance: None,
        time_resolution_s: None,
        host: None,
        seed: 1,
    };
    for engine in engines(FlowConfig::default(), PacketConfig::default()) {
        let e = simulation(engine).run(&fabric, &faults).unwrap_err();
        assert!(
            matches!(e, SimError::Routing(RoutingError::Unroutable { .. })),
            "{engine}: {e}"
        );
        assert!(e.is_unroutable() && e.field() == Some("routing"));
    }
}

#[test]
fn one_message_alone_crosses_its_path_once_on_every_engine() {
    let fabric = Fabric::parse("torus:8").unwrap();
    let faults = Faults::none(&fabric);
    for engine in engines(FlowConfig::default(), PacketConfig::default()) {
        let r = Simulation {
            workload: Workload::Messages(vec![Message::from((0, 3, 4096.0))]),
            routing: None,
            engine: Some(engine),
            time_tolerance: Some(0.0),
            time_resolution_s: None,
            host: None,
            seed: 1,
        }
        .run(&fabric, &faults)
        .unwrap();
        // Injection, three router hops, ejection: five channels of 4 KiB each.
        let used: Vec<f64> = r
            .channel_bytes
            .iter()
            .copied()
            .filter(|&b| b > 0.0)
            .collect();
        assert_eq!(used, vec![4096.0; 5], "{engine}");
        assert_eq!((r.jobs.len(), r.ranks.clone()), (1, vec![8]), "{engine}");
        assert_eq!(r.throughput(), 8.0 / r.jobs[0].iteration_s);
    }
}

#[test]
fn traffic_runs_on_the_packet_engine_only() {
    let fabric = Fabric::parse("torus:4x4").unwrap();
    let faults = Faults::none(&fabric);
    let traffic = |engine| Simulation {
        workload: Workload::Traffic(TrafficConfig {
            load: 0.1,
            warmup_s: 1e-6,
            measure_s: 5e-6,
        }),
        routing: None,
        engine,
        time_tolerance: None,
        time_resolution_s: None,
        host: None,
        seed: 1,
    };
    let r = traffic(None).run(&fabric, &faults).unwrap();
    assert!(r.traffic.unwrap().accepted > 0.0);
    assert_eq!(r.vcs, Some(2));
    let e = traffic(Some(Engine::Flow(FlowConfig::default())))
        .run(&fabric, &faults)
        .unwrap_err();
    assert_eq!(e.field(), Some("engine"));
}
