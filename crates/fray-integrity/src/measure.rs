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

/// The largest buffer a measurement, a tuning or a quality trial allocates (bytes, 1 GiB): a
/// message size beyond it is refused before anything is allocated, as a size that does not
/// fit memory sensibly (a measurement holds two buffers of the size).
pub const MAX_BUFFER_BYTES: usize = 1 << 30;

/// The longest sample a measurement takes (s, one minute): longer samples add nothing to the
/// median and would make a run of several sizes last hours.
pub const MAX_SAMPLE_S: f64 = 60.0;

/// The most samples per measurement.
pub const MAX_SAMPLES: usize = 10_000;

/// Checks a buffer size against `0 < size <= MAX_BUFFER_BYTES`, naming `field`.
pub(crate) fn check_buffer_bytes(
    field: &'static str,
    size_bytes: u64,
) -> Result<(), IntegrityError> {
    if size_bytes == 0 {
        return Err(IntegrityError::invalid(
            field,
            "buffer size must be > 0 bytes",
        ));
    }
    if size_bytes > MAX_BUFFER_BYTES as u64 {
        return Err(IntegrityError::invalid(
            field,
            format!(
                "{size_bytes} bytes is more than the largest buffer, {MAX_BUFFER_BYTES} bytes (1 GiB)"
            ),
        ));
    }
    Ok(())
}

impl MeasureConfig {
    /// Checks `0 < min_sample_s <= MAX_SAMPLE_S` (field `min-sample`) and
    /// `1 <= samples <= MAX_SAMPLES` (field `samples`).
    pub fn validate(&self) -> Result<(), IntegrityError> {
        if !(self.min_sample_s.is_finite() && self.min_sample_s > 0.0) {
            return Err(IntegrityError::invalid(
                "min-sample",
                format!(
                    "must be a positive, finite duration, got {:?} s",
                    self.min_sample_s
                ),
            ));
        }
        if self.min_sample_s > MAX_SAMPLE_S {
            return Err(IntegrityError::invalid(
                "min-sample",
                format!(
                    "{:?} s is longer than the longest sample, {MAX_SAMPLE_S:?} s",
                    self.min_sample_s
                ),
            ));
        }
        if self.samples == 0 || self.samples > MAX_SAMPLES {
            return Err(IntegrityError::invalid(
                "samples",
                format!("must be 1 to {MAX_SAMPLES}, got {}", self.samples),
            ));
        }
        Ok(())
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
    check_buffer_bytes("sizes", size_bytes as u64)?;
    cfg.validate()?;
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

#[cfg(test)]
mod sizes_and_samples_are_bounded_before_allocating {
    use super::*;

    #[test]
    fn a_buffer_beyond_a_gib_is_refused() {
        let err = measure(
            Operation::Checksum,
            Algorithm::ALL[0],
            usize::MAX / 2,
            &MeasureConfig::default(),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("sizes: 9223372036854775807 bytes is more than the largest buffer"),
            "{err}"
        );
    }

    #[test]
    fn a_sample_longer_than_a_minute_is_refused_naming_min_sample() {
        for s in [1e308, f64::INFINITY, f64::NAN, -1.0, 61.0] {
            let cfg = MeasureConfig {
                min_sample_s: s,
                samples: 1,
            };
            let err = measure(Operation::Checksum, Algorithm::ALL[0], 64, &cfg).unwrap_err();
            assert!(err.to_string().starts_with("min-sample: "), "{err}");
        }
    }
}

#[cfg(test)]
mod huge_durations_print_short {
    use super::*;

    #[test]
    fn a_sample_of_1e308_s_is_named_in_a_few_digits() {
        let cfg = MeasureConfig {
            min_sample_s: 1e308,
            samples: 1,
        };
        assert_eq!(
            cfg.validate().unwrap_err().to_string(),
            "min-sample: 1e308 s is longer than the longest sample, 60.0 s"
        );
    }
}
