//! The channels of one max-min solve in increasing order of fair share.
//!
//! Progressive filling starts with every channel's share and then refreshes a channel's
//! share only when it comes to the front and has grown. So the starting shares are sorted
//! once, and only the refreshed ones go into a monotone [`RadixHeap`]; the queue takes the
//! smaller of the two fronts. Most channels are never a bottleneck (their flows all freeze
//! elsewhere first): they are skipped once at the sorted front, and dropped from the heap the
//! next time it moves them, instead of travelling down its buckets.

use super::radix::{Entry, RadixHeap};

/// Channels ordered by share (bytes per second), taken smallest first.
#[derive(Debug, Clone, Default)]
pub(super) struct ShareQueue {
    /// The starting shares as `f64` bit patterns (which order as the numbers do), sorted.
    initial: Vec<(u64, u32)>,
    /// The next of `initial` to take.
    next: usize,
    /// Shares pushed since the start: never below the last share taken.
    refreshed: RadixHeap,
}

impl ShareQueue {
    /// Starts over with the channels and shares `(channel, share)`.
    pub fn reset(&mut self, shares: impl Iterator<Item = (u32, f64)>) {
        self.initial.clear();
        self.initial
            .extend(shares.map(|(channel, share)| (share.max(0.0).to_bits(), channel)));
        self.initial.sort_unstable_by_key(|&(key, _)| key);
        self.next = 0;
        self.refreshed.clear();
    }

    /// Queues `entry` again with a share that grew; it must not be below the last share
    /// taken.
    pub fn push(&mut self, entry: Entry) {
        self.refreshed.push(entry);
    }

    /// Takes the channel with the smallest share among those `wanted(channel)` still wants,
    /// or `None` when none is left. A channel that is no longer wanted may still come out
    /// (the heap asks only about the entries it moves); the caller checks.
    pub fn pop_wanted(&mut self, mut wanted: impl FnMut(u32) -> bool) -> Option<Entry> {
        while let Some(&(_, channel)) = self.initial.get(self.next) {
            if wanted(channel) {
                break;
            }
            self.next += 1;
        }
        // Where a starting share is at most a lower bound of the heap's keys, it is taken
        // without moving the heap's buckets: a peek would move the heap's base up to its
        // smallest key, and every share pushed below that base afterwards (the grown shares
        // of channels that come to the front) would wait in its binary-heap front.
        if let Some(&(key, channel)) = self.initial.get(self.next) {
            if self.refreshed.lower_bound().is_none_or(|b| key <= b) {
                self.next += 1;
                return Some(Entry {
                    share: f64::from_bits(key),
                    channel,
                });
            }
        }
        let from_heap = self.refreshed.peek_wanted(&mut wanted);
        match (self.initial.get(self.next), from_heap) {
            (Some(&(key, channel)), heap_key) if heap_key.is_none_or(|h| key <= h) => {
                self.next += 1;
                Some(Entry {
                    share: f64::from_bits(key),
                    channel,
                })
            }
            _ => self.refreshed.pop_wanted(wanted),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// With channels that stop being wanted at random and grown shares pushed back, the
        /// queue takes shares in non-decreasing order, each wanted start once, and every
        /// grown share pushed for a wanted channel once.
        #[test]
        fn takes_shares_in_order(
            start in proptest::collection::vec(0.0f64..1e12, 1..200),
            steps in proptest::collection::vec((any::<bool>(), 0.0f64..1e11, any::<u8>()), 0..400),
        ) {
            let mut queue = ShareQueue::default();
            queue.reset(start.iter().enumerate().map(|(c, &s)| (c as u32, s)));
            let mut wanted = vec![true; start.len()];
            // How many entries of each channel are queued.
            let mut queued = vec![1u32; start.len()];
            let mut last = 0.0f64;
            for &(regrow, growth, drop) in &steps {
                let w = wanted.clone();
                let Some(e) = queue.pop_wanted(|c| w[c as usize]) else { break };
                prop_assert!(e.share >= last, "out of order: {} after {}", e.share, last);
                last = e.share;
                let c = e.channel as usize;
                prop_assert!(queued[c] > 0);
                queued[c] -= 1;
                if wanted[c] && regrow {
                    queue.push(Entry { share: e.share + growth, channel: e.channel });
                    queued[c] += 1;
                }
                wanted[drop as usize % start.len()] = false;
            }
            let w = wanted.clone();
            while let Some(e) = queue.pop_wanted(|c| w[c as usize]) {
                prop_assert!(e.share >= last);
                last = e.share;
                queued[e.channel as usize] -= 1;
            }
            for c in 0..start.len() {
                if wanted[c] {
                    prop_assert_eq!(queued[c], 0, "channel {} left in the queue", c);
                }
            }
        }
    }
}
