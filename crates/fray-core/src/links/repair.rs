//! Which down cable to repair first: for each cable a study lists as down, what repairing it
//! alone would give back, seed by seed against the machine as it is.

use rayon::prelude::*;

use super::study::throughput;
use super::{mean_ci95, CaseOutcome, DownCables, LinksCase, LinksError, LinksStudy};
use crate::fabric::Fabric;
use crate::faults::fault_file_cables;

/// What repairing one down cable would give back ([`LinksStudy::repair_gains`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RepairGain {
    /// The cable as the fault file names it.
    pub cable: String,
    /// The fault file's line that lists it (1-based).
    pub line: usize,
    /// Mean over seeds of the machine throughput gained by repairing this cable alone, in
    /// percent of the throughput with every listed cable down; `None` when the machine as it
    /// is, or with this cable repaired, cannot route every pair of the workload.
    pub gain_pct: Option<f64>,
    /// Half-width of the 95 % confidence interval of `gain_pct` (`None` with one seed or no
    /// gain).
    pub gain_ci_pct: Option<f64>,
    /// Whether some seed cannot route every pair with this cable repaired.
    pub unroutable: bool,
}

impl LinksStudy {
    /// The cables [`LinksStudy::down`] lists, with their lines, in the file's order.
    pub fn listed_cables(&self) -> Vec<(usize, String)> {
        fault_file_cables(&self.down.text)
            .map(|(line, name)| (line, name.to_string()))
            .collect()
    }

    /// The runs [`LinksStudy::repair_gains`] makes, in order: `(k, replica)` with `k = 0`
    /// the machine as it is and `k = i + 1` listed cable `i` repaired, each for every seed.
    pub fn repair_runs(&self) -> Vec<(usize, u32)> {
        let cables = self.listed_cables().len();
        (0..=cables)
            .flat_map(|k| (0..self.seeds).map(move |r| (k, r)))
            .collect()
    }

    /// One run of [`LinksStudy::repair_runs`]: `jobs` jobs, seed `replica`, every listed
    /// cable down but the `k`-th (counting from 1; none repaired for `k = 0`), no further
    /// failure.
    pub fn run_repair(
        &self,
        fabric: &Fabric,
        jobs: u32,
        (k, replica): (usize, u32),
    ) -> Result<CaseOutcome, LinksError> {
        let text = self
            .listed_cables()
            .into_iter()
            .enumerate()
            .filter(|&(i, _)| i + 1 != k)
            .map(|(_, (_, name))| name)
            .collect::<Vec<_>>()
            .join("\n");
        let study = LinksStudy {
            down: DownCables {
                text,
                file: self.down.file.clone(),
            },
            ..self.clone()
        };
        let case = LinksCase {
            jobs,
            failed_pct: 0.0,
            replica,
            baseline: false,
        };
        study.run_case(fabric, case)
    }

    /// For each cable of [`LinksStudy::down`], in the file's order: the machine throughput
    /// gained, over the study's seeds, by repairing that cable alone (every other listed
    /// cable still down, no further failure) with `jobs` jobs. Each seed compares two runs
    /// with the same layout and routing choices, the machine as it is and the one repair, so
    /// that the layouts' spread drops out. Runs [`LinksStudy::repair_runs`] on all cores.
    pub fn repair_gains(&self, fabric: &Fabric, jobs: u32) -> Result<Vec<RepairGain>, LinksError> {
        self.check(fabric)?;
        let outcomes = self.run_repairs(fabric, jobs, &self.repair_runs())?;
        self.summarize_repairs(&outcomes)
    }

    /// [`LinksStudy::run_repair`] for each of `runs`, on all cores; the outcomes are in the
    /// order of `runs`. Fails when the study lists no down cable (nothing to rank).
    pub fn run_repairs(
        &self,
        fabric: &Fabric,
        jobs: u32,
        runs: &[(usize, u32)],
    ) -> Result<Vec<CaseOutcome>, LinksError> {
        if self.down.is_empty() {
            return Err(LinksError::Invalid(
                "down: repair gains need a fault file that lists cables".into(),
            ));
        }
        runs.par_iter()
            .map(|&run| self.run_repair(fabric, jobs, run))
            .collect()
    }

    /// The gains from the outcomes of [`LinksStudy::repair_runs`], in their order.
    pub fn summarize_repairs(
        &self,
        outcomes: &[CaseOutcome],
    ) -> Result<Vec<RepairGain>, LinksError> {
        let cables = self.listed_cables();
        let seeds = self.seeds as usize;
        if outcomes.len() != (cables.len() + 1) * seeds {
            return Err(LinksError::Invalid(format!(
                "repairs: {} outcomes for {} runs",
                outcomes.len(),
                (cables.len() + 1) * seeds
            )));
        }
        let now = &outcomes[..seeds];
        let now_routable = now.iter().all(|o| matches!(o, CaseOutcome::Ran { .. }));
        Ok(cables
            .into_iter()
            .enumerate()
            .map(|(i, (line, cable))| {
                let repaired = &outcomes[(i + 1) * seeds..(i + 2) * seeds];
                let unroutable = repaired
                    .iter()
                    .any(|o| matches!(o, CaseOutcome::Unroutable(_)));
                let gains: Vec<f64> = now
                    .iter()
                    .zip(repaired)
                    .filter_map(|pair| match pair {
                        (
                            CaseOutcome::Ran {
                                ranks,
                                iteration_s: before,
                            },
                            CaseOutcome::Ran {
                                iteration_s: after, ..
                            },
                        ) => Some(
                            100.0 * (throughput(ranks, after) / throughput(ranks, before) - 1.0),
                        ),
                        _ => None,
                    })
                    .collect();
                let known = now_routable && !unroutable;
                let (mean, ci) = mean_ci95(&gains);
                RepairGain {
                    cable,
                    line,
                    gain_pct: known.then_some(mean),
                    gain_ci_pct: (known && ci.is_finite()).then_some(ci),
                    unroutable,
                }
            })
            .collect())
    }
}
