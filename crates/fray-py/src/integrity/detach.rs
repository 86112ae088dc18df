//! Long waits of the transports: run without the GIL, stop on a signal, raise the transport's
//! error class.

use pyo3::prelude::*;

/// Runs `op` without the GIL; during long waits it takes the GIL back now and then (when `op`
/// calls its hook) to check for signals (Ctrl-C), which stop the wait. Returns `op`'s result
/// and the signal's exception, if one stopped it.
pub fn without_gil<T, E, F>(py: Python<'_>, op: F) -> (Result<T, E>, Option<PyErr>)
where
    T: Send,
    E: Send,
    F: FnOnce(&mut dyn FnMut() -> bool) -> Result<T, E> + Send,
{
    py.detach(|| {
        let mut signal = None;
        let mut keep_waiting = || {
            Python::attach(|py| match py.check_signals() {
                Ok(()) => true,
                Err(e) => {
                    signal = Some(e);
                    false
                }
            })
        };
        let r = op(&mut keep_waiting);
        (r, signal)
    })
}

/// A `fray.integrity.IntegrityError` carrying `msg`.
pub fn integrity_exception(py: Python<'_>, msg: String) -> PyErr {
    match py
        .import("fray.integrity.errors")
        .and_then(|m| m.getattr("IntegrityError"))
        .and_then(|cls| cls.call1((msg,)))
    {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}
