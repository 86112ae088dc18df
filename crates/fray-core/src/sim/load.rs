//! The static load engine: how many routes and bytes cross every directed channel.
//!
//! Every message route counts on every directed channel it uses (the physical rule),
//! injection and ejection channels included. The maximum route count over the router
//! channels is the number of "message collisions" in the sense of the spare-node paper;
//! 1 means no two messages share a network channel. Adaptive routings see the routes placed
//! so far as their congestion signal, in message order.

use crate::fabric::{ChannelId, EndpointId, Fabric};
use crate::faults::Faults;
use crate::routing::{
    check_congestion_unit, message_entropy, route_endpoints, Congestion, CongestionUnit,
    RouteRequest, Routing, RoutingError,
};
use crate::workload::Message;

/// Per-channel load of one communication phase.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadReport {
    /// Number of message routes crossing each channel (router channels, then host channels).
    pub routes: Vec<u32>,
    /// Bytes crossing each channel.
    pub bytes: Vec<f64>,
    /// The largest entry of `routes` over every channel, host channels included (0 for an
    /// empty workload).
    pub max_routes: u32,
    /// The largest entry of `routes` over the router-to-router channels ("message
    /// collisions").
    pub max_network_routes: u32,
    /// `histogram[k]` is the number of router channels crossed by exactly `k` routes.
    pub histogram: Vec<u64>,
    /// Sum of the router-to-router path lengths of all messages, in hops.
    pub total_hops: u64,
    /// Bandwidth-bound phase time, in seconds: the busiest channel's bytes over its
    /// bandwidth (lost lanes taken off), plus the latency of the slowest path.
    pub phase_time_s: f64,
}

/// Routes placed so far: the load engine's congestion signal.
struct PlacedRoutes<'a>(&'a [u32]);

impl Congestion for PlacedRoutes<'_> {
    fn congestion(&self, channel: ChannelId) -> f64 {
        f64::from(self.0[channel as usize])
    }
}

/// Routes every message of `messages` (rank `i` on endpoint `placement[i]`) and counts the
/// load on every channel. Message `k` draws its routing choices from `(seed, k)`.
pub fn static_load(
    fabric: &Fabric,
    faults: &Faults,
    routing: &dyn Routing,
    placement: &[EndpointId],
    messages: &[Message],
    seed: u64,
) -> Result<LoadReport, RoutingError> {
    check_congestion_unit(routing, CongestionUnit::Routes)?;
    let channels = fabric.channels();
    let mut routes = vec![0u32; channels.len()];
    let mut bytes = vec![0f64; channels.len()];
    let mut total_hops = 0u64;
    let mut max_latency_s = 0f64;
    let mut path: Vec<ChannelId> = Vec::new();
    for (k, m) in messages.iter().enumerate() {
        let (src, dst) = (placement[m.src as usize], placement[m.dst as usize]);
        let req = RouteRequest {
            fabric,
            faults,
            congestion: &PlacedRoutes(&routes),
            entropy: message_entropy(seed, k as u64),
        };
        route_endpoints(routing, &req, src, dst, &mut path)?;
        let mut latency_s = 0.0;
        for &c in &path {
            routes[c as usize] += 1;
            bytes[c as usize] += m.size_bytes;
            latency_s += channels.latency_s[c as usize];
            total_hops += u64::from(fabric.is_router_channel(c));
        }
        max_latency_s = max_latency_s.max(latency_s);
    }
    let network = &routes[..fabric.num_router_channels()];
    let max_network_routes = network.iter().copied().max().unwrap_or(0);
    let mut histogram = vec![0u64; max_network_routes as usize + 1];
    for &r in network {
        histogram[r as usize] += 1;
    }
    let busiest_s = (0..channels.len())
        .filter(|&c| bytes[c] > 0.0)
        .map(|c| bytes[c] / faults.bandwidth_bytes_s(fabric, c as ChannelId))
        .fold(0.0, f64::max);
    Ok(LoadReport {
        max_routes: routes.iter().copied().max().unwrap_or(0),
        routes,
        bytes,
        max_network_routes,
        histogram,
        total_hops,
        phase_time_s: busiest_s + max_latency_s,
    })
}
