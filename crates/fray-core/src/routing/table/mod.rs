//! Table-based routing on any fabric: shortest paths (in router hops) around failed
//! channels and routers, spread over the equal-cost paths. The design is documented on
//! [`TableRouting`].

mod distances;
mod virtual_channels;

pub use virtual_channels::hop_index_vcs;

use distances::{HopDistances, Hops, Row};

use super::{Entropy, RouteRequest, Routing, RoutingError};
use crate::fabric::{ChannelId, Fabric, RouterId};
use crate::faults::Faults;

/// The most routers a table routing takes: its table holds one entry per router pair (1 GiB
/// of one-byte entries at the limit).
pub const MAX_TABLE_ROUTERS: usize = 1 << 15;

// Two-byte entries hold every finite distance (below the router count) under their
// "unreachable" mark; the error in `TableRouting::new` names the limit.
const _: () = assert!(MAX_TABLE_ROUTERS < u16::MAX as usize && MAX_TABLE_ROUTERS == 32768);

const NO_CHANNEL: ChannelId = ChannelId::MAX;

/// Shortest-path routing from per-destination hop tables, for any fabric and one fault
/// state.
///
/// # Tables for one fault state
/// [`TableRouting::new`] runs one breadth-first search per destination router over the live
/// channels reversed (destinations in parallel) and keeps `dist[dst][r]`, the hop count from
/// every router `r` to every destination, in one flat `R x R` table of bytes (two bytes per
/// entry when the live graph's diameter reaches 255). A router that is down, or that no
/// live path joins to `dst`, holds "unreachable". Building takes `O(R x (R + C))` time for
/// `R` routers and `C` router channels, and `R^2` bytes.
///
/// The tables hold for the faults they were built for. [`Routing::route_into`] checks that
/// the request's faults are those, by comparing [`Faults::down_fingerprint`] (a word kept
/// up to date as parts fail, so the check costs one comparison per route), and answers
/// [`RoutingError::OutOfDate`] otherwise: rebuild the routing when the set of down routers
/// and channels changes. Failed endpoints and lost lanes that leave a channel up change no
/// path and need no rebuild.
///
/// # Routes
/// From `src`, each hop takes a live channel to a neighbour one hop closer to `dst` (so
/// every route is a shortest path in the live graph). When several channels qualify
/// (parallel cables count separately), the route takes the one with the least
/// [`Congestion`](super::Congestion), ties broken uniformly at random from the message's
/// [`Entropy`]: different messages between the same pair spread over the equal-cost paths,
/// the same entropy and congestion give the same path. With no congestion signal every
/// hop picks uniformly among its candidates (per-hop ECMP: the paths are not all equally
/// likely when they branch unevenly).
///
/// # Deadlock freedom
/// The flow engine needs none. A packet engine gets it from hop-indexed virtual channels
/// ([`hop_index_vcs`]): every route is minimal, so [`TableRouting::required_vcs`] (the live
/// graph's diameter) VCs suffice.
///
/// # Example
/// ```
/// use fray_core::fabric::Fabric;
/// use fray_core::faults::Faults;
/// use fray_core::routing::{RouteRequest, Routing, TableRouting};
///
/// let fabric = Fabric::parse("mesh:4x4").unwrap();
/// let mut faults = Faults::none(&fabric);
/// faults.fail_link(&fabric, 0, 1).unwrap();
/// let table = TableRouting::new(&fabric, &faults).unwrap(); // tables for these faults
/// let mut path = Vec::new();
/// table.route_into(&RouteRequest::new(&fabric, &faults), 0, 1, &mut path).unwrap();
/// assert_eq!(path.len(), 3); // around the failed cable: down, across, up
/// assert_eq!(table.required_vcs(), 6); // the 4x4 mesh's diameter
/// ```
#[derive(Debug, Clone)]
pub struct TableRouting {
    distances: HopDistances,
    /// Connected component of each router in the fabric without faults, to tell "the faults
    /// disconnect them" from "the fabric never joined them".
    component: Vec<u32>,
    /// [`Faults::down_fingerprint`] of the faults the tables were built for.
    down_fingerprint: u64,
}

impl TableRouting {
    /// The tables for `fabric` under `faults`. Fails when the fabric has more than
    /// [`MAX_TABLE_ROUTERS`] routers.
    pub fn new(fabric: &Fabric, faults: &Faults) -> Result<Self, RoutingError> {
        if fabric.num_routers() > MAX_TABLE_ROUTERS {
            return Err(RoutingError::WrongTopology {
                routing: "table",
                needs: "at most 32768 routers (its table holds one entry per router pair)",
            });
        }
        Ok(Self {
            distances: HopDistances::new(fabric, faults),
            component: components(fabric),
            down_fingerprint: faults.down_fingerprint(),
        })
    }

    /// Number of hops of every route from `src` to `dst`, or `None` when no live path joins
    /// them.
    pub fn hop_count(&self, src: RouterId, dst: RouterId) -> Option<usize> {
        self.distances.get(src, dst).map(|h| h as usize)
    }

    /// The number of virtual channels the hop-index scheme ([`hop_index_vcs`]) needs for
    /// these routes to be deadlock-free: the longest route's hop count, which is the
    /// diameter of the live graph (pairs it disconnects aside).
    pub fn required_vcs(&self) -> usize {
        self.distances.diameter() as usize
    }

    /// Bytes of one table entry: 1, or 2 when the live graph's diameter reaches 255.
    pub fn bytes_per_entry(&self) -> usize {
        self.distances.bytes_per_entry()
    }

    /// Why no route joins `src` and `dst`.
    fn unroutable(
        &self,
        fabric: &Fabric,
        faults: &Faults,
        src: RouterId,
        dst: RouterId,
    ) -> RoutingError {
        let reason = if let Some(r) = [src, dst].into_iter().find(|&r| faults.router_is_down(r)) {
            format!("router {} is down", fabric.router_name(r))
        } else if self.component[src as usize] != self.component[dst as usize] {
            "no cable path joins them, even without faults".to_string()
        } else {
            "the failed links and routers disconnect them".to_string()
        };
        RoutingError::unroutable(fabric, src, dst, reason)
    }
}

impl Routing for TableRouting {
    fn name(&self) -> &'static str {
        "table"
    }

    fn hop_index_classes(&self) -> Option<usize> {
        Some(self.required_vcs().max(1))
    }

    fn route_into(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        path.clear();
        if req.faults.down_fingerprint() != self.down_fingerprint {
            return Err(RoutingError::OutOfDate {
                routing: "table",
                reason: "its tables were built for other failed routers and channels than \
                         this request's; build it again for these faults"
                    .into(),
            });
        }
        if req.fabric.num_routers() != self.distances.num_routers() {
            return Err(RoutingError::OutOfDate {
                routing: "table",
                reason: format!(
                    "its tables were built for a fabric of {} routers, this one has {}",
                    self.distances.num_routers(),
                    req.fabric.num_routers()
                ),
            });
        }
        let found = match self.distances.row(dst) {
            Row::Narrow(row) => walk(row, req, src, path),
            Row::Wide(row) => walk(row, req, src, path),
        };
        if found {
            Ok(())
        } else {
            Err(self.unroutable(req.fabric, req.faults, src, dst))
        }
    }
}

/// Walks from `src` down the distances of `row` (the destination's row), appending each hop
/// to `path`; `false` when `src` cannot reach the destination.
#[inline]
fn walk<D: Hops>(
    row: &[D],
    req: &RouteRequest<'_>,
    src: RouterId,
    path: &mut Vec<ChannelId>,
) -> bool {
    let start = row[src as usize];
    if start == D::UNREACHED {
        return false;
    }
    let fabric = req.fabric;
    let next_router = &fabric.channels().dst;
    let mut entropy = Entropy::new(req.entropy);
    let mut cur = src;
    let mut left = start.hops();
    path.reserve(left as usize);
    while left > 0 {
        left -= 1;
        let closer = D::from_hops(left);
        let mut best = NO_CHANNEL;
        let mut best_load = 0.0;
        let mut ties = 0;
        for &c in fabric.out_channels(cur) {
            if row[next_router[c as usize] as usize] != closer || req.faults.channel_is_down(c) {
                continue;
            }
            let load = req.congestion.congestion(c);
            if best == NO_CHANNEL || load < best_load {
                (best, best_load, ties) = (c, load, 1);
            } else if load == best_load {
                // Reservoir sampling: each of the `ties` equal candidates ends up chosen
                // with probability 1 / ties.
                ties += 1;
                if entropy.below(ties) == 0 {
                    best = c;
                }
            }
        }
        debug_assert_ne!(
            best, NO_CHANNEL,
            "the tables promise a live channel one hop closer"
        );
        path.push(best);
        cur = next_router[best as usize];
    }
    true
}

/// The connected component of each router over every router channel, faults ignored
/// (components numbered from 0 in order of their lowest router).
fn components(fabric: &Fabric) -> Vec<u32> {
    let n = fabric.num_routers();
    let next_router = &fabric.channels().dst;
    let mut component = vec![u32::MAX; n];
    let mut stack = Vec::new();
    let mut count = 0;
    for root in 0..n as RouterId {
        if component[root as usize] != u32::MAX {
            continue;
        }
        component[root as usize] = count;
        stack.push(root);
        while let Some(v) = stack.pop() {
            for &c in fabric.out_channels(v) {
                let u = next_router[c as usize];
                if component[u as usize] == u32::MAX {
                    component[u as usize] = count;
                    stack.push(u);
                }
            }
        }
        count += 1;
    }
    component
}
