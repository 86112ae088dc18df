//! One place that maps every core error enum to a Python exception under `fray.FrayError`.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt};
use pyo3::prelude::*;

create_exception!(
    fray,
    FrayError,
    PyException,
    "Base class of every error fray raises."
);
create_exception!(
    fray,
    SpecError,
    FrayError,
    "Bad input: a spec, file, field or value that fray cannot accept."
);
create_exception!(
    fray,
    UnroutableError,
    FrayError,
    "Faults disconnect a source from its destination."
);

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("FrayError", py.get_type::<FrayError>())?;
    m.add("SpecError", py.get_type::<SpecError>())?;
    m.add("UnroutableError", py.get_type::<UnroutableError>())?;
    Ok(())
}

/// `SpecError(message)` with `field` as the exception's `field` attribute.
pub(crate) fn spec_error_in(message: String, field: &str) -> PyErr {
    let err = SpecError::new_err(message);
    let set = Python::attach(|py| err.value(py).setattr("field", field));
    set.map_or_else(|failed| failed, |()| err)
}

/// A spec or option that cannot be read (routing, engine, host costs, workload):
/// `SpecError`, with the option it names as its `field` attribute.
pub fn option_error(e: fray_core::options::OptionError) -> PyErr {
    spec_error_in(e.message, &e.field)
}

/// Bad fabric specs and parameters are the user's input: `SpecError`, a spec's with the
/// option it names as `field`.
pub fn fabric_error(e: fray_core::fabric::FabricError) -> PyErr {
    match &e {
        fray_core::fabric::FabricError::Spec { field, .. } => spec_error_in(e.to_string(), field),
        _ => SpecError::new_err(e.to_string()),
    }
}

/// Unroutable pairs raise `UnroutableError`; a routing that does not fit the fabric is bad
/// input, and a routing spec that cannot be read, or an amount in a unit the engine does not
/// count, names its option (`routing` for the latter) as `field`.
pub fn routing_error(e: fray_core::routing::RoutingError) -> PyErr {
    use fray_core::routing::RoutingError as E;
    match e {
        E::Unroutable { .. } => UnroutableError::new_err(e.to_string()),
        E::Spec(e) => option_error(e),
        E::WrongUnit { .. } => spec_error_in(e.to_string(), "routing"),
        _ => SpecError::new_err(e.to_string()),
    }
}

/// Bad fault descriptions: `SpecError`.
pub fn fault_error(e: fray_core::faults::FaultError) -> PyErr {
    SpecError::new_err(e.to_string())
}

/// Bad allocation, method or study parameters: `SpecError`; a stopped study: `KeyboardInterrupt`.
pub fn spares_error(e: fray_core::spares::SparesError) -> PyErr {
    match e {
        fray_core::spares::SparesError::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
        _ => SpecError::new_err(e.to_string()),
    }
}

/// Bad workload descriptions: `SpecError`, a spec's with the option it names as `field`.
pub fn workload_error(e: fray_core::workload::WorkloadError) -> PyErr {
    match e {
        fray_core::workload::WorkloadError::Spec(e) => option_error(e),
        _ => SpecError::new_err(e.to_string()),
    }
}

/// Maps an integrity error: bad input is a `SpecError`, a damaged frame a `FrayError`.
pub fn integrity_error(e: fray_integrity::IntegrityError) -> PyErr {
    use fray_integrity::IntegrityError as E;
    match e {
        E::BadFrame { .. } => FrayError::new_err(e.to_string()),
        _ => SpecError::new_err(e.to_string()),
    }
}

/// Engine errors (every engine's, [`fray_core::sim::SimError`]): a bad setting is a
/// `SpecError` with the setting as its `field` attribute, routing and workload errors map as
/// theirs, a run stopped by a request ([`fray_core::interrupt`]) is a `KeyboardInterrupt`, a
/// deadlock or a channel without bandwidth is a `FrayError`.
pub fn sim_error(e: fray_core::sim::SimError) -> PyErr {
    use fray_core::sim::SimError as E;
    match e {
        E::Config { field, .. } => spec_error_in(e.to_string(), field),
        E::Routing(r) => routing_error(r),
        E::Workload(w) => workload_error(w),
        E::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
        _ => FrayError::new_err(e.to_string()),
    }
}

/// Bad collective parameters: `SpecError`; a stopped study: `KeyboardInterrupt`.
pub fn collective_error(e: fray_core::collectives::CollectiveError) -> PyErr {
    match e {
        fray_core::collectives::CollectiveError::Interrupted => {
            PyKeyboardInterrupt::new_err("interrupted")
        }
        _ => SpecError::new_err(e.to_string()),
    }
}

/// Diagnostics: an unroutable transfer raises `UnroutableError`, a stopped run
/// `KeyboardInterrupt`, anything else is bad input.
pub fn diag_error(e: fray_core::diag::DiagError) -> PyErr {
    match e {
        fray_core::diag::DiagError::Routing(r) => routing_error(r),
        fray_core::diag::DiagError::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
        _ => SpecError::new_err(e.to_string()),
    }
}

/// Bad counter files, thresholds, dumps and fault files: `SpecError`.
pub fn health_error(e: fray_core::health::HealthError) -> PyErr {
    SpecError::new_err(e.to_string())
}

/// A quantity that cannot be read: `SpecError("FIELD: cannot read ...")`, with the field it
/// was given for as the exception's `field` attribute.
pub fn quantity_error(e: fray_core::units::QuantityError) -> PyErr {
    spec_error_in(format!("{}: {e}", e.field), &e.field)
}

/// Plan settings, logs and policies are the user's input (`SpecError`); a workload loss that
/// fails maps as the links study's errors do.
pub fn plan_error(e: fray_core::plan::PlanError) -> PyErr {
    match e {
        fray_core::plan::PlanError::Links(e) => crate::links::links_error(e),
        fray_core::plan::PlanError::Faults(e) => fault_error(e),
        _ => SpecError::new_err(e.to_string()),
    }
}

/// An unknown profile: `SpecError`, with the option that named it as its `field` attribute.
pub fn profile_error(e: fray_core::profile::ProfileError) -> PyErr {
    let fray_core::profile::ProfileError::Unknown { field, .. } = &e;
    spec_error_in(e.to_string(), field)
}
