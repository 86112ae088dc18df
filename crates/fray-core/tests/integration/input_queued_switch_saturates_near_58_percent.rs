//! The classic result for a single switch under uniform random traffic (Karol, Hluchyj and
//! Morgan, 1987): with one FIFO per input, only its head competing and a crossbar as fast as
//! the links, head-of-line blocking caps the throughput near `2 - sqrt(2) = 58.6 %` of the
//! links' capacity (59.0 % for 32 ports); output buffers behind a crossbar twice as fast as
//! the links bring it close to an output-queued switch (a crossbar as fast as all inputs
//! together).

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::build;
use fray_core::sim::packet::{traffic, PacketConfig, TrafficConfig};

/// Accepted load of a 32-port switch (`xgft:1;32;1`) offered its full capacity, one virtual
/// channel (one FIFO per input), with a crossbar of `speedup` into output buffers of
/// `out_buffer_bytes`.
fn saturation(speedup: f64, out_buffer_bytes: u32) -> f64 {
    let fabric = Fabric::parse("xgft:1;32;1").unwrap();
    let faults = Faults::none(&fabric);
    let routing = build("table", &fabric, &faults).unwrap();
    let config = PacketConfig {
        vcs: 1,
        speedup,
        out_buffer_bytes,
        ..PacketConfig::default()
    };
    assert_eq!(config.with_enough_vcs(&fabric, routing.as_ref()).vcs, 1);
    let run = TrafficConfig {
        load: 1.0,
        warmup_s: 20e-6,
        measure_s: 100e-6,
    };
    traffic(&fabric, &faults, routing.as_ref(), config, run)
        .unwrap()
        .accepted
}

#[test]
fn one_fifo_per_input_saturates_near_58_percent() {
    // The crossbar moves one packet at a time out of each input and into each output, at
    // the links' rate: the input-queued switch of the classic result, whatever the output
    // buffers hold (the crossbar, not the buffer, is the bottleneck).
    for out_buffer in [256, 4096, 262_144] {
        let s = saturation(1.0, out_buffer);
        assert!((0.57..0.61).contains(&s), "speedup 1, {out_buffer} B: {s}");
    }
}

#[test]
fn speedup_2_comes_close_to_an_output_queued_switch() {
    let big = 256 * 1024;
    let speedup_2 = saturation(2.0, big);
    let output_queued = saturation(32.0, big);
    assert!(output_queued > 0.95, "output-queued: {output_queued}");
    assert!(
        speedup_2 > 0.97 * output_queued,
        "speedup 2: {speedup_2} vs {output_queued}"
    );
}
