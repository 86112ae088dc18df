//! Random meshes and tori for the routing property tests.

use std::ops::Range;

use fray_core::fabric::Cartesian;
use proptest::prelude::*;

/// A grid of 1 to 3 dimensions, each of a number of routers drawn from `sides` and wrapping
/// or not (a mesh, a torus or a mix).
pub fn grid_shapes(sides: Range<usize>) -> impl Strategy<Value = Cartesian> {
    prop::collection::vec((sides, any::<bool>()), 1..4).prop_map(|dims| {
        Cartesian::new(
            dims.iter().map(|d| d.0).collect(),
            dims.iter().map(|d| d.1).collect(),
        )
    })
}
