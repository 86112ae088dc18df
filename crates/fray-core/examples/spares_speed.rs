//! How fast the sampled spare-node study runs: the paper's set-up (`3D(2,1)`, `hybrid(all)`,
//! the periodic 7-point stencil, failures up to the number of spares) on a torus, with a
//! given number of random failure sequences. Prints the time, the evaluation rate and a
//! digest of the whole curve (every column of every row), or with `--rows` the rows
//! themselves.
//!
//! `cargo run --release -p fray-core --example spares_speed [SPEC] [SEQUENCES] [SEED] [--rows]`

use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Instant;

use fray_core::spares::{Study, StudyConfig};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rows = args.iter().any(|a| a == "--rows");
    let mut pos = args.iter().filter(|a| !a.starts_with("--"));
    let spec = pos
        .next()
        .map_or("torus:24x24x24", String::as_str)
        .to_string();
    let samples: u64 = pos.next().map_or(3300, |s| s.parse().unwrap());
    let seed: u64 = pos.next().map_or(1, |s| s.parse().unwrap());
    let config =
        StudyConfig::from_specs(&spec, "3D(2,1)", "hybrid(all)", None, None, None).unwrap();
    let t = Instant::now();
    let mut study = Study::new(config).unwrap();
    let setup_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    study.run_samples(seed, 0..samples).unwrap();
    let run_s = t.elapsed().as_secs_f64();
    let evaluations: u64 = study.curve().rows[1..].iter().map(|r| r.recovered()).sum();
    let mut h = DefaultHasher::new();
    for r in &study.curve().rows {
        (r.failures, r.cases, r.unrecoverable, r.best, r.worst, r.sum).hash(&mut h);
        r.last_degree.hash(&mut h);
        r.all_degrees.hash(&mut h);
        if rows {
            println!("{r}");
        }
    }
    println!(
        "{spec} seed {seed}: {samples} sequences, {evaluations} evaluations on {} threads: setup {setup_s:.3} s, run {run_s:.3} s ({:.0} evaluations/s), curve digest {:016x}",
        rayon::current_num_threads(),
        evaluations as f64 / run_s,
        h.finish()
    );
}
