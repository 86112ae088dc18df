//! Running jobs on the packet engine with no soft errors.

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::{build, Routing};
use fray_core::sim::packet::{simulate, PacketConfig, PacketError, PacketResult, SoftErrors};
use fray_core::workload::{Dag, Job, Motif, UniformRandom};

/// `jobs` on the packet engine with `config`, on a fabric without soft errors.
pub fn simulate_clean(
    fabric: &Fabric,
    faults: &Faults,
    routing: &dyn Routing,
    jobs: &[Job],
    config: PacketConfig,
) -> Result<PacketResult, PacketError> {
    let mut errors = SoftErrors::none(fabric.channels().len());
    simulate(fabric, faults, routing, jobs, config, &mut errors)
}

/// One job on every endpoint of `fabric` (rank `r` on endpoint `r`): three iterations of
/// uniform random 3,000-byte messages from every rank, seed 5, no compute.
pub fn uniform_random_job(fabric: &Fabric) -> Job {
    let n = fabric.num_endpoints() as u32;
    let motif = UniformRandom {
        ranks: n,
        size_bytes: 3000.0,
        compute_s: 0.0,
        iterations: 3,
        seed: 5,
    };
    Job::new("u", motif.dag().unwrap(), (0..n).collect(), fabric).unwrap()
}

/// The end of one job's `dag` placed on `placement`, routed by dimension order on `fabric`
/// without faults or soft errors, in picoseconds; checks that every packet arrived and every
/// credit came back.
pub fn dor_end_ps(config: PacketConfig, fabric: &Fabric, dag: Dag, placement: Vec<u32>) -> u64 {
    let faults = Faults::none(fabric);
    let routing = build("dor", fabric, &faults).unwrap();
    let job = Job::new("j", dag, placement, fabric).unwrap();
    let r = simulate_clean(fabric, &faults, routing.as_ref(), &[job], config).unwrap();
    assert_eq!(r.counters.packets_injected, r.counters.packets_delivered);
    assert_eq!(r.counters.credit_bytes_outstanding, 0);
    r.end_ps
}
