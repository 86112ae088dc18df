//! The spare-node study (Hori et al., "Overhead of Using Spare Nodes").
//!
//! A job runs a stencil on the compute part of a mesh or torus; spare nodes are reserved on
//! its sides ([`SpareAllocation`], the paper's `qD(r,s)`). When the node running a rank
//! fails, a [`Method`] moves ranks onto spare (or vacated) nodes: 0D takes the nearest free
//! node, kD sliding shifts a k-dimensional block of ranks one step towards the spares, and
//! hybrids try several degrees in order. The [`CollisionTracker`] recounts, incrementally,
//! the routes of the messages whose ranks moved, and reports the largest number of routes on
//! one directed channel ("message collisions"). A [`Study`] runs every failure set of a small
//! grid, or seeded random failure sequences of a large one, and keeps best / mean / worst
//! collisions and the share of each method per number of failures.
//!
//! As in the paper, a failed node loses its compute part only: its router still forwards
//! traffic, so routes never avoid failed nodes.

mod allocation;
mod collisions;
mod grid;
mod method;
mod placement;
mod study;
mod substitution;

pub use allocation::SpareAllocation;
pub use collisions::CollisionTracker;
pub use method::Method;
pub use placement::{Move, Placement};
pub use study::{study_shape, Curve, CurveRow, Study, StudyConfig};
pub use substitution::{Substituter, Substitution};

use thiserror::Error;

/// Errors raised by the spare-node study.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SparesError {
    /// An allocation spec (`qD(r,s)`) that cannot be read or does not fit the fabric.
    #[error("spare allocation {spec:?}: {reason}")]
    Allocation {
        /// The allocation as given.
        spec: String,
        /// What is wrong.
        reason: String,
    },
    /// A method spec that cannot be read or does not fit the fabric.
    #[error("substitution method {spec:?}: {reason}")]
    Method {
        /// The method as given.
        spec: String,
        /// What is wrong.
        reason: String,
    },
    /// A study parameter out of range (failures, samples, stencil).
    #[error("{field}: {reason}")]
    Parameter {
        /// The parameter's name.
        field: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The study stopped because a stop was requested ([`crate::interrupt`]); the cases of
    /// the call were not added to the curve.
    #[error("interrupted")]
    Interrupted,
}
