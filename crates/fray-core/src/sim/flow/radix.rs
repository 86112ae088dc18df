//! A monotone priority queue on non-negative shares (a radix heap).
//!
//! Progressive filling takes bottlenecks in increasing order of share, and every share it
//! pushes is at least the last one it took. A radix heap uses exactly that: an entry sits in
//! the bucket named by the highest bit in which its key differs from the last key taken, so
//! a push is O(1) and an entry moves to a lower bucket at most 40 times over its life (the
//! buckets ignore the lowest 24 bits; entries that close to the front wait in a small binary
//! heap). The keys are the bit patterns of non-negative `f64`s, which order as the numbers
//! do.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An entry: a channel and its share (bytes per second) when pushed.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub share: f64,
    pub channel: u32,
}

/// Entries ordered by share, taken smallest first; ties come out in no particular order. A
/// share pushed below the bucket base (by rounding, or after a peek) waits in `front` and
/// still comes out in its exact order.
///
/// The buckets go by the keys' leading bits only (all but [`FINE_BITS`]): keys that agree
/// with the last one taken in those bits wait in `front`, a binary heap on the whole key,
/// so an entry stops moving between buckets once it is that close to the front.
#[derive(Debug, Clone)]
pub(super) struct RadixHeap {
    /// Keys whose leading bits equal those of `last` (but not `last` itself), smallest first.
    front: BinaryHeap<Reverse<(u64, u32)>>,
    /// The channels whose key is `last` exactly (ties are many in a solve: channels of the
    /// same capacity left with the same flows); taken in any order, in O(1).
    ties: Vec<u32>,
    /// The smallest key filed in each bucket since it was last moved.
    bucket_mins: Vec<u64>,
    /// Bucket `b` (1..=64 - FINE_BITS) holds keys whose highest leading bit differing from
    /// `last`'s is bit `b - 1` of the leading bits.
    buckets: Vec<Vec<(u64, u32)>>,
    /// Bit `b - 1` set when bucket `b` may hold entries.
    occupied: u64,
    last: u64,
    len: usize,
}

/// Low key bits that the buckets ignore (of an `f64`'s 52 mantissa bits): keys within
/// 2^-28 of each other, relative, share a bucket.
const FINE_BITS: u32 = 24;

impl Default for RadixHeap {
    fn default() -> Self {
        Self::new()
    }
}

impl RadixHeap {
    pub fn new() -> Self {
        Self {
            front: BinaryHeap::new(),
            ties: Vec::new(),
            bucket_mins: vec![u64::MAX; 65 - FINE_BITS as usize],
            buckets: vec![Vec::new(); 65 - FINE_BITS as usize],
            occupied: 0,
            last: 0,
            len: 0,
        }
    }

    /// Empties the heap and lets it take keys from 0 again.
    pub fn clear(&mut self) {
        self.front.clear();
        self.ties.clear();
        for b in &mut self.buckets {
            b.clear();
        }
        self.bucket_mins.fill(u64::MAX);
        self.occupied = 0;
        self.last = 0;
        self.len = 0;
    }

    /// Adds `entry`. A share below the bucket base (`last`: the last key taken, or the
    /// smallest key a peek moved to the front) goes straight to the front, which orders any
    /// keys exactly and holds only keys below those in the buckets.
    pub fn push(&mut self, entry: Entry) {
        let key = entry.share.max(0.0).to_bits();
        if key < self.last {
            self.front.push(Reverse((key, entry.channel)));
        } else {
            self.put(key, entry.channel);
        }
        self.len += 1;
    }

    /// Files `channel` under `key` in its bucket.
    #[inline]
    fn put(&mut self, key: u64, channel: u32) {
        let b = bucket(key, self.last);
        if key == self.last {
            self.ties.push(channel);
        } else if b == 0 {
            self.front.push(Reverse((key, channel)));
        } else {
            self.occupied |= 1u64 << (b - 1);
            self.buckets[b].push((key, channel));
            self.bucket_mins[b] = self.bucket_mins[b].min(key);
        }
    }

    /// Takes an entry with the smallest share among those still wanted, or `None` when none
    /// is left. `wanted(channel)` says whether an entry is still wanted; the heap asks it for
    /// the entries it moves between buckets and drops the others there, so that an entry
    /// no longer wanted is moved at most once more. The entry taken may itself be unwanted
    /// if nothing moved it since.
    pub fn pop_wanted(&mut self, wanted: impl FnMut(u32) -> bool) -> Option<Entry> {
        self.fill_front(wanted);
        let below = self.front.peek().is_some_and(|r| r.0 .0 < self.last);
        let (key, channel) = match self.ties.pop() {
            Some(channel) if !below => (self.last, channel),
            tie => {
                // (A key below `last`, pushed after a peek, comes before the ties.)
                self.ties.extend(tie);
                let Reverse((key, channel)) = self.front.pop()?;
                (key, channel)
            }
        };
        self.len -= 1;
        if key > self.last {
            // Keys equal to the new base in `front` stay there; new ones join `ties`.
            self.last = key;
        }
        Some(Entry {
            share: f64::from_bits(key),
            channel,
        })
    }

    /// The smallest key among the entries still wanted (as [`Self::pop_wanted`] would take
    /// it), without taking it.
    pub fn peek_wanted(&mut self, wanted: impl FnMut(u32) -> bool) -> Option<u64> {
        self.fill_front(wanted);
        self.lower_bound()
    }

    /// The smallest key in the heap, wanted or not, found without moving a bucket (`None`
    /// when the heap is empty): that of `front` or `ties` (which hold keys below those of
    /// every bucket), else the smallest key filed in the lowest occupied bucket.
    pub fn lower_bound(&self) -> Option<u64> {
        let front = self.front.peek().map(|r| r.0 .0);
        let ties = (!self.ties.is_empty()).then_some(self.last);
        match (front, ties) {
            (Some(f), Some(t)) => Some(f.min(t)),
            (Some(k), None) | (None, Some(k)) => Some(k),
            (None, None) if self.occupied == 0 => None,
            (None, None) => Some(self.bucket_mins[self.occupied.trailing_zeros() as usize + 1]),
        }
    }

    /// Moves buckets down until `front` holds something or nothing is left.
    fn fill_front(&mut self, mut wanted: impl FnMut(u32) -> bool) {
        while self.front.is_empty() && self.ties.is_empty() && self.len > 0 {
            let b = self.occupied.trailing_zeros() as usize + 1;
            self.occupied &= !(1u64 << (b - 1));
            self.bucket_mins[b] = u64::MAX;
            let mut moved = std::mem::take(&mut self.buckets[b]);
            let before = moved.len();
            moved.retain(|&(_, channel)| wanted(channel));
            self.len -= before - moved.len();
            if let Some(min) = moved.iter().map(|&(k, _)| k).min() {
                self.last = min;
                for &(k, c) in &moved {
                    self.put(k, c);
                }
            }
            // Keep the emptied bucket's allocation for later pushes.
            moved.clear();
            self.buckets[b] = moved;
        }
    }
}

/// The bucket of `key` when the last key taken is `last` (`key >= last`): 0 when their
/// leading bits agree.
#[inline]
fn bucket(key: u64, last: u64) -> usize {
    (64 - ((key ^ last) >> FINE_BITS).leading_zeros()) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Pushing shares that never fall below the last one taken, interleaved with pops and
        /// peeks, takes every wanted entry exactly once, at its share and in non-decreasing
        /// order; an entry no longer wanted comes out at most once; the lower bound is never
        /// above the entry taken next.
        #[test]
        fn pops_in_order_and_loses_nothing(
            ops in proptest::collection::vec((0.0f64..1e12, any::<bool>(), any::<bool>()), 1..300)
        ) {
            let mut heap = RadixHeap::new();
            let wanted = |c: u32| ops[c as usize].2;
            let mut pushed = Vec::new();
            let mut last = 0.0f64;
            let mut times_taken = vec![0u32; ops.len()];
            let mut take = |heap: &mut RadixHeap, pushed: &[f64], last: &mut f64| {
                let bound = heap.lower_bound();
                let e = heap.pop_wanted(wanted)?;
                assert!(bound.is_some_and(|b| b <= e.share.to_bits()), "bound above the front");
                assert!(e.share >= *last, "taken out of order");
                assert_eq!(e.share, pushed[e.channel as usize], "taken at another share");
                *last = e.share;
                times_taken[e.channel as usize] += 1;
                Some(())
            };
            for (i, &(delta, pop, _)) in ops.iter().enumerate() {
                // A peek moves buckets down, so later pushes may fall below its key.
                if i % 3 == 0 {
                    if let Some(key) = heap.peek_wanted(wanted) {
                        prop_assert!(f64::from_bits(key) >= last);
                    }
                }
                pushed.push(last + delta);
                heap.push(Entry { share: last + delta, channel: i as u32 });
                if pop {
                    take(&mut heap, &pushed, &mut last);
                }
            }
            while take(&mut heap, &pushed, &mut last).is_some() {}
            for (c, &(_, _, is_wanted)) in ops.iter().enumerate() {
                if is_wanted {
                    prop_assert_eq!(times_taken[c], 1, "entry {} taken", c);
                } else {
                    prop_assert!(times_taken[c] <= 1);
                }
            }
        }
    }
}
