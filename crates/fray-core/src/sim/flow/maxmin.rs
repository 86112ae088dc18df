//! Max-min fair rates by progressive filling.
//!
//! Every channel shares its capacity equally among the flows crossing it that are not yet
//! limited elsewhere. The solver repeatedly takes the channel with the smallest fair share
//! (remaining capacity over unfrozen flows), freezes its flows at that share and takes their
//! rate off every channel on their paths. A tournament tree over the channels (a flat array,
//! each node the smallest share below it) finds that channel; the channels a bottleneck's
//! flows cross are updated once per bottleneck, walking up the tree only while the minimum
//! changes. Cost: O(P log C) for P path entries over C channels, in a few cache-friendly
//! arrays that are reused between calls and reset only where touched.

use crate::fabric::ChannelId;

/// A tournament tree over channel ids: each node holds the smallest share of its leaves and
/// the channel that has it; a leaf of a channel with no unfrozen flow holds infinity.
#[derive(Debug, Clone)]
struct MinTree {
    leaves: usize,
    share: Vec<f64>,
    channel: Vec<u32>,
}

impl MinTree {
    fn new(n: usize) -> Self {
        let leaves = n.max(1).next_power_of_two();
        let mut channel = vec![u32::MAX; 2 * leaves];
        for (c, slot) in channel[leaves..leaves + n].iter_mut().enumerate() {
            *slot = c as u32;
        }
        for i in (1..leaves).rev() {
            channel[i] = channel[2 * i];
        }
        Self {
            leaves,
            share: vec![f64::INFINITY; 2 * leaves],
            channel,
        }
    }

    /// The channel with the smallest share, and that share.
    fn min(&self) -> (f64, u32) {
        (self.share[1], self.channel[1])
    }

    /// Sets channel `c`'s share and repairs the path to the root, stopping once a node's
    /// minimum is unchanged.
    fn set(&mut self, c: usize, value: f64) {
        let mut i = self.leaves + c;
        self.share[i] = value;
        while i > 1 {
            i /= 2;
            let (l, r) = (2 * i, 2 * i + 1);
            let (v, ch) = if self.share[r] < self.share[l] {
                (self.share[r], self.channel[r])
            } else {
                (self.share[l], self.channel[l])
            };
            if v == self.share[i] && ch == self.channel[i] {
                break;
            }
            self.share[i] = v;
            self.channel[i] = ch;
        }
    }
}

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
    /// The last bottleneck round that listed it as dirty.
    stamp: u32,
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
    tree: MinTree,
    /// Channels whose share changed while freezing one bottleneck's flows.
    dirty: Vec<u32>,
    epoch: u32,
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
            tree: MinTree::new(num_channels),
            dirty: Vec::new(),
            epoch: 0,
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
        self.path_offsets.clear();
        self.path_channels.clear();
        self.path_offsets.push(0);
        for i in 0..num_flows {
            self.path_channels.extend_from_slice(path(i));
            self.path_offsets.push(self.path_channels.len() as u32);
        }
        self.touched.clear();
        for &c in &self.path_channels {
            let ch = &mut self.channels[c as usize];
            if ch.count == 0 {
                self.touched.push(c);
            }
            ch.count += 1;
        }
        let mut next = 0u32;
        for &c in &self.touched {
            let ch = &mut self.channels[c as usize];
            ch.start = next;
            next += ch.count;
            ch.unfrozen = 0; // the fill cursor below, then the unfrozen count
            ch.remaining = capacity[c as usize];
        }
        self.members.resize(next as usize, 0);
        for i in 0..num_flows {
            let (lo, hi) = (
                self.path_offsets[i] as usize,
                self.path_offsets[i + 1] as usize,
            );
            for &c in &self.path_channels[lo..hi] {
                let ch = &mut self.channels[c as usize];
                self.members[(ch.start + ch.unfrozen) as usize] = i as u32;
                ch.unfrozen += 1;
            }
        }

        self.frozen.clear();
        self.frozen.resize(num_flows, false);
        for (i, r) in rates.iter_mut().enumerate().take(num_flows) {
            let empty = self.path_offsets[i] == self.path_offsets[i + 1];
            *r = if empty { f64::INFINITY } else { 0.0 };
        }
        for k in 0..self.touched.len() {
            let c = self.touched[k] as usize;
            self.tree.set(c, share(&self.channels[c]));
        }
        loop {
            let (share_now, channel) = self.tree.min();
            if share_now == f64::INFINITY {
                break;
            }
            let c = channel as usize;
            self.epoch = self.epoch.wrapping_add(1).max(1);
            self.dirty.clear();
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
                rates[f] = share_now;
                let (a, b) = (
                    self.path_offsets[f] as usize,
                    self.path_offsets[f + 1] as usize,
                );
                for &d in &self.path_channels[a..b] {
                    let ch = &mut self.channels[d as usize];
                    ch.remaining -= share_now;
                    ch.unfrozen -= 1;
                    if ch.stamp != self.epoch {
                        ch.stamp = self.epoch;
                        self.dirty.push(d);
                    }
                }
            }
            for &d in &self.dirty {
                let ch = &self.channels[d as usize];
                let v = if ch.unfrozen == 0 {
                    f64::INFINITY
                } else {
                    share(ch)
                };
                self.tree.set(d as usize, v);
            }
        }
        for &c in &self.touched {
            self.channels[c as usize].count = 0;
        }
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
