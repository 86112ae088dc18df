//! Dragonfly routings: [`DragonflyMinimal`], [`DragonflyValiant`] and [`DragonflyUgal`].
//!
//! All three walk the flat tables of [`Dragonfly`] (the local channels between two routers of
//! a group, the global channels between two groups) and share `DragonflyPaths`: the tables
//! plus, per fault state, the *live* global channels of every ordered group pair (channel up,
//! both its routers up) and their counts. That list is derived from the `Faults` a request
//! carries, the first time a routing sees its [`Faults::down_fingerprint`], and cached inside the
//! routing (the last few states, so that a routing shared between threads that route under a
//! few fault states at once does not rebuild on every call); building it costs one pass over
//! the global channels. A routing object is therefore built once per fabric and may be asked
//! about any fault state. Local channels are checked against the faults on every route.
//!
//! A *leg* from a router to another group is: a local hop to a router that holds a live
//! global channel to that group (none when the router holds it itself), the global hop, and,
//! on the last leg, a local hop to the destination (none when the global channel lands on
//! it). Among the live global channels whose local hops are up, a leg takes one uniformly at
//! random, drawn from the message's entropy (`pick_uniform`); UGAL with `links=adaptive` takes
//! instead the one whose first hop is least congested (`Walk::lightest_link`).
//!
//! A "local hop" is one cable on a generated dragonfly, whose groups are all-to-all. On a Cray
//! Aries group (rows of routers, all-to-all along rows and along columns) two routers in
//! neither the same row nor the same column are two hops apart, through the router in the
//! first's row and the second's column or the other way round, whichever has its hops up
//! (drawn by the entropy when both do); parallel cables between two routers are drawn among
//! the live ones the same way. Every routing reads "local hop" this way, so paths can be up
//! to two hops longer per group on Aries.

mod minimal;
mod ugal;
mod valiant;

pub use minimal::DragonflyMinimal;
pub use ugal::{DragonflyUgal, GlobalLinks, UgalOptions, UgalRule};
pub use valiant::DragonflyValiant;

use std::sync::{Arc, PoisonError, RwLock};

use super::{Congestion, Entropy, RouteRequest, RoutingError};
use crate::fabric::{ChannelId, Dragonfly, Fabric, RouterId};
use crate::faults::Faults;

/// Most fault states a routing keeps live global channels for at once.
const CACHED_FAULT_STATES: usize = 4;

/// The live global channels of one fault state: channel up and both its routers up.
#[derive(Debug)]
struct LiveGlobals {
    /// The [`Faults::down_fingerprint`] they were derived from.
    down_fingerprint: u64,
    /// `channels[pair * L .. pair * L + out_count[i * g + j]]`: the live global channels
    /// from group `i` to group `j`, `pair` = [`crate::fabric::DragonflyShape::pair_index`]
    /// `(i, j)`, in table order; `L` is the number of links per pair.
    channels: Vec<ChannelId>,
    /// `out_count[i * g + j]`: number of live global channels from group `i` to group `j`
    /// (0 on the diagonal).
    out_count: Vec<u32>,
    /// `in_count[j * g + i] = out_count[i * g + j]`, so that the counts into one group are
    /// contiguous too (Valiant weighs every group by a row of each).
    in_count: Vec<u32>,
}

impl LiveGlobals {
    fn new(df: &Dragonfly, fabric: &Fabric, faults: &Faults) -> Self {
        let shape = df.shape();
        let (g, links) = (shape.groups, df.links_per_pair());
        let ch = fabric.channels();
        let live = |c: ChannelId| {
            !(faults.channel_is_down(c)
                || faults.router_is_down(ch.src[c as usize])
                || faults.router_is_down(ch.dst[c as usize]))
        };
        let mut channels = vec![ChannelId::MAX; df.all_global_channels().len()];
        let mut out_count = vec![0; g * g];
        let mut in_count = vec![0; g * g];
        for i in 0..g {
            for j in (0..g).filter(|&j| j != i) {
                let at = shape.pair_index(i, j) * links;
                let mut n = 0;
                for &c in df.global_channels(i, j).iter().filter(|&&c| live(c)) {
                    channels[at + n] = c;
                    n += 1;
                }
                out_count[i * g + j] = n as u32;
                in_count[j * g + i] = n as u32;
            }
        }
        Self {
            down_fingerprint: faults.down_fingerprint(),
            channels,
            out_count,
            in_count,
        }
    }
}

/// What the dragonfly routings share: the fabric's dragonfly tables and the cache of live
/// global channels per fault state.
#[derive(Debug)]
struct DragonflyPaths {
    df: Dragonfly,
    cache: RwLock<Vec<Arc<LiveGlobals>>>,
}

impl DragonflyPaths {
    /// The tables of `fabric`, which must be a dragonfly (`routing` names the routing that
    /// asks, for the error).
    fn new(fabric: &Fabric, routing: &'static str) -> Result<Self, RoutingError> {
        let df = fabric.as_dragonfly().ok_or(RoutingError::WrongTopology {
            routing,
            needs: "a dragonfly",
        })?;
        Ok(Self {
            df: df.clone(),
            cache: RwLock::new(Vec::new()),
        })
    }

    /// The live global channels of the request's fault state, from the cache or derived now.
    fn live(&self, fabric: &Fabric, faults: &Faults) -> Arc<LiveGlobals> {
        let id = faults.down_fingerprint();
        let cached = self.cache.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(hit) = cached.iter().find(|l| l.down_fingerprint == id) {
            return Arc::clone(hit);
        }
        drop(cached);
        let fresh = Arc::new(LiveGlobals::new(&self.df, fabric, faults));
        let mut cache = self.cache.write().unwrap_or_else(PoisonError::into_inner);
        cache.insert(0, Arc::clone(&fresh));
        cache.truncate(CACHED_FAULT_STATES);
        fresh
    }

    /// The frame every dragonfly routing shares: clears `path`; a failed source or
    /// destination router is unroutable; `src == dst` is the empty path; otherwise `walk`
    /// fills `path`, or names why it cannot (the path is then cleared).
    fn route(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        path: &mut Vec<ChannelId>,
        walk: impl FnOnce(&mut Walk<'_>, &mut Vec<ChannelId>) -> Result<(), String>,
    ) -> Result<(), RoutingError> {
        path.clear();
        let f = req.fabric;
        for r in [src, dst] {
            if req.faults.router_is_down(r) {
                return Err(RoutingError::unroutable(
                    f,
                    src,
                    dst,
                    format!("router {} is down", f.router_name(r)),
                ));
            }
        }
        if src == dst {
            return Ok(());
        }
        let live = self.live(f, req.faults);
        let mut w = Walk {
            df: &self.df,
            live: &live,
            fabric: f,
            faults: req.faults,
            entropy: Entropy::new(req.entropy),
            src,
            dst,
        };
        walk(&mut w, path).map_err(|reason| {
            path.clear();
            RoutingError::unroutable(f, src, dst, reason)
        })
    }
}

/// The global channel [`Walk::lightest_link`] found: its weight and how many channels tied
/// with it.
#[derive(Debug, Clone, Copy)]
struct Lightest {
    channel: ChannelId,
    weight: f64,
    ties: usize,
}

/// One message's route being built: the tables, the live global channels of its fault
/// state, and its random stream.
struct Walk<'a> {
    df: &'a Dragonfly,
    live: &'a LiveGlobals,
    fabric: &'a Fabric,
    faults: &'a Faults,
    entropy: Entropy,
    /// The message's source router.
    src: RouterId,
    /// The message's destination router.
    dst: RouterId,
}

impl<'a> Walk<'a> {
    /// Group of router `r`.
    #[inline]
    fn group(&self, r: RouterId) -> usize {
        self.df.shape().group_of(r)
    }

    /// Number of live global channels from group `i` to group `j` (0 when `i == j`).
    #[inline]
    fn live_count(&self, i: usize, j: usize) -> usize {
        self.live.out_count[i * self.df.shape().groups + j] as usize
    }

    /// `(out, in)`: the live global channel counts from group `i` to every group, and from
    /// every group to group `j`, both indexed by the other group.
    #[inline]
    fn live_counts_from_and_to(&self, i: usize, j: usize) -> (&'a [u32], &'a [u32]) {
        let g = self.df.shape().groups;
        (
            &self.live.out_count[i * g..(i + 1) * g],
            &self.live.in_count[j * g..(j + 1) * g],
        )
    }

    /// The live global channels from group `i` to group `j` (`i != j`).
    #[inline]
    fn live_channels(&self, i: usize, j: usize) -> &'a [ChannelId] {
        let at = self.df.shape().pair_index(i, j) * self.df.links_per_pair();
        &self.live.channels[at..at + self.live_count(i, j)]
    }

    /// Whether the local hop from `x` to `y` (same group) is up; no hop (`x == y`) is.
    #[inline]
    fn local_up(&self, x: RouterId, y: RouterId) -> bool {
        local_up(self.df, self.faults, x, y)
    }

    /// Appends the local hops from `x` to `y` (same group; none when they are the same
    /// router): one live cable between them, drawn uniformly when they have parallel ones,
    /// or, when they are not cabled to each other, two hops through one of
    /// [`Dragonfly::local_vias`] whose hops are up (drawn uniformly when both are).
    fn push_local(&mut self, x: RouterId, y: RouterId, path: &mut Vec<ChannelId>) {
        if x == y {
            return;
        }
        let (df, faults) = (self.df, self.faults);
        if df.adjacent(x, y) {
            path.push(pick_live(
                df.local_channels(x, y),
                faults,
                &mut self.entropy,
            ));
            return;
        }
        let vias = df.local_vias(x, y);
        let usable = |k: usize| via_up(df, faults, x, vias[k], y);
        let m = vias[pick_uniform(2, &mut self.entropy, usable).unwrap_or(0)];
        path.push(pick_live(
            df.local_channels(x, m),
            faults,
            &mut self.entropy,
        ));
        path.push(pick_live(
            df.local_channels(m, y),
            faults,
            &mut self.entropy,
        ));
    }

    /// Appends a leg from router `at` to group `to` (not `at`'s group) and returns the
    /// router it reaches: to `dst` when given (a router of group `to`), else where the global
    /// channel lands. `None`, with nothing appended, when no live global channel from `at`'s
    /// group to `to` has its local hops up.
    fn leg(
        &mut self,
        at: RouterId,
        to: usize,
        dst: Option<RouterId>,
        path: &mut Vec<ChannelId>,
    ) -> Option<RouterId> {
        let candidates = self.live_channels(self.group(at), to);
        let (df, faults, fabric) = (self.df, self.faults, self.fabric);
        let k = pick_uniform(candidates.len(), &mut self.entropy, |k| {
            link_usable(df, faults, fabric, at, candidates[k], dst)
        })?;
        Some(self.leg_through(at, candidates[k], dst, path))
    }

    /// The first hop of a leg from router `at` through global channel `c`: the local hop to
    /// `c`'s router, or `c` itself when `at` holds it.
    #[inline]
    fn first_hop(&self, at: RouterId, c: ChannelId) -> ChannelId {
        let x = self.fabric.channels().src[c as usize];
        if at == x {
            return c;
        }
        let (df, faults) = (self.df, self.faults);
        let next = if df.adjacent(at, x) {
            x
        } else {
            let [a, b] = df.local_vias(at, x);
            if via_up(df, faults, at, a, x) {
                a
            } else {
                b
            }
        };
        let live = df.local_channels(at, next);
        live.iter()
            .copied()
            .find(|&c| !faults.channel_is_down(c))
            .unwrap_or(live[0])
    }

    /// Appends the leg from router `at` through global channel `c` (from `at`'s group): the
    /// local hop to `c`'s router, `c`, and the local hop on to `dst` when given. Returns the
    /// router reached (`dst`, or where `c` lands).
    fn leg_through(
        &mut self,
        at: RouterId,
        c: ChannelId,
        dst: Option<RouterId>,
        path: &mut Vec<ChannelId>,
    ) -> RouterId {
        let ch = self.fabric.channels();
        let (x, y) = (ch.src[c as usize], ch.dst[c as usize]);
        self.push_local(at, x, path);
        path.push(c);
        let reached = dst.unwrap_or(y);
        self.push_local(y, reached, path);
        reached
    }

    /// Of the live global channels from `at`'s group to group `to` whose local hops are up
    /// (from `at`, and on to `dst` when given), the one whose first hop from `at` (the local
    /// hop to its router, or the channel itself) weighs least, each weighed by
    /// `weight(congestion of that hop, whether it is a local hop)`. Ties are drawn uniformly.
    /// `None` when no channel is usable.
    fn lightest_link(
        &mut self,
        at: RouterId,
        to: usize,
        dst: Option<RouterId>,
        congestion: &dyn Congestion,
        weight: impl Fn(f64, bool) -> f64,
    ) -> Option<Lightest> {
        let mut best: Option<Lightest> = None;
        for &c in self.live_channels(self.group(at), to) {
            if !link_usable(self.df, self.faults, self.fabric, at, c, dst) {
                continue;
            }
            let first = self.first_hop(at, c);
            let w = weight(congestion.congestion(first), first != c);
            match &mut best {
                Some(b) if w > b.weight => {}
                Some(b) if w == b.weight => {
                    b.ties += 1;
                    if self.entropy.below(b.ties) == 0 {
                        b.channel = c;
                    }
                }
                _ => {
                    best = Some(Lightest {
                        channel: c,
                        weight: w,
                        ties: 1,
                    })
                }
            }
        }
        best
    }

    /// Of the live global channels from `at`'s group to group `to` whose local hops are up
    /// (from `at`, and on to `dst` when given), two drawn uniformly (the one, when only one
    /// is usable), and of those the one whose first hop from `at` scores higher by
    /// `score(congestion of that hop)`, the first drawn on a tie; with that congestion.
    /// merlin's `adaptive-local` looks at two of the parallel links (its "slices") this way.
    /// `None` when no channel is usable.
    fn better_of_two(
        &mut self,
        at: RouterId,
        to: usize,
        dst: Option<RouterId>,
        congestion: &dyn Congestion,
        score: impl Fn(f64) -> f64,
    ) -> Option<(ChannelId, f64)> {
        let candidates = self.live_channels(self.group(at), to);
        let n = candidates.len();
        let (df, faults, fabric) = (self.df, self.faults, self.fabric);
        let usable = |k: usize| link_usable(df, faults, fabric, at, candidates[k], dst);
        let first = pick_uniform(n, &mut self.entropy, usable)?;
        let second = pick_uniform(n, &mut self.entropy, |k| k != first && usable(k));
        let queued = |k: usize| {
            let c = candidates[k];
            (c, congestion.congestion(self.first_hop(at, c)))
        };
        let a = queued(first);
        Some(match second.map(queued) {
            Some(b) if score(b.1) > score(a.1) => b,
            _ => a,
        })
    }

    /// Why [`Walk::leg`] from group `from` to group `to` found nothing.
    fn blocked_leg_reason(&self, from: usize, to: usize) -> String {
        match self.live_count(from, to) {
            0 => format!(
                "all {} global links from group {from} to group {to} are down (or at a failed \
                 router)",
                self.df.links_per_pair()
            ),
            n => format!(
                "the local links to or from each of the {n} live global links from group \
                 {from} to group {to} are down"
            ),
        }
    }
}

/// Whether a leg from router `at` through global channel `c` has its local hops up: to
/// `c`'s router, and on from where `c` lands to `dst` when given.
#[inline]
fn link_usable(
    df: &Dragonfly,
    faults: &Faults,
    fabric: &Fabric,
    at: RouterId,
    c: ChannelId,
    dst: Option<RouterId>,
) -> bool {
    let ch = fabric.channels();
    let (x, y) = (ch.src[c as usize], ch.dst[c as usize]);
    local_up(df, faults, at, x) && dst.is_none_or(|d| local_up(df, faults, y, d))
}

/// Whether router `x` can reach router `y` of its group by local hops whose cables are up:
/// no hop (`x == y`); one live cable between them; or, when they are not cabled to each
/// other, two through one of [`Dragonfly::local_vias`] that is up.
#[inline]
fn local_up(df: &Dragonfly, faults: &Faults, x: RouterId, y: RouterId) -> bool {
    if x == y {
        return true;
    }
    if df.adjacent(x, y) {
        return cable_up(df, faults, x, y);
    }
    df.local_vias(x, y)
        .into_iter()
        .any(|m| via_up(df, faults, x, m, y))
}

/// Whether one of the cables between routers `x` and `y` of a group (cabled to each other)
/// is up.
#[inline]
fn cable_up(df: &Dragonfly, faults: &Faults, x: RouterId, y: RouterId) -> bool {
    df.local_channels(x, y)
        .iter()
        .any(|&c| !faults.channel_is_down(c))
}

/// Whether the two hops from `x` through router `m` to `y` are up (router `m` included).
#[inline]
fn via_up(df: &Dragonfly, faults: &Faults, x: RouterId, m: RouterId, y: RouterId) -> bool {
    !faults.router_is_down(m) && cable_up(df, faults, x, m) && cable_up(df, faults, m, y)
}

/// One of `parallel` channels that is up, drawn uniformly; the first when all are down
/// (callers check first that one is up).
#[inline]
fn pick_live(parallel: &[ChannelId], faults: &Faults, e: &mut Entropy) -> ChannelId {
    if parallel.len() == 1 {
        return parallel[0];
    }
    let k = pick_uniform(parallel.len(), e, |k| !faults.channel_is_down(parallel[k]));
    parallel[k.unwrap_or(0)]
}

/// An index in `0..n` for which `usable` holds, uniformly among those, or `None` when there
/// is none. Draws `k` first and takes it when usable (the common, fault-free case: one draw,
/// one test); otherwise draws again among the usable ones. Each usable index comes out with
/// probability `1/m` (`m` usable): `1/n + (n-m)/n * 1/m`.
fn pick_uniform(n: usize, e: &mut Entropy, usable: impl Fn(usize) -> bool) -> Option<usize> {
    if n == 0 {
        return None;
    }
    let k = e.below(n);
    if usable(k) {
        return Some(k);
    }
    let m = (0..n).filter(|&i| usable(i)).count();
    if m == 0 {
        return None;
    }
    (0..n).filter(|&i| usable(i)).nth(e.below(m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::build;

    #[test]
    fn needs_a_dragonfly() {
        let torus = Fabric::parse("torus:4x4").unwrap();
        for name in ["minimal", "valiant", "ugal"] {
            assert!(matches!(
                build(name, &torus, &Faults::none(&torus)),
                Err(RoutingError::WrongTopology {
                    needs: "a dragonfly",
                    ..
                })
            ));
        }
    }

    #[test]
    fn pick_uniform_takes_only_usable_indices_evenly() {
        let usable = |i: usize| !i.is_multiple_of(3); // 1, 2, 4, 5, 7 of 0..8
        let mut e = Entropy::new(11);
        let mut hits = [0u32; 8];
        for _ in 0..50_000 {
            hits[pick_uniform(8, &mut e, usable).unwrap()] += 1;
        }
        for (i, &h) in hits.iter().enumerate() {
            if usable(i) {
                assert!((9_000..11_000).contains(&h), "index {i}: {h} of 50000");
            } else {
                assert_eq!(h, 0);
            }
        }
        assert_eq!(pick_uniform(5, &mut e, |_| false), None);
        assert_eq!(pick_uniform(0, &mut e, |_| true), None);
    }
}
