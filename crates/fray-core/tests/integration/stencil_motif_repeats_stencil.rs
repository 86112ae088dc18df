//! A stencil motif is the stencil's exchange once per iteration, each after a compute.

use fray_core::workload::{Motif, Op, Stencil, StencilKind, StencilMotif};

#[test]
fn each_iteration_is_one_exchange_after_one_compute_per_rank() {
    for (kind, grid) in [
        (StencilKind::FiveP, vec![7usize, 5]),
        (StencilKind::NineP, vec![4, 3]),
        (StencilKind::SevenP, vec![3, 4, 2]),
        (StencilKind::TwentySevenP, vec![3, 3, 3]),
    ] {
        for periodic in [false, true] {
            let stencil = Stencil { kind, periodic };
            let pairs = stencil.pairs(&grid).unwrap();
            let ranks: usize = grid.iter().product();
            let m = StencilMotif {
                stencil,
                grid: grid.clone(),
                size_bytes: 100.0,
                compute_s: 2e-3,
                iterations: 3,
            };
            assert_eq!(m.num_ranks().unwrap() as usize, ranks);
            let dag = m.dag().unwrap();
            let per = ranks + pairs.len();
            assert_eq!(dag.ops().len(), 3 * per);
            for iteration in dag.ops().chunks(per) {
                for (r, op) in iteration[..ranks].iter().enumerate() {
                    assert_eq!(
                        *op,
                        Op::Compute {
                            rank: r as u32,
                            seconds: 2e-3
                        }
                    );
                }
                let sent: Vec<(u32, u32)> = iteration[ranks..]
                    .iter()
                    .map(|op| match *op {
                        Op::Send {
                            src,
                            dst,
                            size_bytes,
                        } => {
                            assert_eq!(size_bytes, 100.0);
                            (src, dst)
                        }
                        other => panic!("{other:?} among the messages"),
                    })
                    .collect();
                assert_eq!(sent, pairs);
            }
        }
    }
}

#[test]
fn a_zero_side_is_an_error() {
    let m = StencilMotif {
        stencil: Stencil {
            kind: StencilKind::FiveP,
            periodic: false,
        },
        grid: vec![3, 0],
        size_bytes: 1.0,
        compute_s: 0.0,
        iterations: 1,
    };
    assert!(m.dag().unwrap_err().to_string().contains("stencil grid"));
}
