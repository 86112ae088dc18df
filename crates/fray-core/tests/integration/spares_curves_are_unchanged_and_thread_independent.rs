//! The sampled spare-node study gives, bit for bit, the curves recorded from the
//! straightforward implementation (see `tests/data/README.md`), on one thread and on two.

use fray_core::spares::{Curve, Study, StudyConfig};

fn curve_text(curve: &Curve) -> String {
    curve.rows.iter().map(|r| format!("{r}\n")).collect()
}

fn sampled(fabric: &str, seed: u64, sequences: u64, threads: usize) -> String {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let config =
            StudyConfig::from_specs(fabric, "3D(2,1)", "hybrid(all)", None, None, None).unwrap();
        let mut study = Study::new(config).unwrap();
        study.run_samples(seed, 0..sequences).unwrap();
        curve_text(study.curve())
    })
}

fn check(fabric: &str, seed: u64, sequences: u64, recorded: &str) {
    for threads in [1, 2] {
        let got = sampled(fabric, seed, sequences, threads);
        for (i, (g, r)) in got.lines().zip(recorded.lines()).enumerate() {
            assert_eq!(g, r, "{fabric} on {threads} threads, row {i}");
        }
        assert_eq!(got.lines().count(), recorded.lines().count(), "{fabric}");
    }
}

#[test]
fn torus_12_curve_is_the_recorded_one() {
    check(
        "torus:12x12x12",
        3,
        200,
        include_str!("../data/spares_curve_torus12_seed3_200.txt"),
    );
}

#[test]
fn torus_24_curve_is_the_recorded_one() {
    check(
        "torus:24x24x24",
        5,
        8,
        include_str!("../data/spares_curve_torus24_seed5_8.txt"),
    );
}
