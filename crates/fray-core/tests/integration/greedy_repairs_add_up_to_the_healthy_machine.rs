//! Greedy cumulative repairs: repairing every listed cable gives back the healthy machine
//! exactly, the steps' gains add up to the curve, and the lazy search takes the exact
//! search's first step.

use crate::common::faults::random_cables;

use crate::common::links::halo_study;

use fray_core::fabric::Fabric;
use fray_core::links::{DownCables, LinksStudy};

fn study(fabric: &Fabric) -> LinksStudy {
    let faults = random_cables(fabric, "global", 0.3, 9);
    LinksStudy {
        down: DownCables {
            text: faults.down_cables_file(fabric),
            file: "down.txt".into(),
        },
        ..halo_study(3, 2)
    }
}

#[test]
fn every_repair_made_gives_the_healthy_machine_and_the_gains_add_up() {
    let fabric = Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap();
    let s = study(&fabric);
    let cables = s.listed_cables().len();
    assert!(cables >= 8, "{cables}");
    for exact in [false, true] {
        let steps = s.greedy_repairs(&fabric, 1, cables, exact).unwrap();
        assert_eq!(steps.len(), cables + 1);
        let last = steps.last().unwrap();
        assert!((last.throughput_pct - 100.0).abs() < 1e-9, "{last:?}");
        assert!(last.throughput_ci_pct.abs() < 1e-9);
        let gained: f64 = steps.iter().map(|s| s.gain_pct).sum();
        assert!((steps[0].throughput_pct + gained - 100.0).abs() < 1e-9);
        let mut names: Vec<&str> = steps[1..].iter().map(|s| s.cable.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), cables, "each cable repaired once");
    }
    let lazy = s.greedy_repairs(&fabric, 1, 1, false).unwrap();
    let exact = s.greedy_repairs(&fabric, 1, 1, true).unwrap();
    assert_eq!(lazy, exact);
}
