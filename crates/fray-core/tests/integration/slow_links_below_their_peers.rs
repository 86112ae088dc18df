//! On the PSMN X5 InfiniBand fabric, the cables that run below the width or speed of the
//! other cables of their class at the same switches are named; a uniform fabric has none.

use std::path::PathBuf;

use fray_core::diag::slow_links;
use fray_core::fabric::{Fabric, FileFormat};

#[test]
fn x5_links_below_their_peers() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/psmn_X5_ibnetdiscover.topofile");
    let fabric = Fabric::read(path, FileFormat::Ibnetdiscover).unwrap();
    let slow = slow_links(&fabric);
    let ch = fabric.channels();
    // Every flagged cable is slower per lane or narrower than its peers' most common shape.
    for s in &slow {
        assert!(
            s.lanes < s.peer_lanes || s.lane_bits_s < s.peer_lane_bits_s,
            "{s:?}"
        );
        assert!(s.peers > 0);
    }
    // Every DDR cable at a switch whose other cables of its class are mostly QDR is flagged.
    let ddr = (0..ch.len())
        .filter(|&c| c < ch.reverse[c] as usize)
        .filter(|&c| ch.bandwidth_bytes_s[c] * 8.0 / f64::from(ch.lanes[c]) < 5e9)
        .count();
    assert_eq!(ddr, 23);
    // Most DDR cables hang on switches of DDR cables; two HCAs run DDR among QDR peers.
    let names: Vec<&str> = slow.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "H-003048c74e4a0000->Voltaire 4036 # 4036-8BBA",
            "H-003048c7488b0000->Voltaire 4036 # 4036-8BBA"
        ]
    );
    assert!(slow
        .iter()
        .all(|s| s.lane_bits_s == 4e9 && s.peer_lane_bits_s == 8e9));
    assert!(slow_links(&Fabric::parse("torus:4x4").unwrap()).is_empty());
}
