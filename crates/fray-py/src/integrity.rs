//! Bindings for `fray-integrity` (checksums, fused copy, autotune, transfer models).

use pyo3::prelude::*;

/// Adds the integrity functions to the module.
pub fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
