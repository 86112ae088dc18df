//! The static load engine conserves routes and bytes: the per-channel counts add up to the
//! sum of the path lengths, and the histogram covers every channel.

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
        let r = static_load(&fabric, &Faults::none(&fabric), &routing, &placement, &messages).unwrap();
        let hops: u64 = messages.iter().map(|m| shape.hop_distance(m.src, m.dst) as u64).sum();
        let bytes: f64 = messages.iter().map(|m| m.size_bytes * shape.hop_distance(m.src, m.dst) as f64).sum();
        prop_assert_eq!(r.total_hops, hops);
        prop_assert_eq!(r.routes.iter().map(|&x| u64::from(x)).sum::<u64>(), hops);
        prop_assert!((r.bytes.iter().sum::<f64>() - bytes).abs() <= 1e-9 * bytes.max(1.0));
        prop_assert_eq!(r.histogram.iter().sum::<u64>(), fabric.channels().len() as u64);
        prop_assert_eq!(r.max_routes, r.routes.iter().copied().max().unwrap_or(0));
    }
}

#[test]
fn stencil_on_its_own_torus_has_no_collision_and_closed_form_time() {
    let fabric = Fabric::cartesian(
        Cartesian::torus(&[6, 6, 6]),
        LinkParameters {
            bandwidth_bytes_s: 1e9,
            latency_s: 1e-6,
        },
    )
    .unwrap();
    let routing = DimensionOrder::new(&fabric).unwrap();
    let placement: Vec<u32> = (0..216).collect();
    let exchange = |kind, size_bytes| {
        let messages = Stencil {
            kind,
            periodic: true,
        }
        .messages(&[6, 6, 6], size_bytes)
        .unwrap();
        static_load(
            &fabric,
            &Faults::none(&fabric),
            &routing,
            &placement,
            &messages,
        )
        .unwrap()
    };
    let r = exchange(StencilKind::SevenP, 1e6);
    assert_eq!(r.max_routes, 1);
    assert_eq!(r.total_hops, 6 * 216);
    // One message per channel: 1 MB at 1 GB/s plus one hop of 1 us.
    assert!((r.phase_time_s - (1e-3 + 1e-6)).abs() < 1e-12);
    // A 27-point stencil's edge and corner messages share channels with the face messages:
    // 9 routes on the busiest channel (1 face + 4 edge + 4 corner messages leave that way).
    assert_eq!(exchange(StencilKind::TwentySevenP, 1.0).max_routes, 9);
}
