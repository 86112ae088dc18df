//! Checks of routed paths shared by the routing integration tests.
// Each test binary uses a subset of these helpers.
#![allow(dead_code)]

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
