//! Sweep3D is a wavefront: in each of the 8 sweeps per iteration a rank computes a block
//! after the block arrives from its upstream x and y neighbours, then sends it downstream;
//! the sweep's corner rank waits for no message.

use crate::motif_common;

use fray_core::workload::{Motif, Op, OpId, Sweep3D, SWEEPS_PER_ITERATION};
use motif_common::predecessors;

fn motif() -> Sweep3D {
    Sweep3D {
        nx: 5,
        ny: 7,
        nz: 6,
        kba: 2,
        pex: 3,
        pey: 4,
        fields_per_cell: 8,
        element_size_bytes: 8,
        compute_s: 4.8,
        iterations: 2,
    }
}

#[test]
fn messages_and_bytes_match_closed_form() {
    let m = motif();
    let dag = m.dag().unwrap();
    let (px, py, blocks) = (3u64, 4u64, 3u64);
    let sweeps = u64::from(SWEEPS_PER_ITERATION) * 2;
    let x_links = (px - 1) * py;
    let y_links = px * (py - 1);
    assert_eq!(
        dag.num_messages() as u64,
        sweeps * blocks * (x_links + y_links)
    );
    // x messages carry nx * kba cells, y messages ny * kba, of 8 fields of 8 bytes.
    let bytes = sweeps * blocks * (x_links * 5 + y_links * 7) * 2 * 8 * 8;
    assert_eq!(dag.total_bytes(), bytes as f64);
    // Compute: 8 sweeps x 3 blocks share 4.8 s per iteration.
    for op in dag.ops() {
        if let Op::Compute { seconds, .. } = op {
            assert!((seconds - 0.2).abs() < 1e-12);
        }
    }
    assert_eq!(
        dag.ops().len() - dag.num_messages(),
        (sweeps * blocks * px * py) as usize
    );
}

#[test]
fn wavefront_dependencies() {
    let m = motif();
    let dag = m.dag().unwrap();
    let preds = predecessors(&dag);
    let (px, py) = (3i64, 4i64);
    let per_sweep = 3 * 12;
    let xy = |r: u32| (r as i64 % px, r as i64 / px);
    let corners = [0u32, 2, 11, 9];

    // The sweep each compute belongs to, in op order.
    let mut computes_seen = 0usize;
    let mut sweep_of = vec![usize::MAX; dag.ops().len()];
    let mut sends_per_sweep = [0usize; 16];
    for (id, op) in dag.ops().iter().enumerate() {
        match *op {
            Op::Compute { rank, .. } => {
                let sweep = computes_seen / per_sweep;
                sweep_of[id] = sweep;
                let (dx, dy) = Sweep3D::direction(sweep as u32);
                if computes_seen.is_multiple_of(per_sweep) {
                    // The sweep starts at its corner, which waits for no message to it.
                    assert_eq!(rank, corners[sweep % 4], "sweep {sweep}");
                    for &p in &preds[id] {
                        assert!(
                            !matches!(dag.ops()[p as usize], Op::Send { dst, .. } if dst == rank),
                            "corner of sweep {sweep} waits for a message"
                        );
                    }
                }
                // Waits directly for a message from each upstream neighbour that exists.
                let (x, y) = xy(rank);
                let from: Vec<u32> = preds[id]
                    .iter()
                    .filter_map(|&p| match dag.ops()[p as usize] {
                        Op::Send { src, dst, .. } if dst == rank => Some(src),
                        _ => None,
                    })
                    .collect();
                let mut upstream = Vec::new();
                if (0..px).contains(&(x - dx)) {
                    upstream.push((x - dx + px * y) as u32);
                }
                if (0..py).contains(&(y - dy)) {
                    upstream.push((x + px * (y - dy)) as u32);
                }
                let mut from_sorted = from.clone();
                from_sorted.sort();
                upstream.sort();
                assert_eq!(from_sorted, upstream, "rank {rank} in sweep {sweep}");
                computes_seen += 1;
            }
            Op::Send { src, dst, .. } => {
                // A send follows exactly the compute of its block and goes downstream.
                assert_eq!(preds[id].len(), 1);
                let sweep = sweep_of[preds[id][0] as usize];
                sends_per_sweep[sweep] += 1;
                let (dx, dy) = Sweep3D::direction(sweep as u32);
                let ((sx, sy), (tx, ty)) = (xy(src), xy(dst));
                assert!(
                    (tx - sx, ty - sy) == (dx, 0) || (tx - sx, ty - sy) == (0, dy),
                    "send {src}->{dst} against sweep {sweep}"
                );
            }
            other => panic!("a motif's DAG holds no protocol message: {other:?}"),
        }
    }
    // Per sweep: nz/kba blocks, each over (px-1)*py x links and px*(py-1) y links.
    assert!(sends_per_sweep.iter().all(|&s| s == 3 * (8 + 9)));
}

#[test]
fn a_one_rank_sweep_has_no_messages() {
    let mut m = motif();
    m.pex = 1;
    m.pey = 1;
    let dag = m.dag().unwrap();
    assert_eq!(dag.num_messages(), 0);
    // Still a chain: every compute but the first waits for the one before it.
    let preds = predecessors(&dag);
    for (id, p) in preds.iter().enumerate().skip(1) {
        assert_eq!(*p, vec![(id - 1) as OpId]);
    }
}

#[test]
fn kba_must_divide_nz() {
    let mut m = motif();
    m.kba = 4;
    let err = m.dag().unwrap_err().to_string();
    assert!(
        err.contains("sweep3d kba") && err.contains("nz = 6"),
        "{err}"
    );
}
