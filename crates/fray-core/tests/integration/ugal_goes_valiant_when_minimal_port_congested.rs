//! UGAL-L at the source router: with no congestion it routes exactly as minimal does; with
//! the minimal path's first channel congested (`q_min * H_min > q_val * H_val`) it takes the
//! Valiant path instead. With adaptive global links (SST merlin's rule: direct `q`, Valiant
//! `2 q + T`) it takes the lightest of the parallel links, leaves a congested port for
//! Valiant below the threshold, and splits an idle fabric between the two when `T = 0`.
//! With merlin's adaptive-local rule (`credits=B`) it goes Valiant exactly when the Valiant
//! port has more than `F` times the direct port's free buffer space, and of two parallel
//! links it takes the roomier.

use crate::common;

use common::faults::random_cables;
use common::paths::{check_path, hops_of_class};
use fray_core::fabric::{ChannelId, Fabric};
use fray_core::faults::Faults;
use fray_core::routing::{build, message_entropy, Congestion, RouteRequest, Routing};

/// Congestion on one channel only.
struct OneBusyChannel(ChannelId);

impl Congestion for OneBusyChannel {
    fn congestion(&self, channel: ChannelId) -> f64 {
        if channel == self.0 {
            100.0
        } else {
            0.0
        }
    }
}

#[test]
fn uncongested_ugal_is_minimal() {
    let fabric = Fabric::parse("dragonfly:p=1,a=4,h=2,g=5").unwrap();
    let faults = random_cables(&fabric, "global", 0.3, 4);
    let (minimal, ugal) = (
        build("minimal", &fabric, &Faults::none(&fabric)).unwrap(),
        build("ugal", &fabric, &Faults::none(&fabric)).unwrap(),
    );
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let n = fabric.num_routers() as u32;
    for src in 0..n {
        for dst in 0..n {
            let req = RouteRequest {
                entropy: message_entropy(2, u64::from(src * n + dst)),
                ..RouteRequest::new(&fabric, &faults)
            };
            if minimal.route_into(&req, src, dst, &mut a).is_ok() {
                ugal.route_into(&req, src, dst, &mut b).unwrap();
                assert_eq!(a, b, "{src}->{dst}");
            }
        }
    }
}

/// One global port per router: router r of a group holds the only link to one other group,
/// so the minimal path's first channel (to the router holding the link to the destination
/// group) is never the first channel of a Valiant path. Calls `check(src, dst, minimal
/// path, request)` for every pair of routers in different groups, the request carrying
/// congestion 100 on the minimal path's first channel and none elsewhere.
fn with_congested_minimal_port(
    mut check: impl FnMut(&Fabric, &Faults, u32, u32, &[ChannelId], &RouteRequest<'_>),
) {
    let fabric = Fabric::parse("dragonfly:p=1,a=4,h=1,g=5").unwrap();
    let faults = Faults::none(&fabric);
    let minimal = build("minimal", &fabric, &faults).unwrap();
    let n = fabric.num_routers() as u32;
    let mut min_path = Vec::new();
    for src in 0..n {
        for dst in (0..n).filter(|&d| d / 4 != src / 4) {
            let plain = RouteRequest::new(&fabric, &faults);
            minimal.route_into(&plain, src, dst, &mut min_path).unwrap();
            let busy = OneBusyChannel(min_path[0]);
            let req = RouteRequest {
                congestion: &busy,
                ..plain
            };
            check(&fabric, &faults, src, dst, &min_path, &req);
        }
    }
}

#[test]
fn congested_minimal_port_sends_ugal_valiant() {
    let mut path = Vec::new();
    let mut valiant_taken = 0;
    with_congested_minimal_port(|fabric, faults, src, dst, min_path, req| {
        let ugal = build("ugal", fabric, faults).unwrap();
        ugal.route_into(req, src, dst, &mut path).unwrap();
        check_path(fabric, faults, src, dst, &path).unwrap();
        assert_ne!(path[0], min_path[0], "{src}->{dst} kept the congested port");
        assert_eq!(hops_of_class(fabric, &path, "global"), 2, "{src}->{dst}");
        valiant_taken += 1;
    });
    assert_eq!(valiant_taken, 20 * 16);
}

#[test]
fn threshold_keeps_minimal_until_its_congestion_exceeds_it() {
    // UGAL with threshold T stays minimal exactly while 100 * H_min <= T.
    let mut path = Vec::new();
    with_congested_minimal_port(|fabric, faults, src, dst, min_path, req| {
        let at = 100 * min_path.len();
        let keeps = build(&format!("ugal:threshold={at}"), fabric, faults).unwrap();
        keeps.route_into(req, src, dst, &mut path).unwrap();
        assert_eq!(path, min_path, "{src}->{dst} at threshold {at}");
        let leaves = build(&format!("ugal:threshold={}", at - 1), fabric, faults).unwrap();
        leaves.route_into(req, src, dst, &mut path).unwrap();
        assert_ne!(path[0], min_path[0], "{src}->{dst} below threshold {at}");
    });
}

#[test]
fn adaptive_links_leave_a_congested_port_below_the_threshold() {
    // One global link per group pair, on different routers: the Valiant link's first hop is
    // never the busy one, so direct weighs 100 and Valiant 2 * 0 + T.
    let mut path = Vec::new();
    let (mut ties_valiant, mut ties) = (0, 0);
    with_congested_minimal_port(|fabric, faults, src, dst, min_path, req| {
        let below = build("ugal:links=adaptive,threshold=99", fabric, faults).unwrap();
        below.route_into(req, src, dst, &mut path).unwrap();
        check_path(fabric, faults, src, dst, &path).unwrap();
        assert_ne!(path[0], min_path[0], "{src}->{dst} kept the congested port");
        assert_eq!(hops_of_class(fabric, &path, "global"), 2, "{src}->{dst}");
        let above = build("ugal:threshold=101,links=adaptive", fabric, faults).unwrap();
        above.route_into(req, src, dst, &mut path).unwrap();
        assert_eq!(path, min_path, "{src}->{dst} above the threshold");
        let equal = build("ugal:links=adaptive,threshold=100", fabric, faults).unwrap();
        let drawn = RouteRequest {
            entropy: message_entropy(5, u64::from(src * 100 + dst)),
            ..*req
        };
        equal.route_into(&drawn, src, dst, &mut path).unwrap();
        ties += 1;
        ties_valiant += usize::from(hops_of_class(fabric, &path, "global") == 2);
    });
    // At T = 100 both candidates weigh 100: a uniform draw between the two links.
    let share = ties_valiant as f64 / ties as f64;
    assert!(
        (0.35..0.65).contains(&share),
        "Valiant share at a tie {share}"
    );
}

/// Congestion 100 on every channel out of router `at` except `free`.
struct AllBusyBut {
    fabric: Fabric,
    at: u32,
    free: ChannelId,
}

impl Congestion for AllBusyBut {
    fn congestion(&self, channel: ChannelId) -> f64 {
        let leaves = self.fabric.channels().src[channel as usize] == self.at;
        if leaves && channel != self.free {
            100.0
        } else {
            0.0
        }
    }
}

#[test]
fn adaptive_links_take_the_lightest_parallel_link() {
    // Two global links per group pair: the route leaves by the one free port. With
    // adaptive links it weighs every parallel link; with credits (free room of an output
    // buffer of 1000) it takes the roomier of the two, and the direct route keeps it
    // (1000 free, 2 x 1000 >= any Valiant room).
    let fabric = Fabric::parse("dragonfly:p=1,a=4,h=4,g=9").unwrap();
    let faults = Faults::none(&fabric);
    let minimal = build("minimal", &fabric, &faults).unwrap();
    for name in ["ugal:links=adaptive,threshold=1000", "ugal:credits=1000"] {
        takes_the_free_port(&fabric, &faults, minimal.as_ref(), name);
    }
}

/// Routes every pair of routers in different groups with `name`, every port of the source
/// but the minimal path's first one busy, and checks it leaves by that one on one global
/// hop.
fn takes_the_free_port(fabric: &Fabric, faults: &Faults, minimal: &dyn Routing, name: &str) {
    let adaptive = build(name, fabric, faults).unwrap();
    let n = fabric.num_routers() as u32;
    let (mut min_path, mut path) = (Vec::new(), Vec::new());
    for src in 0..n {
        for dst in (0..n).filter(|&d| d / 4 != src / 4) {
            for draw in 0..4 {
                let plain = RouteRequest {
                    entropy: message_entropy(draw, u64::from(src * n + dst)),
                    ..RouteRequest::new(fabric, faults)
                };
                minimal.route_into(&plain, src, dst, &mut min_path).unwrap();
                let busy = AllBusyBut {
                    fabric: fabric.clone(),
                    at: src,
                    free: min_path[0],
                };
                let req = RouteRequest {
                    congestion: &busy,
                    ..plain
                };
                adaptive.route_into(&req, src, dst, &mut path).unwrap();
                check_path(fabric, faults, src, dst, &path).unwrap();
                assert_eq!(path[0], min_path[0], "{name}: {src}->{dst}: {path:?}");
                assert_eq!(
                    hops_of_class(fabric, &path, "global"),
                    1,
                    "{name}: {src}->{dst}"
                );
            }
        }
    }
}

#[test]
fn idle_adaptive_links_split_between_minimal_and_valiant_only_without_threshold() {
    // Idle, every candidate weighs 0 (direct) or 2 * 0 + T (Valiant): with T = 0 the two
    // direct and two Valiant links of a pair tie, with T > 0 direct always wins.
    let fabric = Fabric::parse("dragonfly:p=1,a=4,h=4,g=9").unwrap();
    let faults = Faults::none(&fabric);
    let n = fabric.num_routers() as u32;
    let mut path = Vec::new();
    for (name, low, high) in [
        ("ugal:links=adaptive", 0.4, 0.6),
        ("ugal:links=adaptive,threshold=1", 0.0, 0.0),
        ("ugal:credits=1000", 0.0, 0.0),
    ] {
        let routing = build(name, &fabric, &faults).unwrap();
        let (mut routes, mut valiant) = (0usize, 0usize);
        for src in 0..n {
            for dst in (0..n).filter(|&d| d / 4 != src / 4) {
                let req = RouteRequest {
                    entropy: message_entropy(9, u64::from(src * n + dst)),
                    ..RouteRequest::new(&fabric, &faults)
                };
                routing.route_into(&req, src, dst, &mut path).unwrap();
                check_path(&fabric, &faults, src, dst, &path).unwrap();
                routes += 1;
                valiant += usize::from(hops_of_class(&fabric, &path, "global") == 2);
            }
        }
        let share = valiant as f64 / routes as f64;
        assert!(
            (low..=high).contains(&share),
            "{name}: Valiant share {share}"
        );
    }
}

#[test]
fn credits_go_valiant_exactly_when_valiant_has_factor_times_the_room() {
    // Direct port: 100 queued, so B - 100 free; Valiant port idle, B free. Valiant iff
    // B > F (B - 100): with F = 2, iff B < 200; with B = 400, iff F < 4/3.
    let mut path = Vec::new();
    with_congested_minimal_port(|fabric, faults, src, dst, min_path, req| {
        for (name, valiant) in [
            ("ugal:credits=199", true),
            ("ugal:credits=200", false),
            ("ugal:credits=100", true),
            ("ugal:credits=90", true),
            ("ugal:credits=400,factor=1.3", true),
            ("ugal:factor=1.4,credits=400", false),
        ] {
            let routing = build(name, fabric, faults).unwrap();
            routing.route_into(req, src, dst, &mut path).unwrap();
            check_path(fabric, faults, src, dst, &path).unwrap();
            if valiant {
                assert_ne!(path[0], min_path[0], "{name}: {src}->{dst} kept the port");
                assert_eq!(hops_of_class(fabric, &path, "global"), 2, "{name}");
            } else {
                assert_eq!(path, min_path, "{name}: {src}->{dst}");
            }
        }
    });
}

/// Congestion 100 on one channel, all of it in virtual-channel class 1 (traffic passing
/// through, not from the source's group).
struct BusyInClassOne(ChannelId);

impl Congestion for BusyInClassOne {
    fn congestion(&self, channel: ChannelId) -> f64 {
        self.congestion_in_class(channel, 0) + self.congestion_in_class(channel, 1)
    }

    fn congestion_in_class(&self, channel: ChannelId, class: u16) -> f64 {
        if channel == self.0 && class == 1 {
            100.0
        } else {
            0.0
        }
    }
}

#[test]
fn per_vc_queues_see_only_the_packets_class() {
    // The minimal port holds 100 of transit traffic (class 1). Read per port it sends UGAL
    // Valiant; read in the packet's class at the source (class 0) it is idle.
    let mut path = Vec::new();
    with_congested_minimal_port(|fabric, faults, src, dst, min_path, req| {
        let transit = BusyInClassOne(min_path[0]);
        let req = RouteRequest {
            congestion: &transit,
            ..*req
        };
        for (name, valiant) in [
            ("ugal", true),
            ("ugal:queues=port", true),
            ("ugal:queues=vc", false),
            ("ugal:links=adaptive,queues=vc", false),
            ("ugal:credits=150,queues=vc", false),
            ("ugal:credits=150", true),
        ] {
            let routing = build(name, fabric, faults).unwrap();
            assert_eq!(
                routing.reads_classes(),
                name.contains("queues=vc"),
                "{name}"
            );
            routing.route_into(&req, src, dst, &mut path).unwrap();
            let went_valiant = hops_of_class(fabric, &path, "global") == 2;
            assert_eq!(went_valiant, valiant, "{name}: {src}->{dst}");
        }
    });
}

#[test]
fn bad_credits_are_named() {
    let fabric = Fabric::parse("dragonfly:p=1,a=4,h=1,g=5").unwrap();
    let faults = Faults::none(&fabric);
    for (name, word) in [
        ("ugal:credits=0", "credits"),
        ("ugal:credits=-5", "credits"),
        ("ugal:credits=nan", "credits"),
        ("ugal:credits=100,factor=0", "factor"),
        ("ugal:factor=2", "credits=B"),
        ("ugal:credits=100,threshold=5", "threshold"),
        ("ugal:links=adaptive,credits=100", "links"),
        ("ugal:queues=flits", "queues must be vc or port"),
    ] {
        let err = build(name, &fabric, &faults).err().expect(name).to_string();
        assert!(err.contains(name) && err.contains(word), "{name}: {err}");
    }
}

#[test]
fn bad_threshold_is_named() {
    let fabric = Fabric::parse("dragonfly:p=1,a=4,h=1,g=5").unwrap();
    let faults = Faults::none(&fabric);
    for name in [
        "ugal:threshold=-1",
        "ugal:threshold=x",
        "ugal:limit=2",
        "ugal:threshold=inf",
    ] {
        let err = build(name, &fabric, &faults).err().expect(name).to_string();
        assert!(
            err.contains(name) && err.contains("threshold"),
            "{name}: {err}"
        );
    }
    for name in ["ugal:links=fast", "ugal:links=adaptive,links"] {
        let err = build(name, &fabric, &faults).err().expect(name).to_string();
        assert!(err.contains(name) && err.contains("links"), "{name}: {err}");
    }
}
