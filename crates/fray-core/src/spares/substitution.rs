//! The substitution methods: 0D (nearest free node) and kD sliding.
//!
//! **kD sliding** (k >= 1) of a failure at node `p` along a spare dimension `d`, within a
//! sub-space `S` of `k` dimensions that contains `d`: consider every line along `d` whose
//! coordinates on the dimensions of `S` other than `d` take any value and whose other
//! coordinates are `p`'s. On each line that runs a rank at `p`'s position along `d` (and on
//! `p`'s own line, where the failed rank waits), the ranks from that position up to the first
//! free node move one step towards it. The slide is possible only if every such line reaches
//! a free node before a failed node or the end of the dimension (sliding never wraps round a
//! torus). 1D sliding moves one line; qD sliding on a q-dimensional grid vacates a whole
//! hyperplane, which keeps every route's channels in one-to-one correspondence with the
//! fault-free ones: no extra collision.
//!
//! Slides go up (towards the spare side) first; once earlier slides have vacated nodes, a
//! slide may also go down, towards a vacated hyperplane or line, which is how the nodes freed
//! by the first slides get used by later ones.
//!
//! Choice of direction (the paper: keep the number of sliding directions as uneven as
//! possible, so that the most failures stay recoverable): the spare dimensions are tried in
//! decreasing order of the number of slides already made along them, ties going to the lower
//! dimension; within a dimension, up before down, and the sub-spaces in lexicographic order
//! of their other dimensions. The first possible slide is taken.
//!
//! **0D**: the failed rank moves to the free node nearest by hop count (torus-aware). Ties go
//! to the spare side used least so far by 0D (so failures in one row alternate between the
//! sides of a `2D(2,1)` allocation; vacated nodes off the spare sides count as one more
//! side), then to the lower node index.

use std::sync::Arc;

use super::grid::Grid;
use super::placement::{Move, Placement, FAILED, FREE};
use super::{Method, SpareAllocation};
use crate::fabric::Cartesian;

/// What one substitution did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Substitution {
    /// The sliding degree used (0 for 0D).
    pub degree: usize,
    /// The dimension slid along (k >= 1), or the spare side used (0D; `r` for a vacated node).
    pub axis: usize,
    /// The moves, the failed rank's among them (from its failed node).
    pub moves: Vec<Move>,
}

/// Applies a method to failures, keeping the counters its direction and tie rules need.
#[derive(Debug, Clone)]
pub struct Substituter {
    shape: Cartesian,
    alloc: SpareAllocation,
    method: Method,
    slides_along: Vec<u32>,
    zero_d_on_side: Vec<u32>,
    /// Scratch of [`Self::slide`]: the other dimensions of the sub-space tried, the spare
    /// dimensions in the order tried, and the subset of the other dimensions.
    others: Vec<usize>,
    dims: Vec<usize>,
    subset: Vec<usize>,
    /// Scratch of 0D: hops from the failed node to each free node.
    hops: Vec<u16>,
    /// Scratch of [`Self::slide_moves`]: per line that moves, its first node, the rank
    /// there and the free node ending it.
    ends: Vec<(u32, u32, u32)>,
    /// Per spare dimension and direction (`2d + down`), whether the failed node's own line
    /// is open, for the failure being substituted.
    own_line: Vec<Open>,
    /// Slide attempts that a line other than the failed node's own refused.
    blocked: Blocked,
    nodes: Arc<Nodes>,
}

/// Per-node tables for 0D's search, and where each slide attempt is remembered in
/// [`Blocked`]; shared by every clone of a substituter.
#[derive(Debug)]
struct Nodes {
    grid: Grid,
    /// `side[node]`: the spare side `node` lies on, or `r` (the number of sides) off them.
    side: Vec<u32>,
    /// `attempts[attempt(degree, d, up, subset)]`: the first entry of that attempt's block
    /// in [`Blocked`], or `usize::MAX` when it is not remembered. A block has one entry per
    /// position of the failed node off the attempt's other dimensions.
    attempts: Vec<usize>,
    /// Most sub-spaces of one degree (`C(q-1, k-1)` at its largest).
    subsets: usize,
    /// Number of entries of [`Blocked`].
    entries: usize,
    /// `scales[attempt * q + e]`: the weight of the coordinate along `e` in the index of a
    /// failed node's position within the attempt's block (0 on the sub-space's other
    /// dimensions, mixed radix over the rest, the lowest dimension fastest).
    scales: Vec<u32>,
}

impl Nodes {
    /// The weight of the coordinate along `d` in the positions of `attempt`'s block.
    fn scale(&self, attempt: usize, d: usize) -> u32 {
        self.scales[attempt * self.grid.dims() + d]
    }

    /// The entry of [`Blocked`] for the attempt at `attempt` of a failure at `node`, or
    /// `None` when the attempt is not remembered.
    #[inline]
    fn position(&self, attempt: usize, node: u32) -> Option<usize> {
        let block = self.attempts[attempt];
        if block == usize::MAX {
            return None;
        }
        let q = self.grid.dims();
        let scales = &self.scales[attempt * q..(attempt + 1) * q];
        let within: u32 = (0..q).map(|e| self.grid.coord(node, e) * scales[e]).sum();
        Some(block + within as usize)
    }
}

/// Free nodes per block of [`least_of_nearest`]'s search.
const TIE_BLOCK: usize = 32;

/// The node of `nodes` with the least `key` among those whose `hops` (in the same order)
/// equal `nearest`. Few nodes are nearest: blocks without one are skipped after a
/// comparison that vectorises.
fn least_of_nearest<T: Copy + PartialEq, K: Ord>(
    hops: &[T],
    nearest: T,
    nodes: &[u32],
    key: impl Fn(u32) -> K,
) -> Option<u32> {
    let mut least: Option<(K, u32)> = None;
    for (block, nodes) in hops.chunks(TIE_BLOCK).zip(nodes.chunks(TIE_BLOCK)) {
        if !block.iter().fold(false, |any, &h| any | (h == nearest)) {
            continue;
        }
        for (&h, &n) in block.iter().zip(nodes) {
            if h == nearest {
                let k = key(n);
                if least.as_ref().is_none_or(|(l, _)| k < *l) {
                    least = Some((k, n));
                }
            }
        }
    }
    least.map(|(_, n)| n)
}

/// Most entries of [`Blocked`] (16 bytes each): degrees whose attempts would need more are
/// not remembered.
const MAX_BLOCKED: usize = 1 << 16;

/// Slide attempts refused by a line other than the failed node's own, each with that line
/// and its [`Placement::line_stamp`]. While the stamp holds, the line has had no change that
/// could let the slide through (its nodes only took ranks or failed), so the attempt is
/// refused again without walking its lines. The failed node's own line is never remembered:
/// it is the one line whose start fails anew.
///
/// Entries hold for one placement's [`lineage`](Placement::lineage): a clone forgets them,
/// and a substitution on another lineage starts a new epoch, which empties every entry.
#[derive(Debug)]
struct Blocked {
    /// The lineage the entries hold for (`u64::MAX`: none).
    lineage: u64,
    /// Entries of another epoch are empty.
    epoch: u32,
    /// `(epoch, line, stamp)` per attempt and position (see [`Nodes::attempts`]).
    entries: Vec<(u32, u32, u64)>,
}

impl Clone for Blocked {
    /// An empty memory: the entries hold for one placement's lineage, and the clone will be
    /// used with another (a clone or reset of a placement has a new lineage).
    fn clone(&self) -> Self {
        Self {
            lineage: u64::MAX,
            epoch: 0,
            entries: Vec::new(),
        }
    }
}

impl Blocked {
    /// Empties the memory unless it holds for `placement`'s lineage.
    fn follow(&mut self, placement: &Placement, size: usize) {
        if self.lineage == placement.lineage() {
            return;
        }
        self.lineage = placement.lineage();
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 || self.entries.len() != size {
            self.entries.clear();
            self.entries.resize(size, (0, 0, 0));
            self.epoch = 1;
        }
    }

    /// Whether entry `i` names a line that still blocks.
    #[inline]
    fn holds(&self, i: usize, placement: &Placement) -> bool {
        let (epoch, line, stamp) = self.entries[i];
        epoch == self.epoch && placement.line_stamp(line) == stamp
    }

    fn remember(&mut self, i: usize, line: u32, placement: &Placement) {
        self.entries[i] = (self.epoch, line, placement.line_stamp(line));
    }
}

impl Substituter {
    /// A substituter for a job on `shape` with spares `alloc`, using `method`.
    pub fn new(shape: Cartesian, alloc: SpareAllocation, method: Method) -> Self {
        let sides = alloc.sides;
        let q = shape.num_dims();
        let n = shape.num_nodes();
        let subsets = (1..=q).map(|k| binomial(q - 1, k - 1)).max().unwrap_or(1);
        let mut attempts = vec![usize::MAX; (q + 1) * sides * 2 * subsets];
        let mut scales = vec![0u32; attempts.len() * q];
        let mut entries = 0;
        // Degrees 2 and up (a 1D slide has the failed node's line only), while they fit.
        for k in 2..=q {
            let mut blocks = Vec::new();
            for d in 0..sides {
                for up in [true, false] {
                    let mut subset: Vec<usize> = (0..k - 1).collect();
                    let mut ord = 0;
                    loop {
                        let others: Vec<usize> =
                            subset.iter().map(|&i| i + usize::from(i >= d)).collect();
                        let across: usize = others.iter().map(|&e| shape.dims()[e]).product();
                        let attempt = attempt_index(k, d, up, ord, sides, subsets);
                        let mut scale = 1;
                        for e in (0..q).filter(|e| !others.contains(e)) {
                            scales[attempt * q + e] = scale as u32;
                            scale *= shape.dims()[e];
                        }
                        blocks.push((attempt, n / across));
                        ord += 1;
                        if !next_subset(&mut subset, q - 1) {
                            break;
                        }
                    }
                }
            }
            let size: usize = blocks.iter().map(|b| b.1).sum();
            if entries + size > MAX_BLOCKED {
                break;
            }
            for (i, len) in blocks {
                attempts[i] = entries;
                entries += len;
            }
        }
        Self {
            alloc,
            method,
            slides_along: vec![0; sides],
            zero_d_on_side: vec![0; sides + 1],
            others: Vec::new(),
            dims: Vec::new(),
            subset: Vec::new(),
            hops: Vec::new(),
            ends: Vec::new(),
            own_line: vec![Open::Unknown; 2 * sides],
            blocked: Blocked {
                lineage: u64::MAX,
                epoch: 0,
                entries: Vec::new(),
            },
            nodes: Arc::new(Nodes {
                grid: Grid::new(&shape),
                side: (0..shape.num_nodes() as u32)
                    .map(|n| alloc.side_of(&shape, n).unwrap_or(sides) as u32)
                    .collect(),
                attempts,
                subsets,
                entries,
                scales,
            }),
            shape,
        }
    }

    /// The method applied.
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// Finds the substitution for the failed `rank`, whose node is already marked failed in
    /// `placement`, and updates the counters; `None` when the method cannot recover it.
    /// The caller applies the moves to the placement.
    ///
    /// Slide attempts that a line refused are remembered with the line's stamp (see
    /// [`Placement::line_stamp`]) and refused again without a walk while it holds; the
    /// memory follows one placement's lineage and empties when called with another.
    pub fn substitute(&mut self, placement: &Placement, rank: u32) -> Option<Substitution> {
        self.blocked.follow(placement, self.nodes.entries);
        self.own_line.fill(Open::Unknown);
        for i in 0..self.method.degrees().len() {
            let degree = self.method.degrees()[i];
            let found = if degree == 0 {
                self.zero_d(placement, rank)
            } else {
                self.slide(placement, rank, degree)
            };
            if let Some(s) = found {
                if s.degree == 0 {
                    self.zero_d_on_side[s.axis] += 1;
                } else {
                    self.slides_along[s.axis] += 1;
                }
                return Some(s);
            }
        }
        None
    }

    /// Undoes the counters of a substitution (the caller reverts the moves).
    pub fn forget(&mut self, s: &Substitution) {
        if s.degree == 0 {
            self.zero_d_on_side[s.axis] -= 1;
        } else {
            self.slides_along[s.axis] -= 1;
        }
    }

    fn zero_d(&mut self, placement: &Placement, rank: u32) -> Option<Substitution> {
        let failed = placement.node_of(rank);
        let Nodes { grid, side, .. } = &*self.nodes;
        let free = placement.free_nodes();
        // Hops to every free node, one dimension at a time over the free nodes' coordinates,
        // in 16 bits (eight to a vector register), saturating: a free node at fewer than
        // `u16::MAX` hops has its exact count.
        let hops = &mut self.hops;
        hops.clear();
        hops.resize(free.len(), 0);
        let ring = |d: usize, a: u32, b: u32| {
            let delta = a.abs_diff(b);
            grid.ring(d).map_or(delta, |n| delta.min(n - delta))
        };
        let nearest = match placement.free_coords() {
            Some(columns) => {
                for (d, column) in columns.iter().enumerate() {
                    let c = grid.coord(failed, d) as u16;
                    match grid.ring(d) {
                        Some(n) => {
                            let n = n as u16;
                            for (h, &x) in hops.iter_mut().zip(column) {
                                let delta = c.abs_diff(x);
                                *h = h.saturating_add(delta.min(n - delta));
                            }
                        }
                        None => {
                            for (h, &x) in hops.iter_mut().zip(column) {
                                *h = h.saturating_add(c.abs_diff(x));
                            }
                        }
                    }
                }
                hops.iter().fold(u16::MAX, |m, &h| m.min(h))
            }
            None => u16::MAX,
        };
        // The least (uses of the side, node) among the nearest: the side's count only
        // breaks ties in hops.
        let key = |n: u32| (self.zero_d_on_side[side[n as usize] as usize], n);
        let target = if nearest < u16::MAX {
            least_of_nearest(hops, nearest, free, key)
        } else {
            // Every free node is at least `u16::MAX` hops away, or the coordinates do not
            // fit in 16 bits: exact counts.
            let exact: Vec<u32> = free
                .iter()
                .map(|&n| {
                    (0..grid.dims())
                        .map(|d| ring(d, grid.coord(failed, d), grid.coord(n, d)))
                        .sum()
                })
                .collect();
            let nearest = *exact.iter().min()?;
            least_of_nearest(&exact, nearest, free, key)
        }?;
        Some(Substitution {
            degree: 0,
            axis: side[target as usize] as usize,
            moves: vec![Move {
                rank,
                from: failed,
                to: target,
            }],
        })
    }

    fn slide(&mut self, placement: &Placement, rank: u32, degree: usize) -> Option<Substitution> {
        let q = self.shape.num_dims();
        let mut dims = std::mem::take(&mut self.dims);
        dims.clear();
        dims.extend(0..self.alloc.sides);
        dims.sort_by_key(|&d| (std::cmp::Reverse(self.slides_along[d]), d));
        let mut subset = std::mem::take(&mut self.subset);
        let mut ends = std::mem::take(&mut self.ends);
        let mut found = None;
        let failed = placement.node_of(rank);
        let (sides, subsets) = (self.alloc.sides, self.nodes.subsets);
        'dims: for &d in &dims {
            // The dimensions other than `d`, in order: `rest(i)` is the `i`-th of them.
            let rest = |i: usize| i + usize::from(i >= d);
            for up in [true, false] {
                // The failed node's own line first: a line that blocks the failed node's own
                // slide along `d` blocks every degree and sub-space of it.
                let own = &mut self.own_line[2 * d + usize::from(!up)];
                if *own == Open::Unknown {
                    let lines = Lines::new(&self.nodes.grid, placement, rank, d, up);
                    *own = match lines.end(failed) {
                        Ok(Some((_, end))) => Open::Yes(end),
                        _ => Open::No,
                    };
                }
                let Open::Yes(own_end) = *own else {
                    continue;
                };
                subset.clear();
                subset.extend(0..degree - 1);
                let mut ord = 0;
                loop {
                    self.others.clear();
                    self.others.extend(subset.iter().map(|&i| rest(i)));
                    let attempt = attempt_index(degree, d, up, ord, sides, subsets);
                    let entry = self.nodes.position(attempt, failed);
                    let hit = entry.is_some_and(|i| self.blocked.holds(i, placement));
                    if !hit {
                        match self.slide_moves(placement, rank, d, up, own_end, &mut ends) {
                            Ok(moves) => {
                                found = Some(Substitution {
                                    degree,
                                    axis: d,
                                    moves,
                                });
                                break 'dims;
                            }
                            Err(refusal) => {
                                if let Some(i) = entry {
                                    // Positions along `d`, counted in the slide's direction.
                                    let scale = self.nodes.scale(attempt, d) as isize;
                                    let scale = if up { scale } else { -scale };
                                    let (behind, ahead) =
                                        (refusal.behind as isize, refusal.ahead as isize);
                                    for k in -behind..=ahead {
                                        let at = i.wrapping_add_signed(k * scale);
                                        self.blocked.remember(at, refusal.line, placement);
                                    }
                                }
                            }
                        }
                    }
                    ord += 1;
                    if !next_subset(&mut subset, q - 1) {
                        break;
                    }
                }
            }
        }
        self.dims = dims;
        self.ends = ends;
        self.subset = subset;
        found
    }

    /// The moves of the slide along `d` (up or down) within `{d} + self.others`, whose failed
    /// node's own line is open up to `own_end`. When it is impossible: `Err` with the line
    /// that refused it. Every line is checked, and its end kept in `ends`, before any move is
    /// listed.
    fn slide_moves(
        &self,
        placement: &Placement,
        rank: u32,
        d: usize,
        up: bool,
        own_end: u32,
        ends: &mut Vec<(u32, u32, u32)>,
    ) -> Result<Vec<Move>, Refusal> {
        ends.clear();
        let lines = Lines::new(&self.nodes.grid, placement, rank, d, up);
        let mut refused = None;
        let end = |start: u32| {
            if start == lines.failed {
                Ok(Some((lines.rank, own_end)))
            } else {
                lines.end(start)
            }
        };
        self.for_each_line(lines.failed, |start| match end(start) {
            Err(ahead) => {
                refused = Some((start, ahead));
                false
            }
            Ok(Some((first, end))) => {
                ends.push((start, first, end));
                true
            }
            Ok(None) => true,
        });
        if let Some((start, ahead)) = refused {
            return Err(Refusal {
                line: placement.line_of(lines.d, start),
                behind: lines.ranks_behind(start),
                ahead,
            });
        }
        let steps = |start: u32, end: u32| start.abs_diff(end) / lines.stride;
        let mut moves =
            Vec::with_capacity(ends.iter().map(|&(s, _, e)| steps(s, e) as usize).sum());
        for &(start, first, end) in ends.iter() {
            let (mut from, mut moving) = (start, first);
            while from != end {
                let to = lines.step(from);
                moves.push(Move {
                    rank: moving,
                    from,
                    to,
                });
                moving = placement.state(to);
                from = to;
            }
        }
        Ok(moves)
    }

    /// Calls `visit(start)` for the node of every line through the sub-space `self.others`
    /// around `failed` (odometer order, first `others` dimension fastest), while it returns
    /// true; whether every call did.
    fn for_each_line(&self, failed: u32, mut visit: impl FnMut(u32) -> bool) -> bool {
        let grid = &self.nodes.grid;
        // The line origin with every `others` coordinate at zero; then the odometer, whose
        // digits are the coordinates of `start` itself.
        let mut start = failed;
        for &e in &self.others {
            start -= grid.coord(failed, e) * grid.stride(e);
        }
        loop {
            if !visit(start) {
                return false;
            }
            let mut i = 0;
            loop {
                let Some(&e) = self.others.get(i) else {
                    return true;
                };
                let (c, n, stride) = (grid.coord(start, e), grid.size(e), grid.stride(e));
                if c + 1 < n {
                    start += stride;
                    break;
                }
                start -= (n - 1) * stride;
                i += 1;
            }
        }
    }
}

/// A line that refused a slide from the failed node's position: it refuses the same slide
/// from every position from `behind` nodes before it to `ahead` nodes past it (along the
/// slide), which all run ranks up to the failed node or the end that blocks them.
struct Refusal {
    /// The line, as [`Placement::line_of`] names it along the slide's dimension.
    line: u32,
    behind: u32,
    ahead: u32,
}

/// Whether the failed node's own line is open for a slide along a dimension and direction
/// (unknown until walked, once per failure), and if so the free node that ends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Unknown,
    Yes(u32),
    No,
}

/// The lines of a slide of the failed `rank` along `d`, up or down, walked from the failed
/// node's position.
struct Lines<'a> {
    placement: &'a Placement,
    rank: u32,
    failed: u32,
    /// The dimension slid along.
    d: usize,
    stride: u32,
    /// The node index change of one step along the slide (`stride`, or its negation in
    /// wrapping arithmetic).
    delta: u32,
    /// Size of the dimension.
    size: u32,
    /// Steps from the failed node's position to the end of the dimension.
    steps: u32,
}

impl<'a> Lines<'a> {
    fn new(grid: &Grid, placement: &'a Placement, rank: u32, d: usize, up: bool) -> Self {
        let failed = placement.node_of(rank);
        let c = grid.coord(failed, d);
        Self {
            placement,
            rank,
            failed,
            d,
            stride: grid.stride(d),
            delta: if up {
                grid.stride(d)
            } else {
                grid.stride(d).wrapping_neg()
            },
            size: grid.size(d),
            steps: if up { grid.size(d) - 1 - c } else { c },
        }
    }

    /// The next node along the slide.
    #[inline]
    fn step(&self, node: u32) -> u32 {
        node.wrapping_add(self.delta)
    }

    /// The free node ending the line from `start` and the rank that moves first; `Err` with
    /// the number of nodes running ranks past `start` when the line blocks the slide (a
    /// failed node or the end of the dimension follows them), `Ok(None)` when it runs no rank
    /// at the failed node's position (the failed node's own line always does: its rank
    /// waits there).
    #[inline]
    fn end(&self, start: u32) -> Result<Option<(u32, u32)>, u32> {
        let first = if start == self.failed {
            self.rank
        } else {
            self.placement.state(start)
        };
        if start != self.failed && first >= FAILED {
            return Ok(None);
        }
        let mut node = start;
        for k in 0..self.steps {
            node = self.step(node);
            let state = self.placement.state(node);
            if state >= FAILED {
                return if state == FREE {
                    Ok(Some((first, node)))
                } else {
                    Err(k)
                };
            }
        }
        Err(self.steps)
    }

    /// Nodes running ranks right behind `start` (against the slide), up to the first that
    /// does not or the end of the dimension.
    fn ranks_behind(&self, start: u32) -> u32 {
        let mut node = start;
        for k in 0..self.size - 1 - self.steps {
            node = node.wrapping_sub(self.delta);
            if self.placement.state(node) >= FAILED {
                return k;
            }
        }
        self.size - 1 - self.steps
    }
}

/// Where the attempt of a `degree` slide along spare dimension `d` (up or down) in its
/// `ord`-th sub-space lies in [`Nodes::attempts`].
fn attempt_index(
    degree: usize,
    d: usize,
    up: bool,
    ord: usize,
    sides: usize,
    subsets: usize,
) -> usize {
    ((degree * sides + d) * 2 + usize::from(!up)) * subsets + ord
}

/// `n` choose `k`.
fn binomial(n: usize, k: usize) -> usize {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// Advances a sorted `k`-subset of `0..n` to the next in lexicographic order.
fn next_subset(subset: &mut [usize], n: usize) -> bool {
    let k = subset.len();
    for i in (0..k).rev() {
        if subset[i] < n - k + i {
            subset[i] += 1;
            for j in i + 1..k {
                subset[j] = subset[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(spec: &str, alloc: &str, method: &str) -> (Cartesian, Placement, Substituter) {
        let spec: crate::fabric::FabricSpec = spec.parse().unwrap();
        let shape = spec.as_cartesian().unwrap().clone();
        let alloc: SpareAllocation = alloc.parse().unwrap();
        let method = Method::parse(method, shape.num_dims()).unwrap();
        let placement = Placement::initial(&shape, &alloc);
        (
            shape.clone(),
            placement,
            Substituter::new(shape, alloc, method),
        )
    }

    fn fail(p: &mut Placement, s: &mut Substituter, rank: u32) -> Option<Substitution> {
        p.fail_rank(rank);
        let sub = s.substitute(p, rank)?;
        p.apply(&sub.moves);
        Some(sub)
    }

    #[test]
    fn subsets_in_lexicographic_order() {
        let mut s = vec![0, 1];
        let mut all = vec![s.clone()];
        while next_subset(&mut s, 4) {
            all.push(s.clone());
        }
        assert_eq!(
            all,
            vec![
                vec![0, 1],
                vec![0, 2],
                vec![0, 3],
                vec![1, 2],
                vec![1, 3],
                vec![2, 3]
            ]
        );
    }

    #[test]
    fn one_d_slides_the_row_towards_the_spare() {
        // mesh 5x4, 2D(2,1): compute box 4x3, rank = x + 4y. Fail rank 5 = (1,1).
        let (shape, mut p, mut s) = setup("mesh:5x4", "2D(2,1)", "1D");
        let sub = fail(&mut p, &mut s, 5).unwrap();
        assert_eq!((sub.degree, sub.axis, sub.moves.len()), (1, 0, 3));
        for (rank, x) in [(5, 2), (6, 3), (7, 4)] {
            assert_eq!(shape.coords(p.node_of(rank)), vec![x, 1]);
        }
        assert_eq!(p.state(shape.node(&[1, 1])), FAILED);
    }

    #[test]
    fn full_degree_slides_vacate_a_plane_then_stop() {
        let (shape, mut p, mut s) = setup("mesh:5x4", "2D(2,1)", "2D");
        let sub = fail(&mut p, &mut s, 5).unwrap(); // (1,1): column 1 vacated
        assert_eq!((sub.degree, sub.axis), (2, 0));
        for y in 0..3 {
            assert!(p.state(shape.node(&[1, y])) >= FAILED);
        }
        // Rank 10 = (2,2) now at (3,2): the next slide must go along y.
        let sub = fail(&mut p, &mut s, 10).unwrap();
        assert_eq!((sub.degree, sub.axis), (2, 1));
        // The grid is full along both dimensions now.
        assert!(fail(&mut p, &mut s, 0).is_none());
    }

    #[test]
    fn zero_d_alternates_sides_on_ties() {
        // mesh 5x5, 2D(2,1): rank (3,3) is one hop from both spare sides.
        let (shape, mut p, mut s) = setup("mesh:5x5", "2D(2,1)", "0D");
        let r = |x: u32, y: u32| x + 4 * y;
        let a = fail(&mut p, &mut s, r(3, 3)).unwrap();
        assert_eq!(shape.coords(a.moves[0].to), vec![4, 3]);
        // (2,2) is two hops from (4,2) and from (2,4): side 0 was used, so side 1 wins.
        let b = fail(&mut p, &mut s, r(2, 2)).unwrap();
        assert_eq!(shape.coords(b.moves[0].to), vec![2, 4]);
    }

    #[test]
    fn zero_d_takes_a_nearest_free_node() {
        for (spec, alloc) in [
            ("torus:7x6", "2D(2,1)"),
            ("mesh:6x5x4", "3D(2,1)"),
            ("torus:5x6x4", "3D(1,2)"),
        ] {
            let (shape, mut p, mut s) = setup(spec, alloc, "0D");
            let ranks = p.num_ranks() as u32;
            for i in 0..p.free_nodes().len() as u32 {
                let rank = (i * 7 + 3) % ranks;
                if p.state(p.node_of(rank)) == FAILED {
                    continue;
                }
                let node = p.node_of(rank);
                let nearest = p
                    .free_nodes()
                    .iter()
                    .map(|&n| shape.hop_distance(node, n))
                    .min()
                    .unwrap();
                let sub = fail(&mut p, &mut s, rank).unwrap();
                assert_eq!(shape.hop_distance(node, sub.moves[0].to), nearest, "{spec}");
            }
        }
    }

    #[test]
    fn zero_d_counts_hops_past_16_bits() {
        // mesh 65535x2x2, 3D(1,1): the spares are the four nodes at x = 65534. From
        // (0,1,1), with the spare (65534,1,1) failed, (65534,1,0) and (65534,0,1) are 65535
        // hops away and (65534,0,0), the lowest node, 65536: past what 16 bits count.
        let (shape, mut p, mut s) = setup("mesh:65535x2x2", "3D(1,1)", "0D");
        p.fail_free_node(shape.node(&[65534, 1, 1]));
        let sub = fail(&mut p, &mut s, 65534 * 3).unwrap();
        assert_eq!(shape.coords(sub.moves[0].to), vec![65534, 1, 0]);
        // mesh 70000x2, 2D(1,1): coordinates past 16 bits.
        let (shape, mut p, mut s) = setup("mesh:70000x2", "2D(1,1)", "0D");
        let sub = fail(&mut p, &mut s, 69999).unwrap();
        assert_eq!(shape.coords(sub.moves[0].to), vec![69999, 1]);
    }

    /// Each step of a random walk on a small grid: fail a rank (and keep or undo its
    /// substitution), or fail or restore a free node (as the sampled study marks the failed
    /// nodes of a case).
    #[derive(Debug, Clone)]
    enum Step {
        Rank { pick: u32, undo: bool },
        FreeNode { pick: u32, restore: bool },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (any::<u32>(), any::<bool>()).prop_map(|(pick, undo)| Step::Rank { pick, undo }),
            1 => (any::<u32>(), any::<bool>())
                .prop_map(|(pick, restore)| Step::FreeNode { pick, restore }),
        ]
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// A substituter that remembers refused slide attempts finds, at every failure, the
        /// substitution a substituter with the same counters and no memory finds (a clone
        /// forgets), through substitutions kept and undone and free nodes failed and
        /// restored.
        #[test]
        fn remembered_refusals_change_no_substitution(
            dims in prop::collection::vec(2usize..7, 2..4),
            wrap in any::<bool>(),
            sides in 1usize..4,
            thickness in 1usize..3,
            method in 0usize..4,
            steps in prop::collection::vec(step(), 1..80),
        ) {
            let q = dims.len();
            let shape = Cartesian::new(dims, vec![wrap; q]);
            let alloc = SpareAllocation { dims: q, sides: sides.min(q), thickness };
            prop_assume!(alloc.check_fits(&shape).is_ok());
            let method = ["hybrid(all)", "2D", "hybrid(2D+1D+0D)", "3D"][method];
            prop_assume!(method != "3D" || q == 3);
            let mut s = Substituter::new(
                shape.clone(),
                alloc,
                Method::parse(method, q).unwrap(),
            );
            let mut p = Placement::initial(&shape, &alloc);
            let ranks = p.num_ranks() as u32;
            let mut marked: Vec<u32> = Vec::new();
            for step in steps {
                match step {
                    Step::Rank { pick, undo } => {
                        let rank = pick % ranks;
                        if p.state(p.node_of(rank)) == FAILED {
                            continue;
                        }
                        let node = p.fail_rank(rank);
                        let fresh = s.clone().substitute(&p, rank);
                        let found = s.substitute(&p, rank);
                        prop_assert_eq!(&found, &fresh);
                        match found {
                            None => p.repair(node, rank),
                            Some(sub) => {
                                p.apply(&sub.moves);
                                if undo {
                                    p.revert(&sub.moves);
                                    p.repair(node, rank);
                                    s.forget(&sub);
                                }
                            }
                        }
                    }
                    Step::FreeNode { pick, restore } => {
                        if restore {
                            if let Some(node) = marked.pop() {
                                p.unfail_free_node(node);
                            }
                        } else if !p.free_nodes().is_empty() {
                            let node = p.free_nodes()[pick as usize % p.free_nodes().len()];
                            p.fail_free_node(node);
                            marked.push(node);
                        }
                    }
                }
            }
        }
    }

    /// The walk above does exercise the memory: on a 6x6x6 torus with two spare planes, the
    /// third and later failures refuse 3D slides on lines other than the failed node's, and
    /// those refusals are remembered and then used.
    #[test]
    fn refusals_are_remembered_and_used() {
        let (_, mut p, mut s) = setup("torus:6x6x6", "3D(2,1)", "hybrid(all)");
        let ranks = p.num_ranks() as u32;
        let (mut used, mut remembered) = (0, 0);
        for i in 0..20u32 {
            let rank = (i * 37 + 11) % ranks;
            if p.state(p.node_of(rank)) == FAILED {
                continue;
            }
            let before: Vec<_> = s.blocked.entries.clone();
            let node = p.fail_rank(rank);
            // What is remembered and still holds before this failure.
            let holding = before
                .iter()
                .filter(|e| e.0 == s.blocked.epoch && p.line_stamp(e.1) == e.2)
                .count();
            used += holding;
            let fresh = s.clone().substitute(&p, rank);
            let Some(sub) = s.substitute(&p, rank) else {
                p.repair(node, rank);
                continue;
            };
            assert_eq!(Some(&sub), fresh.as_ref());
            remembered = remembered.max(
                s.blocked
                    .entries
                    .iter()
                    .filter(|e| e.0 == s.blocked.epoch)
                    .count(),
            );
            p.apply(&sub.moves);
        }
        assert!(remembered > 0, "no refusal remembered");
        assert!(used > 0, "no remembered refusal held at a later failure");
    }
}
