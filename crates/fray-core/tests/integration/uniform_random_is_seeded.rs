//! Uniform random traffic: one message per rank per iteration to another rank, drawn from
//! the seed (same seed, same DAG; different seed, different DAG).

use fray_core::workload::{Motif, Op, UniformRandom};

fn motif(seed: u64) -> UniformRandom {
    UniformRandom {
        ranks: 50,
        size_bytes: 4096.0,
        compute_s: 1e-5,
        iterations: 20,
        seed,
    }
}

fn destinations(seed: u64) -> Vec<(u32, u32)> {
    motif(seed)
        .dag()
        .unwrap()
        .ops()
        .iter()
        .filter_map(|op| match *op {
            Op::Send { src, dst, .. } => Some((src, dst)),
            _ => None,
        })
        .collect()
}

#[test]
fn same_seed_same_dag_different_seed_different_dag() {
    assert_eq!(motif(3).dag().unwrap(), motif(3).dag().unwrap());
    assert_ne!(destinations(3), destinations(4));
}

#[test]
fn every_rank_sends_once_per_iteration_never_to_itself() {
    for seed in 0..20 {
        let sends = destinations(seed);
        assert_eq!(sends.len(), 50 * 20);
        for (i, &(src, dst)) in sends.iter().enumerate() {
            assert_eq!(src as usize, i % 50);
            assert_ne!(src, dst);
            assert!(dst < 50);
        }
    }
    let dag = motif(0).dag().unwrap();
    assert_eq!(dag.total_bytes(), 4096.0 * 50.0 * 20.0);
}

#[test]
fn every_other_rank_is_drawn() {
    // 2000 draws per sender over 3 ranks: each of the 2 others about half the time.
    let m = UniformRandom {
        ranks: 3,
        size_bytes: 1.0,
        compute_s: 0.0,
        iterations: 2000,
        seed: 11,
    };
    let mut counts = [[0u32; 3]; 3];
    for op in m.dag().unwrap().ops() {
        if let Op::Send { src, dst, .. } = *op {
            counts[src as usize][dst as usize] += 1;
        }
    }
    for (src, row) in counts.iter().enumerate() {
        for (dst, &c) in row.iter().enumerate() {
            if src == dst {
                assert_eq!(c, 0);
            } else {
                assert!((900..1100).contains(&c), "{src}->{dst}: {c}");
            }
        }
    }
}

#[test]
fn one_rank_is_an_error() {
    let mut m = motif(0);
    m.ranks = 1;
    let err = m.dag().unwrap_err().to_string();
    assert!(err.contains("uniform_random ranks"), "{err}");
}
