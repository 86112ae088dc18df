//! Bindings for `fray-integrity` (checksums, fused copy, detection quality, timing, tuning,
//! transfer models, transport frames). Every function is a thin wrapper: it checks its
//! arguments, calls one core function (without the GIL when it may take long) and wraps the
//! result.

use pyo3::prelude::*;

mod buffers;
mod checksums;
mod detach;
mod net;
mod rings;
mod study;
mod transport;

/// Adds the integrity functions and classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    checksums::register(m)?;
    study::register(m)?;
    transport::register(m)?;
    rings::register(m)?;
    net::register(m)?;
    m.add(
        "MAX_BUFFER_BYTES",
        fray_integrity::measure::MAX_BUFFER_BYTES,
    )?;
    m.add("MAX_SAMPLES", fray_integrity::measure::MAX_SAMPLES)?;
    Ok(())
}
