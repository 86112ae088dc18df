//! The packet engine: a discrete-event simulation of packets, buffers and credits, in
//! integer picoseconds.
//!
//! # Model
//! - A message is cut into packets of at most [`PacketConfig::packet_bytes`] (the MTU) at
//!   its source endpoint, which queues them without bound and injects them in order.
//! - Each directed channel serialises one packet at a time at its bandwidth (a packet of `b`
//!   bytes holds it `ceil(b / bandwidth)`) and delivers the head `latency` later: a channel's
//!   latency stands for the wire and the device at its end (100 ns per hop by default, the
//!   switch and HCA delay of the soft-error study).
//! - At the end of every router channel sit input buffers, one per virtual channel, each
//!   [`PacketConfig::buffer_bytes`] deep. The sender holds credits for them: a packet starts
//!   only when one virtual channel it may use (see the classes in `vc.rs`) has room for the
//!   whole packet (virtual cut-through). The space is credited back when the packet's tail
//!   has left the buffer, after the channel's latency.
//! - Only the head packet of each input buffer competes for its next channel; an output
//!   channel that goes free serves the waiting heads by [`Arbitration`]. A head may leave as
//!   soon as it is in (cut-through), but never so early that a faster next link would
//!   overtake its tail.
//! - Paths come from any [`Routing`](crate::routing::Routing), once per message when it is
//!   posted, or per packet as it leaves its source ([`PacketConfig::route_per_packet`]);
//!   adaptive routings read [`QueuedBytes`], the bytes bound for each channel: on their way
//!   to it, waiting for it, or holding buffer space beyond it (or, with
//!   [`QueueView::Output`], only the first two), saturating at
//!   [`PacketConfig::queue_cap_bytes`].
//! - Soft errors ([`SoftErrors`]) corrupt transmissions; the receiver finds the bad CRC as
//!   the tail arrives and drops the packet, the NAK travels back over the wire (the
//!   channel's latency, plus [`PacketConfig::nak_ps`]), and the sender's link resends the
//!   packet as soon as the channel is free. A corrupted packet is never forwarded, so the
//!   bandwidth a cut-through corrupted packet would waste further on is not counted.
//!
//! Events are 16-byte words ordered by time, then by what the event is (kind and operands), in
//! a radix heap (time never goes back, so pushes are O(1) and pops amortised O(1)); a run is
//! the same for the same inputs and seed. Packets and messages live in slabs reused through free
//! lists, buffers are intrusive lists: after warm-up no packet allocates.
//!
//! # Invariants (tested)
//! Every injected packet is delivered exactly once ([`PacketCounters`]: packets and bytes
//! injected equal those delivered once a run ends), the clock never goes back
//! (`time_regressions == 0`), and every credit comes home (`credit_bytes_outstanding == 0`).

mod config;
mod engine;
mod event;
mod jobs;
mod link;
mod queue;
mod signal;
mod soft_errors;
mod traffic;
mod vc;

pub use config::{Arbitration, PacketConfig, QueueView, RouterPreset, PACKET_OPTIONS};
pub use engine::{PacketCounters, CLOCK_LIMIT_S};
pub use jobs::{simulate, PacketResult};
pub use link::{first_good_copy, GoodCopy, LinkTiming};
pub use signal::QueuedBytes;
pub use soft_errors::{ErrorProcess, SoftErrors};
pub use traffic::{traffic, TrafficConfig, TrafficResult};
pub use vc::{VcClasses, ARIES_ROUTER_HOPS};

use crate::fabric::Fabric;
use crate::routing::Routing;

/// The fewest virtual channels per channel ([`PacketConfig::vcs`]) that keep `routing` on
/// `fabric` free of deadlock: one per class of its deadlock-avoidance scheme (see
/// [`PacketConfig::vcs`]; the table router needs one per hop of its longest route).
pub fn vcs_needed(fabric: &Fabric, routing: &dyn Routing) -> u16 {
    vc::VcClasses::needed(fabric, routing)
}

impl PacketConfig {
    /// This configuration with at least as many virtual channels as `routing` on `fabric`
    /// needs ([`vcs_needed`]).
    pub fn with_enough_vcs(self, fabric: &Fabric, routing: &dyn Routing) -> Self {
        Self {
            vcs: self.vcs.max(vcs_needed(fabric, routing)),
            ..self
        }
    }
}

/// The packet engine's errors: the engines' one error type.
pub type PacketError = crate::sim::SimError;
