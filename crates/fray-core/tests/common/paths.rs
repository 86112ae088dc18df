//! Checks every router path must pass, whatever the routing.

use fray_core::fabric::{ChannelId, Fabric, RouterId};
use fray_core::faults::Faults;

/// The routers `path` visits, `src` first, after asserting that it is contiguous, uses only
/// router channels and live parts, never visits a router twice, and ends at `dst`.
pub fn walk(
    fabric: &Fabric,
    faults: &Faults,
    src: RouterId,
    dst: RouterId,
    path: &[ChannelId],
) -> Vec<RouterId> {
    let ch = fabric.channels();
    let mut visited = vec![src];
    assert!(!faults.router_is_down(src), "route leaves a down router");
    for &c in path {
        assert!(fabric.is_router_channel(c), "channel {c} is a host channel");
        assert!(
            !faults.channel_is_down(c),
            "route {} -> {} uses down link {}",
            fabric.router_name(src),
            fabric.router_name(dst),
            fabric.channel_name(c)
        );
        assert_eq!(
            ch.src[c as usize],
            *visited.last().unwrap(),
            "path not contiguous"
        );
        let next = ch.dst[c as usize];
        assert!(!faults.router_is_down(next), "route crosses a down router");
        assert!(!visited.contains(&next), "route visits {next} twice");
        visited.push(next);
    }
    assert_eq!(*visited.last().unwrap(), dst, "route ends elsewhere");
    visited
}
