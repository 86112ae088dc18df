//! A fabric in fray's JSON format (tests/data/two_level.json, the example of
//! docs/fabrics-json.md) builds exactly what it describes: routers, endpoint names, parallel
//! cables per class, and each link's parameters taken from the entry, then its class, then the
//! defaults.

use std::path::PathBuf;

use fray_core::fabric::{ChannelId, Fabric, FileFormat, LinkParameters, Topology};

fn two_level() -> Fabric {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/two_level.json");
    Fabric::read(path, FileFormat::Json).unwrap()
}

fn link(f: &Fabric, c: ChannelId) -> LinkParameters {
    let ch = f.channels();
    let c = c as usize;
    LinkParameters {
        bandwidth_bytes_s: ch.bandwidth_bytes_s[c],
        latency_s: ch.latency_s[c],
        lanes: ch.lanes[c],
    }
}

fn params(bandwidth_bytes_s: f64, latency_s: f64, lanes: u16) -> LinkParameters {
    LinkParameters {
        bandwidth_bytes_s,
        latency_s,
        lanes,
    }
}

#[test]
fn routers_classes_and_cables() {
    let f = two_level();
    assert_eq!(f.topology(), &Topology::Graph);
    assert_eq!(f.num_routers(), 3);
    assert_eq!(
        (0..3).map(|r| f.router_name(r)).collect::<Vec<_>>(),
        ["leaf0", "leaf1", "spine0"]
    );
    // host first, then the declared classes in order, then switch when a link uses it.
    assert_eq!(f.class_names(), ["host", "spine", "local", "switch"]);
    assert_eq!(f.cables_per_class(), [9, 4, 1, 1]);
    assert_eq!(f.channels_between(0, 2).count(), 2);
    assert_eq!(f.channels_between(1, 2).count(), 2);
    assert_eq!(f.channels_between(0, 1).count(), 2);
}

#[test]
fn endpoints_are_named_and_placed() {
    let f = two_level();
    let names: Vec<&str> = (0..f.num_endpoints() as u32)
        .map(|e| f.endpoint_name(e))
        .collect();
    assert_eq!(
        names,
        ["login", "n0", "n1", "n2", "m0", "m1", "m2", "m3", "leaf1/4"]
    );
    assert_eq!(f.endpoints_of(0), 0..4);
    assert_eq!(f.endpoints_of(1), 4..9);
    assert_eq!(f.endpoints_of(2), 9..9);
}

#[test]
fn each_parameter_comes_from_the_entry_then_its_class_then_the_default() {
    let f = two_level();
    let host = |name: &str| link(&f, f.injection_channel(f.endpoint_by_name(name).unwrap()));
    // Class host: 4 lanes x 25 Gb/s, 50 ns.
    assert_eq!(host("login"), params(12.5e9, 50e-9, 4));
    // lanes 2 of the entry times the class's lane rate.
    assert_eq!(host("m3"), params(6.25e9, 50e-9, 2));
    // The entry's bandwidth and latency, the class's lanes.
    assert_eq!(host("leaf1/4"), params(12.5e9, 80e-9, 4));
    // Ejection is the same link the other way.
    let e = f.endpoint_by_name("m0").unwrap();
    assert_eq!(link(&f, f.ejection_channel(e)), host("m0"));

    let (leaf0, leaf1, spine) = (0, 1, 2);
    for c in f.channels_between(leaf0, spine) {
        assert_eq!(link(&f, c), params(12.5e9, 100e-9, 4));
    }
    for c in f.channels_between(spine, leaf1) {
        assert_eq!(link(&f, c), params(12.5e9, 150e-9, 4));
    }
    let class_of = |c: ChannelId| f.class_names()[f.channels().class[c as usize] as usize].as_str();
    for c in f.channels_between(leaf0, leaf1) {
        match class_of(c) {
            "local" => assert_eq!(link(&f, c), params(25e9, 20e-9, 1)),
            "switch" => assert_eq!(link(&f, c), LinkParameters::default()),
            other => panic!("unexpected class {other}"),
        }
    }
}

#[test]
fn the_smallest_file_is_routers_alone() {
    let f = Fabric::read_str(r#"{"routers": ["only"]}"#, "min.json", FileFormat::Json).unwrap();
    assert_eq!((f.num_routers(), f.num_endpoints()), (1, 0));
    assert_eq!(f.class_names(), ["host"]);
}
