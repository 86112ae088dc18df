//! Localisation on modelled TopoBW runs: each kind of injected part is named as that kind,
//! first, and a healthy machine yields no suspect.

use fray_core::diag::topobw::{simulate_topobw, Layout, Sharing};
use fray_core::diag::{localisation_study, locate, PartKind, StudyConfig};
use fray_core::fabric::gemini::Gemini;

fn suspects(inj: &[&str]) -> Vec<(PartKind, String)> {
    let layout = Layout::whole(Gemini::new([4, 4, 4]).unwrap());
    let inj: Vec<_> = inj.iter().map(|s| s.parse().unwrap()).collect();
    let run = simulate_topobw(&layout, &inj, 4e6, 10, Sharing::Both, "dor-retry").unwrap();
    locate(&run.report)
        .into_iter()
        .map(|s| (s.kind, s.name))
        .collect()
}

#[test]
fn healthy_machine_has_no_suspect() {
    assert!(suspects(&[]).is_empty());
}

#[test]
fn tells_a_link_from_a_gemini_from_a_node() {
    assert_eq!(
        suspects(&["c0-0c0s1g0l27:1"]),
        [(PartKind::Link, "c0-0c0s1g0->c0-0c0s2g0".to_string())]
    );
    assert_eq!(
        suspects(&["gemini:c2-1c0s2g1"]),
        [(PartKind::Gemini, "c2-1c0s2g1".to_string())]
    );
    assert_eq!(
        suspects(&["node:c1-0c0s3n2"]),
        [(PartKind::Node, "c1-0c0s3n2".to_string())]
    );
    let found = suspects(&["node:c1-0c0s3n2", "gemini:c2-1c0s0g0", "c3-1c0s1g1l50:6"]);
    assert_eq!(found.len(), 3, "{found:?}");
}

#[test]
fn study_scores_are_perfect_without_noise_and_seeded() {
    let config = StudyConfig {
        gemini: Gemini::new([4, 4, 4]).unwrap(),
        cases: 6,
        faults_per_case: 2,
        noise: 0.0,
        seed: 3,
        message_bytes: 4e6,
        count: 4,
    };
    let a = localisation_study(&config).unwrap();
    assert_eq!(a.total.injected, 12);
    assert_eq!(a.total.recall(), 1.0, "{a:?}");
    assert_eq!(a.total.precision(), 1.0, "{a:?}");
    assert_eq!(localisation_study(&config).unwrap(), a);
}

#[test]
fn noise_alone_names_no_healthy_link() {
    // Transfers slowed one at a time (noise) are not a link: a link needs two slow transfers.
    let layout = Layout::whole(Gemini::new([4, 4, 4]).unwrap());
    let mut run = simulate_topobw(&layout, &[], 4e6, 10, Sharing::Both, "dor-retry").unwrap();
    for i in [5, 400, 900] {
        run.report.lines[i].bandwidth_bytes_s *= 0.8;
    }
    assert!(locate(&run.report).is_empty());
    // Both partners slowed on one link is a link.
    let shared: Vec<usize> = (0..run.report.lines.len())
        .filter(|&i| run.report.lines[i].shared)
        .take(2)
        .collect();
    for &i in &shared {
        run.report.lines[i].bandwidth_bytes_s *= 0.8;
    }
    let found = locate(&run.report);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, PartKind::Link);
}
