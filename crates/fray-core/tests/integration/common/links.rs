//! The failed-links study the repair, planning and links-study tests start from.

use fray_core::faults::CableSelector;
use fray_core::links::{DownCables, LinksStudy};
use fray_core::sim::flow::FlowConfig;
use fray_core::sim::Engine;
use fray_core::workload::WorkloadSpec;

/// A study of one small Halo3D26 job (`nx=10`, no compute) routed by UGAL, with global
/// cables failing, at the baseline only (0 % failed), over `seeds` seeds from `seed`, on the
/// exact flow engine ([`FlowConfig::EXACT`]) and a healthy machine; a test sets the fields it
/// varies with struct update syntax.
pub fn halo_study(seeds: u32, seed: u64) -> LinksStudy {
    LinksStudy {
        workload: WorkloadSpec::parse("halo3d26:nx=10,compute=no").unwrap(),
        routing: "ugal".into(),
        fail: CableSelector::parse("global"),
        jobs: vec![1],
        failed_pct: vec![0.0],
        seeds,
        seed,
        engine: Engine::Flow(FlowConfig::EXACT),
        down: DownCables::default(),
    }
}
