//! `Faults::down_fingerprint` depends on the set of down routers and channels only: not on
//! the order they failed in, not on failed endpoints or lanes lost short of a whole channel;
//! different sets give different fingerprints.

use fray_core::fabric::{Fabric, FabricBuilder, LinkParameters, Topology};
use fray_core::faults::Faults;
use proptest::prelude::*;

/// A cable or a router to fail.
#[derive(Debug, Clone, Copy)]
enum Part {
    Cable(u32),
    Router(u32),
}

fn fail(fabric: &Fabric, faults: &mut Faults, part: Part) {
    match part {
        Part::Cable(c) => faults.fail_cable(fabric, c).unwrap(),
        Part::Router(r) => faults.fail_router(r).unwrap(),
    }
}

proptest! {
    #[test]
    fn order_does_not_matter(
        picks in prop::collection::vec((any::<bool>(), 0u32..1000), 0..20),
        shuffle in any::<u64>(),
    ) {
        let fabric = Fabric::parse("torus:5x5").unwrap();
        let parts: Vec<Part> = picks
            .iter()
            .map(|&(cable, k)| if cable {
                Part::Cable(k % fabric.num_router_channels() as u32)
            } else {
                Part::Router(k % 25)
            })
            .collect();
        let mut forward = Faults::none(&fabric);
        for &p in &parts {
            fail(&fabric, &mut forward, p);
        }
        // Another order, and every part failed twice.
        let mut order: Vec<usize> = (0..parts.len()).collect();
        order.sort_by_key(|&i| (i as u64).wrapping_mul(shuffle | 1).rotate_left(17));
        let mut other = Faults::none(&fabric);
        for &i in order.iter().chain(&order) {
            fail(&fabric, &mut other, parts[i]);
        }
        prop_assert_eq!(&forward, &other);
        prop_assert_eq!(forward.down_fingerprint(), other.down_fingerprint());
        prop_assert_eq!(forward.down_fingerprint() == 0, parts.is_empty());
    }
}

#[test]
fn each_down_part_changes_it_and_endpoints_and_partial_lanes_do_not() {
    let mut b = FabricBuilder::new(3);
    let class = b.class("cable");
    let four_lanes = LinkParameters {
        lanes: 4,
        ..LinkParameters::default()
    };
    b.cable(0, 1, class, four_lanes).unwrap();
    b.cable(1, 2, class, four_lanes).unwrap();
    b.endpoints_everywhere(1, LinkParameters::default())
        .unwrap();
    let fabric = b.build(Topology::Graph).unwrap();

    let mut faults = Faults::none(&fabric);
    assert_eq!(faults.down_fingerprint(), 0);
    faults.fail_endpoint(1).unwrap();
    faults.lose_lanes(&fabric, 0, 3).unwrap();
    assert_eq!(faults.down_fingerprint(), 0, "no router or channel is down");

    // Every single part down gives its own fingerprint, and none is 0.
    let mut seen = vec![0];
    for c in 0..fabric.num_router_channels() as u32 {
        let mut f = Faults::none(&fabric);
        f.lose_lanes(&fabric, c, 4).unwrap(); // one direction, all lanes
        seen.push(f.down_fingerprint());
    }
    for r in 0..3 {
        let mut f = Faults::none(&fabric);
        f.fail_router(r).unwrap();
        seen.push(f.down_fingerprint());
    }
    let count = seen.len();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), count);
}
