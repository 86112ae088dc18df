//! Under random fault sets (a random fraction of the router cables down, sometimes a router
//! too), HyperX DOR and DOAL routes never use a failed part, are contiguous, end at the
//! destination and stay within `n` (DOR) or `2n` (DOAL) hops; DOAL is unroutable exactly
//! when some dimension it must correct has no live path of at most two hops along that
//! dimension's line, and the same entropy gives the same route.

use crate::common;

use common::faults::random_cables;
use common::paths::walk;
use fray_core::fabric::{Fabric, RouterId};
use fray_core::faults::Faults;
use fray_core::routing::{HyperXDoal, HyperXDor, RouteRequest, Routing};
use proptest::prelude::*;

/// A small HyperX spec: 1 to 3 dimensions of sizes 1..=5, 1 or 2 cables per neighbour pair.
fn specs() -> impl Strategy<Value = String> {
    prop::collection::vec((1usize..=5, 1usize..=2), 1..=3).prop_map(|dims| {
        let sizes: Vec<String> = dims.iter().map(|d| d.0.to_string()).collect();
        let links: Vec<String> = dims.iter().map(|d| d.1.to_string()).collect();
        format!("hyperx:{},k={}", sizes.join("x"), links.join("x"))
    })
}

/// Whether `to` can be reached from `from` in one or two live hops that stay on the line of
/// routers differing from `from` only in dimension `d` (searched through the fabric's
/// adjacency, not through the port table the routings read).
fn line_reachable(
    fabric: &Fabric,
    faults: &Faults,
    from: RouterId,
    to: RouterId,
    d: usize,
) -> bool {
    let shape = fabric.as_hyperx().unwrap().shape();
    let live = |a: RouterId, b: RouterId| {
        !faults.router_is_down(b)
            && fabric
                .channels_between(a, b)
                .any(|c| !faults.channel_is_down(c))
    };
    if live(from, to) {
        return true;
    }
    (0..shape.sizes()[d])
        .map(|m| shape.with_coord(from, d, m))
        .filter(|&mid| mid != from && mid != to)
        .any(|mid| live(from, mid) && live(mid, to))
}

/// Whether DOAL's rules allow a route: `src` up, and in each dimension to correct, the
/// target router reachable along the line.
fn doal_allows(fabric: &Fabric, faults: &Faults, src: RouterId, dst: RouterId) -> bool {
    let shape = fabric.as_hyperx().unwrap().shape();
    let mut cur = src;
    if faults.router_is_down(src) {
        return false;
    }
    for d in 0..shape.num_dims() {
        let next = shape.with_coord(cur, d, shape.coord(dst, d));
        if next != cur && !line_reachable(fabric, faults, cur, next, d) {
            return false;
        }
        cur = next;
    }
    true
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn routes_avoid_failed_parts(
        spec in specs(),
        fraction in 0.0f64..0.7,
        seed in any::<u64>(),
        router_down in prop::option::weighted(0.2, any::<u32>()),
    ) {
        let fabric = Fabric::parse(&spec).unwrap();
        let shape = fabric.as_hyperx().unwrap().shape().clone();
        let n = shape.num_routers() as RouterId;
        let q = shape.num_dims();
        let mut faults = random_cables(&fabric, "router", fraction, seed);
        if let Some(r) = router_down {
            faults.fail_router(r % n).unwrap();
        }
        let (mut path, mut again) = (Vec::new(), Vec::new());
        for src in 0..n {
            for dst in 0..n {
                let req = RouteRequest {
                    entropy: seed ^ u64::from(src * n + dst),
                    ..RouteRequest::new(&fabric, &faults)
                };
                let dor = HyperXDor.route_into(&req, src, dst, &mut path);
                if dor.is_ok() {
                    walk(&fabric, &faults, src, dst, &path);
                    prop_assert_eq!(path.len(), shape.hop_distance(src, dst));
                } else {
                    prop_assert!(path.is_empty());
                }
                let doal = HyperXDoal::default().route_into(&req, src, dst, &mut path);
                prop_assert_eq!(doal.is_ok(), doal_allows(&fabric, &faults, src, dst),
                    "{} {}->{}: {:?}", spec, src, dst, doal);
                if doal.is_ok() {
                    walk(&fabric, &faults, src, dst, &path);
                    prop_assert!(path.len() <= 2 * q);
                    prop_assert!(path.len() >= shape.hop_distance(src, dst));
                    HyperXDoal::default().route_into(&req, src, dst, &mut again).unwrap();
                    prop_assert_eq!(&path, &again, "same entropy, same route");
                } else {
                    prop_assert!(path.is_empty());
                }
                prop_assert!(dor.is_err() || doal.is_ok(), "DOAL routes whatever DOR routes");
            }
        }
    }
}
