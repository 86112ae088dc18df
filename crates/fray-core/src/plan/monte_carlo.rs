//! The Monte Carlo over a horizon: cables fail and are repaired as a policy says, and the
//! machine's throughput lost to degraded running and to maintenance is added up.

use rand::SeedableRng;
use rand_pcg::Pcg64;
use rayon::prelude::*;

use super::failure::FailureModel;
use super::loss::{pairs_cut_off, CachedLoss, FaultLoss, LossModel, StateLoss};
use super::policy::RepairPolicy;
use super::PlanError;
use crate::fabric::{ChannelId, Fabric};
use crate::faults::{CableSelector, Faults};
use crate::links::{mean_ci95, student_t975};
use crate::seeds::{case_seed, MAX_REPLICATIONS};

/// How one class of cables fails.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassFailures {
    /// The link class (`global`, `local`, ...), or `router` for every router-to-router cable.
    pub class: String,
    /// Lifetime of each of its cables.
    pub model: FailureModel,
}

/// The longest horizon a plan covers, in seconds (1,000 years of 365.25 days).
pub const MAX_HORIZON_S: f64 = 1000.0 * 365.25 * 86400.0;

/// The most cable failures a plan may expect over all its replications (10^8: each is an
/// event of the Monte Carlo, and a run of that many takes minutes).
pub const MAX_PLAN_FAILURES: f64 = 1e8;

/// The most fault states a loss model evaluates, `points * samples` over every class
/// (10^7): each is a workload simulation, and the list of them is allocated up front.
pub const MAX_MODEL_STATES: u128 = 10_000_000;

/// The most grid points per class of a loss model (10^4).
pub const MAX_MODEL_POINTS: usize = 10_000;

/// The most sampled states per grid point of a loss model (10^4).
pub const MAX_MODEL_SAMPLES: usize = 10_000;

/// A plan: which cables fail and how, over which horizon, with how many replications.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The failing classes (cables of other classes never fail).
    pub classes: Vec<ClassFailures>,
    /// The horizon in seconds (a year: 365 days).
    pub horizon_s: f64,
    /// Independent replications of the horizon.
    pub replications: u32,
    /// The plan's seed; replication `r` draws from `(seed, r)` and cable `i` of it from its own
    /// stream, so every policy sees the same lifetimes until its repairs differ.
    pub seed: u64,
}

/// How the planner gets the loss of the states it visits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossReuse {
    /// Every visited state evaluated (once per distinct state: the fingerprint cache).
    Direct,
    /// A [`LossModel`] fitted on `samples` sampled states at each of up to `points` counts
    /// per class; each visited state checked for cut-off pairs exactly.
    Model {
        /// Grid points per class.
        points: usize,
        /// Sampled states per grid point.
        samples: usize,
    },
}

/// What one policy gives, over the replications.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyOutcome {
    /// The policy.
    pub policy: RepairPolicy,
    /// Mean share of the horizon's machine throughput lost to running degraded (0 to 1;
    /// a state with a pair cut off counts whole).
    pub degraded_share: f64,
    /// Mean share lost to maintenance windows (the machine does no work in them).
    pub downtime_share: f64,
    /// `degraded_share + downtime_share`.
    pub total_share: f64,
    /// Half-width of the 95 % confidence interval of `total_share`: the replications'
    /// spread and, with a loss model, the model's own sampling error.
    pub total_ci: f64,
    /// Mean share of the horizon with a pair of endpoints cut off.
    pub cut_off_share: f64,
    /// Mean number of maintenance windows, or of repair visits for a threshold policy.
    pub windows: f64,
    /// Mean number of cables repaired.
    pub repairs: f64,
    /// Per class, the time-average number of down cables.
    pub mean_down: Vec<f64>,
}

/// Everything a plan gives.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanReport {
    /// One outcome per policy, in the order given.
    pub outcomes: Vec<PolicyOutcome>,
    /// The loss model, with [`LossReuse::Model`].
    pub model: Option<LossModel>,
    /// Fault states the caller's loss evaluated (distinct states).
    pub evaluations: usize,
    /// Times a state's loss was asked for (evaluations plus cache hits).
    pub lookups: usize,
}

impl Plan {
    /// The cables of each class, checking the settings against `fabric`.
    pub fn cables(&self, fabric: &Fabric) -> Result<Vec<Vec<ChannelId>>, PlanError> {
        if self.classes.is_empty() {
            return Err(PlanError::invalid("failures", "no class fails".into()));
        }
        if !(self.horizon_s > 0.0 && self.horizon_s.is_finite()) {
            return Err(PlanError::invalid(
                "horizon",
                format!("must be positive, got {} s", self.horizon_s),
            ));
        }
        if self.horizon_s > MAX_HORIZON_S {
            return Err(PlanError::invalid(
                "horizon",
                format!(
                    "{:e} d is longer than the longest horizon, 1000 years ({:.0} d)",
                    self.horizon_s / 86400.0,
                    MAX_HORIZON_S / 86400.0
                ),
            ));
        }
        if !(2..=MAX_REPLICATIONS).contains(&self.replications) {
            return Err(PlanError::invalid(
                "replications",
                format!(
                    "must be from 2 (for an interval) to {MAX_REPLICATIONS}, got {}",
                    self.replications
                ),
            ));
        }
        let cables = self
            .classes
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if self.classes[..i].iter().any(|o| o.class == c.class) {
                    return Err(PlanError::invalid(
                        "failures",
                        format!("class {:?} given twice", c.class),
                    ));
                }
                Ok(CableSelector::parse(&c.class).cables(fabric)?)
            })
            .collect::<Result<Vec<_>, PlanError>>()?;
        // A cable has one lifetime: `router` and a class of router cables cannot both fail.
        let mut class_of = vec![usize::MAX; fabric.channels().len()];
        for (i, list) in cables.iter().enumerate() {
            for &c in list {
                let other = std::mem::replace(&mut class_of[c as usize], i);
                if other != usize::MAX {
                    return Err(PlanError::invalid(
                        "failures",
                        format!(
                            "classes {:?} and {:?} share cables; give each cable one failure \
                             model",
                            self.classes[other].class, self.classes[i].class
                        ),
                    ));
                }
            }
        }
        // Every failure is an event: bounded before the Monte Carlo starts.
        let failures: f64 = self
            .classes
            .iter()
            .zip(&cables)
            .map(|(c, list)| list.len() as f64 * self.horizon_s / c.model.mean_s())
            .sum::<f64>()
            * f64::from(self.replications);
        if failures.is_nan() || failures > MAX_PLAN_FAILURES {
            return Err(PlanError::invalid(
                "horizon",
                format!(
                    "{} replications over {} d expect {failures:.3e} cable failures, more than \
                     the most, {MAX_PLAN_FAILURES:e}: shorten the horizon or use fewer \
                     replications",
                    self.replications,
                    self.horizon_s / 86400.0
                ),
            ));
        }
        Ok(cables)
    }

    /// Runs every policy over the replications on all cores (results do not depend on the
    /// number of threads) with the loss of each state from `loss`, reused as `reuse` says.
    pub fn run(
        &self,
        fabric: &Fabric,
        policies: &[RepairPolicy],
        loss: &dyn FaultLoss,
        reuse: LossReuse,
    ) -> Result<PlanReport, PlanError> {
        let cables = self.cables(fabric)?;
        let cached = CachedLoss::new(loss);
        let model = match reuse {
            LossReuse::Direct => None,
            LossReuse::Model { points, samples } => {
                let grids = self.model_grids(fabric, policies, points, samples)?;
                Some(LossModel::fit(
                    fabric, &cables, &grids, samples, self.seed, &cached,
                )?)
            }
        };
        let evaluator = match &model {
            None => Evaluator::Direct(&cached),
            Some(m) => Evaluator::Model(m),
        };
        let outcomes = self.outcomes(fabric, &cables, policies, &evaluator, model.as_ref())?;
        Ok(PlanReport {
            outcomes,
            model,
            evaluations: cached.evaluations(),
            lookups: cached.lookups(),
        })
    }

    /// The counts of each class a loss model of `points` points evaluates (with `samples`
    /// states each, checked here): 0, the counts where these replications of `policies`
    /// spend the most time, and the largest they reach ([`LossModel::grid`]), found by
    /// running them with no loss.
    pub fn model_grids(
        &self,
        fabric: &Fabric,
        policies: &[RepairPolicy],
        points: usize,
        samples: usize,
    ) -> Result<Vec<Vec<usize>>, PlanError> {
        if !(2..=MAX_MODEL_POINTS).contains(&points) {
            return Err(PlanError::invalid(
                "points",
                format!("must be from 2 to {MAX_MODEL_POINTS}, got {points}"),
            ));
        }
        if !(1..=MAX_MODEL_SAMPLES).contains(&samples) {
            return Err(PlanError::invalid(
                "samples",
                format!("must be from 1 to {MAX_MODEL_SAMPLES}, got {samples}"),
            ));
        }
        let cables = self.cables(fabric)?;
        let states = (points as u128)
            .saturating_mul(samples as u128)
            .saturating_mul(cables.len() as u128);
        if states > MAX_MODEL_STATES {
            return Err(PlanError::invalid(
                "model",
                format!(
                    "{points} points of {samples} samples for {} classes are {states} fault \
                     states, more than the most, {MAX_MODEL_STATES}",
                    cables.len()
                ),
            ));
        }
        let reach = self.tallies(fabric, &cables, policies, &Evaluator::Zero)?;
        Ok((0..cables.len())
            .map(|c| {
                let mut time = vec![0.0; cables[c].len() + 1];
                for t in &reach {
                    for (n, s) in t.time_at[c].iter().enumerate() {
                        time[n] += s;
                    }
                }
                LossModel::grid(&time, points)
            })
            .collect())
    }

    /// Runs every policy over the replications with the loss of each state from `model`
    /// (cut-off pairs checked exactly), as [`Self::run`] does once it has fitted it: a model
    /// fitted elsewhere ([`LossModel::from_values`] of jobs evaluated apart) gives the same
    /// report.
    pub fn run_with_model(
        &self,
        fabric: &Fabric,
        policies: &[RepairPolicy],
        model: LossModel,
    ) -> Result<PlanReport, PlanError> {
        let cables = self.cables(fabric)?;
        let outcomes = self.outcomes(
            fabric,
            &cables,
            policies,
            &Evaluator::Model(&model),
            Some(&model),
        )?;
        Ok(PlanReport {
            outcomes,
            model: Some(model),
            evaluations: 0,
            lookups: 0,
        })
    }

    /// Every policy's outcome over the replications, each state's loss from `evaluator`.
    fn outcomes(
        &self,
        fabric: &Fabric,
        cables: &[Vec<ChannelId>],
        policies: &[RepairPolicy],
        evaluator: &Evaluator<'_>,
        model: Option<&LossModel>,
    ) -> Result<Vec<PolicyOutcome>, PlanError> {
        let tallies = self.tallies(fabric, cables, policies, evaluator)?;
        let reps = self.replications as usize;
        Ok(policies
            .iter()
            .zip(tallies.chunks(reps))
            .map(|(&policy, t)| summarize(policy, t, self.horizon_s, model))
            .collect())
    }

    /// Every (policy, replication), policy-major, on all cores.
    fn tallies(
        &self,
        fabric: &Fabric,
        cables: &[Vec<ChannelId>],
        policies: &[RepairPolicy],
        evaluator: &Evaluator<'_>,
    ) -> Result<Vec<Tally>, PlanError> {
        let runs: Vec<(RepairPolicy, u32)> = policies
            .iter()
            .flat_map(|&p| (0..self.replications).map(move |r| (p, r)))
            .collect();
        runs.par_iter()
            .map(|&(policy, rep)| self.replicate(fabric, cables, policy, rep, evaluator))
            .collect()
    }

    /// One replication of the horizon under `policy`.
    fn replicate(
        &self,
        fabric: &Fabric,
        cables: &[Vec<ChannelId>],
        policy: RepairPolicy,
        rep: u32,
        evaluator: &Evaluator<'_>,
    ) -> Result<Tally, PlanError> {
        let seed = case_seed(self.seed, u64::from(rep));
        let list: Vec<(usize, ChannelId)> = cables
            .iter()
            .enumerate()
            .flat_map(|(c, l)| l.iter().map(move |&ch| (c, ch)))
            .collect();
        let mut rngs: Vec<Pcg64> = (0..list.len())
            .map(|i| Pcg64::seed_from_u64(case_seed(seed, i as u64)))
            .collect();
        let model = |i: usize| &self.classes[list[i].0].model;
        let mut next_fail: Vec<f64> = (0..list.len())
            .map(|i| model(i).sample(&mut rngs[i]))
            .collect();
        let mut down = vec![false; list.len()];
        let mut repair_at = vec![f64::INFINITY; list.len()];
        let mut faults = Faults::none(fabric);
        let mut counts = vec![0usize; cables.len()];
        let sizes: Vec<usize> = cables.iter().map(Vec::len).collect();
        let mut tally = Tally::new(&sizes, evaluator.points());
        let (mut working, mut window_end, mut visit_at) = (true, f64::INFINITY, f64::INFINITY);
        let mut next_window = match policy {
            RepairPolicy::Windows { every_s, .. } => every_s,
            _ => f64::INFINITY,
        };
        let mut current: Option<StateLoss> = None;
        let mut t = 0.0;
        loop {
            let (tf, fi) = argmin(&next_fail, |i| !down[i]);
            let (tr, ri) = argmin(&repair_at, |i| down[i]);
            let tw = if working { next_window } else { window_end };
            let next = tf.min(tr).min(tw).min(visit_at).min(self.horizon_s);
            let dt = next - t;
            if working {
                let state = match current {
                    Some(s) => s,
                    None => *current.insert(evaluator.state(fabric, &faults, &counts)?),
                };
                tally.degraded(dt, state, &counts, evaluator);
            } else {
                tally.downtime += dt;
            }
            for (c, &n) in counts.iter().enumerate() {
                tally.down_time[c] += dt * n as f64;
                tally.time_at[c][n] += dt;
            }
            t = next;
            if t >= self.horizon_s {
                break;
            }
            let mut to_repair = Vec::new();
            if next == tf {
                down[fi] = true;
                counts[list[fi].0] += 1;
                faults.fail_cable(fabric, list[fi].1)?;
                if let RepairPolicy::Immediate { repair_s } = policy {
                    repair_at[fi] = t + repair_s;
                }
            } else if next == tr {
                to_repair.push(ri);
            } else if next == tw && working {
                working = false;
                tally.windows += 1;
                if let RepairPolicy::Windows { length_s, .. } = policy {
                    window_end = t + length_s;
                }
            } else {
                // The end of a window, or a threshold policy's visit: every down cable.
                if next == tw {
                    working = true;
                    window_end = f64::INFINITY;
                    if let RepairPolicy::Windows { every_s, .. } = policy {
                        next_window += every_s;
                    }
                } else {
                    visit_at = f64::INFINITY;
                }
                to_repair.extend((0..list.len()).filter(|&i| down[i]));
            }
            for i in to_repair {
                down[i] = false;
                repair_at[i] = f64::INFINITY;
                counts[list[i].0] -= 1;
                next_fail[i] = t + model(i).sample(&mut rngs[i]);
                faults.repair_cable(fabric, list[i].1)?;
                tally.repairs += 1;
            }
            current = None;
            if let RepairPolicy::Threshold { loss, repair_s } = policy {
                if visit_at.is_infinite() && counts.iter().any(|&n| n > 0) {
                    let state = *current.insert(evaluator.state(fabric, &faults, &counts)?);
                    if state.cut_off || state.loss >= loss {
                        visit_at = t + repair_s;
                        tally.windows += 1;
                    }
                }
            }
        }
        Ok(tally)
    }
}

/// The earliest of `times` among the indices `live` keeps, and its index (infinity when none).
fn argmin(times: &[f64], live: impl Fn(usize) -> bool) -> (f64, usize) {
    let mut best = (f64::INFINITY, usize::MAX);
    for (i, &t) in times.iter().enumerate() {
        if t < best.0 && live(i) {
            best = (t, i);
        }
    }
    best
}

/// Where a replication gets the loss of a state.
enum Evaluator<'a> {
    /// No loss (the pass that finds the counts a loss model must cover).
    Zero,
    /// Every state through the cache.
    Direct(&'a CachedLoss<'a>),
    /// The model, with cut-off pairs checked exactly.
    Model(&'a LossModel),
}

impl Evaluator<'_> {
    fn state(
        &self,
        fabric: &Fabric,
        faults: &Faults,
        counts: &[usize],
    ) -> Result<StateLoss, PlanError> {
        Ok(match self {
            Self::Zero => StateLoss {
                loss: 0.0,
                cut_off: false,
            },
            Self::Direct(cache) => cache.get(faults)?,
            Self::Model(model) => {
                let cut_off = pairs_cut_off(fabric, faults);
                StateLoss {
                    loss: if cut_off { 1.0 } else { model.loss(counts) },
                    cut_off,
                }
            }
        })
    }

    fn points(&self) -> usize {
        match self {
            Self::Model(m) => m.num_points(),
            _ => 0,
        }
    }
}

/// One replication's sums, in seconds.
struct Tally {
    /// Loss-weighted running time (direct losses and cut-off time; with a model, the cut-off
    /// time only: the rest is in `weights`).
    degraded_s: f64,
    /// With a model: running time times each grid point's interpolation weight, flattened
    /// over classes.
    weights: Vec<f64>,
    downtime: f64,
    cut_s: f64,
    windows: u32,
    repairs: u32,
    down_time: Vec<f64>,
    /// Per class, seconds spent with each count of its cables down.
    time_at: Vec<Vec<f64>>,
}

impl Tally {
    /// Sums for classes of `classes[c]` cables and a model of `points` points.
    fn new(classes: &[usize], points: usize) -> Self {
        Self {
            degraded_s: 0.0,
            weights: vec![0.0; points],
            downtime: 0.0,
            cut_s: 0.0,
            windows: 0,
            repairs: 0,
            down_time: vec![0.0; classes.len()],
            time_at: classes.iter().map(|&n| vec![0.0; n + 1]).collect(),
        }
    }

    fn degraded(&mut self, dt: f64, state: StateLoss, counts: &[usize], ev: &Evaluator<'_>) {
        if state.cut_off {
            self.cut_s += dt;
            self.degraded_s += dt;
            return;
        }
        match ev {
            Evaluator::Model(model) => {
                let mut offset = 0;
                for (c, &n) in counts.iter().enumerate() {
                    for (i, w) in model.weights(c, n) {
                        self.weights[offset + i] += dt * w;
                    }
                    offset += model.classes[c].len();
                }
            }
            _ => self.degraded_s += dt * state.loss,
        }
    }
}

/// One policy's outcome from its replications' tallies.
fn summarize(
    policy: RepairPolicy,
    tallies: &[Tally],
    horizon_s: f64,
    model: Option<&LossModel>,
) -> PolicyOutcome {
    let means: Vec<f64> = model
        .map(|m| m.classes.iter().flatten().map(|p| p.mean_loss).collect())
        .unwrap_or_default();
    let degraded: Vec<f64> = tallies
        .iter()
        .map(|t| {
            (t.degraded_s
                + t.weights
                    .iter()
                    .zip(&means)
                    .map(|(w, m)| w * m)
                    .sum::<f64>())
                / horizon_s
        })
        .collect();
    let downtime: Vec<f64> = tallies.iter().map(|t| t.downtime / horizon_s).collect();
    let total: Vec<f64> = degraded.iter().zip(&downtime).map(|(a, b)| a + b).collect();
    let n = tallies.len() as f64;
    let mean = |f: &dyn Fn(&Tally) -> f64| tallies.iter().map(f).sum::<f64>() / n;
    let (total_share, rep_ci) = mean_ci95(&total);
    // The model's means are estimates too: the total is linear in them, so their standard
    // errors add in quadrature, each weighted by its mean share of the horizon.
    let model_var: f64 = model
        .map(|m| {
            m.classes
                .iter()
                .flatten()
                .enumerate()
                .map(|(j, p)| {
                    let w = mean(&|t: &Tally| t.weights[j]) / horizon_s;
                    (w * p.std_error).powi(2)
                })
                .sum()
        })
        .unwrap_or(0.0);
    let rep_se = rep_ci / student_t975(tallies.len() - 1);
    let total_ci = student_t975(tallies.len() - 1) * (rep_se.powi(2) + model_var).sqrt();
    PolicyOutcome {
        policy,
        degraded_share: degraded.iter().sum::<f64>() / n,
        downtime_share: downtime.iter().sum::<f64>() / n,
        total_share,
        total_ci,
        cut_off_share: mean(&|t: &Tally| t.cut_s) / horizon_s,
        windows: mean(&|t: &Tally| f64::from(t.windows)),
        repairs: mean(&|t: &Tally| f64::from(t.repairs)),
        mean_down: (0..tallies[0].down_time.len())
            .map(|c| mean(&|t: &Tally| t.down_time[c]) / horizon_s)
            .collect(),
    }
}

/// The index of the windows policy with the least total loss among `outcomes` (the best
/// window interval of a sweep), or `None` when there is none.
pub fn best_window(outcomes: &[PolicyOutcome]) -> Option<usize> {
    outcomes
        .iter()
        .enumerate()
        .filter(|(_, o)| matches!(o.policy, RepairPolicy::Windows { .. }))
        .min_by(|a, b| a.1.total_share.total_cmp(&b.1.total_share))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::ModelValue;

    const DAY: f64 = 86400.0;

    fn fabric() -> Fabric {
        Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap() // 36 global cables
    }

    fn plan(model: &str, horizon_days: f64, replications: u32) -> Plan {
        Plan {
            classes: vec![ClassFailures {
                class: "global".into(),
                model: model.parse().unwrap(),
            }],
            horizon_s: horizon_days * DAY,
            replications,
            seed: 7,
        }
    }

    /// `kappa` of the machine's throughput per down cable.
    fn per_cable(kappa: f64) -> impl Fn(&Faults) -> Result<StateLoss, PlanError> + Sync {
        move |f: &Faults| {
            Ok(StateLoss {
                loss: kappa * (f.num_channels_down() / 2) as f64,
                cut_off: false,
            })
        }
    }

    fn policy(text: &str) -> RepairPolicy {
        text.parse().unwrap()
    }

    #[test]
    fn immediate_repair_keeps_rate_times_repair_time_cables_down() {
        // Up for an exponential 10 days, down 1 day: each cable is down 1/11 of the time.
        let p = plan("exp:mtbf=10d", 1000.0, 60);
        let loss = per_cable(0.01);
        let r = p
            .run(
                &fabric(),
                &[policy("immediate:repair=1d")],
                &loss,
                LossReuse::Direct,
            )
            .unwrap();
        let o = &r.outcomes[0];
        let down = 36.0 / 11.0;
        assert!(
            (o.mean_down[0] - down).abs() < 0.02 * down,
            "{}",
            o.mean_down[0]
        );
        assert!((o.total_share - 0.01 * down).abs() < o.total_ci, "{o:?}");
        assert_eq!((o.downtime_share, o.windows), (0.0, 0.0));
        assert_eq!(o.degraded_share, o.total_share);
    }

    #[test]
    fn windows_with_a_constant_loss_per_cable_give_the_closed_form() {
        // Every cable is new after each window; between windows a cable is down after s
        // days with probability 1 - exp(-s/m), so a working span of l days loses
        // kappa N (l - m (1 - exp(-l/m))) machine-days.
        let (m, every, length, horizon, kappa, n) = (60.0, 30.0, 1.0, 365.0, 0.01, 36.0);
        let p = plan("exp:mtbf=60d", horizon, 400);
        let r = p
            .run(
                &fabric(),
                &[policy("windows:every=30d,length=1d")],
                &per_cable(kappa),
                LossReuse::Direct,
            )
            .unwrap();
        let o = &r.outcomes[0];
        let (mut start, mut lost, mut windows) = (0.0, 0.0, 0.0);
        while start < horizon {
            let end = (((start / every) as u64 + 1) as f64 * every).min(horizon);
            let l: f64 = end - start;
            lost += kappa * n * (l - m * (1.0 - (-l / m).exp()));
            if end < horizon {
                windows += 1.0;
            }
            start = end + length;
        }
        assert_eq!(o.windows, windows);
        assert!((o.downtime_share - windows * length / horizon).abs() < 1e-12);
        let expected = lost / horizon + o.downtime_share;
        assert!(
            (o.total_share - expected).abs() < o.total_ci,
            "{} vs {expected} ± {}",
            o.total_share,
            o.total_ci
        );
    }

    #[test]
    fn the_model_of_a_linear_loss_gives_the_direct_answer() {
        let p = plan("weibull:shape=1.5,scale=120d", 365.0, 20);
        let policies = [
            policy("immediate:repair=2d"),
            policy("windows:every=20d,length=8h"),
        ];
        let f = fabric();
        // Linear in the down cables, and the whole machine when a pair is cut off (as the
        // model counts it).
        let loss = |faults: &Faults| {
            let cut_off = pairs_cut_off(&f, faults);
            Ok(StateLoss {
                loss: if cut_off {
                    1.0
                } else {
                    0.004 * (faults.num_channels_down() / 2) as f64
                },
                cut_off,
            })
        };
        let direct = p
            .run(&fabric(), &policies, &loss, LossReuse::Direct)
            .unwrap();
        let model = p
            .run(
                &fabric(),
                &policies,
                &loss,
                LossReuse::Model {
                    points: 5,
                    samples: 2,
                },
            )
            .unwrap();
        for (d, m) in direct.outcomes.iter().zip(&model.outcomes) {
            assert!((d.total_share - m.total_share).abs() < 1e-12, "{d:?} {m:?}");
            assert_eq!(d.cut_off_share, m.cut_off_share);
            assert_eq!(d.windows, m.windows);
        }
        // The model needs a handful of states where the direct run needs thousands.
        assert!(
            model.evaluations < 20 && direct.evaluations > 1000,
            "{} {}",
            model.evaluations,
            direct.evaluations
        );
    }

    #[test]
    fn a_model_fitted_job_by_job_gives_the_same_report() {
        // As a campaign runs it: the grids, each job evaluated on its own (in another order),
        // the model from the values, then the replications.
        let p = plan("exp:mtbf=40d", 365.0, 12);
        let policies = [
            policy("immediate:repair=1d"),
            policy("windows:every=30d,length=8h"),
        ];
        let f = fabric();
        let loss = |faults: &Faults| {
            Ok(StateLoss {
                loss: 0.003 * (faults.num_channels_down() / 2) as f64
                    + 1e-4 * (faults.down_fingerprint() % 7) as f64,
                cut_off: false,
            })
        };
        let reuse = LossReuse::Model {
            points: 4,
            samples: 3,
        };
        let whole = p.run(&f, &policies, &loss, reuse).unwrap();
        let cables = p.cables(&f).unwrap();
        let grids = p.model_grids(&f, &policies, 4, 3).unwrap();
        let jobs = LossModel::jobs(&cables, &grids, 3);
        let cached = CachedLoss::new(&loss);
        let mut values: Vec<Option<ModelValue>> = vec![None; jobs.len()];
        for i in (0..jobs.len()).rev() {
            values[i] = Some(jobs[i].evaluate(&f, &cables, p.seed, &cached).unwrap());
        }
        let values: Vec<ModelValue> = values.into_iter().map(Option::unwrap).collect();
        let model = LossModel::from_values(&cables, &grids, 3, &jobs, &values);
        assert_eq!(Some(&model), whole.model.as_ref());
        let apart = p.run_with_model(&f, &policies, model).unwrap();
        assert_eq!(apart.outcomes, whole.outcomes);
        assert!(p.model_grids(&f, &policies, 1, 3).is_err());
    }

    #[test]
    fn results_do_not_depend_on_the_number_of_threads() {
        let p = plan("exp:mtbf=30d", 200.0, 16);
        let policies = [
            policy("threshold:loss=3%,repair=1d"),
            policy("windows:every=14d,length=8h"),
        ];
        let loss = per_cable(0.01);
        let on = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    p.run(&fabric(), &policies, &loss, LossReuse::Direct)
                        .unwrap()
                })
        };
        assert_eq!(on(1).outcomes, on(3).outcomes);
    }

    #[test]
    fn a_threshold_never_reached_never_repairs_and_one_always_reached_repairs_every_failure() {
        let p = plan("exp:mtbf=100d", 365.0, 8);
        let loss = per_cable(0.01);
        let run = |t: &str| {
            p.run(&fabric(), &[policy(t)], &loss, LossReuse::Direct)
                .unwrap()
                .outcomes
                .remove(0)
        };
        let never = run("threshold:loss=100%,repair=1d");
        assert_eq!((never.repairs, never.windows), (0.0, 0.0));
        let always = run("threshold:loss=1%,repair=1d");
        assert!(always.windows > 0.0 && always.repairs >= always.windows);
        assert!(always.total_share < never.total_share);
        let best = best_window(&[never.clone(), always]);
        assert_eq!(best, None);
    }
}

#[cfg(test)]
mod horizons_and_models_are_bounded_before_the_run {
    use super::*;

    fn plan(model: &str, horizon_days: f64) -> Plan {
        Plan {
            classes: vec![ClassFailures {
                class: "global".into(),
                model: model.parse().unwrap(),
            }],
            horizon_s: horizon_days * 86400.0,
            replications: 5,
            seed: 7,
        }
    }

    fn fabric() -> Fabric {
        Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap()
    }

    #[test]
    fn horizons_beyond_a_thousand_years_or_too_many_failures_are_refused() {
        let err = plan("exp:mtbf=200d", 1e9).cables(&fabric()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "horizon: 1e9 d is longer than the longest horizon, 1000 years (365250 d)"
        );
        let err = plan("exp:mtbf=1s", 300_000.0)
            .cables(&fabric())
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("horizon: 5 replications over 300000 d expect"),
            "{err}"
        );
        assert!(plan("exp:mtbf=200d", 365.0).cables(&fabric()).is_ok());
    }

    #[test]
    fn model_grids_beyond_the_most_states_are_refused_before_allocating() {
        let p = plan("exp:mtbf=200d", 365.0);
        let err = p.model_grids(&fabric(), &[], 5_000, 5_000).unwrap_err();
        assert_eq!(
            err.to_string(),
            "model: 5000 points of 5000 samples for 1 classes are 25000000 fault \
             states, more than the most, 10000000"
        );
    }

    #[test]
    fn ranges_and_classes_are_checked_by_name() {
        let p = plan("exp:mtbf=200d", 365.0);
        let f = fabric();
        let refused = |points, samples| p.model_grids(&f, &[], points, samples).unwrap_err();
        assert_eq!(
            refused(MAX_MODEL_POINTS + 1, 1).to_string(),
            "points: must be from 2 to 10000, got 10001"
        );
        assert_eq!(
            refused(1, 1).to_string(),
            "points: must be from 2 to 10000, got 1"
        );
        assert_eq!(
            refused(2, MAX_MODEL_SAMPLES + 1).to_string(),
            "samples: must be from 1 to 10000, got 10001"
        );
        assert_eq!(
            refused(2, 0).to_string(),
            "samples: must be from 1 to 10000, got 0"
        );
        assert!(p.model_grids(&f, &[], MAX_MODEL_POINTS, 1).is_ok());
        for replications in [1, MAX_REPLICATIONS + 1] {
            let err = Plan {
                replications,
                ..plan("exp:mtbf=200d", 365.0)
            }
            .cables(&f)
            .unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "replications: must be from 2 (for an interval) to 100000, got {replications}"
                )
            );
        }
        let mut router = plan("exp:mtbf=200d", 365.0);
        router.classes[0].class = "router".into();
        assert_eq!(
            router.cables(&f).unwrap()[0].len(),
            f.num_router_channels() / 2
        );
        router.classes.push(ClassFailures {
            class: "global".into(),
            model: "exp:mtbf=100d".parse().unwrap(),
        });
        assert_eq!(
            router.cables(&f).unwrap_err().to_string(),
            "failures: classes \"router\" and \"global\" share cables; give each cable one \
             failure model"
        );
        use crate::plan::{check_seeds, MAX_SEEDS};
        assert!(check_seeds(1).is_ok() && check_seeds(MAX_SEEDS).is_ok());
        assert_eq!(
            check_seeds(MAX_SEEDS + 1).unwrap_err().to_string(),
            "seeds: must be from 1 to 1000 layouts per state, got 1001"
        );
        assert!(check_seeds(0).is_err());
    }
}
