//! Flat tables of a mesh or torus for the study's inner loops: every node's coordinates and
//! its dimension-order output channels, so that a hop count or a route needs no division.

use crate::fabric::{Cartesian, ChannelId, Direction};
use crate::routing::DimensionOrder;

/// Each node's coordinates and each dimension's ring size, read without division.
#[derive(Debug)]
pub(crate) struct Grid {
    /// Number of dimensions, `q`.
    q: usize,
    /// Size of each dimension.
    sizes: Vec<u32>,
    /// Node index step of each dimension.
    strides: Vec<u32>,
    /// Whether each dimension has a wrap-around link (as [`Cartesian::has_wrap_link`]).
    wrap_link: Vec<bool>,
    /// `coords[node * q + d]`: coordinate of `node` along `d`.
    coords: Vec<u32>,
    /// `hops[d][b - a + size_d]`: steps the shortest way from coordinate `a` to `b` along `d`.
    hops: Vec<Vec<u32>>,
}

impl Grid {
    /// The tables of `shape`.
    pub(crate) fn new(shape: &Cartesian) -> Self {
        let q = shape.num_dims();
        let n = shape.num_nodes() as u32;
        let mut grid = Self {
            q,
            sizes: shape.dims().iter().map(|&s| s as u32).collect(),
            strides: (0..q).map(|d| shape.stride(d) as u32).collect(),
            wrap_link: (0..q).map(|d| shape.has_wrap_link(d)).collect(),
            coords: (0..n)
                .flat_map(|node| (0..q).map(move |d| shape.coord(node, d) as u32))
                .collect(),
            hops: Vec::new(),
        };
        grid.hops = (0..q)
            .map(|d| {
                let size = grid.sizes[d];
                (0..2 * size)
                    .map(|i| grid.offset(d, size, i).unsigned_abs())
                    .collect()
            })
            .collect();
        grid
    }

    /// Coordinate of `node` along `d`.
    #[inline]
    pub(crate) fn coord(&self, node: u32, d: usize) -> u32 {
        self.coords[node as usize * self.q + d]
    }

    /// Signed steps the shortest way from coordinate `a` to `b` along `d`, exactly
    /// [`Cartesian::signed_offset`] (ties on an even ring go up).
    #[inline]
    fn offset(&self, d: usize, a: u32, b: u32) -> i32 {
        let delta = b as i32 - a as i32;
        if !self.wrap_link[d] {
            return delta;
        }
        let n = self.sizes[d] as i32;
        let up = if delta < 0 { delta + n } else { delta };
        if up <= n - up {
            up
        } else {
            up - n
        }
    }

    /// Hops between `a` and `b`, exactly [`Cartesian::hop_distance`].
    #[inline]
    pub(crate) fn hop_distance(&self, a: u32, b: u32) -> u32 {
        let (ca, cb) = (a as usize * self.q, b as usize * self.q);
        (0..self.q)
            .map(|d| {
                let i = self.coords[cb + d] + self.sizes[d] - self.coords[ca + d];
                self.hops[d][i as usize]
            })
            .sum()
    }
}

/// Dimension-order routes of a mesh or torus, hop by hop without division: the same
/// channels, in the same order, as [`DimensionOrder::for_each_hop`]. A hop is named by its
/// *slot* `node * 2q + 2d + (0 up | 1 down)`, the output it takes; [`Routes::channel`] names
/// the fabric's channel.
#[derive(Debug)]
pub(crate) struct Routes {
    grid: Grid,
    /// `ports[slot]`: the channel of that output (`ChannelId::MAX` where no route takes it).
    ports: Vec<ChannelId>,
}

impl Routes {
    /// Records the channel of every output from the one-hop routes of `routing`.
    pub(crate) fn new(routing: &DimensionOrder) -> Self {
        let shape = routing.shape();
        let grid = Grid::new(shape);
        let q = grid.q;
        let n = shape.num_nodes() as u32;
        let mut ports = vec![ChannelId::MAX; n as usize * 2 * q];
        for node in 0..n {
            for d in 0..q {
                for dir in [Direction::Up, Direction::Down] {
                    let Some(nb) = shape.neighbor(node, d, dir) else {
                        continue;
                    };
                    let off = grid.offset(d, grid.coord(node, d), grid.coord(nb, d));
                    if off.abs() != 1 {
                        continue;
                    }
                    let slot = node as usize * 2 * q + 2 * d + usize::from(off < 0);
                    routing.for_each_hop(node, nb, |ch, _| ports[slot] = ch);
                }
            }
        }
        Self { grid, ports }
    }

    /// Number of slots (`nodes * 2q`).
    pub(crate) fn num_slots(&self) -> usize {
        self.ports.len()
    }

    /// The fabric channel of output `slot`, or `None` for an output no route takes.
    pub(crate) fn channel(&self, slot: usize) -> Option<ChannelId> {
        Some(self.ports[slot]).filter(|&c| c != ChannelId::MAX)
    }

    /// Calls `visit(slot)` for each hop of the dimension-order route from `src` to `dst`.
    #[inline]
    pub(crate) fn for_each_hop(&self, src: u32, dst: u32, mut visit: impl FnMut(usize)) {
        let g = &self.grid;
        let q = g.q;
        let mut cur = src as usize;
        for d in 0..q {
            // Dimensions before `d` are corrected: `cur` still has `src`'s coordinate on `d`.
            let (a, b) = (g.coord(src, d), g.coord(dst, d));
            let off = g.offset(d, a, b);
            let (n, stride) = (g.sizes[d] as usize, g.strides[d] as usize);
            let mut c = a as usize;
            if off > 0 {
                for _ in 0..off {
                    visit(cur * 2 * q + 2 * d);
                    if c + 1 == n {
                        c = 0;
                        cur -= (n - 1) * stride;
                    } else {
                        c += 1;
                        cur += stride;
                    }
                }
            } else {
                for _ in 0..-off {
                    visit(cur * 2 * q + 2 * d + 1);
                    if c == 0 {
                        c = n - 1;
                        cur += (n - 1) * stride;
                    } else {
                        c -= 1;
                        cur -= stride;
                    }
                }
            }
        }
        debug_assert_eq!(cur, dst as usize);
    }

    /// Calls `visit(slot, added)` for every hop the route `new.0 -> new.1` takes and the
    /// route `old.0 -> old.1` does not (`added` true), and for every hop the old route takes
    /// and the new one does not (`added` false); hops both take are not visited.
    ///
    /// A dimension-order route is one segment per dimension `d`, on the line through the
    /// destination's coordinates below `d` and the source's above it. Where the old and new
    /// segments lie on the same line and run the same way, they are two intervals of that
    /// line and only their difference is visited: moving one end of a route by one node
    /// along its segment's line costs one hop, not the route's length.
    #[inline]
    pub(crate) fn for_each_change(
        &self,
        old: (u32, u32),
        new: (u32, u32),
        mut visit: impl FnMut(usize, bool),
    ) {
        let g = &self.grid;
        let q = g.q;
        let at = |node: u32| node as usize * q;
        let (a, b, a2, b2) = (at(old.0), at(old.1), at(new.0), at(new.1));
        // Bit d: the old and new sources (destinations) differ along d.
        let (mut src_moved, mut dst_moved) = (0u32, 0u32);
        for d in 0..q {
            src_moved |= u32::from(g.coords[a + d] != g.coords[a2 + d]) << d;
            dst_moved |= u32::from(g.coords[b + d] != g.coords[b2 + d]) << d;
        }
        // First node of the old and new segments along `d`.
        let (mut start, mut start2) = (old.0 as usize, new.0 as usize);
        for d in 0..q {
            let (ca, cb) = (g.coords[a + d], g.coords[b + d]);
            let (ca2, cb2) = (g.coords[a2 + d], g.coords[b2 + d]);
            let stride = g.strides[d] as usize;
            let same_line = dst_moved & ((1 << d) - 1) == 0 && src_moved >> (d + 1) == 0;
            if !(same_line && ca == ca2 && cb == cb2) {
                let (o, o2) = (g.offset(d, ca, cb), g.offset(d, ca2, cb2));
                // Hops as intervals of coordinates on their line, relative to `ca`: up from
                // `c` takes the up port of `c`; down from `c` the down port of `c`.
                let interval = |o: i32, shift: i32| {
                    if o > 0 {
                        (shift, shift + o)
                    } else {
                        (shift + o + 1, shift + 1)
                    }
                };
                let base = start - ca as usize * stride;
                if same_line && o != 0 && o2 != 0 && (o > 0) == (o2 > 0) {
                    let down = usize::from(o < 0);
                    let (lo, hi) = interval(o, 0);
                    let (lo2, hi2) = interval(o2, g.offset(d, ca, ca2));
                    let mut run = |from: i32, to: i32, added: bool| {
                        self.for_each_on_line(d, base, ca, from, to, down, added, &mut visit)
                    };
                    run(lo, hi.min(lo2), false);
                    run(lo.max(hi2), hi, false);
                    run(lo2, hi2.min(lo), true);
                    run(lo2.max(hi), hi2, true);
                } else {
                    if o != 0 {
                        let (lo, hi) = interval(o, 0);
                        let down = usize::from(o < 0);
                        self.for_each_on_line(d, base, ca, lo, hi, down, false, &mut visit);
                    }
                    if o2 != 0 {
                        let base2 = start2 - ca2 as usize * stride;
                        let (lo, hi) = interval(o2, 0);
                        let down = usize::from(o2 < 0);
                        self.for_each_on_line(d, base2, ca2, lo, hi, down, true, &mut visit);
                    }
                }
            }
            start = start + cb as usize * stride - ca as usize * stride;
            start2 = start2 + cb2 as usize * stride - ca2 as usize * stride;
        }
    }

    /// Visits the ports `down` (0 up, 1 down) along `d` of the nodes at coordinates
    /// `origin + from .. origin + to` (modulo the ring) of the line whose coordinate-0 node
    /// is `base`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn for_each_on_line(
        &self,
        d: usize,
        base: usize,
        origin: u32,
        from: i32,
        to: i32,
        down: usize,
        added: bool,
        visit: &mut impl FnMut(usize, bool),
    ) {
        if from >= to {
            return;
        }
        let g = &self.grid;
        let (n, stride) = (g.sizes[d] as i32, g.strides[d] as usize);
        let mut c = origin as i32 + from;
        if c < 0 {
            c += n;
        } else if c >= n {
            c -= n;
        }
        let step = 2 * g.q * stride;
        let mut slot = (base + c as usize * stride) * 2 * g.q + 2 * d + down;
        for _ in from..to {
            visit(slot, added);
            c += 1;
            if c == n {
                c = 0;
                slot -= (n as usize - 1) * step;
            } else {
                slot += step;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::{Fabric, LinkParameters};

    #[test]
    fn same_routes_and_distances_as_dimension_order() {
        for shape in [
            Cartesian::torus(&[4, 3, 5]),
            Cartesian::torus(&[2, 6]),
            Cartesian::mesh(&[3, 4, 2]),
            Cartesian::new(vec![6, 5], vec![true, false]),
        ] {
            let fabric = Fabric::cartesian(shape.clone(), LinkParameters::default()).unwrap();
            let routing = DimensionOrder::new(&fabric).unwrap();
            let routes = Routes::new(&routing);
            let n = shape.num_nodes() as u32;
            for a in 0..n {
                for b in 0..n {
                    let (mut want, mut got) = (Vec::new(), Vec::new());
                    routing.for_each_hop(a, b, |ch, _| want.push(ch));
                    routes.for_each_hop(a, b, |slot| got.push(routes.channel(slot).unwrap()));
                    assert_eq!(got, want, "{shape:?} {a}->{b}");
                    assert_eq!(
                        routes.grid.hop_distance(a, b) as usize,
                        shape.hop_distance(a, b)
                    );
                }
            }
        }
    }
}
