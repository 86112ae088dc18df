//! A links study whose number of jobs cannot share the fabric's endpoints is refused when it
//! is checked (what a campaign's dry run does), not in the first simulation.

use crate::common::links::halo_study;

use fray_core::fabric::Fabric;
use fray_core::links::LinksStudy;
use fray_core::sim::flow::FlowConfig;
use fray_core::sim::Engine;
use fray_core::workload::WorkloadSpec;

fn study(workload: &str, jobs: &[u32]) -> LinksStudy {
    LinksStudy {
        workload: WorkloadSpec::parse(workload).unwrap(),
        jobs: jobs.to_vec(),
        failed_pct: vec![10.0],
        engine: Engine::Flow(FlowConfig {
            time_tolerance: 3e-3,
            ..FlowConfig::EXACT
        }),
        ..halo_study(1, 1)
    }
}

#[test]
fn more_jobs_than_endpoints_are_refused_when_checked() {
    // 17 groups of 8 routers with 4 endpoints each: 544 endpoints.
    let fabric = Fabric::parse("dragonfly:p=4,a=8,h=2,g=17").unwrap();
    assert_eq!(fabric.num_endpoints(), 544);
    study("halo3d26", &[1, 4]).check(&fabric).unwrap();
    // One endpoint each still fits; one more job than endpoints does not.
    study("halo3d26", &[544]).check(&fabric).unwrap();
    for (workload, jobs, needle) in [
        (
            "halo3d26",
            100_000,
            "100000 jobs cannot share 544 endpoints",
        ),
        ("halo3d26", 545, "545 jobs cannot share 544 endpoints"),
        // The budget, not the fabric, bounds the jobs when it is smaller.
        ("sweep3d:budget=64", 65, "65 jobs cannot share 64 endpoints"),
    ] {
        let err = study(workload, &[1, jobs])
            .check(&fabric)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("links study: jobs: "), "{err}");
        assert!(err.contains(needle), "{workload} x {jobs}: {err}");
    }
}
