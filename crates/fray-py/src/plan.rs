//! The repair planner from Python: `fray.plan` calls these.

use crate::interrupt::interruptible;
use fray_core::faults::CableSelector;
use fray_core::links::{DownCables, LinksStudy};
use std::collections::HashMap;
use std::sync::OnceLock;

use fray_core::plan::{
    best_window, check_seeds, fit_failures, read_failure_log, CachedLoss, ClassFailures,
    FailureModel, FitKind, LossModel, LossReuse, ModelJob, ModelSample, ModelValue, Plan,
    PlanError, PlanReport, RepairPolicy, WorkloadLoss,
};
use fray_core::units::parse_seconds;
use fray_core::workload::WorkloadSpec;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args;
use crate::errors::{plan_error, workload_error, SpecError};
use crate::fabric::Fabric;
use crate::links::study_engine;

fn spec_error(what: &str) -> impl Fn(fray_core::units::QuantityError) -> PyErr + '_ {
    move |e| SpecError::new_err(format!("{what}: {e}"))
}

/// A plan on a fabric with the loss of its states from a workload, as `fray.plan.plan` and the
/// `plan` campaign kind build it: `classes` as `(class, failure model spec)`, each of
/// `policies` (policy specs) over `replications` horizons of `horizon` (a duration), the
/// loss of each state from `workload` with `jobs` jobs over `seeds` seeds on `engine` with
/// `routing`.
#[pyclass(frozen)]
pub struct PlanSetup {
    fabric: Py<Fabric>,
    plan: Plan,
    policies: Vec<RepairPolicy>,
    study: LinksStudy,
    jobs: u32,
    /// The healthy machine's throughput per seed, run once by the first evaluation.
    healthy: OnceLock<Vec<f64>>,
}

#[pymethods]
impl PlanSetup {
    #[new]
    #[pyo3(signature = (fabric, workload, routing, engine, jobs, seeds, seed, time_tolerance, time_resolution, classes, horizon, replications, policies))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        fabric: Py<Fabric>,
        #[pyo3(from_py_with = args::workload)] workload: &str,
        #[pyo3(from_py_with = args::routing)] routing: &str,
        #[pyo3(from_py_with = args::engine)] engine: &str,
        #[pyo3(from_py_with = args::jobs)] jobs: u32,
        #[pyo3(from_py_with = args::seeds)] seeds: u32,
        #[pyo3(from_py_with = args::seed)] seed: u64,
        #[pyo3(from_py_with = args::time_tolerance)] time_tolerance: Option<f64>,
        #[pyo3(from_py_with = args::time_resolution)] time_resolution: Option<f64>,
        classes: Vec<(String, String)>,
        #[pyo3(from_py_with = args::horizon)] horizon: &str,
        #[pyo3(from_py_with = args::replications)] replications: u32,
        #[pyo3(from_py_with = args::policies)] policies: Vec<String>,
    ) -> PyResult<Self> {
        check_seeds(seeds).map_err(plan_error)?;
        let classes = classes
            .into_iter()
            .map(|(class, model)| {
                Ok(ClassFailures {
                    class,
                    model: model.parse::<FailureModel>().map_err(plan_error)?,
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let policies = policies
            .iter()
            .map(|p| p.parse::<RepairPolicy>().map_err(plan_error))
            .collect::<PyResult<Vec<_>>>()?;
        let plan = Plan {
            classes,
            horizon_s: parse_seconds(horizon).map_err(spec_error("horizon"))?,
            replications,
            seed,
        };
        let study = LinksStudy {
            workload: WorkloadSpec::parse(workload).map_err(workload_error)?,
            routing: routing.to_string(),
            fail: CableSelector::Router,
            jobs: vec![jobs],
            failed_pct: vec![0.0],
            seeds,
            seed,
            engine: study_engine(engine, time_tolerance, time_resolution)?,
            down: DownCables::default(),
        };
        Ok(Self {
            fabric,
            plan,
            policies,
            study,
            jobs,
            healthy: OnceLock::new(),
        })
    }

    /// Runs the plan; `reuse` is `"direct"` or `"model"` (with `points` grid points of
    /// `samples` states each). Returns a dict: `outcomes` (one dict per policy),
    /// `best_window` (index or None), `model` (grid points per class, or None),
    /// `evaluations`, `lookups`.
    #[pyo3(signature = (reuse = "model", points = 8, samples = 4))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::reuse)] reuse: &str,
        #[pyo3(from_py_with = args::points)] points: usize,
        #[pyo3(from_py_with = args::samples)] samples: usize,
    ) -> PyResult<Bound<'py, PyDict>> {
        let reuse = match reuse {
            "direct" => LossReuse::Direct,
            "model" => LossReuse::Model { points, samples },
            other => {
                return Err(SpecError::new_err(format!(
                    "reuse: expected direct or model, got {other:?}"
                )))
            }
        };
        let fabric = &self.fabric.get().0;
        let report = interruptible(py, || {
            self.plan.cables(fabric)?;
            let loss = WorkloadLoss::new(&self.study, fabric, self.jobs)?;
            self.plan.run(fabric, &self.policies, &loss, reuse)
        })?
        .map_err(plan_error)?;
        self.report_dict(py, &report)
    }

    /// The states a loss model of `points` grid points of `samples` states each evaluates,
    /// in order: `(class index, count, random draw or None, cable indices or None)`.
    fn model_jobs(&self, py: Python<'_>, points: usize, samples: usize) -> PyResult<Vec<JobKey>> {
        let jobs = interruptible(py, || self.jobs_of(points, samples))?.map_err(plan_error)?;
        Ok(jobs.iter().map(job_key).collect())
    }

    /// Evaluates one state of [`Self::model_jobs`] (its key): the draws that cut a pair off
    /// before a connected one, and its loss (None when every draw cut a pair off). The
    /// healthy machine runs on the first call only.
    fn evaluate(&self, py: Python<'_>, job: JobKey) -> PyResult<(usize, Option<f64>)> {
        let job = job_of(job);
        let fabric = &self.fabric.get().0;
        let value = interruptible(py, || {
            let cables = self.plan.cables(fabric)?;
            if job.class >= cables.len() {
                return Err(PlanError::invalid(
                    "job",
                    format!("no class {} in this plan", job.class),
                ));
            }
            let healthy = match self.healthy.get() {
                Some(h) => h.clone(),
                None => {
                    let h = WorkloadLoss::healthy_throughput(&self.study, fabric, self.jobs)?;
                    self.healthy.get_or_init(|| h).clone()
                }
            };
            let loss = WorkloadLoss::with_healthy(&self.study, fabric, self.jobs, healthy);
            job.evaluate(fabric, &cables, self.plan.seed, &CachedLoss::new(&loss))
        })?
        .map_err(plan_error)?;
        Ok((value.cut_off_draws, value.loss))
    }

    /// The report of the plan with the model fitted from `values`, one
    /// `(job key, cut-off draws, loss)` for every job of [`Self::model_jobs`] with the same
    /// `points` and `samples` (in any order): the dict of [`Self::run`].
    fn run_with_values<'py>(
        &self,
        py: Python<'py>,
        points: usize,
        samples: usize,
        values: Vec<(JobKey, usize, Option<f64>)>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let fabric = &self.fabric.get().0;
        let report = interruptible(py, || {
            let cables = self.plan.cables(fabric)?;
            let grids = self
                .plan
                .model_grids(fabric, &self.policies, points, samples)?;
            let jobs = LossModel::jobs(&cables, &grids, samples);
            let given: HashMap<JobKey, ModelValue> = values
                .into_iter()
                .map(|(key, cut_off_draws, loss)| {
                    (
                        key,
                        ModelValue {
                            cut_off_draws,
                            loss,
                        },
                    )
                })
                .collect();
            let values = jobs
                .iter()
                .map(|j| {
                    given.get(&job_key(j)).copied().ok_or_else(|| {
                        PlanError::invalid(
                            "values",
                            format!("no value for the state {:?}", job_key(j)),
                        )
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let model = LossModel::from_values(&cables, &grids, samples, &jobs, &values);
            self.plan.run_with_model(fabric, &self.policies, model)
        })?
        .map_err(plan_error)?;
        self.report_dict(py, &report)
    }
}

/// A model job as Python sees it: `(class index, count, random draw, cable indices)`, one of
/// the last two set.
type JobKey = (usize, usize, Option<usize>, Option<Vec<usize>>);

fn job_key(job: &ModelJob) -> JobKey {
    match &job.sample {
        ModelSample::Random(k) => (job.class, job.count, Some(*k), None),
        ModelSample::Set(set) => (job.class, job.count, None, Some(set.clone())),
    }
}

fn job_of((class, count, random, set): JobKey) -> ModelJob {
    ModelJob {
        class,
        count,
        sample: match (random, set) {
            (_, Some(set)) => ModelSample::Set(set),
            (k, None) => ModelSample::Random(k.unwrap_or(0)),
        },
    }
}

impl PlanSetup {
    fn jobs_of(&self, points: usize, samples: usize) -> Result<Vec<ModelJob>, PlanError> {
        let fabric = &self.fabric.get().0;
        let cables = self.plan.cables(fabric)?;
        let grids = self
            .plan
            .model_grids(fabric, &self.policies, points, samples)?;
        Ok(LossModel::jobs(&cables, &grids, samples))
    }

    fn report_dict<'py>(
        &self,
        py: Python<'py>,
        report: &PlanReport,
    ) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        let rows = report
            .outcomes
            .iter()
            .map(|o| {
                let d = PyDict::new(py);
                d.set_item("policy", o.policy.to_string())?;
                d.set_item("kind", o.policy.kind())?;
                let every = match o.policy {
                    RepairPolicy::Windows { every_s, .. } => Some(every_s),
                    _ => None,
                };
                d.set_item("every_s", every)?;
                d.set_item("degraded_share", o.degraded_share)?;
                d.set_item("downtime_share", o.downtime_share)?;
                d.set_item("total_share", o.total_share)?;
                d.set_item("total_ci", o.total_ci)?;
                d.set_item("cut_off_share", o.cut_off_share)?;
                d.set_item("windows", o.windows)?;
                d.set_item("repairs", o.repairs)?;
                d.set_item("mean_down", o.mean_down.clone())?;
                Ok(d)
            })
            .collect::<PyResult<Vec<_>>>()?;
        out.set_item("outcomes", rows)?;
        out.set_item("best_window", best_window(&report.outcomes))?;
        let model = match &report.model {
            None => None,
            Some(m) => Some(
                m.classes
                    .iter()
                    .zip(&self.plan.classes)
                    .flat_map(|(points, c)| points.iter().map(move |p| (c, p)))
                    .map(|(c, p)| {
                        let d = PyDict::new(py);
                        d.set_item("class", &c.class)?;
                        d.set_item("count", p.count)?;
                        d.set_item("samples", p.samples)?;
                        d.set_item("cut_off", p.cut_off)?;
                        d.set_item("mean_loss", p.mean_loss)?;
                        d.set_item("std_error", p.std_error)?;
                        Ok(d)
                    })
                    .collect::<PyResult<Vec<_>>>()?,
            ),
        };
        out.set_item("model", model)?;
        out.set_item("evaluations", report.evaluations)?;
        out.set_item("lookups", report.lookups)?;
        Ok(out)
    }
}

/// Fits `kind` (`"exp"` or `"weibull"`) to the failures of class `cls` in the failure log
/// `text` (named `file` in errors), observed for `span` (a duration; None: up to the last
/// failure). Returns a dict: `class, cables, failures, exposure_s, model` (a failure model
/// spec), `log_likelihood`, `mtbf_ci_s`.
#[pyfunction]
#[pyo3(signature = (fabric, text, file, cls, span = None, kind = "exp"))]
pub fn fit_failure_log<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::fabric)] fabric: PyRef<'_, Fabric>,
    #[pyo3(from_py_with = args::text)] text: &str,
    #[pyo3(from_py_with = args::file)] file: &str,
    #[pyo3(from_py_with = args::cls)] cls: &str,
    #[pyo3(from_py_with = args::span)] span: Option<&str>,
    #[pyo3(from_py_with = args::kind)] kind: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let kind = match kind {
        "exp" => FitKind::Exponential,
        "weibull" => FitKind::Weibull,
        other => {
            return Err(SpecError::new_err(format!(
                "fit: expected exp or weibull, got {other:?}"
            )))
        }
    };
    let log = read_failure_log(&fabric.0, text, file).map_err(plan_error)?;
    let span_s = match span {
        Some(s) => parse_seconds(s).map_err(spec_error("span"))?,
        None => log.iter().map(|f| f.time_s).fold(0.0, f64::max),
    };
    let fit = fit_failures(&fabric.0, cls, &log, span_s, kind).map_err(plan_error)?;
    let d = PyDict::new(py);
    d.set_item("class", fit.class)?;
    d.set_item("cables", fit.cables)?;
    d.set_item("failures", fit.failures)?;
    d.set_item("exposure_s", fit.exposure_s)?;
    d.set_item("model", fit.model.to_string())?;
    d.set_item("log_likelihood", fit.log_likelihood)?;
    d.set_item("mtbf_ci_s", fit.mtbf_ci_s)?;
    Ok(d)
}

/// Checks a failure model or policy spec, returning it as the core prints it (so Python
/// validates options before a long run).
#[pyfunction]
pub fn plan_spec(
    #[pyo3(from_py_with = args::kind)] kind: &str,
    #[pyo3(from_py_with = args::text)] text: &str,
) -> PyResult<String> {
    match kind {
        "failure" => Ok(text
            .parse::<FailureModel>()
            .map_err(plan_error)?
            .to_string()),
        "policy" => Ok(text
            .parse::<RepairPolicy>()
            .map_err(plan_error)?
            .to_string()),
        other => Err(SpecError::new_err(format!("unknown spec kind {other:?}"))),
    }
}
