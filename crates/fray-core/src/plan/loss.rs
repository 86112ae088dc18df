//! What a fault state costs, and how the planner reuses what it has evaluated: a cache keyed
//! by the state's fingerprint, and a model of loss against the number of down cables per
//! class fitted from sampled states.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rand::SeedableRng;
use rand_pcg::Pcg64;
use rayon::prelude::*;

use super::PlanError;
use crate::fabric::{ChannelId, Fabric};
use crate::faults::Faults;
use crate::links::mean_ci95;
use crate::seeds::case_seed;

/// What one fault state costs the machine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StateLoss {
    /// Share of machine throughput lost against the healthy machine (0 to 1; negative when
    /// the state runs faster, as a routing's random choices can make it).
    pub loss: f64,
    /// Whether some pair the workload needs cannot be routed: the planner then counts the
    /// whole machine lost (the jobs that need the pair stop) and a threshold policy calls a
    /// repair.
    pub cut_off: bool,
}

/// The loss of a fault state, as the caller computes it (a workload on an engine, a closed
/// form in tests). It must be a function of the state alone.
pub trait FaultLoss: Sync {
    /// The loss of `faults`.
    fn loss(&self, faults: &Faults) -> Result<StateLoss, PlanError>;
}

impl<F> FaultLoss for F
where
    F: Fn(&Faults) -> Result<StateLoss, PlanError> + Sync,
{
    fn loss(&self, faults: &Faults) -> Result<StateLoss, PlanError> {
        self(faults)
    }
}

/// A [`FaultLoss`] that evaluates each distinct fault state once: states are keyed by
/// [`Faults::down_fingerprint`]. Safe to share between threads; two threads meeting the same
/// new state at once may both evaluate it (the loss is a function of the state, so both
/// store the same value).
pub struct CachedLoss<'a> {
    inner: &'a dyn FaultLoss,
    cache: Mutex<HashMap<u64, StateLoss>>,
    evaluations: AtomicUsize,
    lookups: AtomicUsize,
}

impl<'a> CachedLoss<'a> {
    /// An empty cache in front of `inner`.
    pub fn new(inner: &'a dyn FaultLoss) -> Self {
        Self {
            inner,
            cache: Mutex::new(HashMap::new()),
            evaluations: AtomicUsize::new(0),
            lookups: AtomicUsize::new(0),
        }
    }

    /// The loss of `faults`, from the cache when its fingerprint was seen before.
    pub fn get(&self, faults: &Faults) -> Result<StateLoss, PlanError> {
        self.lookups.fetch_add(1, Ordering::Relaxed);
        let key = faults.down_fingerprint();
        if let Some(&hit) = self.cache.lock().expect("cache lock").get(&key) {
            return Ok(hit);
        }
        let value = self.inner.loss(faults)?;
        self.evaluations.fetch_add(1, Ordering::Relaxed);
        self.cache.lock().expect("cache lock").insert(key, value);
        Ok(value)
    }

    /// Evaluations of the inner loss so far.
    pub fn evaluations(&self) -> usize {
        self.evaluations.load(Ordering::Relaxed)
    }

    /// Lookups so far (evaluations plus hits).
    pub fn lookups(&self) -> usize {
        self.lookups.load(Ordering::Relaxed)
    }
}

/// Whether some router with endpoints cannot reach another through up router cables (a pair
/// of endpoints cut off, in the sense of fail-in-place networks); a breadth-first search
/// over the router graph.
pub fn pairs_cut_off(fabric: &Fabric, faults: &Faults) -> bool {
    let n = fabric.num_routers();
    let has_endpoints = |r: usize| !fabric.endpoints_of(r as u32).is_empty();
    let Some(start) = (0..n).find(|&r| has_endpoints(r) && !faults.router_is_down(r as u32)) else {
        return false;
    };
    let ch = fabric.channels();
    let mut seen = vec![false; n];
    seen[start] = true;
    let mut stack = vec![start];
    while let Some(r) = stack.pop() {
        for &c in fabric.out_channels(r as u32) {
            let next = fabric.vertex_router(ch.dst[c as usize]) as usize;
            if !seen[next] && !faults.channel_is_down(c) && !faults.router_is_down(next as u32) {
                seen[next] = true;
                stack.push(next);
            }
        }
    }
    (0..n).any(|r| has_endpoints(r) && !seen[r])
}

/// The mean loss of one class at one count of down cables, from sampled states.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPoint {
    /// Down cables of the class.
    pub count: usize,
    /// Sampled states evaluated that kept every pair connected (those that cut a pair off
    /// are drawn again and left out: the planner counts a cut-off state as a whole loss on
    /// its own, checking each visited state; a connected state that the workload's routing
    /// cannot serve counts as a whole loss in the mean).
    pub samples: usize,
    /// Draws that cut a pair off (redrawn).
    pub cut_off: usize,
    /// Mean loss of the connected samples (0 to 1).
    pub mean_loss: f64,
    /// Standard error of `mean_loss` (0 with one sample).
    pub std_error: f64,
}

/// Loss against the number of down cables per class: for each class, the mean loss of
/// random states with `count` of its cables down (no other class down) at a grid of counts
/// (those where the replications spend the most time, and the largest reached), linearly
/// interpolated between them and held flat past the last; the classes add up.
#[derive(Debug, Clone, PartialEq)]
pub struct LossModel {
    /// Per class (in the plan's order), the grid points in increasing count (the first is 0
    /// with no loss).
    pub classes: Vec<Vec<ModelPoint>>,
}

impl LossModel {
    /// The grid of counts for a class from the time spent at each count (`time[n]`, any
    /// unit): 0, the `points - 2` other counts where the most time is spent, and the largest
    /// count reached, so that the counts that weigh most are evaluated rather than
    /// interpolated and nothing lies past the grid.
    pub fn grid(time: &[f64], points: usize) -> Vec<usize> {
        let reached: Vec<usize> = (0..time.len()).filter(|&n| time[n] > 0.0).collect();
        let last = reached.last().copied().unwrap_or(0);
        let mut by_time: Vec<usize> = reached
            .iter()
            .copied()
            .filter(|&n| n > 0 && n < last)
            .collect();
        by_time.sort_by(|&a, &b| time[b].total_cmp(&time[a]).then(a.cmp(&b)));
        let mut g: Vec<usize> = std::iter::once(0)
            .chain(by_time.into_iter().take(points.saturating_sub(2)))
            .chain(std::iter::once(last))
            .collect();
        g.sort_unstable();
        g.dedup();
        g
    }

    /// Fits the model: for each class `c` with cables `cables[c]` and each count of
    /// `grids[c]` above 0, `samples` random states of that many down cables of the class
    /// alone that keep every pair connected, drawn from `(seed, class, count, sample)`, or
    /// every such state when there are no more than `samples` (the mean is then exact),
    /// evaluated by `loss` (all cores). The same as [`Self::jobs`], each job
    /// [evaluated](ModelJob::evaluate), and [`Self::from_values`].
    pub fn fit(
        fabric: &Fabric,
        cables: &[Vec<ChannelId>],
        grids: &[Vec<usize>],
        samples: usize,
        seed: u64,
        loss: &CachedLoss<'_>,
    ) -> Result<Self, PlanError> {
        let jobs = Self::jobs(cables, grids, samples);
        let values = jobs
            .par_iter()
            .map(|job| job.evaluate(fabric, cables, seed, loss))
            .collect::<Result<Vec<_>, PlanError>>()?;
        Ok(Self::from_values(cables, grids, samples, &jobs, &values))
    }

    /// The sampled states a fit evaluates, class by class and count by count: a count with
    /// no more distinct states than `samples` is enumerated (its mean is then exact), the
    /// others draw `samples` random states.
    pub fn jobs(cables: &[Vec<ChannelId>], grids: &[Vec<usize>], samples: usize) -> Vec<ModelJob> {
        grids
            .iter()
            .enumerate()
            .flat_map(|(c, g)| {
                g.iter().filter(|&&n| n > 0).flat_map(move |&n| {
                    let list: Vec<ModelSample> = if exhaustive(cables, samples, c, n) {
                        combinations(cables[c].len(), n)
                            .into_iter()
                            .map(ModelSample::Set)
                            .collect()
                    } else {
                        (0..samples).map(ModelSample::Random).collect()
                    };
                    list.into_iter().map(move |sample| ModelJob {
                        class: c,
                        count: n,
                        sample,
                    })
                })
            })
            .collect()
    }

    /// The model from every job of [`Self::jobs`] (same `cables`, `grids` and `samples`) and
    /// its value, in the same order.
    pub fn from_values(
        cables: &[Vec<ChannelId>],
        grids: &[Vec<usize>],
        samples: usize,
        jobs: &[ModelJob],
        values: &[ModelValue],
    ) -> Self {
        let mut classes = Vec::with_capacity(grids.len());
        for (c, g) in grids.iter().enumerate() {
            let mut points: Vec<ModelPoint> = Vec::with_capacity(g.len());
            for &n in g {
                let at: Vec<&ModelValue> = jobs
                    .iter()
                    .zip(values)
                    .filter(|(j, _)| j.class == c && j.count == n)
                    .map(|(_, v)| v)
                    .collect();
                let kept: Vec<f64> = at.iter().filter_map(|v| v.loss).collect();
                let cut_off = at.iter().map(|v| v.cut_off_draws).sum();
                let (mean, ci) = mean_ci95(&kept);
                let std_error = if exhaustive(cables, samples, c, n) {
                    0.0
                } else if kept.len() > 1 {
                    ci / crate::links::student_t975(kept.len() - 1)
                } else {
                    0.0
                };
                // No connected state found: hold the previous point's loss.
                let mean_loss = match (n, kept.is_empty(), points.last()) {
                    (0, _, _) => 0.0,
                    (_, true, Some(p)) => p.mean_loss,
                    _ => mean,
                };
                points.push(ModelPoint {
                    count: n,
                    samples: kept.len(),
                    cut_off,
                    mean_loss,
                    std_error,
                });
            }
            classes.push(points);
        }
        Self { classes }
    }

    /// The weights of class `c`'s grid points at `count` down cables: two neighbours
    /// interpolated linearly (or the last point alone past the grid), as
    /// `(point index, weight)` pairs.
    pub fn weights(&self, c: usize, count: usize) -> [(usize, f64); 2] {
        let g = &self.classes[c];
        let last = g.len() - 1;
        if count >= g[last].count {
            return [(last, 1.0), (last, 0.0)];
        }
        let i = g.partition_point(|p| p.count <= count) - 1;
        let (a, b) = (g[i].count as f64, g[i + 1].count as f64);
        let w = (count as f64 - a) / (b - a);
        [(i, 1.0 - w), (i + 1, w)]
    }

    /// The modelled loss of a state with `counts[c]` down cables of each class.
    pub fn loss(&self, counts: &[usize]) -> f64 {
        counts
            .iter()
            .enumerate()
            .map(|(c, &n)| {
                self.weights(c, n)
                    .iter()
                    .map(|&(i, w)| w * self.classes[c][i].mean_loss)
                    .sum::<f64>()
            })
            .sum()
    }

    /// Number of grid points over every class.
    pub fn num_points(&self) -> usize {
        self.classes.iter().map(Vec::len).sum()
    }
}

/// Whether a count of class `c` has no more distinct states than `samples`, so that a fit
/// enumerates them.
fn exhaustive(cables: &[Vec<ChannelId>], samples: usize, c: usize, n: usize) -> bool {
    binomial(cables[c].len(), n) <= samples as f64
}

/// One sampled state of a model point: a random draw, or a given set of cable indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelSample {
    /// The `k`-th random draw of the point.
    Random(usize),
    /// These cables of the class (indices into its cable list).
    Set(Vec<usize>),
}

/// One state a fit evaluates: `count` down cables of class `class` (its index in the
/// plan), drawn as `sample` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelJob {
    /// The class, as an index into the plan's classes.
    pub class: usize,
    /// Down cables of the class.
    pub count: usize,
    /// Which state.
    pub sample: ModelSample,
}

/// What one [`ModelJob`] gave.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelValue {
    /// Draws that cut a pair off before a connected one was found (redrawn).
    pub cut_off_draws: usize,
    /// The loss of the connected state (0 to 1; a state the workload cannot route counts as
    /// 1), or `None` when every draw cut a pair off.
    pub loss: Option<f64>,
}

impl ModelJob {
    /// Evaluates this job with `loss`: a random sample draws, from `(seed, class, count,
    /// sample, draw)`, until its state keeps every pair connected (at most 20 draws; the
    /// cut-off draws are counted, not evaluated).
    pub fn evaluate(
        &self,
        fabric: &Fabric,
        cables: &[Vec<ChannelId>],
        seed: u64,
        loss: &CachedLoss<'_>,
    ) -> Result<ModelValue, PlanError> {
        const DRAWS: u64 = 20;
        let (c, n) = (self.class, self.count);
        let tries: Vec<Vec<usize>> = match &self.sample {
            ModelSample::Set(set) => vec![set.clone()],
            ModelSample::Random(s) => {
                let seed = case_seed(case_seed(case_seed(seed, c as u64), n as u64), *s as u64);
                (0..DRAWS)
                    .map(|draw| {
                        let mut rng = Pcg64::seed_from_u64(case_seed(seed, draw));
                        rand::seq::index::sample(&mut rng, cables[c].len(), n).into_vec()
                    })
                    .collect()
            }
        };
        for (draw, set) in tries.iter().enumerate() {
            let mut faults = Faults::none(fabric);
            for &i in set {
                faults.fail_cable(fabric, cables[c][i])?;
            }
            if !pairs_cut_off(fabric, &faults) {
                // A connected state the workload still cannot route (its routing finds no
                // path) loses the whole machine, as it does in the replications.
                let state = loss.get(&faults)?;
                return Ok(ModelValue {
                    cut_off_draws: draw,
                    loss: Some(if state.cut_off { 1.0 } else { state.loss }),
                });
            }
        }
        Ok(ModelValue {
            cut_off_draws: tries.len(),
            loss: None,
        })
    }
}

/// `n` choose `k` as a float (it only decides whether to enumerate).
fn binomial(n: usize, k: usize) -> f64 {
    (0..k.min(n - k.min(n))).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// Every `k`-subset of `0..n`, in lexicographic order.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut set: Vec<usize> = (0..k).collect();
    loop {
        out.push(set.clone());
        let Some(i) = (0..k).rev().find(|&i| set[i] < n - k + i) else {
            return out;
        };
        set[i] += 1;
        for j in i + 1..k {
            set[j] = set[j - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faults::CableSelector;

    #[test]
    fn combinations_are_every_subset_once() {
        let all = combinations(5, 2);
        assert_eq!(all.len(), 10);
        assert_eq!(binomial(5, 2), 10.0);
        assert_eq!(binomial(10, 0), 1.0);
        assert_eq!(all[0], vec![0, 1]);
        assert_eq!(all[9], vec![3, 4]);
        assert_eq!(combinations(3, 3), vec![vec![0, 1, 2]]);
    }

    #[test]
    fn grids_take_the_counts_that_weigh_most_and_the_largest() {
        assert_eq!(LossModel::grid(&[5.0, 3.0, 1.0, 0.5], 8), vec![0, 1, 2, 3]);
        let time = [50.0, 30.0, 10.0, 4.0, 2.0, 1.0, 0.0, 0.5, 0.0];
        assert_eq!(LossModel::grid(&time, 4), vec![0, 1, 2, 7]);
        assert_eq!(LossModel::grid(&[1.0, 0.0], 4), vec![0]);
    }

    #[test]
    fn a_linear_loss_is_fitted_exactly_and_interpolated_exactly() {
        let f = Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap();
        let cables = vec![CableSelector::Class("global".into()).cables(&f).unwrap()];
        let per_cable = |faults: &Faults| {
            Ok(StateLoss {
                loss: 0.01 * faults.num_channels_down() as f64 / 2.0,
                cut_off: false,
            })
        };
        let cached = CachedLoss::new(&per_cable);
        let model = LossModel::fit(&f, &cables, &[vec![0, 4, 8, 12]], 3, 1, &cached).unwrap();
        for n in 0..=12 {
            assert!((model.loss(&[n]) - 0.01 * n as f64).abs() < 1e-12, "{n}");
        }
        assert_eq!(model.classes[0][1].std_error, 0.0);
        assert_eq!(model.loss(&[20]), model.loss(&[12])); // flat past the grid
    }

    #[test]
    fn the_cache_evaluates_each_state_once() {
        let f = Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap();
        let count = AtomicUsize::new(0);
        let loss = |faults: &Faults| {
            count.fetch_add(1, Ordering::Relaxed);
            Ok(StateLoss {
                loss: faults.num_channels_down() as f64,
                cut_off: false,
            })
        };
        let cached = CachedLoss::new(&loss);
        let mut a = Faults::none(&f);
        a.fail_cable(&f, 0).unwrap();
        a.fail_cable(&f, 4).unwrap();
        let mut b = Faults::none(&f);
        b.fail_cable(&f, 4).unwrap();
        b.fail_cable(&f, 0).unwrap();
        assert_eq!(cached.get(&a).unwrap(), cached.get(&b).unwrap());
        assert_eq!((cached.evaluations(), cached.lookups()), (1, 2));
        assert_eq!(count.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn cutting_every_cable_of_a_router_cuts_its_endpoints_off() {
        let f = Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap();
        let mut faults = Faults::none(&f);
        assert!(!pairs_cut_off(&f, &faults));
        let out: Vec<ChannelId> = f.out_channels(5).to_vec();
        for &c in &out[1..] {
            faults.fail_cable(&f, c).unwrap();
        }
        assert!(!pairs_cut_off(&f, &faults));
        faults.fail_cable(&f, out[0]).unwrap();
        assert!(pairs_cut_off(&f, &faults));
    }
}
