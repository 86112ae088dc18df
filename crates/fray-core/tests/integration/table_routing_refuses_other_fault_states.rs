//! Table routing routes only under the faults it was built for: a request whose down
//! routers or channels differ gets `OutOfDate`; failed endpoints and partly lost lanes
//! change no path and are accepted. Fabrics too large for a table are refused up front.

use fray_core::fabric::{Cartesian, Fabric, FabricBuilder, LinkParameters, Topology};
use fray_core::faults::Faults;
use fray_core::routing::{
    self, RouteRequest, Routing, RoutingError, TableRouting, MAX_TABLE_ROUTERS,
};

fn route(table: &dyn Routing, fabric: &Fabric, faults: &Faults) -> Result<(), RoutingError> {
    table.route_into(&RouteRequest::new(fabric, faults), 0, 8, &mut Vec::new())
}

#[test]
fn other_down_parts_are_refused() {
    let fabric = Fabric::parse("mesh:3x3").unwrap();
    let none = Faults::none(&fabric);
    let fault_free = routing::build("table", &fabric, &none).unwrap();
    let mut cut = Faults::none(&fabric);
    cut.fail_link(&fabric, 0, 1).unwrap();
    let err = route(fault_free.as_ref(), &fabric, &cut).unwrap_err();
    assert!(matches!(
        err,
        RoutingError::OutOfDate {
            routing: "table",
            ..
        }
    ));
    assert!(err.to_string().contains("build it again"), "{err}");

    let for_cut = routing::build("table", &fabric, &cut).unwrap();
    assert!(route(for_cut.as_ref(), &fabric, &cut).is_ok());
    assert!(matches!(
        route(for_cut.as_ref(), &fabric, &none),
        Err(RoutingError::OutOfDate { .. })
    ));
}

#[test]
fn endpoints_and_partial_lane_loss_need_no_rebuild() {
    let four_lanes = LinkParameters {
        lanes: 4,
        ..LinkParameters::default()
    };
    let fabric = Fabric::cartesian(Cartesian::mesh(&[3, 3]), four_lanes).unwrap();
    let table = TableRouting::new(&fabric, &Faults::none(&fabric)).unwrap();
    let mut faults = Faults::none(&fabric);
    faults.fail_endpoint(4).unwrap();
    faults.lose_lanes(&fabric, 0, 3).unwrap();
    assert!(route(&table, &fabric, &faults).is_ok());
}

#[test]
fn another_fabric_is_refused() {
    let small = Fabric::parse("mesh:3x3").unwrap();
    let large = Fabric::parse("mesh:4x4").unwrap();
    let table = TableRouting::new(&small, &Faults::none(&small)).unwrap();
    let err = route(&table, &large, &Faults::none(&large)).unwrap_err();
    assert!(err.to_string().contains("9 routers"), "{err}");
}

#[test]
fn too_many_routers_for_a_table() {
    let fabric = FabricBuilder::new(MAX_TABLE_ROUTERS + 1)
        .build(Topology::Graph)
        .unwrap();
    let err = TableRouting::new(&fabric, &Faults::none(&fabric)).unwrap_err();
    assert!(matches!(
        err,
        RoutingError::WrongTopology {
            routing: "table",
            ..
        }
    ));
}
