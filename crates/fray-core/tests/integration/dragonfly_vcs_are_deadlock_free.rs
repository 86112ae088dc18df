//! The packet engine's dragonfly virtual-channel classes keep every route the dragonfly
//! routings take (minimal, Valiant, UGAL, inside one group and across groups, with failed
//! global cables) free of deadlock: the graph of (channel, class) dependencies has no cycle,
//! while the plain channel graph of the same routes has one, and so does the graph with
//! classes counted by global hops alone (Valiant detours inside a group, `l l`, close it).

use crate::common;

use common::deadlock::{
    add_route, engine_classes, for_each_endpoint_route, has_cycle, Dependencies,
};
use common::faults::random_cables;
use fray_core::fabric::{ChannelId, Fabric};
use fray_core::faults::Faults;
use fray_core::routing::build;
use fray_core::sim::packet::VcClasses;

/// Every endpoint pair's route under `routing` (a few random choices each), as dependencies
/// between consecutive channels: plain, with the engine's classes, and with classes counted
/// by global hops alone.
fn dependencies(
    fabric: &Fabric,
    faults: &Faults,
    routing: &str,
) -> [Dependencies<(ChannelId, u16)>; 3] {
    let router = build(routing, fabric, faults).unwrap();
    let classes = VcClasses::new(fabric, router.as_ref(), 3).unwrap();
    let global = fabric.class_id("global").unwrap();
    let is_global = |c: ChannelId| fabric.channels().class[c as usize] == global;
    let mut graphs: [Dependencies<(ChannelId, u16)>; 3] = Default::default();
    // Minimal routing cannot serve groups whose cables all failed: those pairs are skipped.
    for_each_endpoint_route(fabric, faults, router.as_ref(), 3, |path| {
        let globals_only: Vec<u16> = (0..path.len())
            .map(|h| path[..h].iter().filter(|&&c| is_global(c)).count() as u16)
            .collect();
        add_route(&mut graphs[0], path, &vec![0; path.len()]);
        add_route(&mut graphs[1], path, &engine_classes(&classes, path));
        add_route(&mut graphs[2], path, &globals_only);
    });
    graphs
}

#[test]
fn every_dragonfly_routing_is_deadlock_free_with_three_classes() {
    let fabric = Fabric::parse("dragonfly:p=1,a=4,h=2,g=5").unwrap();
    let faults = random_cables(&fabric, "global", 0.2, 7);
    let mut merged: [Dependencies<(ChannelId, u16)>; 3] = Default::default();
    for f in [&Faults::none(&fabric), &faults] {
        for routing in [
            "minimal",
            "valiant",
            "ugal",
            "ugal:links=adaptive",
            "ugal:credits=1,factor=0.5",
        ] {
            let graphs = dependencies(&fabric, f, routing);
            assert!(!has_cycle(&graphs[1]), "{routing}: the engine's classes");
            for (m, g) in merged.iter_mut().zip(graphs) {
                for (a, outs) in g {
                    m.entry(a).or_default().extend(outs);
                }
            }
        }
    }
    // Packets of every routing share the fabric at once (UGAL mixes minimal and Valiant).
    assert!(!has_cycle(&merged[1]), "all routings together");
    assert!(
        has_cycle(&merged[0]),
        "without classes the routes wait on each other"
    );
    assert!(
        has_cycle(&merged[2]),
        "classes by global hops alone leave the detours inside a group in a cycle"
    );
}
