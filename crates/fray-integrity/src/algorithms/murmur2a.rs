//! MurmurHash2A (Austin Appleby's incremental MurmurHash2 variant), 32-bit.
//!
//! Seed: the initial hash, as in SMHasher's `MurmurHash2A(key, len, seed)`.

use crate::words::WordFold;

const M: u32 = 0x5bd1_e995;
const R: u32 = 24;

#[inline(always)]
fn mmix(h: u32, mut k: u32) -> u32 {
    k = k.wrapping_mul(M);
    k ^= k >> R;
    k = k.wrapping_mul(M);
    h.wrapping_mul(M) ^ k
}

/// The running hash.
#[derive(Clone)]
pub(crate) struct Murmur2a {
    h: u32,
}

impl Murmur2a {
    /// A fresh state; `seed` (low 32 bits) is the initial hash.
    pub(crate) fn new(seed: u64) -> Self {
        Murmur2a { h: seed as u32 }
    }
}

impl WordFold for Murmur2a {
    fn fold(&mut self, src: &[u8]) {
        let mut h = self.h;
        for s in src.chunks_exact(4) {
            h = mmix(h, u32::from_le_bytes([s[0], s[1], s[2], s[3]]));
        }
        self.h = h;
    }

    fn fold_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        let mut h = self.h;
        for (d, s) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
            let w = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
            h = mmix(h, w);
            d.copy_from_slice(&w.to_le_bytes());
        }
        self.h = h;
    }

    fn finish(&self, tail: &[u8], total_bytes: u64) -> u64 {
        let mut t: u32 = 0;
        for (i, &b) in tail.iter().enumerate() {
            t ^= u32::from(b) << (8 * i);
        }
        let mut h = mmix(self.h, t);
        h = mmix(h, total_bytes as u32);
        h ^= h >> 13;
        h = h.wrapping_mul(M);
        h ^= h >> 15;
        u64::from(h)
    }
}
