//! CRC-32C (Castagnoli; iSCSI, RFC 3720). Checksums use the `crc32c` crate (SSE 4.2
//! `crc32` instruction where the CPU has it, a table-driven software path otherwise).
//!
//! The fused copy has its own loop on SSE 4.2 CPUs: it reads 8 bytes, folds them with the
//! `crc32` instruction and stores them, on three interleaved lanes of [`LANE_BYTES`] so that
//! the instruction's 3-cycle latency is hidden; the three lane CRCs are joined by a linear
//! "shift by `LANE_BYTES` zero bytes" map precomputed once as four 256-entry tables.
//! Without SSE 4.2 the fused copy is copy-then-checksum per L1 block.
//!
//! Seed: the CRC value to continue from (`crc32c_append(seed, data)`); 0 is the standard.

use crate::kernel::Kernel;

/// Bytes per lane of the 3-lane fused loop.
pub(crate) const LANE_BYTES: usize = 512;

/// The running CRC (finalised form, as the `crc32c` crate returns it).
#[derive(Clone)]
pub(crate) struct Crc32c {
    crc: u32,
}

impl Crc32c {
    /// A fresh state continuing from CRC value `seed` (low 32 bits).
    pub(crate) fn new(seed: u64) -> Self {
        Crc32c { crc: seed as u32 }
    }
}

impl Kernel for Crc32c {
    fn update(&mut self, data: &[u8]) {
        self.crc = crc32c::crc32c_append(self.crc, data);
    }

    fn update_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        assert_eq!(dst.len(), src.len(), "dst and src lengths differ");
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("sse4.2") {
            // SAFETY: the CPU supports SSE 4.2 (checked just above).
            self.crc = unsafe { hw::copy_crc(self.crc, dst, src) };
            return;
        }
        crate::kernel::blocked_copy_update(self, dst, src);
    }

    fn finish(&self) -> u64 {
        u64::from(self.crc)
    }
}

#[cfg(target_arch = "x86_64")]
mod hw {
    use std::arch::x86_64::{_mm_crc32_u64, _mm_crc32_u8};
    use std::sync::OnceLock;

    use super::LANE_BYTES;

    type ShiftTables = [[u32; 256]; 4];

    /// Raw register after `LANE_BYTES` zero bytes, as four byte-indexed tables (the map is
    /// linear over GF(2), so it is the XOR of the images of the four bytes).
    fn shift_tables() -> &'static ShiftTables {
        static TABLES: OnceLock<ShiftTables> = OnceLock::new();
        TABLES.get_or_init(|| {
            let mut basis = [0u32; 32];
            for (k, b) in basis.iter_mut().enumerate() {
                // SAFETY: only reached from `copy_crc`, which requires SSE 4.2.
                *b = unsafe { zeros(1u32 << k) };
            }
            let mut t = [[0u32; 256]; 4];
            for (j, table) in t.iter_mut().enumerate() {
                for (v, slot) in table.iter_mut().enumerate() {
                    let mut acc = 0;
                    for bit in 0..8 {
                        if v & (1 << bit) != 0 {
                            acc ^= basis[8 * j + bit];
                        }
                    }
                    *slot = acc;
                }
            }
            t
        })
    }

    #[target_feature(enable = "sse4.2")]
    unsafe fn zeros(raw: u32) -> u32 {
        let mut r = u64::from(raw);
        for _ in 0..LANE_BYTES / 8 {
            r = _mm_crc32_u64(r, 0);
        }
        r as u32
    }

    #[inline(always)]
    fn shift(t: &ShiftTables, r: u32) -> u32 {
        t[0][(r & 0xFF) as usize]
            ^ t[1][((r >> 8) & 0xFF) as usize]
            ^ t[2][((r >> 16) & 0xFF) as usize]
            ^ t[3][(r >> 24) as usize]
    }

    #[inline(always)]
    fn word(s: &[u8]) -> u64 {
        u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]])
    }

    /// Copies `src` to `dst` and returns `crc32c_append(crc, src)`, in one pass.
    #[target_feature(enable = "sse4.2")]
    pub(super) unsafe fn copy_crc(crc: u32, dst: &mut [u8], src: &[u8]) -> u32 {
        let round = 3 * LANE_BYTES;
        let mut r = !crc;
        let full = src.len() / round * round;
        if full > 0 {
            let t = shift_tables();
            for (db, sb) in dst[..full]
                .chunks_exact_mut(round)
                .zip(src[..full].chunks_exact(round))
            {
                let (da, rest) = db.split_at_mut(LANE_BYTES);
                let (dbb, dc) = rest.split_at_mut(LANE_BYTES);
                let (sa, rest) = sb.split_at(LANE_BYTES);
                let (sbb, sc) = rest.split_at(LANE_BYTES);
                let (mut ra, mut rb, mut rc) = (u64::from(r), 0u64, 0u64);
                for (((da, sa), (dbb, sbb)), (dc, sc)) in da
                    .chunks_exact_mut(8)
                    .zip(sa.chunks_exact(8))
                    .zip(dbb.chunks_exact_mut(8).zip(sbb.chunks_exact(8)))
                    .zip(dc.chunks_exact_mut(8).zip(sc.chunks_exact(8)))
                {
                    let (a, b, c) = (word(sa), word(sbb), word(sc));
                    ra = _mm_crc32_u64(ra, a);
                    rb = _mm_crc32_u64(rb, b);
                    rc = _mm_crc32_u64(rc, c);
                    da.copy_from_slice(&a.to_le_bytes());
                    dbb.copy_from_slice(&b.to_le_bytes());
                    dc.copy_from_slice(&c.to_le_bytes());
                }
                r = shift(t, shift(t, ra as u32) ^ rb as u32) ^ rc as u32;
            }
        }
        let (dst, src) = (&mut dst[full..], &src[full..]);
        let words = src.len() / 8 * 8;
        let mut r64 = u64::from(r);
        for (d, s) in dst[..words]
            .chunks_exact_mut(8)
            .zip(src[..words].chunks_exact(8))
        {
            let w = word(s);
            r64 = _mm_crc32_u64(r64, w);
            d.copy_from_slice(&w.to_le_bytes());
        }
        let mut r = r64 as u32;
        for (d, &s) in dst[words..].iter_mut().zip(&src[words..]) {
            r = _mm_crc32_u8(r, s);
            *d = s;
        }
        !r
    }
}
