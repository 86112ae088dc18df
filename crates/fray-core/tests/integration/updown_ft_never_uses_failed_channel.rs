//! Under random failed cables and switches on small XGFTs: `updown-ft` never uses a failed
//! channel or switch, its routes are contiguous up/down paths through the nearest common
//! ancestor level, and it finds a route exactly when a live up/down path exists (checked by
//! brute force over the fabric's channels). `updown` never uses a failed part either, and
//! when its D-mod-k route is live `updown-ft` takes the same one. Same seed, same result.

use crate::common::faults::random_cables;

use crate::fat_tree;

use fray_core::fabric::{ChannelId, Fabric, RouterId};
use fray_core::faults::{CableSelector, Faults};
use fray_core::routing::{route_endpoints, RouteRequest, Routing, UpDown, UpDownFaultTolerant};
use proptest::prelude::*;

/// A random small XGFT spec: 1 to 4 levels (mostly 3), m_i in 1..=3, w_1 = 1, w_i in 1..=3
/// (mostly 2 or 3, so that there are other up ports to take).
fn specs() -> impl Strategy<Value = String> {
    let level = (1usize..=3, prop_oneof![1 => Just(1usize), 4 => 2usize..=3]);
    let height = prop_oneof![1 => 1usize..=2, 4 => Just(3usize), 1 => Just(4usize)];
    height
        .prop_flat_map(move |h| prop::collection::vec(level.clone(), h))
        .prop_map(|levels| {
            let m: Vec<String> = levels.iter().map(|l| l.0.to_string()).collect();
            let w: Vec<String> = levels
                .iter()
                .enumerate()
                .map(|(i, l)| if i == 0 { 1 } else { l.1 }.to_string())
                .collect();
            format!("xgft:{};{};{}", levels.len(), m.join(","), w.join(","))
        })
}

fn faults(fabric: &Fabric, fraction: f64, seed: u64, failed_switch: Option<u32>) -> Faults {
    let mut f = random_cables(fabric, "router", fraction, seed);
    if let Some(r) = failed_switch {
        f.fail_router(r % fabric.num_routers() as u32).unwrap();
    }
    f
}

fn check_live(fabric: &Fabric, faults: &Faults, path: &[ChannelId]) -> Result<(), TestCaseError> {
    let ch = fabric.channels();
    for &c in path {
        prop_assert!(
            !faults.channel_is_down(c),
            "uses failed {}",
            fabric.channel_name(c)
        );
        let r = fabric.vertex_router(ch.dst[c as usize]);
        prop_assert!(
            !faults.router_is_down(r),
            "enters failed {}",
            fabric.router_name(r)
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn switch_pairs(
        spec in specs(),
        fraction in 0.0f64..0.5,
        seed in any::<u64>(),
        failed_switch in prop::option::weighted(0.2, any::<u32>()),
        pairs in prop::collection::vec((any::<bool>(), any::<u32>(), any::<u32>()), 8),
    ) {
        let fabric = Fabric::parse(&spec).unwrap();
        let faults = faults(&fabric, fraction, seed, failed_switch);
        prop_assert_eq!(&faults, &self::faults(&fabric, fraction, seed, failed_switch));
        let tree = fat_tree::tree(&fabric);
        let plain = UpDown::new(&fabric).unwrap();
        let ft = UpDownFaultTolerant::new(&fabric).unwrap();
        let req = RouteRequest::new(&fabric, &faults);
        let (mut path, mut again, mut plain_path) = (Vec::new(), Vec::new(), Vec::new());
        for (leaves, a, b) in pairs {
            // Half the pairs between level-1 switches (where endpoints are), half between any.
            let n = if leaves { tree.switches_at(1).len() } else { fabric.num_routers() } as u32;
            let (s, t): (RouterId, RouterId) = (a % n, b % n);
            let found = ft.route_into(&req, s, t, &mut path).is_ok();
            let exists = fat_tree::live_updown_exists(&fabric, &faults, s, t)
                && fat_tree::nca_level(&fabric, s, t).is_some();
            prop_assert_eq!(found, exists, "{}: S{} -> S{}", spec, s, t);
            let plain_ok = plain.route_into(&req, s, t, &mut plain_path).is_ok();
            if plain_ok {
                check_live(&fabric, &faults, &plain_path)?;
                prop_assert!(found);
                prop_assert_eq!(&plain_path, &path, "updown-ft keeps a live D-mod-k route");
            }
            if !found {
                continue;
            }
            check_live(&fabric, &faults, &path)?;
            let nca = fat_tree::nca_level(&fabric, s, t).unwrap();
            prop_assert_eq!(fat_tree::updown_peak(&fabric, s, t, &path), nca);
            let (ls, lt) = (tree.level_of(s), tree.level_of(t));
            prop_assert_eq!(path.len(), (nca - ls) + (nca - lt));
            ft.route_into(&req, s, t, &mut again).unwrap();
            prop_assert_eq!(&again, &path, "same request, same route");
        }
    }

    #[test]
    fn endpoint_pairs(
        spec in specs(),
        fraction in 0.0f64..0.7,
        seed in any::<u64>(),
        pairs in prop::collection::vec((any::<u32>(), any::<u32>()), 8),
    ) {
        let fabric = Fabric::parse(&spec).unwrap();
        let mut faults = faults(&fabric, fraction, seed, None);
        faults
            .fail_random_cables(&fabric, &CableSelector::parse("host"), 0.1, seed)
            .unwrap();
        let ft = UpDownFaultTolerant::new(&fabric).unwrap();
        let req = RouteRequest::new(&fabric, &faults);
        let n = fabric.num_endpoints() as u32;
        let mut path = Vec::new();
        for (a, b) in pairs {
            let (e, d) = (a % n, b % n);
            let (s, t) = (fabric.router_of(e), fabric.router_of(d));
            let host_live = !faults.channel_is_down(fabric.injection_channel(e))
                && !faults.channel_is_down(fabric.ejection_channel(d));
            let exists = e == d || (host_live && fat_tree::live_updown_exists(&fabric, &faults, s, t));
            let found = route_endpoints(&ft, &req, e, d, &mut path).is_ok();
            prop_assert_eq!(found, exists, "{}: endpoint {} -> {}", spec, e, d);
            if found {
                check_live(&fabric, &faults, &path)?;
            }
        }
    }
}

#[test]
fn failed_dmodk_link_is_unroutable_for_updown_and_avoided_by_updown_ft() {
    let fabric = Fabric::parse("xgft:3;4,4,2;1,4,2").unwrap();
    let mut faults = Faults::none(&fabric);
    // Endpoint 0 -> endpoint 31: D-mod-k climbs S0 -> S(8 + 31 mod 4) = S11 -> ...
    faults.fail_link(&fabric, 0, 11).unwrap();
    let req = RouteRequest::new(&fabric, &faults);
    let mut path = Vec::new();
    let err = route_endpoints(&UpDown::new(&fabric).unwrap(), &req, 0, 31, &mut path)
        .unwrap_err()
        .to_string();
    assert!(err.contains("S0->S11 is down"), "{err}");
    let ft = UpDownFaultTolerant::new(&fabric).unwrap();
    route_endpoints(&ft, &req, 0, 31, &mut path).unwrap();
    // The next up port in order: S0 -> S8 (11 + 1 wraps to port 0 of 4).
    assert_eq!(fabric.channel_name(path[1]), "S0->S8");
    // Cut every up link of S0: nothing leaves it.
    for p in 8..12 {
        faults.fail_link(&fabric, 0, p).ok();
    }
    let req = RouteRequest::new(&fabric, &faults);
    let err = route_endpoints(&ft, &req, 0, 31, &mut path)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no live up/down path"), "{err}");
}

#[test]
fn updown_ft_goes_back_a_level_when_every_port_above_is_dead() {
    let fabric = Fabric::parse("xgft:3;2,2,2;1,2,2").unwrap();
    let ch = fabric.channels();
    let (e, d) = (0, 7); // different top-level subtrees: the NCA is at level 3
    let mut path = Vec::new();
    let none = Faults::none(&fabric);
    let plain = UpDown::new(&fabric).unwrap();
    route_endpoints(&plain, &RouteRequest::new(&fabric, &none), e, d, &mut path).unwrap();
    // Cut every up link of the level-2 switch the D-mod-k route climbs through.
    let second = ch.dst[path[1] as usize];
    let mut faults = Faults::none(&fabric);
    for &c in fabric.out_channels(second) {
        if fat_tree::tree(&fabric).level_of(ch.dst[c as usize]) == 3 {
            faults.fail_cable(&fabric, c).unwrap();
        }
    }
    let ft = UpDownFaultTolerant::new(&fabric).unwrap();
    let req = RouteRequest::new(&fabric, &faults);
    route_endpoints(&ft, &req, e, d, &mut path).unwrap();
    check_live(&fabric, &faults, &path).unwrap();
    assert_ne!(ch.dst[path[1] as usize], second, "another level-2 switch");
    assert_eq!(path.len(), 6);
}
