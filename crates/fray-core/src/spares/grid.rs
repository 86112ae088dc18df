//! Flat tables of a mesh or torus for the study's inner loops: every node's coordinates and
//! its dimension-order output channels, so that a route, or how it changes when its ends
//! move, needs no division.

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
    /// `ring_offsets[d][a * n + b]`: [`offset`](Self::offset) from `a` to `b` along `d`,
    /// for dimensions of at most [`MAX_TABLED`] nodes (empty for larger ones).
    ring_offsets: Vec<Vec<i8>>,
}

/// Largest dimension whose ring offsets [`Grid`] reads from a table (a mesh of 128 nodes
/// has offsets up to 127, which fit in an `i8`).
const MAX_TABLED: u32 = 128;

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
            ring_offsets: vec![Vec::new(); q],
        };
        grid.ring_offsets = (0..q)
            .map(|d| {
                let size = grid.sizes[d];
                if size > MAX_TABLED {
                    return Vec::new();
                }
                (0..size * size)
                    .map(|ab| grid.ring_offset(d, ab / size, ab % size) as i8)
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

    /// Number of dimensions.
    #[inline]
    pub(crate) fn dims(&self) -> usize {
        self.q
    }

    /// Size of dimension `d`.
    #[inline]
    pub(crate) fn size(&self, d: usize) -> u32 {
        self.sizes[d]
    }

    /// Node index step of dimension `d`.
    #[inline]
    pub(crate) fn stride(&self, d: usize) -> u32 {
        self.strides[d]
    }

    /// The ring size of `d` when its ends are linked (hops go the shorter way round), `None`
    /// when they are not.
    #[inline]
    pub(crate) fn ring(&self, d: usize) -> Option<u32> {
        self.wrap_link[d].then_some(self.sizes[d])
    }

    /// Signed steps the shortest way from coordinate `a` to `b` along `d`, exactly
    /// [`Cartesian::signed_offset`] (ties on an even ring go up): from the table where the
    /// dimension has one.
    #[inline]
    fn offset(&self, d: usize, a: u32, b: u32) -> i32 {
        match self.ring_offsets[d].get((a * self.sizes[d] + b) as usize) {
            Some(&o) => i32::from(o),
            None => self.ring_offset(d, a, b),
        }
    }

    /// [`offset`](Self::offset), computed.
    #[inline]
    fn ring_offset(&self, d: usize, a: u32, b: u32) -> i32 {
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
    /// `next[slot]`: the node a hop out of that output reaches (`u32::MAX` where no route
    /// takes it).
    next: Vec<u32>,
    /// Whether every dimension has at least three nodes, so that one hop between two nodes
    /// is the one output of [`next`](Self::next) that reaches it, and a one-step move is
    /// one hop back ([`one_hop_step_change`](Self::one_hop_step_change) needs both).
    short_hops: bool,
    /// Whether [`short_shape`](Self::short_shape) applies: at most four dimensions, each of
    /// 5 to [`MAX_DISPLACED`] nodes (from five nodes on, a segment of two hops is the
    /// shortest way round, so a one-step move of an end changes a one-hop segment by one hop).
    short_routes: bool,
}

/// A rank's displacement (see [`Routes::displacement`]) when it has not moved: each of the
/// four 16-bit lanes holds the signed steps along one dimension plus `0x4000`.
pub(crate) const NOT_DISPLACED: u64 = 0x4000_4000_4000_4000;

/// Largest dimension for which displacements are kept in 16-bit lanes.
const MAX_DISPLACED: u32 = 0x4000;

/// Each 16-bit lane set to `x`.
const fn lanes(x: u64) -> u64 {
    x * 0x0001_0001_0001_0001
}

/// The port of a route that is not one hop.
pub(crate) const NO_PORT: u8 = u8::MAX;

/// No slot, in a change pattern of [`Routes::one_hop_step_change`].
pub(crate) const NO_SLOT: usize = usize::MAX;

/// A one-step move along dimension `d` by `s` (+1 or -1), as [`Routes::step`] finds it, with
/// the slot arithmetic the step changes read for every message of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    /// The dimension of the step.
    pub(crate) d: usize,
    /// Its direction: +1 up, -1 down.
    pub(crate) s: i32,
    /// Slots per node (`2q`).
    q2: usize,
    /// Slots between a node and its neighbour along `d` (`stride(d) * 2q`).
    shift: usize,
}

impl Step {
    /// The same output of the node one step along.
    #[inline]
    fn moved(self, slot: usize) -> usize {
        if self.s > 0 {
            slot + self.shift
        } else {
            slot - self.shift
        }
    }
}

impl Routes {
    /// Records the channel of every output from the one-hop routes of `routing`.
    pub(crate) fn new(routing: &DimensionOrder) -> Self {
        let shape = routing.shape();
        let grid = Grid::new(shape);
        let q = grid.q;
        let n = shape.num_nodes() as u32;
        let mut ports = vec![ChannelId::MAX; n as usize * 2 * q];
        let mut next = vec![u32::MAX; n as usize * 2 * q];
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
                    next[slot] = nb;
                }
            }
        }
        let short_hops = grid.sizes.iter().all(|&n| n >= 3);
        let short_routes = q <= 4 && grid.sizes.iter().all(|&n| (5..=MAX_DISPLACED).contains(&n));
        Self {
            grid,
            ports,
            next,
            short_hops,
            short_routes,
        }
    }

    /// The displacement of a rank that moves from node `from` to node `to`, to add
    /// (wrapping) to its displacement: the coordinate difference along each dimension, one
    /// 16-bit lane each (dimension 0 lowest). Lanes start at [`NOT_DISPLACED`]; a rank
    /// stays within its dimension's size of where it started, so a lane never leaves
    /// `0..0x8000` where [`short_shape`](Self::short_shape) reads them.
    pub(crate) fn displacement(&self, from: u32, to: u32) -> u64 {
        let g = &self.grid;
        (0..g.q.min(4)).fold(0u64, |acc, d| {
            let diff = i64::from(g.coord(to, d)) - i64::from(g.coord(from, d));
            acc.wrapping_add((diff as u64) << (16 * d))
        })
    }

    /// The shape of the route `a -> b` when it has at most one hop along every dimension,
    /// found without coordinates: `port` is the output of its one-hop route under the
    /// placement the displacements count from (as [`one_hop_port`](Self::one_hop_port) gave
    /// it), `from` and `to` the displacements of `a` and `b` since then. The route's signed
    /// offset along `d` is the port's (+1, -1 or 0) plus `to`'s lane less `from`'s, modulo
    /// the ring; the shape holds it plus one in the 16-bit lane `d`. `None` when a lane is
    /// not -1, 0 or 1, the port is [`NO_PORT`], or the grid has no short routes (see
    /// `short_routes`).
    #[inline]
    pub(crate) fn short_shape(&self, port: u8, from: u64, to: u64) -> Option<u64> {
        if port == NO_PORT || !self.short_routes {
            return None;
        }
        let unit = if port & 1 == 0 { 1u64 } else { u64::MAX };
        // Lanes: offset + 0x8000, each in 0..0x10000 (no carry between lanes).
        let biased = (to + lanes(0x8000) - from).wrapping_add(unit << (8 * (port & !1)));
        // Lanes: offset + 1; a lane below 0 borrows and shows bits above 1.
        let shape = biased.wrapping_sub(lanes(0x7fff));
        let ok = shape & !lanes(3) == 0 && shape & (shape >> 1) & lanes(1) == 0;
        ok.then_some(shape)
    }

    /// As [`for_each_step_change`](Self::for_each_step_change) for a route from `a` of the
    /// `shape` that [`short_shape`](Self::short_shape) gave. The old route's segments are
    /// one hop each, found through [`next`](Self::next): a segment whose line takes the step
    /// (before `d` when the source moves, after it when the destination does) moves whole,
    /// one node along `d`; the segment along `d` loses its hop (the moving end steps onto
    /// the other), gains one beside it (steps away: two hops, the shortest way round from
    /// five nodes on) or, when the route had none along `d`, becomes the one hop back to
    /// where the moving end was.
    #[inline]
    pub(crate) fn for_each_short_step_change(
        &self,
        a: u32,
        shape: u64,
        (src_moves, dst_moves): (bool, bool),
        step: Step,
        mut visit: impl FnMut(usize, bool),
    ) {
        let (q2, d, s) = (step.q2, step.d, step.s);
        let moved = |slot: usize| step.moved(slot);
        let port = |x: usize, up: bool| 2 * x + usize::from(!up);
        // Node where the old route's segment along `x` starts.
        let mut at = a as usize;
        // The dimensions with a hop, and `d`, as bits (a lane's low bit gathered to bit
        // `48 + x` by the multiplication: no two of its partial products meet).
        let hops = (shape ^ lanes(1)) | ((shape ^ lanes(1)) >> 1);
        let gathered = (hops & lanes(1)).wrapping_mul(1 << 48 | 1 << 33 | 1 << 18 | 1 << 3);
        let mut dims = (gathered >> 48) as u32 & 0xf | 1 << d;
        debug_assert!(q2 <= 8);
        while dims != 0 {
            let x = dims.trailing_zeros() as usize;
            dims &= dims - 1;
            let o = ((shape >> (16 * x)) & 3) as i32 - 1;
            if o == 0 {
                if x == d && src_moves != dst_moves {
                    if src_moves {
                        visit(moved(at * q2 + port(d, s < 0)), true);
                    } else {
                        visit(at * q2 + port(d, s > 0), true);
                    }
                }
                continue;
            }
            let slot = at * q2 + port(x, o > 0);
            let next = self.next[slot] as usize;
            let whole = match x.cmp(&d) {
                std::cmp::Ordering::Less => src_moves,
                std::cmp::Ordering::Equal => src_moves && dst_moves,
                std::cmp::Ordering::Greater => dst_moves,
            };
            if whole {
                visit(slot, false);
                visit(moved(slot), true);
            } else if x == d {
                match (src_moves, o == s) {
                    // The moving end steps onto the other: no hop along `d`.
                    (true, true) | (false, false) => visit(slot, false),
                    // It steps away: a second hop, before the old one or after it.
                    (true, false) => visit(moved(slot), true),
                    (false, true) => visit(next * q2 + port(x, o > 0), true),
                }
            }
            at = next;
        }
    }

    /// The output port (`2d + (0 up | 1 down)`) of the route `a -> b` when it is one hop,
    /// else [`NO_PORT`].
    pub(crate) fn one_hop_port(&self, a: u32, b: u32) -> u8 {
        let (mut hops, mut port) = (0, NO_PORT);
        self.for_each_hop(a, b, |slot| {
            hops += 1;
            // Past 127 dimensions a port has no hint (`NO_PORT` is 255).
            port = u8::try_from(slot % (2 * self.grid.q)).unwrap_or(NO_PORT);
        });
        if hops == 1 {
            port
        } else {
            NO_PORT
        }
    }

    /// The change of the route `a -> b` under the one [`Step`] `(d, s)` of its source
    /// (`src_moves`), its destination (`dst_moves`) or both, as
    /// [`for_each_step_change`](Self::for_each_step_change) visits it, when the route is the
    /// one hop out of `port` of `a` (as [`one_hop_port`](Self::one_hop_port) gave it for some
    /// earlier pair): the slot it loses, if any, and the at most two it gains ([`NO_SLOT`]
    /// where there is none). `None` when the route is not that hop or the pattern does not
    /// apply (a single end moving along the hop's own dimension, or a dimension of fewer than
    /// three nodes).
    ///
    /// With the hop along `i`, in `slot(node, port)` terms: both ends moving shift the hop
    /// by one node along `d`; the source alone moving adds the hop back along `d` at its new
    /// node when `d < i` (the route goes back along `d` first, then takes the old hop), and
    /// otherwise moves the hop to the new node and adds the hop back along `d` where it
    /// arrives; the destination alone moving, when `d < i`, goes along `d` first from `a`
    /// and then takes the hop from the node it reached, and otherwise takes the old hop and
    /// adds the hop along `d` at `b`.
    #[inline]
    pub(crate) fn one_hop_step_change(
        &self,
        (a, b): (u32, u32),
        port: u8,
        (src_moves, dst_moves): (bool, bool),
        step: Step,
    ) -> Option<(usize, [usize; 2])> {
        let (q2, d, s) = (step.q2, step.d, step.s);
        let p = port as usize;
        let (a_port, b_node) = (a as usize * q2, b as usize * q2);
        if port == NO_PORT || !self.short_hops || self.next[a_port + p] != b {
            return None;
        }
        let i = p / 2;
        if i == d && src_moves != dst_moves {
            return None;
        }
        let (along, back) = (2 * d + usize::from(s < 0), 2 * d + usize::from(s > 0));
        let m = |slot: usize| step.moved(slot);
        Some(match (src_moves, dst_moves) {
            (true, true) => (a_port + p, [m(a_port + p), NO_SLOT]),
            (true, false) if d < i => (NO_SLOT, [m(a_port + back), NO_SLOT]),
            (true, false) => (a_port + p, [m(a_port + p), m(b_node + back)]),
            (false, true) if d < i => (a_port + p, [a_port + along, m(a_port + p)]),
            (false, true) => (NO_SLOT, [b_node + along, NO_SLOT]),
            (false, false) => return None,
        })
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
                let base = start - ca as usize * stride;
                if same_line {
                    let shift = g.offset(d, ca, ca2);
                    self.interval_change(d, base, ca, o, o2, shift, &mut visit);
                } else {
                    self.interval_change(d, base, ca, o, 0, 0, &mut visit);
                    let base2 = start2 - ca2 as usize * stride;
                    self.interval_change(d, base2, ca2, 0, o2, 0, &mut visit);
                }
            }
            start = start + cb as usize * stride - ca as usize * stride;
            start2 = start2 + cb2 as usize * stride - ca2 as usize * stride;
        }
    }

    /// The one-step move from node `from` to node `to`, when it is one: `to` differing from
    /// `from` only along `d`, by `s` (+1 or -1), without crossing a wrap-around link.
    #[inline]
    pub(crate) fn step(&self, from: u32, to: u32) -> Option<Step> {
        let g = &self.grid;
        let d = (0..g.q).find(|&d| g.coord(from, d) != g.coord(to, d))?;
        let s = i64::from(to) - i64::from(from);
        let stride = i64::from(g.strides[d]);
        let (c, c2) = (g.coord(from, d), g.coord(to, d));
        let s = if s == stride && c2 == c + 1 {
            1
        } else if s == -stride && c == c2 + 1 {
            -1
        } else {
            return None;
        };
        let q2 = 2 * g.q;
        Some(Step {
            d,
            s,
            q2,
            shift: g.strides[d] as usize * q2,
        })
    }

    /// As [`for_each_change`](Self::for_each_change) for the route `a -> b` when its source
    /// (`src_moves`), its destination (`dst_moves`) or both take the one step `(d, s)` of
    /// [`step`](Self::step). The segments before `d` lie on lines through the source's
    /// coordinate along `d`, those after it through the destination's: a segment whose line
    /// takes the step moves whole (its hops shifted by one node along `d`), the others stay;
    /// the segment along `d` keeps its line and changes at the end that moves.
    #[inline]
    pub(crate) fn for_each_step_change(
        &self,
        (a, b): (u32, u32),
        (src_moves, dst_moves): (bool, bool),
        step: Step,
        mut visit: impl FnMut(usize, bool),
    ) {
        let g = &self.grid;
        let q = g.q;
        let (d, s) = (step.d, step.s);
        let mut start = a as usize;
        for i in 0..q {
            let (ca, cb) = (g.coord(a, i), g.coord(b, i));
            let stride = g.strides[i] as usize;
            let o = g.offset(i, ca, cb);
            let base = start - ca as usize * stride;
            if i == d {
                let ca2 = (ca as i32 + if src_moves { s } else { 0 }) as u32;
                let cb2 = (cb as i32 + if dst_moves { s } else { 0 }) as u32;
                let o2 = g.offset(i, ca2, cb2);
                let shift_start = if src_moves { s } else { 0 };
                self.interval_change(i, base, ca, o, o2, shift_start, &mut visit);
                if !dst_moves {
                    // The segments after `d` lie on lines through the destination: unmoved.
                    return;
                }
            } else if o != 0 && ((i < d && src_moves) || (i > d && dst_moves)) {
                let (lo, hi) = hop_interval(o, 0);
                let down = usize::from(o < 0);
                self.for_each_on_line(i, base, ca, lo, hi, down, false, &mut |slot, _| {
                    visit(slot, false);
                    visit(step.moved(slot), true);
                });
            }
            start = start + cb as usize * stride - ca as usize * stride;
        }
    }

    /// Visits the difference between the hops of two segments on the line of coordinate-0
    /// node `base` along `d`: the old one from `origin` with signed length `o`, the new one
    /// from `origin + shift` (a signed ring step) with signed length `o2`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn interval_change(
        &self,
        d: usize,
        base: usize,
        origin: u32,
        o: i32,
        o2: i32,
        shift: i32,
        visit: &mut impl FnMut(usize, bool),
    ) {
        if o != 0 && o2 != 0 && (o > 0) == (o2 > 0) {
            let down = usize::from(o < 0);
            let (lo, hi) = hop_interval(o, 0);
            let (lo2, hi2) = hop_interval(o2, shift);
            let mut run = |from: i32, to: i32, added: bool| {
                self.for_each_on_line(d, base, origin, from, to, down, added, visit)
            };
            run(lo, hi.min(lo2), false);
            run(lo.max(hi2), hi, false);
            run(lo2, hi2.min(lo), true);
            run(lo2.max(hi), hi2, true);
        } else {
            if o != 0 {
                let (lo, hi) = hop_interval(o, 0);
                self.for_each_on_line(d, base, origin, lo, hi, usize::from(o < 0), false, visit);
            }
            if o2 != 0 {
                let (lo, hi) = hop_interval(o2, shift);
                self.for_each_on_line(d, base, origin, lo, hi, usize::from(o2 < 0), true, visit);
            }
        }
    }

    /// Visits the ports `down` (0 up, 1 down) along `d` of the nodes at coordinates
    /// `origin + from .. origin + to` (modulo the ring) of the line whose coordinate-0 node
    /// is `base`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
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

/// The hops of a segment of signed length `o` from coordinate `shift` (relative to some
/// origin) as a half-open interval of coordinates: up from `c` takes the up port of `c`,
/// down from `c` the down port of `c`.
#[inline]
fn hop_interval(o: i32, shift: i32) -> (i32, i32) {
    if o > 0 {
        (shift, shift + o)
    } else {
        (shift + o + 1, shift + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::{Fabric, LinkParameters};

    #[test]
    fn same_routes_as_dimension_order() {
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
                }
            }
        }
    }

    /// The hops `new` takes and `old` does not (+1) and the reverse (-1), by slot.
    fn route_difference(
        routes: &Routes,
        old: (u32, u32),
        new: (u32, u32),
    ) -> std::collections::BTreeMap<usize, i32> {
        let mut diff = std::collections::BTreeMap::new();
        routes.for_each_hop(old.0, old.1, |slot| *diff.entry(slot).or_insert(0) -= 1);
        routes.for_each_hop(new.0, new.1, |slot| *diff.entry(slot).or_insert(0) += 1);
        diff.retain(|_, v| *v != 0);
        diff
    }

    /// What a change routine visits, by slot, checking that it visits a slot at most once.
    fn visited(
        run: impl FnOnce(&mut dyn FnMut(usize, bool)),
    ) -> std::collections::BTreeMap<usize, i32> {
        let mut seen = std::collections::BTreeMap::new();
        run(&mut |slot, added| {
            assert!(
                seen.insert(slot, if added { 1 } else { -1 }).is_none(),
                "slot {slot} twice"
            );
        });
        seen
    }

    /// A one-step move of a route's ends: the new ends, which of them moved (sender,
    /// receiver) and the step.
    type OneStepMove = ((u32, u32), (bool, bool), Step);

    /// Every one-step move of the sender, the receiver or both of the route `a -> b`, along
    /// every dimension and direction.
    fn one_step_moves(shape: &Cartesian, routes: &Routes, a: u32, b: u32) -> Vec<OneStepMove> {
        let mut moves = Vec::new();
        for d in 0..shape.num_dims() {
            for dir in [Direction::Up, Direction::Down] {
                let moved = |x: u32| {
                    let y = shape.neighbor(x, d, dir)?;
                    Some((y, routes.step(x, y)?))
                };
                let (a2, b2) = (moved(a), moved(b));
                moves.extend(a2.map(|(a2, st)| ((a2, b), (true, false), st)));
                moves.extend(b2.map(|(b2, st)| ((a, b2), (false, true), st)));
                moves.extend(
                    a2.zip(b2)
                        .map(|((a2, st), (b2, _))| ((a2, b2), (true, true), st)),
                );
            }
        }
        moves
    }

    fn shapes() -> Vec<Cartesian> {
        vec![
            Cartesian::torus(&[4, 3, 5]),
            Cartesian::torus(&[6, 6]),
            Cartesian::torus(&[2, 7]),
            Cartesian::mesh(&[3, 4, 2]),
            Cartesian::new(vec![6, 5], vec![true, false]),
        ]
    }

    #[test]
    fn changes_are_exactly_the_route_differences() {
        for shape in shapes() {
            let fabric = Fabric::cartesian(shape.clone(), LinkParameters::default()).unwrap();
            let routes = Routes::new(&DimensionOrder::new(&fabric).unwrap());
            let n = shape.num_nodes() as u32;
            // Every old pair against new pairs whose ends moved anywhere (a stride through
            // all pairs keeps the test short).
            for a in 0..n {
                for b in 0..n {
                    for k in 0..n {
                        let new = ((a * 7 + k) % n, (b + k * 3) % n);
                        let want = route_difference(&routes, (a, b), new);
                        let got = visited(|v| routes.for_each_change((a, b), new, v));
                        assert_eq!(got, want, "{shape:?} {a}->{b} to {new:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn one_step_changes_are_exactly_the_route_differences() {
        for shape in shapes() {
            let fabric = Fabric::cartesian(shape.clone(), LinkParameters::default()).unwrap();
            let routes = Routes::new(&DimensionOrder::new(&fabric).unwrap());
            let n = shape.num_nodes() as u32;
            let mut checked = 0;
            for a in 0..n {
                for b in 0..n {
                    for (new, moves, step) in one_step_moves(&shape, &routes, a, b) {
                        let want = route_difference(&routes, (a, b), new);
                        let got = visited(|v| routes.for_each_step_change((a, b), moves, step, v));
                        assert_eq!(got, want, "{shape:?} {a}->{b} to {new:?}");
                        checked += 1;
                    }
                }
            }
            assert!(checked > 0);
        }
    }

    #[test]
    fn one_hop_patterns_are_exactly_the_route_differences() {
        let mut shapes = shapes();
        shapes.push(Cartesian::torus(&[3, 3, 3]));
        for shape in shapes {
            let fabric = Fabric::cartesian(shape.clone(), LinkParameters::default()).unwrap();
            let routes = Routes::new(&DimensionOrder::new(&fabric).unwrap());
            let n = shape.num_nodes() as u32;
            let q = shape.num_dims();
            let short = shape.dims().iter().all(|&s| s >= 3);
            let (mut applied, mut refused) = (0, 0);
            for a in 0..n {
                for b in 0..n {
                    let port = routes.one_hop_port(a, b);
                    let mut hops = 0;
                    routes.for_each_hop(a, b, |_| hops += 1);
                    assert_eq!(port != NO_PORT, hops == 1, "{shape:?} {a}->{b}");
                    for (new, moves, step) in one_step_moves(&shape, &routes, a, b) {
                        // Every port as a hint: only the route's own may be taken.
                        for hint in (0..2 * q as u8).chain([NO_PORT]) {
                            let Some((lost, gained)) =
                                routes.one_hop_step_change((a, b), hint, moves, step)
                            else {
                                refused += 1;
                                continue;
                            };
                            let slots = [(lost, false), (gained[0], true), (gained[1], true)];
                            let got = visited(|v| {
                                for (slot, added) in slots {
                                    if slot != NO_SLOT {
                                        v(slot, added);
                                    }
                                }
                            });
                            assert!(short && hint == port, "{shape:?} {a}->{b} {hint}");
                            let want = route_difference(&routes, (a, b), new);
                            assert_eq!(got, want, "{shape:?} {a}->{b} to {new:?}");
                            applied += 1;
                        }
                    }
                }
            }
            assert!(refused > 0);
            assert_eq!(applied > 0, short, "{shape:?}");
        }
    }

    /// Signed hops of the route `a -> b` along each dimension.
    fn hops_per_dim(routes: &Routes, q: usize, a: u32, b: u32) -> Vec<i32> {
        let mut hops = vec![0; q];
        routes.for_each_hop(a, b, |slot| {
            let port = slot % (2 * q);
            hops[port / 2] += if port.is_multiple_of(2) { 1 } else { -1 };
        });
        hops
    }

    #[test]
    fn short_shapes_follow_displacements_and_change_as_the_route_differences() {
        for shape in [
            Cartesian::torus(&[5, 6, 5]),
            Cartesian::mesh(&[5, 6]),
            Cartesian::new(vec![6, 5], vec![true, false]),
            Cartesian::new(vec![5, 5, 5, 6], vec![true, false, true, true]),
        ] {
            let fabric = Fabric::cartesian(shape.clone(), LinkParameters::default()).unwrap();
            let routes = Routes::new(&DimensionOrder::new(&fabric).unwrap());
            assert!(routes.short_routes);
            let n = shape.num_nodes() as u32;
            let q = shape.num_dims();
            let displaced =
                |from: u32, to: u32| NOT_DISPLACED.wrapping_add(routes.displacement(from, to));
            let (mut short, mut refused) = (0, 0);
            for a in 0..n {
                // Where `a` was when the message's port was read: at `a` or one step away.
                let dir = [Direction::Up, Direction::Down][a as usize % 2];
                let a0 = shape.neighbor(a, a as usize % q, dir).unwrap_or(a);
                // The partners (every node on small shapes, a stride through them else).
                for b in (0..n).filter(|b| n <= 150 || (b * 7 + a) % 23 == 0) {
                    let hops = hops_per_dim(&routes, q, a, b);
                    for port in 0..2 * q {
                        let b0 = routes.next[a0 as usize * 2 * q + port];
                        if b0 == u32::MAX {
                            continue;
                        }
                        let got =
                            routes.short_shape(port as u8, displaced(a0, a), displaced(b0, b));
                        let Some(lanes) = got else {
                            refused += 1;
                            continue;
                        };
                        let offsets: Vec<i32> = (0..q)
                            .map(|x| ((lanes >> (16 * x)) & 3) as i32 - 1)
                            .collect();
                        assert_eq!(
                            offsets, hops,
                            "{shape:?} {a}->{b} port {port} from {a0}->{b0}"
                        );
                        short += 1;
                        for (new, moves, step) in one_step_moves(&shape, &routes, a, b) {
                            let want = route_difference(&routes, (a, b), new);
                            let got = visited(|v| {
                                routes.for_each_short_step_change(a, lanes, moves, step, v)
                            });
                            assert_eq!(got, want, "{shape:?} {a}->{b} to {new:?}");
                        }
                    }
                }
            }
            assert!(
                short > 0 && refused > 0,
                "{shape:?}: {short} short, {refused} refused"
            );
        }
        // Dimensions of fewer than five nodes have no short shapes.
        let fabric = Fabric::cartesian(Cartesian::torus(&[4, 6]), LinkParameters::default());
        let routes = Routes::new(&DimensionOrder::new(&fabric.unwrap()).unwrap());
        assert_eq!(routes.short_shape(0, NOT_DISPLACED, NOT_DISPLACED), None);
    }

    #[test]
    fn a_step_is_one_link_without_wrapping() {
        let shape = Cartesian::torus(&[4, 3]);
        let fabric = Fabric::cartesian(shape.clone(), LinkParameters::default()).unwrap();
        let routes = Routes::new(&DimensionOrder::new(&fabric).unwrap());
        let node = |x: usize, y: usize| shape.node(&[x, y]);
        let step = |a, b| routes.step(a, b).map(|st| (st.d, st.s));
        assert_eq!(step(node(1, 1), node(2, 1)), Some((0, 1)));
        assert_eq!(step(node(1, 2), node(1, 1)), Some((1, -1)));
        assert_eq!(step(node(3, 1), node(0, 1)), None, "wraps");
        assert_eq!(step(node(1, 1), node(3, 1)), None, "two steps");
        assert_eq!(step(node(1, 1), node(2, 2)), None, "diagonal");
        assert_eq!(step(node(1, 1), node(1, 1)), None, "no move");
    }
}
