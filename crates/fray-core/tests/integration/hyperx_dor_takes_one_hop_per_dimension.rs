//! HyperX dimension-order routes: one hop per differing coordinate, in dimension order (at
//! most `n` hops for `n` dimensions), over any live one of parallel cables; a hop with no
//! live cable makes the pair unroutable, naming the pair and the dead hop.

use crate::common;

use common::paths::walk;
use fray_core::fabric::{Fabric, RouterId};
use fray_core::faults::Faults;
use fray_core::routing::{HyperXDor, RouteRequest, Routing, RoutingError};

#[test]
fn every_pair_takes_one_hop_per_differing_dimension_in_order() {
    for spec in [
        "hyperx:3x4x2,k=1x2x1",
        "hyperx:5x3",
        "hyperx:2x2x2x2",
        "hyperx:6",
    ] {
        let fabric = Fabric::parse(spec).unwrap();
        let shape = fabric.as_hyperx().unwrap().shape().clone();
        let faults = Faults::none(&fabric);
        let n = shape.num_routers() as RouterId;
        let mut path = Vec::new();
        for src in 0..n {
            for dst in 0..n {
                let req = RouteRequest {
                    entropy: u64::from(src * n + dst),
                    ..RouteRequest::new(&fabric, &faults)
                };
                HyperXDor.route_into(&req, src, dst, &mut path).unwrap();
                assert_eq!(
                    path.len(),
                    shape.hop_distance(src, dst),
                    "{spec}: {src}->{dst}"
                );
                assert!(path.len() <= shape.num_dims());
                let routers = walk(&fabric, &faults, src, dst, &path);
                let mut last_dim = None;
                for pair in routers.windows(2) {
                    let changed: Vec<usize> = (0..shape.num_dims())
                        .filter(|&d| shape.coord(pair[0], d) != shape.coord(pair[1], d))
                        .collect();
                    let [d] = changed[..] else {
                        panic!("{spec}: a hop changed {changed:?}")
                    };
                    assert_eq!(
                        shape.coord(pair[1], d),
                        shape.coord(dst, d),
                        "straight to target"
                    );
                    assert!(last_dim < Some(d), "dimensions out of order");
                    last_dim = Some(d);
                }
            }
        }
    }
}

#[test]
fn a_dead_parallel_cable_leaves_the_other_one() {
    let fabric = Fabric::parse("hyperx:2x2,k=1x2").unwrap();
    let hx = fabric.as_hyperx().unwrap();
    let cables = hx.channels_to(0, 1, 1).to_vec();
    let mut faults = Faults::none(&fabric);
    faults.fail_cable(&fabric, cables[0]).unwrap();
    let mut path = Vec::new();
    for entropy in 0..32 {
        let req = RouteRequest {
            entropy,
            ..RouteRequest::new(&fabric, &faults)
        };
        HyperXDor.route_into(&req, 0, 2, &mut path).unwrap();
        assert_eq!(path, vec![cables[1]]);
    }
}

#[test]
fn a_hop_with_no_live_cable_is_unroutable_naming_it() {
    let fabric = Fabric::parse("hyperx:4x4,k=1x2").unwrap();
    let shape = fabric.as_hyperx().unwrap().shape().clone();
    let (src, dst) = (shape.grid().node(&[0, 1]), shape.grid().node(&[2, 3]));
    let mut faults = Faults::none(&fabric);
    let corner = shape.grid().node(&[2, 1]);
    faults
        .fail_named_cables(&fabric, &["(2,1)->(2,3)"])
        .unwrap();
    let req = RouteRequest::new(&fabric, &faults);
    let mut path = Vec::new();
    // One of the two y cables is down: still routable.
    HyperXDor.route_into(&req, src, dst, &mut path).unwrap();
    for c in fabric.channels_between(corner, dst).collect::<Vec<_>>() {
        faults.fail_cable(&fabric, c).unwrap();
    }
    let req = RouteRequest::new(&fabric, &faults);
    let err = HyperXDor.route_into(&req, src, dst, &mut path).unwrap_err();
    let RoutingError::Unroutable {
        src: s,
        dst: d,
        reason,
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!((s.as_str(), d.as_str()), ("(0,1)", "(2,3)"));
    assert!(reason.contains("dimension y hop (2,1)->(2,3)"), "{reason}");
    assert!(reason.contains("2 cable(s)"), "{reason}");
    assert!(path.is_empty(), "no partial path is left behind");
    // DOR has no way round: the x-only pair still routes, the y hop does not.
    let x_only = shape.grid().node(&[2, 1]);
    assert!(HyperXDor.route_into(&req, src, x_only, &mut path).is_ok());
    let mut faults = Faults::none(&fabric);
    faults.fail_router(corner).unwrap();
    let req = RouteRequest::new(&fabric, &faults);
    let err = HyperXDor.route_into(&req, src, dst, &mut path).unwrap_err();
    assert!(err.to_string().contains("router (2,1) is down"), "{err}");
}
