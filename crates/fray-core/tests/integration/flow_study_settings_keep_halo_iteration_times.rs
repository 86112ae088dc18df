//! The flow engine's default time tolerance and resolution (the failed-links study's) keep the
//! iteration time of its Halo3D26 exchange (Ember's host costs, no compute, UGAL, failed
//! global cables) within the engine's stated bound of the exact simulation: three times the
//! tolerance of the time plus three times the resolution, with either NIC order.

use crate::common::faults::random_cables;

use fray_core::fabric::{Fabric, LinkParameters};
use fray_core::routing;
use fray_core::sim::flow::{simulate, FlowConfig, NicOrder};
use fray_core::workload::WorkloadSpec;

/// The job's iteration time, exact and with the study's settings, in seconds.
fn iteration_s(
    spec: &str,
    bandwidth_bytes_s: f64,
    failed: f64,
    seed: u64,
    nic: NicOrder,
) -> (f64, f64) {
    let link = LinkParameters {
        bandwidth_bytes_s,
        ..LinkParameters::default()
    };
    let fabric = Fabric::from_spec(&spec.parse().unwrap(), link).unwrap();
    let jobs = WorkloadSpec::parse("halo3d26:nx=30,compute=no,host=ember")
        .unwrap()
        .place(&fabric, seed)
        .unwrap();
    let faults = random_cables(&fabric, "global", failed, seed);
    let routing = routing::build("ugal", &fabric, &faults).unwrap();
    let run = |time_tolerance, time_resolution_s| {
        let config = FlowConfig {
            seed,
            time_tolerance,
            time_resolution_s,
            nic,
        };
        let r = simulate(&fabric, &faults, routing.as_ref(), &jobs, config).unwrap();
        r.jobs[0].iteration_s
    };
    let defaults = FlowConfig::default();
    (
        run(0.0, 0.0),
        run(defaults.time_tolerance, defaults.time_resolution_s),
    )
}

#[test]
fn study_settings_keep_the_exchange_within_the_bound() {
    let mut cases = Vec::new();
    for seed in 1..=3 {
        for failed in [0.1, 0.3] {
            cases.push(("dragonfly:p=2,a=4,h=2,g=9", 1e9, failed, seed));
        }
    }
    cases.push(("dragonfly:p=4,a=8,h=4,g=17", 4e9, 0.1, 1));
    let FlowConfig {
        time_tolerance,
        time_resolution_s,
        ..
    } = FlowConfig::default();
    for (spec, bandwidth, failed, seed) in cases {
        for nic in [NicOrder::Shared, NicOrder::Fifo] {
            let (exact, fast) = iteration_s(spec, bandwidth, failed, seed, nic);
            assert!(exact > 0.0);
            assert!(
                (fast - exact).abs() <= 3.0 * (time_tolerance * exact + time_resolution_s),
                "{spec}, {failed} failed, seed {seed}, {nic:?}: exact {exact:e} s, study's \
                 settings {fast:e} s"
            );
        }
    }
}
