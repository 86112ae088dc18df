//! A sampled spare-node study (which counts a full-degree slide shared by several cases only
//! once) gives the curve of its cases replayed one by one from the fault-free job, on
//! allocations where several full-degree slides come first.

use fray_core::seeds::case_seed;
use fray_core::spares::{Study, StudyConfig};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The curve rows as text, from `Study::run_samples`.
fn sampled(config: &StudyConfig, seed: u64, cases: u64) -> Vec<String> {
    let mut study = Study::new(config.clone()).unwrap();
    study.run_samples(seed, 0..cases);
    study
        .curve()
        .rows
        .iter()
        .map(|r| {
            format!(
                "{} {} {} {} {} {} {:?} {:?}",
                r.failures,
                r.cases,
                r.unrecoverable,
                r.best,
                r.worst,
                r.sum,
                r.last_degree,
                r.all_degrees
            )
        })
        .collect()
}

/// One row of a curve, summed case by case.
#[derive(Clone, Default)]
struct Row {
    cases: u64,
    unrecoverable: u64,
    best: Option<u32>,
    worst: u32,
    sum: u64,
    last_degree: Vec<u64>,
    all_degrees: Vec<u64>,
}

/// The same rows, from each case's failures drawn as the study documents it and replayed.
fn replayed(config: &StudyConfig, seed: u64, cases: u64) -> Vec<String> {
    let study = Study::new(config.clone()).unwrap();
    let (ranks, max_f) = (study.num_ranks(), study.max_failures());
    let degrees = config.shape.num_dims() + 1;
    let base = study.baseline_collisions();
    let empty = Row {
        last_degree: vec![0; degrees],
        all_degrees: vec![0; degrees],
        ..Row::default()
    };
    let mut rows = vec![empty; max_f + 1];
    rows[0].cases = cases;
    rows[0].best = Some(base);
    rows[0].worst = base;
    rows[0].sum = cases * u64::from(base);
    for case in 0..cases {
        let mut rng = Pcg64Mcg::seed_from_u64(case_seed(seed, case));
        let mut order: Vec<u32> = (0..ranks as u32).collect();
        for f in 1..=max_f {
            let pick = rng.random_range(f - 1..ranks);
            order.swap(f - 1, pick);
        }
        let steps = study.replay(&order[..max_f]).unwrap();
        let mut counts = vec![0u64; degrees];
        for (f, row) in rows.iter_mut().enumerate().skip(1) {
            row.cases += 1;
            match steps.get(f - 1).copied().flatten() {
                Some((degree, collisions)) => {
                    counts[degree] += 1;
                    row.best = Some(row.best.map_or(collisions, |b| b.min(collisions)));
                    row.worst = row.worst.max(collisions);
                    row.sum += u64::from(collisions);
                    row.last_degree[degree] += 1;
                    for (a, c) in row.all_degrees.iter_mut().zip(&counts) {
                        *a += c;
                    }
                }
                None => row.unrecoverable += 1,
            }
        }
    }
    rows.iter()
        .enumerate()
        .map(|(f, r)| {
            format!(
                "{f} {} {} {} {} {} {:?} {:?}",
                r.cases,
                r.unrecoverable,
                r.best.unwrap_or(u32::MAX),
                r.worst,
                r.sum,
                r.last_degree,
                r.all_degrees
            )
        })
        .collect()
}

#[test]
fn sampled_curves_are_the_replayed_ones() {
    for (fabric, alloc, method, seed, cases) in [
        // Two spare layers on each side: up to four full-degree slides lead every case.
        ("mesh:9x8", "2D(2,2)", "hybrid(all)", 3, 60),
        ("torus:8x7", "2D(2,2)", "2D", 5, 60),
        ("torus:6x5x4", "3D(2,1)", "hybrid(all)", 7, 40),
        ("torus:6x5x4", "3D(3,1)", "hybrid(3D+0D)", 9, 40),
    ] {
        let config = StudyConfig::from_specs(fabric, alloc, method, None, None, None).unwrap();
        let (got, want) = (
            sampled(&config, seed, cases),
            replayed(&config, seed, cases),
        );
        assert_eq!(got, want, "{fabric} {alloc} {method}");
    }
}
