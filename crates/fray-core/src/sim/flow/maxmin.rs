//! Max-min fair rates by progressive filling.
//!
//! Every channel shares its capacity equally among the flows crossing it that are not yet
//! limited elsewhere. The solver repeatedly takes the channel with the smallest fair share
//! (remaining capacity over unfrozen flows), freezes its flows at that share and takes their
//! rate off every channel on their paths. A binary heap keyed by fair share finds that channel;
//! since freezing a flow never lowers another channel's share, stale heap entries are simply
//! skipped. Cost: O(P log C) for P path entries over C touched channels; memory is reused
//! between calls (arrays sized to the fabric, reset only where touched).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::fabric::ChannelId;

/// A heap entry: a channel and its fair share when pushed, smallest share first.
#[derive(Debug, Clone, Copy)]
struct Share {
    share: f64,
    channel: ChannelId,
}

impl PartialEq for Share {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Share {}

impl PartialOrd for Share {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Share {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap and we want the smallest share; ties by channel.
        other
            .share
            .total_cmp(&self.share)
            .then(other.channel.cmp(&self.channel))
    }
}

/// Reusable work space of the progressive-filling solver for one fabric.
#[derive(Debug, Clone)]
pub struct MaxMin {
    /// Flows on each channel not yet frozen (0 outside a solve).
    unfrozen: Vec<u32>,
    /// Capacity left on each channel, bytes per second.
    remaining: Vec<f64>,
    /// Start of each touched channel's slice of `members`.
    start: Vec<u32>,
    /// Number of flows on each touched channel (its slice's length).
    count: Vec<u32>,
    /// Flows per channel, one slice per touched channel.
    members: Vec<u32>,
    touched: Vec<ChannelId>,
    frozen: Vec<bool>,
    heap: BinaryHeap<Share>,
}

impl MaxMin {
    /// A solver for a fabric of `num_channels` channels.
    pub fn new(num_channels: usize) -> Self {
        Self {
            unfrozen: vec![0; num_channels],
            remaining: vec![0.0; num_channels],
            start: vec![0; num_channels],
            count: vec![0; num_channels],
            members: Vec::new(),
            touched: Vec::new(),
            frozen: Vec::new(),
            heap: BinaryHeap::new(),
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
        self.touched.clear();
        for i in 0..num_flows {
            for &c in path(i) {
                let c = c as usize;
                if self.count[c] == 0 {
                    self.touched.push(c as ChannelId);
                }
                self.count[c] += 1;
            }
        }
        let mut next = 0u32;
        for &c in &self.touched {
            let c = c as usize;
            self.start[c] = next;
            next += self.count[c];
            self.unfrozen[c] = 0; // reused below as the fill cursor, then as the unfrozen count
            self.remaining[c] = capacity[c];
        }
        self.members.resize(next as usize, 0);
        for i in 0..num_flows {
            for &c in path(i) {
                let c = c as usize;
                self.members[(self.start[c] + self.unfrozen[c]) as usize] = i as u32;
                self.unfrozen[c] += 1;
            }
        }

        self.frozen.clear();
        self.frozen.resize(num_flows, false);
        for (i, r) in rates.iter_mut().enumerate().take(num_flows) {
            *r = if path(i).is_empty() {
                f64::INFINITY
            } else {
                0.0
            };
        }
        self.heap.clear();
        for &c in &self.touched {
            let cu = c as usize;
            self.heap.push(Share {
                share: self.remaining[cu] / f64::from(self.unfrozen[cu]),
                channel: c,
            });
        }
        while let Some(Share { share, channel }) = self.heap.pop() {
            let c = channel as usize;
            if self.unfrozen[c] == 0 || self.share(c) != share {
                continue; // done, or stale: a newer entry with the current share is queued
            }
            let lo = self.start[c] as usize;
            for k in lo..lo + self.count[c] as usize {
                let f = self.members[k] as usize;
                if self.frozen[f] {
                    continue;
                }
                self.frozen[f] = true;
                rates[f] = share;
                for &d in path(f) {
                    let d = d as usize;
                    self.remaining[d] -= share;
                    self.unfrozen[d] -= 1;
                    if self.unfrozen[d] > 0 && d != c {
                        self.heap.push(Share {
                            share: self.share(d),
                            channel: d as ChannelId,
                        });
                    }
                }
            }
        }
        for &c in &self.touched {
            self.count[c as usize] = 0;
        }
    }

    /// The fair share of channel `c` now: capacity left over unfrozen flows.
    #[inline]
    fn share(&self, c: usize) -> f64 {
        self.remaining[c].max(0.0) / f64::from(self.unfrozen[c])
    }
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
