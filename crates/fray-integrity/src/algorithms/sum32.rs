//! Sum of little-endian 32-bit words modulo 2^32 (the paper's "sum", a speed reference).
//!
//! Seed: the initial accumulator (low 32 bits). The tail is zero-padded to a word.

use crate::words::{le32, WordFold};

/// Running sum of 32-bit words.
#[derive(Clone)]
pub(crate) struct Sum32 {
    acc: u32,
}

impl Sum32 {
    /// A fresh state; `seed` (low 32 bits) is the initial sum.
    pub(crate) fn new(seed: u64) -> Self {
        Sum32 { acc: seed as u32 }
    }
}

#[inline(always)]
fn fold_copy_body(acc: u32, dst: &mut [u8], src: &[u8]) -> u32 {
    let mut a = acc;
    for (d, s) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
        let w = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
        a = a.wrapping_add(w);
        d.copy_from_slice(&w.to_le_bytes());
    }
    a
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fold_copy_avx2(acc: u32, dst: &mut [u8], src: &[u8]) -> u32 {
    fold_copy_body(acc, dst, src)
}

impl WordFold for Sum32 {
    fn fold(&mut self, src: &[u8]) {
        let mut a = self.acc;
        for s in src.chunks_exact(4) {
            a = a.wrapping_add(u32::from_le_bytes([s[0], s[1], s[2], s[3]]));
        }
        self.acc = a;
    }

    fn fold_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            self.acc = unsafe { fold_copy_avx2(self.acc, dst, src) };
            return;
        }
        self.acc = fold_copy_body(self.acc, dst, src);
    }

    fn finish(&self, tail: &[u8], _total_bytes: u64) -> u64 {
        let mut word = [0u8; 4];
        word[..tail.len()].copy_from_slice(tail);
        u64::from(self.acc.wrapping_add(le32(&word, 0)))
    }
}
