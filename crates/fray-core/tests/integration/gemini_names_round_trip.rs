//! Gemini names, node ids and torus coordinates convert both ways on any machine shape.

use fray_core::fabric::gemini::{Gemini, GeminiName, NodeName};
use proptest::prelude::*;

fn shape() -> impl Strategy<Value = Gemini> {
    (1usize..9, 1usize..5, 1usize..25).prop_map(|(x, y, z)| Gemini::new([x, 2 * y, z]).unwrap())
}

proptest! {
    #[test]
    fn gemini_name_coordinates_round_trip(g in shape(), pick in any::<u32>()) {
        let r = pick % g.num_geminis() as u32;
        let name = g.gemini_name(r);
        let parsed: GeminiName = name.to_string().parse().unwrap();
        prop_assert_eq!(parsed, name);
        prop_assert_eq!(g.router_of(&parsed).unwrap(), r);
    }

    #[test]
    fn node_name_and_nid_round_trip(g in shape(), pick in any::<u32>()) {
        let e = pick % (2 * g.num_geminis()) as u32;
        let name = g.node_name(e);
        let parsed: NodeName = name.to_string().parse().unwrap();
        prop_assert_eq!(parsed, name);
        prop_assert_eq!(g.endpoint_of(&parsed).unwrap(), e);
        prop_assert_eq!(parsed.gemini(), g.gemini_name(e / 2));
        let nid = g.nid(&name);
        prop_assert_eq!(g.node_of_nid(nid).unwrap(), name);
        let written = format!("nid{nid:05}");
        prop_assert_eq!(fray_core::fabric::gemini::parse_nid(&written).unwrap(), nid);
    }

    #[test]
    fn nids_are_distinct(g in shape()) {
        let mut nids: Vec<u32> = (0..2 * g.num_geminis() as u32).map(|e| g.nid(&g.node_name(e))).collect();
        nids.sort_unstable();
        nids.dedup();
        prop_assert_eq!(nids.len(), 2 * g.num_geminis());
    }

    #[test]
    fn names_outside_the_machine_are_refused(g in shape(), extra in 0usize..3) {
        let [x, _, _] = g.dims();
        let name: GeminiName = format!("c{}-0c0s0g0", x + extra).parse().unwrap();
        prop_assert!(g.router_of(&name).is_err());
    }

    #[test]
    fn neighbours_in_the_fabric_are_torus_neighbours(g in shape(), pick in any::<u32>()) {
        let fabric = g.fabric(100e-9).unwrap();
        let r = pick % g.num_geminis() as u32;
        for &c in fabric.out_channels(r) {
            let next = fabric.channels().dst[c as usize];
            prop_assert_eq!(g.torus().hop_distance(r, next), 1);
        }
    }
}
