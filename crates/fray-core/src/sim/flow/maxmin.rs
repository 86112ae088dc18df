//! Max-min fair rates by progressive filling.
//!
//! Every channel shares its capacity equally among the flows crossing it that are not yet
//! limited elsewhere. The solver repeatedly takes the channel with the smallest fair share
//! (remaining capacity over unfrozen flows), freezes its flows at that share and takes their
//! rate off every channel on their paths. Shares only grow while flows freeze, so a monotone
//! priority queue ([`RadixHeap`]) of channels finds that channel: an entry is a lower bound
//! of its channel's share and is refreshed only when it reaches the front. Cost: O(P) for P
//! path entries plus O(C) queue work for the C channels touched (each entry moves down at
//! most 64 buckets), in a few flat arrays that are reused between calls and reset only
//! where touched.

use super::radix::{Entry, RadixHeap};
use crate::fabric::ChannelId;

/// Per-channel state of one solve, packed so that one cache line holds all of it.
#[derive(Debug, Clone, Copy, Default)]
struct ChannelState {
    /// Capacity left, bytes per second.
    remaining: f64,
    /// Flows not yet frozen (0 outside a solve).
    unfrozen: u32,
    /// Number of flows on the channel (its slice of `members`).
    count: u32,
    /// Start of its slice of `members`.
    start: u32,
}

/// Reusable work space of the progressive-filling solver for one fabric.
#[derive(Debug, Clone)]
pub struct MaxMin {
    channels: Vec<ChannelState>,
    /// Flows per channel, one slice per touched channel.
    members: Vec<u32>,
    /// The active flows' paths, copied contiguously for this solve (CSR by flow).
    path_offsets: Vec<u32>,
    path_channels: Vec<ChannelId>,
    touched: Vec<ChannelId>,
    frozen: Vec<bool>,
    new_rates: Vec<f64>,
    heap: RadixHeap,
}

impl MaxMin {
    /// A solver for a fabric of `num_channels` channels.
    pub fn new(num_channels: usize) -> Self {
        Self {
            channels: vec![ChannelState::default(); num_channels],
            members: Vec::new(),
            path_offsets: Vec::new(),
            path_channels: Vec::new(),
            touched: Vec::new(),
            frozen: Vec::new(),
            new_rates: Vec::new(),
            heap: RadixHeap::new(),
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
        self.path_offsets.clear();
        self.path_channels.clear();
        self.path_offsets.push(0);
        for i in 0..num_flows {
            self.path_channels.extend_from_slice(path(i));
            self.path_offsets.push(self.path_channels.len() as u32);
        }
        // Each touched channel starts with its residual plus the rates given back.
        self.touched.clear();
        for (i, &rate) in rates[..num_flows].iter().enumerate() {
            for &c in flow_path(&self.path_offsets, &self.path_channels, i) {
                let ch = &mut self.channels[c as usize];
                if ch.count == 0 {
                    self.touched.push(c);
                    ch.remaining = residual[c as usize];
                }
                ch.count += 1;
                ch.remaining += rate;
            }
        }
        let mut next = 0u32;
        for &c in &self.touched {
            let ch = &mut self.channels[c as usize];
            ch.start = next;
            next += ch.count;
            ch.unfrozen = 0; // the fill cursor below, then the unfrozen count
        }
        self.members.resize(next as usize, 0);
        for i in 0..num_flows {
            for &c in flow_path(&self.path_offsets, &self.path_channels, i) {
                let ch = &mut self.channels[c as usize];
                self.members[(ch.start + ch.unfrozen) as usize] = i as u32;
                ch.unfrozen += 1;
            }
        }

        self.frozen.clear();
        self.frozen.resize(num_flows, false);
        self.new_rates.clear();
        self.new_rates.extend((0..num_flows).map(|i| {
            if self.path_offsets[i] == self.path_offsets[i + 1] {
                f64::INFINITY
            } else {
                0.0
            }
        }));
        self.heap.clear();
        for &c in &self.touched {
            self.heap.push(Entry {
                share: share(&self.channels[c as usize]),
                channel: c,
            });
        }
        while let Some(top) = self.heap.pop() {
            let c = top.channel as usize;
            if self.channels[c].unfrozen == 0 {
                continue;
            }
            let share_now = share(&self.channels[c]);
            if share_now > top.share {
                self.heap.push(Entry {
                    share: share_now,
                    channel: top.channel,
                });
                continue;
            }
            let (lo, n) = (
                self.channels[c].start as usize,
                self.channels[c].count as usize,
            );
            for k in lo..lo + n {
                let f = self.members[k] as usize;
                if self.frozen[f] {
                    continue;
                }
                self.frozen[f] = true;
                self.new_rates[f] = share_now;
                for &d in flow_path(&self.path_offsets, &self.path_channels, f) {
                    let ch = &mut self.channels[d as usize];
                    ch.remaining -= share_now;
                    ch.unfrozen -= 1;
                }
            }
        }
        let keep = force || self.new_rates.iter().all(|&r| r > 0.0);
        for &c in &self.touched {
            let ch = &mut self.channels[c as usize];
            if keep {
                residual[c as usize] = ch.remaining;
            }
            ch.count = 0;
        }
        if keep {
            rates[..num_flows].copy_from_slice(&self.new_rates);
        }
        keep
    }
}

/// The channels of flow `i` in the solve's copy of the paths (CSR by flow).
#[inline]
fn flow_path<'a>(offsets: &[u32], channels: &'a [ChannelId], i: usize) -> &'a [ChannelId] {
    &channels[offsets[i] as usize..offsets[i + 1] as usize]
}

/// The fair share of a channel now: capacity left over unfrozen flows.
#[inline]
fn share(ch: &ChannelState) -> f64 {
    ch.remaining.max(0.0) / f64::from(ch.unfrozen)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
