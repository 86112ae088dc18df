//! Open-loop synthetic traffic on the packet engine: accepted throughput and latency
//! against offered load.

use std::time::Instant;

use super::engine::{to_ps, Engine, CLOCK_LIMIT_S, PS_PER_S};
use super::event::Step;
use super::{PacketConfig, PacketError, SoftErrors};
use crate::fabric::Fabric;
use crate::faults::Faults;
use crate::interrupt;
use crate::routing::{Entropy, Routing};

/// The highest offered load: a load is the fraction of each endpoint's injection bandwidth it
/// offers, and above 1 the endpoints offer more than their links carry, so that the source
/// queues (and the run's memory) grow without bound while the accepted load stays at
/// saturation.
pub const MAX_LOAD: f64 = 1.0;

/// The most packets a traffic run may offer (warm-up and measurement, all endpoints): the
/// run's time and memory grow with them, and 10^8 packets already take minutes.
pub const MAX_TRAFFIC_PACKETS: f64 = 1e8;

/// An open-loop traffic run: every endpoint injects one-packet messages of
/// [`PacketConfig::packet_bytes`] to a destination drawn uniformly among the other
/// endpoints, at exponential intervals whose mean gives `load`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrafficConfig {
    /// Offered load, the fraction of each endpoint's injection bandwidth (0 < load).
    pub load: f64,
    /// Simulated time before measuring, in seconds.
    pub warmup_s: f64,
    /// Simulated time measured, in seconds.
    pub measure_s: f64,
}

impl Default for TrafficConfig {
    /// 10 % load, 20 us of warm-up, 50 us measured.
    fn default() -> Self {
        Self {
            load: 0.1,
            warmup_s: 20e-6,
            measure_s: 50e-6,
        }
    }
}

/// What a traffic run measured in its window.
#[derive(Debug, Clone, PartialEq)]
pub struct TrafficResult {
    /// Offered load: bytes generated in the window over what the endpoints could inject.
    pub offered: f64,
    /// Accepted load: bytes delivered in the window, same scale.
    pub accepted: f64,
    /// Mean time from injection to delivery of the packets delivered in the window, seconds
    /// (`NaN` when none was).
    pub latency_mean_s: f64,
    /// Packets delivered over the whole run (warm-up included).
    pub packets: u64,
    /// Events handled over the whole run.
    pub events: u64,
    /// Wall-clock time of the run, in seconds.
    pub wall_s: f64,
}

/// Runs uniform random traffic at `traffic.load` on `fabric` with `routing`.
pub fn traffic(
    fabric: &Fabric,
    faults: &Faults,
    routing: &dyn Routing,
    config: PacketConfig,
    traffic: TrafficConfig,
) -> Result<TrafficResult, PacketError> {
    let bad = |field, reason: String| Err(PacketError::Config { field, reason });
    if !(traffic.load.is_finite() && traffic.load > 0.0) {
        return bad(
            "load",
            format!("must be a positive fraction, got {}", traffic.load),
        );
    }
    if traffic.load > MAX_LOAD {
        return bad(
            "load",
            format!(
                "{:?} is more than 1: a load is the fraction of each endpoint's injection \
                 bandwidth offered, and above 1 the source queues grow without bound",
                traffic.load
            ),
        );
    }
    for (field, v) in [
        ("warmup_s", traffic.warmup_s),
        ("measure_s", traffic.measure_s),
    ] {
        if !(v.is_finite() && v >= 0.0) {
            return bad(field, format!("must be a non-negative time, got {v}"));
        }
    }
    if traffic.measure_s == 0.0 {
        return bad("measure_s", "must be positive, got 0 s".into());
    }
    if traffic.warmup_s + traffic.measure_s > CLOCK_LIMIT_S {
        return bad(
            "measure_s",
            format!(
                "warm-up and measurement last {:e} s, more than the {CLOCK_LIMIT_S:.0} s the \
                 packet engine's clock holds",
                traffic.warmup_s + traffic.measure_s
            ),
        );
    }
    let n = fabric.num_endpoints();
    if n < 2 {
        return bad(
            "fabric",
            "uniform traffic needs at least 2 endpoints".into(),
        );
    }
    let offered_packets: f64 = (0..n as u32)
        .map(|e| fabric.channels().bandwidth_bytes_s[fabric.injection_channel(e) as usize])
        .map(|bw| traffic.load * bw * (traffic.warmup_s + traffic.measure_s))
        .sum::<f64>()
        / f64::from(config.packet_bytes.max(1));
    let measured_packets =
        offered_packets * traffic.measure_s / (traffic.warmup_s + traffic.measure_s);
    if measured_packets < 1.0 {
        return bad(
            "measure_s",
            format!(
                "the measurement would offer {measured_packets:.3e} packets in all, fewer than \
                 one, so it would measure nothing: lengthen the measurement or raise the load"
            ),
        );
    }
    if offered_packets > MAX_TRAFFIC_PACKETS {
        return bad(
            "measure_s",
            format!(
                "the run would offer {offered_packets:.3e} packets, more than the most, \
                 {MAX_TRAFFIC_PACKETS:e}: shorten the warm-up or measurement, or lower the load"
            ),
        );
    }
    let wall = Instant::now();
    let mut errors = SoftErrors::none(fabric.channels().len());
    let mut engine = Engine::new(fabric, faults, routing, config, &mut errors)?;
    let bytes = u64::from(config.packet_bytes);
    let injection_bw: Vec<f64> = (0..n as u32)
        .map(|e| fabric.channels().bandwidth_bytes_s[fabric.injection_channel(e) as usize])
        .collect();
    let mean_gap_ps: Vec<f64> = injection_bw
        .iter()
        .map(|bw| bytes as f64 / (traffic.load * bw) * PS_PER_S)
        .collect();
    let mut rng = Entropy::new(config.seed);
    let gap =
        |rng: &mut Entropy, e: usize| (-(1.0 - rng.unit()).ln() * mean_gap_ps[e]).round() as u64;
    for e in 0..n {
        let t = gap(&mut rng, e);
        engine.schedule_external(t, e as u32);
    }
    let (start_ps, end_ps) = (
        to_ps(traffic.warmup_s),
        to_ps(traffic.warmup_s + traffic.measure_s),
    );
    let mut at_start = None;
    let mut generated_bytes = 0u64;
    while engine.peek_time_ps().is_some_and(|t| t <= end_ps) {
        interrupt::check()?;
        if at_start.is_none() && engine.peek_time_ps().is_some_and(|t| t >= start_ps) {
            at_start = Some(engine.counters.clone());
        }
        match engine.next()? {
            Some(Step::Timer(e)) => {
                let src = e as usize;
                let mut dst = rng.below(n - 1);
                if dst >= src {
                    dst += 1;
                }
                engine.post(src as u32, dst as u32, bytes, 0)?;
                if engine.now_ps >= start_ps {
                    generated_bytes += bytes;
                }
                let t = engine.now_ps.saturating_add(gap(&mut rng, src));
                engine.schedule_external(t, e);
            }
            Some(Step::Finished) => engine.finished.clear(),
            None => break,
        }
    }
    let first = at_start.unwrap_or_else(|| engine.counters.clone());
    let last = &engine.counters;
    let capacity = injection_bw.iter().sum::<f64>() * traffic.measure_s;
    let delivered = last.packets_delivered - first.packets_delivered;
    let latency_ps = (last.latency_sum_ps - first.latency_sum_ps) as f64;
    Ok(TrafficResult {
        offered: generated_bytes as f64 / capacity,
        accepted: (last.bytes_delivered - first.bytes_delivered) as f64 / capacity,
        latency_mean_s: latency_ps / delivered as f64 / PS_PER_S,
        packets: last.packets_delivered,
        events: last.events,
        wall_s: wall.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod loads_and_times_are_bounded_before_the_run {
    use super::*;

    fn refused(load: f64, warmup_s: f64, measure_s: f64) -> String {
        let fabric = Fabric::parse("torus:4x4").unwrap();
        let faults = Faults::none(&fabric);
        let routing = crate::routing::build("dor", &fabric, &faults).unwrap();
        let run = TrafficConfig {
            load,
            warmup_s,
            measure_s,
        };
        traffic(
            &fabric,
            &faults,
            routing.as_ref(),
            PacketConfig::default(),
            run,
        )
        .unwrap_err()
        .to_string()
    }

    #[test]
    fn loads_above_one_are_refused_with_the_reason() {
        for load in [1.5, 1e4, 1e308] {
            let err = refused(load, 1e-6, 5e-6);
            assert!(
                err.starts_with("load: ") && err.contains("is more than 1"),
                "{err}"
            );
        }
    }

    #[test]
    fn times_beyond_the_clock_zero_or_too_many_packets_are_refused() {
        assert_eq!(
            refused(0.1, 1e-6, 0.0),
            "measure_s: must be positive, got 0 s"
        );
        for (warmup, measure) in [(0.0, 2e7), (1e8, 1e-6), (0.0, 1e9)] {
            let err = refused(0.1, warmup, measure);
            assert!(err.contains("the packet engine's clock holds"), "{err}");
        }
        let err = refused(0.1, 0.0, 1e3);
        assert!(err.starts_with("measure_s: the run would offer"), "{err}");
    }

    #[test]
    fn a_measurement_that_would_see_no_packet_is_refused() {
        // 16 endpoints offering 1e-9 of their bandwidth for 10 us: about 1e-5 packets, whose
        // mean latency would be NaN.
        for load in [1e-9, 1e-320] {
            let err = refused(load, 0.0, 1e-5);
            assert!(
                err.starts_with("measure_s: the measurement would offer")
                    && err.contains("fewer than one"),
                "{err}"
            );
        }
    }
}
