//! Wire frames of the checked transport: a 64-byte header then the payload, and the 32-byte
//! request-to-send of the rendezvous path.
//!
//! Header layout (little-endian):
//!
//! | bytes | field |
//! |-------|-------|
//! | 0..4  | magic `FRAY` |
//! | 4     | version (1) |
//! | 5     | algorithm id ([`Algorithm::id`]) |
//! | 6     | flags: bit 0 set when the payload stays in the sender's shared memory |
//! | 7     | reserved, 0 |
//! | 8..16 | message sequence number |
//! | 16..20 | chunk index |
//! | 20..24 | chunk count |
//! | 24..32 | offset of the chunk in the message (bytes) |
//! | 32..40 | chunk payload length (bytes) |
//! | 40..48 | message length (bytes) |
//! | 48..56 | payload checksum |
//! | 56..60 | message tag |
//! | 60..64 | CRC-32C of bytes 0..60 |
//!
//! The payload checksum is computed inside the copy into the frame ([`encode_chunk`]) and
//! verified inside the copy out of it ([`verify_copy_out`]); the header has its own CRC-32C,
//! so a flipped bit in either is detected.
//!
//! A chunk whose payload the receiver can read where the sender keeps it (a buffer in memory
//! both map) travels as a header with the shared-source flag and a [`SourceRef`] in place of
//! the payload ([`encode_shared_chunk`]): the sender computes the checksum over its own buffer,
//! and the receiver verifies inside its one copy out of that buffer ([`verify_copy_from`]).

use crate::algorithm::Algorithm;
use crate::checksum::checksum;
use crate::error::IntegrityError;
use crate::fused::copy_checksum;

/// Bytes of a chunk header.
pub const HEADER_BYTES: usize = 64;
/// Bytes of a request-to-send frame.
pub const RTS_BYTES: usize = 32;
const MAGIC: u32 = u32::from_le_bytes(*b"FRAY");
const RTS_MAGIC: u32 = u32::from_le_bytes(*b"FRTS");
const VERSION: u8 = 3;
const FLAG_SHARED_SOURCE: u8 = 1;
/// Bytes of a [`SourceRef`] on the wire.
pub const SOURCE_REF_BYTES: usize = 16;

/// The fields of a chunk header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkHeader {
    /// Checksum algorithm of the payload; `None` for frames without one (id 0: a baseline for
    /// measurements, whose damaged payloads go unnoticed).
    pub algorithm: Option<Algorithm>,
    /// Message sequence number.
    pub seq: u64,
    /// Index of this chunk in the message.
    pub chunk_index: u32,
    /// Number of chunks in the message.
    pub chunk_count: u32,
    /// Offset of the chunk in the message (bytes).
    pub offset_bytes: u64,
    /// Payload length of this chunk (bytes).
    pub length_bytes: u64,
    /// Length of the whole message (bytes).
    pub message_bytes: u64,
    /// Checksum of the payload.
    pub checksum: u64,
    /// Tag of the message, as the application gave it.
    pub tag: u32,
    /// The payload stays in the sender's shared memory; the frame carries a [`SourceRef`].
    pub shared_source: bool,
}

/// Where the payload of a shared-source chunk lies: `offset_bytes` into the sender's shared
/// buffer number `window` (numbered in the order both ends registered them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceRef {
    /// Number of the sender's shared buffer.
    pub window: u32,
    /// Offset of the payload's first byte in that buffer (bytes).
    pub offset_bytes: u64,
}

impl SourceRef {
    /// Writes the reference (with its CRC-32C) into `out[..SOURCE_REF_BYTES]`.
    fn write(&self, out: &mut [u8]) {
        put(out, 0, &self.window.to_le_bytes());
        put(out, 8, &self.offset_bytes.to_le_bytes());
        let crc = self.crc();
        put(out, 4, &crc.to_le_bytes());
    }

    fn crc(&self) -> u32 {
        let mut fields = [0u8; 12];
        fields[..4].copy_from_slice(&self.window.to_le_bytes());
        fields[4..].copy_from_slice(&self.offset_bytes.to_le_bytes());
        crc32c::crc32c(&fields)
    }

    /// Reads the reference behind the header of a shared-source `frame`; `None` when it is
    /// missing or damaged.
    pub fn read(frame: &[u8]) -> Option<SourceRef> {
        let r = frame.get(HEADER_BYTES..HEADER_BYTES + SOURCE_REF_BYTES)?;
        let s = SourceRef {
            window: get32(r, 0),
            offset_bytes: get64(r, 8),
        };
        (s.crc() == get32(r, 4)).then_some(s)
    }
}

fn put(buf: &mut [u8], at: usize, bytes: &[u8]) {
    buf[at..at + bytes.len()].copy_from_slice(bytes);
}

fn get64(buf: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(buf[at..at + 8].try_into().expect("8 bytes"))
}

fn get32(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(buf[at..at + 4].try_into().expect("4 bytes"))
}

fn bad(reason: impl Into<String>) -> IntegrityError {
    IntegrityError::BadFrame {
        reason: reason.into(),
    }
}

impl ChunkHeader {
    /// Writes the header (with its CRC) into `out[..HEADER_BYTES]`.
    pub fn write(&self, out: &mut [u8]) -> Result<(), IntegrityError> {
        if out.len() < HEADER_BYTES {
            return Err(bad(format!(
                "buffer of {} bytes cannot hold a header",
                out.len()
            )));
        }
        let h = &mut out[..HEADER_BYTES];
        h.fill(0);
        put(h, 0, &MAGIC.to_le_bytes());
        h[4] = VERSION;
        h[5] = self.algorithm.map_or(0, Algorithm::id);
        h[6] = if self.shared_source {
            FLAG_SHARED_SOURCE
        } else {
            0
        };
        put(h, 8, &self.seq.to_le_bytes());
        put(h, 16, &self.chunk_index.to_le_bytes());
        put(h, 20, &self.chunk_count.to_le_bytes());
        put(h, 24, &self.offset_bytes.to_le_bytes());
        put(h, 32, &self.length_bytes.to_le_bytes());
        put(h, 40, &self.message_bytes.to_le_bytes());
        put(h, 48, &self.checksum.to_le_bytes());
        put(h, 56, &self.tag.to_le_bytes());
        let crc = crc32c::crc32c(&h[..60]);
        put(h, 60, &crc.to_le_bytes());
        Ok(())
    }

    /// Reads and checks a header from the front of `frame`.
    pub fn read(frame: &[u8]) -> Result<ChunkHeader, IntegrityError> {
        if frame.len() < HEADER_BYTES {
            return Err(bad(format!(
                "{} bytes is shorter than a header",
                frame.len()
            )));
        }
        let h = &frame[..HEADER_BYTES];
        if get32(h, 0) != MAGIC {
            return Err(bad("wrong magic"));
        }
        if crc32c::crc32c(&h[..60]) != get32(h, 60) {
            return Err(bad("header checksum mismatch"));
        }
        if h[4] != VERSION {
            return Err(bad(format!("unknown version {}", h[4])));
        }
        if h[6] & !FLAG_SHARED_SOURCE != 0 || h[7] != 0 {
            return Err(bad(format!("unknown flags {:#04x}{:02x}", h[7], h[6])));
        }
        let algorithm = match h[5] {
            0 => None,
            id => Some(
                Algorithm::from_id(id).ok_or_else(|| bad(format!("unknown algorithm id {id}")))?,
            ),
        };
        Ok(ChunkHeader {
            algorithm,
            seq: get64(h, 8),
            chunk_index: get32(h, 16),
            chunk_count: get32(h, 20),
            offset_bytes: get64(h, 24),
            length_bytes: get64(h, 32),
            message_bytes: get64(h, 40),
            checksum: get64(h, 48),
            tag: get32(h, 56),
            shared_source: h[6] & FLAG_SHARED_SOURCE != 0,
        })
    }
}

/// Copies `src` to `dst` with the checksum inside the copy, or a plain copy (checksum 0)
/// without an algorithm.
fn copy_maybe_checksum(
    dst: &mut [u8],
    src: &[u8],
    algorithm: Option<Algorithm>,
) -> Result<u64, IntegrityError> {
    match algorithm {
        Some(a) => copy_checksum(dst, src, a, 0),
        None => {
            dst.copy_from_slice(src);
            Ok(0)
        }
    }
}

/// Builds a frame in `out` (`HEADER_BYTES + payload.len()` bytes): copies `payload` behind the
/// header, computing its checksum in the copy. `header.length_bytes` and `header.checksum`
/// are filled in. Returns the payload checksum.
pub fn encode_chunk(
    out: &mut [u8],
    header: &ChunkHeader,
    payload: &[u8],
) -> Result<u64, IntegrityError> {
    check_frame_len(out, HEADER_BYTES + payload.len(), "the chunk")?;
    let csum = copy_maybe_checksum(&mut out[HEADER_BYTES..], payload, header.algorithm)?;
    write_header(out, header, payload.len(), csum, false)
}

/// Builds a shared-source frame in `out` (`HEADER_BYTES + SOURCE_REF_BYTES` bytes): the
/// header, with the checksum of `payload` (read where it is, not copied), then `source`, where
/// the receiver finds `payload`. Returns the payload checksum.
pub fn encode_shared_chunk(
    out: &mut [u8],
    header: &ChunkHeader,
    payload: &[u8],
    source: SourceRef,
) -> Result<u64, IntegrityError> {
    check_frame_len(
        out,
        HEADER_BYTES + SOURCE_REF_BYTES,
        "a shared-source chunk",
    )?;
    let csum = header.algorithm.map_or(0, |a| checksum(payload, a, 0));
    source.write(&mut out[HEADER_BYTES..]);
    write_header(out, header, payload.len(), csum, true)
}

/// Refuses a frame buffer `out` that does not hold exactly the `need` bytes of `what` (a
/// chunk's frame).
#[inline(always)]
fn check_frame_len(out: &[u8], need: usize, what: &str) -> Result<(), IntegrityError> {
    if out.len() != need {
        return Err(wrong_frame_len(out.len(), need, what));
    }
    Ok(())
}

/// The error of [`check_frame_len`], out of the encoders' way.
#[cold]
fn wrong_frame_len(holds: usize, need: usize, what: &str) -> IntegrityError {
    bad(format!(
        "frame buffer holds {holds} bytes, {what} needs {need}"
    ))
}

/// Writes `header` into `out`, with the payload's length (`payload_bytes`), its checksum
/// `csum` and whether the payload is in a shared source; returns `csum`.
fn write_header(
    out: &mut [u8],
    header: &ChunkHeader,
    payload_bytes: usize,
    csum: u64,
    shared_source: bool,
) -> Result<u64, IntegrityError> {
    let h = ChunkHeader {
        length_bytes: payload_bytes as u64,
        checksum: csum,
        shared_source,
        ..*header
    };
    h.write(out)?;
    Ok(csum)
}

/// The result of checking a received frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Header and payload are intact; the payload was copied out.
    Intact(ChunkHeader),
    /// The header is damaged (magic, CRC, version or algorithm); nothing was copied.
    BadHeader,
    /// The header is intact but the payload checksum differs.
    BadPayload(ChunkHeader),
}

impl Verdict {
    /// True for [`Verdict::Intact`].
    pub fn is_intact(&self) -> bool {
        matches!(self, Verdict::Intact(_))
    }
}

/// Checks a received `frame` and copies its payload into `dst`, verifying the checksum inside
/// the copy.
///
/// `dst` must be exactly the payload length the receiver expects; a header that announces
/// another length is an error (the frame belongs to another message or the protocol is out of
/// step). On [`Verdict::BadPayload`] `dst` holds the damaged bytes; the transport resends.
pub fn verify_copy_out(frame: &[u8], dst: &mut [u8]) -> Result<Verdict, IntegrityError> {
    let header = match ChunkHeader::read(frame) {
        Ok(h) => h,
        Err(_) => return Ok(Verdict::BadHeader),
    };
    if header.shared_source {
        return Err(bad("a shared-source frame carries no payload to copy out"));
    }
    Ok(if verify_copy_from(&header, &frame[HEADER_BYTES..], dst)? {
        Verdict::Intact(header)
    } else {
        Verdict::BadPayload(header)
    })
}

/// Copies the payload `src` of the chunk described by `header` into `dst`, verifying against
/// `header` inside the copy; true when intact. `src` is the frame's payload, or for a
/// shared-source chunk the bytes its [`SourceRef`] points to.
pub fn verify_copy_from(
    header: &ChunkHeader,
    src: &[u8],
    dst: &mut [u8],
) -> Result<bool, IntegrityError> {
    if header.length_bytes != src.len() as u64 || src.len() != dst.len() {
        return Err(bad(format!(
            "header announces {} payload bytes, the chunk carries {}, receiver expects {}",
            header.length_bytes,
            src.len(),
            dst.len()
        )));
    }
    Ok(copy_maybe_checksum(dst, src, header.algorithm)? == header.checksum)
}

/// Writes a request-to-send for message `seq` of `message_bytes` into `out[..RTS_BYTES]`.
pub fn encode_rts(out: &mut [u8], seq: u64, message_bytes: u64) -> Result<(), IntegrityError> {
    if out.len() != RTS_BYTES {
        return Err(bad(format!(
            "an RTS frame is {RTS_BYTES} bytes, got {}",
            out.len()
        )));
    }
    out.fill(0);
    put(out, 0, &RTS_MAGIC.to_le_bytes());
    put(out, 8, &seq.to_le_bytes());
    put(out, 16, &message_bytes.to_le_bytes());
    let crc = crc32c::crc32c(&out[..24]);
    put(out, 24, &crc.to_le_bytes());
    Ok(())
}

/// Reads a request-to-send: `(seq, message_bytes)`, or `None` when it is damaged.
pub fn decode_rts(frame: &[u8]) -> Option<(u64, u64)> {
    if frame.len() != RTS_BYTES
        || get32(frame, 0) != RTS_MAGIC
        || crc32c::crc32c(&frame[..24]) != get32(frame, 24)
        || get32(frame, 28) != 0
    {
        return None;
    }
    Some((get64(frame, 8), get64(frame, 16)))
}
