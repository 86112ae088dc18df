//! UGAL with adaptive global links, routed per packet, spreads a burst over the parallel
//! global links between two groups: every packet is routed as it leaves its endpoint, and
//! the packets a router has already routed to a port count on that port at once (they are
//! on their way to it or wait for it), so packets leaving at the same instant do not all see
//! the same idle port. Routed when posted, or seeing only the bytes already sent on a port,
//! they would tie on idle ports and be drawn at random, often onto the same link.

use crate::common;

use common::packets::simulate_clean;
use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core::routing::build;
use fray_core::sim::packet::PacketConfig;
use fray_core::workload::{DagBuilder, Job};

/// Four routers per group, two global links each, three groups: four parallel links
/// between every two groups, each held by another router.
const FABRIC: &str = "dragonfly:p=4,a=4,h=2,g=3";
/// Packet size of the runs, in bytes.
const PACKET: f64 = 256.0;

/// Packets on each global link from group 0 to group 1 after one-packet messages between
/// the endpoint pairs `messages` (sources on router 0 of group 0, destinations in group 1),
/// all posted at time 0; routing seed `seed`.
fn packets_per_link(messages: &[(u32, u32)], seed: u64) -> Vec<u64> {
    let fabric = Fabric::parse(FABRIC).unwrap();
    let faults = Faults::none(&fabric);
    let routing = build("ugal:links=adaptive,threshold=800", &fabric, &faults).unwrap();
    let mut endpoints: Vec<u32> = messages.iter().flat_map(|&(s, d)| [s, d]).collect();
    endpoints.sort_unstable();
    endpoints.dedup();
    let rank = |e: u32| endpoints.binary_search(&e).unwrap() as u32;
    let mut dag = DagBuilder::new(endpoints.len() as u32);
    for &(s, d) in messages {
        dag.send(rank(s), rank(d), PACKET, &[]).unwrap();
    }
    let job = Job::new("burst", dag.build(1).unwrap(), endpoints.clone(), &fabric).unwrap();
    let config = PacketConfig {
        route_per_packet: true,
        seed,
        ..PacketConfig::default()
    };
    let config = config.with_enough_vcs(&fabric, routing.as_ref());
    let r = simulate_clean(&fabric, &faults, routing.as_ref(), &[job], config).unwrap();
    assert_eq!(
        r.counters.bytes_delivered,
        messages.len() as u64 * PACKET as u64
    );
    let (global, ch) = (fabric.class_id("global").unwrap(), fabric.channels());
    let group = |router: u32| router / 4;
    let links: Vec<u64> = (0..ch.len())
        .filter(|&c| ch.class[c] == global && group(ch.src[c]) == 0 && group(ch.dst[c]) == 1)
        .map(|c| r.channel_bytes[c] / PACKET as u64)
        .collect();
    assert_eq!(links.len(), 4, "parallel links from group 0 to group 1");
    links
}

/// Group 1 holds endpoints 16 to 31, four on each of its routers.
const GROUP_1: [u32; 4] = [16, 20, 24, 28];

#[test]
fn four_endpoints_leaving_at_once_take_four_links() {
    let messages: Vec<(u32, u32)> = (0..4).map(|i| (i, GROUP_1[i as usize])).collect();
    for seed in 1..=8 {
        assert_eq!(packets_per_link(&messages, seed), vec![1; 4], "seed {seed}");
    }
}

#[test]
fn one_endpoints_queued_messages_take_four_links() {
    // Four messages from one endpoint leave one after another; each is routed as it
    // leaves, seeing where the ones before it went.
    let messages: Vec<(u32, u32)> = GROUP_1.iter().map(|&d| (0, d)).collect();
    for seed in 1..=8 {
        assert_eq!(packets_per_link(&messages, seed), vec![1; 4], "seed {seed}");
    }
}
