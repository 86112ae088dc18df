//! ibnetdiscover output (tests/data/two_leaves.topofile): switches named by their unique
//! descriptions, one endpoint per connected HCA port named with its port when the HCA has
//! several, endpoints in router-port order, each cable built once with its own width x speed;
//! routers (`Rt`), `ibnetdiscover -g` lines and CRLF line ends are read too.

use std::path::PathBuf;

use fray_core::fabric::{Fabric, HcaPort, IbnetdiscoverFabric};

fn two_leaves_text() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/two_leaves.topofile");
    std::fs::read_to_string(path).unwrap()
}

fn parse(text: &str) -> IbnetdiscoverFabric {
    IbnetdiscoverFabric::parse(text, "two_leaves.topofile").unwrap()
}

fn host_bandwidth(f: &Fabric, name: &str) -> (u16, f64) {
    let c = f.injection_channel(f.endpoint_by_name(name).unwrap()) as usize;
    (f.channels().lanes[c], f.channels().bandwidth_bytes_s[c])
}

#[test]
fn names_and_places_every_part() {
    let read = parse(&two_leaves_text());
    let f = &read.fabric;
    assert_eq!(f.num_routers(), 2);
    assert_eq!((f.router_name(0), f.router_name(1)), ("leaf-a", "leaf-b"));
    assert_eq!(read.router_guids, [0x10, 0x20]);
    let names: Vec<&str> = (0..3).map(|e| f.endpoint_name(e)).collect();
    // leaf-b's port 3 holds node2's port 2, its port 4 node2's port 1.
    assert_eq!(
        names,
        ["node1 mlx5_0", "node2 mlx5_0[2]", "node2 mlx5_0[1]"]
    );
    assert_eq!(
        read.endpoint_ports,
        [
            HcaPort {
                guid: 0x100,
                port: 1
            },
            HcaPort {
                guid: 0x200,
                port: 2
            },
            HcaPort {
                guid: 0x200,
                port: 1
            },
        ]
    );
    assert_eq!((f.router_of(0), f.router_of(1), f.router_of(2)), (0, 1, 1));
}

#[test]
fn each_cable_once_with_its_width_and_speed() {
    let f = parse(&two_leaves_text()).fabric;
    // Two parallel switch cables, listed from both ends, built once each.
    assert_eq!(f.class_names(), ["host", "switch"]);
    assert_eq!(f.cables_per_class(), [3, 2]);
    for c in f.channels_between(0, 1) {
        let c = c as usize;
        assert_eq!(f.channels().lanes[c], 4);
        assert!((f.channels().bandwidth_bytes_s[c] - 12.5e9).abs() < 1.0); // 4 x 25 Gb/s
    }
    // 2xHDR: 2 lanes x 50 Gb/s; 4xFDR: 4 x 14.0625 x 64/66 Gb/s.
    assert_eq!(host_bandwidth(&f, "node2 mlx5_0[2]"), (2, 12.5e9));
    let (lanes, fdr) = host_bandwidth(&f, "node2 mlx5_0[1]");
    assert_eq!(lanes, 4);
    assert!((fdr - 4.0 * 14.0625e9 * 64.0 / 66.0 / 8.0).abs() < 1.0);
    assert!(f.channels().latency_s.iter().all(|&l| l == 100e-9));
}

#[test]
fn shared_descriptions_fall_back_to_guids() {
    let text = two_leaves_text()
        .replace("\"leaf-b\" enhanced", "\"leaf-a\" enhanced")
        .replace(
            "Ca\t2 \"H-0000000000000200\"\t\t# \"node2 mlx5_0\"",
            "Ca\t2 \"H-0000000000000200\"\t\t# \"\"",
        );
    let f = parse(&text).fabric;
    assert_eq!(f.router_name(0), "S-0000000000000010");
    assert_eq!(f.router_name(1), "S-0000000000000020");
    assert_eq!(f.endpoint_name(0), "node1 mlx5_0");
    assert_eq!(f.endpoint_name(1), "H-0000000000000200[2]");
}

#[test]
fn reads_routers_group_lines_and_crlf() {
    // An InfiniBand router between the two leaves, in the HCA-style port format.
    let text = two_leaves_text()
        .replace(
            "[2]\t\"S-0000000000000020\"[2]\t\t# \"leaf-b\" lid 2 4xEDR",
            "[2]\t\"R-0000000000000300\"[1](301) \t\t# \"gw\" lid 9 4xEDR",
        )
        .replace(
            "[2]\t\"S-0000000000000010\"[2]\t\t# \"leaf-a\" lid 1 4xEDR",
            "[2]\t\"R-0000000000000300\"[2](302) \t\t# \"gw\" lid 9 4xEDR",
        )
        + "\nrtguid=0x300\nRt\t2 \"R-0000000000000300\"\t\t# \"gw\"\n\
         [1](301) \t\"S-0000000000000010\"[2]\t\t# lid 9 lmc 0 \"leaf-a\" lid 1 4xEDR\n\
         [2](302) \t\"S-0000000000000020\"[2]\t\t# lid 9 lmc 0 \"leaf-b\" lid 2 4xEDR\n";
    let grouped = format!(
        "Chassis 1 (guid 0x10)\n# Spine Nodes\nHostname: leaf\n{text}\nNon-Chassis Nodes\n"
    )
    .replace("[4]\t", "[4][ext 7]\t");
    let crlf = grouped.replace('\n', "\r\n");
    for text in [text, grouped, crlf] {
        let read = parse(&text);
        let f = &read.fabric;
        assert_eq!(f.num_routers(), 3);
        assert_eq!(f.router_name(2), "gw");
        assert_eq!(read.router_by_guid(0x300), Some(2));
        assert_eq!(f.cables_per_class(), [3, 3]);
        assert_eq!(f.channels_between(0, 2).count(), 1);
        assert_eq!(f.channels_between(2, 1).count(), 1);
    }
}
