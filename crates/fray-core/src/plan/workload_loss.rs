//! The loss of a fault state on a workload: the failed-links study's machinery run on the
//! state, against the healthy machine, seed by seed.

use rayon::prelude::*;

use super::loss::{FaultLoss, StateLoss};
use super::PlanError;
use crate::fabric::Fabric;
use crate::faults::Faults;
use crate::links::{throughput, CaseOutcome, LinksStudy};

/// The most layouts (seeds) a fault state's loss is the mean of: each is a simulation of the
/// workload for every state the plan evaluates.
pub const MAX_SEEDS: u32 = 1_000;

/// An error naming `seeds` unless the plan's layouts per state are from 1 to [`MAX_SEEDS`].
pub fn check_seeds(seeds: u32) -> Result<(), PlanError> {
    if (1..=MAX_SEEDS).contains(&seeds) {
        Ok(())
    } else {
        Err(PlanError::invalid(
            "seeds",
            format!("must be from 1 to {MAX_SEEDS} layouts per state, got {seeds}"),
        ))
    }
}

/// The loss of machine throughput a fault state causes on `study`'s workload with `jobs`
/// jobs, on the study's engine and routing: for each of its seeds, the same layout and
/// routing choices healthy and with the state, and the mean over seeds of
/// `1 - throughput / healthy throughput`. A state that some seed cannot route is cut off.
pub struct WorkloadLoss<'a> {
    study: &'a LinksStudy,
    fabric: &'a Fabric,
    jobs: u32,
    /// Healthy machine throughput of each seed, rank-iterations per second.
    healthy: Vec<f64>,
}

impl<'a> WorkloadLoss<'a> {
    /// Checks the study and runs the healthy machine for each seed (all cores).
    pub fn new(study: &'a LinksStudy, fabric: &'a Fabric, jobs: u32) -> Result<Self, PlanError> {
        let healthy = Self::healthy_throughput(study, fabric, jobs)?;
        Ok(Self {
            study,
            fabric,
            jobs,
            healthy,
        })
    }

    /// The loss against healthy throughputs already known (those of
    /// [`Self::healthy_throughput`] for the same study, fabric and jobs).
    pub fn with_healthy(
        study: &'a LinksStudy,
        fabric: &'a Fabric,
        jobs: u32,
        healthy: Vec<f64>,
    ) -> Self {
        Self {
            study,
            fabric,
            jobs,
            healthy,
        }
    }

    /// The healthy machine's throughput for each seed of `study` with `jobs` jobs,
    /// rank-iterations per second, after checking the study (all cores).
    pub fn healthy_throughput(
        study: &LinksStudy,
        fabric: &Fabric,
        jobs: u32,
    ) -> Result<Vec<f64>, PlanError> {
        check_seeds(study.seeds)?;
        study.check(fabric)?;
        let none = Faults::none(fabric);
        (0..study.seeds)
            .into_par_iter()
            .map(|r| match study.run_faults(fabric, jobs, r, &none)? {
                CaseOutcome::Ran { ranks, iteration_s } => Ok(throughput(&ranks, &iteration_s)),
                CaseOutcome::Unroutable(why) => Err(PlanError::invalid(
                    "workload",
                    format!("the healthy machine cannot route it: {why}"),
                )),
            })
            .collect()
    }
}

impl FaultLoss for WorkloadLoss<'_> {
    fn loss(&self, faults: &Faults) -> Result<StateLoss, PlanError> {
        let outcomes = (0..self.study.seeds)
            .into_par_iter()
            .map(|r| self.study.run_faults(self.fabric, self.jobs, r, faults))
            .collect::<Result<Vec<_>, _>>()?;
        let mut losses = Vec::with_capacity(outcomes.len());
        for (o, healthy) in outcomes.iter().zip(&self.healthy) {
            match o {
                CaseOutcome::Ran { ranks, iteration_s } => {
                    losses.push(1.0 - throughput(ranks, iteration_s) / healthy)
                }
                CaseOutcome::Unroutable(_) => {
                    return Ok(StateLoss {
                        loss: 1.0,
                        cut_off: true,
                    })
                }
            }
        }
        Ok(StateLoss {
            loss: losses.iter().sum::<f64>() / losses.len() as f64,
            cut_off: false,
        })
    }
}
