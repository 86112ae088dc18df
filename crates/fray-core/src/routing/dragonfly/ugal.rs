//! UGAL on a dragonfly: minimal or Valiant, chosen at the source router by congestion.

use super::minimal::minimal_path;
use super::valiant::valiant_path;
use super::{DragonflyPaths, Walk};
use crate::fabric::{ChannelId, Fabric, RouterId};
use crate::routing::{Congestion, RouteRequest, Routing, RoutingError};

/// Universal globally-adaptive load-balanced routing, local variant (UGAL-L, Kim et al.
/// 2008), as the failed-links study uses it: at the source router, compare the minimal path
/// ([`super::DragonflyMinimal`]) with **one** Valiant candidate ([`super::DragonflyValiant`],
/// intermediate group weighted by live links) by the congestion of each path's first channel
/// (the source router's output port) times the path's hop count, and take the minimal path
/// when `q_min * H_min <= q_val * H_val + T`. `T` is the threshold of Kim et al.'s UGAL
/// (flows times hops; 0 by default, routing name `ugal`; `ugal:threshold=T` sets it): with
/// `T = 0` a message goes Valiant as soon as the minimal port carries any flow and the
/// Valiant one none, which real switches temper with a threshold (SST's merlin goes Valiant
/// only when the minimal port has less than half the Valiant port's free credits).
/// Congestion comes from [`RouteRequest::congestion`] (whichever engine runs the routing).
///
/// With no congestion on the minimal path's first channel (`q_min = 0`) the minimal path
/// wins outright and no Valiant candidate is drawn, so under [`crate::routing::NoCongestion`]
/// UGAL routes exactly as minimal does. When there is no whole minimal path (e.g. every
/// global link between the two groups is down) it goes Valiant; when there is no Valiant
/// path it goes minimal; unroutable only when neither exists. At most 5 hops.
#[derive(Debug)]
pub struct DragonflyUgal {
    paths: DragonflyPaths,
    /// `T`: how much more congested (flows times hops) the minimal path may be than the
    /// Valiant one and still be taken.
    threshold: f64,
}

impl DragonflyUgal {
    /// The routing for a dragonfly fabric, with threshold `threshold` (flows times hops,
    /// at least 0; see [`crate::routing::build`] for the name that sets it).
    pub fn new(fabric: &Fabric, threshold: f64) -> Result<Self, RoutingError> {
        debug_assert!(threshold >= 0.0, "UGAL threshold {threshold} below 0");
        Ok(Self {
            paths: DragonflyPaths::new(fabric, "dragonfly UGAL")?,
            threshold,
        })
    }
}

/// Appends the UGAL-L choice between the minimal path and one Valiant path.
fn ugal_path(
    w: &mut Walk<'_>,
    congestion: &dyn Congestion,
    threshold: f64,
    path: &mut Vec<ChannelId>,
) -> Result<(), String> {
    if let Err(no_minimal) = minimal_path(w, path) {
        return valiant_path(w, path).map_err(|no_valiant| {
            format!("no minimal path ({no_minimal}) and no Valiant path ({no_valiant})")
        });
    }
    let h_min = path.len();
    let q_min = congestion.congestion(path[0]);
    if q_min * h_min as f64 <= threshold || valiant_path(w, path).is_err() {
        return Ok(());
    }
    let h_val = path.len() - h_min;
    let q_val = congestion.congestion(path[h_min]);
    if q_min * h_min as f64 <= q_val * h_val as f64 + threshold {
        path.truncate(h_min);
    } else {
        path.drain(..h_min);
    }
    Ok(())
}

impl Routing for DragonflyUgal {
    fn name(&self) -> &'static str {
        "ugal"
    }

    fn route_into(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        self.paths.route(req, src, dst, path, |w, path| {
            ugal_path(w, req.congestion, self.threshold, path)
        })
    }
}
