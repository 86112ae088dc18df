//! The fabric-based allreduce from Python: `allreduce_study`.

use fray_core::collectives::{self, AllreduceConfig, ErrorModel, Replication};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args;
use crate::errors::collective_error;
use crate::fabric::Fabric;
use crate::interrupt::interruptible;

/// `ops` fabric-based allreduces back to back on the XGFT `fabric`, with `replication`
/// (`none`, `spatial:K`, `temporal:K`) under `errors` (`none`, `every-link-once`,
/// `exp:100us`, `ber:1e-12`, `channels:NAME,..`): a dict with `op_times_s`, `mean_s`,
/// `p50_s`, `p99_s`, `std_s`, `retransmissions`, `replication` (the scheme's name) and
/// `copies`. `mtu` is the largest packet payload in bytes (the packet engine's `mtu`); `nak_s`
/// is the detection and NAK time a link-level retry pays on top of the wire's latency back.
#[pyfunction]
#[pyo3(signature = (fabric, replication, errors = "none", ops = 1000, mtu = 256,
    nak_s = 0.0, seed = 1))]
#[allow(clippy::too_many_arguments)]
pub fn allreduce_study<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::fabric)] fabric: PyRef<'_, Fabric>,
    #[pyo3(from_py_with = args::replication)] replication: &str,
    #[pyo3(from_py_with = args::errors)] errors: &str,
    #[pyo3(from_py_with = args::ops)] ops: u32,
    #[pyo3(from_py_with = args::mtu)] mtu: u32,
    #[pyo3(from_py_with = args::nak_s)] nak_s: f64,
    #[pyo3(from_py_with = args::seed)] seed: u64,
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
        packet_bytes: mtu,
        ops,
        nak_ps: (nak_s * 1e12).round() as u64,
        seed,
    };
    let fabric = &fabric.0;
    let r = interruptible(py, || collectives::allreduce_study(fabric, config, &errors))?
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
