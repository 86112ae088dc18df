//! `integrity_checksum`, `integrity_copy_checksum`, `integrity_algorithms` and `Checksummer`.

use fray_integrity::{Algorithm, CopyStrategy};
use pyo3::prelude::*;

use super::buffers::Bytes;
use crate::errors::integrity_error;

/// Buffers at least this large are checksummed without the GIL (bytes).
const DETACH_BYTES: usize = 64 * 1024;

pub fn algorithm(name: &str) -> PyResult<Algorithm> {
    name.parse::<Algorithm>().map_err(integrity_error)
}

/// The algorithm of a transport frame: a name, or `"none"` for frames without a checksum.
pub fn frame_algorithm(name: &str) -> PyResult<Option<Algorithm>> {
    if name == "none" {
        return Ok(None);
    }
    algorithm(name).map(Some)
}

/// `[(name, bits, description, reference_only)]` for every algorithm.
#[pyfunction]
fn integrity_algorithms() -> Vec<(&'static str, u32, &'static str, bool)> {
    Algorithm::ALL
        .iter()
        .map(|a| (a.name(), a.bits(), a.description(), a.is_reference_only()))
        .collect()
}

/// Checksum of a bytes-like object.
#[pyfunction]
#[pyo3(signature = (data, algorithm, seed = 0))]
fn integrity_checksum(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    algorithm: &str,
    seed: u64,
) -> PyResult<u64> {
    let a = self::algorithm(algorithm)?;
    let b = Bytes::readable(data, "data")?;
    let raw = b.raw();
    // SAFETY: `b` holds the export until the end of this function.
    let run = move || fray_integrity::checksum(unsafe { raw.slice() }, a, seed);
    Ok(if b.len() >= DETACH_BYTES {
        py.detach(run)
    } else {
        run()
    })
}

/// Copies `src` into `dst` (same length) and returns the checksum, in one pass.
#[pyfunction]
#[pyo3(signature = (dst, src, algorithm, seed = 0, strategy = "fused"))]
fn integrity_copy_checksum(
    py: Python<'_>,
    dst: &Bound<'_, PyAny>,
    src: &Bound<'_, PyAny>,
    algorithm: &str,
    seed: u64,
    strategy: &str,
) -> PyResult<u64> {
    let a = self::algorithm(algorithm)?;
    let s = CopyStrategy::parse(strategy).map_err(integrity_error)?;
    let d = Bytes::writable(dst, "dst")?;
    let sb = Bytes::readable(src, "src")?;
    d.disjoint(&sb)?;
    let (draw, sraw) = (d.raw(), sb.raw());
    // SAFETY: both exports live until the end; the ranges are disjoint and dst is writable.
    let run = move || unsafe {
        fray_integrity::copy_checksum_with(draw.slice_mut(), sraw.slice(), a, seed, s)
    };
    let r = if sb.len() >= DETACH_BYTES {
        py.detach(run)
    } else {
        run()
    };
    r.map_err(integrity_error)
}

/// A checksum computed in pieces.
#[pyclass(module = "fray._fray", name = "Checksummer")]
struct PyChecksummer {
    inner: fray_integrity::Checksummer,
}

#[pymethods]
impl PyChecksummer {
    #[new]
    #[pyo3(signature = (algorithm, seed = 0))]
    fn new(algorithm: &str, seed: u64) -> PyResult<Self> {
        Ok(PyChecksummer {
            inner: fray_integrity::Checksummer::new(self::algorithm(algorithm)?, seed),
        })
    }

    /// Folds a bytes-like object into the checksum.
    fn update(&mut self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let b = Bytes::readable(data, "data")?;
        // SAFETY: `b` holds the export for the duration of the call.
        self.inner.update(unsafe { b.raw().slice() });
        Ok(())
    }

    /// Copies `src` into `dst` and folds the bytes in.
    fn update_copy(&mut self, dst: &Bound<'_, PyAny>, src: &Bound<'_, PyAny>) -> PyResult<()> {
        let d = Bytes::writable(dst, "dst")?;
        let s = Bytes::readable(src, "src")?;
        d.disjoint(&s)?;
        // SAFETY: both exports live; disjoint; dst writable.
        unsafe { self.inner.update_copy(d.raw().slice_mut(), s.raw().slice()) }
            .map_err(integrity_error)
    }

    /// The checksum of everything fed so far.
    fn value(&self) -> u64 {
        self.inner.value()
    }

    /// The algorithm name.
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.inner.algorithm().name()
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(integrity_algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_checksum, m)?)?;
    m.add_function(wrap_pyfunction!(integrity_copy_checksum, m)?)?;
    m.add_class::<PyChecksummer>()?;
    Ok(())
}
