//! Workloads: who sends how many bytes to whom.

mod stencil;

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
