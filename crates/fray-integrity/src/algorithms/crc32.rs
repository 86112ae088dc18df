//! CRC-32 (IEEE 802.3, the zlib/PNG CRC) from the `crc32fast` crate (PCLMULQDQ where the CPU
//! has it, slicing-by-16 otherwise). The fused copy is copy-then-checksum per L1 block.
//!
//! Seed: the CRC value to continue from, as zlib's `crc32(crc, buf, len)`; 0 is the standard.

use crate::kernel::Kernel;

/// The `crc32fast` hasher.
#[derive(Clone)]
pub(crate) struct Crc32 {
    hasher: crc32fast::Hasher,
}

impl Crc32 {
    /// A fresh state continuing from CRC value `seed` (low 32 bits).
    pub(crate) fn new(seed: u64) -> Self {
        Crc32 {
            hasher: crc32fast::Hasher::new_with_initial(seed as u32),
        }
    }
}

impl Kernel for Crc32 {
    fn update(&mut self, data: &[u8]) {
        self.hasher.update(data);
    }

    fn finish(&self) -> u64 {
        u64::from(self.hasher.clone().finalize())
    }
}
