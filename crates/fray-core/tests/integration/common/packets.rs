//! Running jobs on the packet engine with no soft errors.

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::{build, Routing};
use fray_core::sim::packet::{simulate, PacketConfig, PacketResult, SoftErrors};
use fray_core::workload::{Dag, Job};

/// `jobs` on the packet engine with `config`, on a fabric without soft errors; panics on a
/// routing error or a deadlock.
pub fn run_clean(
    fabric: &Fabric,
    faults: &Faults,
    routing: &dyn Routing,
    jobs: &[Job],
    config: PacketConfig,
) -> PacketResult {
    let mut errors = SoftErrors::none(fabric.channels().len());
    simulate(fabric, faults, routing, jobs, config, &mut errors).unwrap()
}

/// The end of one job's `dag` placed on `placement`, routed by dimension order on `fabric`
/// without faults or soft errors, in picoseconds; checks that every packet arrived and every
/// credit came back.
pub fn dor_end_ps(config: PacketConfig, fabric: &Fabric, dag: Dag, placement: Vec<u32>) -> u64 {
    let faults = Faults::none(fabric);
    let routing = build("dor", fabric, &faults).unwrap();
    let job = Job::new("j", dag, placement, fabric).unwrap();
    let mut errors = SoftErrors::none(fabric.channels().len());
    let r = simulate(
        fabric,
        &faults,
        routing.as_ref(),
        &[job],
        config,
        &mut errors,
    )
    .unwrap();
    assert_eq!(r.counters.packets_injected, r.counters.packets_delivered);
    assert_eq!(r.counters.credit_bytes_outstanding, 0);
    r.end_ps
}
