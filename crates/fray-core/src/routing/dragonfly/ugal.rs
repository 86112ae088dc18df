//! UGAL on a dragonfly: minimal or Valiant, chosen at the source router by congestion.

use super::minimal::minimal_path;
use super::valiant::{intermediate_group, valiant_path};
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
///
/// With [`GlobalLinks::Adaptive`] (routing name `ugal:links=adaptive`) it chooses between
/// groups as SST's merlin routers do at a packet's source router: every live global link to
/// the destination group weighs the congestion of its first hop from the source router
/// (`q`), every live global link to the drawn Valiant group `2 q + T`, and the lightest
/// link wins (ties drawn uniformly among all of them); the Valiant path goes on from where
/// its global link lands over the lightest link to the destination group, a local first
/// hop counting double (merlin's choice in the intermediate group, made here at the
/// source). Within a group it is the rule above (`q_min <= 2 q_val + T`), merlin's too.
#[derive(Debug)]
pub struct DragonflyUgal {
    paths: DragonflyPaths,
    /// `T`: how much more congested (flows times hops) the minimal path may be than the
    /// Valiant one and still be taken.
    threshold: f64,
    links: GlobalLinks,
}

/// How UGAL picks among the parallel global links between two groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GlobalLinks {
    /// Uniformly among the live ones, as minimal and Valiant routing do (`links=random`).
    #[default]
    Random,
    /// The one whose first hop from the source router is least congested, compared across
    /// minimal and Valiant candidates at once, as SST's merlin does (`links=adaptive`).
    Adaptive,
}

impl GlobalLinks {
    /// Reads `random` or `adaptive`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "random" => Some(Self::Random),
            "adaptive" => Some(Self::Adaptive),
            _ => None,
        }
    }
}

impl DragonflyUgal {
    /// The routing for a dragonfly fabric, with threshold `threshold` (flows times hops,
    /// at least 0) and global links picked by `links` (see [`crate::routing::build`] for
    /// the name that sets them).
    pub fn new(fabric: &Fabric, threshold: f64, links: GlobalLinks) -> Result<Self, RoutingError> {
        debug_assert!(threshold >= 0.0, "UGAL threshold {threshold} below 0");
        Ok(Self {
            paths: DragonflyPaths::new(fabric, "dragonfly UGAL")?,
            threshold,
            links,
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

/// Appends the choice of UGAL with adaptive global links (see [`DragonflyUgal`]).
fn ugal_adaptive_path(
    w: &mut Walk<'_>,
    congestion: &dyn Congestion,
    threshold: f64,
    path: &mut Vec<ChannelId>,
) -> Result<(), String> {
    let (src, dst) = (w.src, w.dst);
    let (gs, gd) = (w.group(src), w.group(dst));
    if gs == gd {
        return ugal_path(w, congestion, threshold, path);
    }
    let direct = w.lightest_link(src, gd, Some(dst), congestion, |q, _| q);
    let via = intermediate_group(w, gs, gd);
    let valiant =
        via.and_then(|i| w.lightest_link(src, i, None, congestion, |q, _| 2.0 * q + threshold));
    let go_valiant = match (direct, valiant) {
        (None, None) => return valiant_path(w, path),
        (Some(_), None) => false,
        (None, Some(_)) => true,
        (Some(d), Some(v)) if d.weight == v.weight => w.entropy.below(d.ties + v.ties) >= d.ties,
        (Some(d), Some(v)) => v.weight < d.weight,
    };
    if !go_valiant {
        let d = direct.expect("a direct link when not going Valiant");
        w.leg_through(src, d.channel, Some(dst), path);
        return Ok(());
    }
    let v = valiant.expect("a Valiant link when going Valiant");
    let mark = path.len();
    let landed = w.leg_through(src, v.channel, None, path);
    let onward = |q: f64, local: bool| if local { 2.0 * q } else { q };
    match w.lightest_link(landed, gd, Some(dst), congestion, onward) {
        Some(next) => {
            w.leg_through(landed, next.channel, Some(dst), path);
            Ok(())
        }
        // Failed local links in the intermediate group: any whole Valiant path will do.
        None => {
            path.truncate(mark);
            valiant_path(w, path)
        }
    }
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
        self.paths
            .route(req, src, dst, path, |w, path| match self.links {
                GlobalLinks::Random => ugal_path(w, req.congestion, self.threshold, path),
                GlobalLinks::Adaptive => {
                    ugal_adaptive_path(w, req.congestion, self.threshold, path)
                }
            })
    }
}
