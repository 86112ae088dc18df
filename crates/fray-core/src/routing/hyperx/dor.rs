//! Dimension-order routing on a HyperX.

use super::{hyperx_of, pick_cable, walk_dimensions};
use crate::fabric::{Cartesian, ChannelId, Fabric, RouterId};
use crate::routing::{NoCongestion, RouteRequest, Routing, RoutingError};

const NAME: &str = "HyperX dimension-order";

/// Dimension-order routing on a HyperX: for each dimension in which the current router and
/// the destination differ, dimension 0 first, one hop straight to the destination's
/// coordinate. A route has as many hops as the two routers have differing coordinates, at
/// most the number of dimensions.
///
/// Among parallel cables, the live ones are equally likely, chosen by the request's
/// entropy; congestion is not read. Routes are otherwise static: a hop whose cables are all
/// down, or a down router on the way, makes the pair [`RoutingError::Unroutable`], naming
/// the dead hop.
#[derive(Debug, Clone, Copy)]
pub struct HyperXDor;

impl HyperXDor {
    /// The routing for a HyperX fabric.
    pub fn new(fabric: &Fabric) -> Result<Self, RoutingError> {
        hyperx_of(fabric, NAME).map(|_| Self)
    }
}

impl Routing for HyperXDor {
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
        let f = req.fabric;
        walk_dimensions(req, NAME, src, dst, path, |hop, rng, path| {
            let cables = hop.hx.channels_along(hop.cur, hop.d, hop.own, hop.target);
            match pick_cable(cables, req.faults, &NoCongestion, rng) {
                Some((channel, _)) => {
                    path.push(channel);
                    Ok(())
                }
                None => Err(format!(
                    "dimension {} hop {}->{} is down ({} cable(s), all failed)",
                    Cartesian::dimension_name(hop.d),
                    f.router_name(hop.cur),
                    f.router_name(hop.next),
                    cables.len()
                )),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faults::Faults;

    #[test]
    fn entropy_spreads_routes_over_parallel_cables() {
        let fabric = Fabric::parse("hyperx:3x3,k=1x2").unwrap();
        let faults = Faults::none(&fabric);
        let mut path = Vec::new();
        let mut used = std::collections::BTreeSet::new();
        for entropy in 0..64 {
            let req = RouteRequest {
                entropy,
                ..RouteRequest::new(&fabric, &faults)
            };
            HyperXDor.route_into(&req, 0, 8, &mut path).unwrap();
            assert_eq!(path.len(), 2);
            used.insert(path[1]);
        }
        assert_eq!(used.len(), 2, "both y cables carry routes");
    }

    #[test]
    fn wrong_topology_is_refused() {
        let torus = Fabric::parse("torus:4x4").unwrap();
        assert!(matches!(
            HyperXDor::new(&torus),
            Err(RoutingError::WrongTopology { .. })
        ));
    }
}
