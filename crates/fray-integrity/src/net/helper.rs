//! A [`NetTransport`] shared with a helper thread that keeps its logged eager messages moving
//! while the program is elsewhere.
//!
//! With logged eager sends ([`super::ledger`]) a send returns before the receiver has verified
//! the frame, and a receive leaves its acknowledgement to ride on a later frame. Both need
//! someone to act when the program has moved on to code that never calls the transport (a
//! barrier, a computation, a plain MPI call): the receiver of a damaged frame waits for the
//! resend, and a rank flushing its ledger waits for acknowledgements. The helper does that.
//! It sleeps [`HELPER_PERIOD`] at a time and acts only when the transport has work pending and
//! no call has entered or left the transport for a whole period, so a program that keeps
//! calling the transport (a ping-pong, a halo exchange) never meets it. It calls MPI from its
//! own thread, so MPI must run at `MPI_THREAD_MULTIPLE`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use super::{NetTransport, Transfer, TransportError};

/// How long the helper sleeps between two looks at the transport.
pub const HELPER_PERIOD: Duration = Duration::from_millis(1);

/// A [`NetTransport`] behind a lock, with a helper thread when its eager sends are logged.
pub struct SharedTransport {
    inner: Arc<Mutex<NetTransport>>,
    /// Calls entered plus calls left: odd while a call is inside.
    calls: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    helper: Option<JoinHandle<()>>,
}

impl SharedTransport {
    /// Shares `t`; starts the helper when `t` logs its eager sends.
    pub fn new(t: NetTransport) -> Self {
        let logged = t.cfg.logged;
        let inner = Arc::new(Mutex::new(t));
        let calls = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let helper = logged.then(|| {
            let (inner, calls, stop) = (inner.clone(), calls.clone(), stop.clone());
            std::thread::spawn(move || help(&inner, &calls, &stop))
        });
        SharedTransport {
            inner,
            calls,
            stop,
            helper,
        }
    }

    fn call<T>(&self, op: impl FnOnce(&mut NetTransport) -> T) -> T {
        self.calls.fetch_add(1, Ordering::AcqRel);
        let r = op(&mut lock(&self.inner));
        self.calls.fetch_add(1, Ordering::AcqRel);
        r
    }

    /// [`NetTransport::send`].
    pub fn send(
        &self,
        src: &[u8],
        dest: i32,
        tag: u32,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<Transfer, TransportError> {
        self.call(|t| t.send(src, dest, tag, keep_waiting))
    }

    /// [`NetTransport::recv`].
    pub fn recv(
        &self,
        dst: &mut [u8],
        source: Option<i32>,
        tag: u32,
        keep_waiting: &mut dyn FnMut() -> bool,
    ) -> Result<Transfer, TransportError> {
        self.call(|t| t.recv(dst, source, tag, keep_waiting))
    }

    /// [`NetTransport::flush`].
    pub fn flush(&self, keep_waiting: &mut dyn FnMut() -> bool) -> Result<u64, TransportError> {
        self.call(|t| t.flush(keep_waiting))
    }
}

impl Drop for SharedTransport {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(h) = self.helper.take() {
            // A helper that panicked has nothing left to clean up.
            let _ = h.join();
        }
    }
}

/// The lock, also after a panic inside a call (the transport's state stays consistent: every
/// MPI request it holds is still owned by it).
fn lock(m: &Mutex<NetTransport>) -> MutexGuard<'_, NetTransport> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn help(inner: &Mutex<NetTransport>, calls: &AtomicU64, stop: &AtomicBool) {
    let mut seen = u64::MAX;
    while !stop.load(Ordering::Acquire) {
        std::thread::sleep(HELPER_PERIOD);
        let now = calls.load(Ordering::Acquire);
        if now % 2 == 1 || now != seen {
            seen = now;
            continue;
        }
        if let Ok(mut t) = inner.try_lock() {
            if t.busy() && !t.mpi.finalized() {
                t.service();
            }
        }
    }
}
