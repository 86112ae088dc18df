//! The static load engine from Python: `static_load` and `stencil_load`.

use fray_core::fabric::Fabric as CoreFabric;
use fray_core::routing;
use fray_core::sim::load::{static_load as core_static_load, LoadReport};
use fray_core::workload::{Message, Stencil, StencilKind};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{routing_error, workload_error};
use crate::fabric::Fabric;
use crate::faults::{faults_or_none, Faults};

/// Static load of `messages` (`(src_endpoint, dst_endpoint, size_bytes)` triples): a dict
/// with `max_routes` (every channel, host channels included), `max_network_routes` (router
/// channels: "message collisions"), `histogram` (router channels per route count),
/// `total_hops`, `phase_time_s` and per-channel `routes` and `bytes`. Raises
/// `UnroutableError` when a pair cannot be routed, `SpecError` naming the first message
/// whose endpoint does not exist or whose size is not a number of bytes.
#[pyfunction]
#[pyo3(signature = (fabric, messages, routing = None, faults = None, seed = 0))]
pub fn static_load<'py>(
    py: Python<'py>,
    fabric: &Fabric,
    messages: Vec<(u32, u32, f64)>,
    routing: Option<&str>,
    faults: Option<&Faults>,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let messages: Vec<Message> = messages.into_iter().map(Message::from).collect();
    Message::check_all(&messages, fabric.0.num_endpoints()).map_err(workload_error)?;
    let placement: Vec<u32> = (0..fabric.0.num_endpoints() as u32).collect();
    run(py, &fabric.0, &messages, &placement, routing, faults, seed)
}

/// Static load of one stencil exchange with rank `i` on endpoint `i`, over a grid of `dims`
/// ranks (default: the dimensions of a mesh or torus): the same dict as `static_load`.
#[pyfunction]
#[pyo3(signature = (fabric, stencil, periodic, size_bytes, dims = None, routing = None, faults = None, seed = 0))]
#[allow(clippy::too_many_arguments)]
pub fn stencil_load<'py>(
    py: Python<'py>,
    fabric: &Fabric,
    stencil: &str,
    periodic: bool,
    size_bytes: f64,
    dims: Option<Vec<usize>>,
    routing: Option<&str>,
    faults: Option<&Faults>,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
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
    let placement: Vec<u32> = (0..fabric.0.num_endpoints() as u32).collect();
    run(py, &fabric.0, &messages, &placement, routing, faults, seed)
}

fn run<'py>(
    py: Python<'py>,
    fabric: &CoreFabric,
    messages: &[Message],
    placement: &[u32],
    routing: Option<&str>,
    faults: Option<&Faults>,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let faults = faults_or_none(fabric, faults)?;
    let name = routing.unwrap_or(routing::default_for(fabric));
    let router = routing::build(name, fabric, &faults).map_err(routing_error)?;
    let report = py
        .detach(|| core_static_load(fabric, &faults, router.as_ref(), placement, messages, seed))
        .map_err(routing_error)?;
    report_dict(py, report)
}

fn report_dict(py: Python<'_>, r: LoadReport) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("max_routes", r.max_routes)?;
    out.set_item("max_network_routes", r.max_network_routes)?;
    out.set_item("histogram", r.histogram)?;
    out.set_item("total_hops", r.total_hops)?;
    out.set_item("phase_time_s", r.phase_time_s)?;
    out.set_item("routes", r.routes)?;
    out.set_item("bytes", r.bytes)?;
    Ok(out)
}
