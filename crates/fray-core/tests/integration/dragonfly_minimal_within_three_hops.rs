//! Minimal dragonfly routes on a whole fabric: every ordered router pair routes in at most
//! 3 hops (one local hop inside a group; local, global, local between groups, with exactly
//! one global hop), the same entropy gives the same path, and different entropies spread a
//! group pair's traffic over its parallel global links.

use crate::common;

use std::collections::HashSet;

use common::paths::{check_path, hops_of_class};
use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::{build, message_entropy, RouteRequest};

const SPECS: &[&str] = &[
    "dragonfly:p=1,a=4,h=2,g=5",
    "dragonfly:p=2,a=4,h=1,g=5",
    "dragonfly:p=1,a=3,h=2,g=4,arrangement=relative",
    "dragonfly:p=1,a=6,h=3,g=7,arrangement=relative",
];

#[test]
fn every_pair_within_three_hops_one_global() {
    for spec in SPECS {
        let fabric = Fabric::parse(spec).unwrap();
        let faults = Faults::none(&fabric);
        let routing = build("minimal", &fabric, &Faults::none(&fabric)).unwrap();
        let a = fabric.as_dragonfly().unwrap().shape().routers_per_group as u32;
        let mut path = Vec::new();
        let n = fabric.num_routers() as u32;
        for src in 0..n {
            for dst in 0..n {
                for k in 0..4 {
                    let req = RouteRequest {
                        entropy: message_entropy(7, k),
                        ..RouteRequest::new(&fabric, &faults)
                    };
                    routing.route_into(&req, src, dst, &mut path).unwrap();
                    check_path(&fabric, &faults, src, dst, &path).unwrap();
                    let global = hops_of_class(&fabric, &path, "global");
                    if src == dst {
                        assert!(path.is_empty());
                    } else if src / a == dst / a {
                        assert_eq!(path.len(), 1, "{spec}: {src}->{dst}");
                        assert_eq!(global, 0);
                    } else {
                        assert!(path.len() <= 3, "{spec}: {src}->{dst}: {path:?}");
                        assert_eq!(global, 1, "{spec}: {src}->{dst}");
                    }
                }
            }
        }
    }
}

#[test]
fn same_entropy_same_path_and_parallel_links_spread() {
    let fabric = Fabric::parse("dragonfly:p=1,a=4,h=4,g=5").unwrap();
    let faults = Faults::none(&fabric);
    let routing = build("minimal", &fabric, &Faults::none(&fabric)).unwrap();
    let df = fabric.as_dragonfly().unwrap();
    let (src, dst) = (0, 4 * 3 + 2);
    let mut used = HashSet::new();
    let (mut path, mut again) = (Vec::new(), Vec::new());
    for k in 0..200 {
        let req = RouteRequest {
            entropy: message_entropy(3, k),
            ..RouteRequest::new(&fabric, &faults)
        };
        routing.route_into(&req, src, dst, &mut path).unwrap();
        routing.route_into(&req, src, dst, &mut again).unwrap();
        assert_eq!(path, again);
        used.extend(
            path.iter()
                .copied()
                .filter(|c| df.global_channels(0, 3).contains(c)),
        );
    }
    assert_eq!(
        used.len(),
        df.shape().links_per_pair(),
        "every parallel link gets used"
    );
}
