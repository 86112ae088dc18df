//! `routing::build` keeps one name per concept: `dor` is dimension order on a mesh, a torus
//! or a HyperX, each walked by its own family; `doal` needs a HyperX.

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::{build, RouteRequest, RoutingError, ROUTINGS};

#[test]
fn dor_is_dimension_order_on_every_cartesian_family() {
    let mut path = Vec::new();
    for (spec, src, dst, hops) in [("torus:6x6", 0, 21, 6), ("hyperx:6x6", 0, 21, 2)] {
        let fabric = Fabric::parse(spec).unwrap();
        let faults = Faults::none(&fabric);
        let routing = build("dor", &fabric, &Faults::none(&fabric)).unwrap();
        assert_eq!(routing.name(), "dor");
        routing
            .route_into(&RouteRequest::new(&fabric, &faults), src, dst, &mut path)
            .unwrap();
        assert_eq!(path.len(), hops, "{spec}");
    }
}

#[test]
fn doal_needs_a_hyperx() {
    let hyperx = Fabric::parse("hyperx:4x4").unwrap();
    assert_eq!(
        build("doal", &hyperx, &Faults::none(&hyperx))
            .unwrap()
            .name(),
        "doal"
    );
    let torus = Fabric::parse("torus:4x4").unwrap();
    assert!(matches!(
        build("doal", &torus, &Faults::none(&torus)),
        Err(RoutingError::WrongTopology { .. })
    ));
    assert!(matches!(
        build("dor-retry", &hyperx, &Faults::none(&hyperx)),
        Err(RoutingError::WrongTopology { .. })
    ));
    assert!(ROUTINGS.iter().any(|(n, _)| *n == "doal"));
    let err = build("dal", &hyperx, &Faults::none(&hyperx))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("doal"), "{err}");
}
