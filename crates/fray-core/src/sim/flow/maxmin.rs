//! Max-min fair rates by progressive filling.
//!
//! Every channel shares its capacity equally among the flows crossing it that are not yet
//! limited elsewhere. The solver repeatedly takes the channel with the smallest fair share
//! (remaining capacity over unfrozen flows), freezes its flows at that share and takes their
//! rate off every channel on their paths. Shares only grow while flows freeze, so a
//! [`ShareQueue`] of channels finds that channel: an entry is a lower bound of its channel's
//! share, refreshed when it reaches the front, and a channel whose flows have all frozen
//! elsewhere is skipped (most channels are never a bottleneck: on the failed-links exchanges
//! about a third are). The flows a bottleneck freezes are gathered first and their channels
//! updated after, so that those updates are independent memory accesses rather than a chain
//! through each flow. Cost: O(P) for P path entries plus O(C log C) to sort the C channels
//! touched and the queue work of the refreshed shares, in a few flat arrays that are reused
//! between calls. The touched channels are renumbered densely for the solve, so its working
//! set grows with the flows solved, not with the fabric.

use super::radix::Entry;
use super::share_queue::ShareQueue;
use crate::fabric::ChannelId;

/// Per-channel state of one solve, 16 bytes: four channels to a cache line.
#[derive(Debug, Clone, Copy, Default)]
struct ChannelState {
    /// Capacity left, bytes per second.
    remaining: f64,
    /// Flows not yet frozen.
    unfrozen: u32,
    /// Start of its slice of `members` (the next channel's start ends it); while the
    /// channels are being numbered, its number of flows.
    start: u32,
}

/// Reusable work space of the progressive-filling solver for one fabric.
///
/// A solve numbers the channels it touches densely, in the order the paths first reach them
/// (`touched[l]` is the fabric channel of local channel `l`), and keeps their state in that
/// order: flows that start together cross nearby channels, so a solve's working set is a
/// few contiguous arrays however large the fabric.
#[derive(Debug, Clone)]
pub struct MaxMin {
    /// Local number of each fabric channel during a solve (`UNTOUCHED` outside one).
    local: Vec<u32>,
    /// Fabric channel of each local channel.
    touched: Vec<ChannelId>,
    channels: Vec<ChannelState>,
    /// Flows per local channel, one slice each.
    members: Vec<u32>,
    /// Each flow's slice of `path_channels` and its new rate.
    flows: Vec<FlowSlot>,
    /// The flows' paths in local channels, copied contiguously for this solve.
    path_channels: Vec<u32>,
    queue: ShareQueue,
    /// The path entries of the flows one bottleneck freezes, gathered before any channel is
    /// updated, so that the updates are independent loads rather than a chain through each
    /// flow.
    batch: Vec<u32>,
}

/// `MaxMin::local` of a channel no flow of the solve crosses.
const UNTOUCHED: u32 = u32::MAX;

impl MaxMin {
    /// A solver for a fabric of `num_channels` channels.
    pub fn new(num_channels: usize) -> Self {
        Self {
            local: vec![UNTOUCHED; num_channels],
            touched: Vec::new(),
            channels: Vec::new(),
            members: Vec::new(),
            flows: Vec::new(),
            path_channels: Vec::new(),
            queue: ShareQueue::default(),
            batch: Vec::new(),
        }
    }

    /// Sets `rates[i]` to the max-min fair rate of flow `i` (bytes per second), whose
    /// channels are `path(i)`, for channel capacities `capacity` (bytes per second). A flow
    /// with an empty path gets `f64::INFINITY`; a flow crossing a channel of capacity 0 gets 0.
    pub fn solve<'p>(
        &mut self,
        capacity: &[f64],
        num_flows: usize,
        path: impl Fn(usize) -> &'p [ChannelId],
        rates: &mut [f64],
    ) {
        let mut residual = capacity.to_vec();
        rates[..num_flows].fill(0.0);
        self.fill(&mut residual, num_flows, path, rates, true);
    }

    /// Re-rates flows `0..num_flows` (channels `path(i)`, current rates `rates`) max-min
    /// fairly on what the other flows leave: `residual[c]` is channel `c`'s capacity left
    /// after every rate (these flows' included), bytes per second. On success the new rates
    /// are in `rates`, `residual` is updated to them, and the result is true. If some flow
    /// with a path would get no bandwidth (rounding in `residual`), nothing changes and the
    /// result is false.
    pub fn resolve<'p>(
        &mut self,
        residual: &mut [f64],
        num_flows: usize,
        path: impl Fn(usize) -> &'p [ChannelId],
        rates: &mut [f64],
    ) -> bool {
        self.fill(residual, num_flows, path, rates, false)
    }

    /// Copies the flows' paths in local channel numbers and sets up every touched channel:
    /// its residual plus the rates given back, and its flow count.
    fn number_channels<'p>(
        &mut self,
        residual: &[f64],
        num_flows: usize,
        path: impl Fn(usize) -> &'p [ChannelId],
        rates: &[f64],
    ) {
        self.flows.clear();
        self.path_channels.clear();
        self.touched.clear();
        self.channels.clear();
        for (i, &rate) in rates[..num_flows].iter().enumerate() {
            let start = self.path_channels.len() as u32;
            for &c in path(i) {
                let mut l = self.local[c as usize];
                if l == UNTOUCHED {
                    l = self.touched.len() as u32;
                    self.local[c as usize] = l;
                    self.touched.push(c);
                    self.channels.push(ChannelState {
                        remaining: residual[c as usize],
                        unfrozen: 0,
                        start: 0,
                    });
                }
                let ch = &mut self.channels[l as usize];
                ch.start += 1;
                ch.remaining += rate;
                self.path_channels.push(l);
            }
            let end = self.path_channels.len() as u32;
            self.flows.push(FlowSlot {
                start,
                end,
                rate: if start == end {
                    f64::INFINITY
                } else {
                    UNFROZEN
                },
            });
        }
    }

    /// Progressive filling behind [`Self::solve`] and [`Self::resolve`]; with `force` the
    /// result is kept even when a flow gets no bandwidth.
    fn fill<'p>(
        &mut self,
        residual: &mut [f64],
        num_flows: usize,
        path: impl Fn(usize) -> &'p [ChannelId],
        rates: &mut [f64],
        force: bool,
    ) -> bool {
        self.number_channels(residual, num_flows, path, rates);
        // Each local channel's slice of `members`; `unfrozen` is the fill cursor, then the
        // count of flows not yet frozen.
        let mut next = 0u32;
        for ch in &mut self.channels {
            let count = ch.start;
            ch.start = next;
            next += count;
        }
        // The end of the last channel's slice.
        self.channels.push(ChannelState {
            remaining: 0.0,
            unfrozen: 0,
            start: next,
        });
        self.members.resize(next as usize, 0);
        for (i, flow) in self.flows.iter().enumerate() {
            for &l in flow.path(&self.path_channels) {
                let ch = &mut self.channels[l as usize];
                self.members[(ch.start + ch.unfrozen) as usize] = i as u32;
                ch.unfrozen += 1;
            }
        }
        self.queue.reset(
            self.channels[..self.touched.len()]
                .iter()
                .enumerate()
                .map(|(l, ch)| (l as u32, share(ch))),
        );
        loop {
            let channels = &self.channels;
            let Some(top) = self.queue.pop_wanted(|c| channels[c as usize].unfrozen > 0) else {
                break;
            };
            let l = top.channel as usize;
            if self.channels[l].unfrozen == 0 {
                continue;
            }
            let share_now = share(&self.channels[l]);
            if share_now > top.share {
                self.queue.push(Entry {
                    share: share_now,
                    channel: top.channel,
                });
                continue;
            }
            let (lo, hi) = (
                self.channels[l].start as usize,
                self.channels[l + 1].start as usize,
            );
            let mut left = self.channels[l].unfrozen;
            self.batch.clear();
            for k in lo..hi {
                if left == 0 {
                    break;
                }
                let flow = &mut self.flows[self.members[k] as usize];
                if flow.rate != UNFROZEN {
                    continue;
                }
                left -= 1;
                flow.rate = share_now;
                for &d in flow.path(&self.path_channels) {
                    self.batch.push(d);
                }
            }
            for &d in &self.batch {
                let ch = &mut self.channels[d as usize];
                ch.remaining -= share_now;
                ch.unfrozen -= 1;
            }
        }
        let keep = force || self.flows.iter().all(|f| f.rate > 0.0);
        for (&c, ch) in self.touched.iter().zip(&self.channels) {
            if keep {
                residual[c as usize] = ch.remaining;
            }
            self.local[c as usize] = UNTOUCHED;
        }
        if keep {
            for (rate, flow) in rates[..num_flows].iter_mut().zip(&self.flows) {
                *rate = flow.rate;
            }
        }
        keep
    }
}

/// One flow of a solve: where its path is and, once frozen, its rate; 16 bytes, so that
/// freezing a flow reads one cache line before its path.
#[derive(Debug, Clone, Copy)]
struct FlowSlot {
    /// Its local channels: `path_channels[start..end]`.
    start: u32,
    end: u32,
    /// Its rate in bytes per second; [`UNFROZEN`] until frozen.
    rate: f64,
}

/// `FlowSlot::rate` of a flow not yet frozen (no rate is negative).
const UNFROZEN: f64 = -1.0;

impl FlowSlot {
    /// Its channels, in local numbers.
    #[inline]
    fn path<'a>(&self, path_channels: &'a [u32]) -> &'a [u32] {
        &path_channels[self.start as usize..self.end as usize]
    }
}

/// The fair share of a channel now: capacity left over unfrozen flows.
#[inline]
fn share(ch: &ChannelState) -> f64 {
    ch.remaining.max(0.0) / f64::from(ch.unfrozen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn solve(capacity: &[f64], paths: &[Vec<ChannelId>]) -> Vec<f64> {
        let mut m = MaxMin::new(capacity.len());
        let mut rates = vec![0.0; paths.len()];
        m.solve(capacity, paths.len(), |i| &paths[i], &mut rates);
        rates
    }

    #[test]
    fn one_flow_gets_its_bottleneck() {
        assert_eq!(solve(&[5.0, 2.0, 9.0], &[vec![0, 1, 2]]), vec![2.0]);
    }

    #[test]
    fn n_flows_on_one_channel_get_one_nth() {
        let paths = vec![vec![0]; 4];
        assert_eq!(solve(&[8.0], &paths), vec![2.0; 4]);
    }

    #[test]
    fn textbook_three_links() {
        // Links A (cap 1), B (cap 2), C (cap 1). Flow 0 crosses A and B, flow 1 crosses B and C,
        // flow 2 crosses A only, flow 3 crosses B only. A is the first bottleneck (share 1/2):
        // flows 0 and 2 get 0.5. B then has 1.5 left for flows 1 and 3, C has 1 for flow 1:
        // B's share 0.75 < C's 1, so flows 1 and 3 get 0.75.
        let rates = solve(
            &[1.0, 2.0, 1.0],
            &[vec![0, 1], vec![1, 2], vec![0], vec![1]],
        );
        assert_eq!(rates, vec![0.5, 0.75, 0.5, 0.75]);
    }

    #[test]
    fn work_space_is_clean_between_calls() {
        let mut m = MaxMin::new(3);
        let mut rates = vec![0.0; 2];
        let a = [vec![0, 1], vec![1, 2]];
        m.solve(&[1.0, 1.0, 1.0], 2, |i| &a[i], &mut rates);
        assert_eq!(rates, vec![0.5, 0.5]);
        let b = [vec![2], vec![2]];
        m.solve(&[1.0, 1.0, 4.0], 2, |i| &b[i], &mut rates);
        assert_eq!(rates, vec![2.0, 2.0]);
    }

    #[test]
    fn empty_path_is_infinite_and_dead_channel_is_zero() {
        assert_eq!(
            solve(&[0.0, 3.0], &[vec![], vec![0, 1], vec![1]]),
            vec![f64::INFINITY, 0.0, 3.0]
        );
    }

    /// Random capacities and paths (each path a set of distinct channels).
    fn instance() -> impl Strategy<Value = (Vec<f64>, Vec<Vec<ChannelId>>)> {
        (2usize..12).prop_flat_map(|channels| {
            (
                proptest::collection::vec(1.0f64..100.0, channels),
                proptest::collection::vec(
                    proptest::sample::subsequence(
                        (0..channels as u32).collect::<Vec<_>>(),
                        1..=channels.min(4),
                    ),
                    1..30,
                ),
            )
        })
    }

    /// The rates are max-min fair: no channel is over its capacity, and every flow crosses
    /// a saturated channel on which no flow has a higher rate (its bottleneck).
    fn assert_max_min_fair(capacity: &[f64], paths: &[Vec<ChannelId>], rates: &[f64]) {
        let mut load = vec![0.0; capacity.len()];
        for (p, &r) in paths.iter().zip(rates) {
            for &c in p {
                load[c as usize] += r;
            }
        }
        let tol = |c: usize| 1e-9 * capacity[c];
        for c in 0..capacity.len() {
            assert!(load[c] <= capacity[c] + tol(c), "channel {c} over capacity");
        }
        for (i, p) in paths.iter().enumerate() {
            let bottleneck = p.iter().any(|&c| {
                let c = c as usize;
                load[c] >= capacity[c] - tol(c)
                    && paths
                        .iter()
                        .zip(rates)
                        .all(|(q, &r)| !q.contains(&(c as u32)) || r <= rates[i] * (1.0 + 1e-9))
            });
            assert!(bottleneck, "flow {i} has no bottleneck: {rates:?}");
        }
    }

    proptest! {
        #[test]
        fn solve_is_max_min_fair((capacity, paths) in instance()) {
            assert_max_min_fair(&capacity, &paths, &solve(&capacity, &paths));
        }

        /// Re-rating the flows at or above some rate on what the others leave gives the
        /// rates of a full solve, as the engine's incremental re-rate relies on.
        #[test]
        fn resolve_of_the_upper_flows_matches_a_full_solve(
            (capacity, paths) in instance(),
            pick in 0usize..30,
        ) {
            let full = solve(&capacity, &paths);
            let level = full[pick % full.len()];
            let upper: Vec<usize> = (0..paths.len()).filter(|&i| full[i] >= level).collect();
            let mut residual = capacity.clone();
            for (p, &r) in paths.iter().zip(&full) {
                for &c in p {
                    residual[c as usize] -= r;
                }
            }
            let mut rates: Vec<f64> = upper.iter().map(|&i| full[i]).collect();
            let mut m = MaxMin::new(capacity.len());
            let ok = m.resolve(&mut residual, upper.len(), |k| &paths[upper[k]], &mut rates);
            prop_assert!(ok);
            for (k, &i) in upper.iter().enumerate() {
                prop_assert!((rates[k] - full[i]).abs() <= 1e-9 * full[i], "flow {i}");
            }
        }
    }
}
