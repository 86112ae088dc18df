//! The receiving side of the cross-node path: eager frames verified inside the copy out, and
//! rendezvous chunks received in place and verified while later chunks arrive.

use super::ledger::{read_ack_block, CTRL_ABORT, CTRL_NACK, KIND_RESEND};
use super::libmpi::Request;
use super::send::spans;
use super::trailer::{trailer_bytes, Trailer};
use super::{
    NetTransport, Transfer, TransportError, ABORT, ABORT_PROTOCOL, ABORT_RETRIES, ABORT_TOO_LARGE,
    KIND_CHUNK, KIND_FIRST, NACK, OK, RTS_NACK,
};
use crate::frame::{decode_rts, verify_copy_out, ChunkHeader, Verdict, HEADER_BYTES, RTS_BYTES};

impl NetTransport {
    /// Receives the next message with `tag` from `source` (any rank when `None`) into `dst`;
    /// returns what it cost, its length in `message_bytes`. `dst` then holds intact data; after
    /// an error its bytes are undefined. `keep_waiting` as in [`NetTransport::send`].
    pub fn recv(
        &mut self,
        dst: &mut [u8],
        source: Option<i32>,
        tag: u32,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<Transfer, TransportError> {
        if self.cfg.algorithm.is_none() {
            return self.recv_plain(dst, source, tag, keep_waiting);
        }
        self.check_failed()?;
        let first = self.wire(tag, KIND_FIRST)?;
        let mut from = match source {
            Some(s) => s,
            None => self.wait_for_sender(first, keep_waiting)?,
        };
        let mut frame = std::mem::take(&mut self.eager_in);
        let mut t = Transfer::default();
        let result = (|| {
            let mut attempt = 0;
            loop {
                // SAFETY: `frame` is not touched until the request completes just below.
                let mut r = unsafe { self.mpi.irecv(&mut frame, from, first)? };
                let (peer, count) = self.wait(&mut r, keep_waiting)?;
                from = peer;
                t.peer = peer;
                let seq = *self.recv_seq.get(&peer).unwrap_or(&0);
                let f = &mut frame[..count];
                t.injected_bits += self.inject(f, peer, seq, KIND_FIRST, 0, attempt)?;
                let retry = if count == RTS_BYTES {
                    match decode_rts(f) {
                        Some((rseq, n)) => {
                            self.recv_rendezvous(
                                dst,
                                peer,
                                tag,
                                seq,
                                rseq,
                                n,
                                &mut t,
                                keep_waiting,
                            )?;
                            return Ok(seq);
                        }
                        None => RTS_NACK,
                    }
                } else if self.cfg.logged {
                    self.recv_logged(&mut frame, count, dst, peer, tag, seq, &mut t, keep_waiting)?;
                    return Ok(seq);
                } else {
                    let n = count.saturating_sub(HEADER_BYTES);
                    if n > dst.len() {
                        self.send_verdict(peer, tag, ABORT, ABORT_TOO_LARGE, &[], keep_waiting)?;
                        return Err(TransportError::TooLarge {
                            peer,
                            message_bytes: n as u64,
                            capacity_bytes: dst.len() as u64,
                        });
                    }
                    t.message_bytes = n as u64;
                    t.chunks = 1;
                    match verify_copy_out(f, &mut dst[..n]) {
                        Ok(Verdict::Intact(h)) if h.seq == seq => {
                            self.send_verdict(peer, tag, OK, 0, &[], keep_waiting)?;
                            return Ok(seq);
                        }
                        _ => NACK,
                    }
                };
                t.corrupted += 1;
                attempt += 1;
                if attempt > self.cfg.max_retries {
                    self.send_verdict(peer, tag, ABORT, ABORT_RETRIES, &[], keep_waiting)?;
                    return Err(TransportError::Retries { peer, seq });
                }
                self.send_verdict(peer, tag, retry, 0, &[], keep_waiting)?;
            }
        })();
        self.eager_in = frame;
        let seq = result?;
        self.recv_seq.insert(t.peer, seq + 1);
        Ok(t)
    }

    /// Verifies a logged eager frame of `count` bytes in `frame` (already received, errors
    /// already injected) and copies it out into `dst`; a damaged frame is asked for again
    /// (NACK) and received on the resend kind. On success the acknowledgements it carries are
    /// applied and its own is owed to `peer`.
    #[allow(clippy::too_many_arguments)]
    fn recv_logged(
        &mut self,
        frame: &mut [u8],
        mut count: usize,
        dst: &mut [u8],
        peer: i32,
        tag: u32,
        seq: u64,
        t: &mut Transfer,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<(), TransportError> {
        self.listen(peer)?;
        for attempt in 0..=self.cfg.max_retries {
            let f = &mut frame[..count];
            if attempt > 0 {
                t.injected_bits += self.inject(f, peer, seq, KIND_FIRST, 0, attempt)?;
            }
            if let Some((block, acks)) = read_ack_block(f) {
                let n = count.saturating_sub(HEADER_BYTES + block);
                let whole = &f[..count - block];
                if n > dst.len()
                    && ChunkHeader::read(whole).is_ok_and(|h| h.length_bytes == n as u64)
                {
                    self.send_control(peer, CTRL_ABORT, tag, seq, &[ABORT_TOO_LARGE as u64])?;
                    return Err(TransportError::TooLarge {
                        peer,
                        message_bytes: n as u64,
                        capacity_bytes: dst.len() as u64,
                    });
                }
                if n <= dst.len() {
                    t.message_bytes = n as u64;
                    t.chunks = 1;
                    if let Ok(Verdict::Intact(h)) = verify_copy_out(whole, &mut dst[..n]) {
                        if h.seq != seq {
                            self.send_control(
                                peer,
                                CTRL_ABORT,
                                tag,
                                seq,
                                &[ABORT_PROTOCOL as u64],
                            )?;
                            return Err(TransportError::Protocol(format!(
                                "message from rank {peer}: expected sequence {seq}, got {}",
                                h.seq
                            )));
                        }
                        let mut l = self.ledger.borrow_mut();
                        l.acknowledge(peer, &acks);
                        l.due.entry(peer).or_default().push(seq);
                        return Ok(());
                    }
                }
            }
            t.corrupted += 1;
            if attempt == self.cfg.max_retries {
                break;
            }
            self.send_control(peer, CTRL_NACK, tag, seq, &[])?;
            // SAFETY: `frame` is not touched until the request completes just below.
            let mut r = unsafe { self.mpi.irecv(frame, peer, self.wire(tag, KIND_RESEND)?)? };
            count = self.wait(&mut r, keep_waiting)?.1;
        }
        self.send_control(peer, CTRL_ABORT, tag, seq, &[ABORT_RETRIES as u64])?;
        Err(TransportError::Retries { peer, seq })
    }

    /// Without a checksum: one plain MPI message straight into `dst`, injected errors and all
    /// (nothing can detect them).
    fn recv_plain(
        &mut self,
        dst: &mut [u8],
        source: Option<i32>,
        tag: u32,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<Transfer, TransportError> {
        let wire = self.wire(tag, KIND_FIRST)?;
        let from = match source {
            Some(s) => s,
            None => self.wait_for_sender(wire, keep_waiting)?,
        };
        // SAFETY: `dst` is not touched until the request completes just below.
        let mut r = unsafe { self.mpi.irecv(dst, from, wire)? };
        let (peer, n) = self.wait(&mut r, keep_waiting).map_err(|e| match e {
            TransportError::Mpi(why) => TransportError::Mpi(format!(
                "{why} (is the message larger than the receive buffer of {} bytes?)",
                dst.len()
            )),
            other => other,
        })?;
        let seq = *self.recv_seq.get(&peer).unwrap_or(&0);
        self.recv_seq.insert(peer, seq + 1);
        let injected_bits = self.inject(&mut dst[..n], peer, seq, KIND_FIRST, 0, 0)?;
        Ok(Transfer {
            peer,
            message_bytes: n as u64,
            chunks: 1,
            injected_bits,
            ..Transfer::default()
        })
    }

    /// Receives the chunks and trailer of message `seq` of `n` bytes announced by a
    /// request-to-send (`rseq` is the sequence number it carried).
    #[allow(clippy::too_many_arguments)]
    fn recv_rendezvous(
        &mut self,
        dst: &mut [u8],
        peer: i32,
        tag: u32,
        seq: u64,
        rseq: u64,
        n: u64,
        t: &mut Transfer,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<(), TransportError> {
        let lengths = self
            .cfg
            .plan
            .chunks_shrinking(usize::try_from(n).unwrap_or(usize::MAX))?;
        t.message_bytes = n;
        t.chunks = lengths.len() as u64;
        if rseq != seq || n > dst.len() as u64 {
            self.drain(&lengths, peer, tag, keep_waiting)?;
            if rseq != seq {
                self.send_verdict(peer, tag, ABORT, ABORT_PROTOCOL, &[], keep_waiting)?;
                return Err(TransportError::Protocol(format!(
                    "message from rank {peer}: expected sequence {seq}, got {rseq}"
                )));
            }
            self.send_verdict(peer, tag, ABORT, ABORT_TOO_LARGE, &[], keep_waiting)?;
            return Err(TransportError::TooLarge {
                peer,
                message_bytes: n,
                capacity_bytes: dst.len() as u64,
            });
        }
        let chunk = self.wire(tag, KIND_CHUNK)?;
        let spans = spans(&lengths);
        let base = dst.as_mut_ptr();
        // Disjoint views of the chunks of `dst`, each received into in place.
        // SAFETY: the spans tile `dst[..n]` without overlap; `dst` outlives every view.
        let part =
            |k: usize| unsafe { std::slice::from_raw_parts_mut(base.add(spans[k].0), spans[k].1) };
        let mut wire = vec![0u8; trailer_bytes(spans.len())];
        let mut sums: Vec<Option<u64>> = vec![None; spans.len()];
        let mut todo: Vec<usize> = (0..spans.len()).collect();
        for attempt in 0..=self.cfg.max_retries {
            // SAFETY (irecvs): each view and `wire` are left alone until their request
            // completes; all complete before this loop turn ends.
            let mut reqs = Vec::with_capacity(todo.len() + 1);
            for &k in &todo {
                reqs.push(unsafe { self.mpi.irecv(part(k), peer, chunk)? });
            }
            reqs.push(unsafe { self.mpi.irecv(&mut wire, peer, chunk)? });
            for (j, &k) in todo.iter().enumerate() {
                self.wait(&mut reqs[j], keep_waiting)?;
                let data = part(k);
                t.injected_bits += self.inject(data, peer, seq, KIND_CHUNK, k as u64, attempt)?;
                sums[k] = Some(self.checksum_progressing(data, &mut reqs[j + 1..])?);
            }
            let last = reqs.len() - 1;
            self.wait(&mut reqs[last], keep_waiting)?;
            let trailer_index = spans.len() as u64;
            t.injected_bits +=
                self.inject(&mut wire, peer, seq, KIND_CHUNK, trailer_index, attempt)?;
            let bad: Vec<u64> = match Trailer::decode(&wire) {
                None => {
                    t.corrupted += 1;
                    Vec::new()
                }
                Some(tr) => {
                    if tr.seq != seq
                        || tr.message_bytes != n
                        || tr.checksums.len() != spans.len()
                        || tr.algorithm != self.cfg.algorithm
                    {
                        self.send_verdict(peer, tag, ABORT, ABORT_PROTOCOL, &[], keep_waiting)?;
                        return Err(TransportError::Protocol(format!(
                            "the trailer of message {seq} from rank {peer} does not match it \
                             (are both ends using the same checksum?)"
                        )));
                    }
                    let bad: Vec<u64> = (0..spans.len())
                        .filter(|&k| {
                            self.cfg.algorithm.is_some() && sums[k] != Some(tr.checksums[k])
                        })
                        .map(|k| k as u64)
                        .collect();
                    if bad.is_empty() {
                        self.send_verdict(peer, tag, OK, 0, &[], keep_waiting)?;
                        return Ok(());
                    }
                    t.corrupted += bad.len() as u64;
                    bad
                }
            };
            if attempt == self.cfg.max_retries {
                break;
            }
            self.send_verdict(peer, tag, NACK, bad.len() as i64, &bad, keep_waiting)?;
            todo = bad.iter().map(|&k| k as usize).collect();
        }
        self.send_verdict(peer, tag, ABORT, ABORT_RETRIES, &[], keep_waiting)?;
        Err(TransportError::Retries { peer, seq })
    }

    /// Receives and drops the chunks and trailer of a refused message.
    fn drain(
        &self,
        lengths: &[usize],
        peer: i32,
        tag: u32,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<(), TransportError> {
        let chunk = self.wire(tag, KIND_CHUNK)?;
        let biggest = lengths.iter().copied().max().unwrap_or(0);
        let mut scratch = vec![0u8; biggest.max(trailer_bytes(lengths.len()))];
        for &len in lengths
            .iter()
            .chain(std::iter::once(&trailer_bytes(lengths.len())))
        {
            // SAFETY: `scratch` is not touched until the request completes.
            let mut r: Request = unsafe { self.mpi.irecv(&mut scratch[..len], peer, chunk)? };
            self.wait(&mut r, keep_waiting)?;
        }
        Ok(())
    }
}
