//! Dimension-order routing (XY, XYZ, ...) on a mesh or torus, and its fault-aware retry.

use super::{RouteRequest, Routing, RoutingError};
use crate::fabric::{Cartesian, ChannelId, Direction, Fabric, RouterId};

const NO_CHANNEL: ChannelId = ChannelId::MAX;

/// Dimension-order routing: correct the coordinates one dimension at a time, dimension 0
/// first. On a torus each dimension goes the shorter way round; when both ways are equally
/// long (half an even ring) the message goes up (see [`Cartesian::signed_offset`]).
///
/// Routes are static: a failed channel or router on the path makes the pair
/// [`RoutingError::Unroutable`]. A failed endpoint does not block routing (its router still
/// forwards traffic). At most `sum over d of (size_d - 1)` hops on a mesh, `sum of size_d / 2`
/// on a torus.
#[derive(Debug, Clone)]
pub struct DimensionOrder {
    shape: Cartesian,
    /// `ports[node * 2q + 2d + (0 up | 1 down)]`: the channel leaving `node` that way.
    ports: Vec<ChannelId>,
    /// The router that channel enters, same index as `ports`.
    next: Vec<RouterId>,
}

impl DimensionOrder {
    /// The routing for a mesh or torus fabric.
    pub fn new(fabric: &Fabric) -> Result<Self, RoutingError> {
        let shape = fabric.as_cartesian().ok_or(RoutingError::WrongTopology {
            routing: "dimension-order",
            needs: "a mesh or torus",
        })?;
        let q = shape.num_dims();
        let mut ports = vec![NO_CHANNEL; fabric.num_routers() * 2 * q];
        let mut next_router = vec![RouterId::MAX; ports.len()];
        for node in 0..fabric.num_routers() as RouterId {
            for d in 0..q {
                for (k, dir) in [Direction::Up, Direction::Down].into_iter().enumerate() {
                    if let Some(next) = shape.neighbor(node, d, dir) {
                        let ch = fabric.channel_between(node, next).expect("cartesian link");
                        ports[node as usize * 2 * q + 2 * d + k] = ch;
                        next_router[node as usize * 2 * q + 2 * d + k] = next;
                    }
                }
            }
        }
        Ok(Self {
            shape: shape.clone(),
            ports,
            next: next_router,
        })
    }

    /// The shape this routing walks.
    pub fn shape(&self) -> &Cartesian {
        &self.shape
    }

    /// Number of hops of the route from `src` to `dst`.
    pub fn hop_count(&self, src: RouterId, dst: RouterId) -> usize {
        self.shape.hop_distance(src, dst)
    }

    /// Calls `visit(channel, next_router)` for each hop from `src` to `dst`, in order.
    /// The hot path of the engines: no allocation, no fault check.
    #[inline]
    pub fn for_each_hop(
        &self,
        src: RouterId,
        dst: RouterId,
        visit: impl FnMut(ChannelId, RouterId),
    ) {
        self.for_each_hop_in_order(src, dst, 0..self.shape.num_dims(), visit);
    }

    /// Like [`for_each_hop`](Self::for_each_hop), correcting the dimensions in `order`.
    #[inline]
    pub fn for_each_hop_in_order(
        &self,
        src: RouterId,
        dst: RouterId,
        order: impl IntoIterator<Item = usize>,
        visit: impl FnMut(ChannelId, RouterId),
    ) {
        self.for_each_hop_with(src, dst, order, 0, visit);
    }

    /// Signed number of steps along dimension `d` from `a` to `b`: the shorter way round
    /// ([`Cartesian::signed_offset`]), or the other way round a ring when `long_way` is set
    /// and the dimension has a wrap-around link and `a != b`.
    fn offset(&self, d: usize, a: usize, b: usize, long_way: bool) -> isize {
        let off = self.shape.signed_offset(d, a, b);
        if !long_way || off == 0 || !self.shape.has_wrap_link(d) {
            return off;
        }
        let n = self.shape.dims()[d] as isize;
        if off > 0 {
            off - n
        } else {
            off + n
        }
    }

    /// Like [`for_each_hop_in_order`](Self::for_each_hop_in_order); bit `d` of `long_ways`
    /// sends dimension `d` the other way round its ring (see [`Self::offset`]).
    #[inline]
    fn for_each_hop_with(
        &self,
        src: RouterId,
        dst: RouterId,
        order: impl IntoIterator<Item = usize>,
        long_ways: u32,
        mut visit: impl FnMut(ChannelId, RouterId),
    ) {
        let q = self.shape.num_dims();
        let mut cur = src;
        for d in order {
            let off = self.offset(
                d,
                self.shape.coord(cur, d),
                self.shape.coord(dst, d),
                long_ways >> d & 1 == 1,
            );
            let port = 2 * d + usize::from(off < 0);
            for _ in 0..off.unsigned_abs() {
                let slot = cur as usize * 2 * q + port;
                let ch = self.ports[slot];
                debug_assert_ne!(ch, NO_CHANNEL);
                cur = self.next[slot];
                visit(ch, cur);
            }
        }
        debug_assert_eq!(cur, dst);
    }

    /// Fills `path` with the route in dimension order `order`, dimension `d` the long way
    /// round when bit `d` of `long_ways` is set; returns the first failed part on it, if any.
    fn route_in_order(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        order: &[usize],
        long_ways: u32,
        path: &mut Vec<ChannelId>,
    ) -> Option<String> {
        let (fabric, faults) = (req.fabric, req.faults);
        path.clear();
        let mut blocked = None;
        if faults.router_is_down(src) {
            blocked = Some(format!("router {} is down", fabric.router_name(src)));
        }
        self.for_each_hop_with(src, dst, order.iter().copied(), long_ways, |ch, next| {
            if blocked.is_none() {
                if faults.channel_is_down(ch) {
                    blocked = Some(format!("link {} is down", fabric.channel_name(ch)));
                } else if faults.router_is_down(next) {
                    blocked = Some(format!("router {} is down", fabric.router_name(next)));
                }
            }
            path.push(ch);
        });
        blocked
    }
}

impl Routing for DimensionOrder {
    fn name(&self) -> &'static str {
        "dor"
    }

    fn route_into(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        let order: Vec<usize> = (0..self.shape.num_dims()).collect();
        match self.route_in_order(req, src, dst, &order, 0, path) {
            None => Ok(()),
            Some(reason) => Err(RoutingError::unroutable(req.fabric, src, dst, reason)),
        }
    }
}

/// Dimension-order routing with retry, as Cray's Gemini routing recomputes routes around a
/// failed link: take the dimension-order route if it is whole, else try the other orders of
/// the dimensions (in lexicographic order of the permutations) and take the first whole one.
/// When every minimal order is blocked, try going the other way round the ring in the
/// dimensions that wrap (a torus), shortest routes first: the route is then non-minimal in
/// those dimensions (a ring of `n` corrected by `n - k` hops instead of `k`). A route is
/// minimal whenever some dimension order with minimal directions is whole; the pair is
/// unroutable only when every order and choice of ways round is blocked, e.g. two failures
/// in one ring of a torus between the pair, or one failure on the line of a mesh.
#[derive(Debug, Clone)]
pub struct DimensionOrderRetry {
    dor: DimensionOrder,
    orders: Vec<Vec<usize>>,
}

impl DimensionOrderRetry {
    /// The routing for a mesh or torus fabric.
    pub fn new(fabric: &Fabric) -> Result<Self, RoutingError> {
        let dor = DimensionOrder::new(fabric)?;
        let orders = permutations(dor.shape().num_dims());
        Ok(Self { dor, orders })
    }

    /// The first whole route taking the dimensions whose bit is set in `long_ways` the long
    /// way round, trying every order; records the first failed part met in `first`.
    fn try_orders(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        long_ways: u32,
        path: &mut Vec<ChannelId>,
        first: &mut Option<String>,
    ) -> bool {
        for order in &self.orders {
            match self
                .dor
                .route_in_order(req, src, dst, order, long_ways, path)
            {
                None => return true,
                Some(reason) => {
                    first.get_or_insert(reason);
                }
            }
        }
        false
    }

    /// The non-empty sets of dimensions (bit masks) that can go the long way round from `src`
    /// to `dst`, shortest resulting routes first (ties by mask).
    fn long_way_choices(&self, src: RouterId, dst: RouterId) -> Vec<u32> {
        let shape = self.dor.shape();
        let (a, b) = (shape.coords(src), shape.coords(dst));
        let length = |mask: u32| -> usize {
            (0..shape.num_dims())
                .map(|d| {
                    self.dor
                        .offset(d, a[d], b[d], mask >> d & 1 == 1)
                        .unsigned_abs()
                })
                .sum()
        };
        let flippable: u32 = (0..shape.num_dims())
            .filter(|&d| shape.has_wrap_link(d) && a[d] != b[d])
            .map(|d| 1u32 << d)
            .sum();
        // Every non-empty subset of `flippable`.
        let mut masks: Vec<u32> = (1..=flippable).filter(|m| m & !flippable == 0).collect();
        masks.sort_by_key(|&m| (length(m), m));
        masks
    }
}

/// Every permutation of `0..n` in lexicographic order.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    let mut p: Vec<usize> = (0..n).collect();
    let mut out = vec![p.clone()];
    loop {
        let Some(i) = (1..n).rev().find(|&i| p[i - 1] < p[i]) else {
            return out;
        };
        let j = (i..n).rev().find(|&j| p[j] > p[i - 1]).expect("successor");
        p.swap(i - 1, j);
        p[i..].reverse();
        out.push(p.clone());
    }
}

impl Routing for DimensionOrderRetry {
    fn name(&self) -> &'static str {
        "dor-retry"
    }

    fn route_into(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        let mut first = None;
        if self.try_orders(req, src, dst, 0, path, &mut first) {
            return Ok(());
        }
        for long_ways in self.long_way_choices(src, dst) {
            if self.try_orders(req, src, dst, long_ways, path, &mut first) {
                return Ok(());
            }
        }
        path.clear();
        Err(RoutingError::unroutable(
            req.fabric,
            src,
            dst,
            format!(
                "every dimension order and way round is blocked (dimension order: {})",
                first.unwrap_or_default()
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_all_there_once() {
        assert_eq!(permutations(1), vec![vec![0]]);
        let p3 = permutations(3);
        assert_eq!(p3.len(), 6);
        assert_eq!(p3[0], vec![0, 1, 2]);
        assert_eq!(p3[5], vec![2, 1, 0]);
        let mut sorted = p3.clone();
        sorted.dedup();
        assert_eq!(sorted.len(), 6);
    }
}
