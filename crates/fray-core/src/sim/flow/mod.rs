//! The flow engine: an event-driven fluid simulation with max-min fair sharing.
//!
//! Each message is a flow along the path its routing gives when the message starts (adaptive
//! routings read the number of flows on each channel through [`Congestion`]). A message
//! posted at time `t` first pays its path's latency (the sum of its channels' latencies,
//! injection and ejection included), then its bytes flow at the max-min fair rate of the
//! moment until the last byte is through; with [`NicOrder::Fifo`] an endpoint's messages
//! move one at a time instead, each from its post or the end of the one before, and arrive
//! their path's latency after their last byte left. Rates change only when a flow starts or ends: the
//! engine jumps from one such event to the next and solves the rates again with progressive
//! filling ([`MaxMin`]). Compute operations simply take their time. Every job is a DAG of
//! operations ([`crate::workload::Dag`]): an operation starts when all it waits for is done,
//! so a job's iteration time comes out of the simulation.
//!
//! # Cost
//! A rate solve costs O(P) for the P path entries of the flows it re-rates, plus the queue
//! work of progressive filling over the channels they touch ([`MaxMin`]), plus O(1) per
//! re-rated flow, O(64) per block whose earliest end grew and O(F / 4096) per event to keep
//! the F moving flows' ends in blocks of 64 with a minimum each, and the blocks in groups of
//! 64 (the earliest end, and the flows that may leave, without a heap). Only the flows whose rate can
//! change are re-rated. At an event where few flows leave or join, the engine first tries
//! the case of sparse traffic: only the flows that joined and those at the top rate of a
//! saturated channel of a flow that left change rate first, and if each of them, taking the
//! least capacity left on its path on top of its rate, then has a bottleneck, no other
//! flow changes and that is the answer (no solve; O(1) per channel of these flows and per flow on them; most events of
//! a wavefront such as Sweep3D's). Otherwise it re-rates locally: the flows that joined or
//! were freed so, then those that the saturated channels of these bottleneck (the flows at
//! their top rate), and so on; it solves that
//! set on what the other flows leave and checks that every flow of the set has a
//! bottleneck, growing the set until it does. The answer is the max-min fair allocation
//! itself (it is unique), at the cost of the flows near the event (about an eighth of
//! those above the level below on the failed-links exchanges). Otherwise (many flows
//! leaving together, or a local set larger than a third of the moving flows) it re-rates
//! by level: progressive filling freezes flows in increasing order of rate, so flows below
//! the lowest rate of a flow that ended (or below the smallest starting fair share on a
//! new flow's path) keep their rates exactly, and the flows above are solved again (O(F)
//! to pick them). Flows that share a bottleneck and have as many bytes left finish at
//! the same instant and are handled by one event. On irregular traffic (every flow its own
//! rate) there is about one event per message, which bounds the engine: a shuffled 27-point
//! exchange of 44,928 messages on `torus:12x12x12` takes 23,218 events (about 40 % of the
//! active flows re-rated per event).
//!
//! To keep the number of events small on large irregular workloads, flows whose predicted
//! end lies within a relative `time_tolerance` of their message's time since it was posted
//! (its path's latency included) leave the network with the first of them to end; each such
//! message is still delivered, and its operation ended, at its own predicted end. Only the
//! bandwidth the early leavers free up early perturbs the others: on random traffic every
//! message's completion time stays within three times the tolerance of the exact one (a
//! property test checks this), and on the failed-links exchanges within a few percent of it.
//! The number of events falls roughly as 1/tolerance. The same window applies after a
//! flow's end: a flow that ends (its message delivered then) keeps its bandwidth while the
//! next flow end comes within its window, and the flows held so leave with the first solve
//! after that, together with the early leavers of that instant; so ends closer than the
//! window share one rate solve (about half as many solves on the failed-links exchanges),
//! and ends farther apart are simulated exactly. A held flow delays the others by as much
//! as an early leaver speeds them up, and the bounds below hold with it. Early in an
//! exchange, when every message is young, those windows are nanoseconds wide; a
//! `time_resolution_s` widens every window to at least that many seconds, and every
//! message's completion then stays within three times the tolerance of its time plus three
//! times the resolution of the exact one. With both 0 the simulation is exact.

mod engine;
mod maxmin;
mod radix;
mod share_queue;
mod spec;
mod time_blocks;

pub use engine::{simulate, FlowConfig, FlowResult, JobResult, NicOrder};
pub use maxmin::MaxMin;
pub use spec::FLOW_OPTIONS;

use crate::routing::Congestion;

/// The flow engine's congestion signal: flows routed on each channel and not yet finished.
pub struct FlowsOnChannel<'a>(pub &'a [u32]);

impl Congestion for FlowsOnChannel<'_> {
    fn congestion(&self, channel: crate::fabric::ChannelId) -> f64 {
        f64::from(self.0[channel as usize])
    }
}
