//! Diagnostics: the paper's TopoBW nearest-neighbour bandwidth test (its phase plan, its
//! report, and the test run on a modelled machine), Cray netwatch logs, injected slow parts,
//! localisation of the part at fault from a report, and links below their peers on fabrics
//! read from files.

mod cost;
mod degrade;
mod locate;
mod netwatch;
mod peers;
mod study;
pub mod topobw;

pub use cost::{job_cost, JobCost};
pub use degrade::{apply_injections, tile_channel, Injection, SLOW_LANE_SHARE};
pub use locate::{
    locate, locate_hosts, PartKind, Suspect, HOST_LINK, LINK_SLOW_TRANSFERS, RESOLUTION,
    SLOW_SHARE, Z_THRESHOLD,
};
pub use netwatch::{parse_netwatch, LaneSide, Malformed, NetwatchEvent, NetwatchKind, NetwatchLog};
pub use peers::{slow_links, SlowLink};
pub use study::{localisation_study, Score, StudyConfig, StudyResult};

use thiserror::Error;

use crate::fabric::FabricError;
use crate::faults::FaultError;
use crate::routing::RoutingError;
use crate::sim::SimError;
use crate::workload::WorkloadError;

/// Errors raised by the diagnostics.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum DiagError {
    /// A line of an input (layout, report, degrade list) that cannot be used; `line` is
    /// 1-based.
    #[error("{}: {reason}", crate::file_at(file, *line))]
    Line {
        /// The input's name (a file name, or `--degrade`).
        file: String,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A value that cannot be used (a size, a count, a machine too small for a layout).
    #[error("{what}: {reason}")]
    Invalid {
        /// The field or value at fault.
        what: String,
        /// What is wrong.
        reason: String,
    },
    /// A bad name or machine shape.
    #[error(transparent)]
    Fabric(#[from] FabricError),
    /// A fault that cannot be applied.
    #[error(transparent)]
    Fault(#[from] FaultError),
    /// A transfer that faults leave unroutable.
    #[error(transparent)]
    Routing(#[from] RoutingError),
    /// A phase that cannot be made into a job.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    /// A stop was requested while a modelled test ran ([`crate::interrupt`]).
    #[error("interrupted")]
    Interrupted,
}

/// The flow engine's errors as the diagnostics report them: a pair it cannot route and a
/// phase it cannot run keep their kind, a stop stays a stop.
impl From<SimError> for DiagError {
    fn from(e: SimError) -> Self {
        match e {
            SimError::Routing(r) => Self::Routing(r),
            SimError::Workload(w) => Self::Workload(w),
            SimError::Interrupted => Self::Interrupted,
            other => Self::Invalid {
                what: other.field().unwrap_or("engine").to_string(),
                reason: other.to_string(),
            },
        }
    }
}
