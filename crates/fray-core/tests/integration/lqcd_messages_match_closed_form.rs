//! LQCD: the MILC/Ember layout of the lattice over a 4D rank grid, the gathers' message
//! counts and sizes, and the two recursive-doubling allreduces, against closed forms.

use crate::motif_common;

use fray_core::workload::{Lqcd, LqcdDecomposition, Motif, Op, EMBER_SHORT_MSG_LENGTH_BYTES};
use motif_common::{ancestors, predecessors};

#[test]
fn decomposition_of_small_lattices() {
    let d = Lqcd::new([4, 4, 4, 8], 16).decomposition().unwrap();
    assert_eq!(
        d,
        LqcdDecomposition {
            ranks_per_dim: [2, 2, 1, 4],
            sites_per_rank: [2, 2, 4, 2],
        }
    );
    // Largest prime first: 3 cuts the side of 6.
    let d = Lqcd::new([6, 4, 4, 4], 12).decomposition().unwrap();
    assert_eq!(d.ranks_per_dim, [3, 2, 2, 1]);
    assert_eq!(d.sites_per_rank, [2, 2, 2, 4]);
}

#[test]
fn the_paper_lattice_on_32k_ranks() {
    let d = Lqcd::new([144, 144, 144, 192], 32768)
        .decomposition()
        .unwrap();
    assert_eq!(d.ranks_per_dim, [16, 16, 8, 16]);
    assert_eq!(d.sites_per_rank, [9, 9, 18, 12]);
}

#[test]
fn an_impossible_layout_is_an_error() {
    let err = Lqcd::new([4, 4, 4, 4], 3).dag().unwrap_err().to_string();
    assert!(
        err.contains("lqcd ranks") && err.contains("divisible by 3"),
        "{err}"
    );
}

fn expected(lattice: [u32; 4], ranks: u32, iterations: u64) -> (u64, f64) {
    let d = Lqcd::new(lattice, ranks).decomposition().unwrap();
    let g = d.ranks_per_dim.map(u64::from);
    let s = d.sites_per_rank.map(u64::from);
    let mut messages = 0;
    let mut bytes = 0;
    for dim in 0..4 {
        // Ordered neighbour pairs along `dim`, without wrap-around.
        let pairs = 2 * (g[dim] - 1) * (0..4).filter(|&e| e != dim).map(|e| g[e]).product::<u64>();
        let face: u64 = (0..4).filter(|&e| e != dim).map(|e| s[e]).product();
        // Two passes, each a first-neighbour and a Naik gather of 48-byte vectors.
        messages += 2 * 2 * pairs;
        bytes += 2 * pairs * (face / 2 + face) * 48;
    }
    let n = u64::from(ranks);
    let p = 1u64 << (63 - n.leading_zeros());
    let allreduce = p * u64::from(p.trailing_zeros()) + 2 * (n - p);
    messages += 2 * allreduce;
    bytes += 2 * allreduce * 8;
    (iterations * messages, (iterations * bytes) as f64)
}

#[test]
fn messages_and_bytes() {
    for (lattice, ranks) in [
        ([4, 4, 4, 8], 16),
        ([6, 4, 4, 4], 12),
        ([8, 6, 10, 4], 30),
        ([36, 36, 72, 96], 512),
    ] {
        let mut m = Lqcd::new(lattice, ranks);
        m.iterations = 2;
        let dag = m.dag().unwrap();
        let (messages, bytes) = expected(lattice, ranks, 2);
        assert_eq!(
            dag.num_messages() as u64,
            messages,
            "{lattice:?} on {ranks}"
        );
        assert_eq!(dag.total_bytes(), bytes, "{lattice:?} on {ranks}");
    }
}

#[test]
fn compute_is_shared_in_embers_flop_counts() {
    let mut m = Lqcd::new([4, 4, 4, 8], 16);
    m.compute_s = 1.0;
    m.iterations = 3;
    let dag = m.dag().unwrap();
    let mut per_rank = vec![Vec::new(); 16];
    for op in dag.ops() {
        if let Op::Compute { rank, seconds } = *op {
            per_rank[rank as usize].push(seconds);
        }
    }
    for seconds in per_rank {
        assert_eq!(seconds.len(), 15);
        let total: f64 = seconds.iter().sum();
        assert!((total - 3.0).abs() < 1e-12);
        // Four link segments of 288 flops per site, then the residual of 78.5.
        let link = 288.0 / 1230.5;
        for (i, s) in seconds.iter().enumerate() {
            let want = if i % 5 == 4 { 78.5 / 1230.5 } else { link };
            assert!((s - want).abs() < 1e-12);
        }
    }
}

#[test]
fn link_computes_wait_for_their_gathers() {
    // 4 x 4 x 4 x 8 on 16 ranks: grid 2 x 2 x 1 x 4, rank = x + 2 * (y + 2 * t).
    let mut m = Lqcd::new([4, 4, 4, 8], 16);
    m.iterations = 2;
    let dag = m.dag().unwrap();
    let preds = predecessors(&dag);
    let strides = [1i64, 2, 4, 4];
    let grid = [2i64, 2, 1, 4];
    let coord = |r: u32, d: usize| (r as i64 / strides[d]) % grid[d];
    // Neighbours of `r` on the + side (positive) or - side (negative).
    let side = |r: u32, positive: bool| -> Vec<u32> {
        let mut out: Vec<u32> = (0..4)
            .filter_map(|d| {
                let c = coord(r, d) + if positive { 1 } else { -1 };
                (0..grid[d])
                    .contains(&c)
                    .then(|| (r as i64 + (c - coord(r, d)) * strides[d]) as u32)
            })
            .collect();
        out.sort();
        out
    };
    let mut computes = [0usize; 16];
    for (id, op) in dag.ops().iter().enumerate() {
        let Op::Compute { rank, .. } = *op else {
            continue;
        };
        let segment = computes[rank as usize] % 5;
        computes[rank as usize] += 1;
        let mut from = Vec::new();
        let mut own = 0;
        for &p in &preds[id] {
            // Gathers only: the allreduces' 8-byte messages come before the first pass.
            if let Op::Send {
                src,
                dst,
                size_bytes,
            } = dag.ops()[p as usize]
            {
                if size_bytes == 8.0 {
                    continue;
                }
                if dst == rank {
                    from.push(src);
                }
                if src == rank {
                    own += 1;
                }
            }
        }
        from.sort();
        from.dedup();
        match segment {
            // Positive links: both gathers from the + neighbours, and the rank's own sends.
            0 | 2 => {
                assert_eq!(from, side(rank, true), "rank {rank}");
                let neighbours = side(rank, true).len() + side(rank, false).len();
                assert_eq!(own, 2 * neighbours, "rank {rank}");
            }
            // Negative links: the gathers from the - neighbours.
            1 | 3 => assert_eq!(from, side(rank, false), "rank {rank}"),
            _ => {}
        }
    }
}

/// The gather sends of the first pass of a 4-rank line along t (lattice 2 x 2 x 2 x 16:
/// first-neighbour gathers of 192 bytes, Naik gathers of 384), as `(op, src, dst, bytes)`.
fn line_gathers(
    short_msg_length_bytes: f64,
) -> (fray_core::workload::Dag, Vec<(usize, u32, u32, f64)>) {
    let mut m = Lqcd::new([2, 2, 2, 16], 4);
    assert_eq!(m.decomposition().unwrap().ranks_per_dim, [1, 1, 1, 4]);
    m.short_msg_length_bytes = short_msg_length_bytes;
    let dag = m.dag().unwrap();
    let sends = dag
        .ops()
        .iter()
        .enumerate()
        .filter_map(|(id, op)| match *op {
            Op::Send {
                src,
                dst,
                size_bytes,
            } if size_bytes == 192.0 || size_bytes == 384.0 => Some((id, src, dst, size_bytes)),
            _ => None,
        })
        .take(12)
        .collect();
    (dag, sends)
}

#[test]
fn sends_go_one_after_another_in_embers_order() {
    let (dag, sends) = line_gathers(EMBER_SHORT_MSG_LENGTH_BYTES);
    let preds = predecessors(&dag);
    // Rank 1: first-neighbour then Naik to rank 2, then first-neighbour then Naik to rank 0,
    // each send waiting for the one before; eager, so nothing else.
    let mine: Vec<_> = sends.iter().filter(|s| s.1 == 1).collect();
    let order: Vec<(u32, f64)> = mine.iter().map(|s| (s.2, s.3)).collect();
    assert_eq!(order, [(2, 192.0), (2, 384.0), (0, 192.0), (0, 384.0)]);
    assert!(preds[mine[0].0].is_empty());
    for w in mine.windows(2) {
        assert_eq!(preds[w[1].0], [w[0].0 as u32]);
    }
}

#[test]
fn a_rendezvous_send_waits_for_its_receive() {
    let (dag, sends) = line_gathers(100.0);
    let preds = predecessors(&dag);
    let find = |src: u32, dst: u32, bytes: f64| {
        sends
            .iter()
            .find(|s| s.1 == src && s.2 == dst && s.3 == bytes)
            .unwrap()
            .0
    };
    // Rank 2 posts its receives from rank 1 after its own + sends (its Naik to rank 3) for the
    // first-neighbour gather, and after its - first-neighbour send (to rank 1) for the Naik.
    assert!(preds[find(1, 2, 192.0)].contains(&(find(2, 3, 384.0) as u32)));
    assert!(preds[find(1, 2, 384.0)].contains(&(find(2, 1, 192.0) as u32)));
    // Rank 0 posts its Naik receive from rank 1 after its + first-neighbour send.
    assert!(preds[find(1, 0, 384.0)].contains(&(find(0, 1, 192.0) as u32)));
    // The top rank's + sends do not exist: rank 3 sends down at once.
    assert!(preds[find(3, 2, 192.0)].is_empty());
    // So the chain unwinds from the top: rank 0's first send waits, through rank 1 and 2,
    // for rank 3's first send.
    assert!(ancestors(&preds, find(0, 1, 192.0) as u32)[find(3, 2, 192.0)]);
}
