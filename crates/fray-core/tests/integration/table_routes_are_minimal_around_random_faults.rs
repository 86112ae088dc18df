//! Under random fault sets (cables, single channel directions, routers) on meshes, tori and
//! irregular graphs with parallel cables, table routes never use a failed part, lead from
//! source to destination, are shortest in the live graph, and a pair is unroutable exactly
//! when the live graph does not join it. Checked against an independent breadth-first
//! search.

use crate::common;

use common::faults::random_faults;
use common::grids::grid_shapes;
use common::live_graph::{irregular_fabric, live_hops_from};
use common::paths::check_path;
use fray_core::fabric::{Fabric, LinkParameters};
use fray_core::routing::{RouteRequest, Routing, RoutingError, TableRouting};
use proptest::prelude::*;

/// A mesh or torus of 1 to 3 dimensions, or an irregular graph with parallel cables.
fn fabrics() -> impl Strategy<Value = Fabric> {
    let grid = grid_shapes(1..6)
        .prop_map(|shape| Fabric::cartesian(shape, LinkParameters::default()).unwrap());
    let graph = (1usize..30)
        .prop_flat_map(|n| {
            (
                Just(n),
                prop::collection::vec((0..n as u32, 0..n as u32), 0..80),
            )
        })
        .prop_map(|(n, pairs)| irregular_fabric(n, &pairs));
    prop_oneof![grid, graph]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn routes_are_live_and_shortest(
        fabric in fabrics(),
        fraction in 0.0f64..0.6,
        seed in any::<u64>(),
        entropy in any::<u64>(),
    ) {
        let faults = random_faults(&fabric, fraction, seed, fabric.num_routers() / 8);
        let table = TableRouting::new(&fabric, &faults).unwrap();
        let req = RouteRequest { entropy, ..RouteRequest::new(&fabric, &faults) };
        let mut path = Vec::new();
        let n = fabric.num_routers() as u32;
        let mut diameter = 0;
        for src in 0..n {
            let reference = live_hops_from(&fabric, &faults, src);
            for dst in 0..n {
                let routed = table.route_into(&req, src, dst, &mut path);
                match (reference[dst as usize], routed) {
                    (Some(hops), Ok(())) => {
                        check_path(&fabric, &faults, src, dst, &path)
                            .map_err(TestCaseError::fail)?;
                        prop_assert_eq!(path.len(), hops);
                        prop_assert_eq!(table.hop_count(src, dst), Some(hops));
                        diameter = diameter.max(hops);
                    }
                    (None, Err(RoutingError::Unroutable { .. })) => {
                        prop_assert!(path.is_empty());
                        prop_assert_eq!(table.hop_count(src, dst), None);
                    }
                    (reference, routed) => {
                        return Err(TestCaseError::fail(format!(
                            "{src}->{dst}: reference {reference:?}, table {routed:?}"
                        )));
                    }
                }
            }
        }
        prop_assert_eq!(table.required_vcs(), diameter);
    }

    #[test]
    fn same_faults_and_entropy_give_the_same_routes(
        fabric in fabrics(),
        fraction in 0.0f64..0.4,
        seed in any::<u64>(),
        entropy in any::<u64>(),
    ) {
        let faults = random_faults(&fabric, fraction, seed, fabric.num_routers() / 8);
        let again = random_faults(&fabric, fraction, seed, fabric.num_routers() / 8);
        let (a, b) = (
            TableRouting::new(&fabric, &faults).unwrap(),
            TableRouting::new(&fabric, &again).unwrap(),
        );
        let req = RouteRequest { entropy, ..RouteRequest::new(&fabric, &faults) };
        let (mut pa, mut pb) = (Vec::new(), Vec::new());
        let n = fabric.num_routers() as u32;
        for src in 0..n {
            for dst in 0..n {
                let ra = a.route_into(&req, src, dst, &mut pa).is_ok();
                let rb = b.route_into(&req, src, dst, &mut pb).is_ok();
                prop_assert_eq!(ra, rb);
                prop_assert_eq!(&pa, &pb);
            }
        }
    }
}
