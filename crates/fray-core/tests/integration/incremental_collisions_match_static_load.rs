//! After every substitution, the incremental collision tracker agrees with a from-scratch
//! static load count, and the placement stays a valid one-rank-per-healthy-node map.

use fray_core::fabric::{Cartesian, Fabric, LinkParameters};
use fray_core::faults::Faults;
use fray_core::routing::DimensionOrder;
use fray_core::sim::load::static_load;
use fray_core::spares::{CollisionTracker, Method, Placement, SpareAllocation, Substituter};
use fray_core::workload::{Stencil, StencilKind};
use proptest::prelude::*;

const METHODS: [&str; 6] = [
    "0D",
    "1D",
    "2D",
    "hybrid(all)",
    "hybrid(-2D)",
    "hybrid(2D+0D)",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn tracker_matches_static_load(
        dims in prop::collection::vec(3usize..7, 2..4),
        wrap in any::<bool>(),
        sides in 1usize..3,
        method in 0usize..METHODS.len(),
        picks in prop::collection::vec(any::<u32>(), 1..12),
        full in any::<bool>(),
    ) {
        let q = dims.len();
        let shape = Cartesian::new(dims.clone(), vec![wrap; q]);
        let alloc = SpareAllocation { dims: q, sides: sides.min(q), thickness: 1 };
        let method = Method::parse(METHODS[method], q).unwrap();
        let kind = match (q, full) {
            (2, false) => StencilKind::FiveP,
            (2, true) => StencilKind::NineP,
            (_, false) => StencilKind::SevenP,
            (_, true) => StencilKind::TwentySevenP,
        };
        let stencil = Stencil { kind, periodic: wrap };
        let fabric = Fabric::cartesian(shape.clone(), LinkParameters::default()).unwrap();
        let routing = DimensionOrder::new(&fabric).unwrap();
        let mut placement = Placement::initial(&shape, &alloc);
        let messages = stencil.messages(&alloc.compute_extents(&shape), 1.0).unwrap();
        let pairs = messages.iter().map(|m| (m.src, m.dst)).collect();
        let mut tracker = CollisionTracker::new(&routing, fabric.num_router_channels(), pairs, &placement);
        let mut substituter = Substituter::new(shape.clone(), alloc, method);
        let spares = alloc.num_spares(&shape);
        let ranks = placement.num_ranks() as u32;
        let mut failed_ranks = Vec::new();
        for pick in picks.into_iter().take(spares) {
            let rank = pick % ranks;
            if failed_ranks.contains(&rank) {
                continue;
            }
            let node = placement.fail_rank(rank);
            let Some(sub) = substituter.substitute(&placement, rank) else {
                placement.repair(node, rank);
                break;
            };
            failed_ranks.push(rank);
            placement.apply(&sub.moves);
            tracker.after_apply(&placement, &sub.moves);

            let fresh = static_load(&fabric, &Faults::none(&fabric), &routing, placement.rank_nodes(), &messages, 0).unwrap();
            let network = fabric.num_router_channels();
            prop_assert_eq!(&tracker.loads()[..network], &fresh.routes[..network]);
            prop_assert_eq!(tracker.max_collisions(), fresh.max_network_routes);
            // One rank per node, never on a failed node; free nodes = spares - failures.
            let mut seen = vec![false; shape.num_nodes()];
            for (r, &n) in placement.rank_nodes().iter().enumerate() {
                prop_assert!(!seen[n as usize], "two ranks on node {}", n);
                seen[n as usize] = true;
                prop_assert_eq!(placement.state(n), r as u32);
            }
            prop_assert_eq!(placement.free_nodes().len(), spares - failed_ranks.len());
        }
    }
}
