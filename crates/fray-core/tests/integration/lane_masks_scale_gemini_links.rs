//! Lane masks on Gemini tiles take lanes off the link they drive; a link with every tile down
//! makes dimension-order retry take another order, or go the other way round the ring when
//! every minimal order crosses it; two failures in one Z loop between a pair leave it
//! unroutable.

use fray_core::diag::{apply_injections, Injection};
use fray_core::fabric::gemini::{Gemini, Tile};
use fray_core::faults::Faults;
use fray_core::routing::{self, RouteRequest, RoutingError};

fn setup() -> (Gemini, fray_core::fabric::Fabric) {
    let g = Gemini::new([4, 4, 4]).unwrap();
    let f = g.fabric(100e-9).unwrap();
    (g, f)
}

fn inject(g: &Gemini, f: &fray_core::fabric::Fabric, list: &[&str]) -> Faults {
    let mut faults = Faults::none(f);
    let inj: Vec<Injection> = list.iter().map(|s| s.parse().unwrap()).collect();
    apply_injections(g, f, &mut faults, &inj).unwrap();
    faults
}

#[test]
fn masks_take_lanes_off_the_tiles_link() {
    let (g, f) = setup();
    let tile: Tile = "c0-0c0s1g0l27".parse().unwrap();
    let c = fray_core::diag::tile_channel(&g, &f, &tile).unwrap();
    let full = f.channels().bandwidth_bytes_s[c as usize];
    for (mask, lost) in [
        (7, 0),
        (3, 1),
        (5, 1),
        (6, 1),
        (1, 2),
        (2, 2),
        (4, 2),
        (0, 3),
    ] {
        let faults = inject(&g, &f, &[&format!("c0-0c0s1g0l27:{mask}")]);
        let bw = faults.bandwidth_bytes_s(&f, c);
        assert!(
            (bw - full * f64::from(24 - lost) / 24.0).abs() < 1.0,
            "mask {mask}"
        );
        // The other direction keeps its lanes.
        assert_eq!(faults.lanes_lost(f.channels().reverse[c as usize]), 0);
    }
    // Two tiles of the same link add up; a later mask of a tile replaces the earlier one.
    let faults = inject(
        &g,
        &f,
        &["c0-0c0s1g0l27:1", "c0-0c0s1g0l26:3", "c0-0c0s1g0l27:3"],
    );
    assert_eq!(faults.lanes_lost(c), 2);
}

const Z_UP_TILES: [&str; 8] = ["00", "01", "10", "11", "25", "26", "27", "35"];
const Z_DOWN_TILES: [&str; 8] = ["06", "07", "16", "17", "20", "21", "22", "32"];

/// Every lane of every tile of `gemini` going the way of `tiles`, as injections.
fn whole_link_down(gemini: &str, tiles: &[&str]) -> Vec<String> {
    tiles.iter().map(|t| format!("{gemini}l{t}:0")).collect()
}

#[test]
fn a_link_down_is_routed_round_or_reported_unroutable() {
    let (g, f) = setup();
    let down = whole_link_down("c0-0c0s1g0", &Z_UP_TILES);
    let refs: Vec<&str> = down.iter().map(String::as_str).collect();
    let faults = inject(&g, &f, &refs);
    assert_eq!(faults.num_channels_down(), 1);
    let failed = fray_core::diag::tile_channel(&g, &f, &"c0-0c0s1g0l27".parse().unwrap()).unwrap();
    assert!(faults.channel_is_down(failed));
    // From (1,0,1) to (0,0,2): X then Z would take the failed Z link at x = 0; the retry
    // takes Z first.
    let t = g.torus();
    let src = 2 * t.node(&[1, 0, 1]);
    let dst = 2 * t.node(&[0, 0, 2]);
    let req = RouteRequest::new(&f, &faults);
    let mut path = Vec::new();
    let dor = routing::build("dor", &f, &faults).unwrap();
    assert!(routing::route_endpoints(&*dor, &req, src, dst, &mut path).is_err());
    let retry = routing::build("dor-retry", &f, &faults).unwrap();
    routing::route_endpoints(&*retry, &req, src, dst, &mut path).unwrap();
    assert_eq!(path.len(), 4);
    assert!(!path.contains(&failed));

    // A pair in the failed Z ring itself: every minimal order crosses the failure, so the
    // route goes down the other way round the Z ring of 4: 3 Gemini hops instead of 1.
    let src = 2 * t.node(&[0, 0, 1]);
    routing::route_endpoints(&*retry, &req, src, dst, &mut path).unwrap();
    assert_eq!(path.len(), 2 + 3);
    assert!(!path.contains(&failed));

    // A second failure in the same Z loop, on the long way round (the Z- link of the Gemini
    // at z = 3): both ways round are blocked, the pair is unroutable.
    let other = g.gemini_name(t.node(&[0, 0, 3])).to_string();
    let mut both = down.clone();
    both.extend(whole_link_down(&other, &Z_DOWN_TILES));
    let refs: Vec<&str> = both.iter().map(String::as_str).collect();
    let faults = inject(&g, &f, &refs);
    assert_eq!(faults.num_channels_down(), 2);
    let req = RouteRequest::new(&f, &faults);
    let retry = routing::build("dor-retry", &f, &faults).unwrap();
    let err = routing::route_endpoints(&*retry, &req, src, dst, &mut path).unwrap_err();
    assert!(matches!(err, RoutingError::Unroutable { .. }), "{err}");
    // A pair off that loop still routes round both failures.
    let src = 2 * t.node(&[1, 0, 1]);
    routing::route_endpoints(&*retry, &req, src, dst, &mut path).unwrap();
    assert_eq!(path.len(), 4);
}
