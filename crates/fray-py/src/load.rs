//! The messages of one stencil exchange, for the load engine's `fray.stencil_load`:
//! `stencil_messages`.

use fray_core::workload::{Stencil, StencilKind};
use pyo3::prelude::*;

use crate::args;
use crate::errors::workload_error;
use crate::fabric::Fabric;

/// The messages of one `stencil` exchange (`5P`, `7P`, ...; `periodic` wraps the grid) with
/// rank `i` on endpoint `i`, over a grid of `dims` ranks (default: the dimensions of a mesh
/// or torus), each of `size_bytes`: `(src_endpoint, dst_endpoint, size_bytes)` triples.
#[pyfunction]
#[pyo3(signature = (fabric, stencil, periodic, size_bytes, dims = None))]
pub fn stencil_messages(
    #[pyo3(from_py_with = args::fabric)] fabric: PyRef<'_, Fabric>,
    #[pyo3(from_py_with = args::stencil)] stencil: &str,
    #[pyo3(from_py_with = args::periodic)] periodic: bool,
    #[pyo3(from_py_with = args::size_bytes)] size_bytes: f64,
    #[pyo3(from_py_with = args::dims)] dims: Option<Vec<usize>>,
) -> PyResult<Vec<(u32, u32, f64)>> {
    let kind: StencilKind = stencil.parse().map_err(workload_error)?;
    let dims = dims.unwrap_or_else(|| {
        fabric
            .0
            .as_cartesian()
            .map(|c| c.dims().to_vec())
            .unwrap_or_default()
    });
    let messages = Stencil { kind, periodic }
        .messages_on(&dims, fabric.0.num_endpoints(), size_bytes)
        .map_err(workload_error)?;
    Ok(messages
        .iter()
        .map(|m| (m.src, m.dst, m.size_bytes))
        .collect())
}
