//! Workloads: who sends how many bytes to whom, and when.
//!
//! A [`Job`] is a [`Dag`] of operations (messages and compute, with dependencies) on its
//! ranks plus a placement of the ranks on endpoints. A static phase is a list of
//! [`Message`]s (the load engine's input).
//!
//! Application motifs ([`Motif`]: [`Halo3D26`], [`Sweep3D`], [`Lqcd`], [`UniformRandom`],
//! [`StencilMotif`]) generate DAGs with the parameters of SST's Ember motifs; the sizing
//! helpers ([`largest_cube`], [`largest_square`], [`lqcd_job_size`]) and
//! [`linear_after_random_idle`] size and place several jobs as the failed-links study does.
//! [`HostCosts`] say what each message costs the ranks' cores (none unless asked for).

mod allreduce;
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
pub use dag::{Dag, DagBuilder, Op, OpId, CONTROL_BYTES};
pub use halo3d26::{Halo3D26, EMBER_HALO3D26_PEFLOPS};
pub use host::{HostCosts, HostTimeline};
pub use job::Job;
pub use layout::linear_after_random_idle;
pub use lqcd::{Lqcd, LqcdDecomposition, EMBER_SHORT_MSG_LENGTH_BYTES, SU3_VECTOR_ELEMENTS};
pub use motif::Motif;
pub use posted::PostedReceives;
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
