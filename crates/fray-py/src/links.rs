//! The failed-links study from Python.

use crate::interrupt::interruptible;
use std::sync::Arc;

use fray_core::fabric::Fabric as CoreFabric;
use fray_core::faults::CableSelector;
use fray_core::links::{CaseOutcome, DownCables, LinksCase, LinksError, LinksStudy as CoreStudy};
use fray_core::sim::Engine;
use fray_core::workload::{HostCosts, WorkloadSpec};
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args;
use crate::errors::{
    fault_error, option_error, routing_error, sim_error, workload_error, SpecError,
};
use crate::fabric::Fabric;

/// A case's outcome as Python sees it: `(ranks, iteration_s, None)` when it ran,
/// `(None, None, reason)` when it was unroutable.
type Outcome = (Option<Vec<u32>>, Option<Vec<f64>>, Option<String>);

pub(crate) fn links_error(e: LinksError) -> PyErr {
    match e {
        LinksError::Workload(e) => workload_error(e),
        LinksError::Routing(e) => routing_error(e),
        LinksError::Faults(e) => fault_error(e),
        LinksError::Engine(e) => sim_error(e),
        LinksError::Invalid(_) => SpecError::new_err(e.to_string()),
    }
}

/// What host-costs spec `text` (`"ember+send_copy=344ps/B"`, ...) charges: a dict of the
/// costs in seconds (`send_s`, `recv_s`, `match_s`, `register_s`, `register_s_per_page`),
/// seconds per byte (`send_copy_s_per_byte`, `recv_copy_s_per_byte`) and bytes
/// (`eager_limit_bytes`). Raises `SpecError` naming what is wrong.
#[pyfunction]
pub fn host_costs<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::text)] text: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let c: HostCosts = text.parse().map_err(option_error)?;
    let d = PyDict::new(py);
    d.set_item("send_s", c.send_s)?;
    d.set_item("recv_s", c.recv_s)?;
    d.set_item("match_s", c.match_s)?;
    d.set_item("send_copy_s_per_byte", c.send_copy_s_per_byte)?;
    d.set_item("recv_copy_s_per_byte", c.recv_copy_s_per_byte)?;
    d.set_item("eager_limit_bytes", c.eager_limit_bytes)?;
    d.set_item("register_s", c.register_s)?;
    d.set_item("register_s_per_page", c.register_s_per_page)?;
    d.set_item("nic_latency_s", c.nic_latency_s)?;
    Ok(d)
}

/// A prepared failed-links study; `fray.links.study` runs it in chunks.
#[pyclass(module = "fray._fray")]
pub struct LinksStudy {
    fabric: Arc<CoreFabric>,
    study: CoreStudy,
    cases: Vec<LinksCase>,
}

#[pymethods]
impl LinksStudy {
    /// Prepares a study; see `fray.links.study` for the parameters.
    #[new]
    #[pyo3(signature = (fabric, workload, routing, fail, jobs, failed_pct, seeds, seed, time_tolerance = None, engine = "flow", down = "", down_file = "down", time_resolution = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        #[pyo3(from_py_with = args::fabric)] fabric: PyRef<'_, Fabric>,
        #[pyo3(from_py_with = args::workload)] workload: &str,
        #[pyo3(from_py_with = args::routing)] routing: &str,
        #[pyo3(from_py_with = args::fail)] fail: &str,
        #[pyo3(from_py_with = args::jobs)] jobs: Vec<u32>,
        #[pyo3(from_py_with = args::failed_pct)] failed_pct: Vec<f64>,
        #[pyo3(from_py_with = args::seeds)] seeds: u32,
        #[pyo3(from_py_with = args::seed)] seed: u64,
        #[pyo3(from_py_with = args::time_tolerance)] time_tolerance: Option<f64>,
        #[pyo3(from_py_with = args::engine)] engine: &str,
        #[pyo3(from_py_with = args::down)] down: &str,
        #[pyo3(from_py_with = args::down_file)] down_file: &str,
        #[pyo3(from_py_with = args::time_resolution)] time_resolution: Option<f64>,
    ) -> PyResult<Self> {
        let study = CoreStudy {
            engine: study_engine(engine, time_tolerance, time_resolution)?,
            workload: WorkloadSpec::parse(workload).map_err(workload_error)?,
            routing: routing.to_string(),
            fail: CableSelector::parse(fail),
            jobs,
            failed_pct,
            seeds,
            seed,
            down: DownCables {
                text: down.to_string(),
                file: down_file.to_string(),
            },
        };
        study.check(&fabric.0).map_err(links_error)?;
        Ok(Self {
            cases: study.cases(),
            fabric: Arc::clone(&fabric.0),
            study,
        })
    }

    /// Cases to run per call so that every core is busy (`LinksStudy::chunk_len` of the
    /// core: four per thread).
    #[getter]
    fn chunk_len(&self) -> usize {
        CoreStudy::chunk_len()
    }

    /// The engine every case runs on, as its spec (`flow:time_tolerance=0`; the defaults
    /// left out).
    #[getter]
    fn engine(&self) -> String {
        self.study.engine.to_string()
    }

    /// The flow engine's time tolerance and resolution (seconds) the cases run with, or
    /// `None` on the other engines.
    #[getter]
    fn flow_times(&self) -> Option<(f64, f64)> {
        match self.study.engine {
            Engine::Flow(c) => Some((c.time_tolerance, c.time_resolution_s)),
            Engine::Load | Engine::Packet(_) => None,
        }
    }

    /// The seed of seed number `replica`: its cases' layout and routing choices, as
    /// `fray.simulate` takes them (`LinksStudy::replica_seed` of the core).
    fn replica_seed(&self, replica: u32) -> u64 {
        self.study.replica_seed(replica)
    }

    /// Number of cases (simulations), baselines included.
    #[getter]
    fn num_cases(&self) -> usize {
        self.cases.len()
    }

    /// Case `i` as `(jobs, failed_pct, replica, baseline)`.
    fn case(&self, i: usize) -> PyResult<(u32, f64, u32, bool)> {
        let c = self
            .cases
            .get(i)
            .ok_or_else(|| PyIndexError::new_err(format!("case {i} of {}", self.cases.len())))?;
        Ok((c.jobs, c.failed_pct, c.replica, c.baseline))
    }

    /// Runs cases `start..stop` on all cores (without the GIL). Each outcome is
    /// `(ranks, iteration_s, None)` or `(None, None, reason)` when unroutable.
    fn run(&self, py: Python<'_>, start: usize, stop: usize) -> PyResult<Vec<Outcome>> {
        let cases = self
            .cases
            .get(start..stop)
            .ok_or_else(|| PyIndexError::new_err(format!("cases {start}..{stop}")))?;
        let outcomes = interruptible(py, || self.study.run_cases(&self.fabric, cases))?
            .map_err(links_error)?;
        Ok(outcomes.into_iter().map(outcome_tuple).collect())
    }

    /// Runs case `i` alone (without the GIL) and returns its outcome, as `run` gives it,
    /// the bytes each channel carried (by channel; empty when the case is unroutable) and
    /// whether each channel was down.
    fn run_loads(&self, py: Python<'_>, i: usize) -> PyResult<(Outcome, Vec<f64>, Vec<bool>)> {
        let case = *self
            .cases
            .get(i)
            .ok_or_else(|| PyIndexError::new_err(format!("case {i} of {}", self.cases.len())))?;
        let loads = interruptible(py, || self.study.run_case_loads(&self.fabric, case))?
            .map_err(links_error)?;
        Ok((
            outcome_tuple(loads.outcome),
            loads.channel_bytes,
            loads.channel_down,
        ))
    }

    /// Number of runs the repair ranking makes: `(listed cables + 1) x seeds`.
    #[getter]
    fn num_repair_runs(&self) -> usize {
        self.study.num_repair_runs()
    }

    /// Runs the repair ranking's runs `start..stop` for `jobs` jobs on all cores (without
    /// the GIL); outcomes as `run` gives them.
    fn run_repairs(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = args::jobs)] jobs: u32,
        start: usize,
        stop: usize,
    ) -> PyResult<Vec<Outcome>> {
        if start > stop || stop > self.study.num_repair_runs() {
            return Err(PyIndexError::new_err(format!(
                "repair runs {start}..{stop}"
            )));
        }
        let runs = self.study.repair_runs(start..stop);
        let outcomes = interruptible(py, || self.study.run_repairs(&self.fabric, jobs, &runs))?
            .map_err(links_error)?;
        Ok(outcomes.into_iter().map(outcome_tuple).collect())
    }

    /// Greedy cumulative repairs of the listed cables for `jobs` jobs, up to `steps` steps
    /// (without the GIL; `exact` re-evaluates every candidate at every step): one dict per
    /// step, 0 the machine as it is, with `step, cable, line, throughput_pct,
    /// throughput_ci_pct, gain_pct, gain_ci_pct, runner_up, within_noise, unroutable`.
    fn greedy_repairs<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::jobs)] jobs: u32,
        #[pyo3(from_py_with = args::steps)] steps: usize,
        #[pyo3(from_py_with = args::exact)] exact: bool,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let rows = interruptible(py, || {
            self.study.greedy_repairs(&self.fabric, jobs, steps, exact)
        })?
        .map_err(links_error)?;
        rows.into_iter()
            .map(|r| {
                let d = PyDict::new(py);
                d.set_item("step", r.step)?;
                d.set_item("cable", r.cable)?;
                d.set_item("line", r.line)?;
                d.set_item("throughput_pct", r.throughput_pct)?;
                d.set_item("throughput_ci_pct", r.throughput_ci_pct)?;
                d.set_item("gain_pct", r.gain_pct)?;
                d.set_item("gain_ci_pct", r.gain_ci_pct)?;
                d.set_item("runner_up", r.runner_up)?;
                d.set_item("within_noise", r.within_noise)?;
                d.set_item("unroutable", r.unroutable)?;
                Ok(d)
            })
            .collect()
    }

    /// The down cables of case `i` as a fault file (the `down` cables and its random draw;
    /// empty of cables for a baseline), which `--down` reads back to the same state.
    fn case_faults_file(&self, i: usize) -> PyResult<String> {
        let case = *self
            .cases
            .get(i)
            .ok_or_else(|| PyIndexError::new_err(format!("case {i} of {}", self.cases.len())))?;
        let faults = self
            .study
            .case_faults(&self.fabric, case)
            .map_err(links_error)?;
        Ok(faults.down_cables_file(&self.fabric))
    }

    /// The ranking from the outcomes of every repair run, in order: one dict per listed
    /// cable, in the file's order, with `cable, line, gain_pct, gain_ci_pct, unroutable`.
    fn summarize_repairs<'py>(
        &self,
        py: Python<'py>,
        outcomes: Vec<Outcome>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let outcomes: Vec<CaseOutcome> = outcomes.into_iter().map(outcome_from_tuple).collect();
        let gains = self
            .study
            .summarize_repairs(&outcomes)
            .map_err(links_error)?;
        gains
            .into_iter()
            .map(|g| {
                let d = PyDict::new(py);
                d.set_item("cable", g.cable)?;
                d.set_item("line", g.line)?;
                d.set_item("gain_pct", g.gain_pct)?;
                d.set_item("gain_ci_pct", g.gain_ci_pct)?;
                d.set_item("unroutable", g.unroutable)?;
                Ok(d)
            })
            .collect()
    }

    /// The table from the outcomes of every case, in case order: one dict per (jobs,
    /// failed %) with `jobs, failed_pct, degradation_pct, degradation_ci_pct, unroutable,
    /// seeds, baseline_iteration_s, iteration_s, baseline_throughput, throughput`.
    fn summarize<'py>(
        &self,
        py: Python<'py>,
        outcomes: Vec<Outcome>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let outcomes: Vec<CaseOutcome> = outcomes.into_iter().map(outcome_from_tuple).collect();
        let rows = self
            .study
            .summarize(&self.cases, &outcomes)
            .map_err(links_error)?;
        rows.into_iter()
            .map(|r| {
                let d = PyDict::new(py);
                d.set_item("jobs", r.jobs)?;
                d.set_item("failed_pct", r.failed_pct)?;
                d.set_item("degradation_pct", r.degradation_pct)?;
                d.set_item("degradation_ci_pct", r.degradation_ci_pct)?;
                d.set_item("unroutable", r.unroutable)?;
                d.set_item("seeds", r.seeds)?;
                d.set_item("baseline_iteration_s", r.baseline_iteration_s)?;
                d.set_item("iteration_s", r.iteration_s)?;
                d.set_item("baseline_throughput", r.baseline_throughput)?;
                d.set_item("throughput", r.throughput)?;
                Ok(d)
            })
            .collect()
    }
}

/// The engine of `spec` with a study's flow-engine settings `time_tolerance` and
/// `time_resolution` (seconds; `None` leaves the spec's): a bad spec or setting raises
/// `SpecError` naming it.
pub(crate) fn study_engine(
    spec: &str,
    time_tolerance: Option<f64>,
    time_resolution: Option<f64>,
) -> PyResult<Engine> {
    spec.parse::<Engine>()
        .map_err(option_error)?
        .with_flow_times(time_tolerance, time_resolution)
        .map_err(sim_error)
}

fn outcome_from_tuple(o: Outcome) -> CaseOutcome {
    match o {
        (Some(ranks), Some(iteration_s), None) => CaseOutcome::Ran { ranks, iteration_s },
        (_, _, reason) => CaseOutcome::Unroutable(reason.unwrap_or_default()),
    }
}

fn outcome_tuple(o: CaseOutcome) -> Outcome {
    match o {
        CaseOutcome::Ran { ranks, iteration_s } => (Some(ranks), Some(iteration_s), None),
        CaseOutcome::Unroutable(why) => (None, None, Some(why)),
    }
}
