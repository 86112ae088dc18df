//! Which down cable to repair first: for each cable a study lists as down, what repairing it
//! alone would give back, seed by seed against the machine as it is.

use rayon::prelude::*;

use super::study::throughput;
use super::study::throughput as machine_throughput;
use super::{mean_ci95, CaseOutcome, DownCables, LinksCase, LinksError, LinksStudy};
use crate::fabric::{Fabric, FabricError};
use crate::faults::{channel_by_name, fault_file_cables, FaultError, Faults};

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

    /// Number of runs [`LinksStudy::repair_gains`] makes: `(listed cables + 1) x seeds`.
    pub fn num_repair_runs(&self) -> usize {
        (self.listed_cables().len() + 1) * self.seeds as usize
    }

    /// The runs `runs` (numbers below [`LinksStudy::num_repair_runs`]) of
    /// [`LinksStudy::repair_gains`], in order: `(k, replica)` with `k = 0` the machine as it
    /// is and `k = i + 1` listed cable `i` repaired, each for every seed.
    pub fn repair_runs(&self, runs: std::ops::Range<usize>) -> Vec<(usize, u32)> {
        let seeds = self.seeds.max(1) as usize;
        runs.map(|i| (i / seeds, (i % seeds) as u32)).collect()
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
        let runs = self.repair_runs(0..self.num_repair_runs());
        let outcomes = self.run_repairs(fabric, jobs, &runs)?;
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

/// The machine with the first `step` repairs of a greedy plan made
/// ([`LinksStudy::greedy_repairs`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RepairStep {
    /// Repairs made so far (0: the machine as it is).
    pub step: usize,
    /// The cable repaired at this step, as the fault file names it (empty at step 0).
    pub cable: String,
    /// Its line in the fault file (0 at step 0).
    pub line: usize,
    /// Mean over seeds of the machine throughput after this step's repairs, in percent of
    /// the healthy machine's (a seed that cannot route every pair counts 0).
    pub throughput_pct: f64,
    /// Half-width of its 95 % confidence interval over the seeds (NaN with one seed).
    pub throughput_ci_pct: f64,
    /// What this step's repair gave back, in points of healthy throughput (mean over
    /// seeds, each seed against itself before the repair); 0 at step 0.
    pub gain_pct: f64,
    /// Half-width of its 95 % confidence interval (NaN with one seed).
    pub gain_ci_pct: f64,
    /// The best other candidate of this step as far as the step evaluated (empty when none).
    pub runner_up: String,
    /// Whether this step's choice over the runner-up is within the noise: the 95 %
    /// confidence interval of their paired difference over the seeds contains 0.
    pub within_noise: bool,
    /// Whether some seed still cannot route every pair of the workload.
    pub unroutable: bool,
}

/// The per-seed throughputs with the cables marked repaired, and one more (`Some(i)`) repaired.
type Throughputs<'a> = dyn Fn(&[bool], Option<usize>) -> Result<Vec<f64>, LinksError> + Sync + 'a;

/// A candidate's last evaluation in the lazy greedy search.
struct Candidate {
    /// Index into the listed cables.
    index: usize,
    /// Throughput after its repair, per seed.
    after: Vec<f64>,
    /// The step it was evaluated at.
    step: usize,
    /// Its mean gain at that step, in points of healthy throughput: a bound on its gain at
    /// later steps.
    bound: f64,
}

impl LinksStudy {
    /// Greedy cumulative repairs of the listed cables: at each step, the cable whose repair
    /// (on top of the earlier ones) gives back the most machine throughput with `jobs` jobs,
    /// over the study's seeds, for up to `steps` steps; row 0 is the machine as it is. Each
    /// state runs for every seed with the same layout and routing choices, so the seeds'
    /// spread in layout drops out of the gains.
    ///
    /// The search is lazy: a gain measured at an earlier step is taken as a bound on the
    /// cable's gain now (repairs rarely help more once others are made), so each step
    /// re-evaluates only the best candidates by their last gain, as many at once as there
    /// are threads, until the best fresh gain is at least every stale one. With `exact`,
    /// every candidate is re-evaluated at every step. Runs on all cores.
    pub fn greedy_repairs(
        &self,
        fabric: &Fabric,
        jobs: u32,
        steps: usize,
        exact: bool,
    ) -> Result<Vec<RepairStep>, LinksError> {
        self.check(fabric)?;
        if self.down.is_empty() {
            return Err(LinksError::Invalid(
                "down: repairs need a fault file that lists cables".into(),
            ));
        }
        let listed = self.listed_cables();
        let channels = listed
            .iter()
            .map(|(line, name)| {
                channel_by_name(fabric, name).map_err(|e| {
                    LinksError::Faults(FaultError::Fabric(FabricError::File {
                        file: self.down.file.clone(),
                        line: *line,
                        reason: e.to_string(),
                    }))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let seeds: Vec<u32> = (0..self.seeds).collect();
        let throughputs =
            |repaired: &[bool], extra: Option<usize>| -> Result<Vec<f64>, LinksError> {
                let mut faults = Faults::none(fabric);
                for (i, &c) in channels.iter().enumerate() {
                    if !repaired[i] && extra != Some(i) {
                        faults.fail_cable(fabric, c)?;
                    }
                }
                seeds
                    .par_iter()
                    .map(|&r| self.throughput_of(fabric, jobs, r, &faults))
                    .collect()
            };
        let none = vec![true; listed.len()];
        let mut repaired = vec![false; listed.len()];
        // The healthy machine and the machine as it is, their seeds on all cores at once.
        let (healthy, now) =
            rayon::join(|| throughputs(&none, None), || throughputs(&repaired, None));
        let (healthy, mut now) = (healthy?, now?);
        let pct = |t: &[f64]| -> Vec<f64> {
            t.iter().zip(&healthy).map(|(a, h)| 100.0 * a / h).collect()
        };
        let row = |step: usize,
                   cable: &str,
                   line: usize,
                   t: &[f64],
                   gain: (f64, f64),
                   runner_up: String,
                   within_noise: bool| {
            let (mean, ci) = mean_ci95(&pct(t));
            RepairStep {
                step,
                cable: cable.to_string(),
                line,
                throughput_pct: mean,
                throughput_ci_pct: ci,
                gain_pct: gain.0,
                gain_ci_pct: gain.1,
                runner_up,
                within_noise,
                unroutable: t.contains(&0.0),
            }
        };
        let mut out = vec![row(0, "", 0, &now, (0.0, 0.0), String::new(), false)];
        let mut candidates: Vec<Candidate> = Vec::new();
        let threads = rayon::current_num_threads().max(1);
        for step in 1..=steps.min(listed.len()) {
            let gain = |c: &Candidate, base: &[f64]| -> Vec<f64> {
                c.after
                    .iter()
                    .zip(base)
                    .zip(&healthy)
                    .map(|((a, b), h)| 100.0 * (a - b) / h)
                    .collect()
            };
            if step == 1 || exact {
                let open: Vec<usize> = (0..listed.len()).filter(|&i| !repaired[i]).collect();
                candidates = self.evaluate(&open, step, &throughputs, &repaired, &now, &healthy)?;
            } else {
                loop {
                    let best_fresh = candidates
                        .iter()
                        .filter(|c| c.step == step)
                        .map(|c| c.bound)
                        .fold(f64::NEG_INFINITY, f64::max);
                    let mut stale: Vec<(f64, usize)> = candidates
                        .iter()
                        .filter(|c| c.step < step)
                        .map(|c| (c.bound, c.index))
                        .collect();
                    stale.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                    if stale.is_empty() || best_fresh >= stale[0].0 {
                        break;
                    }
                    let batch: Vec<usize> = stale.iter().take(threads).map(|s| s.1).collect();
                    let fresh =
                        self.evaluate(&batch, step, &throughputs, &repaired, &now, &healthy)?;
                    candidates.retain(|c| !batch.contains(&c.index));
                    candidates.extend(fresh);
                }
            }
            // The best fresh candidate, then the runner-up among the fresh ones.
            let mut fresh: Vec<&Candidate> = candidates.iter().filter(|c| c.step == step).collect();
            fresh.sort_by(|a, b| b.bound.total_cmp(&a.bound).then(a.index.cmp(&b.index)));
            let best = fresh[0];
            let (runner_up, within_noise) = match fresh.get(1) {
                Some(second) => {
                    let diff: Vec<f64> = gain(best, &now)
                        .iter()
                        .zip(gain(second, &now))
                        .map(|(a, b)| a - b)
                        .collect();
                    let (mean, ci) = mean_ci95(&diff);
                    (
                        listed[second.index].1.clone(),
                        ci.is_nan() || mean.abs() <= ci,
                    )
                }
                None => (String::new(), false),
            };
            let g = mean_ci95(&gain(best, &now));
            let chosen = best.index;
            let after = best.after.clone();
            repaired[chosen] = true;
            out.push(row(
                step,
                &listed[chosen].1,
                listed[chosen].0,
                &after,
                g,
                runner_up,
                within_noise,
            ));
            candidates.retain(|c| c.index != chosen);
            now = after;
        }
        Ok(out)
    }

    /// The candidates `open` repaired one at a time on top of `repaired`, every seed each,
    /// with their gains over the throughputs `now` in points of the `healthy` ones. The
    /// last cable left to repair gives the healthy machine back: its throughputs are
    /// `healthy`, not simulated again (the same runs would give the same numbers).
    fn evaluate(
        &self,
        open: &[usize],
        step: usize,
        throughputs: &Throughputs<'_>,
        repaired: &[bool],
        now: &[f64],
        healthy: &[f64],
    ) -> Result<Vec<Candidate>, LinksError> {
        open.par_iter()
            .map(|&i| {
                let last = repaired.iter().enumerate().all(|(j, &r)| r || j == i);
                let after = if last {
                    healthy.to_vec()
                } else {
                    throughputs(repaired, Some(i))?
                };
                let gains: Vec<f64> = after
                    .iter()
                    .zip(now)
                    .zip(healthy)
                    .map(|((a, b), h)| 100.0 * (a - b) / h)
                    .collect();
                Ok(Candidate {
                    index: i,
                    bound: mean_ci95(&gains).0,
                    after,
                    step,
                })
            })
            .collect()
    }

    /// Machine throughput of `jobs` jobs with seed `replica` on `faults`, rank-iterations per
    /// second (0 when some pair cannot be routed).
    fn throughput_of(
        &self,
        fabric: &Fabric,
        jobs: u32,
        replica: u32,
        faults: &Faults,
    ) -> Result<f64, LinksError> {
        Ok(match self.run_faults(fabric, jobs, replica, faults)? {
            CaseOutcome::Ran { ranks, iteration_s } => machine_throughput(&ranks, &iteration_s),
            CaseOutcome::Unroutable(_) => 0.0,
        })
    }
}
