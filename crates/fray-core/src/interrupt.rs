//! A request to stop the runs in progress early, as a Ctrl-C makes: the engines look at it
//! as they go and stop with [`Interrupted`] once it is made. There is one request for the
//! process, as there is one Ctrl-C: whoever catches the signal makes it, every run in
//! progress stops, and the caller withdraws it before starting the next.
//!
//! ```
//! use fray_core::fabric::Fabric;
//! use fray_core::faults::Faults;
//! use fray_core::interrupt;
//! use fray_core::sim::{run, Engine, SimError};
//! use fray_core::workload::WorkloadSpec;
//!
//! let fabric = Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap();
//! let faults = Faults::none(&fabric);
//! let routing = fray_core::routing::build("ugal", &fabric, &faults).unwrap();
//! let jobs = WorkloadSpec::parse("halo3d26:nx=4").unwrap().place(&fabric, 1).unwrap();
//! for engine in [Engine::Flow(Default::default()), Engine::Packet(Default::default()), Engine::Load] {
//!     interrupt::request();
//!     let stopped = run(engine, &fabric, &faults, routing.as_ref(), &jobs, 1);
//!     assert_eq!(stopped.unwrap_err(), SimError::Interrupted);
//!     interrupt::clear();
//!     assert!(run(engine, &fabric, &faults, routing.as_ref(), &jobs, 1).is_ok());
//! }
//!
//! // The fabric collectives stop between two operations.
//! use fray_core::collectives::{allreduce_study, AllreduceConfig, CollectiveError, ErrorModel};
//! let tree = Fabric::parse("xgft:2;4,4;1,4").unwrap();
//! interrupt::request();
//! let stopped = allreduce_study(&tree, AllreduceConfig::default(), &ErrorModel::None);
//! assert_eq!(stopped.unwrap_err(), CollectiveError::Interrupted);
//! interrupt::clear();
//! assert!(allreduce_study(&tree, AllreduceConfig::default(), &ErrorModel::None).is_ok());
//!
//! // The spare-node study stops too, and leaves its curve as it was before the call.
//! use fray_core::spares::{SparesError, Study, StudyConfig};
//! let config = StudyConfig::from_specs("torus:8x8x8", "3D(2,1)", "hybrid(all)", None, None, None);
//! let mut study = Study::new(config.unwrap()).unwrap();
//! study.run_samples(1, 0..10).unwrap();
//! let before = study.curve().clone();
//! interrupt::request();
//! assert_eq!(study.run_samples(1, 10..20), Err(SparesError::Interrupted));
//! assert_eq!(study.curve(), &before);
//! interrupt::clear();
//! study.run_samples(1, 10..20).unwrap();
//! assert_ne!(study.curve(), &before);
//!
//! // Its exhaustive walk as well.
//! let config = StudyConfig::from_specs("mesh:6x6", "2D(2,1)", "hybrid(all)", None, None, Some(2));
//! let mut study = Study::new(config.unwrap()).unwrap();
//! let before = study.curve().clone();
//! interrupt::request();
//! assert_eq!(study.run_exhaustive(0..16), Err(SparesError::Interrupted));
//! assert_eq!(study.curve(), &before);
//! interrupt::clear();
//! study.run_exhaustive(0..16).unwrap();
//! assert_ne!(study.curve(), &before);
//! ```

use std::sync::atomic::{AtomicBool, Ordering};

use thiserror::Error;

/// Whether a stop was requested and not yet withdrawn.
static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks every run in progress, and every run started before [`clear`], to stop.
pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Withdraws the request, so that the next run goes to its end.
pub fn clear() {
    REQUESTED.store(false, Ordering::Relaxed);
}

/// Whether a stop is requested.
#[inline]
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// A run stopped before its end because a stop was requested ([`request`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("interrupted")]
pub struct Interrupted;

/// `Err(Interrupted)` once a stop is requested: what a long loop calls between steps.
#[inline]
pub fn check() -> Result<(), Interrupted> {
    if requested() {
        Err(Interrupted)
    } else {
        Ok(())
    }
}
