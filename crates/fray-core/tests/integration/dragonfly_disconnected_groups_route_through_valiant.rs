//! Two groups with every global cable between them failed: minimal routing reports each of
//! their pairs unroutable, naming the groups, while Valiant and UGAL still route all of them
//! through another group.

use crate::common;

use common::paths::{check_path, hops_of_class};
use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::{build, message_entropy, RouteRequest, RoutingError};

#[test]
fn cut_group_pair_routes_through_valiant_and_ugal() {
    for spec in [
        "dragonfly:p=1,a=4,h=2,g=5",
        "dragonfly:p=1,a=3,h=2,g=4,arrangement=relative",
    ] {
        let fabric = Fabric::parse(spec).unwrap();
        let a = fabric.as_dragonfly().unwrap().shape().routers_per_group as u32;
        let mut faults = Faults::none(&fabric);
        for &c in fabric.as_dragonfly().unwrap().global_channels(0, 1) {
            faults.fail_cable(&fabric, c).unwrap();
        }
        let minimal = build("minimal", &fabric, &Faults::none(&fabric)).unwrap();
        let (valiant, ugal) = (
            build("valiant", &fabric, &Faults::none(&fabric)).unwrap(),
            build("ugal", &fabric, &Faults::none(&fabric)).unwrap(),
        );
        let mut path = Vec::new();
        let pairs = (0..a).flat_map(|x| (a..2 * a).flat_map(move |y| [(x, y), (y, x)]));
        for (k, (src, dst)) in pairs.enumerate() {
            let req = RouteRequest {
                entropy: message_entropy(1, k as u64),
                ..RouteRequest::new(&fabric, &faults)
            };
            match minimal.route_into(&req, src, dst, &mut path) {
                Err(RoutingError::Unroutable { reason, .. }) => {
                    let (gs, gd) = (src / a, dst / a);
                    assert!(
                        reason.contains(&format!("from group {gs} to group {gd} are down")),
                        "{reason}"
                    );
                }
                other => panic!("{spec}: minimal {src}->{dst}: {other:?}"),
            }
            for routing in [&valiant, &ugal] {
                routing.route_into(&req, src, dst, &mut path).unwrap();
                check_path(&fabric, &faults, src, dst, &path).unwrap();
                assert_eq!(hops_of_class(&fabric, &path, "global"), 2);
            }
        }
    }
}
