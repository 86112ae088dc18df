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
    /// For each cable of [`LinksStudy::down`], in the file's order: the machine throughput
    /// gained, over the study's seeds, by repairing that cable alone (every other listed
    /// cable still down, no further failure) with `jobs` jobs. Each seed compares two runs
    /// with the same layout and routing choices, the machine as it is and the one repair, so
    /// the gain is the repair's alone. Runs `(cables + 1) x seeds` cases on all cores.
    pub fn repair_gains(&self, fabric: &Fabric, jobs: u32) -> Result<Vec<RepairGain>, LinksError> {
        self.check(fabric)?;
        let cables: Vec<(usize, &str)> = fault_file_cables(&self.down.text).collect();
        if cables.is_empty() {
            return Err(LinksError::Invalid(
                "down: repair gains need a fault file that lists cables".into(),
            ));
        }
        // Study `k` has cable `k - 1` repaired (study 0: the machine as it is).
        let studies: Vec<LinksStudy> = (0..=cables.len())
            .map(|k| {
                let text = cables
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i + 1 != k)
                    .map(|(_, &(_, name))| name)
                    .collect::<Vec<_>>()
                    .join("\n");
                LinksStudy {
                    down: DownCables {
                        text,
                        file: self.down.file.clone(),
                    },
                    ..self.clone()
                }
            })
            .collect();
        let runs: Vec<(usize, u32)> = (0..studies.len())
            .flat_map(|k| (0..self.seeds).map(move |r| (k, r)))
            .collect();
        let outcomes = runs
            .par_iter()
            .map(|&(k, replica)| {
                let case = LinksCase {
                    jobs,
                    failed_pct: 0.0,
                    replica,
                    baseline: false,
                };
                studies[k].run_case(fabric, case)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let seeds = self.seeds as usize;
        let now = &outcomes[..seeds];
        let now_routable = now.iter().all(|o| matches!(o, CaseOutcome::Ran { .. }));
        Ok(cables
            .iter()
            .enumerate()
            .map(|(i, &(line, name))| {
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
                    cable: name.to_string(),
                    line,
                    gain_pct: known.then_some(mean),
                    gain_ci_pct: (known && ci.is_finite()).then_some(ci),
                    unroutable,
                }
            })
            .collect())
    }
}
