//! Dimension-order routing (XY, XYZ, ...) on a mesh or torus.

use super::{Routing, RoutingError};
use crate::fabric::{Cartesian, ChannelId, Direction, Fabric, RouterId};
use crate::faults::Faults;

const NO_CHANNEL: ChannelId = ChannelId::MAX;

/// Dimension-order routing: correct the coordinates one dimension at a time, dimension 0
/// first. On a torus each dimension goes the shorter way round; when both ways are equally
/// long (half an even ring) the message goes up (see [`Cartesian::signed_offset`]).
///
/// Routes are static: a failed channel or router on the path makes the pair
/// [`RoutingError::Unroutable`]. A failed endpoint does not block routing (its router still
/// forwards traffic).
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
        mut visit: impl FnMut(ChannelId, RouterId),
    ) {
        let q = self.shape.num_dims();
        let mut cur = src;
        for d in 0..q {
            let off =
                self.shape
                    .signed_offset(d, self.shape.coord(cur, d), self.shape.coord(dst, d));
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
}

impl Routing for DimensionOrder {
    fn name(&self) -> &'static str {
        "dor"
    }

    fn route_into(
        &self,
        _fabric: &Fabric,
        faults: &Faults,
        src: RouterId,
        dst: RouterId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        path.clear();
        let mut blocked = None;
        self.for_each_hop(src, dst, |ch, next| {
            if blocked.is_none() {
                if faults.channel_is_down(ch) {
                    blocked = Some(format!("channel {ch} is down"));
                } else if faults.router_is_down(next) {
                    blocked = Some(format!("router {next} is down"));
                }
            }
            path.push(ch);
        });
        if faults.router_is_down(src) {
            blocked = Some(format!("router {src} is down"));
        }
        match blocked {
            Some(reason) => Err(RoutingError::Unroutable { src, dst, reason }),
            None => Ok(()),
        }
    }
}
