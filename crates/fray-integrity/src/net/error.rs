//! Why a message of the cross-node path was not delivered.

use std::fmt;

use crate::error::IntegrityError;

/// Why a message was not delivered.
#[derive(Debug, Clone, PartialEq)]
pub enum TransportError {
    /// Bad arguments: names the field.
    Invalid(IntegrityError),
    /// The message is larger than the receive buffer (bytes); it was drained.
    TooLarge {
        /// Rank that sent it.
        peer: i32,
        /// Length of the message (bytes).
        message_bytes: u64,
        /// Length of the receive buffer (bytes).
        capacity_bytes: u64,
    },
    /// The peer gave up on the message (the reason it gave).
    Aborted {
        /// Rank that aborted.
        peer: i32,
        /// Why.
        reason: &'static str,
    },
    /// Data stayed corrupted after every retry.
    Retries {
        /// The other rank.
        peer: i32,
        /// Sequence number of the message.
        seq: u64,
    },
    /// The frames contradict the protocol.
    Protocol(String),
    /// An MPI call failed, or no usable MPI library is loaded.
    Mpi(String),
    /// The caller's hook asked to stop waiting (e.g. a signal).
    Interrupted,
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::Invalid(e) => write!(f, "{e}"),
            TransportError::TooLarge {
                peer,
                message_bytes,
                capacity_bytes,
            } => write!(
                f,
                "buf: the message from rank {peer} has {message_bytes} bytes, the buffer holds \
                 {capacity_bytes}"
            ),
            TransportError::Aborted { peer, reason } => {
                write!(f, "rank {peer} aborted the message: {reason}")
            }
            TransportError::Retries { peer, seq } => write!(
                f,
                "message {seq} with rank {peer}: still corrupted after every retry"
            ),
            TransportError::Protocol(why) => write!(f, "protocol error: {why}"),
            TransportError::Mpi(why) => write!(f, "MPI: {why}"),
            TransportError::Interrupted => write!(f, "interrupted while waiting"),
        }
    }
}

impl std::error::Error for TransportError {}

impl From<IntegrityError> for TransportError {
    fn from(e: IntegrityError) -> Self {
        TransportError::Invalid(e)
    }
}
