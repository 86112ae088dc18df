//! Frames of the checked transport and fault injection, on Python buffers.

use fray_integrity::frame::{
    decode_rts, encode_chunk, encode_rts, verify_copy_out, ChunkHeader, Verdict, HEADER_BYTES,
    RTS_BYTES,
};
use fray_integrity::inject::{inject_ber, rng_for};
use pyo3::prelude::*;

use super::buffers::Bytes;
use super::checksums::frame_algorithm;
use crate::errors::integrity_error;

const DETACH_BYTES: usize = 64 * 1024;

/// Builds a frame in `out` (header + payload, fused copy+checksum); returns the checksum.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn integrity_encode_chunk(
    py: Python<'_>,
    out: &Bound<'_, PyAny>,
    payload: &Bound<'_, PyAny>,
    algorithm: &str,
    seq: u64,
    chunk_index: u32,
    chunk_count: u32,
    offset_bytes: u64,
    message_bytes: u64,
    tag: u32,
) -> PyResult<u64> {
    let header = ChunkHeader {
        algorithm: frame_algorithm(algorithm)?,
        seq,
        chunk_index,
        chunk_count,
        offset_bytes,
        length_bytes: 0,
        message_bytes,
        checksum: 0,
        tag,
        shared_source: false,
    };
    let o = Bytes::writable(out, "out")?;
    let p = Bytes::readable(payload, "payload")?;
    o.disjoint(&p)?;
    let (oraw, praw) = (o.raw(), p.raw());
    // SAFETY: both exports live until the end; disjoint; `out` writable.
    let run = move || unsafe { encode_chunk(oraw.slice_mut(), &header, praw.slice()) };
    let r = if p.len() >= DETACH_BYTES {
        py.detach(run)
    } else {
        run()
    };
    r.map_err(integrity_error)
}

/// Checks a frame and copies its payload to `dst`, verifying inside the copy.
/// Returns `("intact" | "bad_header" | "bad_payload", seq, chunk_index)` (-1 when unknown).
#[pyfunction]
fn integrity_verify_copy_out(
    py: Python<'_>,
    frame: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
) -> PyResult<(&'static str, i64, i64)> {
    let f = Bytes::readable(frame, "frame")?;
    let d = Bytes::writable(dst, "dst")?;
    d.disjoint(&f)?;
    let (fraw, draw) = (f.raw(), d.raw());
    // SAFETY: both exports live until the end; disjoint; `dst` writable.
    let run = move || unsafe { verify_copy_out(fraw.slice(), draw.slice_mut()) };
    let r = if d.len() >= DETACH_BYTES {
        py.detach(run)
    } else {
        run()
    };
    Ok(match r.map_err(integrity_error)? {
        Verdict::Intact(h) => ("intact", h.seq as i64, i64::from(h.chunk_index)),
        Verdict::BadHeader => ("bad_header", -1, -1),
        Verdict::BadPayload(h) => ("bad_payload", h.seq as i64, i64::from(h.chunk_index)),
    })
}

/// Writes a header carrying `checksum` (for the naive protocol, whose payload travels apart).
#[pyfunction]
fn integrity_write_header(
    out: &Bound<'_, PyAny>,
    algorithm: &str,
    seq: u64,
    message_bytes: u64,
    checksum: u64,
    tag: u32,
) -> PyResult<()> {
    let o = Bytes::writable(out, "out")?;
    let h = ChunkHeader {
        algorithm: frame_algorithm(algorithm)?,
        seq,
        chunk_index: 0,
        chunk_count: 1,
        offset_bytes: 0,
        length_bytes: message_bytes,
        message_bytes,
        checksum,
        tag,
        shared_source: false,
    };
    // SAFETY: the export lives until the end; `out` writable.
    h.write(unsafe { o.raw().slice_mut() })
        .map_err(integrity_error)
}

/// Reads a header: `(seq, message_bytes, checksum, algorithm)`, or `None` when damaged.
#[pyfunction]
fn integrity_read_header(
    frame: &Bound<'_, PyAny>,
) -> PyResult<Option<(u64, u64, u64, &'static str)>> {
    let f = Bytes::readable(frame, "frame")?;
    // SAFETY: the export lives until the end.
    Ok(ChunkHeader::read(unsafe { f.raw().slice() }).ok().map(|h| {
        (
            h.seq,
            h.message_bytes,
            h.checksum,
            h.algorithm.map_or("none", |a| a.name()),
        )
    }))
}

/// Writes a request-to-send frame.
#[pyfunction]
fn integrity_encode_rts(out: &Bound<'_, PyAny>, seq: u64, message_bytes: u64) -> PyResult<()> {
    let o = Bytes::writable(out, "out")?;
    // SAFETY: the export lives until the end; `out` writable.
    encode_rts(unsafe { o.raw().slice_mut() }, seq, message_bytes).map_err(integrity_error)
}

/// Reads a request-to-send: `(seq, message_bytes)` or `None` when damaged.
#[pyfunction]
fn integrity_decode_rts(frame: &Bound<'_, PyAny>) -> PyResult<Option<(u64, u64)>> {
    let f = Bytes::readable(frame, "frame")?;
    // SAFETY: the export lives until the end.
    Ok(decode_rts(unsafe { f.raw().slice() }))
}

/// Flips bits of `buf` at bit error rate `ber`, with the RNG of `(seed, stream)`; returns flips.
#[pyfunction]
fn integrity_inject_ber(buf: &Bound<'_, PyAny>, ber: f64, seed: u64, stream: u64) -> PyResult<u64> {
    let b = Bytes::writable(buf, "buf")?;
    let mut rng = rng_for(seed, stream);
    // SAFETY: the export lives until the end; `buf` writable.
    inject_ber(unsafe { b.raw().slice_mut() }, ber, &mut rng).map_err(integrity_error)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("INTEGRITY_HEADER_BYTES", HEADER_BYTES)?;
    m.add("INTEGRITY_RTS_BYTES", RTS_BYTES)?;
    m.add_function(wrap_pyfunction!(integrity_encode_chunk, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_verify_copy_out, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_write_header, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_read_header, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_encode_rts, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_decode_rts, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_inject_ber, m)?)?;
    Ok(())
}
