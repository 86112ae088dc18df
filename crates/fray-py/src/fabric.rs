//! `fray.Fabric` and the static load engine.

use fray_core::fabric::{Fabric as CoreFabric, FabricSpec, LinkParameters};
use fray_core::faults::Faults;
use fray_core::routing::DimensionOrder;
use fray_core::sim::load::static_load;
use fray_core::workload::{Stencil, StencilKind};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{fabric_error, routing_error, workload_error};

/// A fabric: routers, endpoints and directed channels. Build one with `Fabric.parse(spec)`.
#[pyclass(frozen, module = "fray._fray")]
pub struct Fabric(pub CoreFabric);

#[pymethods]
impl Fabric {
    /// Builds the fabric a spec string describes (`mesh:100x100`, `torus:12x12x12`), with
    /// `bandwidth_bytes_s` per channel direction and `latency_s` per hop.
    #[staticmethod]
    #[pyo3(signature = (spec, bandwidth_bytes_s = 10e9, latency_s = 100e-9))]
    fn parse(spec: &str, bandwidth_bytes_s: f64, latency_s: f64) -> PyResult<Self> {
        let parsed: FabricSpec = spec.parse().map_err(fabric_error)?;
        let link = LinkParameters {
            bandwidth_bytes_s,
            latency_s,
            lanes: 1,
        };
        Ok(Self(
            CoreFabric::from_spec(&parsed, link).map_err(fabric_error)?,
        ))
    }

    /// A torus with the given dimension sizes, e.g. `Fabric.torus([12, 12, 12])` (the same
    /// as `Fabric.parse("torus:12x12x12")`).
    #[staticmethod]
    #[pyo3(signature = (dims, bandwidth_bytes_s = 10e9, latency_s = 100e-9))]
    fn torus(dims: Vec<usize>, bandwidth_bytes_s: f64, latency_s: f64) -> PyResult<Self> {
        Self::parse(
            &cartesian_spec("torus", &dims),
            bandwidth_bytes_s,
            latency_s,
        )
    }

    /// A mesh with the given dimension sizes, e.g. `Fabric.mesh([100, 100])`.
    #[staticmethod]
    #[pyo3(signature = (dims, bandwidth_bytes_s = 10e9, latency_s = 100e-9))]
    fn mesh(dims: Vec<usize>, bandwidth_bytes_s: f64, latency_s: f64) -> PyResult<Self> {
        Self::parse(&cartesian_spec("mesh", &dims), bandwidth_bytes_s, latency_s)
    }

    /// Number of routers (one endpoint each).
    #[getter]
    fn num_routers(&self) -> usize {
        self.0.num_routers()
    }

    /// Number of directed channels.
    #[getter]
    fn num_channels(&self) -> usize {
        self.0.channels().len()
    }

    /// Sizes of the dimensions of a mesh or torus.
    #[getter]
    fn dims(&self) -> Vec<usize> {
        self.0
            .as_cartesian()
            .map(|c| c.dims().to_vec())
            .unwrap_or_default()
    }

    /// Coordinates of a router of a mesh or torus.
    fn coords(&self, router: u32) -> PyResult<Vec<usize>> {
        let c = self.0.as_cartesian().expect("cartesian fabric");
        if router as usize >= self.0.num_routers() {
            return Err(crate::errors::SpecError::new_err(format!(
                "router {router} does not exist"
            )));
        }
        Ok(c.coords(router))
    }

    /// Hop count of the dimension-order route between two routers.
    fn hop_count(&self, src: u32, dst: u32) -> PyResult<usize> {
        let routing = DimensionOrder::new(&self.0).map_err(routing_error)?;
        let n = self.0.num_routers() as u32;
        if src >= n || dst >= n {
            return Err(crate::errors::SpecError::new_err(format!(
                "routers must be below {n}"
            )));
        }
        Ok(routing.hop_count(src, dst))
    }

    /// Channels of the dimension-order route from `src` to `dst`, in order.
    fn route(&self, src: u32, dst: u32) -> PyResult<Vec<u32>> {
        let routing = DimensionOrder::new(&self.0).map_err(routing_error)?;
        let n = self.0.num_routers() as u32;
        if src >= n || dst >= n {
            return Err(crate::errors::SpecError::new_err(format!(
                "routers must be below {n}"
            )));
        }
        let mut path = Vec::new();
        let faults = Faults::none(&self.0);
        fray_core::routing::Routing::route_into(
            &routing,
            &fray_core::routing::RouteRequest::new(&self.0, &faults),
            src,
            dst,
            &mut path,
        )
        .map_err(routing_error)?;
        Ok(path)
    }

    fn __repr__(&self) -> String {
        format!(
            "Fabric(routers={}, channels={})",
            self.0.num_routers(),
            self.0.channels().len()
        )
    }
}

/// The spec string of a mesh or torus, validated by the spec parser like any typed spec.
fn cartesian_spec(family: &str, dims: &[usize]) -> String {
    let sizes: Vec<String> = dims.iter().map(usize::to_string).collect();
    format!("{family}:{}", sizes.join("x"))
}

/// Static load of one stencil exchange placed rank `i` on router `i` of the whole fabric,
/// with dimension-order routing: a dict with `max_routes`, `histogram`, `total_hops`,
/// `phase_time_s` and per-channel `routes`.
#[pyfunction]
#[pyo3(signature = (fabric, stencil, periodic, size_bytes))]
pub fn stencil_load<'py>(
    py: Python<'py>,
    fabric: &Fabric,
    stencil: &str,
    periodic: bool,
    size_bytes: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let kind: StencilKind = stencil.parse().map_err(workload_error)?;
    let dims = fabric
        .0
        .as_cartesian()
        .map(|c| c.dims().to_vec())
        .unwrap_or_default();
    let messages = Stencil { kind, periodic }
        .messages(&dims, size_bytes)
        .map_err(workload_error)?;
    let routing = DimensionOrder::new(&fabric.0).map_err(routing_error)?;
    let placement: Vec<u32> = (0..fabric.0.num_routers() as u32).collect();
    let report = static_load(
        &fabric.0,
        &Faults::none(&fabric.0),
        &routing,
        &placement,
        &messages,
        0,
    )
    .map_err(routing_error)?;
    let out = PyDict::new(py);
    out.set_item("max_routes", report.max_routes)?;
    out.set_item("histogram", report.histogram)?;
    out.set_item("total_hops", report.total_hops)?;
    out.set_item("phase_time_s", report.phase_time_s)?;
    out.set_item("routes", report.routes)?;
    Ok(out)
}
