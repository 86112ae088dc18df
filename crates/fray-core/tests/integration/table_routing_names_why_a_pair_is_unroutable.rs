//! An unroutable pair names both routers and says why: a router of the pair is down, the
//! failed parts disconnect them, or the fabric never joined them.

use crate::common;

use common::live_graph::irregular_fabric;
use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::{RouteRequest, Routing, RoutingError, TableRouting};

fn route(fabric: &Fabric, faults: &Faults, src: u32, dst: u32) -> Result<Vec<u32>, RoutingError> {
    let table = TableRouting::new(fabric, faults).unwrap();
    let mut path = vec![99];
    let result = table
        .route_into(&RouteRequest::new(fabric, faults), src, dst, &mut path)
        .map(|()| path.clone());
    if result.is_err() {
        assert!(path.is_empty(), "a failed route leaves no partial path");
    }
    result
}

fn reason(error: RoutingError) -> (String, String, String) {
    match error {
        RoutingError::Unroutable { src, dst, reason } => (src, dst, reason),
        other => panic!("expected Unroutable, got {other}"),
    }
}

#[test]
fn failed_cables_that_cut_a_mesh_disconnect_the_pair() {
    // Cut column 0 of a 3x2 mesh from the rest: cables (0,0)-(1,0) and (0,1)-(1,1).
    let fabric = Fabric::parse("mesh:3x2").unwrap();
    let mut faults = Faults::none(&fabric);
    faults.fail_link(&fabric, 0, 1).unwrap();
    faults.fail_link(&fabric, 3, 4).unwrap();
    let (src, dst, why) = reason(route(&fabric, &faults, 0, 5).unwrap_err());
    assert_eq!((src.as_str(), dst.as_str()), ("(0,0)", "(2,1)"));
    assert_eq!(why, "the failed links and routers disconnect them");
    let message = route(&fabric, &faults, 5, 3).unwrap_err().to_string();
    assert!(
        message.contains("(2,1)") && message.contains("(0,1)"),
        "{message}"
    );
    // Within the cut-off column the route goes on.
    assert_eq!(route(&fabric, &faults, 0, 3).unwrap().len(), 1);
}

#[test]
fn a_down_router_of_the_pair_is_named() {
    let fabric = Fabric::parse("torus:4x4").unwrap();
    let mut faults = Faults::none(&fabric);
    faults.fail_router(5).unwrap();
    let (_, _, why) = reason(route(&fabric, &faults, 5, 6).unwrap_err());
    assert_eq!(why, "router (1,1) is down");
    let (_, _, why) = reason(route(&fabric, &faults, 0, 5).unwrap_err());
    assert_eq!(why, "router (1,1) is down");
    let (_, _, why) = reason(route(&fabric, &faults, 5, 5).unwrap_err());
    assert_eq!(why, "router (1,1) is down");
    // Others route around it: (0,1) to (2,1) still takes 2 hops.
    assert_eq!(route(&fabric, &faults, 4, 6).unwrap().len(), 2);
}

#[test]
fn a_fabric_in_pieces_is_not_blamed_on_faults() {
    let fabric = irregular_fabric(4, &[(0, 1), (2, 3)]);
    let (src, dst, why) = reason(route(&fabric, &Faults::none(&fabric), 1, 2).unwrap_err());
    assert_eq!((src.as_str(), dst.as_str()), ("r1", "r2"));
    assert_eq!(why, "no cable path joins them, even without faults");
}
