//! The planner's reuse of sampled states (a loss model against down cables per class) gives
//! the answer of simulating every state it visits, within its confidence interval, on a
//! small dragonfly with the workload on the flow engine.

use crate::common::links::halo_study;

use fray_core::fabric::Fabric;
use fray_core::plan::{ClassFailures, LossReuse, Plan, RepairPolicy, WorkloadLoss};

#[test]
fn the_loss_model_agrees_with_simulating_every_visited_state() {
    // 40 endpoints, 10 global cables: at most 1,024 fault states, so the direct run can
    // simulate each state it visits.
    let fabric = Fabric::parse("dragonfly:p=2,a=4,h=1,g=5").unwrap();
    let study = halo_study(2, 3);
    let loss = WorkloadLoss::new(&study, &fabric, 1).unwrap();
    let plan = Plan {
        classes: vec![ClassFailures {
            class: "global".into(),
            model: "exp:mtbf=60d".parse().unwrap(),
        }],
        horizon_s: 365.0 * 86400.0,
        replications: 40,
        seed: 5,
    };
    let policies: Vec<RepairPolicy> = ["immediate:repair=3d", "windows:every=30d,length=8h"]
        .iter()
        .map(|p| p.parse().unwrap())
        .collect();
    let direct = plan
        .run(&fabric, &policies, &loss, LossReuse::Direct)
        .unwrap();
    let model = plan
        .run(
            &fabric,
            &policies,
            &loss,
            LossReuse::Model {
                points: 6,
                samples: 10,
            },
        )
        .unwrap();
    for (d, m) in direct.outcomes.iter().zip(&model.outcomes) {
        assert!(d.degraded_share > 0.0, "{d:?}");
        let gap = (d.total_share - m.total_share).abs();
        assert!(
            gap <= m.total_ci,
            "{:?}: direct {} model {} ± {}",
            d.policy,
            d.total_share,
            m.total_share,
            m.total_ci
        );
        assert_eq!(d.downtime_share, m.downtime_share);
    }
    // The model simulates a few dozen states (every state of one down cable, 10 of each
    // other count); the direct run, every distinct state visited.
    assert!(model.evaluations <= 10 * 5, "{}", model.evaluations);
    assert!(
        direct.evaluations > model.evaluations,
        "{} {}",
        direct.evaluations,
        model.evaluations
    );
}
