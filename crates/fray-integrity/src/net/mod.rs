//! The cross-node path of the checked transport: checked messages as MPI messages, driven
//! from Rust through the MPI library the process has loaded ([`libmpi`]).
//!
//! Without a checksum (`algorithm: None`) there is nothing to verify and nothing to resend,
//! so a message is a single plain MPI message from the user's buffer straight into the
//! receiver's: no header, no trailer, no verdict (see [`NetTransport::send`]). With one, two
//! protocols, chosen by size:
//!
//! * **eager** (up to `eager_threshold_bytes`): one frame, a 64-byte header then the payload,
//!   copied from the user's buffer with the checksum computed inside the copy, and verified
//!   inside the copy out on the receiver ([`crate::frame`]).
//! * **rendezvous**, zero-copy: a 32-byte request-to-send announces the length, then every chunk
//!   goes as its own MPI message straight from the user's buffer into the receiver's, and a
//!   [`trailer`] carries the chunks' checksums. The sender checksums chunk `i` while the
//!   chunks are in flight; the receiver checksums chunk `i` in place while later chunks arrive.
//!   Chunks shrink geometrically towards the end of the message ([`ChunkPlan::chunks_shrinking`])
//!   so that the checksum of each chunk overlaps the arrival of the next, and only the last,
//!   small one is not overlapped: the mirror image of the paper's super-pipeline, whose chunks
//!   grow because there the copy comes before the network.
//!
//! A rendezvous message is answered with a verdict: OK, a NACK naming the damaged chunks
//! (resent from the user's buffer, which `send` keeps until then: these sends are synchronous,
//! like `MPI_Ssend`), or an abort. An eager message is too when `logged` is off; with it on
//! (it needs `MPI_THREAD_MULTIPLE`), the sender keeps its frame and returns at once, and the
//! verdict comes later, mostly riding on other frames ([`ledger`]). A receive returns intact
//! data or an error; after an error the receive buffer holds undefined bytes.
//!
//! Wire tags are `4 * tag + kind`, kinds [`KIND_FIRST`] (eager frame or request-to-send),
//! [`KIND_CHUNK`] (chunks and trailers), [`KIND_VERDICT`] and [`ledger::KIND_RESEND`]; the
//! last kind of the largest tag carries the ledger's control messages. MPI keeps messages of
//! one kind between two ranks in order, so chunks need no matching of their own.

mod error;
mod helper;
pub mod ledger;
pub mod libmpi;
mod recv;
mod send;
pub mod trailer;

use std::cell::RefCell;
use std::collections::HashMap;

use crate::algorithm::Algorithm;
use crate::checksum::checksum;
use crate::error::IntegrityError;
use crate::frame::{HEADER_BYTES, RTS_BYTES};
use crate::inject::{inject_ber, rng_for};
use crate::pipeline::ChunkPlan;
pub use error::TransportError;
pub use helper::SharedTransport;
use ledger::Ledger;
use libmpi::{Mpi, Request};

/// Wire-tag kind of an eager frame or a request-to-send.
pub const KIND_FIRST: i32 = 0;
/// Wire-tag kind of a chunk or a trailer.
pub const KIND_CHUNK: i32 = 1;
/// Wire-tag kind of a verdict.
pub const KIND_VERDICT: i32 = 2;

const OK: i64 = 0;
const NACK: i64 = 1;
const ABORT: i64 = 2;
const RTS_NACK: i64 = 3;
const ABORT_TOO_LARGE: i64 = 1;
const ABORT_RETRIES: i64 = 2;
const ABORT_PROTOCOL: i64 = 3;
/// MPI polls between two calls of the caller's "keep waiting?" hook.
const POLLS_PER_CHECK: u32 = 1 << 14;
/// MPI polls of a wait between two looks at the ledger's control messages.
const LEDGER_POLL_EVERY: u32 = 64;

fn abort_reason(detail: i64) -> &'static str {
    match detail {
        ABORT_TOO_LARGE => "the message is larger than the receive buffer",
        ABORT_RETRIES => "the message stayed corrupted after every retry",
        _ => "the frames were out of step",
    }
}

/// Settings of a [`NetTransport`]. Sizes in bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NetConfig {
    /// Rank of this process in the communicator.
    pub rank: i32,
    /// Largest tag the communicator accepts (`MPI_TAG_UB`).
    pub tag_ub: i32,
    /// Checksum of the payloads; `None` for no checksum: each message is then one plain MPI
    /// message (a baseline for measurements, which detects nothing).
    pub algorithm: Option<Algorithm>,
    /// Messages up to this size go as one eager frame (bytes).
    pub eager_threshold_bytes: usize,
    /// Chunk sizes of the rendezvous path, used largest first.
    pub plan: ChunkPlan,
    /// Resends of a damaged message before giving up.
    pub max_retries: u32,
    /// Largest message accepted (bytes).
    pub max_message_bytes: usize,
    /// Injected bit error rate on arriving frames (0 for none).
    pub ber: f64,
    /// Seed of the injected errors.
    pub seed: u64,
    /// Eager sends return without waiting for the verdict, keeping their frame ([`ledger`]).
    /// Every rank of the communicator must agree, and MPI must run at
    /// `MPI_THREAD_MULTIPLE` for the helper thread of [`SharedTransport`].
    pub logged: bool,
}

impl NetConfig {
    fn validate(&self) -> Result<(), IntegrityError> {
        self.plan.validate()?;
        if i32::try_from(self.plan.max_chunk_bytes).is_err() {
            return Err(IntegrityError::invalid(
                "max_chunk",
                "must fit in one MPI message (< 2 GiB)",
            ));
        }
        if i32::try_from(self.eager_threshold_bytes + HEADER_BYTES).is_err() {
            return Err(IntegrityError::invalid(
                "eager_threshold",
                "must fit in one MPI message (< 2 GiB)",
            ));
        }
        if !(self.ber.is_finite() && (0.0..=1.0).contains(&self.ber)) {
            return Err(IntegrityError::invalid(
                "ber",
                format!("bit error rate must be in [0, 1], got {}", self.ber),
            ));
        }
        if self.tag_ub < 7 {
            return Err(IntegrityError::invalid("tag_ub", "must be >= 7"));
        }
        Ok(())
    }
}

/// What one message cost, for statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Transfer {
    /// The other rank.
    pub peer: i32,
    /// Length of the message (bytes).
    pub message_bytes: u64,
    /// Chunks of the first attempt (1 for an eager message).
    pub chunks: u64,
    /// Frames sent again (chunks, trailers, requests-to-send, eager frames).
    pub resent: u64,
    /// Damaged frames the receiver found.
    pub corrupted: u64,
    /// Bits flipped by fault injection on this end.
    pub injected_bits: u64,
}

/// Checked point-to-point messages over one MPI communicator.
pub struct NetTransport {
    mpi: Mpi,
    cfg: NetConfig,
    send_seq: HashMap<i32, u64>,
    recv_seq: HashMap<i32, u64>,
    eager_out: Vec<u8>,
    eager_in: Vec<u8>,
    ledger: RefCell<Ledger>,
}

impl Drop for NetTransport {
    fn drop(&mut self) {
        self.close_ledger();
    }
}

impl NetTransport {
    /// A transport over the communicator of `mpi`, with `cfg`.
    pub fn new(mpi: Mpi, cfg: NetConfig) -> Result<Self, TransportError> {
        cfg.validate()?;
        let first = HEADER_BYTES + cfg.eager_threshold_bytes;
        Ok(NetTransport {
            mpi,
            cfg,
            send_seq: HashMap::new(),
            recv_seq: HashMap::new(),
            eager_out: vec![0; first],
            eager_in: vec![0; (first + ledger::MAX_BLOCK_BYTES).max(RTS_BYTES)],
            ledger: RefCell::new(Ledger::default()),
        })
    }

    /// The largest tag a user may give (the next one is the ledger's).
    pub fn max_tag(&self) -> i32 {
        (self.cfg.tag_ub - 3) / 4 - 1
    }

    fn wire(&self, tag: u32, kind: i32) -> Result<i32, TransportError> {
        let max = self.max_tag();
        match i32::try_from(tag) {
            Ok(t) if t <= max => Ok(t * 4 + kind),
            _ => Err(
                IntegrityError::invalid("tag", format!("must be in [0, {max}], got {tag}")).into(),
            ),
        }
    }

    fn check_size(&self, n: usize) -> Result<(), TransportError> {
        if n > self.cfg.max_message_bytes {
            return Err(IntegrityError::invalid(
                "message",
                format!(
                    "{n} bytes is larger than max_message_bytes ({})",
                    self.cfg.max_message_bytes
                ),
            )
            .into());
        }
        Ok(())
    }

    /// Waits for `req`, driving MPI; returns `(source, bytes)` of a receive. A wait that
    /// ends in an error (a signal, a peer that gave up) cancels `req`, so that no receive is
    /// left posted into a buffer the caller takes back.
    fn wait(
        &self,
        req: &mut Request,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<(i32, usize), TransportError> {
        let r = self.wait_until(&mut || self.mpi.test(req), keep_waiting);
        if r.is_err() && !req.is_done() && self.mpi.cancel(req).is_ok() {
            // A cancelled request still completes (as cancelled, or as done after all); one
            // MPI cannot cancel (a send, on some) is left as it is.
            let _ = (0..1 << 20).any(|_| !matches!(self.mpi.test(req), Ok(None)));
        }
        r
    }

    /// The rank whose next message with wire tag `wire` has arrived, waiting for one. A
    /// receive from `MPI_ANY_SOURCE` is not used: over MPICH's TCP path, one posted after its
    /// message arrived (while this rank drove MPI for something else) never completes.
    fn wait_for_sender(
        &self,
        wire: i32,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<i32, TransportError> {
        self.wait_until(
            &mut || self.mpi.iprobe(self.mpi.any_source(), wire),
            keep_waiting,
        )
    }

    /// Calls `poll`, which drives MPI, until it gives a value. With logged eager messages, a
    /// wait that does not end at once first sends the acknowledgements owed (nothing else
    /// would carry them while this rank waits) and serves control messages now and then (a
    /// rank that waits here may be the one another rank needs a resend from); a peer that
    /// gave up on one of this rank's messages ends the wait with that error, since what
    /// this rank waits for may never come (the peer stopped after giving up).
    fn wait_until<T>(
        &self,
        poll: &mut dyn FnMut() -> Result<Option<T>, TransportError>,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<T, TransportError> {
        let mut polls: u32 = 0;
        loop {
            if let Some(done) = poll()? {
                return Ok(done);
            }
            if self.cfg.logged && polls.is_multiple_of(LEDGER_POLL_EVERY) {
                if polls == 0 {
                    self.flush_due()?;
                }
                self.poll_ledger()?;
                self.check_failed()?;
            }
            polls += 1;
            if polls.is_multiple_of(POLLS_PER_CHECK) && !keep_waiting() {
                return Err(TransportError::Interrupted);
            }
        }
    }

    fn wait_all(
        &self,
        reqs: &mut [Request],
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<(), TransportError> {
        for r in reqs.iter_mut() {
            self.wait(r, keep_waiting)?;
        }
        Ok(())
    }

    /// Drives MPI's progress once, through the first pending request of `pending`.
    fn progress(&self, pending: &mut [Request]) -> Result<(), TransportError> {
        if let Some(r) = pending.iter_mut().find(|r| !r.is_done()) {
            self.mpi.test(r)?;
        }
        Ok(())
    }

    /// The checksum of the chunk `data` (0 without an algorithm), then one call into MPI's
    /// progress engine so that the requests in `pending` keep moving. (A call costs about a
    /// gap; calling it between chunks, which the plan sizes to hide a gap each, keeps the
    /// network fed without a call per block. Over TCP, a call every 64 KiB cost more than
    /// the checksum itself.)
    fn checksum_progressing(
        &self,
        data: &[u8],
        pending: &mut [Request],
    ) -> Result<u64, TransportError> {
        let Some(alg) = self.cfg.algorithm else {
            return Ok(0);
        };
        let sum = checksum(data, alg, 0);
        self.progress(pending)?;
        Ok(sum)
    }

    /// Sends a verdict `[code, detail, items...]` to `peer` and waits until it has left.
    fn send_verdict(
        &self,
        peer: i32,
        tag: u32,
        code: i64,
        detail: i64,
        items: &[u64],
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<(), TransportError> {
        let mut msg = Vec::with_capacity(8 * (2 + items.len()));
        msg.extend_from_slice(&code.to_le_bytes());
        msg.extend_from_slice(&detail.to_le_bytes());
        for i in items {
            msg.extend_from_slice(&i.to_le_bytes());
        }
        let wire = self.wire(tag, KIND_VERDICT)?;
        // SAFETY: `msg` lives until the request completes below.
        let mut r = unsafe { self.mpi.isend(&msg, peer, wire)? };
        self.wait(&mut r, keep_waiting)?;
        Ok(())
    }

    /// Flips bits of an arriving `frame` at the configured rate; returns the flips. `kind`,
    /// `index` and `attempt` make the stream of random flips unique to this frame.
    fn inject(
        &self,
        frame: &mut [u8],
        peer: i32,
        seq: u64,
        kind: i32,
        index: u64,
        attempt: u32,
    ) -> Result<u64, TransportError> {
        if self.cfg.ber <= 0.0 {
            return Ok(0);
        }
        let stream = (self.cfg.rank as u64)
            .wrapping_mul(4099)
            .wrapping_add(peer as u64)
            .wrapping_mul(1_000_003)
            .wrapping_add(seq)
            .wrapping_mul(8)
            .wrapping_add(kind as u64)
            .wrapping_mul(65_537)
            .wrapping_add(index)
            .wrapping_mul(64)
            .wrapping_add(u64::from(attempt));
        Ok(inject_ber(
            frame,
            self.cfg.ber,
            &mut rng_for(self.cfg.seed, stream),
        )?)
    }
}

/// A verdict as received: `(code, detail, items)`.
fn parse_verdict(bytes: &[u8]) -> Result<(i64, i64, Vec<u64>), TransportError> {
    if bytes.len() < 16 || !bytes.len().is_multiple_of(8) {
        return Err(TransportError::Protocol(format!(
            "a verdict of {} bytes",
            bytes.len()
        )));
    }
    let word = |k: usize| u64::from_le_bytes(bytes[8 * k..8 * k + 8].try_into().expect("8 bytes"));
    let items = (2..bytes.len() / 8).map(word).collect();
    Ok((word(0) as i64, word(1) as i64, items))
}
