//! When to repair: a planner over months. Cables fail by class (exponential or Weibull
//! lifetimes, given or fitted from a failure log), a repair policy brings them back (at
//! once, in maintenance windows, or past a loss threshold), and a Monte Carlo over a horizon
//! adds up the machine throughput lost to running degraded and to maintenance.
//!
//! The loss of a fault state comes from a [`FaultLoss`] the caller supplies (a workload on
//! an engine: [`WorkloadLoss`]). Evaluating every state the Monte Carlo visits is too slow on
//! a large machine, so the planner reuses what it evaluates: a cache keyed by the state's
//! fingerprint ([`CachedLoss`]), and a model of the mean loss against the number of down
//! cables per class fitted from sampled states ([`LossModel`]). With identical cables whose
//! failures do not depend on the state, the states with `n` cables of a class down are
//! uniform among such sets, so the model's mean at `n` is the loss the Monte Carlo needs on
//! average there; its sampling error enters the confidence interval.
//!
//! ```
//! use fray_core::fabric::Fabric;
//! use fray_core::faults::Faults;
//! use fray_core::plan::{ClassFailures, LossReuse, Plan, PlanError, RepairPolicy, StateLoss};
//!
//! let fabric = Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap();
//! let plan = Plan {
//!     classes: vec![ClassFailures { class: "global".into(), model: "exp:mtbf=100d".parse().unwrap() }],
//!     horizon_s: 365.0 * 86400.0,
//!     replications: 50,
//!     seed: 1,
//! };
//! // 1 % of throughput per down cable.
//! let loss = |f: &Faults| -> Result<StateLoss, PlanError> {
//!     Ok(StateLoss { loss: 0.005 * f.num_channels_down() as f64, cut_off: false })
//! };
//! let policies: Vec<RepairPolicy> = ["immediate:repair=1d", "windows:every=30d,length=8h"]
//!     .iter().map(|p| p.parse().unwrap()).collect();
//! let report = plan.run(&fabric, &policies, &loss, LossReuse::Direct).unwrap();
//! let immediate = &report.outcomes[0];
//! // 36 cables, each down 1 day in 101: 0.36 cables down on average, 0.36 % lost.
//! assert!((immediate.total_share - 0.0036).abs() < 3.0 * immediate.total_ci);
//! assert!(report.outcomes[1].downtime_share > 0.0);
//! ```

mod failure;
mod loss;
mod monte_carlo;
mod policy;
mod workload_loss;

pub use failure::{
    fit_failures, read_failure_log, FailureFit, FailureModel, FitKind, LoggedFailure,
};
pub use loss::{
    pairs_cut_off, CachedLoss, FaultLoss, LossModel, ModelJob, ModelPoint, ModelSample, ModelValue,
    StateLoss,
};
pub use monte_carlo::{
    best_window, ClassFailures, LossReuse, Plan, PlanReport, PolicyOutcome, MAX_HORIZON_S,
    MAX_MODEL_POINTS, MAX_MODEL_SAMPLES, MAX_MODEL_STATES,
};
pub use policy::RepairPolicy;
pub use workload_loss::{check_seeds, WorkloadLoss, MAX_SEEDS};

use thiserror::Error;

use crate::faults::FaultError;
use crate::links::LinksError;

/// Why a plan cannot run.
#[derive(Debug, Error)]
pub enum PlanError {
    /// A setting out of range; `what` names it.
    #[error("{what}: {reason}")]
    Invalid {
        /// The field at fault.
        what: String,
        /// What is wrong.
        reason: String,
    },
    /// A failure log's bad line.
    #[error("{}: {reason}", crate::file_at(file, *line))]
    Log {
        /// The log's name.
        file: String,
        /// Its 1-based line.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A class or cable the fabric does not have.
    #[error(transparent)]
    Faults(#[from] FaultError),
    /// The workload loss could not be computed.
    #[error(transparent)]
    Links(#[from] LinksError),
}

impl PlanError {
    /// A value that cannot be used: `what` names the option or field, `reason` says why.
    pub fn invalid(what: &str, reason: String) -> Self {
        Self::Invalid {
            what: what.to_string(),
            reason,
        }
    }
}
