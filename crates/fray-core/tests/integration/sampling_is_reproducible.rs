//! Sampled studies: the same seed gives the same curve whatever the split into chunks;
//! exhaustive enumeration (depth-first with undo) agrees with replaying every set.

use crate::common;

use common::study;

#[test]
fn same_seed_same_curve_whatever_the_chunks() {
    let mut whole = study("torus:6x6x6", "3D(2,1)", "hybrid(all)", 30);
    whole.run_samples(7, 0..200).unwrap();
    let mut split = study("torus:6x6x6", "3D(2,1)", "hybrid(all)", 30);
    split.run_samples(7, 0..13).unwrap();
    split.run_samples(7, 13..150).unwrap();
    split.run_samples(7, 150..200).unwrap();
    assert_eq!(whole.curve(), split.curve());
    let mut other = study("torus:6x6x6", "3D(2,1)", "hybrid(all)", 30);
    other.run_samples(8, 0..200).unwrap();
    assert_ne!(
        whole.curve(),
        other.curve(),
        "another seed draws other failures"
    );
    assert_eq!(whole.curve().rows[0].cases, 200);
}

#[test]
fn a_range_longer_than_one_batch_gives_the_same_curve() {
    // `run_samples` holds at most 2^18 cases at once; a longer range runs in batches.
    let cases = (1 << 18) + 5;
    let mut whole = study("mesh:4x4", "2D(1,1)", "0D", 1);
    whole.run_samples(3, 0..cases).unwrap();
    let mut split = study("mesh:4x4", "2D(1,1)", "0D", 1);
    split.run_samples(3, 0..100_000).unwrap();
    split.run_samples(3, 100_000..cases).unwrap();
    assert_eq!(whole.curve(), split.curve());
    assert_eq!(whole.curve().rows[0].cases, cases);
}

#[test]
fn exhaustive_agrees_with_replaying_every_set() {
    for method in ["hybrid(all)", "1D", "0D"] {
        let mut s = study("mesh:6x5", "2D(2,1)", method, 3);
        s.run_exhaustive(0..s.num_ranks() as u32).unwrap();
        let n = s.num_ranks() as u32;
        let (mut worst, mut sum, mut unrecoverable) = (0u32, 0u64, 0u64);
        for a in 0..n {
            for b in a + 1..n {
                for c in b + 1..n {
                    match s.replay(&[a, b, c]).unwrap().get(2) {
                        Some(Some((_, collisions))) => {
                            worst = worst.max(*collisions);
                            sum += u64::from(*collisions);
                        }
                        _ => unrecoverable += 1,
                    }
                }
            }
        }
        let row = &s.curve().rows[3];
        assert_eq!(
            (row.worst, row.sum, row.unrecoverable),
            (worst, sum, unrecoverable),
            "{method}"
        );
    }
}
