//! The node-local path of the checked transport: rings in a shared-memory window.

use std::collections::BTreeMap;

use fray_integrity::frame::SourceRef;
use fray_integrity::pipeline::ChunkPlan;
use fray_integrity::ring::{
    Injection, RingError, RingGeometry, RingReceiver, RingSender, Transfer,
};
use pyo3::prelude::*;

use super::buffers::Bytes;
use super::checksums::frame_algorithm;
use super::detach::{self, integrity_exception};
use crate::errors::{integrity_error, SpecError};

/// Maps a ring error: the user's mistakes are `SpecError`, the rest the transport's
/// `fray.integrity.IntegrityError` (a signal that stopped a wait is raised as itself).
fn ring_error(py: Python<'_>, e: RingError, peer: i32, signal: Option<PyErr>) -> PyErr {
    match e {
        RingError::Interrupted => signal
            .unwrap_or_else(|| integrity_exception(py, format!("rank {peer}: wait interrupted"))),
        RingError::Invalid(inner) => integrity_error(inner),
        RingError::TooLarge {
            capacity_bytes: Some(_),
            ..
        } => SpecError::new_err(format!("buf: from rank {peer}: {e}")),
        RingError::TagMismatch { .. } => SpecError::new_err(format!("tag: from rank {peer}: {e}")),
        other => integrity_exception(py, format!("rank {peer}: {other}")),
    }
}

/// Runs a ring operation without the GIL (see [`detach::without_gil`]), mapping its error.
fn without_gil<F>(py: Python<'_>, peer: i32, op: F) -> PyResult<Transfer>
where
    F: FnOnce(&mut dyn FnMut() -> bool) -> Result<Transfer, RingError> + Send,
{
    let (result, signal) = detach::without_gil(py, op);
    result.map_err(|e| ring_error(py, e, peer, signal))
}

/// Checked rings to and from the other ranks of one node, over shared memory that the caller
/// maps (an MPI shared-memory window) and keeps alive as long as this object lives.
///
/// It stays on the thread that built it (like the communicator it serves).
#[pyclass(module = "fray._fray", unsendable)]
pub struct SharedMemoryRings {
    senders: BTreeMap<i32, RingSender>,
    receivers: BTreeMap<i32, RingReceiver>,
    /// Largest message `send` accepts (bytes).
    max_message_bytes: usize,
    /// This rank's shared buffers, by number: (address, length in bytes).
    windows: Vec<(usize, usize)>,
    /// The exports of the regions, held so the buffers stay valid.
    _regions: Vec<Bytes>,
}

#[pymethods]
impl SharedMemoryRings {
    /// `outbound` and `inbound` map a peer rank to its ring's region (zeroed, writable, 64-byte
    /// aligned, `region_bytes(slots, slot_bytes)` long). Sizes in bytes.
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (rank, outbound, inbound, *, slots, slot_bytes, algorithm,
                        first_chunk_bytes, ratio, max_retries, max_message_bytes, ber, seed))]
    fn new(
        rank: i32,
        outbound: Vec<(i32, Bound<'_, PyAny>)>,
        inbound: Vec<(i32, Bound<'_, PyAny>)>,
        slots: usize,
        slot_bytes: usize,
        algorithm: &str,
        first_chunk_bytes: usize,
        ratio: f64,
        max_retries: u32,
        max_message_bytes: usize,
        ber: f64,
        seed: u64,
    ) -> PyResult<Self> {
        let geometry = RingGeometry {
            slots,
            slot_payload_bytes: slot_bytes,
        };
        let plan = ChunkPlan {
            first_chunk_bytes,
            ratio,
            max_chunk_bytes: slot_bytes,
            align_bytes: 64,
        };
        let alg = frame_algorithm(algorithm)?;
        let mut regions = Vec::new();
        let mut senders = BTreeMap::new();
        for (peer, obj) in outbound {
            let b = Bytes::writable(&obj, "outbound")?;
            let raw = b.raw();
            // SAFETY: the export is held in `_regions`; the caller keeps the mapping alive.
            let s =
                unsafe { RingSender::new(raw.addr() as *mut u8, raw.len(), geometry, plan, alg) }
                    .map_err(integrity_error)?;
            senders.insert(peer, s);
            regions.push(b);
        }
        let mut receivers = BTreeMap::new();
        for (peer, obj) in inbound {
            let b = Bytes::writable(&obj, "inbound")?;
            let raw = b.raw();
            let injection = Injection {
                ber,
                seed,
                ring_id: (peer as u64) << 20 | rank as u64,
            };
            // SAFETY: as above.
            let r = unsafe {
                RingReceiver::new(
                    raw.addr() as *mut u8,
                    raw.len(),
                    geometry,
                    max_retries,
                    injection,
                )
            }
            .map_err(integrity_error)?;
            receivers.insert(peer, r);
            regions.push(b);
        }
        Ok(SharedMemoryRings {
            senders,
            receivers,
            max_message_bytes,
            windows: Vec::new(),
            _regions: regions,
        })
    }

    /// Bytes of shared memory one ring of `slots` slots of `slot_bytes` bytes needs.
    #[staticmethod]
    fn region_bytes(slots: usize, slot_bytes: usize) -> PyResult<usize> {
        let g = RingGeometry {
            slots,
            slot_payload_bytes: slot_bytes,
        };
        g.validate().map_err(integrity_error)?;
        Ok(g.region_bytes())
    }

    /// Registers a shared buffer: `own` is this rank's part, `peers` maps every peer rank to
    /// its part (all parts mapped here, kept alive by the caller as long as this object
    /// lives). Every rank registers its buffers in the same order (collective). A message
    /// that lies inside `own` then goes in one copy: the peer copies it out of `own`.
    fn add_window(
        &mut self,
        own: &Bound<'_, PyAny>,
        peers: Vec<(i32, Bound<'_, PyAny>)>,
    ) -> PyResult<()> {
        let mine = Bytes::readable(own, "own")?;
        let raw = mine.raw();
        let mut views = Vec::new();
        for (peer, obj) in &peers {
            if !self.receivers.contains_key(peer) {
                return Err(SpecError::new_err(format!(
                    "peers: no ring from rank {peer}"
                )));
            }
            views.push((*peer, Bytes::readable(obj, "peers")?));
        }
        if views.len() != self.receivers.len() {
            return Err(SpecError::new_err(format!(
                "peers: expected the buffers of all {} peer ranks, got {}",
                self.receivers.len(),
                views.len()
            )));
        }
        for (peer, view) in views {
            let r = view.raw();
            let ring = self.receivers.get_mut(&peer).expect("checked above");
            // SAFETY: the export is held in `_regions` for the life of this object.
            unsafe { ring.add_window(r.addr() as *const u8, r.len()) };
            self._regions.push(view);
        }
        self.windows.push((raw.addr(), raw.len()));
        self._regions.push(mine);
        Ok(())
    }

    /// Sends `buf` to `dest` with `tag`; returns `(chunks, resent, one_copy)` once `dest`
    /// verified it. A `buf` inside a registered shared buffer goes in one copy.
    fn send(
        &mut self,
        py: Python<'_>,
        buf: &Bound<'_, PyAny>,
        dest: i32,
        tag: u32,
    ) -> PyResult<(u64, u64, bool)> {
        let src = Bytes::readable(buf, "buf")?;
        let raw = src.raw();
        if raw.len() > self.max_message_bytes {
            return Err(SpecError::new_err(format!(
                "message: {} bytes is larger than max_message_bytes ({})",
                raw.len(),
                self.max_message_bytes
            )));
        }
        let ring = self
            .senders
            .get_mut(&dest)
            .ok_or_else(|| SpecError::new_err(format!("dest: no ring to rank {dest}")))?;
        let source = self
            .windows
            .iter()
            .position(|&(base, len)| base <= raw.addr() && raw.addr() + raw.len() <= base + len)
            .map(|k| SourceRef {
                window: k as u32,
                offset_bytes: (raw.addr() - self.windows[k].0) as u64,
            });
        // SAFETY: the export lives until the end of this call.
        let t = without_gil(py, dest, |k| match source {
            Some(at) => ring.send_shared(unsafe { raw.slice() }, at, tag, k),
            None => ring.send(unsafe { raw.slice() }, tag, k),
        })?;
        Ok((t.chunks, t.corrupted, source.is_some()))
    }

    /// Receives the next message from `source` (or from whichever rank is first, when `None`)
    /// into `buf`; returns `(source, bytes, corrupted, injected_bits)`.
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
        let peer = match source {
            Some(p) if self.receivers.contains_key(&p) => p,
            Some(p) => return Err(SpecError::new_err(format!("source: no ring from rank {p}"))),
            None => self.first_ready(py)?,
        };
        let ring = self.receivers.get_mut(&peer).expect("checked above");
        // SAFETY: the export lives until the end of this call; `buf` is writable.
        let t = without_gil(py, peer, |k| ring.recv(unsafe { raw.slice_mut() }, tag, k))?;
        Ok((peer, t.message_bytes, t.corrupted, t.injected_bits))
    }
}

impl SharedMemoryRings {
    /// Waits until some peer has a message published; returns that peer.
    fn first_ready(&self, py: Python<'_>) -> PyResult<i32> {
        if self.receivers.is_empty() {
            return Err(SpecError::new_err(
                "source: this rank has no peer on its node",
            ));
        }
        let mut spins: u64 = 0;
        loop {
            if let Some((&p, _)) = self.receivers.iter().find(|(_, r)| r.ready()) {
                return Ok(p);
            }
            spins += 1;
            if spins.is_multiple_of(1 << 16) {
                py.check_signals()?;
                py.detach(std::thread::yield_now);
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SharedMemoryRings>()
}
