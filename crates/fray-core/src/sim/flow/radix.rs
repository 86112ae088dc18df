//! A monotone priority queue on non-negative shares (a radix heap).
//!
//! Progressive filling takes bottlenecks in increasing order of share, and every share it
//! pushes is at least the last one it took. A radix heap uses exactly that: an entry sits in
//! the bucket named by the highest bit in which its key differs from the last key taken, so
//! a push is O(1) and an entry moves to a lower bucket at most 64 times over its life. The
//! keys are the bit patterns of non-negative `f64`s, which order as the numbers do.

/// An entry: a channel and its share (bytes per second) when pushed.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub share: f64,
    pub channel: u32,
}

/// Entries ordered by share, taken smallest first; ties come out in no particular order. A
/// share pushed below the last one taken (by rounding) comes out as that last share.
#[derive(Debug, Clone)]
pub(super) struct RadixHeap {
    /// Bucket 0 holds keys equal to `last`; bucket `b` keys whose highest differing bit is
    /// `b - 1`.
    buckets: Vec<Vec<(u64, u32)>>,
    /// Bit `b - 1` set when bucket `b` (1..=64) may hold entries.
    occupied: u64,
    last: u64,
    len: usize,
}

impl RadixHeap {
    pub fn new() -> Self {
        Self {
            buckets: vec![Vec::new(); 65],
            occupied: 0,
            last: 0,
            len: 0,
        }
    }

    /// Empties the heap and lets it take keys from 0 again.
    pub fn clear(&mut self) {
        for b in &mut self.buckets {
            b.clear();
        }
        self.occupied = 0;
        self.last = 0;
        self.len = 0;
    }

    /// Adds `entry`. Its share should not be below the last share taken; one that is (by
    /// rounding) is queued as if equal to it.
    pub fn push(&mut self, entry: Entry) {
        let key = entry.share.max(0.0).to_bits().max(self.last);
        self.put(key, entry.channel);
        self.len += 1;
    }

    /// Files `channel` under `key` in its bucket.
    #[inline]
    fn put(&mut self, key: u64, channel: u32) {
        let b = bucket(key, self.last);
        if b > 0 {
            self.occupied |= 1u64 << (b - 1);
        }
        self.buckets[b].push((key, channel));
    }

    /// Takes an entry with the smallest share, or `None` when empty.
    pub fn pop(&mut self) -> Option<Entry> {
        if self.len == 0 {
            return None;
        }
        if self.buckets[0].is_empty() {
            let b = self.occupied.trailing_zeros() as usize + 1;
            self.occupied &= !(1u64 << (b - 1));
            let moved = std::mem::take(&mut self.buckets[b]);
            self.last = moved.iter().map(|&(k, _)| k).min().expect("occupied");
            for &(k, c) in &moved {
                self.put(k, c);
            }
            // Keep the emptied bucket's allocation for later pushes.
            let mut moved = moved;
            moved.clear();
            self.buckets[b] = moved;
        }
        self.len -= 1;
        self.buckets[0].pop().map(|(key, channel)| Entry {
            share: f64::from_bits(key),
            channel,
        })
    }
}

/// The bucket of `key` when the last key taken is `last` (`key >= last`).
#[inline]
fn bucket(key: u64, last: u64) -> usize {
    (64 - (key ^ last).leading_zeros()) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Pushing shares that never fall below the last one taken, interleaved with pops,
        /// takes every entry once and in non-decreasing order of share.
        #[test]
        fn pops_in_order_and_loses_nothing(
            ops in proptest::collection::vec((0.0f64..1e12, any::<bool>()), 1..300)
        ) {
            let mut heap = RadixHeap::new();
            let (mut last, mut pushed, mut popped) = (0.0f64, 0u32, 0u32);
            let mut seen = Vec::new();
            for (i, &(delta, pop)) in ops.iter().enumerate() {
                heap.push(Entry { share: last + delta, channel: i as u32 });
                pushed += 1;
                if pop {
                    let e = heap.pop().unwrap();
                    prop_assert!(e.share >= last);
                    last = e.share;
                    seen.push(e.channel);
                    popped += 1;
                }
            }
            while let Some(e) = heap.pop() {
                prop_assert!(e.share >= last);
                last = e.share;
                seen.push(e.channel);
                popped += 1;
            }
            prop_assert_eq!(pushed, popped);
            seen.sort_unstable();
            seen.dedup();
            prop_assert_eq!(seen.len() as u32, pushed);
        }
    }
}
