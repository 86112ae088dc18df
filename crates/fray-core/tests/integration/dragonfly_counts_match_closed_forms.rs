//! Dragonfly fabrics, the paper's among them, have the counts their parameters promise:
//! `a*g` routers, `p*a*g` endpoints, `g*a(a-1)/2` local cables, `g(g-1)/2 * a*h/(g-1)`
//! global cables, `a-1` local and `h` global ports on every router, and the same number of
//! global cables between every pair of groups; the coordinate tables agree with the channels.

use fray_core::fabric::{Fabric, FabricSpec};

struct Expected {
    spec: &'static str,
    p: usize,
    a: usize,
    h: usize,
    g: usize,
    links_per_pair: usize,
}

const CASES: &[Expected] = &[
    // The paper's 8,704-node machine: 4,352 global links, 32 per group pair.
    Expected {
        spec: "dragonfly:p=16,a=32,h=16,g=17",
        p: 16,
        a: 32,
        h: 16,
        g: 17,
        links_per_pair: 32,
    },
    // The paper's 33,280-endpoint machines: full, half and quarter global bandwidth.
    Expected {
        spec: "dragonfly:p=16,a=32,h=16,g=65",
        p: 16,
        a: 32,
        h: 16,
        g: 65,
        links_per_pair: 8,
    },
    Expected {
        spec: "dragonfly:p=16,a=32,h=8,g=65",
        p: 16,
        a: 32,
        h: 8,
        g: 65,
        links_per_pair: 4,
    },
    Expected {
        spec: "dragonfly:p=16,a=32,h=4,g=65",
        p: 16,
        a: 32,
        h: 4,
        g: 65,
        links_per_pair: 2,
    },
    Expected {
        spec: "dragonfly:p=2,a=4,h=2,g=9",
        p: 2,
        a: 4,
        h: 2,
        g: 9,
        links_per_pair: 1,
    },
    Expected {
        spec: "dragonfly:p=1,a=3,h=2,g=4,arrangement=relative",
        p: 1,
        a: 3,
        h: 2,
        g: 4,
        links_per_pair: 2,
    },
    Expected {
        spec: "dragonfly:p=3,a=1,h=6,g=3",
        p: 3,
        a: 1,
        h: 6,
        g: 3,
        links_per_pair: 3,
    },
];

#[test]
fn counts_match_closed_forms() {
    for e in CASES {
        let fabric = Fabric::parse(e.spec).unwrap();
        let df = fabric.as_dragonfly().unwrap();
        assert_eq!(df.shape().links_per_pair(), e.links_per_pair, "{}", e.spec);
        assert_eq!(e.a * e.h, e.links_per_pair * (e.g - 1), "{}", e.spec);
        assert_eq!(fabric.num_routers(), e.a * e.g, "{}", e.spec);
        assert_eq!(fabric.num_endpoints(), e.p * e.a * e.g, "{}", e.spec);
        let cables = fabric.cables_per_class();
        let (local, global) = (
            fabric.class_id("local").unwrap() as usize,
            fabric.class_id("global").unwrap() as usize,
        );
        assert_eq!(cables[local], e.g * e.a * (e.a - 1) / 2, "{}", e.spec);
        assert_eq!(
            cables[global],
            e.g * (e.g - 1) / 2 * e.links_per_pair,
            "{}",
            e.spec
        );
        let ch = fabric.channels();
        let group = |r: u32| r as usize / e.a;
        let mut per_pair = vec![0usize; e.g * e.g];
        for r in 0..fabric.num_routers() as u32 {
            let out = fabric.out_channels(r);
            let of = |class: usize| {
                out.iter()
                    .filter(move |&&c| ch.class[c as usize] as usize == class)
            };
            assert_eq!(of(local).count(), e.a - 1, "{}: router {r}", e.spec);
            assert_eq!(of(global).count(), e.h, "{}: router {r}", e.spec);
            for &c in of(local) {
                assert_eq!(group(ch.dst[c as usize]), group(r));
            }
            for &c in of(global) {
                let to = group(ch.dst[c as usize]);
                assert_ne!(to, group(r), "{}: a global cable inside a group", e.spec);
                per_pair[group(r) * e.g + to] += 1;
            }
            assert_eq!(
                fabric.router_name(r),
                format!("g{}r{}", group(r), r as usize % e.a)
            );
        }
        for i in 0..e.g {
            for j in (0..e.g).filter(|&j| j != i) {
                assert_eq!(
                    per_pair[i * e.g + j],
                    e.links_per_pair,
                    "{}: {i}->{j}",
                    e.spec
                );
                let table = df.global_channels(i, j);
                assert_eq!(table.len(), e.links_per_pair);
                for (m, &c) in table.iter().enumerate() {
                    assert_eq!(group(ch.src[c as usize]), i);
                    assert_eq!(group(ch.dst[c as usize]), j);
                    assert_eq!(ch.reverse[c as usize], df.global_channels(j, i)[m]);
                }
            }
        }
    }
}

#[test]
fn local_table_names_the_channel_between_each_pair() {
    let fabric = Fabric::parse("dragonfly:p=1,a=5,h=2,g=6").unwrap();
    let df = fabric.as_dragonfly().unwrap();
    let ch = fabric.channels();
    for x in 0..fabric.num_routers() as u32 {
        for y in (0..fabric.num_routers() as u32).filter(|&y| y != x && y / 5 == x / 5) {
            let c = df.local_channel(x, y) as usize;
            assert_eq!((ch.src[c], ch.dst[c]), (x, y));
        }
    }
}

/// The groups the global ports of router `index` of group `group` go to, in port order.
fn port_groups(fabric: &Fabric, group: u32, index: u32) -> Vec<u32> {
    let a = fabric.as_dragonfly().unwrap().shape().routers_per_group as u32;
    let global = fabric.class_id("global").unwrap();
    let ch = fabric.channels();
    fabric
        .out_channels(group * a + index)
        .iter()
        .filter(|&&c| ch.class[c as usize] == global)
        .map(|&c| ch.dst[c as usize] / a)
        .collect()
}

#[test]
fn arrangements_wire_ports_as_documented() {
    // One cable per pair: group 2's four ports (two per router) go to its list of others.
    let absolute = Fabric::parse("dragonfly:p=1,a=2,h=2,g=5").unwrap();
    assert_eq!(port_groups(&absolute, 0, 0), [1, 2]);
    assert_eq!(port_groups(&absolute, 0, 1), [3, 4]);
    assert_eq!(port_groups(&absolute, 2, 0), [0, 1]);
    assert_eq!(port_groups(&absolute, 2, 1), [3, 4]);
    let relative = Fabric::parse("dragonfly:p=1,a=2,h=2,g=5,arrangement=relative").unwrap();
    assert_eq!(port_groups(&relative, 2, 0), [3, 4]);
    assert_eq!(port_groups(&relative, 2, 1), [0, 1]);
    assert_eq!(port_groups(&relative, 4, 1), [2, 3]);
    // Two cables per pair: the list of others is walked twice, ports 0..3 then 4..7.
    let twice = Fabric::parse("dragonfly:p=1,a=4,h=2,g=5").unwrap();
    let all: Vec<u32> = (0..4).flat_map(|r| port_groups(&twice, 1, r)).collect();
    assert_eq!(all, [0, 2, 3, 4, 0, 2, 3, 4]);
}

#[test]
fn uneven_split_names_the_numbers() {
    let err = "dragonfly:p=16,a=32,h=16,g=16"
        .parse::<FabricSpec>()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(
            "a*h = 32*16 = 512 global ports per group do not split evenly over g-1 = 15 other \
             groups"
        ),
        "{err}"
    );
}
