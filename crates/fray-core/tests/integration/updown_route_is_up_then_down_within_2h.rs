//! Up/down routes on fault-free XGFTs, every pair of switches and endpoints of small trees:
//! contiguous, up then down through a nearest common ancestor (NCA), `(L - ls) + (L - lt)`
//! switch-to-switch hops for NCA level `L` (so at most `2 (h - 1)` between level-1 switches
//! and `2 h` with the host channels), unroutable exactly when the two switches have no common
//! ancestor, and the NCA's parent digits are D-mod-k of the destination:
//! `x_j = floor(D / (w_1 .. w_{j-1})) mod w_j`.

use crate::fat_tree;

use fray_core::fabric::{Fabric, RouterId};
use fray_core::faults::Faults;
use fray_core::routing::{self, route_endpoints, RouteRequest};

const SHAPES: &[&str] = &[
    "xgft:1;4;1",
    "xgft:2;3,2;1,2",
    "xgft:3;4,4,2;1,4,2",
    "xgft:3;2,3,2;1,2,3",
    "xgft:3;1,2,1;1,3,2",
    "xgft:4;2,2,2,2;1,2,1,2",
];

#[test]
fn every_switch_pair() {
    for spec in SHAPES {
        let fabric = Fabric::parse(spec).unwrap();
        let tree = fat_tree::tree(&fabric);
        let h = tree.height();
        let faults = Faults::none(&fabric);
        let req = RouteRequest::new(&fabric, &faults);
        for name in ["updown", "updown-ft"] {
            let routing = routing::build(name, &fabric, &Faults::none(&fabric)).unwrap();
            let mut path = Vec::new();
            for s in 0..fabric.num_routers() as RouterId {
                for t in 0..fabric.num_routers() as RouterId {
                    let result = routing.route_into(&req, s, t, &mut path);
                    let Some(nca) = fat_tree::nca_level(&fabric, s, t) else {
                        assert!(result.is_err(), "{spec} {name}: S{s}->S{t} has no NCA");
                        continue;
                    };
                    result.unwrap();
                    let (ls, lt) = (tree.level_of(s), tree.level_of(t));
                    let peak = fat_tree::updown_peak(&fabric, s, t, &path);
                    assert_eq!(
                        peak, nca,
                        "{spec} {name}: S{s}->S{t} turns at the NCA level"
                    );
                    assert_eq!(path.len(), (nca - ls) + (nca - lt), "{spec}: S{s}->S{t}");
                    if ls == 1 && lt == 1 {
                        assert!(path.len() <= 2 * (h - 1));
                    }
                }
            }
        }
    }
}

#[test]
fn every_endpoint_pair_follows_dmodk() {
    for spec in SHAPES {
        let fabric = Fabric::parse(spec).unwrap();
        let tree = fat_tree::tree(&fabric);
        let (h, w) = (tree.height(), tree.shape().w());
        let faults = Faults::none(&fabric);
        let req = RouteRequest::new(&fabric, &faults);
        let ch = fabric.channels();
        for name in ["updown", "updown-ft"] {
            let routing = routing::build(name, &fabric, &Faults::none(&fabric)).unwrap();
            let mut path = Vec::new();
            for e in 0..fabric.num_endpoints() as u32 {
                for d in 0..fabric.num_endpoints() as u32 {
                    route_endpoints(routing.as_ref(), &req, e, d, &mut path).unwrap();
                    if e == d {
                        assert!(path.is_empty());
                        continue;
                    }
                    let (s, t) = (fabric.router_of(e), fabric.router_of(d));
                    let nca = fat_tree::nca_level(&fabric, s, t).unwrap();
                    assert_eq!(path.len(), 2 * nca, "{spec}: host channels included");
                    assert!(path.len() <= 2 * h);
                    let middle = &path[1..path.len() - 1];
                    assert_eq!(fat_tree::updown_peak(&fabric, s, t, middle), nca);
                    // The turning switch: the end of the last up channel (or `s` itself).
                    let turn = middle[..nca - 1].last().map_or(s, |&c| ch.dst[c as usize]);
                    let x = tree.digits(turn);
                    for j in 2..=nca {
                        let below: u32 = w[..j - 1].iter().product::<usize>() as u32;
                        assert_eq!(
                            x[j - 1],
                            (d / below) % w[j - 1] as u32,
                            "{spec} {name}: {e}->{d}, digit {j} of the NCA"
                        );
                    }
                }
            }
        }
    }
}
