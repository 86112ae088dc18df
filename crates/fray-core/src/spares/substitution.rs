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
    hops: Vec<u32>,
    nodes: Arc<Nodes>,
}

/// Per-node tables for 0D's search, shared by every clone of a substituter.
#[derive(Debug)]
struct Nodes {
    grid: Grid,
    /// `side[node]`: the spare side `node` lies on, or `r` (the number of sides) off them.
    side: Vec<u32>,
}

impl Substituter {
    /// A substituter for a job on `shape` with spares `alloc`, using `method`.
    pub fn new(shape: Cartesian, alloc: SpareAllocation, method: Method) -> Self {
        let sides = alloc.sides;
        Self {
            alloc,
            method,
            slides_along: vec![0; sides],
            zero_d_on_side: vec![0; sides + 1],
            others: Vec::new(),
            dims: Vec::new(),
            subset: Vec::new(),
            hops: Vec::new(),
            nodes: Arc::new(Nodes {
                grid: Grid::new(&shape),
                side: (0..shape.num_nodes() as u32)
                    .map(|n| alloc.side_of(&shape, n).unwrap_or(sides) as u32)
                    .collect(),
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
    pub fn substitute(&mut self, placement: &Placement, rank: u32) -> Option<Substitution> {
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
        let Nodes { grid, side } = &*self.nodes;
        // Hops to every free node, one dimension at a time over the free nodes' coordinates.
        let hops = &mut self.hops;
        hops.clear();
        hops.resize(placement.free_nodes().len(), 0);
        for (d, column) in placement.free_coords().iter().enumerate() {
            let (c, ring) = (grid.coord(failed, d), grid.ring(d));
            match ring {
                Some(n) => {
                    for (h, &x) in hops.iter_mut().zip(column) {
                        let delta = c.abs_diff(x);
                        *h += delta.min(n - delta);
                    }
                }
                None => {
                    for (h, &x) in hops.iter_mut().zip(column) {
                        *h += c.abs_diff(x);
                    }
                }
            }
        }
        let nearest = *hops.iter().min()?;
        // The least (uses of the side, node) among the nearest: the side's count only
        // breaks ties in hops.
        let target = placement
            .free_nodes()
            .iter()
            .zip(hops.iter())
            .filter(|&(_, &h)| h == nearest)
            .map(|(&n, _)| (self.zero_d_on_side[side[n as usize] as usize], n))
            .min()?
            .1;
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
        let mut moves = Vec::new();
        let mut found = None;
        'dims: for &d in &dims {
            // The dimensions other than `d`, in order: `rest(i)` is the `i`-th of them.
            let rest = |i: usize| i + usize::from(i >= d);
            for up in [true, false] {
                subset.clear();
                subset.extend(0..degree - 1);
                loop {
                    self.others.clear();
                    self.others.extend(subset.iter().map(|&i| rest(i)));
                    if self.slide_moves(placement, rank, d, up, &mut moves) {
                        found = Some(Substitution {
                            degree,
                            axis: d,
                            moves,
                        });
                        break 'dims;
                    }
                    if !next_subset(&mut subset, q - 1) {
                        break;
                    }
                }
            }
        }
        self.dims = dims;
        self.subset = subset;
        found
    }

    /// Fills `moves` with the slide along `d` (up or down) within `{d} + self.others`; false
    /// if impossible. Every line is checked before any move is listed.
    fn slide_moves(
        &self,
        placement: &Placement,
        rank: u32,
        d: usize,
        up: bool,
        moves: &mut Vec<Move>,
    ) -> bool {
        moves.clear();
        let failed = placement.node_of(rank);
        let grid = &self.nodes.grid;
        let (n_d, stride_d) = (grid.size(d), grid.stride(d));
        let start_d = grid.coord(failed, d);
        let steps = if up { n_d - 1 - start_d } else { start_d };
        let step = |node: u32| if up { node + stride_d } else { node - stride_d };
        // The free node ending the line from `start`; `Err` when the slide is impossible,
        // `Ok(None)` when the line runs no rank at the failed node's position.
        let line_end = |start: u32| -> Result<Option<(u32, u32)>, ()> {
            let first = if start == failed {
                rank
            } else {
                placement.state(start)
            };
            if start != failed && first >= FAILED {
                return Ok(None);
            }
            let mut node = start;
            for _ in 0..steps {
                node = step(node);
                match placement.state(node) {
                    FREE => return Ok(Some((first, node))),
                    FAILED => return Err(()),
                    _ => {}
                }
            }
            Err(())
        };
        // The failed node's own line first: the order of the checks is free, and a line
        // that blocks the failed node's own slide along `d` blocks every degree of it.
        if line_end(failed).is_ok() && self.for_each_line(failed, |start| line_end(start).is_ok()) {
            self.for_each_line(failed, |start| {
                if let Ok(Some((first, end))) = line_end(start) {
                    let (mut from, mut moving) = (start, first);
                    while from != end {
                        let to = step(from);
                        moves.push(Move {
                            rank: moving,
                            from,
                            to,
                        });
                        moving = placement.state(to);
                        from = to;
                    }
                }
                true
            })
        } else {
            false
        }
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
}
