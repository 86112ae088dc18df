//! Without faults, table routes on a mesh or torus are as long as the grid's hop distance
//! (the dimension-order hop count), and lead from source to destination.

use crate::common;

use common::grids::grid_shapes;
use common::paths::check_path;
use fray_core::fabric::{Fabric, LinkParameters};
use fray_core::faults::Faults;
use fray_core::routing::{self, DimensionOrder, RouteRequest, Routing, TableRouting};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_pair_takes_the_grid_distance(shape in grid_shapes(1..6), entropy in any::<u64>()) {
        let fabric = Fabric::cartesian(shape.clone(), LinkParameters::default()).unwrap();
        let faults = Faults::none(&fabric);
        let table = TableRouting::new(&fabric, &faults).unwrap();
        let dor = DimensionOrder::new(&fabric).unwrap();
        let req = RouteRequest { entropy, ..RouteRequest::new(&fabric, &faults) };
        let mut path = Vec::new();
        let n = fabric.num_routers() as u32;
        let mut diameter = 0;
        for src in 0..n {
            for dst in 0..n {
                table.route_into(&req, src, dst, &mut path).unwrap();
                prop_assert_eq!(path.len(), dor.hop_count(src, dst));
                prop_assert_eq!(path.len(), shape.hop_distance(src, dst));
                prop_assert_eq!(table.hop_count(src, dst), Some(path.len()));
                check_path(&fabric, &faults, src, dst, &path).map_err(TestCaseError::fail)?;
                diameter = diameter.max(path.len());
            }
        }
        // The grid's diameter: size - 1 per mesh dimension, size / 2 per torus dimension.
        let expected: usize = shape
            .dims()
            .iter()
            .zip(shape.wraps())
            .map(|(&k, &wrap)| if wrap { k / 2 } else { k - 1 })
            .sum();
        prop_assert_eq!(diameter, expected);
        prop_assert_eq!(table.required_vcs(), expected);
    }
}

#[test]
fn the_factory_builds_fault_free_tables() {
    let fabric = Fabric::parse("torus:6x4").unwrap();
    let faults = Faults::none(&fabric);
    let table = routing::build("table", &fabric, &faults).unwrap();
    assert_eq!(table.name(), "table");
    assert!(routing::ROUTINGS.iter().any(|(name, _)| *name == "table"));
    let mut path = Vec::new();
    table
        .route_into(&RouteRequest::new(&fabric, &faults), 0, 15, &mut path)
        .unwrap();
    // (0,0) to (3,2) on a 6x4 torus: 3 + 2 hops.
    assert_eq!(path.len(), 5);
}

#[test]
fn a_diameter_past_254_hops_takes_two_byte_entries() {
    for (length, bytes) in [(255u32, 1), (256, 2), (300, 2)] {
        let fabric = Fabric::parse(&format!("mesh:{length}")).unwrap();
        let faults = Faults::none(&fabric);
        let table = TableRouting::new(&fabric, &faults).unwrap();
        assert_eq!(table.bytes_per_entry(), bytes, "mesh:{length}");
        assert_eq!(table.required_vcs(), length as usize - 1);
        let mut path = Vec::new();
        table
            .route_into(
                &RouteRequest::new(&fabric, &faults),
                length - 1,
                0,
                &mut path,
            )
            .unwrap();
        assert_eq!(path.len(), length as usize - 1);
        check_path(&fabric, &faults, length - 1, 0, &path).unwrap();
    }
}
