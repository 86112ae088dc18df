//! Helpers shared by the XGFT / up-down integration tests: brute-force ancestors and the shape
//! of an up/down path, computed from the fabric's channels (not from the routing's tables).

use fray_core::fabric::{ChannelId, Fabric, RouterId, Xgft};
use fray_core::faults::Faults;

/// The XGFT coordinates of `fabric`.
pub fn tree(fabric: &Fabric) -> &Xgft {
    fabric.as_xgft().expect("an XGFT fabric")
}

/// Switches reachable from `start` by up moves (to a neighbour one level higher) over
/// channels that `up_ok` accepts, `start` included, as a flag per switch.
pub fn climb(fabric: &Fabric, start: RouterId, up_ok: impl Fn(ChannelId) -> bool) -> Vec<bool> {
    let t = tree(fabric);
    let ch = fabric.channels();
    let mut seen = vec![false; fabric.num_routers()];
    let mut stack = vec![start];
    seen[start as usize] = true;
    while let Some(r) = stack.pop() {
        for &c in fabric.out_channels(r) {
            let p = ch.dst[c as usize];
            if t.level_of(p) == t.level_of(r) + 1 && !seen[p as usize] && up_ok(c) {
                seen[p as usize] = true;
                stack.push(p);
            }
        }
    }
    seen
}

/// The lowest level of a switch that is an ancestor (or self) of both `s` and `t`, if any.
pub fn nca_level(fabric: &Fabric, s: RouterId, t: RouterId) -> Option<usize> {
    let (a, b) = (climb(fabric, s, |_| true), climb(fabric, t, |_| true));
    (0..fabric.num_routers())
        .filter(|&r| a[r] && b[r])
        .map(|r| tree(fabric).level_of(r as RouterId))
        .min()
}

/// Whether some up/down path from `s` to `t` (any turning switch) uses no failed channel or
/// switch: the live up-closure of `s` meets the set of switches from which `t` is reachable
/// by live down moves.
pub fn live_updown_exists(fabric: &Fabric, faults: &Faults, s: RouterId, t: RouterId) -> bool {
    if faults.router_is_down(s) || faults.router_is_down(t) {
        return false;
    }
    let ch = fabric.channels();
    let alive = |c: ChannelId| !faults.router_is_down(ch.dst[c as usize]);
    let up = climb(fabric, s, |c| !faults.channel_is_down(c) && alive(c));
    let down = climb(fabric, t, |c| {
        !faults.channel_is_down(ch.reverse[c as usize]) && alive(c)
    });
    up.iter().zip(&down).any(|(&a, &b)| a && b)
}

/// Checks that `path` runs from `s` to `t` channel after channel, climbing one level per hop
/// and then descending one level per hop; returns the level of its highest switch.
pub fn updown_peak(fabric: &Fabric, s: RouterId, t: RouterId, path: &[ChannelId]) -> usize {
    let tr = tree(fabric);
    let ch = fabric.channels();
    let mut at = s;
    let mut descending = false;
    let mut peak = tr.level_of(s);
    for &c in path {
        assert!(fabric.is_router_channel(c), "host channel in a router path");
        assert_eq!(ch.src[c as usize], at, "path not contiguous");
        let next = ch.dst[c as usize];
        let (l, nl) = (tr.level_of(at), tr.level_of(next));
        if nl == l + 1 {
            assert!(!descending, "climbs again after descending");
        } else {
            assert_eq!(nl + 1, l, "a hop within a level");
            descending = true;
        }
        peak = peak.max(nl);
        at = next;
    }
    assert_eq!(at, t, "path does not end at the destination");
    peak
}
