//! Halo3D26 sends one message per neighbour of a non-periodic 3D grid, sized by the face,
//! edge or corner it carries: counts and bytes against closed forms.

use fray_core::workload::{Halo3D26, Motif, Op};

fn motif(grid: [u32; 3], cells: [u32; 3]) -> Halo3D26 {
    Halo3D26 {
        nx: cells[0],
        ny: cells[1],
        nz: cells[2],
        pex: grid[0],
        pey: grid[1],
        pez: grid[2],
        fields_per_cell: 2,
        element_size_bytes: 8,
        compute_s: 1e-3,
        iterations: 3,
    }
}

#[test]
fn messages_and_bytes_per_iteration() {
    let cells = [5u32, 6, 7];
    for grid in [
        [3, 3, 3],
        [2, 3, 4],
        [1, 1, 5],
        [4, 4, 4],
        [1, 1, 1],
        [5, 1, 2],
    ] {
        let m = motif(grid, cells);
        let dag = m.dag().unwrap();
        let g = grid.map(u64::from);
        let n = cells.map(u64::from);
        // Along each dimension a neighbour offset is 0 (g choices) or +-1 (2(g-1) pairs).
        let pairs: u64 = g.iter().map(|&g| 3 * g - 2).product::<u64>() - g.iter().product::<u64>();
        // A halo spans n_d cells along each dimension where the offset is 0, one otherwise.
        let cells_sent: u64 = (0..3)
            .map(|d| g[d] * n[d] + 2 * (g[d] - 1))
            .product::<u64>()
            - (0..3).map(|d| g[d] * n[d]).product::<u64>();
        assert_eq!(dag.num_messages() as u64, 3 * pairs, "grid {grid:?}");
        assert_eq!(
            dag.total_bytes(),
            (3 * cells_sent * 2 * 8) as f64,
            "grid {grid:?}"
        );
        let ranks = g.iter().product::<u64>() as usize;
        let computes = dag.ops().len() - dag.num_messages();
        assert_eq!(computes, 3 * ranks);
        assert_eq!(m.messages().unwrap().len() as u64, pairs);
    }
}

#[test]
fn three_cubed_has_316_messages_and_the_centre_26_neighbours() {
    let m = motif([3, 3, 3], [5, 6, 7]);
    let messages = m.messages().unwrap();
    assert_eq!(messages.len(), 7 * 7 * 7 - 27);
    let centre = 1 + 3 * (1 + 3);
    let mut sizes: Vec<f64> = messages
        .iter()
        .filter(|msg| msg.src == centre)
        .map(|msg| msg.size_bytes / 16.0)
        .collect();
    sizes.sort_by(f64::total_cmp);
    // 8 corners of one cell, 4 edges each of nx, ny, nz, 2 faces each of the three pairs.
    let mut expected = vec![1.0; 8];
    expected.extend([5.0; 4].iter().chain(&[6.0; 4]).chain(&[7.0; 4]));
    expected.extend([30.0, 30.0, 35.0, 35.0, 42.0, 42.0]);
    expected.sort_by(f64::total_cmp);
    assert_eq!(sizes, expected);
    // A corner of the grid has 7 neighbours: 3 faces, 3 edges, 1 corner.
    assert_eq!(messages.iter().filter(|msg| msg.src == 0).count(), 7);
    // Each face message carries the face across the dimension it crosses.
    for msg in messages.iter().filter(|msg| msg.src == centre) {
        let expected = match msg.dst as i64 - centre as i64 {
            1 | -1 => 6.0 * 7.0,
            3 | -3 => 5.0 * 7.0,
            9 | -9 => 5.0 * 6.0,
            _ => continue,
        };
        assert_eq!(msg.size_bytes, expected * 16.0);
    }
}

#[test]
fn every_compute_lasts_compute_s() {
    let dag = motif([2, 2, 2], [3, 3, 3]).dag().unwrap();
    for op in dag.ops() {
        if let Op::Compute { seconds, .. } = op {
            assert_eq!(*seconds, 1e-3);
        }
    }
}

#[test]
fn each_rank_sends_faces_first_as_ember_posts_them() {
    // The centre rank of a 3x3x3 grid (rank 13) sends x down, x up, y down, y up, z down,
    // z up (ranks 12, 14, 10, 16, 4, 22), then its 12 edges, then its 8 corners.
    let m = motif([3, 3, 3], [5, 6, 7]);
    let sent: Vec<(u32, f64)> = m
        .messages()
        .unwrap()
        .into_iter()
        .filter(|msg| msg.src == 13)
        .map(|msg| (msg.dst, msg.size_bytes))
        .collect();
    assert_eq!(sent.len(), 26);
    let dsts: Vec<u32> = sent.iter().map(|&(d, _)| d).collect();
    assert_eq!(dsts[..6], [12, 14, 10, 16, 4, 22]);
    // Ember's edges `line_a` to `line_l` and corners `corner_a` to `corner_h`, worked out
    // by hand from the offsets `emberhalo3d26.cc` gives them (rank = x + 3 y + 9 z).
    assert_eq!(dsts[6..18], [9, 1, 11, 19, 21, 23, 3, 5, 15, 25, 17, 7]);
    assert_eq!(dsts[18..], [18, 20, 0, 2, 24, 26, 6, 8]);
    // Faces, then edges (one row of cells: 5, 6 or 7 cells of 16 bytes), then corners.
    let cells: Vec<f64> = sent.iter().map(|&(_, b)| b / 16.0).collect();
    assert!(cells[..6].iter().all(|&c| c >= 30.0), "{cells:?}");
    assert!(
        cells[6..18].iter().all(|&c| (5.0..=7.0).contains(&c)),
        "{cells:?}"
    );
    assert!(cells[18..].iter().all(|&c| c == 1.0), "{cells:?}");
}
