//! Hop-indexed virtual channels make table routing deadlock-free: on a torus (and under
//! faults) the channel dependency graph of all table routes has a cycle, the graph over
//! (channel, VC) pairs has none, and no hop needs a VC beyond `required_vcs()`.

use crate::common;

use common::faults::random_cables;
use std::collections::HashMap;

use common::deadlock::{for_each_route, has_cycle, Dependencies};
use common::live_graph::irregular_fabric;
use fray_core::fabric::{ChannelId, Fabric};
use fray_core::faults::Faults;
use fray_core::routing::{hop_index_vcs, Routing, TableRouting};

/// The dependencies of every routable pair's route (a few entropies each): between
/// consecutive channels, and between consecutive (channel, VC) pairs.
fn dependencies(
    fabric: &Fabric,
    faults: &Faults,
) -> (
    Dependencies<ChannelId>,
    Dependencies<(ChannelId, u32)>,
    usize,
) {
    let table = TableRouting::new(fabric, faults).unwrap();
    let (mut plain, mut with_vcs) = (HashMap::new(), HashMap::new());
    let vcs = table.required_vcs();
    for_each_route(
        fabric,
        faults,
        fabric.num_routers() as u32,
        4,
        |req, src, dst, path| table.route_into(req, src, dst, path).is_ok(),
        |path| {
            let hops: Vec<(ChannelId, u32)> = hop_index_vcs(path).collect();
            assert_eq!(hops.len(), path.len());
            for (k, &(c, vc)) in hops.iter().enumerate() {
                assert_eq!((c, vc as usize), (path[k], k));
                assert!((vc as usize) < vcs);
            }
            for w in hops.windows(2) {
                plain.entry(w[0].0).or_insert_with(Vec::new).push(w[1].0);
                with_vcs.entry(w[0]).or_insert_with(Vec::new).push(w[1]);
            }
        },
    );
    (plain, with_vcs, table.required_vcs())
}

#[test]
fn torus_routes_need_their_diameter_in_vcs_and_then_have_no_cycle() {
    let fabric = Fabric::parse("torus:6x6").unwrap();
    let (plain, with_vcs, vcs) = dependencies(&fabric, &Faults::none(&fabric));
    assert_eq!(vcs, 6, "the 6x6 torus's diameter: 3 + 3");
    assert!(
        has_cycle(&plain),
        "minimal routes around a ring depend on each other in a cycle"
    );
    assert!(!has_cycle(&with_vcs));
}

#[test]
fn faulty_and_irregular_fabrics_have_no_cycle_with_vcs() {
    let torus = Fabric::parse("torus:5x4").unwrap();
    let mut faults = random_cables(&torus, "router", 0.2, 3);
    faults.fail_router(7).unwrap();
    let (_, with_vcs, _) = dependencies(&torus, &faults);
    assert!(!has_cycle(&with_vcs));

    // A ring of 7 with a chord and a parallel cable.
    let pairs: Vec<(u32, u32)> = (0..7)
        .map(|i| (i, (i + 1) % 7))
        .chain([(0, 3), (0, 1)])
        .collect();
    let ring = irregular_fabric(7, &pairs);
    let (plain, with_vcs, vcs) = dependencies(&ring, &Faults::none(&ring));
    assert_eq!(vcs, 3);
    assert!(has_cycle(&plain));
    assert!(!has_cycle(&with_vcs));
}
