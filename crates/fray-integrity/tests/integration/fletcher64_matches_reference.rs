//! The vectorised Fletcher-64 (eight lanes, blocks of 4096 words) equals the textbook
//! word-by-word definition on long buffers, where the published vectors are too short to reach.

use fray_integrity::{checksum, copy_checksum, Algorithm};
use proptest::prelude::*;

/// Fletcher-64 as defined: both sums modulo 2^32 - 1, one little-endian word at a time, the
/// tail zero-padded to a word.
fn reference(data: &[u8]) -> u64 {
    const MOD: u64 = 0xFFFF_FFFF;
    let (mut s1, mut s2) = (0u64, 0u64);
    for w in data.chunks(4) {
        let mut word = [0u8; 4];
        word[..w.len()].copy_from_slice(w);
        s1 = (s1 + u64::from(u32::from_le_bytes(word))) % MOD;
        s2 = (s2 + s1) % MOD;
    }
    (s2 << 32) | s1
}

proptest! {
    #[test]
    fn equals_the_definition(len in 0usize..70_000, seed in any::<u64>()) {
        let data: Vec<u8> = (0..len).map(|i| (seed.wrapping_mul(i as u64 + 1) >> 29) as u8).collect();
        prop_assert_eq!(checksum(&data, Algorithm::Fletcher64, 0), reference(&data));
        let mut dst = vec![0u8; len];
        prop_assert_eq!(copy_checksum(&mut dst, &data, Algorithm::Fletcher64, 0).unwrap(), reference(&data));
        prop_assert_eq!(dst, data);
    }
}

#[test]
fn all_ones_words_stay_reduced() {
    // 0xFFFFFFFF words are congruent to 0 modulo 2^32 - 1: the largest inputs, the same sums.
    let data = vec![0xFFu8; 3 * 4096 * 4 + 36];
    assert_eq!(checksum(&data, Algorithm::Fletcher64, 0), reference(&data));
}

#[test]
fn large_copies_at_any_destination_alignment() {
    // Past 4 MiB the copy streams past the cache from a 32-byte boundary; a destination that
    // is not word-aligned keeps ordinary stores.
    let len = (5 << 20) + 7;
    let src: Vec<u8> = (0..len)
        .map(|i| (i as u64).wrapping_mul(0x9E37_79B9) as u8)
        .collect();
    let want = reference(&src);
    for offset in [0, 1, 4, 12, 28] {
        let mut buf = vec![0u8; len + offset];
        let dst = &mut buf[offset..];
        assert_eq!(
            copy_checksum(dst, &src, Algorithm::Fletcher64, 0).unwrap(),
            want,
            "offset {offset}"
        );
        assert!(dst == &src[..], "offset {offset}");
    }
}
