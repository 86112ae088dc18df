//! DOAL goes straight when it can, misroutes once within the dimension around a failed
//! direct cable, and is unroutable, naming the dimension, only when the direct hop and every
//! one-misroute detour of a dimension are down. Fault-free it is minimal.

use crate::common;

use common::paths::walk;
use fray_core::fabric::{Fabric, RouterId};
use fray_core::faults::Faults;
use fray_core::routing::{HyperXDoal, HyperXDor, RouteRequest, Routing, RoutingError};

#[test]
fn fault_free_every_pair_routes_minimally() {
    for spec in ["hyperx:4x3x3,k=1x2x1", "hyperx:5x5", "hyperx:2x2x2x2"] {
        let fabric = Fabric::parse(spec).unwrap();
        let shape = fabric.as_hyperx().unwrap().shape().clone();
        let faults = Faults::none(&fabric);
        let n = shape.num_routers() as RouterId;
        let (mut doal, mut dor) = (Vec::new(), Vec::new());
        for src in 0..n {
            for dst in 0..n {
                let req = RouteRequest {
                    entropy: u64::from(src ^ (dst << 8)),
                    ..RouteRequest::new(&fabric, &faults)
                };
                HyperXDoal::default()
                    .route_into(&req, src, dst, &mut doal)
                    .unwrap();
                walk(&fabric, &faults, src, dst, &doal);
                assert_eq!(
                    doal.len(),
                    shape.hop_distance(src, dst),
                    "{spec}: {src}->{dst}"
                );
                assert!(doal.len() <= shape.num_dims());
                HyperXDor.route_into(&req, src, dst, &mut dor).unwrap();
                assert_eq!(doal, dor, "no congestion, no fault: DOAL is DOR");
            }
        }
    }
}

#[test]
fn a_failed_direct_cable_is_avoided_with_a_two_hop_detour() {
    let fabric = Fabric::parse("hyperx:5x5").unwrap();
    let shape = fabric.as_hyperx().unwrap().shape().clone();
    let g = shape.grid();
    let (src, dst) = (g.node(&[0, 0]), g.node(&[4, 2]));
    let mut faults = Faults::none(&fabric);
    faults
        .fail_named_cables(&fabric, &["(0,0)->(4,0)"])
        .unwrap();
    let mut path = Vec::new();
    let mut mids = std::collections::BTreeSet::new();
    for entropy in 0..64 {
        let req = RouteRequest {
            entropy,
            ..RouteRequest::new(&fabric, &faults)
        };
        HyperXDoal::default()
            .route_into(&req, src, dst, &mut path)
            .unwrap();
        let routers = walk(&fabric, &faults, src, dst, &path);
        assert_eq!(path.len(), 3, "x detour (2 hops), then y (1 hop)");
        let mid = routers[1];
        assert_eq!(shape.coord(mid, 1), 0, "the detour stays in dimension x");
        assert_eq!(routers[2], g.node(&[4, 0]));
        mids.insert(shape.coord(mid, 0));
    }
    assert_eq!(
        mids.into_iter().collect::<Vec<_>>(),
        vec![1, 2, 3],
        "detours spread"
    );
    // DOR has no such way round.
    let req = RouteRequest::new(&fabric, &faults);
    assert!(HyperXDor.route_into(&req, src, dst, &mut path).is_err());
}

#[test]
fn a_dimension_with_every_detour_dead_is_unroutable_naming_it() {
    let fabric = Fabric::parse("hyperx:3x4").unwrap();
    let g = fabric.as_hyperx().unwrap().shape().grid().clone();
    // From (1,0) to (1,3): y goes (1,0) -> (1,3) directly or through (1,1) or (1,2).
    let (src, dst) = (g.node(&[1, 0]), g.node(&[1, 3]));
    let mut faults = Faults::none(&fabric);
    faults
        .fail_named_cables(&fabric, &["(1,0)->(1,3)", "(1,0)->(1,1)"])
        .unwrap();
    let mut path = Vec::new();
    let req = RouteRequest::new(&fabric, &faults);
    HyperXDoal::default()
        .route_into(&req, src, dst, &mut path)
        .unwrap();
    let routers = walk(&fabric, &faults, src, dst, &path);
    assert_eq!(
        routers,
        vec![src, g.node(&[1, 2]), dst],
        "the one live detour"
    );

    faults
        .fail_named_cables(&fabric, &["(1,2)->(1,3)"])
        .unwrap();
    let req = RouteRequest::new(&fabric, &faults);
    let err = HyperXDoal::default()
        .route_into(&req, src, dst, &mut path)
        .unwrap_err();
    let RoutingError::Unroutable { reason, .. } = &err else {
        panic!("{err}")
    };
    assert!(
        reason.contains("dimension y from (1,0) to (1,3)")
            && reason.contains("all 2 one-misroute detours are down"),
        "{reason}"
    );
    assert!(path.is_empty());
    // Routes that need not correct y in that row still go, around the dead cables.
    let req = RouteRequest::new(&fabric, &faults);
    HyperXDoal::default()
        .route_into(&req, g.node(&[0, 0]), g.node(&[1, 3]), &mut path)
        .unwrap_err();
    HyperXDoal::default()
        .route_into(&req, g.node(&[0, 0]), g.node(&[0, 3]), &mut path)
        .unwrap();
    // A down router that every option must reach is named.
    let mut faults = Faults::none(&fabric);
    faults.fail_router(g.node(&[1, 3])).unwrap();
    let req = RouteRequest::new(&fabric, &faults);
    let err = HyperXDoal::default()
        .route_into(&req, g.node(&[0, 3]), g.node(&[1, 0]), &mut path)
        .unwrap_err();
    assert!(err.to_string().contains("router (1,3) is down"), "{err}");
}
