//! Exhaustive and sampled failure studies, and the curve they produce.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

use super::{
    CollisionTracker, Method, Placement, SpareAllocation, SparesError, Substituter, Substitution,
};
use crate::fabric::{Cartesian, Fabric, FabricSpec, LinkParameters};
use crate::routing::DimensionOrder;
use crate::seeds::case_seed;
use crate::workload::{Stencil, StencilKind};

/// Fewest cases a thread takes at once among those that go on alone from a shared state.
const ALONE_SPLIT: usize = 16;

/// Most sampled cases [`Study::run_samples`] holds in memory at once: a longer range runs in
/// batches of this many (each case's draw is held until its sequence ends).
const SAMPLE_BATCH: u64 = 1 << 18;

/// Largest number of failure sets an exhaustive study accepts (beyond it, sample).
pub const MAX_EXHAUSTIVE_CASES: u128 = 1 << 40;

/// What a study simulates.
#[derive(Debug, Clone)]
pub struct StudyConfig {
    /// The mesh or torus.
    pub shape: Cartesian,
    /// Where the spares are.
    pub alloc: SpareAllocation,
    /// How failed nodes are substituted.
    pub method: Method,
    /// The communication whose collisions are counted.
    pub stencil: Stencil,
    /// Largest number of failures per case (at most the number of spares, and of ranks).
    pub max_failures: usize,
}

/// The mesh or torus of a spare-node study, from its spec (one endpoint per router).
pub fn study_shape(fabric: &str) -> Result<Cartesian, SparesError> {
    match fabric.parse::<FabricSpec>() {
        Ok(FabricSpec::Cartesian {
            shape,
            endpoints_per_router: 1,
        }) => Ok(shape),
        Ok(_) => Err(SparesError::Parameter {
            field: "fabric",
            reason: format!(
                "{fabric:?}: the spare-node study needs a mesh or torus with one endpoint per router"
            ),
        }),
        Err(e) => Err(SparesError::Parameter {
            field: "fabric",
            reason: e.to_string(),
        }),
    }
}

impl StudyConfig {
    /// Builds a configuration from the strings a person types: a fabric spec (`torus:12x12x12`),
    /// an allocation (`3D(2,1)`), a method (`hybrid(all)`), optionally a stencil (`5P`, `9P`,
    /// `7P`, `27P`; default the face stencil of the fabric's dimension) and whether it is
    /// periodic (default: periodic on a torus, not on a mesh), and the largest number of
    /// failures (default: the number of spares, or of ranks where the job has fewer).
    pub fn from_specs(
        fabric: &str,
        alloc: &str,
        method: &str,
        stencil: Option<&str>,
        periodic: Option<bool>,
        max_failures: Option<usize>,
    ) -> Result<Self, SparesError> {
        let shape = study_shape(fabric)?;
        let alloc: SpareAllocation = alloc.parse()?;
        alloc.check_fits(&shape)?;
        let method = Method::parse(method, shape.num_dims())?;
        let kind = match stencil {
            Some(s) => s
                .parse::<StencilKind>()
                .map_err(|e| SparesError::Parameter {
                    field: "stencil",
                    reason: e.to_string(),
                })?,
            None => {
                StencilKind::faces_for(shape.num_dims()).ok_or_else(|| SparesError::Parameter {
                    field: "stencil",
                    reason: format!(
                        "no default stencil for a {}-dimensional fabric; name one",
                        shape.num_dims()
                    ),
                })?
            }
        };
        let periodic = periodic.unwrap_or_else(|| shape.wraps().iter().all(|&w| w));
        // Every spare can take a failure, and every rank can fail once: the fewer of the two.
        let ranks: usize = alloc.compute_extents(&shape).iter().product();
        let max_failures = max_failures.unwrap_or_else(|| alloc.num_spares(&shape).min(ranks));
        Ok(Self {
            shape,
            alloc,
            method,
            stencil: Stencil { kind, periodic },
            max_failures,
        })
    }
}

/// One row of a curve: every case with `failures` failed nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurveRow {
    /// Number of failed nodes.
    pub failures: usize,
    /// Failure sets (exhaustive) or sequences (sampled) counted in this row.
    pub cases: u64,
    /// Cases the method could not recover (at this or an earlier failure).
    pub unrecoverable: u64,
    /// Fewest collisions over the recovered cases (`u32::MAX` when none).
    pub best: u32,
    /// Most collisions over the recovered cases.
    pub worst: u32,
    /// Sum of collisions over the recovered cases (for the mean).
    pub sum: u64,
    /// `last_degree[k]`: recovered cases whose last substitution used degree `k`.
    pub last_degree: Vec<u64>,
    /// `all_degrees[k]`: substitutions of degree `k` made in failures 1..=`failures` over the
    /// recovered cases (the paper's accumulated selection rate).
    pub all_degrees: Vec<u64>,
}

impl CurveRow {
    /// A row for `failures` failed nodes with no case counted yet (`best` at `u32::MAX`),
    /// counting substitutions of `degrees` degrees (0 to the number of dimensions).
    pub fn new(failures: usize, degrees: usize) -> Self {
        Self {
            failures,
            cases: 0,
            unrecoverable: 0,
            best: u32::MAX,
            worst: 0,
            sum: 0,
            last_degree: vec![0; degrees],
            all_degrees: vec![0; degrees],
        }
    }

    /// Cases recovered.
    pub fn recovered(&self) -> u64 {
        self.cases - self.unrecoverable
    }

    /// `value` when some case was recovered, else `None` (nothing to summarise).
    fn over_recovered<T>(&self, value: impl FnOnce() -> T) -> Option<T> {
        (self.recovered() > 0).then(value)
    }

    /// Fewest collisions over the recovered cases.
    pub fn best_collisions(&self) -> Option<u32> {
        self.over_recovered(|| self.best)
    }

    /// Most collisions over the recovered cases.
    pub fn worst_collisions(&self) -> Option<u32> {
        self.over_recovered(|| self.worst)
    }

    /// Mean collisions over the recovered cases.
    pub fn mean_collisions(&self) -> Option<f64> {
        self.over_recovered(|| self.sum as f64 / self.recovered() as f64)
    }

    /// Share of the recovered cases whose last substitution used degree `k` (the paper's
    /// selection rate, Figure 14); `None` for the fault-free row.
    pub fn rate(&self, k: usize) -> Option<f64> {
        let made = self.failures > 0 && self.recovered() > 0;
        made.then(|| self.last_degree[k] as f64 / self.recovered() as f64)
    }

    /// Share of degree `k` among all substitutions of the recovered cases (the paper's
    /// accumulated selection rate, Figure 15); `None` for the fault-free row.
    pub fn cumulative_rate(&self, k: usize) -> Option<f64> {
        let made = self.failures > 0 && self.recovered() > 0;
        made.then(|| self.all_degrees[k] as f64 / self.all_degrees.iter().sum::<u64>() as f64)
    }

    fn record(&mut self, collisions: u32, last: usize, counts: &[u64]) {
        self.cases += 1;
        self.best = self.best.min(collisions);
        self.worst = self.worst.max(collisions);
        self.sum += u64::from(collisions);
        self.last_degree[last] += 1;
        for (a, c) in self.all_degrees.iter_mut().zip(counts) {
            *a += c;
        }
    }

    fn merge(&mut self, other: &Self) {
        self.cases += other.cases;
        self.unrecoverable += other.unrecoverable;
        self.best = self.best.min(other.best);
        self.worst = self.worst.max(other.worst);
        self.sum += other.sum;
        for (a, b) in self.last_degree.iter_mut().zip(&other.last_degree) {
            *a += b;
        }
        for (a, b) in self.all_degrees.iter_mut().zip(&other.all_degrees) {
            *a += b;
        }
    }
}

impl fmt::Display for CurveRow {
    /// Every field on one line, space-separated, in declaration order, the degree counts as
    /// lists (`2 200 0 1 1 200 [0, 0, 0, 200] [0, 0, 0, 400]`): the form of the recorded
    /// curves.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} {} {} {} {:?} {:?}",
            self.failures,
            self.cases,
            self.unrecoverable,
            self.best,
            self.worst,
            self.sum,
            self.last_degree,
            self.all_degrees
        )
    }
}

/// Best / mean / worst collisions and method shares, one row per number of failures
/// (row 0 is the fault-free baseline).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Curve {
    /// Rows for 0, 1, ..., `max_failures` failures.
    pub rows: Vec<CurveRow>,
}

impl Curve {
    fn empty(max_failures: usize, degrees: usize) -> Self {
        Self {
            rows: (0..=max_failures)
                .map(|f| CurveRow::new(f, degrees))
                .collect(),
        }
    }

    fn merge(mut self, other: Self) -> Self {
        for (a, b) in self.rows.iter_mut().zip(&other.rows) {
            a.merge(b);
        }
        self
    }

    fn unrecoverable_from(&mut self, failures: usize, mut count: impl FnMut(usize) -> u64) {
        for row in &mut self.rows[failures..] {
            let n = count(row.failures);
            row.cases += n;
            row.unrecoverable += n;
        }
    }
}

/// The mutable state of one case: placement, collision counts and method counters.
#[derive(Clone)]
struct CaseState {
    placement: Placement,
    tracker: CollisionTracker,
    substituter: Substituter,
    degree_counts: Vec<u64>,
}

impl CaseState {
    /// Makes this state equal to `other` (a clone of it or of the same study's state),
    /// reusing this one's memory.
    fn reset_to(&mut self, other: &Self) {
        self.placement.reset_to(&other.placement);
        self.tracker.reset_to(&other.tracker);
        self.substituter.clone_from(&other.substituter);
        self.degree_counts.clone_from(&other.degree_counts);
    }

    fn fail(&mut self, rank: u32) -> Option<Substitution> {
        let node = self.placement.fail_rank(rank);
        let Some(sub) = self.substituter.substitute(&self.placement, rank) else {
            self.placement.repair(node, rank);
            return None;
        };
        self.placement.apply(&sub.moves);
        self.tracker.after_apply(&self.placement, &sub.moves);
        self.degree_counts[sub.degree] += 1;
        Some(sub)
    }

    fn undo(&mut self, rank: u32, sub: &Substitution) {
        let node = sub
            .moves
            .iter()
            .find(|m| m.rank == rank)
            .expect("the failed rank moves")
            .from;
        self.placement.revert(&sub.moves);
        self.tracker.after_revert(&self.placement, &sub.moves);
        self.placement.repair(node, rank);
        self.substituter.forget(sub);
        self.degree_counts[sub.degree] -= 1;
    }
}

/// A sampled case between two failures: its generator, where it stands in its draw of
/// ranks, and the nodes its failures left failed.
#[derive(Clone)]
struct Draw {
    rng: Pcg64Mcg,
    /// `(position, rank)` for every entry of the case's order of ranks that its draws have
    /// swapped; the order is the identity elsewhere.
    swapped: Vec<(u32, u32)>,
    /// The failed nodes (free in the shared state the case waits on).
    failed: Vec<u32>,
}

impl Draw {
    fn new(seed: u64, case: u64) -> Self {
        Self {
            rng: Pcg64Mcg::seed_from_u64(case_seed(seed, case)),
            swapped: Vec::new(),
            failed: Vec::new(),
        }
    }

    fn order_at(&self, position: u32) -> u32 {
        self.swapped
            .iter()
            .find(|s| s.0 == position)
            .map_or(position, |s| s.1)
    }

    fn set(&mut self, position: u32, rank: u32) {
        match self.swapped.iter_mut().find(|s| s.0 == position) {
            Some(s) => s.1 = rank,
            None => self.swapped.push((position, rank)),
        }
    }

    /// The rank of failure `f` (from 1), drawn as the sampling loop draws it: a uniform
    /// position among the ranks not failed yet, swapped to position `f - 1`.
    fn next_rank(&mut self, f: usize, ranks: u32) -> u32 {
        let pick = self.rng.random_range(f - 1..ranks as usize) as u32;
        let here = f as u32 - 1;
        let (a, b) = (self.order_at(here), self.order_at(pick));
        self.set(here, b);
        self.set(pick, a);
        b
    }

    /// Writes the case's order of ranks into `order`.
    fn order(&self, order: &mut Vec<u32>, ranks: u32) {
        order.clear();
        order.extend(0..ranks);
        for &(p, r) in &self.swapped {
            order[p as usize] = r;
        }
    }
}

/// The cases whose next failure is the same full-degree slide: the slide (as one of them
/// found it) and the method's counters after it.
struct SharedSlide {
    sub: Substitution,
    substituter: Substituter,
    draws: Vec<Draw>,
}

/// A spare-node study: a prepared job, and the curve accumulated over the cases run so far.
pub struct Study {
    shape: Cartesian,
    initial: CaseState,
    max_failures: usize,
    num_spares: usize,
    curve: Curve,
}

fn binomial(n: u64, k: u64) -> u128 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    (0..k).fold(1u128, |acc, i| {
        acc.saturating_mul(u128::from(n - i)) / u128::from(i + 1)
    })
}

impl Study {
    /// Prepares a study: checks the parameters, places the job and counts the fault-free routes.
    pub fn new(config: StudyConfig) -> Result<Self, SparesError> {
        let StudyConfig {
            shape,
            alloc,
            method,
            stencil,
            max_failures,
        } = config;
        alloc.check_fits(&shape)?;
        let num_spares = alloc.num_spares(&shape);
        if max_failures == 0 {
            return Err(SparesError::Parameter {
                field: "max_failures",
                reason: "must be at least 1".into(),
            });
        }
        if max_failures > num_spares {
            return Err(SparesError::Parameter {
                field: "max_failures",
                reason: format!(
                    "{max_failures} failures but {alloc} leaves only {num_spares} spare nodes"
                ),
            });
        }
        let ranks: usize = alloc.compute_extents(&shape).iter().product();
        if max_failures > ranks {
            return Err(SparesError::Parameter {
                field: "max_failures",
                reason: format!(
                    "{max_failures} failures but the job has only {ranks} ranks (each fails once)"
                ),
            });
        }
        let fabric = Fabric::cartesian(shape.clone(), LinkParameters::default()).map_err(|e| {
            SparesError::Parameter {
                field: "fabric",
                reason: e.to_string(),
            }
        })?;
        let routing = DimensionOrder::new(&fabric).map_err(|e| SparesError::Parameter {
            field: "fabric",
            reason: e.to_string(),
        })?;
        let placement = Placement::initial(&shape, &alloc);
        let pairs =
            stencil
                .pairs(&alloc.compute_extents(&shape))
                .map_err(|e| SparesError::Parameter {
                    field: "stencil",
                    reason: e.to_string(),
                })?;
        // Dimension-order routes stay on router channels: the host channels need no counter.
        let tracker =
            CollisionTracker::new(&routing, fabric.num_router_channels(), pairs, &placement);
        let degrees = shape.num_dims() + 1;
        let mut curve = Curve::empty(max_failures, degrees);
        curve.rows[0].best = tracker.max_collisions();
        curve.rows[0].worst = tracker.max_collisions();
        let initial = CaseState {
            placement,
            tracker,
            substituter: Substituter::new(shape.clone(), alloc, method),
            degree_counts: vec![0; degrees],
        };
        Ok(Self {
            shape,
            initial,
            max_failures,
            num_spares,
            curve,
        })
    }

    /// Number of ranks of the job (nodes of the compute box).
    pub fn num_ranks(&self) -> usize {
        self.initial.placement.num_ranks()
    }

    /// Number of spare nodes.
    pub fn num_spares(&self) -> usize {
        self.num_spares
    }

    /// Largest number of failures per case.
    pub fn max_failures(&self) -> usize {
        self.max_failures
    }

    /// Collisions of the fault-free job (1 for a face stencil on its own grid).
    pub fn baseline_collisions(&self) -> u32 {
        self.initial.tracker.max_collisions()
    }

    /// The curve over every case run so far.
    pub fn curve(&self) -> &Curve {
        &self.curve
    }

    /// Runs sampled cases `cases` (seeded from `(seed, case)`): each fails distinct ranks in
    /// a uniformly random order, one at a time, up to `max_failures`, and records every step.
    /// Uses every core; the result does not depend on how the range is split.
    ///
    /// Cases whose first failures are all full-degree slides (qD sliding on a q-dimensional
    /// grid) share them: such a slide moves every rank of a hyperplane's side, whichever node
    /// of the hyperplane failed, so the placement and the counts after it depend only on the
    /// slide's dimension, direction and position. The cases are grouped by those, each
    /// group's slide is counted once, and each case then goes on alone from the shared state
    /// with its own failed nodes marked.
    ///
    /// The cases run [`SAMPLE_BATCH`] at a time, so that memory does not grow with the range.
    /// The larger the range of one call, the more cases share their slides: a range in one
    /// call is cheaper than the same range in parts.
    ///
    /// A stop requested while it runs ([`crate::interrupt`]) ends it with
    /// [`SparesError::Interrupted`], and the curve is then as it was before the call.
    pub fn run_samples(&mut self, seed: u64, cases: Range<u64>) -> Result<(), SparesError> {
        self.run_samples_counted(seed, cases, &AtomicU64::new(0))
    }

    /// [`Study::run_samples`], adding to `finished` each case as it ends (for a progress
    /// display read from another thread).
    pub fn run_samples_counted(
        &mut self,
        seed: u64,
        cases: Range<u64>,
        finished: &AtomicU64,
    ) -> Result<(), SparesError> {
        let mut curve = self.curve.clone();
        let mut start = cases.start;
        while start < cases.end {
            let end = cases.end.min(start.saturating_add(SAMPLE_BATCH));
            let draws = (start..end).map(|case| Draw::new(seed, case)).collect();
            let part = self.run_from(&self.initial, draws, 0, finished);
            // A stopped run skips the cases after the request: its part is incomplete.
            crate::interrupt::check().map_err(|_| SparesError::Interrupted)?;
            curve = merged(curve, part, end - start);
            start = end;
        }
        self.curve = curve;
        Ok(())
    }

    /// The curve of `draws`, each of which has made `done` failures, all full-degree slides
    /// leading to `shared` (where their failed nodes are free); each case adds 1 to
    /// `finished` as it ends. Once a stop is requested, the cases not yet started are
    /// skipped.
    fn run_from(
        &self,
        shared: &CaseState,
        draws: Vec<Draw>,
        done: usize,
        finished: &AtomicU64,
    ) -> Curve {
        let max_f = self.max_failures;
        let degrees = shared.degree_counts.len();
        let full = degrees - 1;
        let ranks = self.num_ranks() as u32;
        if done == max_f {
            finished.fetch_add(draws.len() as u64, Ordering::Relaxed);
            return Curve::empty(max_f, degrees);
        }
        // Which draws' next failure is a full-degree slide, and which one.
        // Finding a case's next substitution needs the placement, not the counts.
        let mut probe = shared.placement.clone();
        let mut groups: BTreeMap<(usize, usize, usize), SharedSlide> = BTreeMap::new();
        let mut alone = Vec::new();
        for draw in draws {
            if crate::interrupt::requested() {
                return Curve::empty(max_f, degrees);
            }
            let mut next = draw.clone();
            let rank = next.next_rank(done + 1, ranks);
            for &n in &draw.failed {
                probe.fail_free_node(n);
            }
            let node = probe.fail_rank(rank);
            let mut substituter = shared.substituter.clone();
            let found = substituter.substitute(&probe, rank);
            probe.repair(node, rank);
            for &n in &draw.failed {
                probe.unfail_free_node(n);
            }
            match found {
                Some(sub) if sub.degree == full => {
                    let mv = sub.moves.iter().find(|m| m.rank == rank).expect("it moves");
                    let along = |n: u32| self.shape.coord(n, sub.axis);
                    let key = (sub.axis, along(mv.from), along(mv.to));
                    next.failed.push(node);
                    groups
                        .entry(key)
                        .or_insert_with(|| SharedSlide {
                            sub,
                            substituter,
                            draws: Vec::new(),
                        })
                        .draws
                        .push(next);
                }
                _ => alone.push(draw),
            }
        }
        drop(probe);
        let shared_part = groups
            .into_values()
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|group| {
                let mut state = shared.clone();
                state.placement.apply(&group.sub.moves);
                state
                    .tracker
                    .after_apply(&state.placement, &group.sub.moves);
                state.substituter = group.substituter;
                state.degree_counts[full] += 1;
                let cases = group.draws.len();
                let mut curve = self.run_from(&state, group.draws, done + 1, finished);
                for _ in 0..cases {
                    curve.rows[done + 1].record(
                        state.tracker.max_collisions(),
                        full,
                        &state.degree_counts,
                    );
                }
                curve
            })
            .reduce_with(Curve::merge);
        let alone_part = alone
            .into_par_iter()
            // A split costs a copy of the shared state and an empty curve: not worth it for
            // a few cases (the groups run in parallel already).
            .with_min_len(ALONE_SPLIT)
            .fold(
                // Each split keeps one state and resets it per case.
                || (Curve::empty(max_f, degrees), shared.clone(), Vec::new()),
                |(mut curve, mut state, mut order), mut draw| {
                    if crate::interrupt::requested() {
                        return (curve, state, order);
                    }
                    state.reset_to(shared);
                    for &n in &draw.failed {
                        state.placement.fail_free_node(n);
                    }
                    draw.order(&mut order, ranks);
                    for f in done + 1..=max_f {
                        let pick = draw.rng.random_range(f - 1..ranks as usize);
                        order.swap(f - 1, pick);
                        match state.fail(order[f - 1]) {
                            Some(sub) => curve.rows[f].record(
                                state.tracker.max_collisions(),
                                sub.degree,
                                &state.degree_counts,
                            ),
                            None => {
                                curve.unrecoverable_from(f, |_| 1);
                                break;
                            }
                        }
                    }
                    finished.fetch_add(1, Ordering::Relaxed);
                    (curve, state, order)
                },
            )
            .map(|(curve, _, _)| curve)
            .reduce_with(Curve::merge);
        // Parts are merged without empty curves to start from (each is 2 vectors a row).
        match (shared_part, alone_part) {
            (Some(a), Some(b)) => a.merge(b),
            (Some(part), None) | (None, Some(part)) => part,
            (None, None) => Curve::empty(max_f, degrees),
        }
    }

    /// Number of failure sets of sizes 1..=`max_failures` whose lowest rank is in `roots`.
    ///
    /// `roots` must lie within the job's ranks (`start <= end <= num_ranks`).
    pub fn exhaustive_cases(&self, roots: Range<u32>) -> Result<u128, SparesError> {
        self.check_roots(&roots)?;
        let n = self.num_ranks() as u64;
        Ok(roots
            .map(|r| {
                (0..self.max_failures as u64)
                    .map(|k| binomial(n - 1 - u64::from(r), k))
                    .sum::<u128>()
            })
            .sum())
    }

    /// Whether `roots` is a range of the job's ranks, else an error naming it.
    fn check_roots(&self, roots: &Range<u32>) -> Result<(), SparesError> {
        let n = self.num_ranks();
        if roots.start > roots.end || roots.end as usize > n {
            return Err(SparesError::Parameter {
                field: "roots",
                reason: format!(
                    "lowest failed ranks {}..{} are not a range of the job's {n} ranks (0..{n})",
                    roots.start, roots.end
                ),
            });
        }
        Ok(())
    }

    /// Runs every failure set (of sizes 1..=`max_failures`) whose lowest rank is in `roots`;
    /// a set's failures happen in increasing rank order. Uses every core.
    /// `roots` must lie within the job's ranks.
    ///
    /// A stop requested while it runs ([`crate::interrupt`]) ends it with
    /// [`SparesError::Interrupted`], and the curve is then as it was before the call.
    pub fn run_exhaustive(&mut self, roots: Range<u32>) -> Result<(), SparesError> {
        self.run_exhaustive_counted(roots, &AtomicU64::new(0))
    }

    /// [`Study::run_exhaustive`], adding to `finished` the failure sets as they are counted
    /// (for a progress display read from another thread; they sum to
    /// [`Study::exhaustive_cases`] of `roots`).
    pub fn run_exhaustive_counted(
        &mut self,
        roots: Range<u32>,
        finished: &AtomicU64,
    ) -> Result<(), SparesError> {
        self.check_roots(&roots)?;
        let total = self.exhaustive_cases(0..self.num_ranks() as u32)?;
        if total > MAX_EXHAUSTIVE_CASES {
            return Err(SparesError::Parameter {
                field: "exhaustive",
                reason: format!(
                    "{total} failure sets is too many to enumerate (limit {MAX_EXHAUSTIVE_CASES}); sample instead"
                ),
            });
        }
        let (initial, max_f) = (&self.initial, self.max_failures);
        let ranks = self.num_ranks() as u32;
        let degrees = initial.degree_counts.len();
        let part = roots
            .into_par_iter()
            .map(|root| {
                let mut curve = Curve::empty(max_f, degrees);
                let mut state = initial.clone();
                let mut walk = Walk {
                    curve: &mut curve,
                    ranks,
                    max_f,
                    finished,
                    unreported: 0,
                };
                walk.visit(&mut state, root, 1);
                walk.report();
                curve
            })
            .reduce(|| Curve::empty(max_f, degrees), Curve::merge);
        // A stopped walk skips the sets after the request: its part is incomplete.
        crate::interrupt::check().map_err(|_| SparesError::Interrupted)?;
        let first = u64::from(self.curve.rows[0].cases == 0);
        let curve = std::mem::replace(&mut self.curve, Curve { rows: Vec::new() });
        self.curve = merged(curve, part, first);
        Ok(())
    }

    /// Fails the given ranks in order from the fault-free state; for each step, the degree
    /// used and the collisions after it, or `None` from the first step the method cannot
    /// recover (the rest are not run).
    pub fn replay(&self, ranks: &[u32]) -> Result<Vec<Option<(usize, u32)>>, SparesError> {
        self.check_failure_order(ranks)?;
        let mut state = self.initial.clone();
        let mut out = Vec::with_capacity(ranks.len());
        for &r in ranks {
            match state.fail(r) {
                Some(sub) => out.push(Some((sub.degree, state.tracker.max_collisions()))),
                None => {
                    out.push(None);
                    break;
                }
            }
        }
        Ok(out)
    }

    /// The placement after failing `ranks` in order (or up to the first unrecoverable one);
    /// as for [`Self::replay`], each rank must be one of the job's, failed once.
    pub fn placement_after(&self, ranks: &[u32]) -> Result<Placement, SparesError> {
        self.check_failure_order(ranks)?;
        let mut state = self.initial.clone();
        for &r in ranks {
            if state.fail(r).is_none() {
                break;
            }
        }
        Ok(state.placement)
    }

    /// Whether `ranks` is an order in which ranks fail: each a rank of the job, none twice.
    fn check_failure_order(&self, ranks: &[u32]) -> Result<(), SparesError> {
        let mut failed = vec![false; self.num_ranks()];
        for &r in ranks {
            if r as usize >= failed.len() || failed[r as usize] {
                return Err(SparesError::Parameter {
                    field: "ranks",
                    reason: format!(
                        "rank {r} is out of range or failed twice (the job has {} ranks)",
                        failed.len()
                    ),
                });
            }
            failed[r as usize] = true;
        }
        Ok(())
    }
}

/// A depth-first walk over the failure sets of one lowest rank, adding each to `curve`.
struct Walk<'a> {
    curve: &'a mut Curve,
    /// Ranks of the job.
    ranks: u32,
    /// Largest failure set.
    max_f: usize,
    /// Sets counted so far by every walk of the run.
    finished: &'a AtomicU64,
    /// Sets this walk has counted and not yet added to `finished`.
    unreported: u64,
}

impl Walk<'_> {
    /// Sets a walk counts before it adds them to `finished` (one shared add per a few
    /// milliseconds of work, not one per set).
    const REPORT_EVERY: u64 = 1024;

    /// Counts the set extending the current one with `rank` (the `depth`-th failure), then
    /// every set extending that with higher ranks. Once a stop is requested it counts
    /// nothing more.
    fn visit(&mut self, state: &mut CaseState, rank: u32, depth: usize) {
        if crate::interrupt::requested() {
            return;
        }
        match state.fail(rank) {
            None => {
                // This set and every extension of it are unrecoverable.
                let rest = u64::from(self.ranks - 1 - rank);
                let mut sets = 0;
                self.curve.unrecoverable_from(depth, |f| {
                    let n = binomial(rest, (f - depth) as u64) as u64;
                    sets += n;
                    n
                });
                self.counted(sets);
            }
            Some(sub) => {
                self.curve.rows[depth].record(
                    state.tracker.max_collisions(),
                    sub.degree,
                    &state.degree_counts,
                );
                self.counted(1);
                if depth < self.max_f {
                    for next in rank + 1..self.ranks {
                        self.visit(state, next, depth + 1);
                    }
                }
                state.undo(rank, &sub);
            }
        }
    }

    fn counted(&mut self, sets: u64) {
        self.unreported += sets;
        if self.unreported >= Self::REPORT_EVERY {
            self.report();
        }
    }

    /// Adds the sets not yet reported to `finished`.
    fn report(&mut self) {
        self.finished.fetch_add(self.unreported, Ordering::Relaxed);
        self.unreported = 0;
    }
}

/// `curve` with `part` merged in; row 0 (no failure) counts `baseline_cases` more cases.
fn merged(curve: Curve, part: Curve, baseline_cases: u64) -> Curve {
    let mut curve = curve.merge(part);
    let row0 = &mut curve.rows[0];
    row0.cases += baseline_cases;
    row0.sum = row0.cases * u64::from(row0.best);
    curve
}
