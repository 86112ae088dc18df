//! The failed-links study (papers/failed-links-dragonfly-hyperx.txt): how much do failed
//! links slow a machine's jobs down, and how sure is the answer?
//!
//! A [`LinksStudy`] names a workload ([`crate::workload::WorkloadSpec`]), a routing, the
//! class of cables that fail, the numbers of jobs, the failed percentages and the number of
//! seeds. Each case ([`LinksCase`]) places the jobs for its seed, fails its share of the
//! cables, and runs the jobs on its engine (the flow engine by default); the baseline of a case is the same seed
//! with no failure. [`LinksStudy::summarize`] turns the cases into one row per (jobs, failed
//! %) with the mean degradation of machine throughput and its 95 % confidence interval over
//! the seeds ([`mean_ci95`]).

mod repair;
mod stats;
mod study;

pub use repair::{RepairGain, RepairStep};
pub use stats::{mean_ci95, student_t975};
pub(crate) use study::throughput;
pub use study::{CaseLoads, CaseOutcome, DownCables, LinksCase, LinksRow, LinksStudy, MAX_CASES};

use thiserror::Error;

use crate::faults::FaultError;
use crate::routing::RoutingError;
use crate::sim::SimError;
use crate::workload::WorkloadError;

/// Why a study cannot run (an unroutable case is an outcome, not an error).
#[derive(Debug, Error)]
pub enum LinksError {
    /// The workload cannot be built.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    /// The routing cannot be built on this fabric.
    #[error(transparent)]
    Routing(#[from] RoutingError),
    /// The failures cannot be drawn.
    #[error(transparent)]
    Faults(#[from] FaultError),
    /// The engine stopped for another reason than an unroutable pair (a packet engine's
    /// deadlock, a bad setting).
    #[error(transparent)]
    Engine(#[from] SimError),
    /// A study setting out of range; `reason` names it.
    #[error("links study: {0}")]
    Invalid(String),
}
