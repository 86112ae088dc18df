//! The flow engine on an explicit list of messages: `flow_messages`.

use fray_core::routing;
use fray_core::sim::flow::{simulate as flow_simulate, FlowConfig};
use fray_core::workload::{Job, Message};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{routing_error, sim_error, workload_error};
use crate::fabric::Fabric;
use crate::faults::{faults_or_none, Faults};

/// Runs one phase of `messages` (`(src_endpoint, dst_endpoint, size_bytes)` triples, all
/// posted at time 0) on the flow engine with `routing` (default: the fabric's) under
/// `faults`. Returns a dict with `routing`, `end_s` (when the last message arrived),
/// `completion_s` (when each message's last byte arrived, in the order given, seconds),
/// `events` and `rate_solves`. Raises `UnroutableError` when a pair cannot be routed.
/// `time_tolerance` (a share of each message's time) and `time_resolution` (seconds) are
/// the engine's, as in `fray.simulate` (`None`: the engine's defaults).
#[pyfunction]
#[pyo3(signature = (fabric, messages, routing = None, faults = None, seed = 1, time_tolerance = None, time_resolution = None))]
#[allow(clippy::too_many_arguments)]
pub fn flow_messages<'py>(
    py: Python<'py>,
    fabric: &Fabric,
    messages: Vec<(u32, u32, f64)>,
    routing: Option<&str>,
    faults: Option<&Faults>,
    seed: u64,
    time_tolerance: Option<f64>,
    time_resolution: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let messages: Vec<Message> = messages.into_iter().map(Message::from).collect();
    let fabric = &fabric.0;
    let faults = faults_or_none(fabric, faults)?;
    let job = Job::from_messages("messages", &messages, fabric).map_err(workload_error)?;
    let name = routing.unwrap_or(routing::default_for(fabric));
    let router = routing::build(name, fabric, &faults).map_err(routing_error)?;
    let default = FlowConfig::default();
    let config = FlowConfig {
        seed,
        time_tolerance: time_tolerance.unwrap_or(default.time_tolerance),
        time_resolution_s: time_resolution.unwrap_or(default.time_resolution_s),
    };
    config.check().map_err(sim_error)?;
    let jobs = [job];
    let result = py
        .detach(|| flow_simulate(fabric, &faults, router.as_ref(), &jobs, config))
        .map_err(routing_error)?;
    let out = PyDict::new(py);
    out.set_item("routing", name)?;
    out.set_item("end_s", result.end_s)?;
    out.set_item("completion_s", result.op_end_s)?;
    out.set_item("events", result.events)?;
    out.set_item("rate_solves", result.rate_solves)?;
    Ok(out)
}
