//! Output-buffered routers with a crossbar speedup keep the packet engine's invariants on
//! busy runs: on a torus (dateline classes), a dragonfly under UGAL reading the output queues
//! or the downstream view, a fat tree and a HyperX with failed links (DOAL's misroutes), with
//! output buffers of one packet and of many, every packet injected is delivered once, bytes
//! are conserved, the clock never goes back, every credit of every input and output buffer
//! comes home, no run deadlocks, and a seed replays the same run.

use crate::common::faults::random_cables;

use crate::common::packets::{simulate_clean, uniform_random_job};

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::build;
use fray_core::sim::packet::{PacketConfig, PacketResult, QueueView};

/// Three iterations of uniform random 3,000-byte messages from every endpoint.
fn run(fabric: &Fabric, faults: &Faults, routing: &str, config: PacketConfig) -> PacketResult {
    let routing = build(routing, fabric, faults).unwrap();
    let config = config.with_enough_vcs(fabric, routing.as_ref());
    let job = uniform_random_job(fabric);
    simulate_clean(fabric, faults, routing.as_ref(), &[job], config)
        .unwrap_or_else(|e| panic!("{}: {e} ({config:?})", routing.name()))
}

fn check(r: &PacketResult, messages: u64, config: &PacketConfig) {
    let c = &r.counters;
    let per_message = 3000u64.div_ceil(u64::from(config.packet_bytes));
    assert_eq!(c.packets_injected, messages * per_message, "{config:?}");
    assert_eq!(c.packets_delivered, c.packets_injected, "{config:?}");
    assert_eq!(c.bytes_injected, messages * 3000, "{config:?}");
    assert_eq!(c.bytes_delivered, c.bytes_injected, "{config:?}");
    assert_eq!(c.time_regressions, 0, "{config:?}");
    assert_eq!(c.credit_bytes_outstanding, 0, "{config:?}");
}

fn routers() -> [PacketConfig; 3] {
    [
        // One packet of output buffer and small input buffers: the most blocking.
        PacketConfig {
            buffer_bytes: 512,
            out_buffer_bytes: 256,
            ..PacketConfig::default()
        },
        // merlin's hr_router, scaled to 256-byte packets.
        PacketConfig {
            speedup: 1.5,
            out_buffer_bytes: 4096,
            input_latency_ps: 20_000,
            output_latency_ps: 20_000,
            route_per_packet: true,
            queue_view: QueueView::Output,
            ..PacketConfig::default()
        },
        PacketConfig {
            speedup: 2.0,
            buffer_bytes: 512,
            out_buffer_bytes: 1024,
            route_per_packet: true,
            ..PacketConfig::default()
        },
    ]
}

#[test]
fn every_packet_and_credit_comes_through_output_buffers() {
    for (spec, routing, failed) in [
        ("torus:4x4x4", "dor", 0.0),
        ("dragonfly:p=2,a=4,h=2,g=9", "ugal", 0.0),
        (
            "dragonfly:p=2,a=4,h=2,g=9",
            "ugal:links=adaptive,threshold=800",
            0.3,
        ),
        ("xgft:2;4,4;1,4", "updown", 0.0),
        ("hyperx:4x4,t=2", "doal", 0.1),
    ] {
        let fabric = Fabric::parse(spec).unwrap();
        let cls = if spec.starts_with("dragonfly") {
            "global"
        } else {
            "router"
        };
        let faults = random_cables(&fabric, cls, failed, 3);
        let messages = 3 * fabric.num_endpoints() as u64;
        for config in routers() {
            let r = run(&fabric, &faults, routing, config);
            check(&r, messages, &config);
            assert_eq!(r, run(&fabric, &faults, routing, config), "{spec} replays");
        }
    }
}

#[test]
fn output_buffers_change_the_run_and_a_seed_changes_it_again() {
    let fabric = Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap();
    let faults = Faults::none(&fabric);
    let [_, merlin, _] = routers();
    let input_queued = PacketConfig {
        route_per_packet: true,
        ..PacketConfig::default()
    };
    let a = run(&fabric, &faults, "ugal", merlin);
    let b = run(&fabric, &faults, "ugal", input_queued);
    let c = run(&fabric, &faults, "ugal", PacketConfig { seed: 2, ..merlin });
    assert_ne!(a.end_ps, b.end_ps);
    assert_ne!(a.end_ps, c.end_ps);
}
