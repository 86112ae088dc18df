//! Long core calls that a Ctrl-C stops: the call runs without the GIL on a thread of its
//! own while the calling thread looks for signals, and a signal asks the core to stop
//! ([`fray_core::interrupt`]).

use std::sync::mpsc;
use std::time::Duration;

use pyo3::prelude::*;

/// How often the waiting thread looks for a signal.
const POLL: Duration = Duration::from_millis(50);

/// Stack of the thread that runs the call: as large as a main thread's, so that a call
/// runs there as it would on the caller's thread.
const STACK_BYTES: usize = 8 << 20;

/// Runs `work` without the GIL and returns its result; on a signal whose handler raises
/// (Ctrl-C's `KeyboardInterrupt`), asks the core's runs to stop, waits for `work` to
/// return, withdraws the request and raises the handler's exception instead. Signals reach
/// only Python's main thread: called from another thread, this waits for `work` alone.
pub fn interruptible<T, W>(py: Python<'_>, work: W) -> PyResult<T>
where
    T: Send,
    W: FnOnce() -> T + Send,
{
    interruptible_ticking(py, work, |_| Ok(()))
}

/// [`interruptible`], calling `tick` with the GIL at every look for a signal and once more
/// when `work` has returned (to show its progress); an error from `tick` stops the run as a
/// signal does, and is raised instead of its result.
pub fn interruptible_ticking<T, W, K>(py: Python<'_>, work: W, mut tick: K) -> PyResult<T>
where
    T: Send,
    W: FnOnce() -> T + Send,
    K: FnMut(Python<'_>) -> PyResult<()> + Send,
{
    let (result, signal) = py.detach(|| {
        std::thread::scope(|scope| {
            let (done_tx, done_rx) = mpsc::channel::<()>();
            let worker = std::thread::Builder::new()
                .name("fray-run".into())
                .stack_size(STACK_BYTES)
                .spawn_scoped(scope, move || {
                    let out = work();
                    // The waiting side may have stopped listening; nothing to tell it then.
                    let _ = done_tx.send(());
                    out
                })
                .expect("a thread for the run");
            let mut signal = None;
            while let Err(mpsc::RecvTimeoutError::Timeout) = done_rx.recv_timeout(POLL) {
                if signal.is_none() {
                    signal = Python::attach(|py| py.check_signals().and_then(|()| tick(py)).err());
                    if signal.is_some() {
                        fray_core::interrupt::request();
                    }
                }
            }
            let result = worker
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            if signal.is_none() {
                signal = Python::attach(|py| tick(py).err());
            }
            if signal.is_some() {
                fray_core::interrupt::clear();
            }
            (result, signal)
        })
    });
    match signal {
        Some(e) => Err(e),
        None => Ok(result),
    }
}

/// Asks every core run in progress in this process to stop, as a Ctrl-C does: what the
/// thread that caught a `KeyboardInterrupt` calls when the runs are on other threads, where
/// no signal reaches them. Each stopped call raises `KeyboardInterrupt` in its thread.
/// Withdraw the request with `allow_runs` once they have returned.
#[pyfunction]
pub fn stop_runs() {
    fray_core::interrupt::request();
}

/// Withdraws the request of `stop_runs`, so that the next core run goes to its end.
#[pyfunction]
pub fn allow_runs() {
    fray_core::interrupt::clear();
}
