//! The packet engine from Python: `packet_traffic` and `allreduce_study`.

use fray_core::collectives::{self, AllreduceConfig, ErrorModel, Replication};
use fray_core::routing;
use fray_core::sim::packet::{self, Arbitration, PacketConfig, TrafficConfig};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{collective_error, packet_error, routing_error};
use crate::fabric::Fabric;
use crate::faults::{faults_or_none, Faults};

/// Uniform random traffic at `load` (fraction of each endpoint's injection bandwidth) on the
/// packet engine: a dict with `offered`, `accepted`, `latency_mean_s`, `packets`, `events`,
/// `wall_s` and `vcs` (virtual channels per channel: `vcs`, or when `None` as many as the
/// routing needs to stay free of deadlock, at least 2).
#[pyfunction]
#[pyo3(signature = (fabric, load, routing = None, faults = None, vcs = None, packet_bytes = 256,
    buffer_bytes = 4096, arbitration = "oldest-first", warmup_s = 20e-6, measure_s = 50e-6,
    seed = 1))]
#[allow(clippy::too_many_arguments)]
pub fn packet_traffic<'py>(
    py: Python<'py>,
    fabric: &Fabric,
    load: f64,
    routing: Option<&str>,
    faults: Option<&Faults>,
    vcs: Option<u16>,
    packet_bytes: u32,
    buffer_bytes: u32,
    arbitration: &str,
    warmup_s: f64,
    measure_s: f64,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let fabric = &fabric.0;
    let faults = faults_or_none(fabric, faults)?;
    let name = routing.unwrap_or(routing::default_for(fabric));
    let router = routing::build(name, fabric, &faults).map_err(routing_error)?;
    let config = PacketConfig {
        packet_bytes,
        buffer_bytes,
        arbitration: Arbitration::parse(arbitration).map_err(packet_error)?,
        seed,
        ..PacketConfig::default()
    };
    let config = match vcs {
        Some(vcs) => PacketConfig { vcs, ..config },
        None => config.with_enough_vcs(fabric, router.as_ref()),
    };
    let vcs = config.vcs;
    let traffic = TrafficConfig {
        load,
        warmup_s,
        measure_s,
    };
    let r = py
        .detach(|| packet::traffic(fabric, &faults, router.as_ref(), config, traffic))
        .map_err(packet_error)?;
    let out = PyDict::new(py);
    out.set_item("offered", r.offered)?;
    out.set_item("accepted", r.accepted)?;
    out.set_item("latency_mean_s", r.latency_mean_s)?;
    out.set_item("packets", r.packets)?;
    out.set_item("events", r.events)?;
    out.set_item("wall_s", r.wall_s)?;
    out.set_item("vcs", vcs)?;
    Ok(out)
}

/// `ops` fabric-based allreduces back to back on the XGFT `fabric`, with `replication`
/// (`none`, `spatial:K`, `temporal:K`) under `errors` (`none`, `every-link-once`,
/// `exp:100us`, `ber:1e-12`, `channels:NAME,..`): a dict with `op_times_s`, `mean_s`,
/// `p50_s`, `p99_s`, `std_s`, `retransmissions`, `replication` (the scheme's name) and
/// `copies`. `nak_s` is the detection and
/// NAK time a link-level retry pays on top of the wire's latency back.
#[pyfunction]
#[pyo3(signature = (fabric, replication, errors = "none", ops = 1000, packet_bytes = 256,
    nak_s = 0.0, seed = 1))]
#[allow(clippy::too_many_arguments)]
pub fn allreduce_study<'py>(
    py: Python<'py>,
    fabric: &Fabric,
    replication: &str,
    errors: &str,
    ops: u32,
    packet_bytes: u32,
    nak_s: f64,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    if !(nak_s.is_finite() && nak_s >= 0.0) {
        return Err(crate::errors::SpecError::new_err(format!(
            "nak_s: must be a non-negative time, got {nak_s}"
        )));
    }
    let replication = Replication::parse(replication).map_err(collective_error)?;
    let errors = ErrorModel::parse(errors).map_err(collective_error)?;
    let config = AllreduceConfig {
        replication,
        packet_bytes,
        ops,
        nak_ps: (nak_s * 1e12).round() as u64,
        seed,
    };
    let fabric = &fabric.0;
    let r = py
        .detach(|| collectives::allreduce_study(fabric, config, &errors))
        .map_err(collective_error)?;
    let out = PyDict::new(py);
    out.set_item("op_times_s", r.op_times_s)?;
    out.set_item("mean_s", r.mean_s)?;
    out.set_item("p50_s", r.p50_s)?;
    out.set_item("p99_s", r.p99_s)?;
    out.set_item("std_s", r.std_s)?;
    out.set_item("retransmissions", r.retransmissions)?;
    out.set_item("replication", replication.name())?;
    out.set_item("copies", replication.copies())?;
    Ok(out)
}
