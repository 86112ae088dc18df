//! Deadlock freedom for a packet engine: hop-indexed virtual channels.

use crate::fabric::ChannelId;

/// The virtual channel of each hop of `path` under the hop-index scheme: hop `k` (from 0)
/// travels on VC `k`. Yields `(channel, vc)` in path order.
///
/// A packet holding a buffer of VC `k` then only ever waits for a buffer of VC `k + 1`, so
/// the channel dependency graph over (channel, VC) pairs has no cycle, whatever the topology
/// and the faults (Gopal's hop scheme; Dally and Seitz's condition for deadlock freedom).
/// The price is one VC per hop of the longest path: a minimal routing needs as many VCs as
/// the diameter of the live graph ([`TableRouting::required_vcs`](super::TableRouting::required_vcs)).
///
/// Where that is too many (a 100 x 100 mesh has diameter 198), the alternative is an
/// up*/down* restriction (Autonet): orient every cable towards the root of a breadth-first
/// spanning tree and allow no "up" hop after a "down" hop. That needs a single VC but gives
/// up minimality and loads the channels near the root; fray does not implement it yet.
pub fn hop_index_vcs(path: &[ChannelId]) -> impl ExactSizeIterator<Item = (ChannelId, u32)> + '_ {
    path.iter().enumerate().map(|(k, &c)| (c, k as u32))
}
