//! Valiant dragonfly routes: at most 5 hops with exactly two global hops through a group that
//! is neither end's, and the intermediate group drawn in proportion to
//! `min(live links source group -> I, live links I -> destination group)`.

mod common;

use common::paths::{check_path, hops_of_class};
use fray_core::fabric::{ChannelId, Fabric};
use fray_core::faults::Faults;
use fray_core::routing::{build, message_entropy, RouteRequest};

/// The group the first global hop of `path` enters.
fn intermediate_group(fabric: &Fabric, path: &[ChannelId]) -> usize {
    let global = fabric.class_id("global").unwrap();
    let ch = fabric.channels();
    let a = fabric.as_dragonfly().unwrap().shape().routers_per_group;
    let first = path
        .iter()
        .find(|&&c| ch.class[c as usize] == global)
        .unwrap();
    ch.dst[*first as usize] as usize / a
}

#[test]
fn every_pair_within_five_hops_two_global() {
    for spec in [
        "dragonfly:p=1,a=4,h=2,g=5",
        "dragonfly:p=1,a=3,h=2,g=4,arrangement=relative",
        "dragonfly:p=1,a=2,h=3,g=7",
    ] {
        let fabric = Fabric::parse(spec).unwrap();
        let faults = Faults::none(&fabric);
        let routing = build("valiant", &fabric, &Faults::none(&fabric)).unwrap();
        let a = fabric.as_dragonfly().unwrap().shape().routers_per_group as u32;
        let n = fabric.num_routers() as u32;
        let mut path = Vec::new();
        for src in 0..n {
            for dst in (0..n).filter(|&d| d != src) {
                for k in 0..6 {
                    let req = RouteRequest {
                        entropy: message_entropy(5, k),
                        ..RouteRequest::new(&fabric, &faults)
                    };
                    routing.route_into(&req, src, dst, &mut path).unwrap();
                    check_path(&fabric, &faults, src, dst, &path).unwrap();
                    assert!(path.len() <= 5, "{spec}: {src}->{dst}: {path:?}");
                    assert_eq!(hops_of_class(&fabric, &path, "global"), 2);
                    let via = intermediate_group(&fabric, &path);
                    assert!(via != (src / a) as usize && via != (dst / a) as usize);
                }
            }
        }
    }
}

#[test]
fn intermediate_group_drawn_by_live_links_on_both_legs() {
    // Four cables per group pair. From group 0 to group 4 the intermediates weigh:
    // group 1: min(0, 4) = 0 (every 0-1 cable down), group 2: min(4, 2) = 2 (two 2-4 cables
    // down), group 3: min(4, 4) = 4.
    let fabric = Fabric::parse("dragonfly:p=1,a=4,h=4,g=5").unwrap();
    let df = fabric.as_dragonfly().unwrap();
    let mut faults = Faults::none(&fabric);
    for &c in df.global_channels(0, 1) {
        faults.fail_cable(&fabric, c).unwrap();
    }
    for &c in &df.global_channels(2, 4)[..2] {
        faults.fail_cable(&fabric, c).unwrap();
    }
    let routing = build("valiant", &fabric, &Faults::none(&fabric)).unwrap();
    let mut drawn = [0u32; 5];
    let mut path = Vec::new();
    let trials = 6000;
    for k in 0..trials {
        let req = RouteRequest {
            entropy: message_entropy(9, k),
            ..RouteRequest::new(&fabric, &faults)
        };
        let (src, dst) = ((k % 4) as u32, 16 + (k / 4 % 4) as u32);
        routing.route_into(&req, src, dst, &mut path).unwrap();
        check_path(&fabric, &faults, src, dst, &path).unwrap();
        drawn[intermediate_group(&fabric, &path)] += 1;
    }
    assert_eq!(
        drawn[1], 0,
        "a group cut off from the source is never drawn"
    );
    let share = f64::from(drawn[2]) / trials as f64;
    assert!(
        (0.30..0.37).contains(&share),
        "group 2 drawn {drawn:?}, expected 1/3"
    );
    assert_eq!(drawn[2] + drawn[3], trials as u32);
}
