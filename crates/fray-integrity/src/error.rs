//! The error type of the integrity crate.

use thiserror::Error;

/// Everything that can go wrong in `fray-integrity`; bad input names the field it came from.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum IntegrityError {
    /// The algorithm name is not one of [`crate::Algorithm::ALL`].
    #[error("algorithm: unknown checksum {name:?} (known: {known})")]
    UnknownAlgorithm {
        /// The name as given.
        name: String,
        /// The known names, comma separated.
        known: String,
    },
    /// Source and destination of a copy differ in length (bytes).
    #[error("dst: destination holds {dst_bytes} bytes but the source holds {src_bytes}")]
    LengthMismatch {
        /// Destination length in bytes.
        dst_bytes: usize,
        /// Source length in bytes.
        src_bytes: usize,
    },
    /// A numeric parameter is out of its valid range.
    #[error("{field}: {reason}")]
    InvalidParameter {
        /// The parameter name, as the user typed it.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A transport frame is malformed (too short, wrong magic, header checksum mismatch).
    #[error("frame: {reason}")]
    BadFrame {
        /// What is wrong with the frame.
        reason: String,
    },
    /// No candidate algorithm detects the errors the user asked to catch.
    #[error("requirement: no candidate checksum detected every injected error ({reason})")]
    NoCandidate {
        /// Why the candidates were rejected.
        reason: String,
    },
}

impl IntegrityError {
    /// Builds an [`IntegrityError::InvalidParameter`].
    pub fn invalid(field: &'static str, reason: impl Into<String>) -> Self {
        IntegrityError::InvalidParameter {
            field,
            reason: reason.into(),
        }
    }
}
