//! The fused copy of the byte-wise algorithms (FNV-1a, Jenkins, Adler-32).
//!
//! Each eight bytes are loaded as one word, stored with one instruction and folded byte by
//! byte. Written naively (`*d = s` beside the fold), the loop's stores are merged by the
//! compiler into one `memcpy` call before the loop, which makes the "fused" copy two passes.

/// Copies `src` to `dst` (equal lengths), calling `fold` on each byte in order, in one pass.
#[inline(always)]
pub(crate) fn copy_fold_bytes(dst: &mut [u8], src: &[u8], mut fold: impl FnMut(u8)) {
    assert_eq!(dst.len(), src.len(), "dst and src lengths differ");
    let whole = src.len() / 8 * 8;
    for (d, s) in dst[..whole]
        .chunks_exact_mut(8)
        .zip(src[..whole].chunks_exact(8))
    {
        let word = u64::from_le_bytes(s.try_into().expect("chunks of 8 bytes"));
        store_word(d, word);
        for b in word.to_le_bytes() {
            fold(b);
        }
    }
    for (d, &s) in dst[whole..].iter_mut().zip(&src[whole..]) {
        fold(s);
        *d = s;
    }
}

/// Stores `word` into the 8 bytes of `d`, little-endian: on x86-64 one `mov` written in
/// assembly, which the compiler keeps where it is.
#[inline(always)]
fn store_word(d: &mut [u8], word: u64) {
    assert_eq!(d.len(), 8, "a word is 8 bytes");
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `d` holds the 8 bytes written; x86-64 stores need no alignment.
    unsafe {
        std::arch::asm!(
            "mov qword ptr [{d}], {w}",
            d = in(reg) d.as_mut_ptr(),
            w = in(reg) word,
            options(nostack, preserves_flags)
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    d.copy_from_slice(&word.to_le_bytes());
}
