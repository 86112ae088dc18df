//! Checks every router path must pass, whatever the routing.

use fray_core::fabric::{ChannelId, Fabric, RouterId};
use fray_core::faults::Faults;

/// Checks that `path` leads from router `src` to router `dst` over router channels, each
/// starting where the previous one ended, with no channel and no router on the way down.
pub fn check_path(
    fabric: &Fabric,
    faults: &Faults,
    src: RouterId,
    dst: RouterId,
    path: &[ChannelId],
) -> Result<(), String> {
    let ch = fabric.channels();
    let mut at = src;
    if faults.router_is_down(at) {
        return Err(format!(
            "starts at failed router {}",
            fabric.router_name(at)
        ));
    }
    for &c in path {
        let name = || fabric.channel_name(c);
        if !fabric.is_router_channel(c) {
            return Err(format!("{} is not a router channel", name()));
        }
        if ch.src[c as usize] != at {
            return Err(format!(
                "{} does not start at {}",
                name(),
                fabric.router_name(at)
            ));
        }
        if faults.channel_is_down(c) {
            return Err(format!("{} is down", name()));
        }
        at = ch.dst[c as usize];
        if faults.router_is_down(at) {
            return Err(format!("{} enters a failed router", name()));
        }
    }
    if at != dst {
        return Err(format!(
            "ends at {}, not {}",
            fabric.router_name(at),
            fabric.router_name(dst)
        ));
    }
    Ok(())
}

/// Number of channels of class `class` on `path`.
pub fn hops_of_class(fabric: &Fabric, path: &[ChannelId], class: &str) -> usize {
    let id = fabric.class_id(class).expect("class exists");
    path.iter()
        .filter(|&&c| fabric.channels().class[c as usize] == id)
        .count()
}

/// The routers `path` visits, `src` first, after asserting [`check_path`] and that it never
/// visits a router twice.
pub fn walk(
    fabric: &Fabric,
    faults: &Faults,
    src: RouterId,
    dst: RouterId,
    path: &[ChannelId],
) -> Vec<RouterId> {
    if let Err(e) = check_path(fabric, faults, src, dst, path) {
        panic!(
            "route {} -> {}: {e}",
            fabric.router_name(src),
            fabric.router_name(dst)
        );
    }
    let mut visited = vec![src];
    for &c in path {
        let next = fabric.channels().dst[c as usize];
        assert!(!visited.contains(&next), "route visits {next} twice");
        visited.push(next);
    }
    visited
}
