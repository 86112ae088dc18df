//! Python bindings for fray: thin `#[pyclass]`/`#[pyfunction]` wrappers around the core crates.
//!
//! No logic lives here: each wrapper checks its arguments, calls one core function and wraps
//! the result. Errors are mapped to Python exceptions in [`errors`].

#![warn(missing_docs)]

use pyo3::prelude::*;

mod args;
mod diag;
mod errors;
mod fabric;
mod faults;
mod health;
mod integrity;
mod interrupt;
mod links;
mod load;
mod options;
mod packet;
mod plan;
mod profile;
mod simulate;
mod spares;
mod units;

/// The extension module `fray._fray`.
#[pymodule]
fn _fray(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    diag::register(m)?;
    integrity::register(m)?;
    units::register(m)?;
    profile::register(m)?;
    options::register(m)?;
    m.add_class::<fabric::Fabric>()?;
    m.add_class::<faults::Faults>()?;
    m.add_function(wrap_pyfunction!(load::stencil_messages, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(links::host_costs, m)?)?;
    m.add_class::<links::LinksStudy>()?;
    m.add_function(wrap_pyfunction!(packet::allreduce_study, m)?)?;
    m.add_class::<plan::PlanSetup>()?;
    m.add_function(wrap_pyfunction!(plan::fit_failure_log, m)?)?;
    m.add(
        "DEFAULT_TIME_TOLERANCE",
        fray_core::sim::flow::FlowConfig::DEFAULT_TIME_TOLERANCE,
    )?;
    m.add(
        "DEFAULT_TIME_RESOLUTION_S",
        fray_core::sim::flow::FlowConfig::DEFAULT_TIME_RESOLUTION_S,
    )?;
    m.add("MAX_PLAN_HORIZON_S", fray_core::plan::MAX_HORIZON_S)?;
    m.add("MAX_COLLECTIVE_OPS", fray_core::collectives::MAX_OPS)?;
    m.add("MAX_MODEL_STATES", fray_core::plan::MAX_MODEL_STATES)?;
    m.add("MAX_MODEL_POINTS", fray_core::plan::MAX_MODEL_POINTS)?;
    m.add("MAX_MODEL_SAMPLES", fray_core::plan::MAX_MODEL_SAMPLES)?;
    m.add("MAX_PLAN_SEEDS", fray_core::plan::MAX_SEEDS)?;
    m.add("MAX_REPLICATIONS", fray_core::seeds::MAX_REPLICATIONS)?;
    m.add_function(wrap_pyfunction!(plan::plan_spec, m)?)?;
    m.add_class::<spares::SpareStudy>()?;
    m.add_function(wrap_pyfunction!(interrupt::stop_runs, m)?)?;
    m.add_function(wrap_pyfunction!(interrupt::allow_runs, m)?)?;
    m.add_function(wrap_pyfunction!(health::classify_cables, m)?)?;
    m.add_function(wrap_pyfunction!(spares::spare_allocation, m)?)?;
    Ok(())
}
