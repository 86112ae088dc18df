//! Headers of the naive protocol and fault injection, on Python buffers.

use fray_integrity::frame::{ChunkHeader, HEADER_BYTES};
use fray_integrity::inject::{inject_ber, rng_for};
use pyo3::prelude::*;

use super::buffers::Bytes;
use super::checksums::frame_algorithm;
use crate::errors::integrity_error;

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
    m.add_function(wrap_pyfunction!(integrity_write_header, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_read_header, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_inject_ber, m)?)?;
    Ok(())
}
