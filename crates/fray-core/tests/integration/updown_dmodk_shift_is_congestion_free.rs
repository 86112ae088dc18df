//! D-mod-k on a full fat tree (`w_l = m_{l-1}` for `l >= 2`, `w_1 = 1`) routes every shift
//! permutation `i -> (i + k) mod N` with at most one route per directed channel (host channels
//! included). On a slimmed two-level tree `XGFT(2; m1, m2; 1, w2)` with `w2 | m1`, every
//! shift puts at most `m1 / w2` routes on a network channel, exactly that many when `k` is a
//! multiple of `m1` (whole level-1 switches talk to each other).

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing;
use fray_core::sim::load::{static_load, LoadReport};
use fray_core::workload::Message;

fn shift_load(fabric: &Fabric, name: &str, k: usize) -> LoadReport {
    let n = fabric.num_endpoints();
    let messages: Vec<Message> = (0..n)
        .map(|i| Message {
            src: i as u32,
            dst: ((i + k) % n) as u32,
            size_bytes: 1.0,
        })
        .collect();
    let placement: Vec<u32> = (0..n as u32).collect();
    let routing = routing::build(name, fabric, &Faults::none(fabric)).unwrap();
    let faults = Faults::none(fabric);
    static_load(fabric, &faults, routing.as_ref(), &placement, &messages, 0).unwrap()
}

#[test]
fn full_fat_trees_route_every_shift_without_sharing_a_channel() {
    for spec in [
        "xgft:2;4,4;1,4",
        "xgft:2;3,5;1,3",
        "xgft:3;4,4,4;1,4,4",
        "xgft:3;2,3,4;1,2,3",
        "xgft:3;3,2,2;1,3,2",
        "xgft:4;2,2,2,2;1,2,2,2",
    ] {
        let fabric = Fabric::parse(spec).unwrap();
        for name in ["updown", "updown-ft"] {
            for k in 1..fabric.num_endpoints() {
                let load = shift_load(&fabric, name, k);
                assert_eq!(load.max_routes, 1, "{spec} {name}: shift {k}");
            }
        }
    }
}

#[test]
fn slimmed_two_level_trees_share_channels_m1_over_w2_ways() {
    for (spec, m1, w2) in [
        ("xgft:2;4,4;1,2", 4, 2),
        ("xgft:2;6,3;1,3", 6, 3),
        ("xgft:2;6,4;1,2", 6, 2),
    ] {
        let fabric = Fabric::parse(spec).unwrap();
        for k in 1..fabric.num_endpoints() {
            let load = shift_load(&fabric, "updown", k);
            let ways = (m1 / w2) as u32;
            assert!(load.max_network_routes <= ways, "{spec}: shift {k}");
            if k % m1 == 0 {
                assert_eq!(load.max_network_routes, ways, "{spec}: shift {k}");
            }
        }
    }
}
