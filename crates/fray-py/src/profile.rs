//! Bindings for `fray_core::profile`: the named profiles' settings.

use fray_core::profile::{Profile, ProfileName};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args;
use crate::errors::profile_error;

/// The settings of the profile called `name` (`"sst"`): a dict with `name`, `routing`,
/// `engine`, `host` (specs as the options take them) and `link_bandwidth_bytes_s` (bytes per
/// second). An unknown name raises `SpecError` with `field` `"profile"`.
#[pyfunction]
fn profile<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::name)] name: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let p: Profile = name.parse().map_err(profile_error)?;
    let d = PyDict::new(py);
    d.set_item("name", p.to_string())?;
    d.set_item("routing", p.routing)?;
    d.set_item("engine", p.engine.to_string())?;
    d.set_item("host", p.host)?;
    d.set_item("link_bandwidth_bytes_s", p.link_bandwidth_bytes_s)?;
    Ok(d)
}

/// The names of every profile.
#[pyfunction]
fn profile_names() -> Vec<&'static str> {
    ProfileName::ALL.map(ProfileName::name).to_vec()
}

/// Adds the profile functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(profile, m)?)?;
    m.add_function(wrap_pyfunction!(profile_names, m)?)?;
    Ok(())
}
