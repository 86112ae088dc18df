//! Minimal dragonfly routing: at most one global hop.

use super::{DragonflyPaths, Walk};
use crate::fabric::{ChannelId, Fabric, RouterId};
use crate::routing::{RouteRequest, Routing, RoutingError};

/// Minimal routing on a dragonfly: inside a group, the local hop to the destination; between
/// groups, a local hop to a router that holds a live global channel to the destination's
/// group, the global hop, and a local hop to the destination, so at most 3 router-to-router
/// hops. With parallel global cables between the two groups it takes one of the live ones
/// whose local hops are up, uniformly by the message's entropy (spreading the pair's
/// traffic over them).
///
/// Unroutable when no such path is whole: the local link between two routers of a group is
/// down, every global link between the two groups is down, or each live one has a failed
/// local hop on its way (the error names the groups and which). [`super::DragonflyValiant`]
/// and [`super::DragonflyUgal`] still serve such pairs through another group.
#[derive(Debug)]
pub struct DragonflyMinimal {
    paths: DragonflyPaths,
}

impl DragonflyMinimal {
    /// The routing for a dragonfly fabric.
    pub fn new(fabric: &Fabric) -> Result<Self, RoutingError> {
        Ok(Self {
            paths: DragonflyPaths::new(fabric, "dragonfly minimal")?,
        })
    }
}

/// Appends the minimal path from `w.src` to `w.dst` (different routers), or says why there
/// is none (with nothing appended).
pub(super) fn minimal_path(w: &mut Walk<'_>, path: &mut Vec<ChannelId>) -> Result<(), String> {
    let (src, dst) = (w.src, w.dst);
    let (gs, gd) = (w.group(src), w.group(dst));
    if gs == gd {
        if !w.local_up(src, dst) {
            let f = w.fabric;
            return Err(if w.df.adjacent(src, dst) {
                format!(
                    "local link {} is down",
                    f.channel_name(w.df.local_channel(src, dst))
                )
            } else {
                let [a, b] = w.df.local_vias(src, dst);
                format!(
                    "the local links through {} and through {} are down",
                    f.router_name(a),
                    f.router_name(b)
                )
            });
        }
        w.push_local(src, dst, path);
        return Ok(());
    }
    match w.leg(src, gd, Some(dst), path) {
        Some(_) => Ok(()),
        None => Err(w.blocked_leg_reason(gs, gd)),
    }
}

impl Routing for DragonflyMinimal {
    fn name(&self) -> &'static str {
        "minimal"
    }

    fn route_into(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        self.paths.route(req, src, dst, path, minimal_path)
    }
}
