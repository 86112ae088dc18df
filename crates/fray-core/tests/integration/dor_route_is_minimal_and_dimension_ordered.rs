//! Dimension-order routes: contiguous, minimal (length = hop distance), one dimension at a
//! time in increasing order, one direction per dimension.

use crate::common::grids::grid_shapes;

use fray_core::fabric::{Cartesian, Fabric, LinkParameters};
use fray_core::faults::Faults;
use fray_core::routing::{DimensionOrder, RouteRequest, Routing};
use proptest::prelude::*;

proptest! {
    #[test]
    fn route_properties(shape in grid_shapes(1..7), a in any::<u32>(), b in any::<u32>()) {
        let n = shape.num_nodes() as u32;
        let (src, dst) = (a % n, b % n);
        let fabric = Fabric::cartesian(shape.clone(), LinkParameters::default()).unwrap();
        let routing = DimensionOrder::new(&fabric).unwrap();
        let mut path = Vec::new();
        let faults = Faults::none(&fabric);
        routing.route_into(&RouteRequest::new(&fabric, &faults), src, dst, &mut path).unwrap();
        prop_assert_eq!(path.len(), shape.hop_distance(src, dst));
        let ch = fabric.channels();
        let mut at = src;
        let mut last_dim = 0;
        let mut dir_of_dim: Vec<Option<bool>> = vec![None; shape.num_dims()];
        for &c in &path {
            prop_assert_eq!(ch.src[c as usize], at);
            let next = ch.dst[c as usize];
            // Class 0 is `host`; dimension d is class d + 1 (`x`, `y`, `z`, ...).
            let dim = ch.class[c as usize] as usize - 1;
            prop_assert!(dim >= last_dim, "dimensions out of order");
            last_dim = dim;
            // Moving "up" means the coordinate grows by one, modulo the ring.
            let n_d = shape.dims()[dim];
            let up = (shape.coord(at, dim) + 1) % n_d == shape.coord(next, dim);
            prop_assert!(dir_of_dim[dim].is_none_or(|d| d == up), "direction changed within a dimension");
            dir_of_dim[dim] = Some(up);
            at = next;
        }
        prop_assert_eq!(at, dst);
    }

    #[test]
    fn torus_distance_never_exceeds_half_ring(n in 1usize..12, a in 0usize..12, b in 0usize..12) {
        let shape = Cartesian::torus(&[n]);
        let (a, b) = (a % n, b % n);
        let off = shape.signed_offset(0, a, b);
        prop_assert!(off.unsigned_abs() <= n / 2);
        prop_assert_eq!((a as isize + off).rem_euclid(n as isize) as usize, b);
    }
}

#[test]
fn failed_channel_or_router_is_unroutable() {
    let fabric = Fabric::parse("mesh:4x4").unwrap();
    let routing = DimensionOrder::new(&fabric).unwrap();
    let mut faults = Faults::none(&fabric);
    faults.fail_link(&fabric, 1, 2).unwrap();
    let mut path = Vec::new();
    assert!(routing
        .route_into(&RouteRequest::new(&fabric, &faults), 0, 3, &mut path)
        .is_err());
    assert!(
        routing
            .route_into(&RouteRequest::new(&fabric, &faults), 3, 0, &mut path)
            .is_err(),
        "a cable takes both directions"
    );
    assert!(
        routing
            .route_into(&RouteRequest::new(&fabric, &faults), 0, 12, &mut path)
            .is_ok(),
        "y-only route avoids the cable"
    );
    let mut faults = Faults::none(&fabric);
    faults.fail_router(5).unwrap();
    assert!(routing
        .route_into(&RouteRequest::new(&fabric, &faults), 4, 6, &mut path)
        .is_err());
    // An endpoint failure loses the compute part only: its router still forwards.
    let mut faults = Faults::none(&fabric);
    faults.fail_endpoint(5).unwrap();
    assert!(routing
        .route_into(&RouteRequest::new(&fabric, &faults), 4, 6, &mut path)
        .is_ok());
}
