//! Dimension-order retry on random meshes and tori with random failed cables and single
//! failed channel directions: a route never uses a failed part and leads from source to
//! destination; it is as short as the shortest whole route over every dimension order and
//! every way round each ring (so minimal whenever a minimal dimension-ordered route is
//! whole); a pair is unroutable exactly when no order and way round is whole. Checked by
//! brute force over orders and directions, walking the shape one step at a time.

use crate::common;

use common::faults::random_faults;
use common::grids::grid_shapes;
use common::paths::check_path;
use fray_core::fabric::{Cartesian, Direction, Fabric, LinkParameters, RouterId};
use fray_core::faults::Faults;
use fray_core::routing::{DimensionOrderRetry, RouteRequest, Routing, RoutingError};
use proptest::prelude::*;

/// Every permutation of `0..n`.
fn orders(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for rest in orders(n - 1) {
        for i in 0..=rest.len() {
            let mut p = rest.clone();
            p.insert(i, n - 1);
            out.push(p);
        }
    }
    out
}

/// Hops of the route correcting dimensions in `order`, dimension `d` upwards when bit `d` of
/// `ups` is set, one neighbour at a time; `None` when the walk needs a missing link or
/// crosses a failed channel.
fn walk(
    fabric: &Fabric,
    shape: &Cartesian,
    faults: &Faults,
    src: RouterId,
    dst: RouterId,
    order: &[usize],
    ups: u32,
) -> Option<usize> {
    let mut at = src;
    let mut hops = 0;
    for &d in order {
        let dir = if ups >> d & 1 == 1 {
            Direction::Up
        } else {
            Direction::Down
        };
        while shape.coord(at, d) != shape.coord(dst, d) {
            let next = shape.neighbor(at, d, dir)?;
            let ch = fabric.channel_between(at, next).unwrap();
            if faults.channel_is_down(ch) {
                return None;
            }
            at = next;
            hops += 1;
            if hops > shape.num_nodes() * shape.num_dims() {
                return None;
            }
        }
    }
    Some(hops)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn routes_are_whole_and_shortest_over_orders_and_ways_round(
        shape in grid_shapes(1..7),
        fraction in 0.0f64..0.5,
        seed in any::<u64>(),
    ) {
        let fabric = Fabric::cartesian(shape.clone(), LinkParameters::default()).unwrap();
        let faults = random_faults(&fabric, fraction, seed, 0);
        let routing = DimensionOrderRetry::new(&fabric).unwrap();
        let req = RouteRequest::new(&fabric, &faults);
        let q = shape.num_dims();
        let all_orders = orders(q);
        let mut path = Vec::new();
        let n = fabric.num_routers() as RouterId;
        for src in 0..n {
            for dst in 0..n {
                let best = all_orders
                    .iter()
                    .flat_map(|o| (0..1u32 << q).map(move |ups| (o, ups)))
                    .filter_map(|(o, ups)| walk(&fabric, &shape, &faults, src, dst, o, ups))
                    .min();
                match (best, routing.route_into(&req, src, dst, &mut path)) {
                    (Some(hops), Ok(())) => {
                        check_path(&fabric, &faults, src, dst, &path)
                            .map_err(TestCaseError::fail)?;
                        prop_assert_eq!(path.len(), hops, "{} -> {}", src, dst);
                        prop_assert!(hops >= shape.hop_distance(src, dst));
                    }
                    (None, Err(RoutingError::Unroutable { .. })) => {}
                    (best, routed) => {
                        return Err(TestCaseError::fail(format!(
                            "{src} -> {dst}: brute force {best:?}, routing {routed:?}"
                        )));
                    }
                }
            }
        }
    }
}
