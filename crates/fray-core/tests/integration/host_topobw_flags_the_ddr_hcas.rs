//! TopoBW's nearest-neighbour idea on the PSMN X5 InfiniBand fabric: the hosts of each switch
//! paired in rounds, each round run on the flow engine; the localiser flags exactly the links
//! of the two HCAs that run 4xDDR among 4xQDR peers, the links `peers` names.

use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;

use fray_core::diag::topobw::{is_host_report, simulate_host_topobw, HostPlan, HostReport};
use fray_core::diag::{locate_hosts, slow_links, PartKind, HOST_LINK};
use fray_core::fabric::{Fabric, FileFormat};
use fray_core::faults::Faults;
use fray_core::routing;

fn x5() -> Fabric {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/psmn_X5_ibnetdiscover.topofile");
    Fabric::read(path, FileFormat::Ibnetdiscover).unwrap()
}

fn run(fabric: &Fabric) -> HostReport {
    let faults = Faults::none(fabric);
    simulate_host_topobw(fabric, &faults, routing::default_for(fabric), 1e6, 4).unwrap()
}

#[test]
fn hosts_of_a_switch_meet_once_each_once_per_direction_per_round() {
    let f = x5();
    let plan = HostPlan::new(&f).unwrap();
    let mut on_switch = vec![0usize; f.num_routers()];
    for e in 0..f.num_endpoints() as u32 {
        on_switch[f.router_of(e) as usize] += 1;
    }
    let most = *on_switch.iter().max().unwrap();
    assert_eq!(plan.rounds.len(), most - 1 + most % 2);
    let mut met = HashSet::new();
    for pairs in &plan.rounds {
        let mut seen = HashSet::new();
        for &(a, b) in pairs {
            assert_eq!(f.router_of(a), f.router_of(b));
            assert!(seen.insert(a) && seen.insert(b), "a host twice in a round");
            assert!(met.insert((a.min(b), a.max(b))), "a pair met twice");
        }
    }
    // Every pair of hosts on one switch meets.
    let pairs: usize = on_switch.iter().map(|&n| n * n.saturating_sub(1) / 2).sum();
    assert_eq!(met.len(), pairs);
    let phases: Vec<_> = plan.phases().collect();
    assert_eq!(phases.len(), 2 * plan.rounds.len());
    for phase in &phases {
        let senders: HashSet<_> = phase.iter().map(|t| t.0).collect();
        assert!(phase.iter().all(|t| !senders.contains(&t.1)));
    }
}

#[test]
fn the_two_ddr_hcas_links_are_flagged_and_nothing_else() {
    let f = x5();
    let report = run(&f);
    let pairs: usize = HostPlan::new(&f).unwrap().rounds.iter().map(Vec::len).sum();
    assert_eq!(report.lines.len(), 2 * pairs);
    // The report reads back as written.
    let text = report.to_text();
    assert!(is_host_report(&text));
    // A summary line per host (every host of X5 has a neighbour on its switch), then one in all.
    assert_eq!(text.matches("\nBandwidth of ").count(), f.num_endpoints());
    assert_eq!(text.matches("\nBandwidth hosts ").count(), 1);
    let back = HostReport::parse("x5.txt", &text).unwrap();
    assert_eq!(back.lines.len(), report.lines.len());
    assert_eq!(back.lines[0].src, report.lines[0].src);

    let suspects = locate_hosts(&back, &f).unwrap();
    let flagged: BTreeSet<String> = suspects
        .iter()
        .inspect(|s| assert_eq!((s.kind, s.direction.as_str()), (PartKind::Link, HOST_LINK)))
        .map(|s| s.name.clone())
        .collect();
    let ddr_hcas: BTreeSet<String> = slow_links(&f)
        .iter()
        .filter(|l| l.class == "host")
        .map(|l| l.name.clone())
        .collect();
    assert_eq!(ddr_hcas.len(), 2);
    assert_eq!(flagged, ddr_hcas);
    // DDR runs at half the QDR rate of its neighbours' links.
    for s in &suspects {
        assert!((s.slowdown - 0.5).abs() < 0.05, "{s:?}");
    }
}

#[test]
fn bad_report_lines_are_named() {
    let e = HostReport::parse("r.txt", "a -> b (round 1): x seconds = 1 MB/sec\n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("r.txt:1: ") && e.contains("time"), "{e}");
    assert!(HostReport::parse("r.txt", "a b c\n").is_err());
}
