//! FNV-1a, 32-bit and 64-bit (Fowler, Noll, Vo).
//!
//! Seed: XORed into the offset basis, as in SMHasher's `FNV32a`/`FNV64a`; seed 0 gives the
//! standard FNV-1a.

use crate::algorithms::bytewise::copy_fold_bytes;
use crate::kernel::Kernel;

const OFFSET32: u32 = 0x811c_9dc5;
const PRIME32: u32 = 0x0100_0193;
const OFFSET64: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME64: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a 32-bit state.
#[derive(Clone)]
pub(crate) struct Fnv1a32 {
    h: u32,
}

impl Fnv1a32 {
    /// A fresh state; `seed` (low 32 bits) is XORed into the offset basis.
    pub(crate) fn new(seed: u64) -> Self {
        Fnv1a32 {
            h: (seed as u32) ^ OFFSET32,
        }
    }
}

impl Kernel for Fnv1a32 {
    fn update(&mut self, data: &[u8]) {
        let mut h = self.h;
        for &b in data {
            h = (h ^ u32::from(b)).wrapping_mul(PRIME32);
        }
        self.h = h;
    }

    fn update_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        let mut h = self.h;
        copy_fold_bytes(dst, src, |b| h = (h ^ u32::from(b)).wrapping_mul(PRIME32));
        self.h = h;
    }

    fn finish(&self) -> u64 {
        u64::from(self.h)
    }
}

/// FNV-1a 64-bit state.
#[derive(Clone)]
pub(crate) struct Fnv1a64 {
    h: u64,
}

impl Fnv1a64 {
    /// A fresh state; `seed` is XORed into the offset basis.
    pub(crate) fn new(seed: u64) -> Self {
        Fnv1a64 { h: seed ^ OFFSET64 }
    }
}

impl Kernel for Fnv1a64 {
    fn update(&mut self, data: &[u8]) {
        let mut h = self.h;
        for &b in data {
            h = (h ^ u64::from(b)).wrapping_mul(PRIME64);
        }
        self.h = h;
    }

    fn update_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        let mut h = self.h;
        copy_fold_bytes(dst, src, |b| h = (h ^ u64::from(b)).wrapping_mul(PRIME64));
        self.h = h;
    }

    fn finish(&self) -> u64 {
        self.h
    }
}
