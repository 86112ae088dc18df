//! `fray.Faults`: what is down in a fabric.

use std::sync::Arc;

use fray_core::fabric::Fabric as CoreFabric;
use fray_core::faults::{CableSelector, FaultSpec, Faults as CoreFaults};
use pyo3::prelude::*;

use crate::args;
use crate::errors::{fabric_error, fault_error};
use crate::fabric::{Fabric, PartRef};

/// The fault state of one fabric: routers, endpoints and cables down, lanes lost. Start
/// from `Faults(fabric)` (nothing down) or `Faults.fail_links(fabric, cls, fraction, seed)`;
/// the `fail_*` methods add to it and return it, so calls chain.
#[pyclass(module = "fray._fray")]
pub struct Faults {
    fabric: Arc<CoreFabric>,
    /// The core fault state.
    pub inner: CoreFaults,
}

#[pymethods]
impl Faults {
    /// Nothing down in `fabric`.
    #[new]
    fn new(#[pyo3(from_py_with = args::fabric)] fabric: PyRef<'_, Fabric>) -> Self {
        Self::of(&fabric)
    }

    /// Faults with `round(fraction x n)` of the `n` cables of class `cls` failed (both
    /// directions), drawn by a generator seeded with `seed`: the same seed fails the same
    /// cables on every machine. `cls` is a class name (`global`, `local`, `x`, ...) or
    /// `router` for every router-to-router cable.
    #[staticmethod]
    #[pyo3(signature = (fabric, cls = "router", fraction = 0.0, seed = 0))]
    fn fail_links(
        #[pyo3(from_py_with = args::fabric)] fabric: PyRef<'_, Fabric>,
        #[pyo3(from_py_with = args::cls)] cls: &str,
        #[pyo3(from_py_with = args::fraction)] fraction: f64,
        #[pyo3(from_py_with = args::seed)] seed: u64,
    ) -> PyResult<Self> {
        let mut f = Self::of(&fabric);
        f.fail_random(cls, fraction, seed)?;
        Ok(f)
    }

    /// Fails a fraction of the live cables of class `cls` (see `fail_links`); returns how many.
    #[pyo3(signature = (cls, fraction, seed = 0))]
    fn fail_random(
        &mut self,
        #[pyo3(from_py_with = args::cls)] cls: &str,
        #[pyo3(from_py_with = args::fraction)] fraction: f64,
        #[pyo3(from_py_with = args::seed)] seed: u64,
    ) -> PyResult<usize> {
        let fabric = &self.fabric;
        self.inner
            .fail_random_cables(fabric, &CableSelector::parse(cls), fraction, seed)
            .map_err(fault_error)
    }

    /// Applies a fault spec typed by a person (`global:10%`, `router:0.05`); returns how
    /// many cables failed.
    #[pyo3(signature = (spec, seed = 0))]
    fn fail_spec(
        &mut self,
        #[pyo3(from_py_with = args::spec)] spec: &str,
        #[pyo3(from_py_with = args::seed)] seed: u64,
    ) -> PyResult<usize> {
        let parsed: FaultSpec = spec.parse().map_err(fault_error)?;
        let fabric = &self.fabric;
        parsed
            .apply(fabric, &mut self.inner, seed)
            .map_err(fault_error)
    }

    /// Fails the cables named `FROM->TO` by their routers' names (both directions), or
    /// `FROM->TO[k]` for the `k`-th of parallel cables (from 1; plain is the first).
    fn fail_cables<'py>(
        mut slf: PyRefMut<'py, Self>,
        #[pyo3(from_py_with = args::names)] names: Vec<String>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let fabric = Arc::clone(&slf.fabric);
        slf.inner
            .fail_named_cables(&fabric, &names)
            .map_err(fault_error)?;
        Ok(slf)
    }

    /// Fails the cables listed in a file, one `FROM->TO` (or `FROM->TO[k]`, the `k`-th of
    /// parallel cables) per line (`#` starts a comment); returns how many. Errors name the
    /// file and line.
    fn fail_file(
        &mut self,
        #[pyo3(from_py_with = args::path)] path: std::path::PathBuf,
    ) -> PyResult<usize> {
        let fabric = Arc::clone(&self.fabric);
        self.inner
            .fail_cables_from_file(&fabric, &path)
            .map_err(fault_error)
    }

    /// Takes a router (number or name) down, and every path through it.
    fn fail_router<'py>(
        mut slf: PyRefMut<'py, Self>,
        #[pyo3(from_py_with = args::router)] router: PartRef,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let r = match &router {
            PartRef::Index(i) => *i,
            PartRef::Name(n) => slf.fabric.router_by_name(n).map_err(fabric_error)?,
        };
        slf.inner.fail_router(r).map_err(fault_error)?;
        Ok(slf)
    }

    /// Takes an endpoint (number or name) down: messages to and from it are unroutable.
    fn fail_endpoint<'py>(
        mut slf: PyRefMut<'py, Self>,
        #[pyo3(from_py_with = args::endpoint)] endpoint: PartRef,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let e = slf
            .fabric
            .endpoint_lookup(&endpoint.text())
            .map_err(fabric_error)?;
        slf.inner.fail_endpoint(e).map_err(fault_error)?;
        Ok(slf)
    }

    /// Sets the number of lanes channel `channel` (one direction) has lost to `lanes`,
    /// replacing any earlier count rather than adding to it: `lose_lanes(c, 3)` twice on a
    /// 4-lane channel leaves 3 lost. Its bandwidth scales with the lanes left; losing every
    /// lane takes the channel down, and a later, smaller count does not bring it back.
    fn lose_lanes<'py>(
        mut slf: PyRefMut<'py, Self>,
        #[pyo3(from_py_with = args::channel)] channel: u32,
        #[pyo3(from_py_with = args::lanes)] lanes: u16,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let fabric = Arc::clone(&slf.fabric);
        slf.inner
            .lose_lanes(&fabric, channel, lanes)
            .map_err(fault_error)?;
        Ok(slf)
    }

    /// Bandwidth of a channel with its lost lanes taken off (0 when down), bytes per second.
    fn bandwidth_bytes_s(
        &self,
        #[pyo3(from_py_with = args::channel)] channel: u32,
    ) -> PyResult<f64> {
        let fabric = &self.fabric;
        if channel as usize >= fabric.channels().len() {
            return Err(crate::errors::SpecError::new_err(format!(
                "channel {channel} does not exist"
            )));
        }
        Ok(self.inner.bandwidth_bytes_s(fabric, channel))
    }

    /// Whether a channel is down.
    fn channel_is_down(
        &self,
        #[pyo3(from_py_with = args::channel)] channel: u32,
    ) -> PyResult<bool> {
        if channel as usize >= self.fabric.channels().len() {
            return Err(crate::errors::SpecError::new_err(format!(
                "channel {channel} does not exist"
            )));
        }
        Ok(self.inner.channel_is_down(channel))
    }

    /// Number of directed channels down (a failed cable counts twice).
    #[getter]
    fn num_channels_down(&self) -> usize {
        self.inner.num_channels_down()
    }

    fn __repr__(&self) -> String {
        format!("Faults(channels_down={})", self.inner.num_channels_down())
    }
}

impl Faults {
    /// Nothing down in `fabric`.
    fn of(fabric: &Fabric) -> Self {
        Self {
            inner: CoreFaults::none(&fabric.0),
            fabric: Arc::clone(&fabric.0),
        }
    }
}

/// The core faults of `faults`, or none, for `fabric`; faults made for another fabric are a
/// `SpecError`.
pub fn faults_or_none(fabric: &CoreFabric, faults: Option<&Faults>) -> PyResult<CoreFaults> {
    match faults {
        Some(f) => {
            f.inner.check_fits(fabric).map_err(fault_error)?;
            Ok(f.inner.clone())
        }
        None => Ok(CoreFaults::none(fabric)),
    }
}
