//! Valiant dragonfly routes: between groups, at most 5 hops with exactly two global hops
//! through a group that is neither end's, the intermediate group drawn in proportion to
//! `min(live links source group -> I, live links I -> destination group)`; within a group,
//! two local hops through another router of the group and never a global link (through
//! another group only when the group has no third router).

use crate::common;

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
fn every_pair_within_five_hops_two_global_or_two_local() {
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
                    if src / a == dst / a && a > 2 {
                        // Within a group of more than two routers: src -> m -> dst over two
                        // local links, m another router of the group.
                        assert_eq!(path.len(), 2, "{spec}: {src}->{dst}: {path:?}");
                        assert_eq!(hops_of_class(&fabric, &path, "global"), 0);
                        let m = fabric.channels().dst[path[0] as usize];
                        assert!(m / a == src / a && m != src && m != dst);
                        continue;
                    }
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

#[test]
fn within_a_group_the_detour_avoids_failed_local_links_and_spreads_evenly() {
    // Group 0 of a = 4 routers: from router 0 to router 1 the detour goes through 2 or 3;
    // with the local link 2 -> 1 down only 3 is left, and with 3 -> 1 down too, none.
    let fabric = Fabric::parse("dragonfly:p=1,a=4,h=2,g=5").unwrap();
    let df = fabric.as_dragonfly().unwrap();
    let routing = build("valiant", &fabric, &Faults::none(&fabric)).unwrap();
    let via = |faults: &Faults, k: u64| {
        let req = RouteRequest {
            entropy: message_entropy(3, k),
            ..RouteRequest::new(&fabric, faults)
        };
        let mut path = Vec::new();
        routing
            .route_into(&req, 0, 1, &mut path)
            .map(|()| fabric.channels().dst[path[0] as usize])
    };
    let none = Faults::none(&fabric);
    let through_2 = (0..2000).filter(|&k| via(&none, k).unwrap() == 2).count();
    assert!(
        (900..1100).contains(&through_2),
        "{through_2} of 2000 through router 2"
    );
    let mut faults = Faults::none(&fabric);
    faults.fail_cable(&fabric, df.local_channel(2, 1)).unwrap();
    assert!((0..200).all(|k| via(&faults, k).unwrap() == 3));
    faults.fail_cable(&fabric, df.local_channel(3, 1)).unwrap();
    // No router of the group is left between them: the detour leaves the group.
    let mut path = Vec::new();
    routing
        .route_into(&RouteRequest::new(&fabric, &faults), 0, 1, &mut path)
        .unwrap();
    check_path(&fabric, &faults, 0, 1, &path).unwrap();
    assert_eq!(hops_of_class(&fabric, &path, "global"), 2);
}
