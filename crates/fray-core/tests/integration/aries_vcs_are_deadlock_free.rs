//! On a Cray Aries machine a group is rows of routers, all-to-all along rows (green) and along
//! columns (black), so a dragonfly routing's "local hop" may be two cables, row then column or
//! column then row. The packet engine's classes keep every dragonfly routing free of deadlock
//! there too: the graph of (channel, class) dependencies has no cycle, while the classes of
//! all-to-all groups (global hops, plus one on a second local hop) leave one.

use crate::common;

use common::deadlock::{
    add_route, engine_classes, for_each_endpoint_route, has_cycle, Dependencies,
};
use common::faults::random_cables;
use fray_core::fabric::{AriesFabric, ChannelId, Fabric};
use fray_core::faults::Faults;
use fray_core::routing::build;
use fray_core::sim::packet::{VcClasses, ARIES_ROUTER_HOPS};

/// The wiring of a small Aries machine in `rtr --interconnect`'s format: `groups` groups of
/// `rows` chassis of `columns` slots, one router per slot and one node per router, green
/// cables along each chassis, black ones between the chassis of a slot, and `blue` optical
/// cables between every two groups from routers taken in turn.
fn aries_wiring(groups: usize, rows: usize, columns: usize, blue: usize) -> String {
    let mut ports = vec![0usize; groups * rows * columns];
    let mut lines = Vec::new();
    let name = |g: usize, r: usize, c: usize| format!("c{g}-0c{r}s{c}a0");
    let port = |ports: &mut Vec<usize>, g: usize, r: usize, c: usize| {
        let id = (g * rows + r) * columns + c;
        ports[id] += 1;
        format!("{}l{:02}({g}:{r}:{c})", name(g, r, c), ports[id] - 1)
    };
    let cable = |lines: &mut Vec<String>, colour: &str, a: String, b: String| {
        lines.push(format!("{a} {colour} -> {b}"));
        lines.push(format!("{b} {colour} -> {a}"));
    };
    for g in 0..groups {
        for r in 0..rows {
            for c in 0..columns {
                for c2 in c + 1..columns {
                    let (a, b) = (port(&mut ports, g, r, c), port(&mut ports, g, r, c2));
                    cable(&mut lines, "green", a, b);
                }
                for r2 in r + 1..rows {
                    let (a, b) = (port(&mut ports, g, r, c), port(&mut ports, g, r2, c));
                    cable(&mut lines, "black", a, b);
                }
            }
        }
    }
    let mut turn = vec![0usize; groups];
    for g in 0..groups {
        for h in g + 1..groups {
            for _ in 0..blue {
                let mut next = |g: usize| {
                    let k = turn[g] % (rows * columns);
                    turn[g] += 1;
                    (k / columns, k % columns)
                };
                let ((r, c), (r2, c2)) = (next(g), next(h));
                let (a, b) = (port(&mut ports, g, r, c), port(&mut ports, h, r2, c2));
                cable(&mut lines, "blue", a, b);
            }
        }
    }
    for g in 0..groups {
        for r in 0..rows {
            for c in 0..columns {
                for _ in 0..2 {
                    let p = port(&mut ports, g, r, c);
                    lines.push(format!("{p} ptile -> processor"));
                }
            }
        }
    }
    lines.join("\n") + "\n"
}

/// Every endpoint pair's route under each routing (a few random choices each), as
/// dependencies between consecutive channels: with the engine's classes, and with the
/// classes of all-to-all groups. Also counts the routes that take two local cables in a row
/// inside one group after a global one (row then column or column then row).
fn dependencies(
    fabric: &Fabric,
    faults: &Faults,
    routings: &[&str],
) -> ([Dependencies<(ChannelId, u16)>; 2], usize) {
    let blue = fabric.class_id("blue").unwrap();
    let ch = fabric.channels();
    let is_global = |c: ChannelId| ch.class[c as usize] == blue;
    let is_local = |c: ChannelId| (c as usize) < fabric.num_router_channels() && !is_global(c);
    let mut graphs: [Dependencies<(ChannelId, u16)>; 2] = Default::default();
    let mut two_local_after_global = 0;
    for routing in routings {
        let router = build(routing, fabric, faults).unwrap();
        let classes = VcClasses::new(fabric, router.as_ref(), ARIES_ROUTER_HOPS).unwrap();
        assert_eq!(classes.count_classes(), ARIES_ROUTER_HOPS, "{routing}");
        for_each_endpoint_route(fabric, faults, router.as_ref(), 4, |path| {
            let all_to_all: Vec<u16> = (0..path.len())
                .map(|h| {
                    let globals = path[..h].iter().filter(|&&c| is_global(c)).count();
                    let second = h > 0 && is_local(path[h]) && is_local(path[h - 1]);
                    (globals + usize::from(second)) as u16
                })
                .collect();
            two_local_after_global += usize::from((2..path.len()).any(|h| {
                is_local(path[h])
                    && is_local(path[h - 1])
                    && path[..h - 1].iter().any(|&c| is_global(c))
            }));
            add_route(&mut graphs[0], path, &engine_classes(&classes, path));
            add_route(&mut graphs[1], path, &all_to_all);
        });
    }
    (graphs, two_local_after_global)
}

#[test]
fn the_small_wiring_reads_as_an_aries_dragonfly() {
    let read = AriesFabric::parse(&aries_wiring(3, 2, 3, 2), "tiny-aries").unwrap();
    let f = &read.fabric;
    assert_eq!((f.num_routers(), f.num_endpoints()), (18, 18));
    let df = f.as_dragonfly().unwrap();
    assert_eq!((df.shape().routers_per_group, df.columns()), (6, 3));
    assert_eq!(df.links_per_pair(), 2);
    assert_eq!(f.cables_per_class(), [18, 18, 9, 6]);
}

#[test]
fn every_dragonfly_routing_on_aries_groups_is_deadlock_free() {
    let fabric = AriesFabric::parse(&aries_wiring(3, 2, 3, 2), "tiny-aries")
        .unwrap()
        .fabric;
    let failed = random_cables(&fabric, "black", 0.3, 3);
    let routings = ["minimal", "valiant", "ugal", "ugal:links=adaptive"];
    for faults in [Faults::none(&fabric), failed] {
        let ([engine, all_to_all], two_local) = dependencies(&fabric, &faults, &routings);
        assert!(
            two_local > 0,
            "some route takes two local cables after a global one"
        );
        assert!(!has_cycle(&engine), "the engine's classes");
        assert!(
            has_cycle(&all_to_all),
            "the classes of all-to-all groups leave a cycle on Aries groups"
        );
    }
}
