//! Bob Jenkins' one-at-a-time hash (Dr Dobb's, 1997).
//!
//! Seed: the initial hash, as in SMHasher's `JenkinsOOAT_perl` (the classic form: add the
//! byte, then mix; final avalanche after the last byte).

use crate::algorithms::bytewise::copy_fold_bytes;
use crate::kernel::Kernel;

/// The running hash.
#[derive(Clone)]
pub(crate) struct Jenkins {
    h: u32,
}

impl Jenkins {
    /// A fresh state; `seed` (low 32 bits) is the initial hash.
    pub(crate) fn new(seed: u64) -> Self {
        Jenkins { h: seed as u32 }
    }
}

#[inline(always)]
fn mix(mut h: u32, b: u8) -> u32 {
    h = h.wrapping_add(u32::from(b));
    h = h.wrapping_add(h << 10);
    h ^ (h >> 6)
}

impl Kernel for Jenkins {
    fn update(&mut self, data: &[u8]) {
        let mut h = self.h;
        for &b in data {
            h = mix(h, b);
        }
        self.h = h;
    }

    fn update_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        let mut h = self.h;
        copy_fold_bytes(dst, src, |b| h = mix(h, b));
        self.h = h;
    }

    fn finish(&self) -> u64 {
        let mut h = self.h;
        h = h.wrapping_add(h << 3);
        h ^= h >> 11;
        h = h.wrapping_add(h << 15);
        u64::from(h)
    }
}
