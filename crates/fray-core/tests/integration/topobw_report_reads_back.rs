//! A modelled TopoBW report reads back as it was written: same parts, tests and rates (to the
//! printed precision), and the summary lines are skipped.

use fray_core::diag::topobw::{simulate_topobw, Layout, Report, Sharing};
use fray_core::fabric::gemini::Gemini;

#[test]
fn written_reports_parse_back() {
    let layout = Layout::whole(Gemini::new([3, 2, 5]).unwrap());
    let inj = ["node:c0-0c0s2n1".parse().unwrap()];
    let run = simulate_topobw(&layout, &inj, 1e6, 8, Sharing::Both, "dor-retry").unwrap();
    let text = run.report.to_text();
    let back = Report::parse("report.txt", &text).unwrap();
    assert_eq!(back.lines.len(), run.report.lines.len());
    assert_eq!(back.lines.len(), run.plan.num_transfers());
    for (a, b) in run.report.lines.iter().zip(&back.lines) {
        assert_eq!(
            (a.src, a.dst, a.src_nid, a.dst_nid),
            (b.src, b.dst, b.src_nid, b.dst_nid)
        );
        assert_eq!(
            (a.dim, a.dir, a.cable, a.shared),
            (b.dim, b.dir, b.cable, b.shared)
        );
        assert!((a.bandwidth_bytes_s - b.bandwidth_bytes_s).abs() <= 0.005e6 + 1.0);
        assert!((a.seconds - b.seconds).abs() <= 0.5e-4);
    }
    // Odd rings (X of 3, Z of 5) add the wrap pair: every direction of every link is tested.
    let links: std::collections::HashSet<_> = back
        .lines
        .iter()
        .map(|l| (l.src.gemini(), l.dst.gemini()))
        .collect();
    let fabric = layout.gemini.fabric(1e-7).unwrap();
    assert_eq!(links.len(), fabric.num_router_channels());
}
