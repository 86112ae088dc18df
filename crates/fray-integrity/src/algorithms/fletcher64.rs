//! Fletcher-64: two running sums of little-endian 32-bit words modulo 2^32 - 1.
//!
//! Value = `sum2 << 32 | sum1`, as on the Wikipedia reference page ("abcde" gives
//! `0xc8c6c527646362c6`). The tail is zero-padded to a word. Seed: the initial
//! `sum2 << 32 | sum1`, so a previous Fletcher-64 value continues a word-aligned stream.

use crate::words::{le32, WordFold};

const MOD: u64 = 0xFFFF_FFFF;
/// Words summed in u64 before a reduction; 4096 words keep `sum2` below 2^57.
const BLOCK_WORDS: usize = 4096;

/// The two sums, each kept reduced modulo 2^32 - 1 between blocks.
#[derive(Clone)]
pub(crate) struct Fletcher64 {
    sum1: u64,
    sum2: u64,
}

impl Fletcher64 {
    /// A fresh state; `seed` gives the initial `sum2 << 32 | sum1`.
    pub(crate) fn new(seed: u64) -> Self {
        Fletcher64 {
            sum1: (seed & MOD) % MOD,
            sum2: (seed >> 32) % MOD,
        }
    }
}

impl WordFold for Fletcher64 {
    fn fold(&mut self, src: &[u8]) {
        let (mut s1, mut s2) = (self.sum1, self.sum2);
        for block in src.chunks(BLOCK_WORDS * 4) {
            for w in block.chunks_exact(4) {
                s1 += u64::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
                s2 += s1;
            }
            s1 %= MOD;
            s2 %= MOD;
        }
        self.sum1 = s1;
        self.sum2 = s2;
    }

    fn fold_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        let (mut s1, mut s2) = (self.sum1, self.sum2);
        for (db, sb) in dst
            .chunks_mut(BLOCK_WORDS * 4)
            .zip(src.chunks(BLOCK_WORDS * 4))
        {
            for (d, s) in db.chunks_exact_mut(4).zip(sb.chunks_exact(4)) {
                let w = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
                s1 += u64::from(w);
                s2 += s1;
                d.copy_from_slice(&w.to_le_bytes());
            }
            s1 %= MOD;
            s2 %= MOD;
        }
        self.sum1 = s1;
        self.sum2 = s2;
    }

    fn finish(&self, tail: &[u8], _total_bytes: u64) -> u64 {
        let (mut s1, mut s2) = (self.sum1, self.sum2);
        if !tail.is_empty() {
            let mut word = [0u8; 4];
            word[..tail.len()].copy_from_slice(tail);
            s1 = (s1 + u64::from(le32(&word, 0))) % MOD;
            s2 = (s2 + s1) % MOD;
        }
        (s2 << 32) | s1
    }
}
