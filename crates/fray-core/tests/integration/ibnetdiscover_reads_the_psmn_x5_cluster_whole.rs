//! The ibnetdiscover output of a real cluster (PSMN X5, tests/data/README.md) loads whole:
//! 11 switches, 89 HCAs, 159 cables (70 switch-switch + 89 HCA-switch), every link 4 lanes at
//! QDR (8 Gb/s per lane) or DDR (4 Gb/s per lane), names and guids as documented.

use std::collections::VecDeque;
use std::path::PathBuf;

use fray_core::fabric::{Fabric, FileFormat, HcaPort, IbnetdiscoverFabric, Topology};

fn x5_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/psmn_X5_ibnetdiscover.topofile")
}

fn x5() -> IbnetdiscoverFabric {
    let path = x5_path();
    let text = std::fs::read_to_string(&path).unwrap();
    IbnetdiscoverFabric::parse(&text, &path.display().to_string()).unwrap()
}

#[test]
fn counts_switches_hcas_and_cables() {
    let fabric = Fabric::read(x5_path(), FileFormat::Ibnetdiscover).unwrap();
    assert_eq!(fabric.topology(), &Topology::Graph);
    assert_eq!(fabric.num_routers(), 11);
    assert_eq!(fabric.num_endpoints(), 89);
    assert_eq!(fabric.class_names(), ["host", "switch"]);
    let cables = fabric.cables_per_class();
    assert_eq!(cables, [89, 70]);
    assert_eq!(cables.iter().sum::<usize>(), 159);
    assert_eq!(fabric.num_router_channels(), 2 * 70);
    // Every switch port the file lists is one channel out of that switch.
    let degrees: Vec<usize> = (0..11).map(|r| fabric.out_channels(r).len()).collect();
    assert_eq!(degrees.iter().sum::<usize>(), 140);
}

#[test]
fn links_are_four_lanes_of_qdr_or_ddr() {
    let fabric = x5().fabric;
    let ch = fabric.channels();
    let lane_rate_bits_s = |c: usize| ch.bandwidth_bytes_s[c] * 8.0 / f64::from(ch.lanes[c]);
    assert!(ch.lanes.iter().all(|&l| l == 4));
    // Switch-to-switch cables are all QDR.
    for c in 0..fabric.num_router_channels() {
        assert_eq!(
            lane_rate_bits_s(c),
            8e9,
            "{}",
            fabric.channel_name(c as u32)
        );
    }
    // HCAs: 23 at 4xDDR (2 GB/s), 66 at 4xQDR (4 GB/s), the same both ways.
    let mut ddr = 0;
    for e in 0..fabric.num_endpoints() as u32 {
        let (inj, ej) = (
            fabric.injection_channel(e) as usize,
            fabric.ejection_channel(e) as usize,
        );
        assert_eq!(ch.bandwidth_bytes_s[inj], ch.bandwidth_bytes_s[ej]);
        let rate = lane_rate_bits_s(inj);
        assert!(rate == 4e9 || rate == 8e9, "{rate}");
        ddr += usize::from(rate == 4e9);
    }
    assert_eq!(ddr, 23);
    assert_eq!(
        ch.bandwidth_bytes_s.iter().filter(|&&b| b == 2e9).count(),
        2 * 23
    );
}

#[test]
fn names_by_unique_description_else_guid_and_keeps_guids() {
    let read = x5();
    let f = &read.fabric;
    // "Voltaire 4036 # hoibp0013" is one switch's own description: it names it.
    let r = f.router_by_name("Voltaire 4036 # hoibp0013").unwrap();
    assert_eq!(read.router_guids[r as usize], 0x0008f105002036b4);
    assert_eq!(read.router_by_guid(0x0008f105002036b4), Some(r));
    // "Voltaire 4036 - 36 QDR ports switch" is shared: those switches go by guid.
    let r = f.router_by_name("S-0008f10500108098").unwrap();
    assert_eq!(read.router_guids[r as usize], 0x0008f10500108098);
    assert!(f
        .router_by_name("Voltaire 4036 - 36 QDR ports switch")
        .is_err());
    // Every HCA says "MT25408 ConnectX Mellanox Technologies" and has one port connected.
    let e = f.endpoint_by_name("H-0002c90300080e84").unwrap();
    assert_eq!(
        read.endpoint_ports[e as usize],
        HcaPort {
            guid: 0x0002c90300080e84,
            port: 1
        }
    );
    assert_eq!(read.endpoint_by_port(0x0002c90300080e84, 1), Some(e));
    // ... cabled to port 27 of S-0008f10500108bba (the last line of the file).
    let sw = f.router_by_name("Voltaire 4036 # 4036-8BBA").unwrap();
    assert_eq!(f.router_of(e), sw);
    // Guids are all distinct, and so are the names.
    let mut names: Vec<&str> = (0..11).map(|r| f.router_name(r)).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 11);
    let mut hcas: Vec<u64> = read.endpoint_ports.iter().map(|p| p.guid).collect();
    hcas.sort_unstable();
    hcas.dedup();
    assert_eq!(hcas.len(), 89);
}

#[test]
fn every_part_is_reachable_from_every_other() {
    let f = x5().fabric;
    let mut seen = vec![false; f.num_routers()];
    let mut queue = VecDeque::from([0u32]);
    seen[0] = true;
    while let Some(r) = queue.pop_front() {
        for &c in f.out_channels(r) {
            let next = f.channels().dst[c as usize];
            if !std::mem::replace(&mut seen[next as usize], true) {
                queue.push_back(next);
            }
        }
    }
    assert!(seen.iter().all(|&s| s));
}
