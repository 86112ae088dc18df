//! Workloads: who sends how many bytes to whom, and when.
//!
//! A [`Job`] is a [`Dag`] of operations (messages and compute, with dependencies) on its
//! ranks plus a placement of the ranks on endpoints. A static phase is a list of
//! [`Message`]s (the load engine's input).

mod dag;
mod job;
mod stencil;

pub use dag::{Dag, DagBuilder, Op, OpId};
pub use job::Job;
pub use stencil::{Stencil, StencilKind};

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
