//! Adler-32 (RFC 1950, zlib). Checksums use the `adler2` crate; the fused copy is a loop of
//! our own, checked against the crate.
//!
//! Seed: the Adler-32 value to continue from, as zlib's `adler32(adler, buf, len)`, except that
//! seed 0 stands for the standard start value 1.

use crate::algorithms::bytewise::copy_fold_bytes;
use crate::kernel::Kernel;

const BASE: u32 = 65_521;
/// Largest n with 255 n (n + 1) / 2 + (n + 1)(BASE - 1) < 2^32 (zlib's NMAX).
const NMAX: usize = 5552;

/// The running `(a, b)` pair, in the `adler2` crate's state.
#[derive(Clone)]
pub(crate) struct Adler32 {
    state: adler2::Adler32,
}

impl Adler32 {
    /// A fresh state; `seed` is the value to continue from (0 means the standard start 1).
    /// Both 16-bit halves are reduced modulo 65521, as every Adler-32 value is, so that the
    /// checksum and the fused copy agree even on an empty buffer.
    pub(crate) fn new(seed: u64) -> Self {
        let raw = if seed == 0 { 1 } else { seed as u32 };
        let start = (((raw >> 16) % BASE) << 16) | ((raw & 0xFFFF) % BASE);
        Adler32 {
            state: adler2::Adler32::from_checksum(start),
        }
    }
}

impl Kernel for Adler32 {
    fn update(&mut self, data: &[u8]) {
        self.state.write_slice(data);
    }

    fn update_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        assert_eq!(dst.len(), src.len(), "dst and src lengths differ");
        let v = self.state.checksum();
        let (mut a, mut b) = (v & 0xFFFF, v >> 16);
        for (db, sb) in dst.chunks_mut(NMAX).zip(src.chunks(NMAX)) {
            copy_fold_bytes(db, sb, |s| {
                a += u32::from(s);
                b += a;
            });
            a %= BASE;
            b %= BASE;
        }
        self.state = adler2::Adler32::from_checksum((b << 16) | a);
    }

    fn finish(&self) -> u64 {
        u64::from(self.state.checksum())
    }
}
