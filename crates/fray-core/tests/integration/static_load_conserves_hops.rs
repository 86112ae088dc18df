//! The static load engine conserves routes and bytes: the per-channel counts add up to the
//! sum of the path lengths (plus one injection and one ejection per message between two
//! endpoints), and the histogram covers every router channel.

use fray_core::fabric::{Cartesian, Fabric, LinkParameters};
use fray_core::faults::Faults;
use fray_core::routing::DimensionOrder;
use fray_core::sim::load::static_load;
use fray_core::workload::{Message, Stencil, StencilKind};
use proptest::prelude::*;

proptest! {
    #[test]
    fn totals_match_path_lengths(
        dims in prop::collection::vec(1usize..6, 1..4),
        wrap in any::<bool>(),
        raw in prop::collection::vec((any::<u32>(), any::<u32>(), 1u32..1000), 0..60),
    ) {
        let shape = Cartesian::new(dims.clone(), vec![wrap; dims.len()]);
        let n = shape.num_nodes() as u32;
        let fabric = Fabric::cartesian(shape.clone(), LinkParameters::default()).unwrap();
        let routing = DimensionOrder::new(&fabric).unwrap();
        let messages: Vec<Message> =
            raw.iter().map(|&(a, b, s)| Message { src: a % n, dst: b % n, size_bytes: f64::from(s) }).collect();
        let placement: Vec<u32> = (0..n).collect();
        let r = static_load(&fabric, &Faults::none(&fabric), &routing, &placement, &messages, 0).unwrap();
        let hops: u64 = messages.iter().map(|m| shape.hop_distance(m.src, m.dst) as u64).sum();
        let host = |m: &Message| if m.src == m.dst { 0 } else { 2 };
        let host_routes: u64 = messages.iter().map(host).sum();
        let bytes: f64 = messages.iter().map(|m| m.size_bytes * (shape.hop_distance(m.src, m.dst) + host(m) as usize) as f64).sum();
        prop_assert_eq!(r.total_hops, hops);
        prop_assert_eq!(r.routes.iter().map(|&x| u64::from(x)).sum::<u64>(), hops + host_routes);
        prop_assert!((r.bytes.iter().sum::<f64>() - bytes).abs() <= 1e-9 * bytes.max(1.0));
        prop_assert_eq!(r.histogram.iter().sum::<u64>(), fabric.num_router_channels() as u64);
        prop_assert_eq!(r.max_routes, r.routes.iter().copied().max().unwrap_or(0));
    }
}

#[test]
fn stencil_on_its_own_torus_has_no_collision_and_closed_form_time() {
    let link = LinkParameters {
        bandwidth_bytes_s: 1e9,
        latency_s: 1e-6,
        lanes: 1,
    };
    let mut fabric = Fabric::cartesian(Cartesian::torus(&[6, 6, 6]), link).unwrap();
    let routing = DimensionOrder::new(&fabric).unwrap();
    let placement: Vec<u32> = (0..216).collect();
    let exchange_on = |fabric: &Fabric, kind, size_bytes| {
        let messages = Stencil {
            kind,
            periodic: true,
        }
        .messages(&[6, 6, 6], size_bytes)
        .unwrap();
        static_load(
            fabric,
            &Faults::none(fabric),
            &routing,
            &placement,
            &messages,
            0,
        )
        .unwrap()
    };
    let r = exchange_on(&fabric, StencilKind::SevenP, 1e6);
    assert_eq!(r.max_network_routes, 1);
    assert_eq!(
        r.max_routes, 6,
        "each endpoint injects its six messages through one host link"
    );
    assert_eq!(r.total_hops, 6 * 216);
    // The host link is the bottleneck: 6 MB at 1 GB/s, plus three channels of 1 us.
    assert!((r.phase_time_s - (6e-3 + 3e-6)).abs() < 1e-12);
    // With fast host links the network is: 1 MB at 1 GB/s plus the same latency.
    fabric
        .set_class_link(
            "host",
            LinkParameters {
                bandwidth_bytes_s: 1e12,
                ..link
            },
        )
        .unwrap();
    let r = exchange_on(&fabric, StencilKind::SevenP, 1e6);
    assert!((r.phase_time_s - (1e-3 + 3e-6)).abs() < 1e-12);
    // A 27-point stencil's edge and corner messages share channels with the face messages:
    // 9 routes on the busiest channel (1 face + 4 edge + 4 corner messages leave that way).
    assert_eq!(
        exchange_on(&fabric, StencilKind::TwentySevenP, 1.0).max_network_routes,
        9
    );
}
