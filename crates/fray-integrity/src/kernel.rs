//! The streaming interface every algorithm implements, and the blocked copy helper.

/// Bytes copied per step by the blocked (copy, then checksum from L1) strategy.
pub const L1_BLOCK_BYTES: usize = 4096;

/// The state of one checksum computation, fed in pieces.
///
/// Feeding `a` then `b` gives the same [`Kernel::finish`] value as feeding `a ++ b`.
pub(crate) trait Kernel {
    /// Folds `data` into the state.
    fn update(&mut self, data: &[u8]);

    /// Copies `src` to `dst` (same length) and folds the bytes into the state.
    ///
    /// The default copies a block of [`L1_BLOCK_BYTES`] then checksums it while it is in L1
    /// (the paper's "copy then checksum" variant); algorithms with a fused loop override it.
    fn update_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        blocked_copy_update(self, dst, src);
    }

    /// The checksum of everything fed so far (the state is left unchanged).
    fn finish(&self) -> u64;
}

/// Copy-then-checksum in L1-sized blocks: the strategy the paper calls (a).
pub(crate) fn blocked_copy_update<K: Kernel + ?Sized>(k: &mut K, dst: &mut [u8], src: &[u8]) {
    debug_assert_eq!(dst.len(), src.len());
    for (d, s) in dst
        .chunks_mut(L1_BLOCK_BYTES)
        .zip(src.chunks(L1_BLOCK_BYTES))
    {
        d.copy_from_slice(s);
        k.update(d);
    }
}
