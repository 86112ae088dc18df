//! Repair gains ([`LinksStudy::repair_gains`]): repairing the only down cable gives back
//! exactly what the study says that cable costs, seed by seed; a pair of groups cut off is
//! unroutable, and repairing either of its cables makes it routable again.

use crate::common::links::halo_study;

use fray_core::fabric::Fabric;
use fray_core::links::{CaseOutcome, DownCables, LinksCase, LinksStudy};

fn study(routing: &str, down: &str) -> LinksStudy {
    LinksStudy {
        routing: routing.into(),
        down: DownCables {
            text: down.into(),
            file: "down.txt".into(),
        },
        ..halo_study(3, 4)
    }
}

fn throughput(o: &CaseOutcome) -> f64 {
    let CaseOutcome::Ran { ranks, iteration_s } = o else {
        panic!("unroutable: {o:?}")
    };
    ranks
        .iter()
        .zip(iteration_s)
        .map(|(&r, &t)| f64::from(r) / t)
        .sum()
}

#[test]
fn repairing_the_only_down_cable_gives_back_the_healthy_machine() {
    let fabric = Fabric::parse("dragonfly:p=2,a=4,h=2,g=5").unwrap();
    let s = study("ugal", "# one cable\ng0r0->g1r0\n");
    let gains = s.repair_gains(&fabric, 1).unwrap();
    assert_eq!(gains.len(), 1);
    assert_eq!((gains[0].cable.as_str(), gains[0].line), ("g0r0->g1r0", 2));
    let case = |replica, baseline| LinksCase {
        jobs: 1,
        failed_pct: 0.0,
        replica,
        baseline,
    };
    let per_seed: Vec<f64> = (0..3)
        .map(|r| {
            let healthy = throughput(&s.run_case(&fabric, case(r, true)).unwrap());
            let now = throughput(&s.run_case(&fabric, case(r, false)).unwrap());
            100.0 * (healthy / now - 1.0)
        })
        .collect();
    let mean = per_seed.iter().sum::<f64>() / 3.0;
    let gain = gains[0].gain_pct.unwrap();
    assert!(
        (gain - mean).abs() <= 1e-9 * mean.abs().max(1.0),
        "{gain} vs {mean}"
    );
    assert!(gains[0].gain_ci_pct.is_some() && !gains[0].unroutable);
}

#[test]
fn a_cut_pair_is_unroutable_until_either_cable_is_repaired() {
    let fabric = Fabric::parse("dragonfly:p=2,a=4,h=2,g=5").unwrap();
    // Both cables between groups 0 and 1, and one more elsewhere; minimal routing has no
    // detour, so the machine as it is cannot serve the job's pairs across groups 0 and 1.
    let s = study("minimal", "g0r0->g1r0\ng0r2->g1r2\ng2r1->g3r1\n");
    let now = s.run_case(
        &fabric,
        LinksCase {
            jobs: 1,
            failed_pct: 0.0,
            replica: 0,
            baseline: false,
        },
    );
    assert!(matches!(now, Ok(CaseOutcome::Unroutable(_))), "{now:?}");
    let gains = s.repair_gains(&fabric, 1).unwrap();
    let flags: Vec<bool> = gains.iter().map(|g| g.unroutable).collect();
    assert_eq!(flags, vec![false, false, true]);
    assert!(gains.iter().all(|g| g.gain_pct.is_none()));
    // No listed cable: nothing to rank.
    assert!(study("ugal", "# nothing\n")
        .repair_gains(&fabric, 1)
        .is_err());
}
