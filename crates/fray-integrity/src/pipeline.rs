//! Chunk schedule of the super-pipeline: chunk sizes grow as a geometric series.

use crate::error::IntegrityError;

/// Parameters of a chunk schedule (bytes, and a dimensionless ratio).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChunkPlan {
    /// Size of the first chunk `C0` (bytes).
    pub first_chunk_bytes: usize,
    /// Growth ratio `q` of the series (`C_n = C0 q^n`), at least 1.
    pub ratio: f64,
    /// Largest chunk (bytes); chunks stop growing there.
    pub max_chunk_bytes: usize,
    /// Chunk sizes are multiples of this (bytes), except the last one.
    pub align_bytes: usize,
}

impl ChunkPlan {
    /// Checks the plan; names the bad field.
    pub fn validate(&self) -> Result<(), IntegrityError> {
        if self.first_chunk_bytes == 0 {
            return Err(IntegrityError::invalid("first_chunk", "must be > 0 bytes"));
        }
        if !(self.ratio.is_finite() && self.ratio >= 1.0) {
            return Err(IntegrityError::invalid(
                "ratio",
                format!("must be a finite number >= 1, got {}", self.ratio),
            ));
        }
        if self.max_chunk_bytes < self.first_chunk_bytes {
            return Err(IntegrityError::invalid(
                "max_chunk",
                "must be at least the first chunk size",
            ));
        }
        if self.align_bytes == 0 {
            return Err(IntegrityError::invalid("align", "must be > 0 bytes"));
        }
        Ok(())
    }

    /// The chunk lengths (bytes) of a `len_bytes` message; they sum to `len_bytes`. A message
    /// of 0 bytes has one empty chunk.
    pub fn chunks(&self, len_bytes: usize) -> Result<Vec<usize>, IntegrityError> {
        self.validate()?;
        let mut out = Vec::new();
        let mut left = len_bytes;
        let mut size = self.first_chunk_bytes as f64;
        while left > 0 {
            let want = (size.min(self.max_chunk_bytes as f64) as usize).max(1);
            let aligned = (want / self.align_bytes * self.align_bytes).max(self.align_bytes);
            let take = aligned.min(left);
            out.push(take);
            left -= take;
            size *= self.ratio;
        }
        if out.is_empty() {
            out.push(0);
        }
        Ok(out)
    }

    /// The chunk lengths of [`ChunkPlan::chunks`] in reverse order: the largest first, then
    /// shrinking geometrically to `first_chunk_bytes` at the end of the message. A receiver
    /// that verifies each chunk after it arrives overlaps that work with the arrival of the
    /// next chunk, and only the last, smallest one is left unoverlapped.
    pub fn chunks_shrinking(&self, len_bytes: usize) -> Result<Vec<usize>, IntegrityError> {
        let mut out = self.chunks(len_bytes)?;
        out.reverse();
        Ok(out)
    }
}
