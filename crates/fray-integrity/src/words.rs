//! Streaming over little-endian 32-bit words with a carried partial word.
//!
//! Word-oriented algorithms (sum, XOR, Fletcher-64, Knuth, MurmurHash2A, SuperFastHash) see
//! whole 4-byte words; a piece that ends inside a word leaves up to 3 bytes pending until the
//! next piece or [`WordStream::finish`].

use crate::kernel::Kernel;

/// Reads the little-endian u32 at `s[i..i + 4]`.
#[inline(always)]
pub(crate) fn le32(s: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([s[i], s[i + 1], s[i + 2], s[i + 3]])
}

/// An algorithm defined over 32-bit words plus a final tail of 0 to 3 bytes.
pub(crate) trait WordFold: Clone {
    /// Folds whole words; `src.len()` is a multiple of 4.
    fn fold(&mut self, src: &[u8]);
    /// Copies whole words to `dst` and folds them, in one pass; lengths are equal multiples of 4.
    fn fold_copy(&mut self, dst: &mut [u8], src: &[u8]);
    /// The final value after the last `tail` (0 to 3 bytes) and the total length in bytes.
    fn finish(&self, tail: &[u8], total_bytes: u64) -> u64;
}

/// Turns a [`WordFold`] into a [`Kernel`] that accepts pieces of any length.
#[derive(Clone)]
pub(crate) struct WordStream<W: WordFold> {
    inner: W,
    pending: [u8; 4],
    npending: usize,
    total_bytes: u64,
}

impl<W: WordFold> WordStream<W> {
    /// Wraps a fresh word state.
    pub(crate) fn new(inner: W) -> Self {
        WordStream {
            inner,
            pending: [0; 4],
            npending: 0,
            total_bytes: 0,
        }
    }

    /// Fills the pending word from the front of `src`; returns how many bytes it took.
    #[inline]
    fn top_up(&mut self, src: &[u8]) -> usize {
        if self.npending == 0 {
            return 0;
        }
        let take = (4 - self.npending).min(src.len());
        self.pending[self.npending..self.npending + take].copy_from_slice(&src[..take]);
        self.npending += take;
        if self.npending == 4 {
            let word = self.pending;
            self.inner.fold(&word);
            self.npending = 0;
        }
        take
    }
}

impl<W: WordFold> Kernel for WordStream<W> {
    fn update(&mut self, data: &[u8]) {
        self.total_bytes += data.len() as u64;
        let used = self.top_up(data);
        let rest = &data[used..];
        let whole = rest.len() & !3;
        self.inner.fold(&rest[..whole]);
        let tail = &rest[whole..];
        self.pending[self.npending..self.npending + tail.len()].copy_from_slice(tail);
        self.npending += tail.len();
    }

    fn update_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        assert_eq!(dst.len(), src.len(), "dst and src lengths differ");
        self.total_bytes += src.len() as u64;
        let used = self.top_up(src);
        dst[..used].copy_from_slice(&src[..used]);
        let (dst, src) = (&mut dst[used..], &src[used..]);
        let whole = src.len() & !3;
        self.inner.fold_copy(&mut dst[..whole], &src[..whole]);
        let tail = &src[whole..];
        dst[whole..].copy_from_slice(tail);
        self.pending[self.npending..self.npending + tail.len()].copy_from_slice(tail);
        self.npending += tail.len();
    }

    fn finish(&self) -> u64 {
        self.inner
            .finish(&self.pending[..self.npending], self.total_bytes)
    }
}
