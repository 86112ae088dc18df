//! In every motif, each compute of iteration i+1 on a rank waits (directly or not) for every
//! message that rank sent or received in iteration i, and for its own computes.

use crate::motif_common;

use fray_core::workload::{
    Halo3D26, Lqcd, Motif, Stencil, StencilKind, StencilMotif, Sweep3D, UniformRandom,
};
use motif_common::assert_iterations_wait_for_previous;

#[test]
fn halo3d26() {
    let mut m = Halo3D26::new(3, 3, 2);
    m.iterations = 3;
    m.compute_s = 1e-3;
    assert_iterations_wait_for_previous(&m.dag().unwrap());
}

#[test]
fn sweep3d() {
    let mut m = Sweep3D::new(3, 4);
    m.nz = 6;
    m.kba = 2;
    m.iterations = 3;
    assert_iterations_wait_for_previous(&m.dag().unwrap());
}

#[test]
fn lqcd_power_of_two_and_not() {
    let mut m = Lqcd::new([4, 4, 4, 8], 16);
    m.iterations = 2;
    assert_iterations_wait_for_previous(&m.dag().unwrap());
    let mut m = Lqcd::new([6, 4, 4, 4], 12);
    m.iterations = 2;
    assert_iterations_wait_for_previous(&m.dag().unwrap());
}

#[test]
fn lqcd_one_rank_still_orders_its_computes() {
    let mut m = Lqcd::new([144, 144, 144, 192], 1);
    m.iterations = 2;
    assert_iterations_wait_for_previous(&m.dag().unwrap());
}

#[test]
fn uniform_random() {
    let m = UniformRandom {
        ranks: 17,
        size_bytes: 1e4,
        compute_s: 0.0,
        iterations: 4,
        seed: 9,
    };
    assert_iterations_wait_for_previous(&m.dag().unwrap());
}

#[test]
fn stencils() {
    for (kind, grid) in [
        (StencilKind::FiveP, vec![4, 3]),
        (StencilKind::NineP, vec![3, 3]),
        (StencilKind::SevenP, vec![3, 2, 2]),
        (StencilKind::TwentySevenP, vec![3, 3, 2]),
    ] {
        for periodic in [false, true] {
            let m = StencilMotif {
                stencil: Stencil { kind, periodic },
                grid: grid.clone(),
                size_bytes: 1e3,
                compute_s: 1e-4,
                iterations: 2,
            };
            assert_iterations_wait_for_previous(&m.dag().unwrap());
        }
    }
}
