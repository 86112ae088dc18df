//! Transfer-time models of the paper (section 3, 4.2 and 4.3), and the apparent bandwidth
//! they predict.
//!
//! With `λ` the network latency (s), `B_net` the network bandwidth, `B_csum` the checksum (or
//! fused copy+checksum) bandwidth (bytes/s) and `L` the message length (bytes):
//! - raw network: `T = λ + L / B_net`
//! - naive (checksum, send, checksum): `T = 2 L / B_csum + λ + L / B_net`
//! - eager with fused copy+checksum on both sides: `T = 2 L / B_csum+copy + λ + L / B_net`
//! - super-pipelined rendezvous: `T = b / B_copy + g n + λ + L / B_net` with
//!   `n = log_q(1 + L (q - 1) / C0)`, `q = B_copy / B_net`, `C0 = 2 λ B_copy`.

use crate::error::IntegrityError;
use crate::pipeline::ChunkPlan;

/// The parameters of the models. Bandwidths in bytes per second, times in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelParams {
    /// Network bandwidth `B_net` (bytes/s).
    pub net_bandwidth_bytes_s: f64,
    /// Network latency `λ` (s).
    pub net_latency_s: f64,
    /// Checksum bandwidth, also used for the fused copy+checksum `B_csum+copy` (bytes/s).
    pub csum_bandwidth_bytes_s: f64,
    /// Gap between two pipelined chunks `g` (s), as in LogP.
    pub gap_s: f64,
    /// Sub-block `b` whose copy is not overlapped at the end of the pipeline (bytes).
    pub sub_block_bytes: f64,
    /// Messages up to this size use the eager path; larger ones the pipeline (bytes).
    pub rendezvous_threshold_bytes: f64,
}

/// The slowest bandwidth the models take (bytes/s: one bit per second, the slowest rate
/// `fray_core::units` reads): below it, down to subnormal rates, times of ordinary messages
/// overflow to infinity and every overhead reads NaN.
pub const MIN_BANDWIDTH_BYTES_S: f64 = 0.125;

impl ModelParams {
    /// The paper's `jack` cluster: 3 GB/s, 1.4 us, 6 GB/s checksum, 300 ns gap, 4 KiB
    /// sub-block, 16 KiB rendezvous threshold.
    pub const fn paper() -> Self {
        ModelParams {
            net_bandwidth_bytes_s: 3e9,
            net_latency_s: 1.4e-6,
            csum_bandwidth_bytes_s: 6e9,
            gap_s: 300e-9,
            sub_block_bytes: 4096.0,
            rendezvous_threshold_bytes: 16384.0,
        }
    }

    /// Checks that every parameter is finite and in range; names the bad field.
    pub fn validate(&self) -> Result<(), IntegrityError> {
        let positive = [
            ("net", self.net_bandwidth_bytes_s),
            ("csum", self.csum_bandwidth_bytes_s),
        ];
        for (field, v) in positive {
            if !(v.is_finite() && v > 0.0) {
                return Err(IntegrityError::invalid(
                    field,
                    format!("bandwidth must be > 0, got {v}"),
                ));
            }
            if v < MIN_BANDWIDTH_BYTES_S {
                return Err(IntegrityError::invalid(
                    field,
                    format!("bandwidth must be at least 1 b/s (0.125 B/s), got {v:e} B/s"),
                ));
            }
        }
        let non_negative = [
            ("latency", self.net_latency_s),
            ("gap", self.gap_s),
            ("sub_block", self.sub_block_bytes),
            ("rendezvous_threshold", self.rendezvous_threshold_bytes),
        ];
        for (field, v) in non_negative {
            if !(v.is_finite() && v >= 0.0) {
                return Err(IntegrityError::invalid(
                    field,
                    format!("must be >= 0, got {v}"),
                ));
            }
        }
        Ok(())
    }
}

/// Raw network time for `len_bytes` (s): `λ + L / B_net`.
pub fn raw_time_s(len_bytes: f64, p: &ModelParams) -> f64 {
    p.net_latency_s + len_bytes / p.net_bandwidth_bytes_s
}

/// Naive approach (s): checksum on the sender, send, checksum on the receiver.
pub fn naive_time_s(len_bytes: f64, p: &ModelParams) -> f64 {
    2.0 * len_bytes / p.csum_bandwidth_bytes_s + raw_time_s(len_bytes, p)
}

/// Eager path with the checksum fused in the copy on both sides (s).
pub fn eager_fused_time_s(len_bytes: f64, p: &ModelParams) -> f64 {
    naive_time_s(len_bytes, p)
}

/// Number of pipeline gaps `n = log_q(1 + L (q - 1) / C0)` for copy bandwidth `copy_bytes_s`.
///
/// When the copy is not faster than the network (`q <= 1`) the chunks cannot grow; the
/// pipeline then uses `L / C0` chunks of size `C0`.
pub fn pipeline_gaps(len_bytes: f64, copy_bytes_s: f64, p: &ModelParams) -> f64 {
    let c0 = first_chunk_bytes(copy_bytes_s, p);
    let q = copy_bytes_s / p.net_bandwidth_bytes_s;
    if c0 <= 0.0 {
        return 0.0;
    }
    if q > 1.0 {
        (1.0 + len_bytes * (q - 1.0) / c0).ln() / q.ln()
    } else {
        len_bytes / c0
    }
}

/// First chunk of the super-pipeline, whose copy overlaps the rendezvous round trip (bytes):
/// `C0 = 2 λ B_copy`.
pub fn first_chunk_bytes(copy_bytes_s: f64, p: &ModelParams) -> f64 {
    2.0 * p.net_latency_s * copy_bytes_s
}

/// Super-pipelined rendezvous whose copy runs at `copy_bytes_s` (s).
///
/// `T = b / B_copy + g n + λ + L / B_net` while the copy outpaces the network; otherwise the
/// copy is the bottleneck and `T = λ + L / B_copy + b / B_net + g n`.
pub fn superpipeline_time_s(len_bytes: f64, copy_bytes_s: f64, p: &ModelParams) -> f64 {
    let b = p.sub_block_bytes.min(len_bytes);
    let n = pipeline_gaps(len_bytes, copy_bytes_s, p);
    if copy_bytes_s > p.net_bandwidth_bytes_s {
        b / copy_bytes_s + p.gap_s * n + raw_time_s(len_bytes, p)
    } else {
        p.net_latency_s + len_bytes / copy_bytes_s + b / p.net_bandwidth_bytes_s + p.gap_s * n
    }
}

/// Super-pipeline with the checksum fused in its copies (copy runs at `B_csum+copy`) (s).
pub fn pipelined_checksum_time_s(len_bytes: f64, p: &ModelParams) -> f64 {
    superpipeline_time_s(len_bytes, p.csum_bandwidth_bytes_s, p)
}

/// fray's protocol: eager with fused copy up to the rendezvous threshold, pipelined above (s).
pub fn fray_time_s(len_bytes: f64, p: &ModelParams) -> f64 {
    if len_bytes <= p.rendezvous_threshold_bytes {
        eager_fused_time_s(len_bytes, p)
    } else {
        pipelined_checksum_time_s(len_bytes, p)
    }
}

/// Share of a chunk's network time that the gap before it may cost in the zero-copy
/// rendezvous (1 %).
pub const NET_GAP_SHARE: f64 = 0.01;

/// Chunk plan of the zero-copy rendezvous across nodes ([`crate::net`]), whose chunks are
/// used largest first ([`ChunkPlan::chunks_shrinking`]), from the model's parameters:
///
/// - the last, smallest chunk is verified after the data has arrived, which costs
///   `C_last / B_csum`; splitting it further costs a gap `g` per chunk, so
///   `C_last = g B_csum` balances the two;
/// - chunk `k` is verified while chunk `k + 1` arrives when `C_k / B_csum <= C_{k+1} / B_net`:
///   the ratio of the series is `q = B_csum / B_net` (at least 1: a checksum slower than the
///   network cannot be hidden, and the chunks stay equal);
/// - the largest chunk keeps the gap before it under [`NET_GAP_SHARE`] of its network time:
///   `C_max = g B_net / NET_GAP_SHARE`.
///
/// Sizes are rounded to 64 bytes, the smallest chunk is at least 4 KiB (the paper's
/// sub-block) and the largest at most 64 MiB.
pub fn net_chunk_plan(p: &ModelParams) -> Result<ChunkPlan, IntegrityError> {
    p.validate()?;
    const ALIGN: f64 = 64.0;
    let round = |x: f64| ((x / ALIGN).round() * ALIGN) as usize;
    let smallest = round((p.gap_s * p.csum_bandwidth_bytes_s).clamp(4096.0, 64.0 * 1048576.0));
    let largest = round(
        (p.gap_s * p.net_bandwidth_bytes_s / NET_GAP_SHARE)
            .clamp(smallest as f64, 64.0 * 1048576.0),
    );
    let plan = ChunkPlan {
        first_chunk_bytes: smallest,
        ratio: (p.csum_bandwidth_bytes_s / p.net_bandwidth_bytes_s).max(1.0),
        max_chunk_bytes: largest,
        align_bytes: ALIGN as usize,
    };
    plan.validate()?;
    Ok(plan)
}

/// Asymptotic bandwidth of the naive approach (bytes/s): `1 / (1/B_net + 2/B_csum)`.
pub fn naive_asymptotic_bandwidth_bytes_s(p: &ModelParams) -> f64 {
    1.0 / (1.0 / p.net_bandwidth_bytes_s + 2.0 / p.csum_bandwidth_bytes_s)
}

/// Bandwidth loss of `time_s` against `reference_s` for the same message: `1 - T_ref / T`.
pub fn overhead(time_s: f64, reference_s: f64) -> f64 {
    1.0 - reference_s / time_s
}

/// Which model a curve shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// No checksum: raw network.
    Raw,
    /// Checksum, send, checksum.
    Naive,
    /// Eager with fused copy+checksum, at every size.
    EagerFused,
    /// Super-pipeline with the checksum in its copies, at every size.
    Pipelined,
    /// Eager up to the threshold, pipelined above.
    Fray,
}

impl Model {
    /// Every model, in plotting order.
    pub const ALL: [Model; 5] = [
        Model::Raw,
        Model::Naive,
        Model::EagerFused,
        Model::Pipelined,
        Model::Fray,
    ];

    /// Short name (`"raw"`, `"naive"`, `"eager_fused"`, `"pipelined"`, `"fray"`).
    pub const fn name(self) -> &'static str {
        match self {
            Model::Raw => "raw",
            Model::Naive => "naive",
            Model::EagerFused => "eager_fused",
            Model::Pipelined => "pipelined",
            Model::Fray => "fray",
        }
    }

    /// Transfer time of `len_bytes` under this model (s).
    pub fn time_s(self, len_bytes: f64, p: &ModelParams) -> f64 {
        match self {
            Model::Raw => raw_time_s(len_bytes, p),
            Model::Naive => naive_time_s(len_bytes, p),
            Model::EagerFused => eager_fused_time_s(len_bytes, p),
            Model::Pipelined => pipelined_checksum_time_s(len_bytes, p),
            Model::Fray => fray_time_s(len_bytes, p),
        }
    }
}

/// One row of a model table: a size and, per model, the time and apparent bandwidth.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRow {
    /// Message length (bytes).
    pub size_bytes: f64,
    /// `(model, time_s, bandwidth_bytes_s, overhead vs raw)` for every model of [`Model::ALL`].
    pub curves: Vec<(Model, f64, f64, f64)>,
}

/// Evaluates every model at every size.
pub fn model_table(sizes_bytes: &[f64], p: &ModelParams) -> Result<Vec<ModelRow>, IntegrityError> {
    p.validate()?;
    Ok(sizes_bytes
        .iter()
        .map(|&l| {
            let raw = raw_time_s(l, p);
            ModelRow {
                size_bytes: l,
                curves: Model::ALL
                    .iter()
                    .map(|&m| {
                        let t = m.time_s(l, p);
                        (m, t, l / t, overhead(t, raw))
                    })
                    .collect(),
            }
        })
        .collect())
}

#[cfg(test)]
mod bandwidths_below_a_byte_per_second_are_refused {
    use super::*;

    #[test]
    fn a_subnormal_net_bandwidth_is_an_error_not_nan() {
        let p = ModelParams {
            net_bandwidth_bytes_s: 1e-320,
            ..ModelParams::paper()
        };
        assert_eq!(
            model_table(&[8.0], &p).unwrap_err().to_string(),
            "net: bandwidth must be at least 1 b/s (0.125 B/s), got 1e-320 B/s"
        );
    }
}
