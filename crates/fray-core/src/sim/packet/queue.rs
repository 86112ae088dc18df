//! The event queue: a radix heap of 128-bit keys whose time part never goes back.
//!
//! A simulation only ever schedules events at or after the current time, so the keys popped
//! are monotone; a radix heap then pushes in O(1) and pops in amortised O(1) (each key
//! moves to a lower bucket at most 128 times, in practice once or twice), where a binary
//! heap pays O(log n) cache misses on every pop.

/// A min-queue of `u128` keys for monotone use: a key pushed is never below the last key
/// popped, except at the same time, where it is popped before any larger key.
#[derive(Debug, Clone)]
pub(crate) struct RadixHeap {
    /// The last key popped (or 0).
    last: u128,
    /// Bucket `i > 0` holds keys whose highest bit differing from `last` is bit `i - 1`;
    /// bucket 0 holds keys equal to (or, at the same time, below) `last`.
    buckets: Vec<Vec<u128>>,
    len: usize,
}

impl RadixHeap {
    /// An empty queue.
    pub(crate) fn new() -> Self {
        Self {
            last: 0,
            buckets: vec![Vec::new(); 129],
            len: 0,
        }
    }

    fn bucket(&self, key: u128) -> usize {
        if key <= self.last {
            0
        } else {
            128 - (key ^ self.last).leading_zeros() as usize
        }
    }

    /// Adds `key`.
    pub(crate) fn push(&mut self, key: u128) {
        let b = self.bucket(key);
        self.buckets[b].push(key);
        self.len += 1;
    }

    /// The smallest key, moved to bucket 0 so that the next pop is O(1).
    pub(crate) fn peek(&mut self) -> Option<u128> {
        if self.len == 0 {
            return None;
        }
        if self.buckets[0].is_empty() {
            let i = (1..self.buckets.len())
                .find(|&i| !self.buckets[i].is_empty())
                .expect("a non-empty queue has a non-empty bucket");
            let keys = std::mem::take(&mut self.buckets[i]);
            self.last = *keys.iter().min().expect("non-empty bucket");
            for &k in &keys {
                let b = self.bucket(k);
                self.buckets[b].push(k);
            }
            // Give the emptied bucket its storage back for later pushes.
            let mut keys = keys;
            keys.clear();
            if self.buckets[i].is_empty() {
                self.buckets[i] = keys;
            }
        }
        self.buckets[0].last().copied()
    }

    /// Removes and returns the smallest key.
    pub(crate) fn pop(&mut self) -> Option<u128> {
        self.peek()?;
        self.len -= 1;
        self.buckets[0].pop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::Entropy;

    #[test]
    fn pops_in_order_while_pushing_monotone_keys() {
        let mut q = RadixHeap::new();
        let mut rng = Entropy::new(9);
        let mut reference = std::collections::BinaryHeap::new();
        let mut now = 0u128;
        for step in 0..20_000 {
            if step % 3 != 2 {
                let key = now + u128::from(rng.next_u64() >> 40);
                q.push(key);
                reference.push(std::cmp::Reverse(key));
            } else if let Some(k) = q.pop() {
                assert_eq!(Some(std::cmp::Reverse(k)), reference.pop());
                now = k;
            }
        }
        while let Some(k) = q.pop() {
            assert_eq!(Some(std::cmp::Reverse(k)), reference.pop());
        }
        assert!(reference.is_empty());
    }
}
