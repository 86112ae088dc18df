//! Paul Hsieh's SuperFastHash, 32-bit, in its incremental form `SuperFastHash(data, len, hash)`.
//!
//! Seed: the initial hash, as in SMHasher (rurban) where `SuperFastHash_test` passes the seed
//! as `hash`; Hsieh's original one-shot form is the seed equal to the length. As in the
//! reference, an empty input hashes to 0, and the tail bytes are read as C `char` (signed on
//! x86), which matters for bytes >= 0x80.

use crate::words::WordFold;

/// The running hash.
#[derive(Clone)]
pub(crate) struct SuperFastHash {
    h: u32,
}

impl SuperFastHash {
    /// A fresh state; `seed` (low 32 bits) is the initial hash.
    pub(crate) fn new(seed: u64) -> Self {
        SuperFastHash { h: seed as u32 }
    }
}

#[inline(always)]
fn step(mut hash: u32, lo: u32, hi: u32) -> u32 {
    hash = hash.wrapping_add(lo);
    let tmp = (hi << 11) ^ hash;
    hash = (hash << 16) ^ tmp;
    hash.wrapping_add(hash >> 11)
}

impl WordFold for SuperFastHash {
    fn fold(&mut self, src: &[u8]) {
        let mut h = self.h;
        for s in src.chunks_exact(4) {
            h = step(
                h,
                u32::from(u16::from_le_bytes([s[0], s[1]])),
                u32::from(u16::from_le_bytes([s[2], s[3]])),
            );
        }
        self.h = h;
    }

    fn fold_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        let mut h = self.h;
        for (d, s) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
            let w = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
            h = step(h, w & 0xFFFF, w >> 16);
            d.copy_from_slice(&w.to_le_bytes());
        }
        self.h = h;
    }

    fn finish(&self, tail: &[u8], total_bytes: u64) -> u64 {
        if total_bytes == 0 {
            return 0;
        }
        let mut hash = self.h;
        let signed = |b: u8| (b as i8) as i32 as u32;
        match tail.len() {
            3 => {
                hash = hash.wrapping_add(u32::from(u16::from_le_bytes([tail[0], tail[1]])));
                hash ^= hash << 16;
                hash ^= signed(tail[2]) << 18;
                hash = hash.wrapping_add(hash >> 11);
            }
            2 => {
                hash = hash.wrapping_add(u32::from(u16::from_le_bytes([tail[0], tail[1]])));
                hash ^= hash << 11;
                hash = hash.wrapping_add(hash >> 17);
            }
            1 => {
                hash = hash.wrapping_add(signed(tail[0]));
                hash ^= hash << 10;
                hash = hash.wrapping_add(hash >> 1);
            }
            _ => {}
        }
        hash ^= hash << 3;
        hash = hash.wrapping_add(hash >> 5);
        hash ^= hash << 4;
        hash = hash.wrapping_add(hash >> 17);
        hash ^= hash << 25;
        hash = hash.wrapping_add(hash >> 6);
        u64::from(hash)
    }
}
