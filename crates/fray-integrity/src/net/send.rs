//! The sending side of the cross-node path: eager frames, and the zero-copy rendezvous.

use super::ledger::{
    ack_block_bytes, write_ack_block, Ledger, Logged, MAX_LOGGED, MAX_LOGGED_BYTES,
};
use super::libmpi::Request;
use super::trailer::Trailer;
use super::{
    abort_reason, parse_verdict, NetTransport, Transfer, TransportError, ABORT, KIND_CHUNK,
    KIND_FIRST, KIND_VERDICT, NACK, OK, RTS_NACK,
};
use crate::frame::{encode_chunk, encode_rts, ChunkHeader, HEADER_BYTES, RTS_BYTES};

/// Chunk `i` of a message: `(offset, length)` in bytes.
pub(super) fn spans(lengths: &[usize]) -> Vec<(usize, usize)> {
    let mut off = 0;
    lengths
        .iter()
        .map(|&c| {
            let s = (off, c);
            off += c;
            s
        })
        .collect()
}

impl Transfer {
    /// A message of `message_bytes` bytes to `peer` in `chunks` chunks, nothing resent yet.
    fn first_attempt(peer: i32, message_bytes: usize, chunks: usize) -> Self {
        Transfer {
            peer,
            message_bytes: message_bytes as u64,
            chunks: chunks as u64,
            ..Transfer::default()
        }
    }
}

impl NetTransport {
    /// The header of the eager frame of message `seq` of `len` bytes (its checksum and
    /// length are filled in by `encode_chunk`).
    fn eager_header(&self, seq: u64, tag: u32, len: usize) -> ChunkHeader {
        ChunkHeader {
            algorithm: self.cfg.algorithm,
            seq,
            chunk_index: 0,
            chunk_count: 1,
            offset_bytes: 0,
            length_bytes: 0,
            message_bytes: len as u64,
            checksum: 0,
            tag,
            shared_source: false,
        }
    }

    /// Sends `src` to `dest` with `tag`; returns once `dest` has verified every byte (without
    /// a checksum: once `src` may be reused, as `MPI_Send`). `keep_waiting` is called now and
    /// then during waits; returning false stops the wait with [`TransportError::Interrupted`].
    pub fn send(
        &mut self,
        src: &[u8],
        dest: i32,
        tag: u32,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<Transfer, TransportError> {
        self.check_size(src.len())?;
        if self.cfg.algorithm.is_none() {
            return self.send_plain(src, dest, tag, keep_waiting);
        }
        self.wire(tag, 0)?;
        self.check_failed()?;
        let seq = *self.send_seq.entry(dest).or_insert(0);
        self.send_seq.insert(dest, seq + 1);
        let mut t = if src.len() > self.cfg.eager_threshold_bytes {
            self.send_rendezvous(src, dest, tag, seq, keep_waiting)
        } else if self.cfg.logged {
            self.send_logged(src, dest, tag, seq, keep_waiting)
        } else {
            self.send_eager(src, dest, tag, seq, keep_waiting)
        }?;
        t.resent += self.take_resent();
        Ok(t)
    }

    /// An eager frame that is kept, not waited for: header, payload (checksummed inside the
    /// copy) and the acknowledgements owed to `dest`; returns once MPI has taken it. Waits
    /// first if the ledger is full.
    fn send_logged(
        &mut self,
        src: &[u8],
        dest: i32,
        tag: u32,
        seq: u64,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<Transfer, TransportError> {
        self.listen(dest)?;
        let need = HEADER_BYTES + src.len() + ack_block_bytes(super::ledger::MAX_CARRIED);
        let room =
            |l: &Ledger| l.logs.len() < MAX_LOGGED && l.logged_bytes() + need <= MAX_LOGGED_BYTES;
        if !room(&self.ledger.borrow()) {
            self.wait_ledger(&room, keep_waiting)?;
        }
        let header = self.eager_header(seq, tag, src.len());
        let (mut frame, carried) = {
            let mut l = self.ledger.borrow_mut();
            (l.pool.pop().unwrap_or_default(), l.take_due(dest))
        };
        let body = HEADER_BYTES + src.len();
        // Growing a reused buffer zero-fills only the new part; every byte is written below.
        frame.resize(body + ack_block_bytes(carried.len()), 0);
        encode_chunk(&mut frame[..body], &header, src)?;
        write_ack_block(&mut frame[body..], &carried);
        // SAFETY: the frame moves into the ledger below (its heap buffer does not move) and
        // stays there, unchanged, until this send completes.
        let mut send = unsafe { self.mpi.isend(&frame, dest, self.wire(tag, KIND_FIRST)?)? };
        let waited = self.wait(&mut send, keep_waiting);
        self.ledger.borrow_mut().logs.push(Logged {
            dest,
            tag,
            seq,
            frame,
            send,
            carried,
            acked: false,
        });
        waited?;
        Ok(Transfer::first_attempt(dest, src.len(), 1))
    }

    /// Without a checksum: `src` as one MPI message, no header and no verdict.
    fn send_plain(
        &mut self,
        src: &[u8],
        dest: i32,
        tag: u32,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<Transfer, TransportError> {
        let wire = self.wire(tag, KIND_FIRST)?;
        // SAFETY: `src` outlives the request, which completes before this returns.
        let mut s = unsafe { self.mpi.isend(src, dest, wire)? };
        self.wait(&mut s, keep_waiting)?;
        Ok(Transfer::first_attempt(dest, src.len(), 1))
    }

    /// Posts the receive of the verdict on message `seq` (up to `items` chunk numbers).
    fn post_verdict(&self, buf: &mut [u8], dest: i32, tag: u32) -> Result<Request, TransportError> {
        let wire = self.wire(tag, KIND_VERDICT)?;
        // SAFETY: every caller waits for this request before `buf` is touched or dropped.
        unsafe { self.mpi.irecv(buf, dest, wire) }
    }

    fn send_eager(
        &mut self,
        src: &[u8],
        dest: i32,
        tag: u32,
        seq: u64,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<Transfer, TransportError> {
        let header = self.eager_header(seq, tag, src.len());
        let mut frame = std::mem::take(&mut self.eager_out);
        let result = (|| {
            let f = &mut frame[..HEADER_BYTES + src.len()];
            let wire = self.wire(tag, KIND_FIRST)?;
            let mut verdict = [0u8; 16];
            let mut t = Transfer::first_attempt(dest, src.len(), 1);
            for attempt in 0..=self.cfg.max_retries {
                if attempt > 0 {
                    t.resent += 1;
                }
                encode_chunk(f, &header, src)?;
                let mut v = self.post_verdict(&mut verdict, dest, tag)?;
                // SAFETY: `f` lives until the request completes below.
                let mut s = unsafe { self.mpi.isend(f, dest, wire)? };
                let (_, got) = self.wait(&mut v, keep_waiting)?;
                self.wait(&mut s, keep_waiting)?;
                match parse_verdict(&verdict[..got])? {
                    (OK, ..) => return Ok(t),
                    (NACK, ..) => continue,
                    (ABORT, detail, _) => {
                        return Err(TransportError::Aborted {
                            peer: dest,
                            reason: abort_reason(detail),
                        })
                    }
                    (code, ..) => {
                        return Err(TransportError::Protocol(format!(
                            "verdict {code} on an eager message"
                        )))
                    }
                }
            }
            Err(TransportError::Retries { peer: dest, seq })
        })();
        self.eager_out = frame;
        result
    }

    fn send_rendezvous(
        &mut self,
        src: &[u8],
        dest: i32,
        tag: u32,
        seq: u64,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<Transfer, TransportError> {
        let lengths = self.cfg.plan.chunks_shrinking(src.len())?;
        let spans = spans(&lengths);
        let mut verdict = vec![0u8; 8 * (2 + spans.len())];
        let mut rts = [0u8; RTS_BYTES];
        encode_rts(&mut rts, seq, src.len() as u64)?;
        let (first, chunk) = (self.wire(tag, KIND_FIRST)?, self.wire(tag, KIND_CHUNK)?);
        let mut t = Transfer::first_attempt(dest, src.len(), spans.len());
        let mut v = self.post_verdict(&mut verdict, dest, tag)?;
        // SAFETY (every isend below): `rts`, `src` and `wire` outlive the requests, which
        // are all waited for before this function returns (`finish`).
        let mut sends = vec![unsafe { self.mpi.isend(&rts, dest, first)? }];
        for &(off, len) in &spans {
            sends.push(unsafe { self.mpi.isend(&src[off..off + len], dest, chunk)? });
        }
        let mut checksums = Vec::with_capacity(spans.len());
        for &(off, len) in &spans {
            checksums.push(self.checksum_progressing(&src[off..off + len], &mut sends)?);
        }
        let wire = Trailer {
            algorithm: self.cfg.algorithm,
            seq,
            message_bytes: src.len() as u64,
            checksums,
        }
        .encode();
        sends.push(unsafe { self.mpi.isend(&wire, dest, chunk)? });
        // The receiver counts damaged requests-to-send and damaged rounds of chunks apart,
        // and aborts once either passes `max_retries`; these counters only guard against a
        // receiver that never does.
        let (mut rts_rounds, mut chunk_rounds) = (0, 0);
        loop {
            let (_, got) = self.wait(&mut v, keep_waiting)?;
            let (code, detail, bad) = parse_verdict(&verdict[..got])?;
            if code != RTS_NACK {
                self.wait_all(&mut sends, keep_waiting)?;
                sends.clear();
            }
            let rounds = match code {
                OK => return Ok(t),
                ABORT => {
                    self.wait_all(&mut sends, keep_waiting)?;
                    return Err(TransportError::Aborted {
                        peer: dest,
                        reason: abort_reason(detail),
                    });
                }
                RTS_NACK => &mut rts_rounds,
                NACK => &mut chunk_rounds,
                _ => return Err(TransportError::Protocol(format!("verdict {code}"))),
            };
            *rounds += 1;
            if *rounds > self.cfg.max_retries {
                self.wait_all(&mut sends, keep_waiting)?;
                return Err(TransportError::Protocol(format!(
                    "rank {dest} asked for more than {} resends of message {seq}",
                    self.cfg.max_retries
                )));
            }
            v = self.post_verdict(&mut verdict, dest, tag)?;
            if code == RTS_NACK {
                t.resent += 1;
                sends.push(unsafe { self.mpi.isend(&rts, dest, first)? });
                continue;
            }
            for &i in &bad {
                let &(off, len) = spans.get(i as usize).ok_or_else(|| {
                    TransportError::Protocol(format!("NACK names chunk {i} of {}", spans.len()))
                })?;
                sends.push(unsafe { self.mpi.isend(&src[off..off + len], dest, chunk)? });
            }
            sends.push(unsafe { self.mpi.isend(&wire, dest, chunk)? });
            t.resent += bad.len() as u64 + 1;
        }
    }
}
