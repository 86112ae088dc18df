//! The one error type of every engine ([`SimError`]).

use thiserror::Error;

use crate::interrupt::Interrupted;
use crate::routing::RoutingError;
use crate::workload::WorkloadError;

/// Why a run on any engine (load, flow, packet) stopped without a result.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SimError {
    /// An engine setting out of range; `field` names it (`time_tolerance`, `mtu`, ...).
    #[error("{field}: {reason}")]
    Config {
        /// The setting's name.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A message could not be routed, or the routing does not fit the fabric.
    #[error(transparent)]
    Routing(#[from] RoutingError),
    /// The workload cannot be built or placed on the fabric.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    /// A path crosses a channel that lost every lane (engines that time packets on it).
    #[error("channel {channel} has no bandwidth left (every lane lost)")]
    NoBandwidth {
        /// The channel's name.
        channel: String,
    },
    /// Nothing can move any more while packets are still in the fabric (the packet engine).
    #[error("deadlock at {at_s} s: {messages} message(s) still in the fabric")]
    Deadlock {
        /// Messages not delivered.
        messages: usize,
        /// Simulated time when the engine ran out of events, in seconds.
        at_s: f64,
    },
    /// The simulated time passed what the packet engine's clock holds (`u64::MAX`
    /// picoseconds): an event fell due after it, so no time from there on can be trusted.
    #[error(
        "the run passed the {limit_s:.0} s the packet engine's clock holds (about 213 days \
         of simulated time): use fewer iterations or a shorter compute, or the flow engine"
    )]
    ClockPassed {
        /// The clock's limit, seconds.
        limit_s: f64,
    },
    /// A stop was requested while the run was in progress ([`crate::interrupt`]).
    #[error("interrupted")]
    Interrupted,
}

impl From<Interrupted> for SimError {
    fn from(_: Interrupted) -> Self {
        Self::Interrupted
    }
}

impl SimError {
    /// The setting or input the error is about: the setting of [`SimError::Config`],
    /// `routing` for a routing error, `workload` for a workload's or for a run that passed the
    /// packet engine's clock, `faults` for a channel without bandwidth; `None` for a deadlock
    /// or an interrupted run.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            Self::Config { field, .. } => Some(field),
            Self::Routing(_) => Some("routing"),
            Self::Workload(_) => Some("workload"),
            Self::NoBandwidth { .. } => Some("faults"),
            Self::Deadlock { .. } | Self::Interrupted => None,
            Self::ClockPassed { .. } => Some("workload"),
        }
    }

    /// Whether the error says the workload cannot run on this fault state (a pair the
    /// routing cannot serve, or a path over a channel with no lane left): a study's
    /// outcome rather than a failure of the run.
    pub fn is_unroutable(&self) -> bool {
        matches!(
            self,
            Self::Routing(RoutingError::Unroutable { .. }) | Self::NoBandwidth { .. }
        )
    }
}
