//! Diagnostics from Python: netwatch logs, TopoBW plans and reports, the modelled TopoBW,
//! localisation and its study, links below their peers.

use crate::interrupt::interruptible;
use fray_core::diag::topobw::{
    is_host_report, simulate_host_topobw, simulate_topobw, HostReport, Layout, Plan, Report,
    Sharing,
};
use fray_core::diag::{
    job_cost as core_job_cost, localisation_study as core_study, locate, locate_hosts,
    parse_netwatch, slow_links as core_slow_links, Injection, LaneSide, NetwatchKind, Score,
    StudyConfig, Suspect,
};
use fray_core::fabric::gemini::Gemini;
use fray_core::fabric::FabricSpec;
use fray_core::faults::Faults;
use fray_core::routing;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args;
use crate::errors::{diag_error, fabric_error, SpecError};
use crate::fabric::Fabric;

/// Events as dicts, and `(line, reason)` of each line skipped.
type ParsedLog<'py> = (Vec<Bound<'py, PyDict>>, Vec<(usize, String)>);

/// Reads a netwatch log: `(events, malformed)`. Each event is a dict with `line`, `date`,
/// `time`, `tile`, `kind` (`lanemask`, `mode-exchange`, `error` or `other`) and, by kind,
/// `peer`, `count`, `side` (`RX`/`TX`), `lanemask`, `degrade` (the degraded sending tile as
/// `TILE:MASK`) and `message`. `malformed` lists `(line, reason)` of the lines skipped.
#[pyfunction]
pub fn netwatch_parse<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::text)] text: &str,
) -> PyResult<ParsedLog<'py>> {
    let log = parse_netwatch(text);
    let mut events = Vec::with_capacity(log.events.len());
    for e in &log.events {
        let d = PyDict::new(py);
        d.set_item("line", e.line)?;
        d.set_item("date", &e.date)?;
        d.set_item("time", &e.time)?;
        d.set_item("tile", e.tile.to_string())?;
        match &e.kind {
            NetwatchKind::LaneMask {
                peer,
                count,
                side,
                mask,
            } => {
                d.set_item("kind", "lanemask")?;
                d.set_item("peer", peer.to_string())?;
                d.set_item("count", count)?;
                d.set_item("side", if *side == LaneSide::Rx { "RX" } else { "TX" })?;
                d.set_item("lanemask", mask.bits())?;
            }
            NetwatchKind::ModeExchange { peer, count } => {
                d.set_item("kind", "mode-exchange")?;
                d.set_item("peer", peer.to_string())?;
                d.set_item("count", count)?;
            }
            NetwatchKind::Error { message } => {
                d.set_item("kind", "error")?;
                d.set_item("message", message)?;
            }
            NetwatchKind::Other {
                peer,
                count,
                message,
            } => {
                d.set_item("kind", "other")?;
                d.set_item("peer", peer.to_string())?;
                d.set_item("count", count)?;
                d.set_item("message", message)?;
            }
        }
        if let Some(inj) = e.injection() {
            d.set_item("degrade", inj.to_string())?;
        }
        events.push(d);
    }
    let malformed = log
        .malformed
        .into_iter()
        .map(|m| (m.line, m.reason))
        .collect();
    Ok((events, malformed))
}

fn sharing(text: &str) -> PyResult<Sharing> {
    text.parse().map_err(SpecError::new_err)
}

fn gemini(spec: &str) -> PyResult<Gemini> {
    match spec.parse::<FabricSpec>().map_err(fabric_error)? {
        FabricSpec::Gemini(g) => Ok(g),
        _ => Err(SpecError::new_err(format!(
            "{spec:?}: TopoBW runs on a Gemini machine, gemini:XxYxZ"
        ))),
    }
}

fn injections(degrades: &[String]) -> PyResult<Vec<Injection>> {
    degrades
        .iter()
        .map(|d| d.parse().map_err(fabric_error))
        .collect()
}

/// The phases of a TopoBW run on `ranks` ranks: `layout` is `builtin:XxYxZ` or a layout
/// file's name, with its text in `text`; `sharing` is `exclusive`, `shared` or `both`.
#[pyclass(frozen, module = "fray._fray")]
pub struct TopoBwPlan {
    layout: Layout,
    plan: Plan,
}

#[pymethods]
impl TopoBwPlan {
    #[new]
    #[pyo3(signature = (layout, ranks, text = None, sharing = "both"))]
    fn new(
        #[pyo3(from_py_with = args::layout)] layout: &str,
        #[pyo3(from_py_with = args::ranks)] ranks: usize,
        #[pyo3(from_py_with = args::text)] text: Option<&str>,
        #[pyo3(from_py_with = args::sharing)] sharing: &str,
    ) -> PyResult<Self> {
        let mode = self::sharing(sharing)?;
        let layout = Layout::parse(layout, text, ranks).map_err(diag_error)?;
        let fabric = layout
            .gemini
            .fabric(fray_core::fabric::LinkParameters::default().latency_s)
            .map_err(fabric_error)?;
        let plan = Plan::new(&layout, &fabric, mode);
        Ok(Self { layout, plan })
    }

    /// The phases in order, each a list of `(sending rank, receiving rank)`.
    #[getter]
    fn phases(&self) -> Vec<Vec<(u32, u32)>> {
        self.plan
            .phases
            .iter()
            .map(|p| p.transfers.iter().map(|t| (t.src, t.dst)).collect())
            .collect()
    }

    /// Number of transfers over all phases.
    #[getter]
    fn num_transfers(&self) -> usize {
        self.plan.num_transfers()
    }

    /// The report of a run in the paper's format: `seconds[i]` is the duration of the
    /// `i`-th transfer (phase by phase), each moving `bytes`: positive, finite numbers (a
    /// transfer that took no time, or NaN, has no rate to report).
    fn report(
        &self,
        #[pyo3(from_py_with = args::seconds)] seconds: Vec<f64>,
        #[pyo3(from_py_with = args::bytes)] bytes: f64,
    ) -> PyResult<String> {
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if let Some((i, t)) = seconds.iter().enumerate().find(|(_, t)| !positive(**t)) {
            return Err(SpecError::new_err(format!(
                "seconds[{i}]: must be a positive, finite duration, got {t}"
            )));
        }
        if !positive(bytes) {
            return Err(SpecError::new_err(format!(
                "bytes: must be a positive, finite size, got {bytes}"
            )));
        }
        Report::from_run(&self.layout, &self.plan, &seconds, bytes)
            .map(|r| r.to_text())
            .map_err(diag_error)
    }
}

/// TopoBW on a modelled Gemini machine (`gemini:XxYxZ`, every node taking part) with the
/// `degrades` injected (`TILE:MASK`, `gemini:NAME`, `node:NAME`): the report as text.
#[pyfunction]
#[pyo3(signature = (machine, degrades, message_bytes, count, sharing = "both", routing = "dor-retry"))]
pub fn topobw_simulate(
    py: Python<'_>,
    #[pyo3(from_py_with = args::machine)] machine: &str,
    #[pyo3(from_py_with = args::degrades)] degrades: Vec<String>,
    #[pyo3(from_py_with = args::message_bytes)] message_bytes: f64,
    #[pyo3(from_py_with = args::count)] count: u32,
    #[pyo3(from_py_with = args::sharing)] sharing: &str,
    #[pyo3(from_py_with = args::routing)] routing: &str,
) -> PyResult<String> {
    let layout = Layout::whole(gemini(machine)?);
    let inj = injections(&degrades)?;
    let mode = self::sharing(sharing)?;
    interruptible(py, || {
        simulate_topobw(&layout, &inj, message_bytes, count, mode, routing)
    })?
    .map(|run| run.report.to_text())
    .map_err(diag_error)
}

/// TopoBW's nearest-neighbour idea on the hosts of `fabric` (a fabric read from a file): the
/// hosts of each switch paired in rounds, each round run on the flow engine with `routing`
/// (the fabric's default when `None`), each transfer `count` messages of `message_bytes`;
/// the report as text.
#[pyfunction]
#[pyo3(signature = (fabric, message_bytes, count, routing = None))]
pub fn topobw_simulate_hosts(
    py: Python<'_>,
    #[pyo3(from_py_with = args::fabric)] fabric: PyRef<'_, Fabric>,
    #[pyo3(from_py_with = args::message_bytes)] message_bytes: f64,
    #[pyo3(from_py_with = args::count)] count: u32,
    #[pyo3(from_py_with = args::routing)] routing: Option<&str>,
) -> PyResult<String> {
    let f = &fabric.0;
    let name = routing.unwrap_or(routing::default_for(f));
    interruptible(py, || {
        simulate_host_topobw(f, &Faults::none(f), name, message_bytes, count)
    })?
    .map(|r| r.to_text())
    .map_err(diag_error)
}

/// The suspects of a TopoBW report (`name` is the report's name in errors), most likely
/// first: dicts with `kind` (`link`, `gemini`, `node`), `name`, `direction` (links; `host`
/// for a host's link to its switch), `slowdown` (one minus the median rate over its kind's),
/// `slow_transfers`, `transfers`. A host report (from [`topobw_simulate_hosts`]) needs the
/// `fabric` it ran on; a Gemini report takes none (`SpecError`), and with `machine`
/// (`gemini:XxYxZ`, the machine it was measured on) every node it names must be on that
/// machine with the node id the report gives it.
#[pyfunction]
#[pyo3(signature = (name, text, fabric = None, machine = None))]
pub fn topobw_locate<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::name)] name: &str,
    #[pyo3(from_py_with = args::text)] text: &str,
    #[pyo3(from_py_with = args::fabric)] fabric: Option<PyRef<'_, Fabric>>,
    #[pyo3(from_py_with = args::machine)] machine: Option<&str>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let suspects: Vec<Suspect> = if is_host_report(text) {
        let fabric = fabric.ok_or_else(|| {
            SpecError::new_err(format!("{name}: a host report needs the fabric it ran on"))
        })?;
        let report = HostReport::parse(name, text).map_err(diag_error)?;
        locate_hosts(&report, &fabric.0).map_err(diag_error)?
    } else if fabric.is_some() {
        return Err(SpecError::new_err(format!(
            "{name}: a Gemini TopoBW report names its own machine; a fabric is only for a \
             host report"
        )));
    } else {
        let report = Report::parse(name, text).map_err(diag_error)?;
        if let Some(machine) = machine {
            report
                .check_machine(name, &gemini(machine)?)
                .map_err(diag_error)?;
        }
        locate(&report)
    };
    suspects
        .into_iter()
        .map(|s| {
            let d = PyDict::new(py);
            d.set_item("kind", s.kind.name())?;
            d.set_item("name", s.name)?;
            d.set_item("direction", s.direction)?;
            d.set_item("slowdown", s.slowdown)?;
            d.set_item("slow_transfers", s.slow_transfers)?;
            d.set_item("transfers", s.transfers)?;
            Ok(d)
        })
        .collect()
}

fn score<'py>(py: Python<'py>, s: &Score) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("injected", s.injected)?;
    d.set_item("suspects", s.suspects)?;
    d.set_item("hits", s.hits)?;
    d.set_item("precision", s.precision())?;
    d.set_item("recall", s.recall())?;
    Ok(d)
}

/// Precision and recall of localisation over `cases` modelled runs on `machine`, each with
/// `faults_per_case` slow parts drawn at random (seeded) and measurement noise `noise`
/// (log-normal, relative): a dict of scores `total`, `link`, `gemini`, `node`.
#[pyfunction]
#[pyo3(signature = (machine, cases, faults_per_case = 2, noise = 0.0, seed = 1, message_bytes = 4e6, count = 16))]
#[allow(clippy::too_many_arguments)]
pub fn localisation_study<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::machine)] machine: &str,
    #[pyo3(from_py_with = args::cases)] cases: u32,
    #[pyo3(from_py_with = args::faults_per_case)] faults_per_case: u32,
    #[pyo3(from_py_with = args::noise)] noise: f64,
    #[pyo3(from_py_with = args::seed)] seed: u64,
    #[pyo3(from_py_with = args::message_bytes)] message_bytes: f64,
    #[pyo3(from_py_with = args::count)] count: u32,
) -> PyResult<Bound<'py, PyDict>> {
    if !(noise.is_finite() && noise >= 0.0) {
        return Err(SpecError::new_err(format!(
            "noise {noise}: must be non-negative"
        )));
    }
    let config = StudyConfig {
        gemini: gemini(machine)?,
        cases,
        faults_per_case,
        noise,
        seed,
        message_bytes,
        count,
    };
    let r = interruptible(py, || core_study(&config))?.map_err(diag_error)?;
    let d = PyDict::new(py);
    d.set_item("total", score(py, &r.total)?)?;
    d.set_item("link", score(py, &r.link)?)?;
    d.set_item("gemini", score(py, &r.gemini)?)?;
    d.set_item("node", score(py, &r.node)?)?;
    Ok(d)
}

/// The cables of `fabric` whose width or per-lane speed is below the most common of their
/// peers' (the other cables of their class at the same switches): dicts with `name`, `cls`,
/// `lanes`, `lane_bits_s`, `peer_lanes`, `peer_lane_bits_s`, `peers`.
#[pyfunction]
pub fn slow_links<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::fabric)] fabric: PyRef<'_, Fabric>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    core_slow_links(&fabric.0)
        .into_iter()
        .map(|s| {
            let d = PyDict::new(py);
            d.set_item("name", s.name)?;
            d.set_item("cls", s.class)?;
            d.set_item("lanes", s.lanes)?;
            d.set_item("lane_bits_s", s.lane_bits_s)?;
            d.set_item("peer_lanes", s.peer_lanes)?;
            d.set_item("peer_lane_bits_s", s.peer_lane_bits_s)?;
            d.set_item("peers", s.peers)?;
            Ok(d)
        })
        .collect()
}

/// What the `degrades` cost a Halo3D26 stencil of `cells` cubed cells per rank running on
/// every node of `machine` (flow engine, dimension-order retry): a dict with
/// `healthy_iteration_s`, `degraded_iteration_s` and `slowdown` (0.04: 4% slower).
#[pyfunction]
#[pyo3(signature = (machine, degrades, cells = 30, iterations = 1))]
pub fn job_cost<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::machine)] machine: &str,
    #[pyo3(from_py_with = args::degrades)] degrades: Vec<String>,
    #[pyo3(from_py_with = args::cells)] cells: u32,
    #[pyo3(from_py_with = args::iterations)] iterations: u32,
) -> PyResult<Bound<'py, PyDict>> {
    let g = gemini(machine)?;
    let inj = injections(&degrades)?;
    let cost =
        interruptible(py, || core_job_cost(&g, &inj, cells, iterations))?.map_err(diag_error)?;
    let d = PyDict::new(py);
    d.set_item("healthy_iteration_s", cost.healthy_iteration_s)?;
    d.set_item("degraded_iteration_s", cost.degraded_iteration_s)?;
    d.set_item("slowdown", cost.slowdown())?;
    Ok(d)
}

/// Registers the diagnostics.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TopoBwPlan>()?;
    m.add_function(wrap_pyfunction!(netwatch_parse, m)?)?;
    m.add_function(wrap_pyfunction!(topobw_simulate, m)?)?;
    m.add_function(wrap_pyfunction!(topobw_locate, m)?)?;
    m.add_function(wrap_pyfunction!(topobw_simulate_hosts, m)?)?;
    m.add_function(wrap_pyfunction!(localisation_study, m)?)?;
    m.add_function(wrap_pyfunction!(slow_links, m)?)?;
    m.add_function(wrap_pyfunction!(job_cost, m)?)?;
    Ok(())
}
