//! A sampled spare-node study (which counts a full-degree slide shared by several cases only
//! once) gives the curve of its cases replayed one by one from the fault-free job, on
//! allocations where several full-degree slides come first.

use fray_core::seeds::case_seed;
use fray_core::spares::{CurveRow, Study, StudyConfig};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The curve rows as text, from `Study::run_samples`.
fn sampled(config: &StudyConfig, seed: u64, cases: u64) -> Vec<String> {
    let mut study = Study::new(config.clone()).unwrap();
    study.run_samples(seed, 0..cases).unwrap();
    study.curve().rows.iter().map(ToString::to_string).collect()
}

/// The same rows, from each case's failures drawn as the study documents it and replayed.
fn replayed(config: &StudyConfig, seed: u64, cases: u64) -> Vec<String> {
    let study = Study::new(config.clone()).unwrap();
    let (ranks, max_f) = (study.num_ranks(), study.max_failures());
    let degrees = config.shape.num_dims() + 1;
    let base = study.baseline_collisions();
    let mut rows: Vec<CurveRow> = (0..=max_f).map(|f| CurveRow::new(f, degrees)).collect();
    rows[0].cases = cases;
    rows[0].best = base;
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
                    row.best = row.best.min(collisions);
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
    rows.iter().map(ToString::to_string).collect()
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
