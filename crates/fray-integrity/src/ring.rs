//! A checked channel through shared memory: the node-local path of the checked transport.
//!
//! Two processes on one node share a region (an MPI shared-memory window, or any mapping both
//! can see). One [`RingSender`] and one [`RingReceiver`] use it as a ring of `slots` frames,
//! each a 64-byte [`ChunkHeader`] and up to `slot_payload_bytes` of payload. The sender copies
//! each chunk of the user's message into a free slot with the checksum computed inside the copy
//! and publishes it; the receiver copies it out into the user's buffer, verifying inside that
//! copy, and answers with a verdict. These two copies are the ones any shared-memory transport
//! makes; the checksums ride inside them, which is the paper's point.
//!
//! A damaged chunk is answered with a NACK and the sender copies it again from the user's
//! buffer (which it keeps until every chunk is verified: `send` is synchronous), so the
//! receiver gets intact data or an error, never damaged data. Chunk sizes follow a
//! [`ChunkPlan`] (geometric growth), so the receiver starts copying out while the sender is
//! still copying in.
//!
//! A message that lies in a buffer the receiver maps too (registered with
//! [`RingReceiver::add_window`]) goes in one copy ([`RingSender::send_shared`]): the slots
//! carry only headers, with the checksums the sender computed over its buffer and a
//! [`SourceRef`] to each chunk, and the receiver copies each chunk straight out of the
//! sender's buffer, verifying inside that copy.
//!
//! Region layout, for each slot `i` at `i * slot_stride`:
//!
//! | bytes | content |
//! |-------|---------|
//! | 0..8 | `full`: 0, or `g + 1` once chunk number `g` is published (written by the sender) |
//! | 64..72 | `verdict`: 0, or `(g + 1) << 2 \| code` (written by the receiver) |
//! | 128.. | the frame: header, then payload |
//!
//! `g` counts chunks over the life of the ring; chunk `g` lives in slot `g % slots`. The
//! region must be zeroed before either end is built.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::algorithm::Algorithm;
use crate::checksum::checksum;
use crate::error::IntegrityError;
use crate::frame::{
    encode_chunk, encode_shared_chunk, verify_copy_from, verify_copy_out, ChunkHeader, SourceRef,
    HEADER_BYTES, SOURCE_REF_BYTES,
};
use crate::inject::{inject_ber, rng_for};
use crate::pipeline::ChunkPlan;

const LINE: usize = 64;
const FRAME_OFFSET: usize = 2 * LINE;
const OK: u64 = 0;
const NACK: u64 = 1;
const ABORT_TOO_LARGE: u64 = 2;
const ABORT_RETRIES: u64 = 3;
/// Busy-wait iterations before a waiting end starts yielding its core.
const SPINS_BEFORE_YIELD: u32 = 1 << 14;
/// Yields between two calls of the caller's "keep waiting?" hook.
const YIELDS_PER_CHECK: u32 = 1 << 10;

/// Shape of a ring: number of slots and the largest payload of one slot (bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingGeometry {
    /// Number of frames in flight at most (at least 2).
    pub slots: usize,
    /// Largest chunk payload a slot holds (bytes, a multiple of 64).
    pub slot_payload_bytes: usize,
}

impl RingGeometry {
    /// Checks the geometry; names the bad field.
    pub fn validate(&self) -> Result<(), IntegrityError> {
        if self.slots < 2 {
            return Err(IntegrityError::invalid(
                "slots",
                "a ring needs at least 2 slots",
            ));
        }
        if self.slot_payload_bytes == 0 || !self.slot_payload_bytes.is_multiple_of(LINE) {
            return Err(IntegrityError::invalid(
                "slot_bytes",
                format!(
                    "must be a positive multiple of {LINE} bytes, got {}",
                    self.slot_payload_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Distance between two slots (bytes).
    pub fn slot_stride(&self) -> usize {
        FRAME_OFFSET + HEADER_BYTES + self.slot_payload_bytes
    }

    /// Bytes of shared memory one ring needs.
    pub fn region_bytes(&self) -> usize {
        self.slots * self.slot_stride()
    }
}

/// Why a receive did not deliver a message.
#[derive(Debug, Clone, PartialEq)]
pub enum RingError {
    /// The message is larger than the receive buffer (both lengths in bytes); it was drained.
    TooLarge {
        /// Length of the message (bytes).
        message_bytes: u64,
        /// Length of the receive buffer (bytes), when this end knows it.
        capacity_bytes: Option<u64>,
    },
    /// A chunk stayed damaged after `max_retries` resends; the message was drained.
    Retries {
        /// Sequence number of the message.
        seq: u64,
    },
    /// The next message carries another tag than the receiver asked for; nothing was consumed.
    TagMismatch {
        /// Tag the receiver asked for.
        expected: u32,
        /// Tag of the next message.
        got: u32,
    },
    /// The frames contradict the protocol (a bug, or memory damaged outside the frames): the
    /// ring can no longer be used.
    Protocol(String),
    /// The caller's hook asked to stop waiting (e.g. a signal): the ring can no longer be used.
    Interrupted,
    /// Bad arguments (message too long for the plan, wrong region size).
    Invalid(IntegrityError),
}

impl std::fmt::Display for RingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RingError::TooLarge {
                message_bytes,
                capacity_bytes: Some(c),
            } => write!(
                f,
                "the message has {message_bytes} bytes, the receive buffer holds {c}"
            ),
            RingError::TooLarge {
                message_bytes,
                capacity_bytes: None,
            } => write!(
                f,
                "the message of {message_bytes} bytes is larger than the receive buffer"
            ),
            RingError::Retries { seq } => {
                write!(f, "message {seq} stayed corrupted after every retry")
            }
            RingError::TagMismatch { expected, got } => write!(
                f,
                "the next message has tag {got}, not {expected} (on the shared-memory path \
                 messages between two ranks are received in the order they were sent)"
            ),
            RingError::Protocol(why) => write!(f, "protocol error: {why}"),
            RingError::Interrupted => write!(f, "interrupted while waiting"),
            RingError::Invalid(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RingError {}

impl From<IntegrityError> for RingError {
    fn from(e: IntegrityError) -> Self {
        RingError::Invalid(e)
    }
}

/// What one message cost, for statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Transfer {
    /// Length of the message (bytes).
    pub message_bytes: u64,
    /// Chunks published, first attempts only.
    pub chunks: u64,
    /// Chunks found damaged by the receiver (each one was resent).
    pub corrupted: u64,
    /// Bits flipped by fault injection on the way.
    pub injected_bits: u64,
}

/// Fault injection at the receiver: each bit of each arriving frame flips with probability
/// `ber`, from the RNG of `(seed, stream)`; the stream is unique per chunk and attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Injection {
    /// Bit error rate (probability per bit, 0 for none).
    pub ber: f64,
    /// Seed of the run.
    pub seed: u64,
    /// Distinguishes this ring from others of the same run.
    pub ring_id: u64,
}

/// The shared region seen by one end.
struct Region {
    base: *mut u8,
    geometry: RingGeometry,
}

impl Region {
    /// # Safety
    /// `base..base + len` must stay mapped and shared with the other end only, for the life of
    /// the end built on it.
    unsafe fn new(
        base: *mut u8,
        len: usize,
        geometry: RingGeometry,
    ) -> Result<Self, IntegrityError> {
        geometry.validate()?;
        if len < geometry.region_bytes() {
            return Err(IntegrityError::invalid(
                "region",
                format!(
                    "holds {len} bytes, the ring needs {}",
                    geometry.region_bytes()
                ),
            ));
        }
        if !(base as usize).is_multiple_of(LINE) {
            return Err(IntegrityError::invalid(
                "region",
                "must be aligned to 64 bytes",
            ));
        }
        Ok(Region { base, geometry })
    }

    fn slot(&self, g: u64) -> *mut u8 {
        let i = (g % self.geometry.slots as u64) as usize;
        // SAFETY: i < slots, and the region holds slots * stride bytes.
        unsafe { self.base.add(i * self.geometry.slot_stride()) }
    }

    fn full(&self, g: u64) -> &AtomicU64 {
        // SAFETY: 64-byte aligned word inside the region, accessed only atomically.
        unsafe { &*(self.slot(g) as *const AtomicU64) }
    }

    fn verdict(&self, g: u64) -> &AtomicU64 {
        // SAFETY: as for `full`.
        unsafe { &*(self.slot(g).add(LINE) as *const AtomicU64) }
    }

    /// The frame area of chunk `g`'s slot.
    ///
    /// # Safety
    /// The caller must own the slot under the protocol (sender before publishing, receiver
    /// after seeing it published and before answering).
    #[allow(clippy::mut_from_ref)]
    unsafe fn frame(&self, g: u64, payload_bytes: usize) -> &mut [u8] {
        std::slice::from_raw_parts_mut(self.slot(g).add(FRAME_OFFSET), HEADER_BYTES + payload_bytes)
    }
}

/// Waits until `ready()` holds: spins, then yields the core, asking `keep_waiting` now and
/// then whether to go on.
fn wait_until(
    mut ready: impl FnMut() -> bool,
    keep_waiting: &mut dyn FnMut() -> bool,
) -> Result<(), RingError> {
    for _ in 0..SPINS_BEFORE_YIELD {
        if ready() {
            return Ok(());
        }
        std::hint::spin_loop();
    }
    loop {
        for _ in 0..YIELDS_PER_CHECK {
            if ready() {
                return Ok(());
            }
            std::thread::yield_now();
        }
        if !keep_waiting() {
            return Err(RingError::Interrupted);
        }
    }
}

/// An end of a ring, which a protocol error or an interrupted wait leaves out of step.
trait End {
    /// Whether the end is out of step for good.
    fn broken(&mut self) -> &mut bool;
}

/// Runs one operation of `end`; refuses to run on an end out of step, and marks it so when
/// the operation leaves it there.
fn in_step<E: End>(
    end: &mut E,
    op: impl FnOnce(&mut E) -> Result<Transfer, RingError>,
) -> Result<Transfer, RingError> {
    if *end.broken() {
        return Err(RingError::Protocol(
            "the ring was left out of step earlier".into(),
        ));
    }
    let result = op(end);
    if matches!(result, Err(RingError::Protocol(_) | RingError::Interrupted)) {
        *end.broken() = true;
    }
    result
}

/// One chunk of the message being sent, until its verdict arrives.
#[derive(Clone, Copy)]
struct InFlight {
    g: u64,
    index: u32,
    offset: usize,
    len: usize,
}

/// The sending end of a ring.
pub struct RingSender {
    region: Region,
    plan: ChunkPlan,
    algorithm: Option<Algorithm>,
    next_chunk: u64,
    next_seq: u64,
    broken: bool,
}

// SAFETY: the region pointer is only dereferenced through the protocol; the end can move to
// another thread with its owner.
unsafe impl Send for RingSender {}

impl End for RingSender {
    fn broken(&mut self) -> &mut bool {
        &mut self.broken
    }
}

impl RingSender {
    /// Builds the sending end on a zeroed shared region.
    ///
    /// # Safety
    /// `base..base + len` must stay mapped, be zeroed before either end is used, and be shared
    /// with exactly one [`RingReceiver`] built with the same geometry.
    pub unsafe fn new(
        base: *mut u8,
        len: usize,
        geometry: RingGeometry,
        plan: ChunkPlan,
        algorithm: Option<Algorithm>,
    ) -> Result<Self, IntegrityError> {
        plan.validate()?;
        if plan.max_chunk_bytes > geometry.slot_payload_bytes {
            return Err(IntegrityError::invalid(
                "max_chunk",
                format!(
                    "{} bytes do not fit a slot of {} bytes",
                    plan.max_chunk_bytes, geometry.slot_payload_bytes
                ),
            ));
        }
        Ok(RingSender {
            region: Region::new(base, len, geometry)?,
            plan,
            algorithm,
            next_chunk: 0,
            next_seq: 0,
            broken: false,
        })
    }

    /// Sends `msg` with `tag`; returns once the receiver has verified every byte, or reports
    /// why the receiver refused it. `keep_waiting` is asked now and then during long waits.
    pub fn send(
        &mut self,
        msg: &[u8],
        tag: u32,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<Transfer, RingError> {
        in_step(self, |end| end.send_inner(msg, None, tag, keep_waiting))
    }

    /// Sends `msg`, which lies at `source` in a shared buffer the receiver registered
    /// ([`RingReceiver::add_window`]), in one copy: the ring carries only headers with the
    /// checksums, computed here over `msg` where it is, and the receiver copies each chunk
    /// straight out of `msg`, verifying inside that copy. Otherwise as [`RingSender::send`].
    pub fn send_shared(
        &mut self,
        msg: &[u8],
        source: SourceRef,
        tag: u32,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<Transfer, RingError> {
        in_step(self, |end| {
            end.send_inner(msg, Some(source), tag, keep_waiting)
        })
    }

    fn send_inner(
        &mut self,
        msg: &[u8],
        source: Option<SourceRef>,
        tag: u32,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<Transfer, RingError> {
        let chunks = self.plan.chunks(msg.len())?;
        let count = u32::try_from(chunks.len())
            .map_err(|_| IntegrityError::invalid("message", "too many chunks"))?;
        let out = Outgoing {
            msg,
            source,
            seq: self.next_seq,
            count,
            tag,
        };
        self.next_seq += 1;
        let slots = self.region.geometry.slots;
        let mut inflight = std::collections::VecDeque::with_capacity(slots);
        let mut refused: Option<u64> = None;
        let mut report = Transfer {
            message_bytes: msg.len() as u64,
            chunks: u64::from(count),
            ..Transfer::default()
        };
        let mut offset = 0;
        for (index, &len) in chunks.iter().enumerate() {
            if inflight.len() == slots {
                let oldest = inflight.pop_front().expect("ring is full");
                self.settle(oldest, &out, &mut refused, &mut report, keep_waiting)?;
            }
            let chunk = InFlight {
                g: self.next_chunk,
                index: index as u32,
                offset,
                len,
            };
            self.publish(chunk, &out, refused.is_some());
            inflight.push_back(chunk);
            self.next_chunk += 1;
            offset += len;
        }
        while let Some(chunk) = inflight.pop_front() {
            self.settle(chunk, &out, &mut refused, &mut report, keep_waiting)?;
        }
        match refused {
            None => Ok(report),
            Some(ABORT_TOO_LARGE) => Err(RingError::TooLarge {
                message_bytes: msg.len() as u64,
                capacity_bytes: None,
            }),
            Some(_) => Err(RingError::Retries { seq: out.seq }),
        }
    }

    /// Publishes chunk `c` of `out`: copies its payload into the slot (checksum inside the
    /// copy), or, for a shared source, writes where the payload lies and its checksum. Once
    /// the message is `refused`, chunks go as headers only, to keep both ends in step without
    /// copying what nobody will read.
    fn publish(&self, c: InFlight, out: &Outgoing<'_>, refused: bool) {
        let header = ChunkHeader {
            algorithm: self.algorithm,
            seq: out.seq,
            chunk_index: c.index,
            chunk_count: out.count,
            offset_bytes: c.offset as u64,
            length_bytes: 0,
            message_bytes: out.msg.len() as u64,
            checksum: 0,
            tag: out.tag,
            shared_source: false,
        };
        let payload = &out.msg[c.offset..c.offset + if refused { 0 } else { c.len }];
        // SAFETY: the sender owns the slot: it is fresh (its previous chunk was settled) or
        // was answered with a NACK.
        match out.source {
            Some(base) => {
                let frame = unsafe { self.region.frame(c.g, SOURCE_REF_BYTES) };
                let at = SourceRef {
                    window: base.window,
                    offset_bytes: base.offset_bytes + c.offset as u64,
                };
                encode_shared_chunk(frame, &header, payload, at)
            }
            None => {
                let frame = unsafe { self.region.frame(c.g, payload.len()) };
                encode_chunk(frame, &header, payload)
            }
        }
        .expect("frame sized for the chunk");
        self.region.full(c.g).store(c.g + 1, Ordering::Release);
    }

    /// Waits for chunk `c`'s verdict; a NACK publishes it again from `out`, a refusal is
    /// remembered.
    fn settle(
        &self,
        c: InFlight,
        out: &Outgoing<'_>,
        refused: &mut Option<u64>,
        report: &mut Transfer,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<(), RingError> {
        let verdict = self.region.verdict(c.g);
        loop {
            let mut v = 0;
            wait_until(
                || {
                    v = verdict.load(Ordering::Acquire);
                    v >> 2 == c.g + 1
                },
                keep_waiting,
            )?;
            match v & 3 {
                OK => return Ok(()),
                NACK => {
                    report.corrupted += 1;
                    verdict.store(0, Ordering::Relaxed);
                    self.publish(c, out, refused.is_some());
                }
                code => {
                    refused.get_or_insert(code);
                    return Ok(());
                }
            }
        }
    }
}

/// The message a sender is sending.
struct Outgoing<'a> {
    msg: &'a [u8],
    /// Where `msg` lies in the sender's shared buffers, when the receiver copies from there.
    source: Option<SourceRef>,
    seq: u64,
    count: u32,
    tag: u32,
}

/// The receiving end of a ring.
pub struct RingReceiver {
    region: Region,
    /// The sender's shared buffers, by number: (base, length in bytes).
    windows: Vec<(*const u8, usize)>,
    injection: Injection,
    max_retries: u32,
    next_chunk: u64,
    next_seq: u64,
    broken: bool,
}

// SAFETY: as for RingSender.
unsafe impl Send for RingReceiver {}

impl End for RingReceiver {
    fn broken(&mut self) -> &mut bool {
        &mut self.broken
    }
}

impl RingReceiver {
    /// Builds the receiving end on a zeroed shared region.
    ///
    /// # Safety
    /// As for [`RingSender::new`].
    pub unsafe fn new(
        base: *mut u8,
        len: usize,
        geometry: RingGeometry,
        max_retries: u32,
        injection: Injection,
    ) -> Result<Self, IntegrityError> {
        if !(injection.ber.is_finite() && (0.0..=1.0).contains(&injection.ber)) {
            return Err(IntegrityError::invalid(
                "ber",
                format!("bit error rate must be in [0, 1], got {}", injection.ber),
            ));
        }
        Ok(RingReceiver {
            region: Region::new(base, len, geometry)?,
            windows: Vec::new(),
            injection,
            max_retries,
            next_chunk: 0,
            next_seq: 0,
            broken: false,
        })
    }

    /// Registers the sender's next shared buffer, `len` bytes at `base`, from which it may send
    /// with [`RingSender::send_shared`]; returns its number (0, 1, ... in order of
    /// registration, which both ends must agree on).
    ///
    /// # Safety
    /// `base..base + len` must stay mapped for the life of this end; the sender must not change
    /// a message's bytes while sending it (it cannot: `send_shared` borrows them).
    pub unsafe fn add_window(&mut self, base: *const u8, len: usize) -> u32 {
        self.windows.push((base, len));
        (self.windows.len() - 1) as u32
    }

    /// True when the first chunk of the next message has been published (a receive would
    /// start at once).
    pub fn ready(&self) -> bool {
        self.region.full(self.next_chunk).load(Ordering::Acquire) == self.next_chunk + 1
    }

    /// Receives the next message into the front of `dst`, verifying inside the copy out;
    /// returns what it cost. The message must carry `tag`.
    pub fn recv(
        &mut self,
        dst: &mut [u8],
        tag: u32,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<Transfer, RingError> {
        in_step(self, |end| end.recv_inner(dst, tag, keep_waiting))
    }

    fn recv_inner(
        &mut self,
        dst: &mut [u8],
        tag: u32,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<Transfer, RingError> {
        let seq = self.next_seq;
        let mut report = Transfer::default();
        let mut refusal: Option<u64> = None;
        let mut count = 1u32;
        let mut offset = 0u64;
        let mut index = 0u32;
        self.wait_published(self.next_chunk, keep_waiting)?;
        // SAFETY: published, not yet answered: the receiver owns the slot (reading only).
        if let Ok(h) = ChunkHeader::read(unsafe { self.region.frame(self.next_chunk, 0) }) {
            if h.tag != tag {
                // Leave the message where it is, for a receive with the right tag.
                return Err(RingError::TagMismatch {
                    expected: tag,
                    got: h.tag,
                });
            }
        }
        let mut started = false;
        while index < count {
            let g = self.next_chunk;
            let mut attempt = 0u32;
            loop {
                self.wait_published(g, keep_waiting)?;
                if let Some(code) = refusal {
                    self.answer(g, code);
                    break;
                }
                let header = self.arrive(g, attempt, &mut report);
                let Some(h) = header else {
                    // A damaged header: ask again.
                    report.corrupted += 1;
                    attempt += 1;
                    if attempt > self.max_retries {
                        // Release the sender, but without the header the rest of the message
                        // cannot be drained: the ring ends here.
                        self.answer(g, ABORT_RETRIES);
                        return Err(RingError::Protocol(format!(
                            "the header of chunk {index} of message {seq} stayed damaged after \
                             every retry"
                        )));
                    }
                    self.answer(g, NACK);
                    continue;
                };
                if !started {
                    if h.tag != tag {
                        return Err(RingError::TagMismatch {
                            expected: tag,
                            got: h.tag,
                        });
                    }
                    started = true;
                    count = h.chunk_count;
                    report.message_bytes = h.message_bytes;
                    if h.message_bytes > dst.len() as u64 {
                        refusal = Some(ABORT_TOO_LARGE);
                        self.answer(g, ABORT_TOO_LARGE);
                        break;
                    }
                }
                self.check_step(&h, seq, index, count, offset, report.message_bytes)?;
                let range = h.offset_bytes as usize..(h.offset_bytes + h.length_bytes) as usize;
                let intact = if h.shared_source {
                    self.copy_shared(g, &h, &mut dst[range], attempt, &mut report)?
                } else {
                    // SAFETY: published, not yet answered: the receiver owns the slot.
                    let frame = unsafe { self.region.frame(g, h.length_bytes as usize) };
                    verify_copy_out(frame, &mut dst[range])
                        .map_err(|e| RingError::Protocol(e.to_string()))?
                        .is_intact()
                };
                if intact {
                    self.answer(g, OK);
                    offset += h.length_bytes;
                    break;
                }
                report.corrupted += 1;
                attempt += 1;
                if attempt > self.max_retries {
                    refusal = Some(ABORT_RETRIES);
                    self.answer(g, ABORT_RETRIES);
                    break;
                }
                self.answer(g, NACK);
            }
            self.next_chunk += 1;
            index += 1;
        }
        self.next_seq += 1;
        report.chunks = u64::from(count);
        match refusal {
            None => Ok(report),
            Some(ABORT_TOO_LARGE) => Err(RingError::TooLarge {
                message_bytes: report.message_bytes,
                capacity_bytes: Some(dst.len() as u64),
            }),
            Some(_) => Err(RingError::Retries { seq }),
        }
    }

    fn wait_published(
        &self,
        g: u64,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<(), RingError> {
        let full = self.region.full(g);
        wait_until(|| full.load(Ordering::Acquire) == g + 1, keep_waiting)
    }

    /// Copies shared-source chunk `g` (header `h`) from the sender's buffer into `dst`,
    /// verifying inside the copy; false when it is damaged (its reference, or the bytes).
    /// With fault injection the bytes are copied, hit by the bit flips and then checked, so
    /// that the flips land between the sender's checksum and the receiver's.
    fn copy_shared(
        &self,
        g: u64,
        h: &ChunkHeader,
        dst: &mut [u8],
        attempt: u32,
        report: &mut Transfer,
    ) -> Result<bool, RingError> {
        // SAFETY: published, not yet answered: the receiver owns the slot.
        let frame = unsafe { self.region.frame(g, SOURCE_REF_BYTES) };
        let Some(at) = SourceRef::read(frame) else {
            return Ok(false);
        };
        let src = self.window(at, h.length_bytes)?;
        if self.injection.ber <= 0.0 {
            return verify_copy_from(h, src, dst).map_err(|e| RingError::Protocol(e.to_string()));
        }
        dst.copy_from_slice(src);
        let mut rng = rng_for(self.injection.seed, self.stream(g, attempt) ^ (1 << 63));
        report.injected_bits += inject_ber(dst, self.injection.ber, &mut rng).expect("ber checked");
        Ok(h.algorithm
            .is_none_or(|a| checksum(dst, a, 0) == h.checksum))
    }

    /// The `len` bytes at `at` in the sender's shared buffers.
    fn window(&self, at: SourceRef, len: u64) -> Result<&[u8], RingError> {
        let &(base, size) = self
            .windows
            .get(at.window as usize)
            .ok_or_else(|| RingError::Protocol(format!("no shared buffer number {}", at.window)))?;
        match at.offset_bytes.checked_add(len) {
            Some(end) if end <= size as u64 => {
                // SAFETY: within a registered buffer, which stays mapped (`add_window`).
                Ok(unsafe {
                    std::slice::from_raw_parts(base.add(at.offset_bytes as usize), len as usize)
                })
            }
            _ => Err(RingError::Protocol(format!(
                "{len} bytes at offset {} overrun shared buffer {} of {size} bytes",
                at.offset_bytes, at.window
            ))),
        }
    }

    /// The injection stream of chunk `g`'s attempt `attempt`.
    fn stream(&self, g: u64, attempt: u32) -> u64 {
        (self.injection.ring_id << 40) ^ (g << 8) ^ u64::from(attempt)
    }

    /// Injects faults into chunk `g`'s frame as it arrives and reads its header (`None`
    /// when the header is damaged).
    fn arrive(&self, g: u64, attempt: u32, report: &mut Transfer) -> Option<ChunkHeader> {
        let slot_payload = self.region.geometry.slot_payload_bytes;
        // SAFETY: published, not yet answered: the receiver owns the slot.
        let head = unsafe { self.region.frame(g, 0) };
        let mut rng = rng_for(self.injection.seed, self.stream(g, attempt));
        let ber = self.injection.ber;
        if ber > 0.0 {
            report.injected_bits += inject_ber(head, ber, &mut rng).expect("ber checked");
        }
        let h = ChunkHeader::read(head).ok()?;
        let carried = if h.shared_source {
            SOURCE_REF_BYTES as u64
        } else {
            h.length_bytes
        };
        if carried > slot_payload as u64 {
            return None;
        }
        if ber > 0.0 {
            // SAFETY: as above; the length is within the slot.
            let frame = unsafe { self.region.frame(g, carried as usize) };
            report.injected_bits +=
                inject_ber(&mut frame[HEADER_BYTES..], ber, &mut rng).expect("ber checked");
        }
        Some(h)
    }

    /// Checks that chunk `h` is the one expected next.
    fn check_step(
        &self,
        h: &ChunkHeader,
        seq: u64,
        index: u32,
        count: u32,
        offset: u64,
        message_bytes: u64,
    ) -> Result<(), RingError> {
        if h.seq != seq
            || h.chunk_index != index
            || h.chunk_count != count
            || h.offset_bytes != offset
            || h.message_bytes != message_bytes
            || h.offset_bytes + h.length_bytes > message_bytes
        {
            return Err(RingError::Protocol(format!(
                "expected chunk {index}/{count} of message {seq} at offset {offset}, got chunk \
                 {}/{} of message {} at offset {}",
                h.chunk_index, h.chunk_count, h.seq, h.offset_bytes
            )));
        }
        Ok(())
    }

    /// Answers chunk `g` with `code`; a NACK first hands the slot back as empty.
    fn answer(&self, g: u64, code: u64) {
        if code == NACK {
            self.region.full(g).store(0, Ordering::Relaxed);
        }
        self.region
            .verdict(g)
            .store(((g + 1) << 2) | code, Ordering::Release);
    }
}
