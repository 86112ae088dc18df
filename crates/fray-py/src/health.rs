//! `fray._fray.classify_cables`: every cable of an ibnetdiscover dump classified from port
//! counters and a down-cable file.

use std::path::PathBuf;

use fray_core::health::{classify_files, CableHealth, Thresholds};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args;
use crate::errors::health_error;

/// Classifies every cable of the `ibnetdiscover` dump at `dump` from the counter files
/// `counters` (perfquery -x, ibqueryerrors or CSV, each told by its text) and the down-cable
/// file `down`: a dict of equal-length columns, most suspect cable first (`name`,
/// `link_class`, `verdict`, `reason`, `lanes`, `peer_lanes`, `link_downed`, `errors`, `bits`,
/// `ber`, `ber_low`, `ber_high`, `critical`, `xmit_wait_ratio`; missing numbers are None).
#[pyfunction]
#[pyo3(signature = (dump, counters = Vec::new(), down = None, ber = 1e-12, confidence = 0.95,
                    xmit_wait_ratio = 0.1))]
pub fn classify_cables<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = args::dump)] dump: PathBuf,
    #[pyo3(from_py_with = args::counters)] counters: Vec<PathBuf>,
    #[pyo3(from_py_with = args::down)] down: Option<PathBuf>,
    #[pyo3(from_py_with = args::ber)] ber: f64,
    #[pyo3(from_py_with = args::confidence)] confidence: f64,
    #[pyo3(from_py_with = args::xmit_wait_ratio)] xmit_wait_ratio: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let t = Thresholds {
        ber,
        confidence,
        xmit_wait_ratio,
    };
    let paths: Vec<&std::path::Path> = counters.iter().map(PathBuf::as_path).collect();
    let cables = py
        .detach(|| classify_files(&dump, &paths, down.as_deref(), &t))
        .map_err(health_error)?;
    let d = PyDict::new(py);
    let ber = |h: &CableHealth| h.ber;
    d.set_item(
        "name",
        cables.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "link_class",
        cables
            .iter()
            .map(|h| h.link_class.as_str())
            .collect::<Vec<_>>(),
    )?;
    d.set_item(
        "verdict",
        cables.iter().map(|h| h.verdict.name()).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "reason",
        cables.iter().map(|h| h.reason.as_str()).collect::<Vec<_>>(),
    )?;
    d.set_item("lanes", cables.iter().map(|h| h.lanes).collect::<Vec<_>>())?;
    d.set_item(
        "peer_lanes",
        cables.iter().map(|h| h.peer_lanes).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "link_downed",
        cables.iter().map(|h| h.link_downed).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "errors",
        cables
            .iter()
            .map(|h| ber(h).map(|e| e.errors))
            .collect::<Vec<_>>(),
    )?;
    d.set_item(
        "bits",
        cables
            .iter()
            .map(|h| ber(h).map(|e| e.bits))
            .collect::<Vec<_>>(),
    )?;
    d.set_item(
        "ber",
        cables
            .iter()
            .map(|h| ber(h).map(|e| e.ber))
            .collect::<Vec<_>>(),
    )?;
    d.set_item(
        "ber_low",
        cables
            .iter()
            .map(|h| ber(h).map(|e| e.low))
            .collect::<Vec<_>>(),
    )?;
    d.set_item(
        "ber_high",
        cables
            .iter()
            .map(|h| ber(h).map(|e| e.high))
            .collect::<Vec<_>>(),
    )?;
    d.set_item(
        "critical",
        cables.iter().map(|h| h.critical).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "xmit_wait_ratio",
        cables.iter().map(|h| h.xmit_wait_ratio).collect::<Vec<_>>(),
    )?;
    Ok(d)
}
