//! Bindings for `fray_core::units`: the one parser and printer of quantities typed by people
//! (`400Gb/s`, `2KiB`, `150ns`), so that Python never reads a unit itself.

use fray_core::units;
use pyo3::prelude::*;

use crate::args::{self, Read};
use crate::errors::{quantity_error, SpecError};

/// A bandwidth such as `400Gb/s` or `50GB/s`, in bytes per second; a bad value raises
/// `SpecError` naming `field`.
#[pyfunction]
#[pyo3(signature = (text, field = "bandwidth"))]
fn parse_rate(
    text: &Bound<'_, PyAny>,
    #[pyo3(from_py_with = args::field)] field: &str,
) -> PyResult<f64> {
    units::parse_rate(Read::read(text, field)?).map_err(|e| quantity_error(e.in_field(field)))
}

/// A size such as `2KiB`, `4MB` or `1e6B`, in bytes (a whole number); a bad value raises
/// `SpecError` naming `field`.
#[pyfunction]
#[pyo3(signature = (text, field = "size"))]
fn parse_bytes(
    text: &Bound<'_, PyAny>,
    #[pyo3(from_py_with = args::field)] field: &str,
) -> PyResult<u64> {
    units::parse_bytes(Read::read(text, field)?).map_err(|e| quantity_error(e.in_field(field)))
}

/// A duration such as `150ns`, `1.4us` or `2s`, in seconds; a bad value raises `SpecError`
/// naming `field`.
#[pyfunction]
#[pyo3(signature = (text, field = "time"))]
fn parse_seconds(
    text: &Bound<'_, PyAny>,
    #[pyo3(from_py_with = args::field)] field: &str,
) -> PyResult<f64> {
    units::parse_seconds(Read::read(text, field)?).map_err(|e| quantity_error(e.in_field(field)))
}

/// Sizes separated by commas (`32KiB,64MiB`) or a doubling range (`8B..64MiB`), in bytes; a
/// bad value raises `SpecError` naming `field`.
#[pyfunction]
#[pyo3(signature = (text, field = "sizes"))]
fn parse_size_list(
    text: &Bound<'_, PyAny>,
    #[pyo3(from_py_with = args::field)] field: &str,
) -> PyResult<Vec<u64>> {
    units::parse_size_list(Read::read(text, field)?).map_err(|e| quantity_error(e.in_field(field)))
}

/// A bandwidth in bytes per second (finite, not negative) as text `parse_rate` reads back
/// (`50e9` is `50GB/s`).
#[pyfunction]
fn format_rate(#[pyo3(from_py_with = args::bytes_per_s)] bytes_per_s: f64) -> PyResult<String> {
    check_printable("bytes_per_s", bytes_per_s, "bandwidth")?;
    Ok(units::format_rate(bytes_per_s))
}

/// A size in bytes as text `parse_bytes` reads back (`2048` is `2KiB`).
#[pyfunction]
fn format_bytes(#[pyo3(from_py_with = args::size_bytes)] size_bytes: u64) -> String {
    units::format_bytes(size_bytes)
}

/// A duration in seconds (finite, not negative) as text `parse_seconds` reads back (`1e-7`
/// is `100ns`).
#[pyfunction]
fn format_seconds(#[pyo3(from_py_with = args::seconds)] seconds: f64) -> PyResult<String> {
    check_printable("seconds", seconds, "duration")?;
    Ok(units::format_seconds(seconds))
}

/// The printers pick a unit for a finite amount of 0 or more: a negative one or NaN would be
/// printed in picoseconds (`-1ps` for -1 s) and infinity as `infps`, which no parser reads.
fn check_printable(name: &str, value: f64, what: &str) -> PyResult<()> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(SpecError::new_err(format!(
            "{name}: a {what} to print must be a finite number of 0 or more, got {value}"
        )))
    }
}

/// Adds the quantity parsers and printers to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_rate, m)?)?;
    m.add_function(wrap_pyfunction!(parse_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(parse_seconds, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size_list, m)?)?;
    m.add_function(wrap_pyfunction!(format_rate, m)?)?;
    m.add_function(wrap_pyfunction!(format_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(format_seconds, m)?)?;
    Ok(())
}
