//! Knuth's multiplicative hash over little-endian 32-bit words.
//!
//! For each word `w`: `h = (h ^ w) * 2654435761 mod 2^32` (the golden-ratio multiplier of
//! TAOCP vol. 3, 6.4). The zero-padded tail is one more word, then the byte length (mod 2^32)
//! is folded the same way so that trailing zero bytes change the value. Each step is a
//! bijection of `h`, so any change confined to one word is always detected.
//! Seed: the initial `h` (low 32 bits).

use crate::words::{le32, WordFold};

/// Knuth's multiplier, floor(2^32 / golden ratio) rounded to an odd prime.
pub(crate) const KNUTH: u32 = 2_654_435_761;

/// The running hash.
#[derive(Clone)]
pub(crate) struct Knuth {
    h: u32,
}

impl Knuth {
    /// A fresh state; `seed` (low 32 bits) is the initial hash.
    pub(crate) fn new(seed: u64) -> Self {
        Knuth { h: seed as u32 }
    }
}

impl WordFold for Knuth {
    fn fold(&mut self, src: &[u8]) {
        let mut h = self.h;
        for s in src.chunks_exact(4) {
            h = (h ^ u32::from_le_bytes([s[0], s[1], s[2], s[3]])).wrapping_mul(KNUTH);
        }
        self.h = h;
    }

    fn fold_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        let mut h = self.h;
        for (d, s) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
            let w = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
            h = (h ^ w).wrapping_mul(KNUTH);
            d.copy_from_slice(&w.to_le_bytes());
        }
        self.h = h;
    }

    fn finish(&self, tail: &[u8], total_bytes: u64) -> u64 {
        let mut h = self.h;
        if !tail.is_empty() {
            let mut word = [0u8; 4];
            word[..tail.len()].copy_from_slice(tail);
            h = (h ^ le32(&word, 0)).wrapping_mul(KNUTH);
        }
        h = (h ^ total_bytes as u32).wrapping_mul(KNUTH);
        u64::from(h)
    }
}
