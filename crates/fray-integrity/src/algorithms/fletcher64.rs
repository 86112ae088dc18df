//! Fletcher-64: two running sums of little-endian 32-bit words modulo 2^32 - 1.
//!
//! Value = `sum2 << 32 | sum1`, as on the Wikipedia reference page ("abcde" gives
//! `0xc8c6c527646362c6`). The tail is zero-padded to a word. Seed: the initial
//! `sum2 << 32 | sum1`, so a previous Fletcher-64 value continues a word-aligned stream.

use crate::words::{le32, WordFold};

const MOD: u64 = 0xFFFF_FFFF;
/// Words summed in u64 before a reduction; 4096 words (128 per lane) keep every partial sum
/// below 2^56.
const BLOCK_WORDS: usize = 4096;
/// Words folded side by side: 32 u64 lanes, one group of 128 bytes (two AVX-512 registers,
/// or four AVX2 registers). Two or more independent registers per sum hide the latency of
/// the vector additions, which otherwise bounds the loop.
const LANES: usize = 32;
const GROUP_BYTES: usize = 4 * LANES;
/// Size from which the fused copy streams its stores past the cache (as `memcpy` does for
/// large copies), in bytes.
const STREAMING_BYTES: usize = 4 << 20;

/// What a fold does with the words it reads: nothing, store them, or store them past the
/// cache (64-byte aligned destination).
const NO_STORE: u8 = 0;
const STORE: u8 = 1;
const STREAM: u8 = 2;

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

    /// Folds one block of at most [`BLOCK_WORDS`] words, copying it to `dst` as `MODE` says.
    ///
    /// Word `i = LANES * j + l` of the `n` words goes to lane `l`: `a[l]` sums the lane's
    /// words and `b[l]` the running `a[l]` after each group, so that
    /// `sum(w) = sum(a)` and `sum((n - i) * w_i) = LANES * sum(b) - sum(l * a[l])`; then
    /// `sum1 += sum(w)` and `sum2 += n * sum1 + sum((n - i) * w_i)`. Lanes make the loop
    /// vectorisable; the leftover words (fewer than a group) fold one by one.
    #[inline(always)]
    fn fold_block<const MODE: u8>(&mut self, dst: &mut [u8], src: &[u8]) {
        let grouped = src.len() / GROUP_BYTES * GROUP_BYTES;
        let (a, b) = lanes::<MODE>(dst, &src[..grouped]);
        let n = (grouped / 4) as u64;
        let weighted = LANES as u64 * b.iter().sum::<u64>()
            - a.iter()
                .enumerate()
                .map(|(l, &x)| l as u64 * x)
                .sum::<u64>();
        let mut s1 = self.sum1 + a.iter().sum::<u64>() % MOD;
        let mut s2 = (self.sum2 + n * self.sum1 + weighted % MOD) % MOD;
        s1 %= MOD;
        for (k, w) in src[grouped..].chunks_exact(4).enumerate() {
            s1 += u64::from(le32(w, 0));
            s2 += s1;
            if MODE != NO_STORE {
                dst[grouped + 4 * k..grouped + 4 * k + 4].copy_from_slice(w);
            }
        }
        self.sum1 = s1 % MOD;
        self.sum2 = s2 % MOD;
    }

    /// Folds `src`, copying it to `dst` when `COPY`; the stores stream past the cache when the
    /// copy is large ([`STREAMING_BYTES`]).
    fn fold_blocks<const COPY: bool>(&mut self, dst: &mut [u8], src: &[u8]) {
        if !COPY {
            for s in src.chunks(BLOCK_WORDS * 4) {
                self.fold_block::<NO_STORE>(&mut [], s);
            }
            return;
        }
        let aligned_words = (dst.as_ptr() as usize).is_multiple_of(4);
        let stream = streaming_available() && src.len() >= STREAMING_BYTES && aligned_words;
        // A head of whole words brings the destination to a 64-byte boundary, so that no
        // vector store splits a cache line (and streaming stores can be used).
        let head = if aligned_words {
            dst.as_ptr().align_offset(64).min(dst.len())
        } else {
            0
        };
        let (dst_head, dst) = dst.split_at_mut(head);
        let (src_head, src) = src.split_at(head);
        self.fold_block::<STORE>(dst_head, src_head);
        for (d, s) in dst
            .chunks_mut(BLOCK_WORDS * 4)
            .zip(src.chunks(BLOCK_WORDS * 4))
        {
            if stream {
                self.fold_block::<STREAM>(d, s);
            } else {
                self.fold_block::<STORE>(d, s);
            }
        }
        if stream {
            finish_streaming();
        }
    }
}

/// Whether streaming stores (AVX2) are available.
fn streaming_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Orders the streamed stores before any later store.
fn finish_streaming() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: sfence has no preconditions.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// Per-lane sums `(a, b)` of whole groups of [`LANES`] words (see `fold_block`), copying
/// them to `dst` as `MODE` says; uses AVX-512 or AVX2 where the CPU has it.
#[inline(always)]
fn lanes<const MODE: u8>(dst: &mut [u8], src: &[u8]) -> ([u64; LANES], [u64; LANES]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU supports AVX-512F (checked just above).
            return unsafe { lanes_avx512::<MODE>(dst, src) };
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { lanes_avx2::<MODE>(dst, src) };
        }
    }
    lanes_scalar::<MODE>(dst, src)
}

/// [`lanes`] in plain Rust, for CPUs without AVX2.
fn lanes_scalar<const MODE: u8>(dst: &mut [u8], src: &[u8]) -> ([u64; LANES], [u64; LANES]) {
    let (mut a, mut b) = ([0u64; LANES], [0u64; LANES]);
    for (k, g) in src.chunks_exact(GROUP_BYTES).enumerate() {
        for l in 0..LANES {
            a[l] += u64::from(le32(g, 4 * l));
            b[l] += a[l];
        }
        if MODE != NO_STORE {
            dst[k * GROUP_BYTES..(k + 1) * GROUP_BYTES].copy_from_slice(g);
        }
    }
    (a, b)
}

/// Spreads per-register sums back to word lanes. `even` and `odd` list the registers' u64
/// lanes register after register; u64 lane `i` of that list held word `2i` of the group in
/// its low half (`even`) and word `2i + 1` in its high half (`odd`).
fn interleave(even: &[u64; LANES / 2], odd: &[u64; LANES / 2]) -> [u64; LANES] {
    let mut out = [0u64; LANES];
    for i in 0..LANES / 2 {
        out[2 * i] = even[i];
        out[2 * i + 1] = odd[i];
    }
    out
}

/// [`lanes`] with AVX2: per group, four 32-byte loads (and stores); the even words of each
/// register are its u64 lanes masked, the odd ones its lanes shifted right by 32, so no
/// shuffle is needed.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn lanes_avx2<const MODE: u8>(dst: &mut [u8], src: &[u8]) -> ([u64; LANES], [u64; LANES]) {
    use std::arch::x86_64::*;
    const REGS: usize = GROUP_BYTES / 32;
    let low = _mm256_set1_epi64x(0xFFFF_FFFF);
    let z = _mm256_setzero_si256();
    let (mut a_even, mut a_odd, mut b_even, mut b_odd) =
        ([z; REGS], [z; REGS], [z; REGS], [z; REGS]);
    for k in 0..src.len() / GROUP_BYTES {
        for r in 0..REGS {
            let at = k * GROUP_BYTES + 32 * r;
            // SAFETY: the register's 32 bytes lie inside `src` (and `dst`, same length).
            let v = unsafe {
                let v = _mm256_loadu_si256(src.as_ptr().add(at).cast());
                let d = dst.as_mut_ptr().add(at).cast();
                match MODE {
                    // In assembly, as in `lanes_avx512`.
                    STORE => std::arch::asm!(
                        "vmovdqu [{d}], {v}",
                        d = in(reg) d,
                        v = in(ymm_reg) v,
                        options(nostack, preserves_flags)
                    ),
                    STREAM => _mm256_stream_si256(d, v),
                    _ => {}
                }
                v
            };
            a_even[r] = _mm256_add_epi64(a_even[r], _mm256_and_si256(v, low));
            a_odd[r] = _mm256_add_epi64(a_odd[r], _mm256_srli_epi64::<32>(v));
            b_even[r] = _mm256_add_epi64(b_even[r], a_even[r]);
            b_odd[r] = _mm256_add_epi64(b_odd[r], a_odd[r]);
        }
    }
    let spill = |regs: [__m256i; REGS]| {
        let mut x = [0u64; LANES / 2];
        for (r, reg) in regs.into_iter().enumerate() {
            // SAFETY: `x` holds REGS * 32 bytes.
            unsafe { _mm256_storeu_si256(x.as_mut_ptr().add(4 * r).cast(), reg) };
        }
        x
    };
    (
        interleave(&spill(a_even), &spill(a_odd)),
        interleave(&spill(b_even), &spill(b_odd)),
    )
}

/// [`lanes`] with AVX-512: per group, two 64-byte loads (and stores), a mask and a shift each.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn lanes_avx512<const MODE: u8>(dst: &mut [u8], src: &[u8]) -> ([u64; LANES], [u64; LANES]) {
    use std::arch::x86_64::*;
    const REGS: usize = GROUP_BYTES / 64;
    let low = _mm512_set1_epi64(0xFFFF_FFFF);
    let z = _mm512_setzero_si512();
    let (mut a_even, mut a_odd, mut b_even, mut b_odd) =
        ([z; REGS], [z; REGS], [z; REGS], [z; REGS]);
    for k in 0..src.len() / GROUP_BYTES {
        for r in 0..REGS {
            let at = k * GROUP_BYTES + 64 * r;
            // SAFETY: the register's 64 bytes lie inside `src` (and `dst`, same length).
            let v = unsafe {
                let v = _mm512_loadu_si512(src.as_ptr().add(at).cast());
                let d = dst.as_mut_ptr().add(at).cast();
                match MODE {
                    // In assembly: written as an intrinsic, LLVM merges the loop's stores
                    // into one `memcpy` call before the loop (a second pass over the data).
                    STORE => std::arch::asm!(
                        "vmovdqu64 [{d}], {v}",
                        d = in(reg) d,
                        v = in(zmm_reg) v,
                        options(nostack, preserves_flags)
                    ),
                    STREAM => _mm512_stream_si512(d, v),
                    _ => {}
                }
                v
            };
            a_even[r] = _mm512_add_epi64(a_even[r], _mm512_and_si512(v, low));
            a_odd[r] = _mm512_add_epi64(a_odd[r], _mm512_srli_epi64::<32>(v));
            b_even[r] = _mm512_add_epi64(b_even[r], a_even[r]);
            b_odd[r] = _mm512_add_epi64(b_odd[r], a_odd[r]);
        }
    }
    let spill = |regs: [__m512i; REGS]| {
        let mut x = [0u64; LANES / 2];
        for (r, reg) in regs.into_iter().enumerate() {
            // SAFETY: `x` holds REGS * 64 bytes.
            unsafe { _mm512_storeu_si512(x.as_mut_ptr().add(8 * r).cast(), reg) };
        }
        x
    };
    (
        interleave(&spill(a_even), &spill(a_odd)),
        interleave(&spill(b_even), &spill(b_odd)),
    )
}

impl WordFold for Fletcher64 {
    fn fold(&mut self, src: &[u8]) {
        self.fold_blocks::<false>(&mut [], src);
    }

    fn fold_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        self.fold_blocks::<true>(dst, src);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every vector path gives the scalar path's lane sums and copy, whatever path `lanes`
    /// picks on this CPU.
    #[test]
    fn vector_lanes_match_scalar_lanes() {
        let src: Vec<u8> = (0..GROUP_BYTES * 257)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3])
            .collect();
        let mut want_dst = vec![0u8; src.len()];
        let want = lanes_scalar::<STORE>(&mut want_dst, &src);
        assert_eq!(want_dst, src);
        #[cfg(target_arch = "x86_64")]
        {
            let mut dst = vec![0u8; src.len()];
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 checked.
                assert_eq!(unsafe { lanes_avx2::<STORE>(&mut dst, &src) }, want);
                assert_eq!(dst, src);
            }
            dst.fill(0);
            if std::is_x86_feature_detected!("avx512f") {
                // SAFETY: AVX-512F checked.
                assert_eq!(unsafe { lanes_avx512::<STORE>(&mut dst, &src) }, want);
                assert_eq!(dst, src);
            }
        }
    }
}
