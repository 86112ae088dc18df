//! Valiant dragonfly routing: through a random intermediate group, weighted by live links.

use super::{local_up, pick_uniform, DragonflyPaths, Walk};
use crate::fabric::{ChannelId, Fabric, RouterId};
use crate::routing::{RouteRequest, Routing, RoutingError};

/// Valiant routing on a dragonfly, as the failed-links study routes its indirect paths.
///
/// Between two routers of one group, the detour stays in the group (as in Kim et al. and
/// SST's merlin): an intermediate router of the group, drawn uniformly among those that are
/// up and whose two local hops are up, so **2 local hops** and never a global link. When the
/// group has no such router (two routers, or failures), the detour leaves the group as below.
///
/// Between groups, an intermediate group `I` (neither the source's group nor the destination's) is drawn with
/// weight `min(live links from the source group to I, live links from I to the destination
/// group)`, so that groups cut off from either end by failed global links are never drawn and
/// traffic spreads in proportion to what is left. The route is a minimal leg to group `I`
/// (it ends where the global channel lands) and a minimal leg from there to the destination:
/// local, global, local, global, local, so **at most 5 router-to-router hops** and exactly
/// two global hops.
///
/// Weights count live global channels only. When failed local links leave the drawn group
/// with no whole path, the route takes the first whole one among the groups that follow it
/// (in group order, wrapping round) with a non-zero weight. Two groups with no live global
/// link left between them are still served this way. Unroutable when no intermediate group
/// gives a whole path (always so with two groups).
#[derive(Debug)]
pub struct DragonflyValiant {
    paths: DragonflyPaths,
}

impl DragonflyValiant {
    /// The routing for a dragonfly fabric.
    pub fn new(fabric: &Fabric) -> Result<Self, RoutingError> {
        Ok(Self {
            paths: DragonflyPaths::new(fabric, "dragonfly valiant")?,
        })
    }
}

/// Appends a Valiant path from `w.src` to `w.dst` (different routers), or says why there is
/// none (with nothing appended).
pub(super) fn valiant_path(w: &mut Walk<'_>, path: &mut Vec<ChannelId>) -> Result<(), String> {
    let (src, dst) = (w.src, w.dst);
    let (gs, gd) = (w.group(src), w.group(dst));
    if gs == gd && within_group(w, path).is_ok() {
        return Ok(());
    }
    let first = intermediate_group(w, gs, gd).ok_or_else(|| {
        format!(
            "no intermediate group has live global links both from group {gs} and to group {gd}"
        )
    })?;
    let (from_src, to_dst) = w.live_counts_from_and_to(gs, gd);
    let weight = |i: usize| from_src[i].min(to_dst[i]) as usize;
    let groups = from_src.len();
    let mark = path.len();
    for i in (first..groups).chain(0..first) {
        if weight(i) == 0 {
            continue;
        }
        if let Some(via) = w.leg(src, i, None, path) {
            if w.leg(via, gd, Some(dst), path).is_some() {
                return Ok(());
            }
        }
        path.truncate(mark);
    }
    Err(format!(
        "failed local links block the path through every intermediate group from group {gs} \
         to group {gd}"
    ))
}

/// An intermediate group for a path from group `gs` to group `gd`, drawn with weight
/// `min(live links from gs to it, live links from it to gd)`; `None` when every weight is 0.
pub(super) fn intermediate_group(w: &mut Walk<'_>, gs: usize, gd: usize) -> Option<usize> {
    // The diagonals of the count tables are 0, so neither end's own group gets weight.
    let (from_src, to_dst) = w.live_counts_from_and_to(gs, gd);
    let weight = |i: usize| from_src[i].min(to_dst[i]) as usize;
    let groups = from_src.len();
    let total: usize = (0..groups).map(weight).sum();
    if total == 0 {
        return None;
    }
    let mut draw = w.entropy.below(total);
    (0..groups).find(|&i| match draw.checked_sub(weight(i)) {
        Some(rest) => {
            draw = rest;
            false
        }
        None => true,
    })
}

/// Appends the two local hops through a random intermediate router of the group of `w.src`
/// and `w.dst` (same group, different routers), or says why there is none (with nothing
/// appended).
fn within_group(w: &mut Walk<'_>, path: &mut Vec<ChannelId>) -> Result<(), String> {
    let (src, dst, df, faults) = (w.src, w.dst, w.df, w.faults);
    let g = df.shape().group_of(src);
    let usable = |k: usize| {
        let m = df.shape().router(g, k);
        m != src
            && m != dst
            && !faults.router_is_down(m)
            && local_up(df, faults, src, m)
            && local_up(df, faults, m, dst)
    };
    let k =
        pick_uniform(df.shape().routers_per_group, &mut w.entropy, usable).ok_or_else(|| {
            format!("failed local links leave no router of group {g} between the two ends")
        })?;
    let m = df.shape().router(g, k);
    w.push_local(src, m, path);
    w.push_local(m, dst, path);
    Ok(())
}

impl Routing for DragonflyValiant {
    fn name(&self) -> &'static str {
        "valiant"
    }

    fn route_into(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        self.paths.route(req, src, dst, path, valiant_path)
    }
}
