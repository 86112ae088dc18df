//! The wiring of a real Cray XC30 (NERSC Edison, `examples/data/edison_aries_links.txt`) builds
//! whole as a dragonfly: 1,440 routers in 15 groups, every cable of the file by colour, Cray's
//! names kept and found again, and every router pair routed by minimal, Valiant and UGAL.
//!
//! The expected counts come from the file itself, counted apart from fray:
//! `awk '$4!="unused" && $2!="ptile"{n[$2]++} $2=="ptile"{t++}
//!  END{for(c in n) print c, n[c]/2; print "nodes", t/2}' edison_aries_links.txt`
//! prints blue 2520, black 10800, green 10800, nodes 5760.

use std::path::PathBuf;

use fray_core::fabric::{AriesFabric, Fabric, FileFormat};
use fray_core::faults::{CableSelector, Faults};
use fray_core::routing::{self, RouteRequest};

fn edison_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/edison_aries_links.txt")
}

fn edison() -> (AriesFabric, String) {
    let text = std::fs::read_to_string(edison_path()).unwrap();
    (AriesFabric::parse(&text, "edison").unwrap(), text)
}

#[test]
fn counts_routers_groups_nodes_and_cables_by_colour() {
    let (read, _) = edison();
    let f = &read.fabric;
    assert_eq!(f.num_routers(), 1440);
    assert_eq!(f.num_endpoints(), 5760);
    let df = f.as_dragonfly().expect("a dragonfly");
    let s = df.shape();
    assert_eq!((s.groups, s.routers_per_group, df.columns()), (15, 96, 16));
    assert_eq!(s.endpoints_per_router, 4);
    // Edison's groups are numbered 0 to 15 without 12.
    let labels: Vec<u32> = (0..16).filter(|&g| g != 12).collect();
    assert_eq!(read.group_labels, labels);
    assert_eq!(f.class_names(), ["host", "green", "black", "blue"]);
    assert_eq!(f.cables_per_class(), [5760, 10800, 10800, 2520]);
    // 2520 blue cables over 105 group pairs.
    assert_eq!(df.links_per_pair(), 24);
    for i in 0..15 {
        for j in (0..15).filter(|&j| j != i) {
            for &c in df.global_channels(i, j) {
                let ch = f.channels();
                assert_eq!(s.group_of(ch.src[c as usize]), i);
                assert_eq!(s.group_of(ch.dst[c as usize]), j);
            }
        }
    }
}

#[test]
fn links_carry_aries_lanes_and_rates() {
    let (read, _) = edison();
    let summary = read.fabric.class_summary();
    let find = |cls: &str| summary.iter().find(|g| g.class == cls).unwrap();
    // 3 lanes x 14 Gb/s electrical, 3 x 12.5 Gb/s optical, PCIe 3.0 x16 to each node.
    for (cls, lanes, bytes_s) in [
        ("green", 3, 5.25e9),
        ("black", 3, 5.25e9),
        ("blue", 3, 4.6875e9),
        ("host", 16, 16e9),
    ] {
        let g = find(cls);
        assert_eq!(g.lanes, lanes, "{cls}");
        assert_eq!(g.bandwidth_bytes_s, bytes_s, "{cls}");
    }
}

#[test]
fn names_round_trip_as_the_file_writes_them() {
    let (read, text) = edison();
    let f = &read.fabric;
    for r in 0..f.num_routers() as u32 {
        assert_eq!(f.router_by_name(f.router_name(r)).unwrap(), r);
    }
    for e in 0..f.num_endpoints() as u32 {
        assert_eq!(f.endpoint_by_name(f.endpoint_name(e)).unwrap(), e);
    }
    assert_eq!(f.endpoint_name(0), "c0-0c0s0n0");
    assert_eq!(f.endpoint_name(3), "c0-0c0s0n3");
    // Every cabled port's channel leaves the router the line names and comes back from the
    // far port the line names.
    let mut cabled = 0;
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w[3] == "unused" || w[1] == "ptile" {
            continue;
        }
        let (port, router) = (
            w[0].split('(').next().unwrap(),
            &w[0][..w[0].rfind('l').unwrap()],
        );
        let far = w[3].split('(').next().unwrap();
        let c = f.channel_by_port(port).unwrap_or_else(|| panic!("{port}"));
        assert_eq!(f.router_name(f.channels().src[c as usize]), router);
        assert_eq!(f.port_name(f.channels().reverse[c as usize]), Some(far));
        assert_eq!(
            f.class_names()[f.channels().class[c as usize] as usize],
            w[1]
        );
        cabled += 1;
    }
    assert_eq!(cabled, 2 * (10800 + 10800 + 2520));
}

#[test]
fn a_fault_file_names_one_of_parallel_black_cables_by_its_ports() {
    let (read, _) = edison();
    let f = &read.fabric;
    let mut faults = Faults::none(f);
    // c0-0c0s0a0 has three black cables to c1-0c2s0a0 (ports l07, l16, l17).
    let text = "# one black cable\nc0-0c0s0a0l16->c1-0c2s0a0l07\n";
    assert_eq!(faults.fail_cables_listed(f, text, "down.txt").unwrap(), 1);
    let (x, y) = (
        f.router_by_name("c0-0c0s0a0").unwrap(),
        f.router_by_name("c1-0c2s0a0").unwrap(),
    );
    let parallel: Vec<u32> = f.channels_between(x, y).collect();
    assert_eq!(parallel.len(), 3);
    let down: Vec<bool> = parallel
        .iter()
        .map(|&c| faults.channel_is_down(c))
        .collect();
    assert_eq!(down.iter().filter(|&&d| d).count(), 1);
    let failed = parallel[down.iter().position(|&d| d).unwrap()];
    assert_eq!(f.port_name(failed), Some("c0-0c0s0a0l16"));
    // Two ports that are not the two ends of one cable name nothing.
    let err = faults
        .fail_cables_listed(f, "c0-0c0s0a0l16->c1-0c2s0a0l17\n", "down.txt")
        .unwrap_err();
    assert!(err.to_string().starts_with("down.txt:1: "), "{err}");
}

#[test]
fn every_router_pair_routes_when_healthy() {
    let (read, _) = edison();
    let f = &read.fabric;
    let faults = Faults::none(f);
    let ch = f.channels();
    let n = f.num_routers() as u32;
    assert_eq!(routing::default_for(f), "ugal");
    // Hops at most: minimal 2 + 1 + 2; Valiant two such legs sharing no hop.
    for (name, most_hops, stride) in [("minimal", 5, 1), ("valiant", 9, 7), ("ugal", 9, 7)] {
        let r = routing::build(name, f, &faults).unwrap();
        let mut path = Vec::new();
        let mut longest = 0;
        for src in 0..n {
            for dst in (src % stride..n).step_by(stride as usize) {
                let req = RouteRequest {
                    entropy: u64::from(src) * 7919 + u64::from(dst),
                    ..RouteRequest::new(f, &faults)
                };
                r.route_into(&req, src, dst, &mut path)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                let mut at = src;
                for &c in &path {
                    assert_eq!(ch.src[c as usize], at, "{name} {src}->{dst}");
                    at = ch.dst[c as usize];
                }
                assert_eq!(at, dst, "{name} {src}->{dst}");
                longest = longest.max(path.len());
            }
        }
        assert!(longest <= most_hops, "{name}: {longest} hops");
        if name == "minimal" {
            assert_eq!(longest, 5, "some pair needs two local hops at each end");
        }
    }
}

#[test]
fn the_format_is_detected_from_the_text() {
    let text = std::fs::read_to_string(edison_path()).unwrap();
    assert_eq!(FileFormat::detect(&text), FileFormat::Aries);
    assert_eq!("aries".parse::<FileFormat>().unwrap(), FileFormat::Aries);
    let f = Fabric::read_detected(edison_path()).unwrap();
    assert_eq!(f.num_routers(), 1440);
}

#[test]
fn routes_go_around_failed_blue_and_black_cables() {
    let (read, _) = edison();
    let f = &read.fabric;
    let mut faults = Faults::none(f);
    for (class, fraction) in [("blue", 0.1), ("black", 0.05)] {
        let n = faults
            .fail_random_cables(f, &CableSelector::Class(class.into()), fraction, 7)
            .unwrap();
        assert!(n > 0);
    }
    let ch = f.channels();
    let n = f.num_routers() as u32;
    for name in ["valiant", "ugal"] {
        let r = routing::build(name, f, &faults).unwrap();
        let mut path = Vec::new();
        for src in (0..n).step_by(13) {
            for dst in (src % 11..n).step_by(11) {
                let req = RouteRequest {
                    entropy: u64::from(src) << 20 | u64::from(dst),
                    ..RouteRequest::new(f, &faults)
                };
                r.route_into(&req, src, dst, &mut path)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                let mut at = src;
                for &c in &path {
                    assert!(!faults.channel_is_down(c), "{name} uses a failed cable");
                    assert_eq!(ch.src[c as usize], at);
                    at = ch.dst[c as usize];
                }
                assert_eq!(at, dst);
            }
        }
    }
}
