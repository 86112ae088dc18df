//! Under random fault sets (a fraction of the global cables, some local cables, sometimes a
//! router) the dragonfly routings never use a failed channel or router, their paths are
//! contiguous, end at the destination and keep their hop bounds (minimal 3, Valiant and UGAL
//! 5), a failure is reported as `Unroutable`, and the same request gives the same answer
//! whatever fault states the routing saw before. A routing follows its fault state when
//! that changes between calls.

use crate::common;

use common::faults::random_cables;
use common::paths::check_path;
use fray_core::fabric::Fabric;
use fray_core::faults::{CableSelector, Faults};
use fray_core::routing::{build, message_entropy, RouteRequest, Routing, RoutingError};
use proptest::prelude::*;

const SPECS: &[&str] = &[
    "dragonfly:p=1,a=4,h=2,g=5",
    "dragonfly:p=1,a=3,h=2,g=4,arrangement=relative",
    "dragonfly:p=1,a=4,h=4,g=9,arrangement=relative",
    "dragonfly:p=1,a=2,h=3,g=7",
];

/// (routing name, hop bound)
const ROUTINGS: &[(&str, usize)] = &[
    ("minimal", 3),
    ("valiant", 5),
    ("ugal", 5),
    ("ugal:links=adaptive", 5),
    ("ugal:credits=32768", 5),
    ("ugal:credits=1,factor=0.5", 5),
];

proptest! {
    #[test]
    fn no_route_uses_a_failed_channel(
        spec in 0..SPECS.len(),
        global_fraction in 0.0f64..0.9,
        local_fraction in 0.0f64..0.3,
        routers_down in 0usize..3,
        seed in any::<u64>(),
    ) {
        let fabric = Fabric::parse(SPECS[spec]).unwrap();
        let n = fabric.num_routers() as u32;
        let mut faults = random_cables(&fabric, "global", global_fraction, seed);
        faults.fail_random_cables(&fabric, &CableSelector::parse("local"), local_fraction, seed ^ 1).unwrap();
        for k in 0..routers_down as u64 {
            faults.fail_router((message_entropy(seed, k) % u64::from(n)) as u32).unwrap();
        }
        for &(name, bound) in ROUTINGS {
            // `seen` has cached other fault states first; `fresh` has seen none.
            let seen = build(name, &fabric, &Faults::none(&fabric)).unwrap();
            for other in 0..5 {
                let f = random_cables(&fabric, "global", 0.5, other);
                let mut p = Vec::new();
                let _ = seen.route_into(&RouteRequest::new(&fabric, &f), 0, n - 1, &mut p);
            }
            let fresh = build(name, &fabric, &Faults::none(&fabric)).unwrap();
            let (mut path, mut again) = (Vec::new(), Vec::new());
            for src in 0..n {
                for dst in 0..n {
                    let req = RouteRequest {
                        entropy: message_entropy(seed, u64::from(src * n + dst)),
                        ..RouteRequest::new(&fabric, &faults)
                    };
                    let result = seen.route_into(&req, src, dst, &mut path);
                    let repeat = fresh.route_into(&req, src, dst, &mut again);
                    prop_assert_eq!(&result, &repeat, "{} {}->{}", name, src, dst);
                    match result {
                        Ok(()) => {
                            prop_assert_eq!(&path, &again);
                            let checked = check_path(&fabric, &faults, src, dst, &path);
                            prop_assert!(checked.is_ok(), "{} {}->{}: {:?}", name, src, dst, checked);
                            prop_assert!(path.len() <= bound, "{} {}->{}: {:?}", name, src, dst, path);
                        }
                        Err(RoutingError::Unroutable { .. }) => prop_assert!(path.is_empty()),
                        Err(other) => prop_assert!(false, "{}: {}", name, other),
                    }
                }
            }
        }
    }
}

#[test]
fn routing_follows_a_changed_fault_state() {
    let fabric = Fabric::parse("dragonfly:p=1,a=4,h=2,g=5").unwrap();
    let global = fabric.class_id("global").unwrap();
    let mut faults = Faults::none(&fabric);
    let before = faults.clone();
    assert_eq!(
        faults.down_fingerprint(),
        before.down_fingerprint(),
        "a clone is the same state"
    );
    for name in [
        "minimal",
        "valiant",
        "ugal",
        "ugal:links=adaptive",
        "ugal:credits=1,factor=0.5",
    ] {
        let routing: Box<dyn Routing> = build(name, &fabric, &Faults::none(&fabric)).unwrap();
        let mut path = Vec::new();
        let (src, dst) = (0, 19);
        // Fail each global channel a route takes, one at a time, until the pair is cut off
        // or every route avoids what failed so far.
        for _ in 0..fabric.num_router_channels() {
            let req = RouteRequest::new(&fabric, &faults);
            if routing.route_into(&req, src, dst, &mut path).is_err() {
                break;
            }
            check_path(&fabric, &faults, src, dst, &path).unwrap();
            let used = path
                .iter()
                .copied()
                .find(|&c| fabric.channels().class[c as usize] == global)
                .unwrap();
            let id = faults.down_fingerprint();
            faults.fail_cable(&fabric, used).unwrap();
            assert_ne!(faults.down_fingerprint(), id, "a change is a new state");
        }
    }
    assert_ne!(faults, before);
    let mut same = Faults::none(&fabric);
    same.fail_endpoint(0).unwrap();
    let mut other = Faults::none(&fabric);
    other.fail_endpoint(0).unwrap();
    assert_eq!(same, other);
    assert_eq!(
        same.down_fingerprint(),
        other.down_fingerprint(),
        "same down set, same fingerprint"
    );
}
