//! The cross-node path of the checked transport: checked messages over an MPI communicator.

use fray_integrity::net::libmpi::{Abi, Mpi};
use fray_integrity::net::{NetConfig, NetTransport, SharedTransport, TransportError};
use fray_integrity::pipeline::ChunkPlan;
use pyo3::prelude::*;

use super::buffers::Bytes;
use super::checksums::frame_algorithm;
use super::detach::{integrity_exception, without_gil};
use crate::errors::{integrity_error, FrayError, SpecError};

/// Maps a transport error: the user's mistakes are `SpecError`, a failing MPI `FrayError`,
/// the rest the transport's `fray.integrity.IntegrityError` (a signal that stopped a wait is
/// raised as itself).
fn net_error(py: Python<'_>, e: TransportError, signal: Option<PyErr>) -> PyErr {
    match e {
        TransportError::Interrupted => {
            signal.unwrap_or_else(|| integrity_exception(py, e.to_string()))
        }
        TransportError::Invalid(inner) => integrity_error(inner),
        TransportError::TooLarge { .. } => SpecError::new_err(e.to_string()),
        TransportError::Mpi(_) => FrayError::new_err(e.to_string()),
        other => integrity_exception(py, other.to_string()),
    }
}

/// Checked messages over an MPI communicator, driven from Rust through the MPI library the
/// process has loaded (mpi4py's). It stays on the thread that built it (with logged eager
/// sends, a helper thread of its own serves them while the program is elsewhere).
#[pyclass(module = "fray._fray", unsendable)]
pub struct MpiTransport {
    inner: SharedTransport,
}

#[pymethods]
impl MpiTransport {
    /// `comm`, `byte`: the handles of the communicator and of `MPI_BYTE`; `any_source` the
    /// value of `MPI_ANY_SOURCE`; `request_bytes` the size of a request handle; `status` the
    /// bytes of an `MPI_Status` whose source field holds `status_source`. Sizes in bytes.
    /// `logged`: eager sends return without waiting for the receiver's verdict (every rank
    /// must agree, and MPI must run at `MPI_THREAD_MULTIPLE`).
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (*, comm, byte, any_source, request_bytes, status, status_source, rank,
                        tag_ub, algorithm, eager_threshold_bytes, first_chunk_bytes, ratio,
                        max_chunk_bytes, max_retries,
                        max_message_bytes, ber, seed, logged))]
    fn new(
        comm: usize,
        byte: usize,
        any_source: i32,
        request_bytes: usize,
        status: Vec<u8>,
        status_source: i32,
        rank: i32,
        tag_ub: i32,
        algorithm: &str,
        eager_threshold_bytes: usize,
        first_chunk_bytes: usize,
        ratio: f64,
        max_chunk_bytes: usize,
        max_retries: u32,
        max_message_bytes: usize,
        ber: f64,
        seed: u64,
        logged: bool,
    ) -> PyResult<Self> {
        let cfg = NetConfig {
            rank,
            tag_ub,
            algorithm: frame_algorithm(algorithm)?,
            eager_threshold_bytes,
            plan: ChunkPlan {
                first_chunk_bytes,
                ratio,
                max_chunk_bytes,
                align_bytes: 64,
            },
            max_retries,
            max_message_bytes,
            ber,
            seed,
            logged,
        };
        let map = |e| Python::attach(|py| net_error(py, e, None));
        let abi = Abi {
            comm,
            byte,
            any_source,
            status_bytes: status.len(),
            source_offset: Abi::source_offset_in(&status, status_source).map_err(map)?,
            request_bytes,
        };
        let mpi = Mpi::bind(abi).map_err(map)?;
        Ok(MpiTransport {
            inner: SharedTransport::new(NetTransport::new(mpi, cfg).map_err(map)?),
        })
    }

    /// Sends `buf` to `dest` with `tag`; returns `(chunks, resent)` once `dest` verified it,
    /// or, for a logged eager message, once it is on its way (`resent` then counts the frames
    /// of earlier messages resent since the last call).
    fn send(
        &mut self,
        py: Python<'_>,
        buf: &Bound<'_, PyAny>,
        dest: i32,
        tag: u32,
    ) -> PyResult<(u64, u64)> {
        let src = Bytes::readable(buf, "buf")?;
        let raw = src.raw();
        let inner = &self.inner;
        // SAFETY: the export lives until the end of this call.
        let (r, signal) = without_gil(py, |k| inner.send(unsafe { raw.slice() }, dest, tag, k));
        let t = r.map_err(|e| net_error(py, e, signal))?;
        Ok((t.chunks, t.resent))
    }

    /// Receives the next message with `tag` from `source` (any rank when `None`) into `buf`;
    /// returns `(source, bytes, corrupted, injected_bits)`.
    #[pyo3(signature = (buf, source, tag))]
    fn recv(
        &mut self,
        py: Python<'_>,
        buf: &Bound<'_, PyAny>,
        source: Option<i32>,
        tag: u32,
    ) -> PyResult<(i32, u64, u64, u64)> {
        let dst = Bytes::writable(buf, "buf")?;
        let raw = dst.raw();
        let inner = &self.inner;
        // SAFETY: the export lives until the end of this call; `buf` is writable.
        let (r, signal) = without_gil(py, |k| {
            inner.recv(unsafe { raw.slice_mut() }, source, tag, k)
        });
        let t = r.map_err(|e| net_error(py, e, signal))?;
        Ok((t.peer, t.message_bytes, t.corrupted, t.injected_bits))
    }

    /// Sends the acknowledgements owed and waits until every logged message has been
    /// verified by its receiver; raises the error of one that was refused. Returns the frames
    /// resent since the last call.
    fn flush(&mut self, py: Python<'_>) -> PyResult<u64> {
        let inner = &self.inner;
        let (r, signal) = without_gil(py, |k| inner.flush(k));
        r.map_err(|e| net_error(py, e, signal))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MpiTransport>()
}
