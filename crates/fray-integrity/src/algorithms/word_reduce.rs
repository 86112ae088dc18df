//! Reductions of little-endian 32-bit words: the paper's "sum" (modulo 2^32) and "XOR", kept
//! as speed references (both miss double-bit errors).
//!
//! Seed: the initial accumulator (low 32 bits). The tail is zero-padded to a word.

use std::marker::PhantomData;

use crate::words::{le32, WordFold};

/// How one word joins the accumulator.
pub(crate) trait WordOp: Clone {
    /// The accumulator after folding in `word`.
    fn combine(acc: u32, word: u32) -> u32;
}

/// Wrapping addition: the 32-bit word sum.
#[derive(Clone)]
pub(crate) struct Add;

impl WordOp for Add {
    #[inline(always)]
    fn combine(acc: u32, word: u32) -> u32 {
        acc.wrapping_add(word)
    }
}

/// Exclusive or: the 32-bit word XOR.
#[derive(Clone)]
pub(crate) struct Xor;

impl WordOp for Xor {
    #[inline(always)]
    fn combine(acc: u32, word: u32) -> u32 {
        acc ^ word
    }
}

/// Running reduction of 32-bit words with `Op`.
#[derive(Clone)]
pub(crate) struct WordReduce<Op: WordOp> {
    acc: u32,
    op: PhantomData<Op>,
}

/// Sum of 32-bit words modulo 2^32.
pub(crate) type Sum32 = WordReduce<Add>;
/// XOR of 32-bit words.
pub(crate) type Xor32 = WordReduce<Xor>;

impl<Op: WordOp> WordReduce<Op> {
    /// A fresh state; `seed` (low 32 bits) is the initial accumulator.
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            acc: seed as u32,
            op: PhantomData,
        }
    }
}

#[inline(always)]
fn fold_copy_body<Op: WordOp>(acc: u32, dst: &mut [u8], src: &[u8]) -> u32 {
    let mut a = acc;
    for (d, s) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
        let w = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
        a = Op::combine(a, w);
        d.copy_from_slice(&w.to_le_bytes());
    }
    a
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fold_copy_avx2<Op: WordOp>(acc: u32, dst: &mut [u8], src: &[u8]) -> u32 {
    fold_copy_body::<Op>(acc, dst, src)
}

impl<Op: WordOp> WordFold for WordReduce<Op> {
    fn fold(&mut self, src: &[u8]) {
        let mut a = self.acc;
        for s in src.chunks_exact(4) {
            a = Op::combine(a, u32::from_le_bytes([s[0], s[1], s[2], s[3]]));
        }
        self.acc = a;
    }

    fn fold_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            self.acc = unsafe { fold_copy_avx2::<Op>(self.acc, dst, src) };
            return;
        }
        self.acc = fold_copy_body::<Op>(self.acc, dst, src);
    }

    fn finish(&self, tail: &[u8], _total_bytes: u64) -> u64 {
        let mut word = [0u8; 4];
        word[..tail.len()].copy_from_slice(tail);
        u64::from(Op::combine(self.acc, le32(&word, 0)))
    }
}
