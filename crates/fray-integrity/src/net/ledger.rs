//! Logged eager messages: the sender keeps its copy of an eager frame and returns at once; the
//! receiver's verdict comes later and, when all is well, rides on traffic that flows anyway.
//!
//! This is the sender-based logging of the paper's NewMadeleine. An eager frame is already a
//! copy of the user's data, so keeping it costs no copy, and a synchronous verdict would cost
//! a whole extra MPI message per message on the critical path (on the TCP path, 64 KiB
//! ping-pong went from 0.87 to 0.97 of plain MPI without it). The [`Ledger`] holds
//!
//! * on the sending side, the frames sent but not yet acknowledged ([`Logged`]), resent from
//!   there when the receiver reports them damaged;
//! * on the receiving side, the acknowledgements owed (`due`): sequence numbers of messages
//!   verified and delivered. They travel in the **ack block** at the end of the next eager
//!   frame to that rank (up to [`MAX_CARRIED`]), or as a standalone `OK` control message
//!   whenever this rank is about to wait, is asked to flush, or has left the transport idle
//!   (the helper thread of [`super::SharedTransport`]).
//!
//! Control messages (NACK, ABORT, OK, FLUSH) go on one wire tag of their own,
//! [`NetTransport::control_wire`], as little-endian words `[code, tag, seq, items...]`.
//! A damaged frame is resent on the kind [`KIND_RESEND`] of its tag, which later frames of
//! the same tag cannot overtake.

use std::collections::BTreeMap;

use super::libmpi::Request;
use super::{NetTransport, TransportError};

/// Wire-tag kind of a resent logged frame.
pub const KIND_RESEND: i32 = 3;
/// Most acknowledgements carried by one frame or one control message.
pub const MAX_CARRIED: usize = 64;
/// Most frames kept unacknowledged (per transport) before a send waits for acknowledgements.
pub const MAX_LOGGED: usize = 64;
/// Most bytes of frames kept unacknowledged before a send waits for acknowledgements.
pub const MAX_LOGGED_BYTES: usize = 64 << 20;
const FOOTER_BYTES: usize = 8;
/// Largest ack block (bytes).
pub const MAX_BLOCK_BYTES: usize = 8 * MAX_CARRIED + FOOTER_BYTES;
const CONTROL_WORDS: usize = 3 + MAX_CARRIED;
/// Polls of the ledger (about 1 us each) before a rank waiting for acknowledgements asks for
/// them. Asking at once would mostly ask a rank whose acknowledgements are already on their
/// way, and the question could reach it after it closed its transport.
const FLUSH_AFTER_POLLS: u32 = 1 << 12;

/// Control codes.
pub(super) const CTRL_OK: u64 = 10;
pub(super) const CTRL_NACK: u64 = 11;
pub(super) const CTRL_ABORT: u64 = 12;
pub(super) const CTRL_FLUSH: u64 = 13;

/// Bytes of an ack block carrying `n` acknowledgements.
pub fn ack_block_bytes(n: usize) -> usize {
    8 * n + FOOTER_BYTES
}

/// Writes the ack block of `acks` into `out` (exactly [`ack_block_bytes`] long): the sequence
/// numbers, their count, and a CRC-32C of both.
pub fn write_ack_block(out: &mut [u8], acks: &[u64]) {
    debug_assert_eq!(out.len(), ack_block_bytes(acks.len()));
    for (k, a) in acks.iter().enumerate() {
        out[8 * k..8 * k + 8].copy_from_slice(&a.to_le_bytes());
    }
    let end = 8 * acks.len();
    out[end..end + 4].copy_from_slice(&(acks.len() as u32).to_le_bytes());
    let crc = crc32c::crc32c(&out[..end + 4]);
    out[end + 4..end + 8].copy_from_slice(&crc.to_le_bytes());
}

/// Reads the ack block at the end of `frame`: `(block bytes, acknowledgements)`, or `None`
/// when it is damaged or does not fit.
pub fn read_ack_block(frame: &[u8]) -> Option<(usize, Vec<u64>)> {
    let len = frame.len();
    if len < FOOTER_BYTES {
        return None;
    }
    let word = |at: usize| u32::from_le_bytes(frame[at..at + 4].try_into().expect("4 bytes"));
    let n = word(len - 8) as usize;
    if n > MAX_CARRIED || ack_block_bytes(n) > len {
        return None;
    }
    let start = len - ack_block_bytes(n);
    if crc32c::crc32c(&frame[start..len - 4]) != word(len - 4) {
        return None;
    }
    let acks = frame[start..start + 8 * n]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    Some((ack_block_bytes(n), acks))
}

/// An eager frame sent and kept until its receiver acknowledges it.
pub(super) struct Logged {
    pub dest: i32,
    pub tag: u32,
    pub seq: u64,
    pub frame: Vec<u8>,
    /// The send of the frame (or of its last resend).
    pub send: Request,
    /// Acknowledgements this frame carries to `dest`, repeated if `dest` asks for a flush.
    pub carried: Vec<u64>,
    pub acked: bool,
}

/// The state of logged eager messages (see the module doc).
#[derive(Default)]
pub(super) struct Ledger {
    pub logs: Vec<Logged>,
    /// Frame buffers to reuse (a fresh 64 KiB buffer per message costs page faults).
    pub pool: Vec<Vec<u8>>,
    /// Acknowledgements owed, per rank.
    pub due: BTreeMap<i32, Vec<u64>>,
    /// A posted receive of control messages per rank this one exchanges logged frames with
    /// (one per rank, not one from `MPI_ANY_SOURCE`: over MPICH's TCP path such a receive
    /// posted after its message arrived never completes).
    control: BTreeMap<i32, (Vec<u8>, Request)>,
    outgoing: Vec<(Vec<u8>, Request)>,
    /// The first error met on a logged message after its send returned; raised by the next
    /// call.
    pub failed: Option<TransportError>,
    /// Frames resent since the last call reported them.
    pub late_resent: u64,
}

impl Ledger {
    /// True while there is something to send, acknowledge or serve.
    pub fn busy(&self) -> bool {
        !self.logs.is_empty()
            || self.due.values().any(|d| !d.is_empty())
            || !self.outgoing.is_empty()
    }

    /// Bytes of frames kept.
    pub fn logged_bytes(&self) -> usize {
        self.logs.iter().map(|l| l.frame.len()).sum()
    }

    /// Takes up to [`MAX_CARRIED`] acknowledgements owed to `peer`.
    pub fn take_due(&mut self, peer: i32) -> Vec<u64> {
        match self.due.get_mut(&peer) {
            Some(d) => {
                let k = d.len().min(MAX_CARRIED);
                d.drain(..k).collect()
            }
            None => Vec::new(),
        }
    }

    /// Marks the frames to `peer` with sequence numbers in `seqs` acknowledged.
    pub fn acknowledge(&mut self, peer: i32, seqs: &[u64]) {
        for l in self.logs.iter_mut() {
            if l.dest == peer && seqs.contains(&l.seq) {
                l.acked = true;
            }
        }
    }
}

fn words(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

impl NetTransport {
    /// The wire tag of control messages: the last kind of the largest tag, which users cannot
    /// take (see [`NetTransport::max_tag`]).
    pub(super) fn control_wire(&self) -> i32 {
        4 * (self.max_tag() + 1) + KIND_RESEND
    }

    /// Sends the control message `[code, tag, seq, items...]` to `peer` without waiting.
    pub(super) fn send_control(
        &self,
        peer: i32,
        code: u64,
        tag: u32,
        seq: u64,
        items: &[u64],
    ) -> Result<(), TransportError> {
        let mut msg = Vec::with_capacity(8 * (3 + items.len()));
        for w in [code, u64::from(tag), seq].iter().chain(items) {
            msg.extend_from_slice(&w.to_le_bytes());
        }
        // SAFETY: `msg` moves into the ledger with its request (its heap buffer does not
        // move) and is dropped only once the request completed.
        let r = unsafe { self.mpi.isend(&msg, peer, self.control_wire())? };
        self.ledger.borrow_mut().outgoing.push((msg, r));
        Ok(())
    }

    /// Sends every acknowledgement owed, as standalone `OK` messages.
    pub(super) fn flush_due(&self) -> Result<(), TransportError> {
        let owed: Vec<(i32, Vec<u64>)> = {
            let mut l = self.ledger.borrow_mut();
            std::mem::take(&mut l.due)
                .into_iter()
                .filter(|(_, d)| !d.is_empty())
                .collect()
        };
        for (peer, seqs) in owed {
            for part in seqs.chunks(MAX_CARRIED) {
                self.send_control(peer, CTRL_OK, 0, 0, part)?;
            }
        }
        Ok(())
    }

    /// Makes sure a control receive from `peer` is posted.
    pub(super) fn listen(&self, peer: i32) -> Result<(), TransportError> {
        let mut l = self.ledger.borrow_mut();
        if l.control.contains_key(&peer) {
            return Ok(());
        }
        let mut buf = vec![0u8; 8 * CONTROL_WORDS];
        // SAFETY: the buffer moves into the ledger with its request (its heap buffer does not
        // move) and is not touched until the request completes or is cancelled.
        let r = unsafe { self.mpi.irecv(&mut buf, peer, self.control_wire())? };
        l.control.insert(peer, (buf, r));
        Ok(())
    }

    /// Serves every control message that has arrived, and retires finished sends and
    /// acknowledged frames. Never waits.
    pub(super) fn poll_ledger(&self) -> Result<(), TransportError> {
        let peers: Vec<i32> = self.ledger.borrow().control.keys().copied().collect();
        for peer in peers {
            loop {
                let w = {
                    let mut l = self.ledger.borrow_mut();
                    let (buf, r) = l.control.get_mut(&peer).expect("listening");
                    let Some((_, got)) = self.mpi.test(r)? else {
                        break;
                    };
                    let w = words(&buf[..got]);
                    // SAFETY: as in `listen`: the buffer stays in the ledger, untouched.
                    *r = unsafe { self.mpi.irecv(buf, peer, self.control_wire())? };
                    w
                };
                if w.len() < 3 {
                    return Err(TransportError::Protocol(format!(
                        "a control message of {} bytes from rank {peer}",
                        8 * w.len()
                    )));
                }
                self.serve(peer, w[0], w[1] as u32, w[2], &w[3..])?;
            }
        }
        let mut l = self.ledger.borrow_mut();
        let l = &mut *l;
        l.outgoing
            .retain_mut(|(_, r)| !matches!(self.mpi.test(r), Ok(Some(_))));
        let mut k = 0;
        while k < l.logs.len() {
            let done = l.logs[k].acked && self.mpi.test(&mut l.logs[k].send)?.is_some();
            if done {
                let frame = l.logs.swap_remove(k).frame;
                l.pool.push(frame);
            } else {
                k += 1;
            }
        }
        Ok(())
    }

    /// Acts on one control message from `peer`.
    fn serve(
        &self,
        peer: i32,
        code: u64,
        tag: u32,
        seq: u64,
        items: &[u64],
    ) -> Result<(), TransportError> {
        match code {
            CTRL_OK => self.ledger.borrow_mut().acknowledge(peer, items),
            CTRL_NACK => {
                let mut l = self.ledger.borrow_mut();
                let l = &mut *l;
                let Some(log) = l
                    .logs
                    .iter_mut()
                    .find(|g| g.dest == peer && g.seq == seq && !g.acked)
                else {
                    l.failed.get_or_insert(TransportError::Protocol(format!(
                        "rank {peer} asked to resend message {seq}, which is not kept"
                    )));
                    return Ok(());
                };
                if log.tag != tag {
                    l.failed.get_or_insert(TransportError::Protocol(format!(
                        "rank {peer} asked for message {seq} with tag {tag}; it had tag {}",
                        log.tag
                    )));
                    return Ok(());
                }
                while self.mpi.test(&mut log.send)?.is_none() {}
                // SAFETY: the frame stays in the log, unchanged, until this send completes.
                log.send = unsafe {
                    self.mpi
                        .isend(&log.frame, peer, self.wire(tag, KIND_RESEND)?)?
                };
                l.late_resent += 1;
            }
            CTRL_ABORT => {
                let mut l = self.ledger.borrow_mut();
                l.acknowledge(peer, &[seq]);
                let reason = super::abort_reason(items.first().map_or(0, |&d| d as i64));
                l.failed
                    .get_or_insert(TransportError::Aborted { peer, reason });
            }
            CTRL_FLUSH => {
                let again: Vec<u64> = {
                    let mut l = self.ledger.borrow_mut();
                    let l = &mut *l;
                    let mut again: Vec<u64> = l.due.remove(&peer).unwrap_or_default();
                    for g in l.logs.iter().filter(|g| g.dest == peer) {
                        again.extend_from_slice(&g.carried);
                    }
                    again
                };
                for part in again.chunks(MAX_CARRIED) {
                    self.send_control(peer, CTRL_OK, 0, 0, part)?;
                }
            }
            other => {
                return Err(TransportError::Protocol(format!(
                    "control code {other} from rank {peer}"
                )))
            }
        }
        Ok(())
    }

    /// Raises the first error met on a logged message since the last call.
    pub(super) fn check_failed(&self) -> Result<(), TransportError> {
        match self.ledger.borrow_mut().failed.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Frames resent since the last call that reported them.
    pub(super) fn take_resent(&self) -> u64 {
        std::mem::take(&mut self.ledger.borrow_mut().late_resent)
    }

    /// Waits until `done` holds for the ledger, asking every rank this one keeps frames for
    /// to acknowledge what it has verified, and serving control messages meanwhile.
    pub(super) fn wait_ledger(
        &self,
        done: &dyn Fn(&Ledger) -> bool,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<(), TransportError> {
        self.flush_due()?;
        let mut polls: u32 = 0;
        loop {
            self.poll_ledger()?;
            if done(&self.ledger.borrow()) {
                return Ok(());
            }
            polls += 1;
            if polls == FLUSH_AFTER_POLLS {
                self.ask_for_acknowledgements()?;
            }
            if polls.is_multiple_of(super::POLLS_PER_CHECK) && !keep_waiting() {
                return Err(TransportError::Interrupted);
            }
        }
    }

    /// Asks every rank this one keeps frames for to acknowledge what it has verified: owed
    /// acknowledgements arrive without asking, but one that rode on a frame this rank has not
    /// received yet would not.
    fn ask_for_acknowledgements(&self) -> Result<(), TransportError> {
        let mut peers: Vec<i32> = self
            .ledger
            .borrow()
            .logs
            .iter()
            .filter(|g| !g.acked)
            .map(|g| g.dest)
            .collect();
        peers.sort_unstable();
        peers.dedup();
        for p in peers {
            self.send_control(p, CTRL_FLUSH, 0, 0, &[])?;
        }
        Ok(())
    }

    /// Sends owed acknowledgements, waits for every kept frame to be acknowledged, and raises
    /// an error met on a logged message; returns the frames resent since the last call.
    pub fn flush(&mut self, keep_waiting: &mut dyn FnMut() -> bool) -> Result<u64, TransportError> {
        if self.cfg.logged {
            self.wait_ledger(&|l: &Ledger| l.logs.is_empty(), keep_waiting)?;
        }
        self.check_failed()?;
        Ok(self.take_resent())
    }

    /// One round of work without waiting, for a rank that has left the transport idle: owed
    /// acknowledgements go out, control messages are served. Errors are kept for the next
    /// call.
    pub fn service(&mut self) {
        let r = self.flush_due().and_then(|()| self.poll_ledger());
        if let Err(e) = r {
            self.ledger.borrow_mut().failed.get_or_insert(e);
        }
    }

    /// True while logged frames, owed acknowledgements or control sends are pending.
    pub fn busy(&self) -> bool {
        self.ledger.borrow().busy()
    }

    /// Cancels the control receive; frames and messages whose sends have not completed are
    /// leaked rather than freed under MPI's feet. Nothing is called once MPI is finalized.
    pub(super) fn close_ledger(&mut self) {
        let mut l = self.ledger.borrow_mut();
        let l = &mut *l;
        if self.mpi.finalized() {
            std::mem::forget(std::mem::take(l));
            return;
        }
        for (_, (buf, mut r)) in std::mem::take(&mut l.control) {
            let cancelled = self.mpi.cancel(&mut r).is_ok()
                && (0..1 << 20).any(|_| matches!(self.mpi.test(&mut r), Ok(Some(_))));
            if !cancelled {
                std::mem::forget(buf);
            }
        }
        for mut g in l.logs.drain(..) {
            if !matches!(self.mpi.test(&mut g.send), Ok(Some(_))) {
                std::mem::forget(g.frame);
            }
        }
        for (msg, mut r) in l.outgoing.drain(..) {
            if !matches!(self.mpi.test(&mut r), Ok(Some(_))) {
                std::mem::forget(msg);
            }
        }
    }
}
