//! Feeding a message in arbitrary pieces, or copying it with the fused loop, gives the same
//! value as one call, for every algorithm, seed and split.

use fray_integrity::{
    checksum, copy_checksum, copy_checksum_with, copy_then_checksum, Algorithm, Checksummer,
    CopyStrategy,
};
use proptest::prelude::*;

fn algorithm() -> impl Strategy<Value = Algorithm> {
    (0..Algorithm::ALL.len()).prop_map(|i| Algorithm::ALL[i])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn pieces_equal_one_shot(
        a in algorithm(),
        data in proptest::collection::vec(any::<u8>(), 0..3000),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..6),
        seed in any::<u64>(),
    ) {
        let mut points: Vec<usize> = cuts.iter().map(|c| c.index(data.len() + 1)).collect();
        points.sort_unstable();
        let whole = checksum(&data, a, seed);
        let mut c = Checksummer::new(a, seed);
        let mut c2 = Checksummer::new(a, seed);
        let mut dst = vec![0u8; data.len()];
        let mut start = 0;
        for &p in points.iter().chain(std::iter::once(&data.len())) {
            c.update(&data[start..p]);
            c2.update_copy(&mut dst[start..p], &data[start..p]).unwrap();
            start = p;
        }
        prop_assert_eq!(c.value(), whole);
        prop_assert_eq!(c2.value(), whole);
        prop_assert_eq!(&dst, &data);
    }

    #[test]
    fn fused_and_blocked_equal_checksum(
        a in algorithm(),
        data in proptest::collection::vec(any::<u8>(), 0..20_000),
        offset in 0usize..8,
        seed in any::<u64>(),
    ) {
        // Unaligned source and destination slices.
        let src = &data[offset.min(data.len())..];
        let want = checksum(src, a, seed);
        for strategy in CopyStrategy::ALL {
            let mut backing = vec![0xAAu8; src.len() + 3];
            let dst = &mut backing[3..];
            prop_assert_eq!(copy_checksum_with(dst, src, a, seed, strategy).unwrap(), want);
            prop_assert_eq!(&*dst, src);
        }
        let mut dst = vec![0u8; src.len()];
        prop_assert_eq!(copy_then_checksum(&mut dst, src, a, seed).unwrap(), want);
    }
}

#[test]
fn large_buffers_cross_every_internal_block_size() {
    // Crosses the CRC-32C 3-lane rounds, the xxh3 1 KiB blocks and the Fletcher reductions,
    // up to a buffer larger than most caches.
    for len in [
        1535,
        1536,
        1537,
        4095,
        4096,
        16_385,
        65_537,
        1_000_003,
        (4 << 20) + 13,
    ] {
        let src: Vec<u8> = (0..len)
            .map(|i| ((i * 2_654_435_761usize) >> 13) as u8)
            .collect();
        for a in Algorithm::ALL {
            let mut dst = vec![0u8; len];
            assert_eq!(
                copy_checksum(&mut dst, &src, a, 7).unwrap(),
                checksum(&src, a, 7),
                "{a} at {len} bytes"
            );
            assert_eq!(dst, src);
        }
    }
}

#[test]
fn length_mismatch_is_an_error() {
    let mut dst = [0u8; 3];
    let e = copy_checksum(&mut dst, b"four", Algorithm::Crc32c, 0).unwrap_err();
    assert!(e.to_string().contains("dst"), "{e}");
}

#[test]
fn unknown_algorithm_names_the_field() {
    let e = "md5".parse::<Algorithm>().unwrap_err();
    let msg = e.to_string();
    assert!(msg.starts_with("algorithm:"), "{msg}");
    assert!(msg.contains("crc32c"), "{msg}");
    for a in Algorithm::ALL {
        assert_eq!(a.name().parse::<Algorithm>().unwrap(), a);
        assert_eq!(Algorithm::from_id(a.id()), Some(a));
    }
}

#[test]
fn adler32_seed_halves_are_reduced_on_every_path() {
    // 65521 is not a reduced Adler-32 half: it stands for 0, on the empty buffer too.
    for seed in [65_521u64, 65_521 << 16, (65_530 << 16) | 65_535] {
        for len in [0usize, 1, 7] {
            let src = vec![3u8; len];
            let mut dst = vec![0u8; len];
            assert_eq!(
                copy_checksum(&mut dst, &src, Algorithm::Adler32, seed).unwrap(),
                checksum(&src, Algorithm::Adler32, seed),
                "seed {seed:#x}, {len} bytes"
            );
        }
    }
}
