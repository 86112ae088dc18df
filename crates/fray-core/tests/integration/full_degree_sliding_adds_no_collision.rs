//! qD sliding on a q-dimensional grid shifts whole hyperplanes: every route keeps a
//! one-to-one image of its fault-free channels, so the collisions never exceed the fault-free
//! job's, whatever the stencil, up to the failures the method can take.

use fray_core::fabric::FabricSpec;
use fray_core::spares::{Method, SpareAllocation, Study, StudyConfig};
use fray_core::workload::{Stencil, StencilKind};

fn exhaustive(
    fabric: &str,
    alloc: &str,
    method: &str,
    kind: StencilKind,
    periodic: bool,
    max: usize,
) -> Study {
    let spec: FabricSpec = fabric.parse().unwrap();
    let shape = spec.as_cartesian().unwrap().clone();
    let q = shape.num_dims();
    let mut study = Study::new(StudyConfig {
        shape: shape.clone(),
        alloc: alloc.parse::<SpareAllocation>().unwrap(),
        method: Method::parse(method, q).unwrap(),
        stencil: Stencil { kind, periodic },
        max_failures: max,
    })
    .unwrap();
    let ranks = study.num_ranks() as u32;
    study.run_exhaustive(0..ranks).unwrap();
    study
}

#[test]
fn two_d_sliding_on_2d_grids() {
    for (fabric, periodic) in [
        ("mesh:7x7", false),
        ("mesh:11x5", false),
        ("torus:7x6", true),
    ] {
        for kind in [StencilKind::FiveP, StencilKind::NineP] {
            let study = exhaustive(fabric, "2D(2,1)", "2D", kind, periodic, 2);
            let base = study.baseline_collisions();
            for row in &study.curve().rows[1..] {
                assert_eq!(
                    row.unrecoverable, 0,
                    "{fabric} {kind:?}: 2D(2,1) takes two failures"
                );
                assert_eq!(row.worst, base, "{fabric} {kind:?} F={}", row.failures);
            }
        }
    }
}

#[test]
fn three_d_sliding_on_3d_grids() {
    for (fabric, alloc, max) in [("mesh:5x5x4", "3D(2,1)", 2), ("torus:5x4x4", "3D(3,1)", 3)] {
        for kind in [StencilKind::SevenP, StencilKind::TwentySevenP] {
            let study = exhaustive(fabric, alloc, "3D", kind, fabric.starts_with("torus"), max);
            let base = study.baseline_collisions();
            for row in &study.curve().rows[1..] {
                assert_eq!(row.unrecoverable, 0, "{fabric} {alloc}");
                assert_eq!(
                    row.worst, base,
                    "{fabric} {alloc} {kind:?} F={}",
                    row.failures
                );
            }
        }
    }
}

#[test]
fn beyond_its_failures_full_degree_sliding_still_adds_none_when_it_recovers() {
    let study = exhaustive("mesh:7x7", "2D(2,1)", "2D", StencilKind::FiveP, false, 3);
    let row = &study.curve().rows[3];
    assert!(row.unrecoverable > 0 && row.recovered() > 0);
    assert_eq!(row.worst, 1);
}
