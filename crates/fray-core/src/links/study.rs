//! The cases of a failed-links study, how one runs, and the table they make.

use rayon::prelude::*;

use super::{mean_ci95, LinksError};
use crate::fabric::{ChannelId, Fabric};
use crate::faults::{fault_file_cables, CableSelector, Faults};
use crate::routing;
use crate::seeds::{case_seed, MAX_REPLICATIONS};
use crate::sim::{run, Engine};
use crate::workload::WorkloadSpec;

/// The most cases a study lists (its numbers of jobs x seeds x failed percentages and
/// baseline): each is a simulation, listed before the first runs, whose outcome is kept
/// until the table is made.
pub const MAX_CASES: u64 = 1_000_000;

/// A failed-links study: every number of jobs, every failed percentage, every seed.
#[derive(Debug, Clone)]
pub struct LinksStudy {
    /// The workload; its `jobs` option is replaced by each entry of `jobs`.
    pub workload: WorkloadSpec,
    /// The routing's name (see [`routing::ROUTINGS`]).
    pub routing: String,
    /// The cables that fail (`global`, `router`, a class name).
    pub fail: CableSelector,
    /// Numbers of jobs sharing the machine (the rows' first key).
    pub jobs: Vec<u32>,
    /// Percentages of the selected cables failed, 0 to 100 (the rows' second key).
    pub failed_pct: Vec<f64>,
    /// Seeds per (jobs, failed %): each seed draws its own layout, failures and routing
    /// choices.
    pub seeds: u32,
    /// The study's seed; seed `r` of a cell derives from `(seed, r)`.
    pub seed: u64,
    /// The engine every case runs on, with its settings (the flow engine's time tolerance
    /// and resolution among them).
    pub engine: Engine,
    /// Cables already down on the machine, as a fault file lists them (see
    /// [`DownCables`]); empty for a healthy machine.
    pub down: DownCables,
}

/// Cables down in every failed case of a study (the machine as it is), as a fault file lists
/// them: one `FROM->TO` cable per line, `#` comments ([`Faults::fail_cables_listed`]). The
/// baselines have none down, so a table's rows say what the listed cables cost (its 0 % row)
/// and what each further share of failed cables would cost on top of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DownCables {
    /// The file's text.
    pub text: String,
    /// The file's name, for errors (which give its line).
    pub file: String,
}

impl DownCables {
    /// Whether no cable is listed.
    pub fn is_empty(&self) -> bool {
        fault_file_cables(&self.text).next().is_none()
    }
}

/// One case of a study channel by channel ([`LinksStudy::run_case_loads`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CaseLoads {
    /// What the case gave.
    pub outcome: CaseOutcome,
    /// Bytes each channel carried over the case, by channel (empty when unroutable).
    pub channel_bytes: Vec<f64>,
    /// Whether each channel was down in the case, by channel.
    pub channel_down: Vec<bool>,
}

/// One simulation of a study: the baseline of its `(jobs, replica)` (nothing down), or the
/// same seed with `failed_pct` of the selected cables failed (after the study's `down`
/// cables, when it lists any).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinksCase {
    /// Jobs sharing the machine.
    pub jobs: u32,
    /// Percentage of the selected cables failed (0 for a baseline).
    pub failed_pct: f64,
    /// Which seed of the cell, `0..seeds`.
    pub replica: u32,
    /// Whether this is the baseline: no cable down.
    pub baseline: bool,
}

/// What one case gave.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseOutcome {
    /// Every message was routed: per job, its ranks and its time per iteration in seconds.
    Ran {
        /// Ranks of each job.
        ranks: Vec<u32>,
        /// Time per iteration of each job, in seconds.
        iteration_s: Vec<f64>,
    },
    /// The routing could not serve a pair of the workload; the reason names it.
    Unroutable(String),
}

/// One row of the study's table: a (jobs, failed %) cell over its seeds.
#[derive(Debug, Clone, PartialEq)]
pub struct LinksRow {
    /// Jobs sharing the machine.
    pub jobs: u32,
    /// Percentage of the selected cables failed.
    pub failed_pct: f64,
    /// Seeds that ran (every seed of the cell, or none when it is unroutable).
    pub seeds: u32,
    /// Mean over seeds of the loss of machine throughput against the same seed without
    /// failures, in percent (negative: faster); `None` when unroutable.
    pub degradation_pct: Option<f64>,
    /// Half-width of the 95 % confidence interval of `degradation_pct`; `None` when
    /// unroutable or with one seed.
    pub degradation_ci_pct: Option<f64>,
    /// Whether some seed could not route every pair of the workload.
    pub unroutable: bool,
    /// Mean time per iteration over jobs and seeds without failures, in seconds (every seed's
    /// baseline, unroutable cells included).
    pub baseline_iteration_s: f64,
    /// Mean time per iteration over jobs and seeds with the failures, in seconds; `None` when
    /// unroutable.
    pub iteration_s: Option<f64>,
    /// Mean over seeds of the machine throughput without failures: rank-iterations per
    /// second, summed over the jobs (every seed's baseline, unroutable cells included).
    pub baseline_throughput: f64,
    /// Mean over seeds of the machine throughput with the failures, rank-iterations per
    /// second; `None` when unroutable.
    pub throughput: Option<f64>,
}

/// The first value of `values` that an earlier one equals.
fn repeated<T: PartialEq + Copy>(values: &[T]) -> Option<T> {
    (1..values.len())
        .find(|&i| values[..i].contains(&values[i]))
        .map(|i| values[i])
}

impl LinksStudy {
    /// Checks the settings against `fabric`: at least one number of jobs and one seed,
    /// no number of jobs or percentage given twice, percentages in 0..=100, the flow
    /// engine's settings ([`crate::sim::flow::FlowConfig::check`]), a cable class the fabric
    /// has, a routing that fits it and whose amounts of congestion the engine counts
    /// ([`routing::check_congestion_unit`]), and each number of jobs fitting the fabric's
    /// endpoints ([`WorkloadSpec::check_fits`]).
    pub fn check(&self, fabric: &Fabric) -> Result<(), LinksError> {
        self.fail.cables(fabric)?;
        Faults::none(fabric).fail_cables_listed(fabric, &self.down.text, &self.down.file)?;
        let routing = routing::build(&self.routing, fabric, &Faults::none(fabric))?;
        routing::check_congestion_unit(routing.as_ref(), self.engine.congestion_unit())?;
        if self.jobs.is_empty() || self.jobs.contains(&0) {
            return Err(LinksError::Invalid(format!(
                "jobs: need one or more counts of at least 1, got {:?}",
                self.jobs
            )));
        }
        if let Some(p) = self.failed_pct.iter().find(|p| !(0.0..=100.0).contains(*p)) {
            return Err(LinksError::Invalid(format!(
                "failed: percentages are 0 to 100, got {p}"
            )));
        }
        if !(1..=MAX_REPLICATIONS).contains(&self.seeds) {
            return Err(LinksError::Invalid(format!(
                "seeds: must be from 1 to {MAX_REPLICATIONS}, got {}",
                self.seeds
            )));
        }
        let cases =
            self.jobs.len() as u64 * u64::from(self.seeds) * (1 + self.failed_pcts().len() as u64);
        if cases > MAX_CASES {
            return Err(LinksError::Invalid(format!(
                "seeds: {} numbers of jobs x {} seeds x {} runs each (baseline and failed \
                 percentages) make {cases} cases, more than the {MAX_CASES} a study lists",
                self.jobs.len(),
                self.seeds,
                1 + self.failed_pcts().len()
            )));
        }
        if let Engine::Flow(config) = self.engine {
            config
                .check()
                .map_err(|e| LinksError::Invalid(e.to_string()))?;
        }
        if let Some(j) = repeated(&self.jobs) {
            return Err(LinksError::Invalid(format!("jobs: {j} given twice")));
        }
        for &jobs in &self.jobs {
            self.workload
                .with_jobs(jobs)
                .check_fits(fabric)
                .map_err(|e| LinksError::Invalid(format!("jobs: {e}")))?;
        }
        if let Some(p) = repeated(&self.failed_pct) {
            return Err(LinksError::Invalid(format!("failed: {p} given twice")));
        }
        Ok(())
    }

    /// Every case, for each number of jobs and each seed: the baseline first, then each
    /// failed percentage above 0 (and 0 too when the study lists `down` cables: the machine
    /// as it is).
    pub fn cases(&self) -> Vec<LinksCase> {
        let mut out = Vec::new();
        for &jobs in &self.jobs {
            for replica in 0..self.seeds {
                let case = |failed_pct, baseline| LinksCase {
                    jobs,
                    failed_pct,
                    replica,
                    baseline,
                };
                out.push(case(0.0, true));
                out.extend(self.failed_pcts().into_iter().map(|p| case(p, false)));
            }
        }
        out
    }

    /// The failed percentages that need a case of their own beside the baseline.
    fn failed_pcts(&self) -> Vec<f64> {
        let mut pcts: Vec<f64> = self
            .failed_pct
            .iter()
            .copied()
            .filter(|&p| p > 0.0)
            .collect();
        if !self.down.is_empty() {
            pcts.insert(0, 0.0);
        }
        pcts
    }

    /// Runs one case on `fabric`. The layout, the routing's choices and (with failures) the
    /// failed cables derive from the study's seed and the case's replica, so the baseline of
    /// a case and the case differ only by the failures.
    pub fn run_case(&self, fabric: &Fabric, case: LinksCase) -> Result<CaseOutcome, LinksError> {
        self.run_case_loads(fabric, case).map(|c| c.outcome)
    }

    /// [`LinksStudy::run_case`], channel by channel: which cables were down and what each
    /// channel carried, which shows the cables that bound the case.
    pub fn run_case_loads(
        &self,
        fabric: &Fabric,
        case: LinksCase,
    ) -> Result<CaseLoads, LinksError> {
        let faults = self.case_faults(fabric, case)?;
        self.run_faults_loads(fabric, case.jobs, case.replica, &faults)
    }

    /// The seed of seed number `replica` (`0..seeds`): its layout and routing choices, as a
    /// single run takes them (`fray.simulate(..., seed=...)` reruns a case of the study with
    /// it and the case's faults), and the root of its failure draws.
    pub fn replica_seed(&self, replica: u32) -> u64 {
        case_seed(self.seed, u64::from(replica))
    }

    /// The fault state of a case: none for a baseline; else the study's `down` cables and
    /// `failed_pct` % of the remaining `fail` cables, drawn from `(seed, replica, failed %)`
    /// (so every number of jobs of a seed sees the same draw).
    pub fn case_faults(&self, fabric: &Fabric, case: LinksCase) -> Result<Faults, LinksError> {
        let seed = self.replica_seed(case.replica);
        let mut faults = Faults::none(fabric);
        if !case.baseline {
            faults.fail_cables_listed(fabric, &self.down.text, &self.down.file)?;
            faults.fail_random_cables(
                fabric,
                &self.fail,
                case.failed_pct / 100.0,
                case_seed(seed, case.failed_pct.to_bits()),
            )?;
        }
        Ok(faults)
    }

    /// Runs `jobs` jobs with the layout and routing choices of seed `replica` on the fault
    /// state `faults` (a case's, or any other the caller makes, such as a planner's).
    pub fn run_faults(
        &self,
        fabric: &Fabric,
        jobs: u32,
        replica: u32,
        faults: &Faults,
    ) -> Result<CaseOutcome, LinksError> {
        self.run_faults_loads(fabric, jobs, replica, faults)
            .map(|c| c.outcome)
    }

    /// [`LinksStudy::run_faults`], channel by channel.
    fn run_faults_loads(
        &self,
        fabric: &Fabric,
        jobs: u32,
        replica: u32,
        faults: &Faults,
    ) -> Result<CaseLoads, LinksError> {
        let seed = self.replica_seed(replica);
        let jobs = self.workload.with_jobs(jobs).place(fabric, seed)?;
        let router = routing::build(&self.routing, fabric, faults)?;
        let channel_down = (0..fabric.channels().len())
            .map(|c| faults.channel_is_down(c as ChannelId))
            .collect();
        let engine = self.engine;
        let (outcome, channel_bytes) =
            match run(engine, fabric, faults, router.as_ref(), &jobs, seed) {
                Ok(results) => (
                    CaseOutcome::Ran {
                        ranks: jobs.iter().map(|j| j.dag.num_ranks()).collect(),
                        iteration_s: results.jobs.iter().map(|j| j.iteration_s).collect(),
                    },
                    results.channel_bytes,
                ),
                Err(e) if e.is_unroutable() => (CaseOutcome::Unroutable(e.to_string()), Vec::new()),
                Err(e) => return Err(e.into()),
            };
        Ok(CaseLoads {
            outcome,
            channel_bytes,
            channel_down,
        })
    }

    /// How many cases (or repair runs) a caller that runs the study in chunks (to show
    /// progress, to stop between chunks) should hand [`LinksStudy::run_cases`] at a time:
    /// four per thread of the pool, so that every core is busy and the pool evens out cases
    /// of unequal cost. The outcomes do not depend on it.
    pub fn chunk_len() -> usize {
        4 * rayon::current_num_threads()
    }

    /// Runs `cases` on all cores; the outcomes are in the order of `cases` and do not
    /// depend on the number of threads.
    pub fn run_cases(
        &self,
        fabric: &Fabric,
        cases: &[LinksCase],
    ) -> Result<Vec<CaseOutcome>, LinksError> {
        cases
            .par_iter()
            .map(|&case| self.run_case(fabric, case))
            .collect()
    }

    /// The table: one row per (jobs, failed %) in the order of `jobs` and `failed_pct`
    /// (baselines included as rows of 0 %), from the `outcomes` of `cases` (any order; a
    /// case missing from them is an error naming it).
    pub fn summarize(
        &self,
        cases: &[LinksCase],
        outcomes: &[CaseOutcome],
    ) -> Result<Vec<LinksRow>, LinksError> {
        let find = |jobs: u32, failed_pct: f64, replica: u32, baseline: bool| {
            cases
                .iter()
                .position(|c| {
                    c.jobs == jobs
                        && c.failed_pct == failed_pct
                        && c.replica == replica
                        && c.baseline == baseline
                })
                .and_then(|i| outcomes.get(i))
                .ok_or_else(|| {
                    LinksError::Invalid(format!(
                        "no outcome for {jobs} jobs, {failed_pct} % failed, seed {replica}{}",
                        if baseline { " (baseline)" } else { "" }
                    ))
                })
        };
        let mut pcts = self.failed_pcts();
        if self.down.is_empty() {
            pcts.insert(0, 0.0); // the baseline's own row
        }
        let mut rows = Vec::new();
        for &jobs in &self.jobs {
            for &pct in &pcts {
                let mut degradation = Vec::new();
                let (mut base_times, mut times) = (Vec::new(), Vec::new());
                let (mut base_throughputs, mut throughputs) = (Vec::new(), Vec::new());
                let mut unroutable = false;
                for replica in 0..self.seeds {
                    let base = find(jobs, 0.0, replica, true)?;
                    let this = find(jobs, pct, replica, pct == 0.0 && self.down.is_empty())?;
                    if let CaseOutcome::Ran { ranks, iteration_s } = base {
                        base_times.extend_from_slice(iteration_s);
                        base_throughputs.push(throughput(ranks, iteration_s));
                    }
                    match (base, this) {
                        (
                            CaseOutcome::Ran {
                                ranks,
                                iteration_s: b,
                            },
                            CaseOutcome::Ran { iteration_s: f, .. },
                        ) => {
                            let t = throughput(ranks, f);
                            degradation.push(100.0 * (1.0 - t / throughput(ranks, b)));
                            throughputs.push(t);
                            times.extend_from_slice(f);
                        }
                        _ => unroutable = true,
                    }
                }
                let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
                let (d, ci) = mean_ci95(&degradation);
                rows.push(LinksRow {
                    jobs,
                    failed_pct: pct,
                    seeds: if unroutable { 0 } else { self.seeds },
                    degradation_pct: (!unroutable).then_some(d),
                    degradation_ci_pct: (!unroutable && ci.is_finite()).then_some(ci),
                    unroutable,
                    baseline_iteration_s: mean(&base_times),
                    iteration_s: (!unroutable).then(|| mean(&times)),
                    baseline_throughput: mean(&base_throughputs),
                    throughput: (!unroutable).then(|| mean(&throughputs)),
                });
            }
        }
        Ok(rows)
    }
}

/// Machine throughput: rank-iterations per second summed over the jobs.
pub(crate) fn throughput(ranks: &[u32], iteration_s: &[f64]) -> f64 {
    ranks
        .iter()
        .zip(iteration_s)
        .map(|(&r, &t)| f64::from(r) / t)
        .sum()
}
