//! Up/down routing on an XGFT (slimmed fat tree) with D-mod-k up-port choice, and its
//! fault-tolerant variant.
//!
//! # The route
//! A message climbs from its source switch to a nearest common ancestor (NCA) of source and
//! destination, then descends the unique way down. In an XGFT the way up to a given ancestor is
//! unique too, so a route is fixed by the parent digits it picks going up; going higher than
//! the NCA level only returns through the same NCA, so it never helps. Between two switches at
//! levels `ls`, `lt` whose NCA level is `L` a route has `(L - ls) + (L - lt)` switch-to-switch
//! hops: `2 (L - 1) <= 2 (h - 1)` between level-1 switches, and with the two host channels
//! `2 L <= 2 h` hops from processing node to processing node (the paper's count). Two switches
//! with no common ancestor (e.g. two top-level switches) have no up/down route.
//!
//! # D-mod-k
//! Going up from level `l` to `l + 1`, a message to processing node (endpoint) `D` takes up
//! port (parent digit `x_{l+1}`) `floor(D / (w_1 * .. * w_l)) mod w_{l+1}` (Zahavi et al.).
//! The digits of the NCA therefore depend on the destination only, so every down channel
//! carries one destination's traffic on a full fat tree (`w_{l+1} = m_l`), and a shift
//! permutation crosses every channel at most once. Routes between endpoints use the
//! destination endpoint's index ([`Routing::route_endpoints_into`]); routes between two
//! switches use the first processing node below the destination switch. When the
//! destination switch is above the source, the digits up to its level are the destination's
//! own.
//!
//! # Faults
//! [`UpDown`] is static: a failed channel or switch on its D-mod-k route makes the pair
//! unroutable. [`UpDownFaultTolerant`] searches the up ports depth first: at each level the
//! D-mod-k port first, then the next ones in cyclic order (`k + 1`, `k + 2`, .. mod
//! `w_{l+1}`), going back a level when every port of a level is blocked. It climbs from the
//! source and from the destination at once: entering level `l` with parent digit `b` it
//! checks the source side's up channel and the destination side's down channel (the reverse
//! of the destination side's up channel to the parent with digit `b`) and both parents, since
//! the route down from any ancestor passes exactly through the destination side's nodes. So
//! a partial choice is extended only while its way down is live too, each check costs two
//! channel and two switch lookups, and the search visits each prefix of parent digits at most
//! once (at most the `prod w` NCAs times `h` steps, `h` steps when nothing is down). It
//! returns the first live up/down route in that order, and is unroutable only when no live
//! up/down route exists.

use super::{RouteRequest, Routing, RoutingError};
use crate::fabric::{ChannelId, EndpointId, Fabric, RouterId, Xgft, MAX_XGFT_LEVELS};

/// The part that blocked a step of the search (named in the error message).
#[derive(Debug, Clone, Copy)]
enum Blocked {
    Channel(ChannelId),
    Router(RouterId),
}

impl Blocked {
    fn describe(self, fabric: &Fabric) -> String {
        match self {
            Self::Channel(c) => format!("link {} is down", fabric.channel_name(c)),
            Self::Router(r) => format!("switch {} is down", fabric.router_name(r)),
        }
    }
}

/// Up/down routing with D-mod-k up ports; static (see the module docs).
#[derive(Debug, Clone)]
pub struct UpDown {
    tree: Xgft,
    /// `up[up_offset[r] + k]`: the channel from switch `r` to its parent with digit
    /// `x_{l+1} = k` (`l` the level of `r`).
    up_offset: Vec<u32>,
    up: Vec<ChannelId>,
    /// `w_prefix[l] = w_1 * .. * w_l` (`w_prefix[0] = 1`; at most the number of switches).
    w_prefix: Vec<u32>,
}

/// The search's state per level `j`: the source side's and destination side's switch at
/// level `j`, and the channel into it (up, source side) or out of it (down, destination side).
struct Climb {
    src_at: [RouterId; MAX_XGFT_LEVELS + 1],
    dst_at: [RouterId; MAX_XGFT_LEVELS + 1],
    src_ch: [ChannelId; MAX_XGFT_LEVELS + 1],
    dst_ch: [ChannelId; MAX_XGFT_LEVELS + 1],
}

impl UpDown {
    /// The routing for an XGFT fabric built by [`Fabric::xgft`].
    pub fn new(fabric: &Fabric) -> Result<Self, RoutingError> {
        let wrong = RoutingError::WrongTopology {
            routing: "updown",
            needs: "an XGFT (fat tree) built by Fabric::xgft",
        };
        let tree = fabric.as_xgft().ok_or(wrong.clone())?;
        let shape = tree.shape();
        if fabric.num_routers() != shape.num_switches()
            || fabric.num_endpoints() != shape.num_processing_nodes()
        {
            return Err(wrong);
        }
        let h = tree.height();
        let mut up_offset = Vec::with_capacity(fabric.num_routers() + 1);
        up_offset.push(0u32);
        for r in 0..fabric.num_routers() as RouterId {
            let ports = shape.up_degree(tree.level_of(r)) as u32;
            up_offset.push(up_offset[r as usize] + ports);
        }
        let mut up = vec![ChannelId::MAX; *up_offset.last().expect("one entry") as usize];
        let dst = &fabric.channels().dst;
        for r in 0..fabric.num_routers() as RouterId {
            let l = tree.level_of(r);
            for &c in fabric.out_channels(r) {
                let p = dst[c as usize];
                if l < h && tree.level_of(p) == l + 1 {
                    up[(up_offset[r as usize] + tree.digits(p)[l]) as usize] = c;
                }
            }
        }
        if up.contains(&ChannelId::MAX) {
            return Err(wrong);
        }
        let mut w_prefix = vec![1u32; h + 1];
        for l in 1..=h {
            w_prefix[l] = w_prefix[l - 1] * shape.w()[l - 1] as u32;
        }
        Ok(Self {
            tree: tree.clone(),
            up_offset,
            up,
            w_prefix,
        })
    }

    /// The tree this routing walks.
    pub fn tree(&self) -> &Xgft {
        &self.tree
    }

    /// The D-mod-k up port from level `level` towards processing node `dest`:
    /// `floor(dest / (w_1 * .. * w_level)) mod w_{level+1}` (`level < h`).
    #[inline]
    pub fn dmodk_port(&self, level: usize, dest: u32) -> usize {
        let w_next = self.tree.shape().w()[level] as u32;
        ((dest / self.w_prefix[level]) % w_next) as usize
    }

    /// The channel from switch `r` up to its parent with digit `port`.
    #[inline]
    pub fn up_channel(&self, r: RouterId, port: usize) -> ChannelId {
        self.up[self.up_offset[r as usize] as usize + port]
    }

    /// Enters level `j` with parent digit `k`: the source side climbs when it is below `j`,
    /// the destination side when it is below `j`. `None` when both halves stay live.
    #[inline]
    fn step(
        &self,
        req: &RouteRequest<'_>,
        climb: &mut Climb,
        (ls, lt): (usize, usize),
        j: usize,
        k: usize,
    ) -> Option<Blocked> {
        if j > ls {
            match self.hop_up(req, climb.src_at[j - 1], k, false) {
                Ok((p, c)) => (climb.src_at[j], climb.src_ch[j]) = (p, c),
                Err(blocked) => return Some(blocked),
            }
        }
        if j > lt {
            match self.hop_up(req, climb.dst_at[j - 1], k, true) {
                Ok((p, c)) => (climb.dst_at[j], climb.dst_ch[j]) = (p, c),
                Err(blocked) => return Some(blocked),
            }
        }
        None
    }

    /// From switch `r` to its parent with digit `k`: the parent and the channel the route
    /// uses, the up channel or (`downward`, for the destination's half) its reverse, or what
    /// blocks it.
    #[inline]
    fn hop_up(
        &self,
        req: &RouteRequest<'_>,
        r: RouterId,
        k: usize,
        downward: bool,
    ) -> Result<(RouterId, ChannelId), Blocked> {
        let ch = req.fabric.channels();
        let up = self.up_channel(r, k);
        let p = ch.dst[up as usize];
        let c = if downward {
            ch.reverse[up as usize]
        } else {
            up
        };
        if req.faults.channel_is_down(c) {
            return Err(Blocked::Channel(c));
        }
        if req.faults.router_is_down(p) {
            return Err(Blocked::Router(p));
        }
        Ok((p, c))
    }

    /// Routes from switch `s` to switch `t` for a message to processing node `dest` (below
    /// `t`); with `alternatives`, searches the other up ports when the D-mod-k route is
    /// blocked.
    fn route(
        &self,
        req: &RouteRequest<'_>,
        s: RouterId,
        t: RouterId,
        dest: u32,
        alternatives: bool,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        path.clear();
        let fabric = req.fabric;
        let unroutable = |reason: String| Err(RoutingError::unroutable(fabric, s, t, reason));
        for r in [s, t] {
            if req.faults.router_is_down(r) {
                return unroutable(Blocked::Router(r).describe(fabric));
            }
        }
        if s == t {
            return Ok(());
        }
        let tree = &self.tree;
        let (h, w) = (tree.height(), tree.shape().w());
        let (ds, dt) = (tree.digits(s), tree.digits(t));
        let (ls, lt) = (tree.level_of(s), tree.level_of(t));
        let (lo, hi) = (ls.min(lt), ls.max(lt));
        // Parent digits both switches already fixed must agree, or no ancestor is common.
        if let Some(i) = (1..lo).find(|&i| ds[i] != dt[i]) {
            return unroutable(format!(
                "no common ancestor: the two switches took different parents into level {}",
                i + 1
            ));
        }
        // The NCA level: above it the subtree digits agree.
        let top = (hi..h)
            .rev()
            .find(|&i| ds[i] != dt[i])
            .map_or(hi, |i| i + 1);
        let mut climb = Climb {
            src_at: [RouterId::MAX; MAX_XGFT_LEVELS + 1],
            dst_at: [RouterId::MAX; MAX_XGFT_LEVELS + 1],
            src_ch: [ChannelId::MAX; MAX_XGFT_LEVELS + 1],
            dst_ch: [ChannelId::MAX; MAX_XGFT_LEVELS + 1],
        };
        climb.src_at[ls] = s;
        climb.dst_at[lt] = t;
        let mut tried = [0usize; MAX_XGFT_LEVELS + 1];
        let mut first_blocked = None;
        let mut j = lo + 1;
        while j <= top {
            // Below the higher switch's level the digit is that switch's own; above, D-mod-k.
            let (first, count) = if j <= hi {
                let higher = if ls > lt { ds } else { dt };
                (higher[j - 1] as usize, 1)
            } else {
                let count = if alternatives { w[j - 1] } else { 1 };
                (self.dmodk_port(j - 1, dest), count)
            };
            let mut entered = false;
            while tried[j] < count && !entered {
                // The ports in cyclic order from `first`.
                let k = first + tried[j];
                let k = if k >= w[j - 1] { k - w[j - 1] } else { k };
                tried[j] += 1;
                match self.step(req, &mut climb, (ls, lt), j, k) {
                    None => entered = true,
                    Some(b) => {
                        first_blocked.get_or_insert(b);
                    }
                }
            }
            if entered {
                j += 1;
                if j <= top {
                    tried[j] = 0;
                }
            } else if j == lo + 1 {
                let blocked = first_blocked.expect("a blocked step").describe(fabric);
                return unroutable(if alternatives {
                    let ncas: u64 = w[hi..top].iter().map(|&x| x as u64).product();
                    format!(
                        "no live up/down path through the {ncas} nearest common ancestor(s) at \
                         level {top} (D-mod-k path: {blocked})"
                    )
                } else {
                    format!("D-mod-k up/down path blocked: {blocked}")
                });
            } else {
                j -= 1;
            }
        }
        debug_assert_eq!(climb.src_at[top], climb.dst_at[top], "the two sides meet");
        path.extend_from_slice(&climb.src_ch[ls + 1..=top]);
        path.extend(climb.dst_ch[lt + 1..=top].iter().rev());
        Ok(())
    }

    fn route_endpoint_pair(
        &self,
        req: &RouteRequest<'_>,
        src: EndpointId,
        dst: EndpointId,
        alternatives: bool,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        let f = req.fabric;
        self.route(
            req,
            f.router_of(src),
            f.router_of(dst),
            dst,
            alternatives,
            path,
        )
    }

    fn route_routers(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        alternatives: bool,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        let dest = self.tree.first_node_below(dst);
        self.route(req, src, dst, dest, alternatives, path)
    }
}

impl Routing for UpDown {
    fn name(&self) -> &'static str {
        "updown"
    }

    fn route_into(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        self.route_routers(req, src, dst, false, path)
    }

    fn route_endpoints_into(
        &self,
        req: &RouteRequest<'_>,
        src: EndpointId,
        dst: EndpointId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        self.route_endpoint_pair(req, src, dst, false, path)
    }
}

/// Up/down routing with D-mod-k up ports that searches the other up ports around failed
/// channels and switches (see the module docs).
#[derive(Debug, Clone)]
pub struct UpDownFaultTolerant {
    updown: UpDown,
}

impl UpDownFaultTolerant {
    /// The routing for an XGFT fabric built by [`Fabric::xgft`].
    pub fn new(fabric: &Fabric) -> Result<Self, RoutingError> {
        Ok(Self {
            updown: UpDown::new(fabric)?,
        })
    }
}

impl Routing for UpDownFaultTolerant {
    fn name(&self) -> &'static str {
        "updown-ft"
    }

    fn route_into(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        self.updown.route_routers(req, src, dst, true, path)
    }

    fn route_endpoints_into(
        &self,
        req: &RouteRequest<'_>,
        src: EndpointId,
        dst: EndpointId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        self.updown.route_endpoint_pair(req, src, dst, true, path)
    }
}
