//! Fabric-based (in-network) allreduce on XGFT fat trees under soft errors, with spatial or
//! temporal replication of its packets.
//!
//! # The operation
//! Every endpoint holds one operand packet ([`AllreduceConfig::packet_bytes`], 256 B: the few
//! operands fit in one InfiniBand MTU). The level-1 switches combine the packets of their
//! hosts, each switch sends its partial result up once the values of all its children have
//! fully arrived (a reduction needs the whole packet), the top of the tree completes the
//! result, and a multicast brings it down, each switch forwarding the head of the first good
//! copy as soon as it is in (cut-through). The operation ends when the last endpoint holds
//! the result.
//!
//! # Replication
//! - none: one up port (port 0) at every level, one root, one copy per channel;
//! - temporal `k`: the same tree, each packet sent `k` times back to back on its channel;
//!   the receiver uses the first good copy and drops the others;
//! - spatial `k`: every switch sends its partial result on `k` up ports (ports `0..k`), so
//!   `k^(h-1)` top switches each complete the result and multicast it down; a switch uses
//!   the first good copy from any parent. An endpoint's port is split into `k` independent
//!   channels of `1/k` of its bandwidth, one copy on each.
//!
//! # Timing
//! The channels of one operation carry only its own packets, one value per channel and
//! direction, so no packet ever waits behind another's: the time of every copy follows from
//! the packet engine's link model ([`first_good_copy`]: serialisation at the channel's
//! bandwidth, its latency, link-level retry of corrupted copies) along the tree, level by
//! level, without an event queue. Operations run back to back; each starts when the previous
//! one ended, and the soft-error processes run on across them. The split channels of an
//! endpoint port are separate channels for errors, each with the port's error process.

mod allreduce;
mod tree;

pub use allreduce::{allreduce_study, AllreduceConfig, AllreduceStudy, ErrorModel, MAX_OPS};
pub use tree::{ReductionTree, Replication};

use thiserror::Error;

use crate::sim::packet::first_good_copy;

/// Errors raised by a collective study: bad parameters, or a stop requested while it ran.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum CollectiveError {
    /// A parameter that cannot be used; `field` names it.
    #[error("{field}: {reason}")]
    Invalid {
        /// The parameter's name.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The study stopped between two operations because a stop was requested
    /// ([`crate::interrupt`]).
    #[error("interrupted")]
    Interrupted,
}

impl From<crate::interrupt::Interrupted> for CollectiveError {
    fn from(_: crate::interrupt::Interrupted) -> Self {
        Self::Interrupted
    }
}

fn invalid(field: &'static str, reason: impl Into<String>) -> CollectiveError {
    CollectiveError::Invalid {
        field,
        reason: reason.into(),
    }
}
