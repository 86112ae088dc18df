//! A spare study's entry points that take ranks refuse ranks outside the job, rather than
//! indexing past it (a panic) or counting sets below rank 0 (a wrapped-round number).

use crate::common::study;

#[test]
fn placement_after_refuses_a_rank_outside_the_job_or_failed_twice() {
    let s = study("mesh:8x8", "2D(2,1)", "0D", 3);
    let n = s.num_ranks() as u32;
    for ranks in [vec![n], vec![1_000_000], vec![0, 0]] {
        let err = s.placement_after(&ranks).unwrap_err().to_string();
        assert!(err.starts_with("ranks: rank "), "{err}");
    }
    assert_eq!(
        s.placement_after(&[]).unwrap().rank_nodes().len(),
        n as usize
    );
}

#[test]
fn exhaustive_ranges_must_lie_within_the_job() {
    let mut s = study("mesh:6x5", "2D(2,1)", "0D", 2);
    let n = s.num_ranks() as u32;
    assert!(s.exhaustive_cases(0..n).unwrap() > 0);
    assert_eq!(s.exhaustive_cases(3..3).unwrap(), 0);
    #[allow(
        clippy::reversed_empty_ranges,
        reason = "a reversed range is what is refused"
    )]
    let reversed = 5..2;
    for roots in [0..n + 1, reversed, n..n + 1] {
        let err = s.exhaustive_cases(roots.clone()).unwrap_err().to_string();
        assert!(err.starts_with("roots: "), "{err}");
        let err = s.run_exhaustive(roots).unwrap_err().to_string();
        assert!(err.starts_with("roots: "), "{err}");
    }
    assert_eq!(s.curve().rows[0].cases, 0, "a refused range runs nothing");
}

#[test]
fn more_failures_than_ranks_are_refused_and_the_default_stops_at_the_ranks() {
    // 2D(1,5) on an 8x8 mesh leaves 40 spares for 24 ranks: the 25th failure had no rank
    // left to draw (a panic: "cannot sample empty range").
    use fray_core::spares::{Study, StudyConfig};
    let config = |max| StudyConfig::from_specs("mesh:8x8", "2D(1,5)", "0D", None, None, max);
    let err = Study::new(config(Some(25)).unwrap()).err().unwrap();
    assert_eq!(
        err.to_string(),
        "max_failures: 25 failures but the job has only 24 ranks (each fails once)"
    );
    let mut s = Study::new(config(None).unwrap()).unwrap();
    assert_eq!(s.max_failures(), 24);
    s.run_samples(1, 0..5).unwrap();
    assert_eq!(s.curve().rows[24].cases, 5);
}
