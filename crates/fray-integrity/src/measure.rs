//! Timing of checksums and copies on this machine. Timings are taken here, in Rust, with a
//! monotonic clock; each sample repeats the operation until it lasts long enough, and the
//! median sample is kept.

use std::time::{Duration, Instant};

use rand::RngCore;

use crate::algorithm::Algorithm;
use crate::checksum::checksum;
use crate::error::IntegrityError;
use crate::fused::{copy_checksum_with, copy_then_checksum, CopyStrategy};
use crate::inject::rng_for;

/// What is timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    /// Checksum only, reading the buffer once.
    Checksum,
    /// Copy and checksum with the given strategy.
    Copy(CopyStrategy),
    /// Whole copy, then whole checksum (the naive two-pass baseline).
    CopyThenChecksum,
    /// Plain copy (`memcpy`), no checksum; the algorithm is ignored.
    Memcpy,
}

impl Operation {
    /// `"checksum"`, `"fused"`, `"blocked"`, `"copy+checksum"` or `"memcpy"`.
    pub const fn name(self) -> &'static str {
        match self {
            Operation::Checksum => "checksum",
            Operation::Copy(s) => s.name(),
            Operation::CopyThenChecksum => "copy+checksum",
            Operation::Memcpy => "memcpy",
        }
    }

    /// Parses a name written by [`Operation::name`].
    pub fn parse(s: &str) -> Result<Self, IntegrityError> {
        match s {
            "checksum" => Ok(Operation::Checksum),
            "fused" => Ok(Operation::Copy(CopyStrategy::Fused)),
            "blocked" => Ok(Operation::Copy(CopyStrategy::Blocked)),
            "copy+checksum" => Ok(Operation::CopyThenChecksum),
            "memcpy" => Ok(Operation::Memcpy),
            _ => Err(IntegrityError::invalid(
                "operation",
                format!("unknown operation {s:?} (known: checksum, fused, blocked, copy+checksum, memcpy)"),
            )),
        }
    }
}

/// How long to measure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeasureConfig {
    /// Shortest duration of one sample (s); the operation repeats until it is reached.
    pub min_sample_s: f64,
    /// Samples per measurement; the median is reported.
    pub samples: usize,
}

impl Default for MeasureConfig {
    /// 20 ms samples, 5 of them.
    fn default() -> Self {
        MeasureConfig {
            min_sample_s: 0.02,
            samples: 5,
        }
    }
}

/// A timed operation on one buffer size.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The algorithm (irrelevant for [`Operation::Memcpy`]).
    pub algorithm: Algorithm,
    /// What was timed.
    pub operation: Operation,
    /// Buffer size (bytes).
    pub size_bytes: usize,
    /// Median time of one operation (s).
    pub median_s: f64,
    /// `size_bytes / median_s` (bytes/s).
    pub bandwidth_bytes_s: f64,
    /// Time of one operation in every sample (s), in the order taken.
    pub samples_s: Vec<f64>,
}

fn run_once(op: Operation, a: Algorithm, dst: &mut [u8], src: &[u8]) -> u64 {
    match op {
        Operation::Checksum => checksum(src, a, 0),
        Operation::Copy(s) => copy_checksum_with(dst, src, a, 0, s).expect("equal lengths"),
        Operation::CopyThenChecksum => copy_then_checksum(dst, src, a, 0).expect("equal lengths"),
        Operation::Memcpy => {
            dst.copy_from_slice(src);
            u64::from(dst[0])
        }
    }
}

/// Times `op` with `algorithm` on buffers of `size_bytes` (filled with seeded random bytes).
pub fn measure(
    op: Operation,
    algorithm: Algorithm,
    size_bytes: usize,
    cfg: &MeasureConfig,
) -> Result<Measurement, IntegrityError> {
    if size_bytes == 0 {
        return Err(IntegrityError::invalid(
            "sizes",
            "buffer size must be > 0 bytes",
        ));
    }
    if cfg.samples == 0 || !(cfg.min_sample_s.is_finite() && cfg.min_sample_s > 0.0) {
        return Err(IntegrityError::invalid(
            "samples",
            "need at least one sample of positive duration",
        ));
    }
    let mut src = vec![0u8; size_bytes];
    rng_for(0x5eed, size_bytes as u64).fill_bytes(&mut src);
    let mut dst = vec![0u8; size_bytes];
    // Wall time of `reps` back-to-back operations.
    let mut time_reps = |reps: u64| {
        let t0 = Instant::now();
        for _ in 0..reps {
            std::hint::black_box(run_once(
                op,
                algorithm,
                &mut dst,
                std::hint::black_box(&src),
            ));
        }
        t0.elapsed()
    };
    // Warm up (page faults, caches) and calibrate the repeat count.
    let mut reps: u64 = 1;
    loop {
        let dt = time_reps(reps);
        if dt >= Duration::from_secs_f64(cfg.min_sample_s / 4.0) || reps >= 1 << 30 {
            let per = dt.as_secs_f64() / reps as f64;
            reps = ((cfg.min_sample_s / per.max(1e-12)).ceil() as u64).max(1);
            break;
        }
        reps *= 4;
    }
    let samples_s: Vec<f64> = (0..cfg.samples)
        .map(|_| time_reps(reps).as_secs_f64() / reps as f64)
        .collect();
    let median_s = median(&samples_s);
    Ok(Measurement {
        algorithm,
        operation: op,
        size_bytes,
        median_s,
        bandwidth_bytes_s: size_bytes as f64 / median_s,
        samples_s,
    })
}

/// Median of a non-empty slice (mean of the two middle values for even lengths).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        0.5 * (s[n / 2 - 1] + s[n / 2])
    }
}
