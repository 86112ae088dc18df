//! Routings on a HyperX: dimension order ([`HyperXDor`]) and dimension order with one
//! adaptive misroute per dimension ([`HyperXDoal`]).
//!
//! Both correct the coordinates in dimension order, dimension 0 first, and read the
//! channels to a neighbour from the fabric's port table ([`HyperX::channels_to`]), so a
//! hop costs an index, never a search.

mod doal;
mod dor;

pub use doal::{DoalWeights, HyperXDoal};
pub use dor::HyperXDor;

use super::{Congestion, Entropy, RouteRequest, RoutingError};
use crate::fabric::{ChannelId, Fabric, HyperX, RouterId};
use crate::faults::Faults;

/// The HyperX coordinates of `fabric`, or `WrongTopology` for the routing called `routing`.
fn hyperx_of<'a>(fabric: &'a Fabric, routing: &'static str) -> Result<&'a HyperX, RoutingError> {
    fabric.as_hyperx().ok_or(RoutingError::WrongTopology {
        routing,
        needs: "a HyperX",
    })
}

/// One dimension to correct: the routing's hop(s) from `cur` towards the router `next` that
/// has the destination's coordinate `target` in dimension `d` (`own` is the source's).
struct DimensionHop<'a> {
    hx: &'a HyperX,
    cur: RouterId,
    next: RouterId,
    d: usize,
    own: usize,
    target: usize,
}

/// The walk both HyperX routings share: clears `path`, then corrects the dimensions in
/// order, dimension 0 first, appending the channels `correct` gives for each, or returning
/// `Unroutable` with the reason `correct` gives (or a down router on the way).
fn walk_dimensions(
    req: &RouteRequest<'_>,
    routing: &'static str,
    src: RouterId,
    dst: RouterId,
    path: &mut Vec<ChannelId>,
    mut correct: impl FnMut(&DimensionHop<'_>, &mut Entropy, &mut Vec<ChannelId>) -> Result<(), String>,
) -> Result<(), RoutingError> {
    path.clear();
    let f = req.fabric;
    let hx = hyperx_of(f, routing)?;
    if req.faults.router_is_down(src) {
        return Err(router_down(f, src, dst, src));
    }
    let mut rng = Entropy::new(req.entropy);
    let mut cur = src;
    for d in 0..hx.shape().num_dims() {
        // Dimensions not yet corrected keep the source's coordinates.
        let (own, target) = (hx.coord(src, d), hx.coord(dst, d));
        if own == target {
            continue;
        }
        let next = hx.shape().shift(cur, d, own, target);
        if req.faults.router_is_down(next) {
            path.clear();
            return Err(router_down(f, src, dst, next));
        }
        let hop = DimensionHop {
            hx,
            cur,
            next,
            d,
            own,
            target,
        };
        if let Err(reason) = correct(&hop, &mut rng, path) {
            path.clear();
            return Err(RoutingError::unroutable(f, src, dst, reason));
        }
        cur = next;
    }
    debug_assert_eq!(cur, dst);
    Ok(())
}

/// The cheapest of the options offered so far, ties broken uniformly at random: every
/// option draws a random key and the least `(cost, key)` wins, so each of several equally
/// cheap options is kept with the same probability (and the comparison rarely changes its
/// answer, which keeps the scan's branches predictable).
struct Cheapest<T> {
    best: Option<(T, f64, u64)>,
}

impl<T> Cheapest<T> {
    fn new() -> Self {
        Self { best: None }
    }

    #[inline]
    fn offer(&mut self, option: T, cost: f64, rng: &mut Entropy) {
        let key = rng.next_u64();
        let better = match &self.best {
            None => true,
            Some((_, c, k)) => cost < *c || (cost == *c && key < *k),
        };
        if better {
            self.best = Some((option, cost, key));
        }
    }

    fn into_best(self) -> Option<(T, f64)> {
        self.best.map(|(option, cost, _)| (option, cost))
    }
}

/// The least congested live channel among parallel `cables`, with its congestion; ties go
/// uniformly at random by `rng` (with no congestion signal every live cable ties). `None`
/// when every cable is down. One cable draws no random number.
#[inline]
fn pick_cable(
    cables: &[ChannelId],
    faults: &Faults,
    congestion: &dyn Congestion,
    rng: &mut Entropy,
) -> Option<(ChannelId, f64)> {
    if let [only] = cables {
        return (!faults.channel_is_down(*only)).then(|| (*only, congestion.congestion(*only)));
    }
    let mut cheapest = Cheapest::new();
    for &c in cables {
        if !faults.channel_is_down(c) {
            cheapest.offer(c, congestion.congestion(c), rng);
        }
    }
    cheapest.into_best()
}

/// The `Unroutable` error for a down router on the way from `src` to `dst`.
fn router_down(fabric: &Fabric, src: RouterId, dst: RouterId, down: RouterId) -> RoutingError {
    RoutingError::unroutable(
        fabric,
        src,
        dst,
        format!("router {} is down", fabric.router_name(down)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::NoCongestion;

    struct Table(Vec<f64>);

    impl Congestion for Table {
        fn congestion(&self, channel: ChannelId) -> f64 {
            self.0[channel as usize]
        }
    }

    #[test]
    fn picks_the_least_congested_live_cable_and_spreads_ties() {
        let fabric = Fabric::parse("hyperx:2,k=4").unwrap();
        let cables = fabric.as_hyperx().unwrap().channels_to(0, 0, 1).to_vec();
        let mut faults = Faults::none(&fabric);
        faults.fail_cable(&fabric, cables[0]).unwrap();
        let mut rng = Entropy::new(5);
        let mut used = [0; 4];
        for _ in 0..300 {
            let (c, w) = pick_cable(&cables, &faults, &NoCongestion, &mut rng).unwrap();
            assert_eq!(w, 0.0);
            used[cables.iter().position(|&x| x == c).unwrap()] += 1;
        }
        assert_eq!(used[0], 0, "a down cable is never picked");
        assert!(used[1..].iter().all(|&u| u > 50), "ties spread: {used:?}");

        let mut load = vec![5.0; fabric.channels().len()];
        load[cables[2] as usize] = 1.0;
        let got = pick_cable(&cables, &faults, &Table(load), &mut rng);
        assert_eq!(got, Some((cables[2], 1.0)));

        for &c in &cables[1..] {
            faults.fail_cable(&fabric, c).unwrap();
        }
        assert_eq!(pick_cable(&cables, &faults, &NoCongestion, &mut rng), None);
    }
}
