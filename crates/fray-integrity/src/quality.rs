//! Error-detection quality: inject error patterns into random buffers and count what each
//! algorithm misses.

use rand::RngCore;

use crate::algorithm::Algorithm;
use crate::checksum::checksum;
use crate::error::IntegrityError;
use crate::inject::{rng_for, ErrorPattern};

/// The most trials per (algorithm, pattern): each trial fills and checksums one message.
pub const MAX_TRIALS: u64 = 100_000_000;

/// The most bytes one (algorithm, pattern) fills and checksums, `trials * message_bytes`
/// (64 GiB, about a minute per pair): larger experiments are refused before they start.
pub const MAX_TRIAL_BYTES: u64 = 1 << 36;

/// What to run: message size (bytes), trials per pattern, and the seed.
#[derive(Debug, Clone, PartialEq)]
pub struct QualityConfig {
    /// Size of each random message (bytes).
    pub message_bytes: usize,
    /// Corrupted messages tried per (algorithm, pattern).
    pub trials: u64,
    /// Seed; trial `i` of pattern `p` uses the same buffer and flips for every algorithm.
    pub seed: u64,
}

impl QualityConfig {
    /// Checks `0 < message_bytes <= MAX_BUFFER_BYTES` (field `message_bytes`),
    /// `0 < trials <= MAX_TRIALS` and `trials * message_bytes <= MAX_TRIAL_BYTES` (field
    /// `trials`).
    pub fn validate(&self) -> Result<(), IntegrityError> {
        if self.message_bytes == 0 {
            return Err(IntegrityError::invalid("message_bytes", "must be > 0"));
        }
        crate::measure::check_buffer_bytes("message_bytes", self.message_bytes as u64)?;
        if self.trials == 0 {
            return Err(IntegrityError::invalid("trials", "must be > 0"));
        }
        if self.trials > MAX_TRIALS {
            return Err(IntegrityError::invalid(
                "trials",
                format!("{} is more than the most, {MAX_TRIALS}", self.trials),
            ));
        }
        let bytes = self.trials.saturating_mul(self.message_bytes as u64);
        if bytes > MAX_TRIAL_BYTES {
            return Err(IntegrityError::invalid(
                "trials",
                format!(
                    "{} trials of {} bytes checksum {bytes} bytes per pattern, more than the \
                     most, {MAX_TRIAL_BYTES} (64 GiB)",
                    self.trials, self.message_bytes
                ),
            ));
        }
        Ok(())
    }
}

impl Default for QualityConfig {
    /// 1 KiB messages, 20 000 trials per pattern, seed 1.
    fn default() -> Self {
        QualityConfig {
            message_bytes: 1024,
            trials: 20_000,
            seed: 1,
        }
    }
}

/// The outcome for one algorithm and one error pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct QualityResult {
    /// The checksum tried.
    pub algorithm: Algorithm,
    /// The errors injected.
    pub pattern: ErrorPattern,
    /// Corrupted messages tried.
    pub trials: u64,
    /// Corrupted messages whose checksum was unchanged (undetected errors).
    pub missed: u64,
}

impl QualityResult {
    /// Fraction of corrupted messages that went undetected.
    pub fn miss_rate(&self) -> f64 {
        if self.trials == 0 {
            0.0
        } else {
            self.missed as f64 / self.trials as f64
        }
    }
}

/// Runs the experiment for one algorithm and one pattern.
pub fn detection_quality(
    algorithm: Algorithm,
    pattern: ErrorPattern,
    cfg: &QualityConfig,
) -> Result<QualityResult, IntegrityError> {
    cfg.validate()?;
    if let ErrorPattern::Burst { bits } = pattern {
        if bits == 0 || u64::from(bits) > cfg.message_bytes as u64 * 8 {
            return Err(IntegrityError::invalid(
                "patterns",
                format!(
                    "a burst of {bits} bits does not fit a {}-byte message",
                    cfg.message_bytes
                ),
            ));
        }
    }
    let pattern_key = match pattern {
        ErrorPattern::SingleBit => 1u64,
        ErrorPattern::DoubleBit => 2,
        ErrorPattern::Burst { bits } => 1000 + u64::from(bits),
    };
    let mut buf = vec![0u8; cfg.message_bytes];
    let mut missed = 0;
    for trial in 0..cfg.trials {
        let mut rng = rng_for(cfg.seed, (pattern_key << 40) ^ trial);
        rng.fill_bytes(&mut buf);
        let before = checksum(&buf, algorithm, 0);
        let flipped = pattern.apply(&mut buf, &mut rng);
        if checksum(&buf, algorithm, 0) == before {
            missed += 1;
        }
        for &bit in &flipped {
            crate::inject::flip_bit(&mut buf, bit);
        }
    }
    Ok(QualityResult {
        algorithm,
        pattern,
        trials: cfg.trials,
        missed,
    })
}

/// Runs every (algorithm, pattern) pair, spreading algorithms over the available cores.
pub fn detection_table(
    algorithms: &[Algorithm],
    patterns: &[ErrorPattern],
    cfg: &QualityConfig,
) -> Result<Vec<QualityResult>, IntegrityError> {
    cfg.validate()?;
    let jobs: Vec<(Algorithm, ErrorPattern)> = algorithms
        .iter()
        .flat_map(|&a| patterns.iter().map(move |&p| (a, p)))
        .collect();
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(jobs.len().max(1));
    let mut results: Vec<Option<Result<QualityResult, IntegrityError>>> = vec![None; jobs.len()];
    std::thread::scope(|s| {
        let chunks: Vec<_> = results
            .chunks_mut(jobs.len().div_ceil(workers).max(1))
            .zip(jobs.chunks(jobs.len().div_ceil(workers).max(1)))
            .collect();
        for (out, todo) in chunks {
            s.spawn(move || {
                for (slot, &(a, p)) in out.iter_mut().zip(todo) {
                    *slot = Some(detection_quality(a, p, cfg));
                }
            });
        }
    });
    results
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

/// The errors a checksum must catch: every trial of every pattern detected.
#[derive(Debug, Clone, PartialEq)]
pub struct Requirement {
    /// Patterns that must never go undetected.
    pub patterns: Vec<ErrorPattern>,
    /// How the patterns are tried.
    pub config: QualityConfig,
}

impl Default for Requirement {
    /// Single-bit, double-bit and 32-bit bursts, with [`QualityConfig::default`].
    fn default() -> Self {
        Requirement {
            patterns: vec![
                ErrorPattern::SingleBit,
                ErrorPattern::DoubleBit,
                ErrorPattern::Burst { bits: 32 },
            ],
            config: QualityConfig::default(),
        }
    }
}

impl Requirement {
    /// The detection results of `algorithm` against this requirement, and whether it passes.
    pub fn check(
        &self,
        algorithm: Algorithm,
    ) -> Result<(bool, Vec<QualityResult>), IntegrityError> {
        let mut rows = Vec::with_capacity(self.patterns.len());
        for &p in &self.patterns {
            rows.push(detection_quality(algorithm, p, &self.config)?);
        }
        let ok = rows.iter().all(|r| r.missed == 0);
        Ok((ok, rows))
    }
}

#[cfg(test)]
mod trials_and_messages_are_bounded_before_allocating {
    use super::*;

    fn run(message_bytes: usize, trials: u64) -> String {
        let cfg = QualityConfig {
            message_bytes,
            trials,
            seed: 1,
        };
        detection_table(&[Algorithm::ALL[0]], &[ErrorPattern::SingleBit], &cfg)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn huge_messages_zero_and_huge_trial_counts_are_refused() {
        assert!(run(1 << 40, 10).starts_with("message_bytes: 1099511627776 bytes is more"));
        assert_eq!(run(64, 0), "trials: must be > 0");
        assert_eq!(
            run(64, 5_000_000_000),
            "trials: 5000000000 is more than the most, 100000000"
        );
        assert!(run(1 << 20, 1 << 20).starts_with("trials: 1048576 trials of 1048576 bytes"));
    }
}
