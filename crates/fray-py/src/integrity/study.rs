//! Detection quality, timing, tuning, transfer models, CPU identity and chunk plans.

use fray_integrity::inject::ErrorPattern;
use fray_integrity::measure::{measure, MeasureConfig, Measurement, Operation};
use fray_integrity::model::{model_table, ModelParams};
use fray_integrity::pipeline::ChunkPlan;
use fray_integrity::quality::{detection_table, QualityConfig, QualityResult, Requirement};
use fray_integrity::tune::{tune, TuneConfig};
use fray_integrity::Algorithm;
use pyo3::prelude::*;

use super::checksums::algorithm;
use crate::errors::integrity_error;

/// `(algorithm, operation, size_bytes, median_s, bandwidth_bytes_s, samples_s)`.
type MeasurementRow = (&'static str, &'static str, usize, f64, f64, Vec<f64>);
/// `(pattern, trials, missed)`.
type DetectionRow = (String, u64, u64);
/// `(algorithm, meets, detection, strategy, total_time_s, bandwidth_bytes_s, measurements)`.
type CandidateRow = (
    &'static str,
    bool,
    Vec<DetectionRow>,
    Option<&'static str>,
    f64,
    f64,
    Vec<MeasurementRow>,
);

fn algorithms(names: &[String]) -> PyResult<Vec<Algorithm>> {
    names.iter().map(|n| algorithm(n)).collect()
}

fn patterns(names: &[String]) -> PyResult<Vec<ErrorPattern>> {
    names
        .iter()
        .map(|n| ErrorPattern::parse(n).map_err(integrity_error))
        .collect()
}

fn measurement_row(m: &Measurement) -> MeasurementRow {
    (
        m.algorithm.name(),
        m.operation.name(),
        m.size_bytes,
        m.median_s,
        m.bandwidth_bytes_s,
        m.samples_s.clone(),
    )
}

fn detection_row(r: &QualityResult) -> DetectionRow {
    (r.pattern.name(), r.trials, r.missed)
}

/// `[(algorithm, pattern, trials, missed)]` for every pair.
#[pyfunction]
fn integrity_detection_table(
    py: Python<'_>,
    algorithms: Vec<String>,
    patterns: Vec<String>,
    message_bytes: usize,
    trials: u64,
    seed: u64,
) -> PyResult<Vec<(&'static str, String, u64, u64)>> {
    let algs = self::algorithms(&algorithms)?;
    let pats = self::patterns(&patterns)?;
    let cfg = QualityConfig {
        message_bytes,
        trials,
        seed,
    };
    let rows = py
        .detach(|| detection_table(&algs, &pats, &cfg))
        .map_err(integrity_error)?;
    Ok(rows
        .iter()
        .map(|r| (r.algorithm.name(), r.pattern.name(), r.trials, r.missed))
        .collect())
}

/// Times one operation: `(algorithm, operation, size_bytes, median_s, bandwidth_bytes_s, samples_s)`.
#[pyfunction]
fn integrity_measure(
    py: Python<'_>,
    operation: &str,
    algorithm: &str,
    size_bytes: usize,
    min_sample_s: f64,
    samples: usize,
) -> PyResult<MeasurementRow> {
    let op = Operation::parse(operation).map_err(integrity_error)?;
    let a = self::algorithm(algorithm)?;
    let cfg = MeasureConfig {
        min_sample_s,
        samples,
    };
    let m = py
        .detach(|| measure(op, a, size_bytes, &cfg))
        .map_err(integrity_error)?;
    Ok(measurement_row(&m))
}

/// Tunes: `(algorithm, strategy, bandwidth_bytes_s, [candidate rows])`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn integrity_tune(
    py: Python<'_>,
    sizes_bytes: Vec<usize>,
    candidates: Vec<String>,
    patterns: Vec<String>,
    message_bytes: usize,
    trials: u64,
    seed: u64,
    min_sample_s: f64,
    samples: usize,
) -> PyResult<(&'static str, &'static str, f64, Vec<CandidateRow>)> {
    let cfg = TuneConfig {
        sizes_bytes,
        candidates: self::algorithms(&candidates)?,
        requirement: Requirement {
            patterns: self::patterns(&patterns)?,
            config: QualityConfig {
                message_bytes,
                trials,
                seed,
            },
        },
        measure: MeasureConfig {
            min_sample_s,
            samples,
        },
    };
    let r = py.detach(|| tune(&cfg)).map_err(integrity_error)?;
    let rows = r
        .candidates
        .iter()
        .map(|c| {
            (
                c.algorithm.name(),
                c.meets_requirement,
                c.detection.iter().map(detection_row).collect(),
                c.strategy.map(|s| s.name()),
                c.total_time_s,
                c.bandwidth_bytes_s,
                c.measurements.iter().map(measurement_row).collect(),
            )
        })
        .collect();
    Ok((
        r.algorithm.name(),
        r.strategy.name(),
        r.bandwidth_bytes_s,
        rows,
    ))
}

/// The paper's parameters: `(net_bandwidth_bytes_s, net_latency_s, csum_bandwidth_bytes_s,
/// gap_s, sub_block_bytes, rendezvous_threshold_bytes)`.
#[pyfunction]
fn integrity_paper_params() -> (f64, f64, f64, f64, f64, f64) {
    let p = ModelParams::paper();
    (
        p.net_bandwidth_bytes_s,
        p.net_latency_s,
        p.csum_bandwidth_bytes_s,
        p.gap_s,
        p.sub_block_bytes,
        p.rendezvous_threshold_bytes,
    )
}

/// Every model at every size: `[(size_bytes, [(model, time_s, bandwidth_bytes_s, overhead)])]`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[allow(clippy::type_complexity)]
fn integrity_model_table(
    sizes_bytes: Vec<f64>,
    net_bandwidth_bytes_s: f64,
    net_latency_s: f64,
    csum_bandwidth_bytes_s: f64,
    gap_s: f64,
    sub_block_bytes: f64,
    rendezvous_threshold_bytes: f64,
) -> PyResult<Vec<(f64, Vec<(&'static str, f64, f64, f64)>)>> {
    let p = ModelParams {
        net_bandwidth_bytes_s,
        net_latency_s,
        csum_bandwidth_bytes_s,
        gap_s,
        sub_block_bytes,
        rendezvous_threshold_bytes,
    };
    let rows = model_table(&sizes_bytes, &p).map_err(integrity_error)?;
    Ok(rows
        .into_iter()
        .map(|r| {
            (
                r.size_bytes,
                r.curves
                    .into_iter()
                    .map(|(m, t, bw, o)| (m.name(), t, bw, o))
                    .collect(),
            )
        })
        .collect())
}

/// The CPU brand string.
#[pyfunction]
fn integrity_cpu_model() -> String {
    fray_integrity::cpu::cpu_model()
}

/// The CPU features the checksum paths use.
#[pyfunction]
fn integrity_cpu_features() -> Vec<&'static str> {
    fray_integrity::cpu::cpu_features()
}

/// Chunk lengths (bytes) of a pipelined message.
#[pyfunction]
fn integrity_chunk_plan(
    message_bytes: usize,
    first_chunk_bytes: usize,
    ratio: f64,
    max_chunk_bytes: usize,
    align_bytes: usize,
) -> PyResult<Vec<usize>> {
    ChunkPlan {
        first_chunk_bytes,
        ratio,
        max_chunk_bytes,
        align_bytes,
    }
    .chunks(message_bytes)
    .map_err(integrity_error)
}

/// Chunk plan of the cross-node rendezvous from the model:
/// `(first_chunk_bytes, ratio, max_chunk_bytes)`, chunks used largest first.
#[pyfunction]
fn integrity_net_chunk_plan(
    net_bandwidth_bytes_s: f64,
    gap_s: f64,
    csum_bandwidth_bytes_s: f64,
) -> PyResult<(usize, f64, usize)> {
    let p = fray_integrity::model::ModelParams {
        net_bandwidth_bytes_s,
        gap_s,
        csum_bandwidth_bytes_s,
        ..fray_integrity::model::ModelParams::paper()
    };
    let plan = fray_integrity::model::net_chunk_plan(&p).map_err(integrity_error)?;
    Ok((plan.first_chunk_bytes, plan.ratio, plan.max_chunk_bytes))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(integrity_net_chunk_plan, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_detection_table, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_measure, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_tune, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_paper_params, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_model_table, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_cpu_model, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_cpu_features, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_chunk_plan, m)?)?;
    Ok(())
}
