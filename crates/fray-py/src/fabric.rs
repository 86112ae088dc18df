//! `fray.Fabric`: build, inspect and route on a fabric.

use std::sync::Arc;

use fray_core::fabric::{Fabric as CoreFabric, FabricSpec, FileFormat, LinkParameters};
use fray_core::routing::{self, route_endpoints, RouteRequest};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args;
use crate::errors::{fabric_error, routing_error};
use crate::faults::{faults_or_none, Faults};

/// A fabric: routers, endpoints and directed channels. Build one with `Fabric.parse(spec)`.
#[pyclass(frozen, module = "fray._fray")]
pub struct Fabric(pub Arc<CoreFabric>);

/// A router or endpoint given by number or by name (read by [`args`]).
pub enum PartRef {
    /// By index.
    Index(u32),
    /// By name.
    Name(String),
}

impl PartRef {
    /// The number or name as typed.
    pub fn text(&self) -> String {
        match self {
            Self::Index(i) => i.to_string(),
            Self::Name(n) => n.clone(),
        }
    }
}

#[pymethods]
impl Fabric {
    /// Builds the fabric a spec string describes (`torus:12x12x12`, `torus:8x8x8,t=2`, ...),
    /// with `bandwidth_bytes_s` per channel direction, `latency_s` per hop and `lanes` per
    /// link, for every link (change a class with `with_class_link`).
    #[staticmethod]
    #[pyo3(signature = (spec, bandwidth_bytes_s = 10e9, latency_s = 100e-9, lanes = 1))]
    fn parse(
        #[pyo3(from_py_with = args::spec)] spec: &str,
        #[pyo3(from_py_with = args::bandwidth_bytes_s)] bandwidth_bytes_s: f64,
        #[pyo3(from_py_with = args::latency_s)] latency_s: f64,
        #[pyo3(from_py_with = args::lanes)] lanes: u16,
    ) -> PyResult<Self> {
        let parsed: FabricSpec = spec.parse().map_err(fabric_error)?;
        let link = LinkParameters {
            bandwidth_bytes_s,
            latency_s,
            lanes,
        };
        Ok(Self(Arc::new(
            CoreFabric::from_spec(&parsed, link).map_err(fabric_error)?,
        )))
    }

    /// Reads a fabric file: `format` is `ibnetdiscover` (OFED's `ibnetdiscover` output),
    /// `json` (fray's JSON format) or `aries` (Cray XC wiring as `rtr --interconnect` prints
    /// it); None tells it from the file's text. Errors name the file and line.
    #[staticmethod]
    #[pyo3(signature = (path, format = None))]
    fn read(
        py: Python<'_>,
        #[pyo3(from_py_with = args::path)] path: std::path::PathBuf,
        #[pyo3(from_py_with = args::format)] format: Option<&str>,
    ) -> PyResult<Self> {
        let format: Option<FileFormat> =
            format.map(str::parse).transpose().map_err(fabric_error)?;
        let fabric = py
            .detach(|| match format {
                Some(format) => CoreFabric::read(&path, format),
                None => CoreFabric::read_detected(&path),
            })
            .map_err(fabric_error)?;
        Ok(Self(Arc::new(fabric)))
    }

    /// A torus with the given dimension sizes, e.g. `Fabric.torus([12, 12, 12])` (the same
    /// as `Fabric.parse("torus:12x12x12")`).
    #[staticmethod]
    #[pyo3(signature = (dims, bandwidth_bytes_s = 10e9, latency_s = 100e-9))]
    fn torus(
        #[pyo3(from_py_with = args::dims)] dims: Vec<usize>,
        #[pyo3(from_py_with = args::bandwidth_bytes_s)] bandwidth_bytes_s: f64,
        #[pyo3(from_py_with = args::latency_s)] latency_s: f64,
    ) -> PyResult<Self> {
        Self::parse(
            &cartesian_spec("torus", &dims),
            bandwidth_bytes_s,
            latency_s,
            1,
        )
    }

    /// A mesh with the given dimension sizes, e.g. `Fabric.mesh([100, 100])`.
    #[staticmethod]
    #[pyo3(signature = (dims, bandwidth_bytes_s = 10e9, latency_s = 100e-9))]
    fn mesh(
        #[pyo3(from_py_with = args::dims)] dims: Vec<usize>,
        #[pyo3(from_py_with = args::bandwidth_bytes_s)] bandwidth_bytes_s: f64,
        #[pyo3(from_py_with = args::latency_s)] latency_s: f64,
    ) -> PyResult<Self> {
        Self::parse(
            &cartesian_spec("mesh", &dims),
            bandwidth_bytes_s,
            latency_s,
            1,
        )
    }

    /// A copy of this fabric in which every channel of class `cls` has the given bandwidth
    /// (bytes per second, all lanes), latency (seconds) and lanes.
    #[pyo3(signature = (cls, bandwidth_bytes_s, latency_s, lanes = 1))]
    fn with_class_link(
        &self,
        #[pyo3(from_py_with = args::cls)] cls: &str,
        #[pyo3(from_py_with = args::bandwidth_bytes_s)] bandwidth_bytes_s: f64,
        #[pyo3(from_py_with = args::latency_s)] latency_s: f64,
        #[pyo3(from_py_with = args::lanes)] lanes: u16,
    ) -> PyResult<Self> {
        let mut f = CoreFabric::clone(&self.0);
        let link = LinkParameters {
            bandwidth_bytes_s,
            latency_s,
            lanes,
        };
        f.set_class_link(cls, link).map_err(fabric_error)?;
        Ok(Self(Arc::new(f)))
    }

    /// Number of routers (switches).
    #[getter]
    fn num_routers(&self) -> usize {
        self.0.num_routers()
    }

    /// Number of endpoints.
    #[getter]
    fn num_endpoints(&self) -> usize {
        self.0.num_endpoints()
    }

    /// Number of directed channels, host channels included.
    #[getter]
    fn num_channels(&self) -> usize {
        self.0.channels().len()
    }

    /// Number of directed router-to-router channels (channels `0..num_router_channels`).
    #[getter]
    fn num_router_channels(&self) -> usize {
        self.0.num_router_channels()
    }

    /// Names of the channel classes (`host` first).
    #[getter]
    fn class_names(&self) -> Vec<String> {
        self.0.class_names().to_vec()
    }

    /// Class of every channel, by channel: an index into `class_names`.
    #[getter]
    fn channel_class_ids(&self) -> Vec<u16> {
        self.0.channels().class.clone()
    }

    /// Bandwidth of every channel with all its lanes up, by channel, in bytes per second.
    #[getter]
    fn channel_bandwidths_bytes_s(&self) -> Vec<f64> {
        self.0.channels().bandwidth_bytes_s.clone()
    }

    /// Sizes of the dimensions of a mesh or torus (empty for other families).
    #[getter]
    fn dims(&self) -> Vec<usize> {
        self.0
            .as_cartesian()
            .map(|c| c.dims().to_vec())
            .unwrap_or_default()
    }

    /// The routing used when none is named (`dor-retry` on meshes and tori, ...).
    #[getter]
    fn default_routing(&self) -> &'static str {
        routing::default_for(&self.0)
    }

    /// Coordinates of a router of a mesh or torus.
    fn coords(&self, #[pyo3(from_py_with = args::router)] router: u32) -> PyResult<Vec<usize>> {
        let c = self.0.as_cartesian().ok_or_else(|| {
            crate::errors::SpecError::new_err("coords: the fabric is not a mesh or torus")
        })?;
        check_router(&self.0, router)?;
        Ok(c.coords(router))
    }

    /// Hop count of the dimension-order route between two routers of a mesh or torus.
    fn hop_count(
        &self,
        #[pyo3(from_py_with = args::src)] src: u32,
        #[pyo3(from_py_with = args::dst)] dst: u32,
    ) -> PyResult<usize> {
        let routing = routing::DimensionOrder::new(&self.0).map_err(routing_error)?;
        check_router(&self.0, src)?;
        check_router(&self.0, dst)?;
        Ok(routing.hop_count(src, dst))
    }

    /// Name of a router.
    fn router_name(&self, #[pyo3(from_py_with = args::router)] router: u32) -> PyResult<String> {
        check_router(&self.0, router)?;
        Ok(self.0.router_name(router).to_string())
    }

    /// Name of an endpoint (given by number or name: the name comes back).
    fn endpoint_name(
        &self,
        #[pyo3(from_py_with = args::endpoint)] endpoint: PartRef,
    ) -> PyResult<String> {
        let e = self.endpoint(&endpoint)?;
        Ok(self.0.endpoint_name(e).to_string())
    }

    /// The router an endpoint is attached to.
    fn router_of(&self, #[pyo3(from_py_with = args::endpoint)] endpoint: PartRef) -> PyResult<u32> {
        Ok(self.0.router_of(self.endpoint(&endpoint)?))
    }

    /// One channel as a dict: `name`, `cls`, `src`, `dst` (vertex names), `bandwidth_bytes_s`,
    /// `latency_s`, `lanes`, `host` (whether it joins an endpoint).
    fn channel<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = args::channel)] channel: u32,
    ) -> PyResult<Bound<'py, PyDict>> {
        let ch = self.0.channels();
        let c = channel as usize;
        if c >= ch.len() {
            return Err(crate::errors::SpecError::new_err(format!(
                "channel {channel} does not exist (the fabric has {})",
                ch.len()
            )));
        }
        let out = PyDict::new(py);
        out.set_item("name", self.0.channel_name(channel))?;
        out.set_item("cls", &self.0.class_names()[ch.class[c] as usize])?;
        out.set_item("bandwidth_bytes_s", ch.bandwidth_bytes_s[c])?;
        out.set_item("latency_s", ch.latency_s[c])?;
        out.set_item("lanes", ch.lanes[c])?;
        out.set_item("host", !self.0.is_router_channel(channel))?;
        Ok(out)
    }

    /// Cables grouped by class, lanes and bandwidth: a list of dicts with `cls`, `cables`,
    /// `lanes`, `bandwidth_bytes_s` (one direction) and `latency_s`.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.0
            .class_summary()
            .into_iter()
            .map(|g| {
                let d = PyDict::new(py);
                d.set_item("cls", g.class)?;
                d.set_item("cables", g.cables)?;
                d.set_item("lanes", g.lanes)?;
                d.set_item("bandwidth_bytes_s", g.bandwidth_bytes_s)?;
                d.set_item("latency_s", g.latency_s)?;
                Ok(d)
            })
            .collect()
    }

    /// Channels of the route from endpoint `src` to endpoint `dst` (numbers or names), in
    /// order: injection, router channels, ejection. `routing` names the routing (default:
    /// `default_routing`); `seed` picks the random choices of adaptive and oblivious routings.
    /// Raises `UnroutableError` naming the pair when the faults leave no path.
    #[pyo3(signature = (src, dst, routing = None, faults = None, seed = 0))]
    fn route(
        &self,
        #[pyo3(from_py_with = args::src)] src: PartRef,
        #[pyo3(from_py_with = args::dst)] dst: PartRef,
        #[pyo3(from_py_with = args::routing)] routing: Option<&str>,
        #[pyo3(from_py_with = args::faults)] faults: Option<PyRef<'_, Faults>>,
        #[pyo3(from_py_with = args::seed)] seed: u64,
    ) -> PyResult<Vec<u32>> {
        let (src, dst) = (self.endpoint(&src)?, self.endpoint(&dst)?);
        let faults = faults_or_none(&self.0, faults.as_deref())?;
        let name = routing.unwrap_or(routing::default_for(&self.0));
        let router = routing::build(name, &self.0, &faults).map_err(routing_error)?;
        let req = RouteRequest {
            entropy: routing::message_entropy(seed, 0),
            ..RouteRequest::new(&self.0, &faults)
        };
        let mut path = Vec::new();
        route_endpoints(router.as_ref(), &req, src, dst, &mut path).map_err(routing_error)?;
        Ok(path)
    }

    fn __repr__(&self) -> String {
        format!(
            "Fabric(routers={}, endpoints={}, channels={})",
            self.0.num_routers(),
            self.0.num_endpoints(),
            self.0.channels().len()
        )
    }
}

impl Fabric {
    fn endpoint(&self, e: &PartRef) -> PyResult<u32> {
        self.0.endpoint_lookup(&e.text()).map_err(fabric_error)
    }
}

fn check_router(fabric: &CoreFabric, router: u32) -> PyResult<()> {
    if (router as usize) < fabric.num_routers() {
        Ok(())
    } else {
        Err(crate::errors::SpecError::new_err(format!(
            "router {router} does not exist (the fabric has {})",
            fabric.num_routers()
        )))
    }
}

/// The spec string of a mesh or torus, validated by the spec parser like any typed spec.
fn cartesian_spec(family: &str, dims: &[usize]) -> String {
    let sizes: Vec<String> = dims.iter().map(usize::to_string).collect();
    format!("{family}:{}", sizes.join("x"))
}
