//! The predicted times of the moving flows (their ends, or the times from which they may
//! leave), kept so that the earliest one and all those up to a time are found without a heap.
//!
//! The times sit in a flat array in the flows' order, cut in blocks of [`BLOCK`], and the
//! blocks in groups of [`BLOCK`]; each block and each group keeps a lower bound of its
//! times, exact unless the block is marked stale. Setting a time is O(1): a block whose
//! smallest time may have grown is only marked, and its minimum (and its group's) found
//! again, in O(BLOCK), when next asked. The earliest time then costs O(n / BLOCK^2) plus
//! O(BLOCK) per stale block, and the times up to `t` the same plus BLOCK per block that
//! holds one. After a solve that re-rated many flows (the time tolerance's events: thousands
//! of flows leave together and tens of thousands change rate) this is a sequential scan
//! instead of O(log n) heap work per re-rated flow, with the stale entries a lazy heap keeps;
//! at the events between solves (flows ending, messages delivered) it reads a few hundred
//! group bounds on the largest machines (800,000 flows) instead of every block's.

/// Times per block, and blocks per group.
const BLOCK: usize = 64;

/// Times in seconds (finite or infinite, never NaN), by position.
#[derive(Debug, Clone, Default)]
pub(super) struct TimeBlocks {
    times: Vec<f64>,
    /// A lower bound of each block's times, exact unless the block is stale.
    mins: Vec<f64>,
    stale: Vec<bool>,
    /// The stale blocks.
    stale_list: Vec<u32>,
    /// The smallest of each group's block bounds.
    group_mins: Vec<f64>,
}

impl TimeBlocks {
    /// The time at position `i`.
    #[inline]
    pub fn get(&self, i: usize) -> f64 {
        self.times[i]
    }

    /// Adds `time` at the next position.
    pub fn push(&mut self, time: f64) {
        if self.times.len().is_multiple_of(BLOCK) {
            if self.mins.len().is_multiple_of(BLOCK) {
                self.group_mins.push(time);
            }
            self.mins.push(time);
            self.stale.push(false);
        }
        let b = self.mins.len() - 1;
        self.mins[b] = self.mins[b].min(time);
        let g = self.group_mins.len() - 1;
        self.group_mins[g] = self.group_mins[g].min(time);
        self.times.push(time);
    }

    /// Sets the time at position `i`.
    #[inline]
    pub fn set(&mut self, i: usize, time: f64) {
        let old = std::mem::replace(&mut self.times[i], time);
        let b = i / BLOCK;
        if time <= self.mins[b] {
            self.mins[b] = time;
            let g = b / BLOCK;
            self.group_mins[g] = self.group_mins[g].min(time);
        } else if old <= self.mins[b] && !self.stale[b] {
            // The block's smallest time may have been this one.
            self.stale[b] = true;
            self.stale_list.push(b as u32);
        }
    }

    /// Finds the stale blocks' minimums again, and their groups'.
    fn refresh(&mut self) {
        if self.stale_list.is_empty() {
            return;
        }
        let mut groups = std::mem::take(&mut self.stale_list);
        for b in &mut groups {
            let i = *b as usize;
            let end = ((i + 1) * BLOCK).min(self.times.len());
            self.mins[i] = self.times[i * BLOCK..end]
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min);
            self.stale[i] = false;
            *b = (i / BLOCK) as u32;
        }
        groups.sort_unstable();
        groups.dedup();
        for &g in &groups {
            let g = g as usize;
            let end = ((g + 1) * BLOCK).min(self.mins.len());
            self.group_mins[g] = self.mins[g * BLOCK..end]
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min);
        }
        groups.clear();
        self.stale_list = groups;
    }

    /// The earliest time (infinite when there is none).
    pub fn min(&mut self) -> f64 {
        self.refresh();
        self.group_mins
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
    }

    /// Puts the positions whose time is at most `t` into `out`, in increasing order.
    pub fn up_to(&mut self, t: f64, out: &mut Vec<u32>) {
        self.refresh();
        for (g, &group_min) in self.group_mins.iter().enumerate() {
            if group_min > t {
                continue;
            }
            let blocks = g * BLOCK..((g + 1) * BLOCK).min(self.mins.len());
            for b in blocks {
                if self.mins[b] > t {
                    continue;
                }
                let start = b * BLOCK;
                let end = (start + BLOCK).min(self.times.len());
                for i in start..end {
                    if self.times[i] <= t {
                        out.push(i as u32);
                    }
                }
            }
        }
    }

    /// Keeps the times at the positions `keep` says, in their order.
    pub fn retain_positions(&mut self, mut keep: impl FnMut(usize) -> bool) {
        let times = std::mem::take(&mut self.times);
        self.mins.clear();
        self.stale.clear();
        self.stale_list.clear();
        self.group_mins.clear();
        for (i, time) in times.into_iter().enumerate() {
            if keep(i) {
                self.push(time);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// After any pushes, sets and compactions, the earliest time and the positions up to
        /// a time are those a scan of every time gives.
        #[test]
        fn agrees_with_a_scan(
            start in proptest::collection::vec(prop_oneof![0.0f64..10.0, Just(f64::INFINITY)], 1..9000),
            steps in proptest::collection::vec(
                (any::<u16>(), prop_oneof![0.0f64..10.0, Just(f64::INFINITY)], 0u8..20, 0.0f64..10.0),
                0..300,
            ),
        ) {
            let mut blocks = TimeBlocks::default();
            let mut naive = start.clone();
            for &time in &start {
                blocks.push(time);
            }
            for &(at, time, action, t) in &steps {
                match action {
                    0 => {
                        blocks.push(time);
                        naive.push(time);
                    }
                    1 => {
                        let drop = usize::from(at) % naive.len();
                        blocks.retain_positions(|i| i != drop);
                        naive.remove(drop);
                        if naive.is_empty() {
                            return Ok(());
                        }
                    }
                    _ => {
                        let i = usize::from(at) % naive.len();
                        blocks.set(i, time);
                        naive[i] = time;
                    }
                }
                let min = naive.iter().copied().fold(f64::INFINITY, f64::min);
                prop_assert_eq!(blocks.min(), min);
                let mut out = Vec::new();
                blocks.up_to(t, &mut out);
                let want: Vec<u32> = (0..naive.len() as u32).filter(|&i| naive[i as usize] <= t).collect();
                prop_assert_eq!(out, want);
                for (i, &time) in naive.iter().enumerate() {
                    prop_assert_eq!(blocks.get(i), time);
                }
            }
        }
    }
}
