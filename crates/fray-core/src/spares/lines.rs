//! The free and the failed nodes of every line of a grid, as bit sets: a slide asks, per line,
//! for the first node past a position that is free or failed, and gets it without walking
//! the line.

/// For every line along every dimension of a grid (the nodes whose coordinates differ only
/// along that dimension), one bit per node for "free" and one for "failed".
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineSets {
    /// Size of each dimension.
    dims: Vec<u32>,
    /// 64-bit words per line along each dimension.
    words: Vec<usize>,
    /// `weights[d * q + e]`: the step, in words, of coordinate `e` in the first word of a
    /// line along `d` (0 for `e == d`), lines along `d` starting at word `first[d]`.
    weights: Vec<usize>,
    first: Vec<usize>,
    free: Vec<u64>,
    failed: Vec<u64>,
    /// Scratch of [`set`](Self::set): the node's coordinates.
    coords: Vec<u32>,
}

impl LineSets {
    /// Empty sets (no node free or failed) for a grid of sizes `dims`.
    pub(crate) fn new(dims: &[u32]) -> Self {
        let q = dims.len();
        let words: Vec<usize> = dims.iter().map(|&n| (n as usize).div_ceil(64)).collect();
        let (mut weights, mut first, mut total) = (vec![0; q * q], Vec::with_capacity(q), 0);
        for d in 0..q {
            first.push(total);
            let mut step = words[d];
            for e in (0..q).filter(|&e| e != d) {
                weights[d * q + e] = step;
                step *= dims[e] as usize;
            }
            total += step;
        }
        Self {
            dims: dims.to_vec(),
            words,
            weights,
            first,
            free: vec![0; total],
            failed: vec![0; total],
            coords: Vec::with_capacity(q),
        }
    }

    /// The first word of the line along `d` through the node with coordinates `coords` (the
    /// one along `d` is not read).
    #[inline]
    pub(crate) fn line(&self, d: usize, coords: &[u32]) -> usize {
        let q = self.dims.len();
        let weights = &self.weights[d * q..(d + 1) * q];
        self.first[d]
            + coords
                .iter()
                .zip(weights)
                .map(|(&c, &w)| c as usize * w)
                .sum::<usize>()
    }

    /// Marks `node` free (`failed` false) or failed (`failed` true), or clears that mark
    /// (`on` false), on each of its lines.
    pub(crate) fn set(&mut self, node: u32, failed: bool, on: bool) {
        let mut coords = std::mem::take(&mut self.coords);
        coords.clear();
        let mut rest = node;
        for &n in &self.dims {
            coords.push(rest % n);
            rest /= n;
        }
        for (d, &c) in coords.iter().enumerate() {
            let word = self.line(d, &coords) + c as usize / 64;
            let bit = 1u64 << (c % 64);
            let sets = if failed {
                &mut self.failed
            } else {
                &mut self.free
            };
            if on {
                sets[word] |= bit;
            } else {
                sets[word] &= !bit;
            }
        }
        self.coords = coords;
    }

    /// On the line along `d` starting at word `line` (see [`line`](Self::line)), the first
    /// coordinate past `from` (up: above it, else below it) whose node is free or failed, and
    /// whether it is free; `None` when the line ends first.
    #[inline]
    pub(crate) fn next_stop(
        &self,
        d: usize,
        line: usize,
        from: u32,
        up: bool,
    ) -> Option<(u32, bool)> {
        let words = self.words[d];
        let stop = |i: usize, bit: u32| {
            let free = self.free[line + i] >> bit & 1 == 1;
            Some((i as u32 * 64 + bit, free))
        };
        let both = |i: usize| self.free[line + i] | self.failed[line + i];
        if up {
            let start = from as usize + 1;
            let mut i = start / 64;
            let mut mask = !0u64 << (start % 64);
            while i < words {
                let x = both(i) & mask;
                if x != 0 {
                    return stop(i, x.trailing_zeros());
                }
                mask = !0;
                i += 1;
            }
        } else if from > 0 {
            let end = from as usize - 1;
            let mut i = end / 64;
            let mut mask = !0u64 >> (63 - end % 64);
            loop {
                let x = both(i) & mask;
                if x != 0 {
                    return stop(i, 63 - x.leading_zeros());
                }
                if i == 0 {
                    break;
                }
                mask = !0;
                i -= 1;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// After random marks and clears, every line's first free or failed node past every
        /// position, both ways, is the one a walk along the line finds (lines of more than
        /// 64 nodes included).
        #[test]
        fn next_stop_is_the_first_marked_node_a_walk_finds(
            dims in prop::collection::vec(1u32..140, 1..4),
            marks in prop::collection::vec((any::<u32>(), 0u8..3), 0..200),
        ) {
            prop_assume!(dims.iter().product::<u32>() <= 4_000);
            let n: u32 = dims.iter().product();
            let mut sets = LineSets::new(&dims);
            // 0 nothing, 1 free, 2 failed.
            let mut state = vec![0u8; n as usize];
            for (pick, mark) in marks {
                let node = pick % n;
                match state[node as usize] {
                    1 => sets.set(node, false, false),
                    2 => sets.set(node, true, false),
                    _ => {}
                }
                if mark > 0 {
                    sets.set(node, mark == 2, true);
                }
                state[node as usize] = mark;
            }
            let q = dims.len();
            let strides: Vec<u32> = (0..q).map(|d| dims[..d].iter().product()).collect();
            let coord = |node: u32, e: usize| node / strides[e] % dims[e];
            for node in 0..n {
                for d in 0..q {
                    let coords: Vec<u32> = (0..q).map(|e| coord(node, e)).collect();
                    let line = sets.line(d, &coords);
                    let c = coord(node, d);
                    let base = node - c * strides[d];
                    for up in [true, false] {
                        let walk = if up {
                            (c + 1..dims[d]).find(|&x| state[(base + x * strides[d]) as usize] > 0)
                        } else {
                            (0..c).rev().find(|&x| state[(base + x * strides[d]) as usize] > 0)
                        };
                        let want = walk.map(|x| (x, state[(base + x * strides[d]) as usize] == 1));
                        prop_assert_eq!(sets.next_stop(d, line, c, up), want);
                    }
                }
            }
        }
    }
}
