//! A UGAL option written in bytes (`threshold=800B`, `credits=32kB`) is bytes queued, the
//! packet engine's congestion: the packet engine reads it as the same bare number, and the
//! flow and load engines, whose congestion counts flows and routes, refuse it with an error
//! naming the option, so merlin's 800-byte bias is never read as 800 flows.

use fray_core::fabric::Fabric;
use fray_core::faults::{CableSelector, Faults};
use fray_core::routing::{CongestionUnit, RoutingError};
use fray_core::sim::flow::FlowConfig;
use fray_core::sim::packet::PacketConfig;
use fray_core::sim::{Engine, SimError, Simulated, Simulation, Workload};
use fray_core::workload::WorkloadSpec;

/// One small Halo3D26 job with `routing` on `engine`, 30 % of the global cables failed.
fn halo(routing: &str, engine: Engine) -> Result<Simulated, SimError> {
    let fabric = Fabric::parse("dragonfly:p=2,a=4,h=2,g=5").unwrap();
    let mut faults = Faults::none(&fabric);
    faults
        .fail_random_cables(&fabric, &CableSelector::parse("global"), 0.3, 7)
        .unwrap();
    Simulation {
        workload: Workload::Jobs(WorkloadSpec::parse("halo3d26:nx=6,compute=no").unwrap()),
        routing: Some(routing.into()),
        engine: Some(engine),
        time_tolerance: None,
        time_resolution_s: None,
        host: None,
        seed: 3,
    }
    .run(&fabric, &faults)
}

#[test]
fn the_packet_engine_reads_bytes_as_its_own_unit() {
    let packets = Engine::Packet(PacketConfig::default());
    for (in_bytes, bare) in [
        (
            "ugal:threshold=800B,links=adaptive",
            "ugal:threshold=800,links=adaptive",
        ),
        ("ugal:threshold=2KiB", "ugal:threshold=2048"),
        ("ugal:credits=32kB", "ugal:credits=32000"),
    ] {
        let (a, b) = (
            halo(in_bytes, packets).unwrap(),
            halo(bare, packets).unwrap(),
        );
        assert_eq!(a.jobs, b.jobs, "{in_bytes}");
        assert_eq!(a.channel_bytes, b.channel_bytes, "{in_bytes}");
    }
}

#[test]
fn the_flow_and_load_engines_refuse_an_amount_in_bytes() {
    for (engine, counts) in [
        (Engine::Flow(FlowConfig::default()), CongestionUnit::Flows),
        (Engine::Load, CongestionUnit::Routes),
    ] {
        for (routing, option) in [
            ("ugal:links=adaptive,threshold=800B", "threshold=800B"),
            ("ugal:credits=32KiB,factor=3", "credits=32KiB"),
        ] {
            let e = halo(routing, engine).unwrap_err();
            assert_eq!(
                e,
                SimError::Routing(RoutingError::WrongUnit {
                    routing: "ugal",
                    option: option.to_string(),
                    given: CongestionUnit::Bytes,
                    counts,
                }),
                "{routing} on {engine}"
            );
            assert_eq!(e.field(), Some("routing"));
            let message = e.to_string();
            assert!(
                message.contains(option) && !message.contains('\n'),
                "{message}"
            );
            assert!(message.contains("run the packet engine"), "{message}");
            // The same amount as a bare number runs, in the engine's own unit.
            let bare = routing.replace("800B", "800").replace("32KiB", "32768");
            assert!(halo(&bare, engine).is_ok(), "{bare} on {engine}");
        }
        // No congestion is the same in every unit.
        assert!(halo("ugal:threshold=0B", engine).is_ok());
    }
}
