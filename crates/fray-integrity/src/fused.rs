//! Copy and checksum together: the paper's way to make checksums nearly free.
//!
//! [`copy_checksum`] reads each word of the source once, folds it into the checksum and
//! stores it to the destination. [`CopyStrategy::Blocked`] is the paper's other variant (copy
//! an L1-sized block, then checksum it while it is still in cache) and [`copy_then_checksum`]
//! is the naive two-pass baseline (a whole `memcpy`, then a whole checksum pass).

use crate::algorithm::Algorithm;
use crate::algorithms::xxh3::copy_xxh3;
use crate::checksum::{checksum, Checksummer};
use crate::error::IntegrityError;
use crate::kernel::L1_BLOCK_BYTES;

/// How a copy and a checksum are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CopyStrategy {
    /// One pass: load a word, fold it, store it.
    Fused,
    /// Copy an L1-sized block ([`L1_BLOCK_BYTES`]), then checksum it from cache.
    Blocked,
}

impl CopyStrategy {
    /// Both strategies, fused first.
    pub const ALL: [CopyStrategy; 2] = [CopyStrategy::Fused, CopyStrategy::Blocked];

    /// `"fused"` or `"blocked"`.
    pub const fn name(self) -> &'static str {
        match self {
            CopyStrategy::Fused => "fused",
            CopyStrategy::Blocked => "blocked",
        }
    }

    /// Parses `"fused"` or `"blocked"`.
    pub fn parse(s: &str) -> Result<Self, IntegrityError> {
        match s {
            "fused" => Ok(CopyStrategy::Fused),
            "blocked" => Ok(CopyStrategy::Blocked),
            _ => Err(IntegrityError::invalid(
                "strategy",
                format!("unknown copy strategy {s:?} (known: fused, blocked)"),
            )),
        }
    }
}

fn check_lengths(dst: &[u8], src: &[u8]) -> Result<(), IntegrityError> {
    if dst.len() != src.len() {
        return Err(IntegrityError::LengthMismatch {
            dst_bytes: dst.len(),
            src_bytes: src.len(),
        });
    }
    Ok(())
}

/// Copies `src` into `dst` (equal lengths) and returns the checksum of the bytes, in one pass.
///
/// The value equals [`checksum`]`(src, algorithm, seed)`.
///
/// ```
/// use fray_integrity::{checksum, copy_checksum, Algorithm};
/// let src: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
/// let mut dst = vec![0u8; src.len()];
/// let c = copy_checksum(&mut dst, &src, Algorithm::Xxh3, 0).unwrap();
/// assert_eq!(dst, src);
/// assert_eq!(c, checksum(&src, Algorithm::Xxh3, 0));
/// ```
pub fn copy_checksum(
    dst: &mut [u8],
    src: &[u8],
    algorithm: Algorithm,
    seed: u64,
) -> Result<u64, IntegrityError> {
    copy_checksum_with(dst, src, algorithm, seed, CopyStrategy::Fused)
}

/// [`copy_checksum`] with an explicit [`CopyStrategy`].
pub fn copy_checksum_with(
    dst: &mut [u8],
    src: &[u8],
    algorithm: Algorithm,
    seed: u64,
    strategy: CopyStrategy,
) -> Result<u64, IntegrityError> {
    check_lengths(dst, src)?;
    match strategy {
        CopyStrategy::Fused => {
            if algorithm == Algorithm::Xxh3 {
                return Ok(copy_xxh3(dst, src, seed));
            }
            let mut c = Checksummer::new(algorithm, seed);
            c.update_copy(dst, src)?;
            Ok(c.value())
        }
        CopyStrategy::Blocked => {
            let mut c = Checksummer::new(algorithm, seed);
            for (d, s) in dst
                .chunks_mut(L1_BLOCK_BYTES)
                .zip(src.chunks(L1_BLOCK_BYTES))
            {
                d.copy_from_slice(s);
                c.update(d);
            }
            Ok(c.value())
        }
    }
}

/// The naive baseline: copy all of `src` into `dst`, then checksum `dst` in a second pass.
pub fn copy_then_checksum(
    dst: &mut [u8],
    src: &[u8],
    algorithm: Algorithm,
    seed: u64,
) -> Result<u64, IntegrityError> {
    check_lengths(dst, src)?;
    dst.copy_from_slice(src);
    Ok(checksum(dst, algorithm, seed))
}

/// Copies `src` into `dst` and checks the bytes against `expected`, in one pass.
///
/// Returns `Ok(true)` when the checksum matches. On a mismatch `dst` holds the (wrong) bytes;
/// callers that must never expose wrong data copy into a staging buffer first.
pub fn copy_verify(
    dst: &mut [u8],
    src: &[u8],
    algorithm: Algorithm,
    seed: u64,
    expected: u64,
) -> Result<bool, IntegrityError> {
    Ok(copy_checksum(dst, src, algorithm, seed)? == expected)
}
