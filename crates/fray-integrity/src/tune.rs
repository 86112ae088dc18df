//! Auto-tuning: measure the candidates on this machine, on the user's message sizes, and pick
//! the fastest copy+checksum that detects every error the user asked to catch.

use crate::algorithm::Algorithm;
use crate::error::IntegrityError;
use crate::fused::CopyStrategy;
use crate::measure::{measure, MeasureConfig, Measurement, Operation};
use crate::quality::{QualityResult, Requirement};

/// What to tune for.
#[derive(Debug, Clone, PartialEq)]
pub struct TuneConfig {
    /// Message sizes the user sends (bytes); each weighs by the time it takes.
    pub sizes_bytes: Vec<usize>,
    /// Algorithms to consider.
    pub candidates: Vec<Algorithm>,
    /// Errors that must never go undetected.
    pub requirement: Requirement,
    /// How long to time each candidate.
    pub measure: MeasureConfig,
}

impl Default for TuneConfig {
    /// 32 KiB and 1 MiB messages, every algorithm, the default requirement, 5 ms x 3 samples.
    fn default() -> Self {
        TuneConfig {
            sizes_bytes: vec![32 * 1024, 1024 * 1024],
            candidates: Algorithm::ALL.to_vec(),
            requirement: Requirement::default(),
            measure: MeasureConfig {
                min_sample_s: 0.005,
                samples: 3,
            },
        }
    }
}

/// One candidate's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Whether it detected every injected error of the requirement.
    pub meets_requirement: bool,
    /// The detection results behind `meets_requirement`.
    pub detection: Vec<QualityResult>,
    /// The best strategy, when the candidate was timed (only those meeting the requirement).
    pub strategy: Option<CopyStrategy>,
    /// Time to copy+checksum one message of each size with the best strategy (s).
    pub total_time_s: f64,
    /// Sum of the sizes over `total_time_s` (bytes/s); 0 when not timed.
    pub bandwidth_bytes_s: f64,
    /// Every timing taken for this candidate.
    pub measurements: Vec<Measurement>,
}

/// The outcome of tuning: the choice and every candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct TuneResult {
    /// The fastest candidate that meets the requirement.
    pub algorithm: Algorithm,
    /// Fused or blocked copy for it.
    pub strategy: CopyStrategy,
    /// Its bandwidth over the sizes (bytes/s).
    pub bandwidth_bytes_s: f64,
    /// Every candidate, in the order given.
    pub candidates: Vec<Candidate>,
}

/// Runs the tuning.
pub fn tune(cfg: &TuneConfig) -> Result<TuneResult, IntegrityError> {
    if cfg.sizes_bytes.is_empty() || cfg.sizes_bytes.contains(&0) {
        return Err(IntegrityError::invalid(
            "sizes",
            "need at least one size, all > 0 bytes",
        ));
    }
    if cfg.candidates.is_empty() {
        return Err(IntegrityError::invalid(
            "candidates",
            "need at least one algorithm",
        ));
    }
    // Every bound before the first trial or buffer.
    for &size in &cfg.sizes_bytes {
        crate::measure::check_buffer_bytes("sizes", size as u64)?;
    }
    cfg.requirement.config.validate()?;
    cfg.measure.validate()?;
    let total_bytes: usize = cfg.sizes_bytes.iter().sum();
    let mut candidates = Vec::with_capacity(cfg.candidates.len());
    for &algorithm in &cfg.candidates {
        let (meets, detection) = cfg.requirement.check(algorithm)?;
        let mut cand = Candidate {
            algorithm,
            meets_requirement: meets,
            detection,
            strategy: None,
            total_time_s: f64::INFINITY,
            bandwidth_bytes_s: 0.0,
            measurements: Vec::new(),
        };
        if meets {
            for strategy in CopyStrategy::ALL {
                let mut t = 0.0;
                for &size in &cfg.sizes_bytes {
                    let m = measure(Operation::Copy(strategy), algorithm, size, &cfg.measure)?;
                    t += m.median_s;
                    cand.measurements.push(m);
                }
                if t < cand.total_time_s {
                    cand.total_time_s = t;
                    cand.strategy = Some(strategy);
                    cand.bandwidth_bytes_s = total_bytes as f64 / t;
                }
            }
        }
        candidates.push(cand);
    }
    let best = candidates
        .iter()
        .filter(|c| c.meets_requirement)
        .min_by(|a, b| a.total_time_s.total_cmp(&b.total_time_s))
        .ok_or_else(|| IntegrityError::NoCandidate {
            reason: candidates
                .iter()
                .map(|c| {
                    let missed: u64 = c.detection.iter().map(|d| d.missed).sum();
                    format!("{} missed {missed}", c.algorithm)
                })
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    Ok(TuneResult {
        algorithm: best.algorithm,
        strategy: best.strategy.expect("timed candidates have a strategy"),
        bandwidth_bytes_s: best.bandwidth_bytes_s,
        candidates,
    })
}
