//! Exhaustive results on the small meshes of the documentation (docs/spares.md), pinned, with
//! the closed forms that hold under the physical counting rule.

use crate::common;

use common::{exhaustive, study, worst_and_unrecoverable};
use std::sync::atomic::{AtomicU64, Ordering};

fn binomial(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

#[test]
fn every_failure_set_is_counted() {
    let s = exhaustive("mesh:7x7", "2D(2,1)", "1D", 4);
    for row in &s.curve().rows[1..] {
        assert_eq!(
            row.cases,
            binomial(36, row.failures as u64),
            "C(36, F) sets of F failed ranks"
        );
    }
    assert_eq!(s.curve().rows[0].cases, 1);
}

#[test]
fn the_progress_count_adds_up_to_every_set_in_parts_and_whole() {
    // 1D with four failures leaves some sets unrecoverable: their extensions are counted
    // without a walk, and the progress count must include them.
    let mut parts = study("mesh:7x7", "2D(2,1)", "1D", 4);
    let finished = AtomicU64::new(0);
    for roots in [0..5, 5..6, 6..36] {
        let before = finished.load(Ordering::Relaxed);
        parts
            .run_exhaustive_counted(roots.clone(), &finished)
            .unwrap();
        let sets = parts.exhaustive_cases(roots).unwrap();
        assert_eq!(u128::from(finished.load(Ordering::Relaxed) - before), sets);
    }
    let whole = exhaustive("mesh:7x7", "2D(2,1)", "1D", 4);
    assert!(whole.curve().rows[4].unrecoverable > 0);
    assert_eq!(parts.curve(), whole.curve());
}

#[test]
fn zero_d_with_one_spare_column() {
    // One failure: the substitute's four messages leave along its row (x first), so the
    // channel next to it carries them plus the row's own message: 5 (the paper's Figure 4).
    assert_eq!(
        worst_and_unrecoverable(&exhaustive("mesh:11x5", "2D(1,1)", "0D", 5)),
        vec![(5, 0), (5, 0), (7, 0), (9, 0), (10, 0)]
    );
    assert_eq!(
        worst_and_unrecoverable(&exhaustive("mesh:7x7", "2D(1,1)", "0D", 5)),
        vec![(5, 0), (5, 0), (6, 0), (7, 0), (9, 0)]
    );
}

#[test]
fn one_d_with_two_spare_sides() {
    // 2 + F for F <= 2 (the paper's 1D formula), then the sliding planes saturate at 4; the
    // fourth failure is not always recoverable (the paper: "up to three failures perfectly").
    for fabric in ["mesh:11x5", "mesh:7x7"] {
        let r = worst_and_unrecoverable(&exhaustive(fabric, "2D(2,1)", "1D", 4));
        assert_eq!(r[..3], [(3, 0), (4, 0), (4, 0)], "{fabric}");
        assert!(
            r[3].1 > 0,
            "{fabric}: some 4-failure sets are unrecoverable"
        );
    }
}

#[test]
fn hybrid_all_recovers_everything_without_collision_for_two_failures() {
    assert_eq!(
        worst_and_unrecoverable(&exhaustive("mesh:11x5", "2D(2,1)", "hybrid(all)", 4)),
        vec![(1, 0), (1, 0), (3, 0), (5, 0)]
    );
    assert_eq!(
        worst_and_unrecoverable(&exhaustive("mesh:7x7", "2D(2,1)", "hybrid(all)", 4)),
        vec![(1, 0), (1, 0), (3, 0), (5, 0)]
    );
}
