//! A links study whose number of jobs cannot share the fabric's endpoints, or that would list
//! more cases than a study holds, is refused when it is checked (what a campaign's dry run
//! does), not in the first simulation or by running out of memory.

use crate::common::links::halo_study;

use fray_core::fabric::Fabric;
use fray_core::links::{LinksStudy, MAX_CASES};
use fray_core::seeds::MAX_REPLICATIONS;
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

#[test]
fn seeds_and_cases_past_the_limits_are_refused_before_they_are_listed() {
    let fabric = Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap();
    let with = |seeds: u32, failed: usize| LinksStudy {
        seeds,
        failed_pct: (1..=failed).map(|p| p as f64).collect(),
        ..study("halo3d26", &[1, 2])
    };
    with(MAX_REPLICATIONS, 1).check(&fabric).unwrap();
    // 2^32-1 seeds once listed 2^33 cases (200 GB) before the first ran.
    let err = with(u32::MAX, 1).check(&fabric).unwrap_err().to_string();
    assert_eq!(
        err,
        "links study: seeds: must be from 1 to 100000, got 4294967295"
    );
    // 2 numbers of jobs x 100,000 seeds x (baseline + 5 failed percentages) = 1,200,000.
    let err = with(MAX_REPLICATIONS, 5)
        .check(&fabric)
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with(&format!(
            "make 1200000 cases, more than the {MAX_CASES} a study lists"
        )),
        "{err}"
    );
    // 2 x 100,000 x 5 = 1,000,000: at the limit, listed.
    let at_limit = with(MAX_REPLICATIONS, 4);
    at_limit.check(&fabric).unwrap();
    assert_eq!(at_limit.cases().len() as u64, MAX_CASES);
}
