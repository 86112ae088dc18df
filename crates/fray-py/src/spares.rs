//! `fray._fray.SpareStudy`: the spare-node study, run in chunks so Python can show progress.

use fray_core::spares::{SpareAllocation, Study, StudyConfig};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use std::sync::atomic::{AtomicU64, Ordering};

use crate::args;
use crate::errors::{spares_error, SpecError};
use crate::interrupt::interruptible_ticking;

/// A prepared spare-node study and the curve accumulated over the cases run so far.
#[pyclass(module = "fray._fray")]
pub struct SpareStudy {
    study: Study,
    degrees: usize,
}

#[pymethods]
impl SpareStudy {
    /// Prepares a study; see `fray.spares.study` for the parameters.
    #[new]
    #[pyo3(signature = (fabric, alloc, method, stencil = None, periodic = None, max_failures = None))]
    fn new(
        #[pyo3(from_py_with = args::fabric)] fabric: &str,
        #[pyo3(from_py_with = args::alloc)] alloc: &str,
        #[pyo3(from_py_with = args::method)] method: &str,
        #[pyo3(from_py_with = args::stencil)] stencil: Option<&str>,
        #[pyo3(from_py_with = args::periodic)] periodic: Option<bool>,
        #[pyo3(from_py_with = args::max_failures)] max_failures: Option<usize>,
    ) -> PyResult<Self> {
        let config =
            StudyConfig::from_specs(fabric, alloc, method, stencil, periodic, max_failures)
                .map_err(spares_error)?;
        let degrees = config.shape.num_dims() + 1;
        Ok(Self {
            study: Study::new(config).map_err(spares_error)?,
            degrees,
        })
    }

    /// Ranks of the job.
    #[getter]
    fn num_ranks(&self) -> usize {
        self.study.num_ranks()
    }

    /// Spare nodes.
    #[getter]
    fn num_spares(&self) -> usize {
        self.study.num_spares()
    }

    /// Largest number of failures per case.
    #[getter]
    fn max_failures(&self) -> usize {
        self.study.max_failures()
    }

    /// Collisions of the fault-free job.
    #[getter]
    fn baseline_collisions(&self) -> u32 {
        self.study.baseline_collisions()
    }

    /// Runs sampled cases `start .. start + count` with `seed`, releasing the GIL; `count` is
    /// at most 2^32-1 (the command line's `--samples`) and the range ends by 2^64-1. A
    /// `progress` callable is called with the number of cases finished since its last call,
    /// about 20 times a second; Ctrl-C stops the run and leaves the curve as it was.
    #[pyo3(signature = (seed, start, count, progress = None))]
    fn run_samples(
        &mut self,
        py: Python<'_>,
        #[pyo3(from_py_with = args::seed)] seed: u64,
        #[pyo3(from_py_with = args::start)] start: u64,
        #[pyo3(from_py_with = args::count)] count: u32,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<()> {
        let end = start.checked_add(u64::from(count)).ok_or_else(|| {
            SpecError::new_err(format!(
                "count: cases {start} to {start} + {count} run past case 2^64-1"
            ))
        })?;
        let study = &mut self.study;
        with_progress(py, progress, |finished| {
            study.run_samples_counted(seed, start..end, finished)
        })?
        .map_err(spares_error)
    }

    /// Number of failure sets whose lowest failed rank is in `start .. end` (within the job's
    /// ranks).
    fn exhaustive_cases(
        &self,
        #[pyo3(from_py_with = args::start)] start: u32,
        #[pyo3(from_py_with = args::end)] end: u32,
    ) -> PyResult<u128> {
        self.study
            .exhaustive_cases(start..end)
            .map_err(spares_error)
    }

    /// Runs every failure set whose lowest failed rank is in `start .. end`, releasing the GIL.
    /// A `progress` callable is called with the number of sets counted since its last call,
    /// about 20 times a second; Ctrl-C stops the run and leaves the curve as it was.
    #[pyo3(signature = (start, end, progress = None))]
    fn run_exhaustive(
        &mut self,
        py: Python<'_>,
        #[pyo3(from_py_with = args::start)] start: u32,
        #[pyo3(from_py_with = args::end)] end: u32,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<()> {
        let study = &mut self.study;
        with_progress(py, progress, |finished| {
            study.run_exhaustive_counted(start..end, finished)
        })?
        .map_err(spares_error)
    }

    /// Fails `ranks` in order; per step `(degree, collisions)`, or `None` where unrecoverable.
    fn replay(
        &self,
        #[pyo3(from_py_with = args::ranks)] ranks: Vec<u32>,
    ) -> PyResult<Vec<Option<(usize, u32)>>> {
        self.study.replay(&ranks).map_err(spares_error)
    }

    /// The node each rank runs on after failing `ranks` in order (each a rank of the job,
    /// failed once).
    fn placement_after(
        &self,
        #[pyo3(from_py_with = args::ranks)] ranks: Vec<u32>,
    ) -> PyResult<Vec<u32>> {
        let placement = self.study.placement_after(&ranks).map_err(spares_error)?;
        Ok(placement.rank_nodes().to_vec())
    }

    /// The curve so far as columns: `failures, cases, unrecoverable, best, mean, worst`, then
    /// `rate_<k>D` and `cumrate_<k>D` for every degree.
    fn table<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let rows = &self.study.curve().rows;
        let out = PyDict::new(py);
        out.set_item(
            "failures",
            rows.iter().map(|r| r.failures).collect::<Vec<_>>(),
        )?;
        out.set_item("cases", rows.iter().map(|r| r.cases).collect::<Vec<_>>())?;
        out.set_item(
            "unrecoverable",
            rows.iter().map(|r| r.unrecoverable).collect::<Vec<_>>(),
        )?;
        let column = |f: &dyn Fn(&fray_core::spares::CurveRow) -> Option<f64>| {
            rows.iter().map(f).collect::<Vec<_>>()
        };
        out.set_item("best", column(&|r| r.best_collisions().map(f64::from)))?;
        out.set_item("mean", column(&|r| r.mean_collisions()))?;
        out.set_item("worst", column(&|r| r.worst_collisions().map(f64::from)))?;
        for k in 0..self.degrees {
            out.set_item(format!("rate_{k}D"), column(&|r| r.rate(k)))?;
            out.set_item(format!("cumrate_{k}D"), column(&|r| r.cumulative_rate(k)))?;
        }
        Ok(out)
    }
}

/// Spare counts of an allocation on a fabric: a dict with `num_nodes`, `num_spares`,
/// `spare_fraction` (exact), `paper_fraction` (the paper's formula) and `compute_extents`.
#[pyfunction]
pub fn spare_allocation<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::fabric)] fabric: &str,
    #[pyo3(from_py_with = args::alloc)] alloc: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let shape = fray_core::spares::study_shape(fabric).map_err(spares_error)?;
    let a: SpareAllocation = alloc.parse().map_err(spares_error)?;
    a.check_fits(&shape).map_err(spares_error)?;
    let out = PyDict::new(py);
    out.set_item("num_nodes", shape.num_nodes())?;
    out.set_item("num_spares", a.num_spares(&shape))?;
    out.set_item("spare_fraction", a.spare_fraction(&shape))?;
    out.set_item("paper_fraction", a.paper_fraction(shape.num_nodes()))?;
    out.set_item("compute_extents", a.compute_extents(&shape))?;
    Ok(out)
}

/// Runs `run` without the GIL, stoppable with Ctrl-C, passing it the counter it adds its
/// finished work to; `progress`, if given, is called with the work finished since its last
/// call, about 20 times a second.
fn with_progress<T: Send>(
    py: Python<'_>,
    progress: Option<Py<PyAny>>,
    run: impl FnOnce(&AtomicU64) -> T + Send,
) -> PyResult<T> {
    let finished = AtomicU64::new(0);
    let mut shown = 0;
    let tick = |py: Python<'_>| {
        let now = finished.load(Ordering::Relaxed);
        if let Some(progress) = progress.as_ref().filter(|_| now > shown) {
            progress.call1(py, (now - shown,))?;
        }
        shown = now;
        Ok(())
    };
    interruptible_ticking(py, || run(&finished), tick)
}
