//! One simulation of any workload on any engine: `simulate` (what `fray.simulate` calls).

use crate::interrupt::interruptible;
use fray_core::options::OptionError;
use fray_core::sim::packet::TrafficConfig;
use fray_core::sim::{Engine, Simulation, Workload};
use fray_core::workload::{HostCosts, Message, WorkloadSpec};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args;
use crate::errors::{option_error, sim_error, workload_error, SpecError};
use crate::fabric::Fabric;
use crate::faults::{faults_or_none, Faults};

/// Runs one of `workload` (a workload spec such as `"halo3d26:jobs=4,nx=30"`), `messages`
/// (`(src_endpoint, dst_endpoint, size_bytes)` triples, one phase) or `traffic` (`(load,
/// warmup_s, measure_s)`: open-loop uniform random traffic) on `fabric` under `faults`, with
/// `routing` (a routing spec; default the fabric's), `engine` (an engine spec; default flow,
/// packet for traffic), `host` (a host-costs spec) and `seed`; `time_tolerance` and
/// `time_resolution` (seconds) are the flow engine's (`None`: its defaults). Returns a dict with `engine`,
/// `routing`, `jobs` (one dict per job: `name, ranks, iteration_s, makespan_s, messages,
/// bytes`), `throughput` (rank-iterations per second over the jobs), `channel_bytes` and
/// `traffic` (`offered, accepted, latency_mean_s, packets, events, wall_s`, or `None`),
/// `vcs` (the packet engine's virtual channels per channel, or `None`) and `loads` (the load
/// engine's report per job: `max_routes, max_network_routes, histogram, total_hops,
/// phase_time_s, routes, bytes`; empty on the other engines) and `message_end_s` (for
/// messages on the flow engine, when each arrived, seconds; else empty).
#[pyfunction]
#[pyo3(signature = (fabric, workload = None, messages = None, traffic = None, faults = None,
    routing = None, engine = None, host = None, seed = 1, time_tolerance = None,
    time_resolution = None))]
#[allow(clippy::too_many_arguments)]
pub fn simulate<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::fabric)] fabric: PyRef<'_, Fabric>,
    #[pyo3(from_py_with = args::workload)] workload: Option<&str>,
    messages: Option<Vec<(u32, u32, f64)>>,
    traffic: Option<(f64, f64, f64)>,
    #[pyo3(from_py_with = args::faults)] faults: Option<PyRef<'_, Faults>>,
    #[pyo3(from_py_with = args::routing)] routing: Option<String>,
    #[pyo3(from_py_with = args::engine)] engine: Option<&str>,
    #[pyo3(from_py_with = args::host)] host: Option<&str>,
    #[pyo3(from_py_with = args::seed)] seed: u64,
    #[pyo3(from_py_with = args::time_tolerance)] time_tolerance: Option<f64>,
    #[pyo3(from_py_with = args::time_resolution)] time_resolution: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let workload = match (workload, messages, traffic) {
        (Some(spec), None, None) => {
            Workload::Jobs(WorkloadSpec::parse(spec).map_err(workload_error)?)
        }
        (None, Some(messages), None) => {
            Workload::Messages(messages.into_iter().map(Message::from).collect())
        }
        (None, None, Some((load, warmup_s, measure_s))) => Workload::Traffic(TrafficConfig {
            load,
            warmup_s,
            measure_s,
        }),
        _ => {
            return Err(SpecError::new_err(
                "workload: give exactly one of a spec, messages or traffic",
            ))
        }
    };
    let simulation = Simulation {
        workload,
        routing,
        engine: engine
            .map(str::parse::<Engine>)
            .transpose()
            .map_err(option_error)?,
        time_tolerance,
        time_resolution_s: time_resolution,
        host: host
            .map(str::parse::<HostCosts>)
            .transpose()
            .map_err(|e| option_error(OptionError::new(e.field, format!("host: {}", e.message))))?,
        seed,
    };
    let fabric = &fabric.0;
    let faults = faults_or_none(fabric, faults.as_deref())?;
    let r = interruptible(py, || simulation.run(fabric, &faults))?.map_err(sim_error)?;
    let out = PyDict::new(py);
    out.set_item("engine", r.engine.to_string())?;
    out.set_item("routing", &r.routing)?;
    out.set_item("throughput", r.throughput())?;
    out.set_item("vcs", r.vcs)?;
    let rows = r
        .jobs
        .iter()
        .zip(&r.ranks)
        .map(|(j, ranks)| {
            let d = PyDict::new(py);
            d.set_item("name", &j.name)?;
            d.set_item("ranks", ranks)?;
            d.set_item("iteration_s", j.iteration_s)?;
            d.set_item("makespan_s", j.makespan_s)?;
            d.set_item("messages", j.messages)?;
            d.set_item("bytes", j.bytes)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    out.set_item("jobs", rows)?;
    out.set_item("channel_bytes", r.channel_bytes)?;
    let traffic = r
        .traffic
        .map(|t| {
            let d = PyDict::new(py);
            d.set_item("offered", t.offered)?;
            d.set_item("accepted", t.accepted)?;
            d.set_item("latency_mean_s", t.latency_mean_s)?;
            d.set_item("packets", t.packets)?;
            d.set_item("events", t.events)?;
            d.set_item("wall_s", t.wall_s)?;
            PyResult::Ok(d)
        })
        .transpose()?;
    out.set_item("traffic", traffic)?;
    let loads = r
        .loads
        .into_iter()
        .map(|l| {
            let d = PyDict::new(py);
            d.set_item("max_routes", l.max_routes)?;
            d.set_item("max_network_routes", l.max_network_routes)?;
            d.set_item("histogram", l.histogram)?;
            d.set_item("total_hops", l.total_hops)?;
            d.set_item("phase_time_s", l.phase_time_s)?;
            d.set_item("routes", l.routes)?;
            d.set_item("bytes", l.bytes)?;
            PyResult::Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    out.set_item("loads", loads)?;
    out.set_item("message_end_s", r.message_end_s)?;
    Ok(out)
}
