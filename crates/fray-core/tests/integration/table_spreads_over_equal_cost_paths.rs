//! Table routing spreads messages between one pair over the equal-cost paths by their
//! entropy (parallel cables count as separate paths), gives the same path for the same
//! entropy, and with a congestion signal takes the least congested candidate.

use std::collections::HashSet;

use fray_core::fabric::{ChannelId, Fabric, FabricBuilder, LinkParameters, Topology};
use fray_core::faults::Faults;
use fray_core::routing::{message_entropy, Congestion, RouteRequest, Routing, TableRouting};

/// The paths `count` messages from `src` to `dst` take, message `k` with entropy
/// `message_entropy(7, k)`.
fn paths(
    fabric: &Fabric,
    congestion: &dyn Congestion,
    src: u32,
    dst: u32,
    count: u64,
) -> Vec<Vec<ChannelId>> {
    let faults = Faults::none(fabric);
    let table = TableRouting::new(fabric, &faults).unwrap();
    (0..count)
        .map(|k| {
            let req = RouteRequest {
                congestion,
                entropy: message_entropy(7, k),
                ..RouteRequest::new(fabric, &faults)
            };
            let mut path = Vec::new();
            table.route_into(&req, src, dst, &mut path).unwrap();
            path
        })
        .collect()
}

/// Congestion given per channel.
struct Loads(Vec<f64>);

impl Congestion for Loads {
    fn congestion(&self, channel: ChannelId) -> f64 {
        self.0[channel as usize]
    }
}

#[test]
fn messages_between_opposite_corners_spread_and_repeat_by_entropy() {
    let fabric = Fabric::parse("mesh:5x5").unwrap();
    let idle = Loads(vec![0.0; fabric.channels().len()]);
    let routes = paths(&fabric, &idle, 0, 24, 200);
    assert!(
        routes.iter().all(|p| p.len() == 8),
        "every route is minimal"
    );
    let distinct: HashSet<&Vec<ChannelId>> = routes.iter().collect();
    assert!(
        distinct.len() > 1,
        "200 messages took {} path(s)",
        distinct.len()
    );
    let first_hops: HashSet<ChannelId> = routes.iter().map(|p| p[0]).collect();
    assert_eq!(first_hops.len(), 2, "both ways out of the corner are used");
    assert_eq!(
        routes,
        paths(&fabric, &idle, 0, 24, 200),
        "same entropy, same path"
    );
}

#[test]
fn parallel_cables_are_separate_candidates() {
    let mut b = FabricBuilder::new(3);
    let class = b.class("cable");
    for _ in 0..3 {
        b.cable(0, 1, class, LinkParameters::default()).unwrap();
    }
    b.cable(1, 2, class, LinkParameters::default()).unwrap();
    let fabric = b.build(Topology::Graph).unwrap();
    let idle = Loads(vec![0.0; fabric.channels().len()]);
    let used: HashSet<ChannelId> = paths(&fabric, &idle, 0, 2, 100)
        .iter()
        .map(|p| p[0])
        .collect();
    let cables: HashSet<ChannelId> = fabric.channels_between(0, 1).collect();
    assert_eq!(used, cables);
}

#[test]
fn the_least_congested_candidate_wins_and_ties_spread() {
    // 2x2 mesh: routers 0 1 / 2 3; from 0 to 3 through 1 or through 2.
    let fabric = Fabric::parse("mesh:2x2").unwrap();
    let via_1 = fabric.channel_between(0, 1).unwrap();
    let via_2 = fabric.channel_between(0, 2).unwrap();
    let mut loads = vec![0.0; fabric.channels().len()];
    loads[via_1 as usize] = 3.0;
    loads[via_2 as usize] = 1.0;
    let routes = paths(&fabric, &Loads(loads.clone()), 0, 3, 50);
    assert!(routes.iter().all(|p| p[0] == via_2));
    // Equal loads: both ways again.
    loads[via_2 as usize] = 3.0;
    let first: HashSet<ChannelId> = paths(&fabric, &Loads(loads), 0, 3, 50)
        .iter()
        .map(|p| p[0])
        .collect();
    assert_eq!(first, HashSet::from([via_1, via_2]));
}
