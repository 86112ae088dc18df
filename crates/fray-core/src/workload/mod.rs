//! Workloads: who sends how many bytes to whom, and when.
//!
//! A [`Job`] is a [`Dag`] of operations (messages and compute, with dependencies) on its
//! ranks plus a placement of the ranks on endpoints. A static phase is a list of
//! [`Message`]s (the load engine's input).
//!
//! Application motifs ([`Motif`]: [`Halo3D26`], [`Sweep3D`], [`Lqcd`], [`UniformRandom`],
//! [`AllToAll`], [`StencilMotif`]) generate DAGs with the parameters of SST's Ember motifs; the sizing
//! helpers ([`largest_cube`], [`largest_square`], [`lqcd_job_size`]) and
//! [`linear_after_random_idle`] size and place several jobs as the failed-links study does.
//! [`HostCosts`] say what each message costs the ranks' cores (none unless asked for).

mod allreduce;
mod alltoall;
mod census;
mod dag;
mod exchange;
mod grid;
mod halo3d26;
mod host;
mod job;
mod layout;
mod lqcd;
mod motif;
mod posted;
mod progress;
mod sizing;
mod spec;
mod stencil;
mod stencil_motif;
mod sweep3d;
mod uniform_random;

pub use allreduce::allreduce_recursive_doubling;
pub use alltoall::AllToAll;
pub use census::DagCensus;
pub use dag::{Dag, DagBuilder, DagSize, Op, OpId, CONTROL_BYTES, MAX_DAG_EDGES, MAX_DAG_OPS};
pub use halo3d26::{Halo3D26, EMBER_HALO3D26_ORDER, EMBER_HALO3D26_PEFLOPS};
pub use host::{HostCosts, HostTimeline, Progress};
pub use job::Job;
pub use layout::{linear_after_random_idle, Layout};
pub use lqcd::{Lqcd, LqcdDecomposition, EMBER_SHORT_MSG_LENGTH_BYTES, SU3_VECTOR_ELEMENTS};
pub use motif::Motif;
pub use posted::{Arrival, PostedReceives, Posting};
pub use progress::JobsProgress;
pub use sizing::{
    largest_cube, largest_square, lqcd_job_size, ranks_per_job, LQCD_PAPER_LATTICE,
    LQCD_PAPER_RANKS, PAPER_ENDPOINT_BUDGET,
};
pub use spec::{WorkloadSpec, WORKLOADS};
pub use stencil::{Stencil, StencilKind};
pub use stencil_motif::StencilMotif;
pub use sweep3d::{Sweep3D, SWEEPS_PER_ITERATION};
pub use uniform_random::UniformRandom;

use thiserror::Error;

/// Errors raised while building a workload.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum WorkloadError {
    /// A workload description that cannot be used; `reason` names the bad part.
    #[error("workload {what}: {reason}")]
    Invalid {
        /// The workload or field named.
        what: String,
        /// What is wrong.
        reason: String,
    },
    /// A workload spec that cannot be read ([`WorkloadSpec`]); the error names the option.
    #[error(transparent)]
    Spec(#[from] crate::options::OptionError),
}

/// One message between two ranks of a job.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Message {
    /// Sending rank.
    pub src: u32,
    /// Receiving rank.
    pub dst: u32,
    /// Payload, in bytes.
    pub size_bytes: f64,
}

impl From<(u32, u32, f64)> for Message {
    /// A message from a `(src, dst, size_bytes)` triple.
    fn from((src, dst, size_bytes): (u32, u32, f64)) -> Self {
        Self {
            src,
            dst,
            size_bytes,
        }
    }
}

impl Message {
    /// Checks a list of messages between the ranks `0..num_ranks`: every rank exists and
    /// every size is a finite number of bytes at least 0. The error names the first bad
    /// message by its 0-based index.
    pub fn check_all(messages: &[Message], num_ranks: usize) -> Result<(), WorkloadError> {
        for (i, m) in messages.iter().enumerate() {
            let bad = |reason: String| WorkloadError::Invalid {
                what: format!("message {i}"),
                reason,
            };
            for (end, rank) in [("source", m.src), ("destination", m.dst)] {
                if rank as usize >= num_ranks {
                    return Err(bad(format!(
                        "{end} {rank} does not exist (endpoints 0 to {})",
                        num_ranks.saturating_sub(1)
                    )));
                }
            }
            if !(m.size_bytes.is_finite() && m.size_bytes >= 0.0) {
                return Err(bad(format!(
                    "size {} bytes: must be a finite number at least 0",
                    m.size_bytes
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod message_tests {
    use super::*;

    #[test]
    fn messages_to_missing_endpoints_or_of_bad_sizes_are_named() {
        let ok = [Message::from((0, 3, 1.0))];
        assert_eq!(Message::check_all(&ok, 4), Ok(()));
        let far = [
            Message::from((0, 1, 1.0)),
            Message::from((0, 1_000_000_000, 100.0)),
        ];
        let e = Message::check_all(&far, 4).unwrap_err().to_string();
        assert!(
            e.contains("message 1") && e.contains("destination 1000000000"),
            "{e}"
        );
        let nan = [Message::from((0, 1, f64::NAN))];
        assert!(Message::check_all(&nan, 4)
            .unwrap_err()
            .to_string()
            .contains("size"));
    }
}
