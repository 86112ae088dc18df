//! The static load engine: how many routes and bytes cross every directed channel.
//!
//! Every message route counts on every directed channel it uses (the physical rule). The
//! maximum route count over channels is the number of "message collisions" in the sense of
//! the spare-node paper; 1 means no two messages share a channel.

use crate::fabric::{ChannelId, Fabric, RouterId};
use crate::faults::Faults;
use crate::routing::{Routing, RoutingError};
use crate::workload::Message;

/// Per-channel load of one communication phase.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadReport {
    /// Number of message routes crossing each channel.
    pub routes: Vec<u32>,
    /// Bytes crossing each channel.
    pub bytes: Vec<f64>,
    /// The largest entry of `routes` (0 for an empty workload).
    pub max_routes: u32,
    /// `histogram[k]` is the number of channels crossed by exactly `k` routes.
    pub histogram: Vec<u64>,
    /// Sum of the path lengths of all messages, in hops.
    pub total_hops: u64,
    /// Bandwidth-bound phase time, in seconds: the busiest channel's bytes over its
    /// bandwidth, plus the latency of the slowest path.
    pub phase_time_s: f64,
}

/// Routes every message of `messages` (ranks placed on routers by `placement`) and counts
/// the load on every channel.
pub fn static_load(
    fabric: &Fabric,
    faults: &Faults,
    routing: &dyn Routing,
    placement: &[RouterId],
    messages: &[Message],
) -> Result<LoadReport, RoutingError> {
    let channels = fabric.channels();
    let mut routes = vec![0u32; channels.len()];
    let mut bytes = vec![0f64; channels.len()];
    let mut total_hops = 0u64;
    let mut max_latency_s = 0f64;
    let mut path: Vec<ChannelId> = Vec::new();
    for m in messages {
        let (src, dst) = (placement[m.src as usize], placement[m.dst as usize]);
        routing.route_into(fabric, faults, src, dst, &mut path)?;
        let mut latency_s = 0.0;
        for &c in &path {
            routes[c as usize] += 1;
            bytes[c as usize] += m.size_bytes;
            latency_s += channels.latency_s[c as usize];
        }
        total_hops += path.len() as u64;
        max_latency_s = max_latency_s.max(latency_s);
    }
    let max_routes = routes.iter().copied().max().unwrap_or(0);
    let mut histogram = vec![0u64; max_routes as usize + 1];
    for &r in &routes {
        histogram[r as usize] += 1;
    }
    let busiest_s = bytes
        .iter()
        .zip(&channels.bandwidth_bytes_s)
        .map(|(b, bw)| b / bw)
        .fold(0.0, f64::max);
    Ok(LoadReport {
        routes,
        bytes,
        max_routes,
        histogram,
        total_hops,
        phase_time_s: busiest_s + max_latency_s,
    })
}
