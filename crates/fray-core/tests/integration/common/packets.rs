//! Running jobs on the packet engine with no soft errors.

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::Routing;
use fray_core::sim::packet::{simulate, PacketConfig, PacketResult, SoftErrors};
use fray_core::workload::Job;

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
