//! The paper's 0D worst case on a mesh for F >= 7 (its Figure 6, right): failures every other
//! node along the row next to the mesh's edge, starting beside the spare column. The
//! substitutes stack up the spare column, and the messages to the fourth and later ones all
//! climb the same channel of that column: 4 (F - 3) routes.

use crate::common;

#[test]
fn stacked_substitutes_give_four_times_f_minus_three() {
    let (w, h) = (24u32, 12u32);
    let s = common::study("mesh:24x12", "2D(1,1)", "0D", 10);
    let ranks_per_row = w - 1;
    let row = h - 2;
    let failures: Vec<u32> = (0..10)
        .map(|i| (w - 2 - 2 * i) + ranks_per_row * row)
        .collect();
    let steps = s.replay(&failures).unwrap();
    let collisions: Vec<u32> = steps.iter().map(|s| s.unwrap().1).collect();
    for f in 7..=10 {
        assert_eq!(collisions[f - 1], 4 * (f as u32 - 3), "F = {f}");
    }
    // The same failures in the middle of the mesh spread over both directions of the column:
    // 2F - 1 once the column is used both ways.
    let middle: Vec<u32> = (0..10)
        .map(|i| (w - 2 - 2 * i) + ranks_per_row * (h / 2))
        .collect();
    let steps = s.replay(&middle).unwrap();
    for (i, step) in steps.iter().enumerate().skip(2) {
        let f = i as u32 + 1;
        assert_eq!(step.unwrap().1, 2 * f - 1, "F = {f}");
    }
}
