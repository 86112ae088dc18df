//! The event loop of the flow engine.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use super::time_blocks::TimeBlocks;
use super::{FlowsOnChannel, MaxMin};
use crate::fabric::{ChannelId, Fabric};
use crate::faults::Faults;
use crate::interrupt;
use crate::routing::{
    self, message_entropy, route_endpoints, CongestionUnit, RouteRequest, Routing, RoutingError,
};
use crate::sim::SimError;
use crate::workload::{HostTimeline, Job, JobsProgress, Op};

/// Settings of a flow simulation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowConfig {
    /// Seed of the routings' random choices: message `k` draws from `(seed, k)`.
    pub seed: u64,
    /// Flows ending within this fraction of their message's time so far (from its post, its
    /// path's latency included; from its start with [`NicOrder::Fifo`]) after an event end
    /// with it, and a flow that ends keeps its bandwidth up to as long after its end while
    /// another flow's end comes within that time, so that the two share one rate solve (0:
    /// exact). Each message is still delivered at its own predicted end.
    pub time_tolerance: f64,
    /// Flows ending within this many seconds after an event end with it too, and a flow
    /// that ends may keep its bandwidth as long, however young their message (0: only the
    /// relative `time_tolerance` applies).
    pub time_resolution_s: f64,
    /// How each source endpoint's NIC serves the messages posted to it.
    pub nic: NicOrder,
}

/// How a source endpoint's NIC serves the messages posted to it (the engine spec's `nic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NicOrder {
    /// Every posted message moves at once, each a flow of its own that shares the injection
    /// channel max-min with the others, from its path's latency after its post until its last
    /// byte arrives (a NIC that interleaves its queues, as an InfiniBand HCA does its queue
    /// pairs). The default.
    #[default]
    Shared,
    /// One message at a time, in the order they were posted: a message's bytes leave the NIC
    /// from its post, or from the moment the last byte of the message before it has left,
    /// whichever is later, and its last byte arrives its path's latency after it left (the
    /// packet engine's NIC, and SST Firefly's, whose one send machine works on one message
    /// at a time).
    Fifo,
}

impl NicOrder {
    /// The name the engine spec reads (`shared`, `fifo`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Shared => "shared",
            Self::Fifo => "fifo",
        }
    }
}

impl FlowConfig {
    /// The relative time tolerance of every flow simulation unless a run sets its own (the
    /// engine spec's `time_tolerance`): iteration times within a few tenths of a percent of
    /// the exact solve, at a fraction of its events.
    pub const DEFAULT_TIME_TOLERANCE: f64 = 3e-3;
    /// The absolute time resolution of every flow simulation unless a run sets its own
    /// (the engine spec's `time_resolution`), in seconds (20 ns): on the failed-links
    /// exchanges of 72 to 8,704 endpoints its iteration times are within 1.6e-3 of the
    /// exact solve, as close as at 10 ns (2.1e-3), where 30 ns reaches 2.4e-3.
    pub const DEFAULT_TIME_RESOLUTION_S: f64 = 2e-8;
    /// No tolerance and no resolution: every flow ends at its own time.
    pub const EXACT: Self = Self {
        seed: 1,
        time_tolerance: 0.0,
        time_resolution_s: 0.0,
        nic: NicOrder::Shared,
    };

    /// Checks the settings: `time_tolerance` in `[0, 0.5)` (a flow may not end more than
    /// half its message's time early) and `time_resolution_s` in `[0, 1 ms)`; NaN is
    /// neither. The error names the setting (`time_tolerance`, `time_resolution`).
    pub fn check(&self) -> Result<(), SimError> {
        if !(0.0..0.5).contains(&self.time_tolerance) {
            return Err(SimError::Config {
                field: "time_tolerance",
                reason: format!("must be in [0, 0.5), got {}", self.time_tolerance),
            });
        }
        if !(0.0..1e-3).contains(&self.time_resolution_s) {
            return Err(SimError::Config {
                field: "time_resolution",
                reason: format!("must be in [0, 1 ms), got {} s", self.time_resolution_s),
            });
        }
        Ok(())
    }
}

impl Default for FlowConfig {
    /// Seed 1, [`FlowConfig::DEFAULT_TIME_TOLERANCE`],
    /// [`FlowConfig::DEFAULT_TIME_RESOLUTION_S`] and the default [`NicOrder`].
    fn default() -> Self {
        Self {
            seed: 1,
            time_tolerance: Self::DEFAULT_TIME_TOLERANCE,
            time_resolution_s: Self::DEFAULT_TIME_RESOLUTION_S,
            nic: NicOrder::default(),
        }
    }
}

/// What one job did.
#[derive(Debug, Clone, PartialEq)]
pub struct JobResult {
    /// The job's name.
    pub name: String,
    /// Time from the start of the simulation to the end of the job's last operation, in seconds.
    pub makespan_s: f64,
    /// `makespan_s` over the number of iterations of the job's DAG, in seconds.
    pub iteration_s: f64,
    /// Messages the job sent.
    pub messages: u64,
    /// Bytes the job sent.
    pub bytes: f64,
}

impl JobResult {
    /// The result of `job` when its last operation ended at `makespan_s` seconds.
    pub fn new(job: &Job, makespan_s: f64) -> Self {
        Self {
            name: job.name.clone(),
            makespan_s,
            iteration_s: makespan_s / f64::from(job.dag.iterations()),
            messages: job.dag.num_messages() as u64,
            bytes: job.dag.total_bytes(),
        }
    }
}

/// The outcome of a flow simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowResult {
    /// One entry per job, in the order given.
    pub jobs: Vec<JobResult>,
    /// Time the last operation of any job ended, in seconds.
    pub end_s: f64,
    /// Bytes delivered, summed over messages (equals the bytes sent).
    pub delivered_bytes: f64,
    /// Bytes that crossed each channel.
    pub channel_bytes: Vec<f64>,
    /// Number of event times the engine stopped at.
    pub events: u64,
    /// Number of max-min rate solves.
    pub rate_solves: u64,
    /// Time each operation ended, in seconds, indexed by global operation (the operations of
    /// the first job, then those of the second, ...): a message ends when its last byte
    /// arrives, a compute when its time is up.
    pub op_end_s: Vec<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// A compute operation, or the posting of a receive, ends.
    ComputeDone(u32),
    /// A message's bytes start moving: its flow joins the active set.
    Activate(u32),
    /// A message's last byte arrives now: a control message's, or a flow's that left the
    /// network early (within the time tolerance) or whose NIC is [`NicOrder::Fifo`].
    Delivered(u32),
    /// The sender's core has posted a message (its host costs paid): it is routed now.
    Post(u32),
    /// The receiver's core has finished a message that arrived earlier: its operation ends.
    Received(u32),
}

#[derive(Debug, Clone, Copy)]
struct Event {
    time_s: f64,
    seq: u64,
    kind: Kind,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .time_s
            .total_cmp(&self.time_s)
            .then(other.seq.cmp(&self.seq))
    }
}

/// A message in flight.
#[derive(Debug, Clone, Copy)]
struct Flow {
    op: u32,
    path_start: u32,
    path_len: u32,
    size_bytes: f64,
    /// When the message was posted (before its path's latency), in seconds.
    posted_s: f64,
    /// Its source endpoint.
    src: u32,
    /// How long after its last byte has left the NIC it arrives, in seconds: its path's
    /// latency where the flow starts at its post ([`NicOrder::Fifo`]), 0 where it starts
    /// once that latency has passed ([`NicOrder::Shared`]).
    delivery_delay_s: f64,
}

/// A flow with bytes moving: what the rate solves read, kept contiguous and in the order
/// the flows started (with the places of flows that left, until `compact_moving`).
#[derive(Debug, Clone, Copy)]
struct Moving {
    flow: u32,
    /// Its channels: `moving_paths[path_start..path_start + path_len]`.
    path_start: u32,
    path_len: u32,
    /// When its message's time so far starts, in seconds (its windows are shares of that
    /// time): its post with [`NicOrder::Shared`], its start with [`NicOrder::Fifo`] (so that
    /// a message's wait behind the others of its NIC does not widen its windows).
    since_s: f64,
    /// Bytes left at `rated_s`.
    remaining_bytes: f64,
    /// When the flow last got a new rate, in seconds.
    rated_s: f64,
}

/// `State::rates` of a flow that has left the network (its place in `active` is empty).
const LEFT: f64 = -1.0;

/// A channel with at most this fraction of its capacity left is saturated.
const SATURATED: f64 = 1e-9;
/// Rates within this fraction of a channel's top rate are at its top.
const TOP: f64 = 1e-9;
/// Re-rates without a solve ([`State::rerate_simply`]) are tried at events where at most
/// this many flows leave or join.
const SIMPLE_CHANGES: usize = 4;
/// A local re-rate gives up after this many rounds...
const LOCAL_ROUNDS: usize = 6;
/// ... or once its set holds more than this fraction (one over it) of the moving flows. A
/// flow re-rated locally costs two to three times one re-rated by level (the closure and
/// the check read each channel's flows, and a second round solves the set again), and a
/// re-rate by level takes half the moving flows or more; of 3, 6, 12 and 24, 6 and 12 gave
/// the shortest runs on the failed-links exchanges of 8,704 and 33,280 endpoints.
const LOCAL_SHARE: usize = 12;
/// ... but may always hold this many flows: where few flows move (Sweep3D's 40 or so), a
/// twelfth of them would send most events by level, and cost Sweep3D 15 % (16 and 64 tried).
const LOCAL_FLOOR: usize = 64;

struct State<'a> {
    fabric: &'a Fabric,
    faults: &'a Faults,
    routing: &'a dyn Routing,
    config: FlowConfig,
    /// Which operations still wait, and when each job last ended.
    progress: JobsProgress<'a, f64>,
    /// When each rank's core is free of the host costs of its messages.
    host: HostTimeline,
    /// Operations released by the one that just ended, to start in order.
    released: Vec<u32>,
    op_end_s: Vec<f64>,
    events: BinaryHeap<Event>,
    seq: u64,
    paths: Vec<ChannelId>,
    flows: Vec<Flow>,
    /// Flows with bytes moving, in the order they started, and (same index) their rates
    /// ([`LEFT`] for a flow that has left), predicted ends and leaving times (the time from
    /// which the time tolerance lets the flow leave; infinite for a flow that has left), in
    /// seconds, kept in blocks that give the earliest end and the flows that may leave at
    /// a time without a scan of every flow.
    active: Vec<Moving>,
    rates: Vec<f64>,
    ends: TimeBlocks,
    leaves: TimeBlocks,
    /// Flows in `active` that have not left (the held ones included).
    live: usize,
    /// Positions in `active` of the flows that ended (their messages delivered) but keep
    /// their bandwidth until the next solve, and the latest time that solve may come: the
    /// earliest end plus window of a held flow (infinite when none is held).
    held: Vec<u32>,
    hold_until: f64,
    /// The paths of the moving flows, in the same order (with the gaps of flows that ended,
    /// until `compact_moving`): a solve reads them front to back.
    moving_paths: Vec<ChannelId>,
    /// Path entries of the moving flows (`moving_paths` less its gaps).
    moving_path_entries: usize,
    flows_on: Vec<u32>,
    capacity: Vec<f64>,
    /// Capacity each channel has left after the rates of the active flows, bytes per second.
    residual: Vec<f64>,
    /// Positions in `active` of the flows a solve re-rates, and their new rates.
    resolve: Vec<usize>,
    new_rates: Vec<f64>,
    channel_bytes: Vec<f64>,
    delivered_bytes: f64,
    scratch: Vec<ChannelId>,
    done_ops: Vec<u32>,
    leaving_scratch: Vec<u32>,
    /// Positions in `active` of the moving flows on each channel, and of those that left
    /// since `compact_moving` (their rate is [`LEFT`], below every rate the lists are read
    /// for, so they are skipped without a test of their own).
    on: Vec<Vec<u32>>,
    /// Top rate of each channel's flows, valid where `top_known` (kept true as rates change
    /// where that is known, [`State::update_tops`], else cleared).
    channel_top: Vec<f64>,
    top_known: Vec<bool>,
    /// How an event's flows are re-rated.
    rerate: Rerate,
    /// Marks of the local re-rate's flows (by position in `active`) and channels: equal to
    /// `stamp` when in the current set.
    flow_mark: Vec<u32>,
    channel_mark: Vec<u32>,
    stamp: u32,
    /// Channels whose flows at the top rate join the local set, still to visit.
    pending: Vec<ChannelId>,
    /// Flows that started moving at this event: the last ones of `active`.
    joined: usize,
    /// Positions in `active` of the flows at the top rate of a saturated channel of a flow
    /// that left at this event (their rates may grow).
    freed: Vec<u32>,
    /// More flows left or joined at this event than a local re-rate may hold: the event is
    /// re-rated by level (and the flows that those leaving free are not collected).
    by_level: bool,
    /// The flows [`State::rerate_simply`] raised, and their rates before, to undo.
    raised: Vec<(u32, f64)>,
    /// With [`NicOrder::Fifo`], per source endpoint: the flows posted and waiting for the
    /// NIC, in post order, and whether it is sending one (empty otherwise).
    nic_waiting: Vec<VecDeque<u32>>,
    nic_busy: Vec<bool>,
}

/// Runs `jobs` on `fabric` under `faults` with `routing` until every operation is done.
/// Fails with `Unroutable` (naming the pair) as soon as a message cannot be routed, and with
/// [`SimError::Interrupted`] at the first event after a stop is requested
/// ([`crate::interrupt`]).
pub fn simulate(
    fabric: &Fabric,
    faults: &Faults,
    routing: &dyn Routing,
    jobs: &[Job],
    config: FlowConfig,
) -> Result<FlowResult, SimError> {
    simulate_with(fabric, faults, routing, jobs, config, Rerate::Local)
}

/// Which flows an event re-rates: all three give the same rates, to rounding.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Rerate {
    /// Without a solve where few flows leave or join ([`State::rerate_simply`]), else
    /// locally ([`State::rerate_locally`]), else by level: the engine's way.
    Local,
    /// Every flow at or above the lowest level the event can change
    /// ([`State::resolve_from`]).
    #[cfg(test)]
    ByLevel,
    /// Every moving flow (the reference the others are checked against).
    #[cfg(test)]
    Full,
}

/// How a local re-rate ([`State::rerate_locally`]) ended.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Local {
    /// The rates are max-min fair again.
    Solved,
    /// The event is to be re-rated by level; `changed`: after the local re-rate had changed
    /// some rates.
    GaveUp { changed: bool },
}

/// [`simulate`], re-rating as `rerate` says.
fn simulate_with(
    fabric: &Fabric,
    faults: &Faults,
    routing: &dyn Routing,
    jobs: &[Job],
    config: FlowConfig,
    rerate: Rerate,
) -> Result<FlowResult, SimError> {
    routing::check_congestion_unit(routing, CongestionUnit::Flows)?;
    let n_ops: usize = jobs.iter().map(|j| j.dag.ops().len()).sum();
    let num_channels = fabric.channels().len();
    let nics = match config.nic {
        NicOrder::Fifo => fabric.num_endpoints(),
        NicOrder::Shared => 0,
    };
    let mut s = State {
        fabric,
        faults,
        routing,
        config,
        progress: JobsProgress::new(jobs),
        host: HostTimeline::new(jobs),
        released: Vec::new(),
        op_end_s: vec![f64::NAN; n_ops],
        events: BinaryHeap::new(),
        seq: 0,
        paths: Vec::new(),
        flows: Vec::new(),
        active: Vec::new(),
        rates: Vec::new(),
        ends: TimeBlocks::default(),
        leaves: TimeBlocks::default(),
        live: 0,
        held: Vec::new(),
        hold_until: f64::INFINITY,
        moving_paths: Vec::new(),
        moving_path_entries: 0,
        flows_on: vec![0; num_channels],
        capacity: (0..num_channels)
            .map(|c| faults.bandwidth_bytes_s(fabric, c as ChannelId))
            .collect(),
        residual: Vec::new(),
        resolve: Vec::new(),
        new_rates: Vec::new(),
        channel_bytes: vec![0.0; num_channels],
        delivered_bytes: 0.0,
        scratch: Vec::new(),
        done_ops: Vec::new(),
        leaving_scratch: Vec::new(),
        on: vec![Vec::new(); num_channels],
        channel_top: vec![0.0; num_channels],
        top_known: vec![false; num_channels],
        rerate,
        flow_mark: Vec::new(),
        channel_mark: vec![0; num_channels],
        stamp: 0,
        pending: Vec::new(),
        joined: 0,
        freed: Vec::new(),
        by_level: false,
        raised: Vec::new(),
        nic_waiting: vec![VecDeque::new(); nics],
        nic_busy: vec![false; nics],
    };
    s.residual = s.capacity.clone();
    for g in s.progress.initially_ready() {
        s.start(g, 0.0)?;
    }
    let mut solver = MaxMin::new(num_channels);
    let (mut events, mut solves) = (0u64, 0u64);
    // The earliest predicted flow end; it changes only where rates do.
    let mut next_flow = f64::INFINITY;
    loop {
        let next_event = s.events.peek().map_or(f64::INFINITY, |e| e.time_s);
        let t = next_flow.min(next_event);
        if t == f64::INFINITY {
            break;
        }
        interrupt::check()?;
        events += 1;
        let mut changed = false;
        // Flows that left or joined at this event.
        let mut moved = 0usize;
        // The lowest max-min level this event can change (see `resolve_from`).
        let mut restart = f64::INFINITY;
        // At a flow's end, its message is delivered; the flow keeps its bandwidth while the
        // next flow end comes within its window (see `hold`), and once none does, the held
        // flows and those ending within the tolerance of their message's time so far leave
        // the network together (each of those messages is delivered at its predicted end).
        let ended = next_flow <= t;
        if ended {
            s.hold(t);
            if s.next_end() > s.hold_until {
                moved += s.release(t, &mut restart);
                changed = true;
            }
        }
        // Discrete events at this instant (within a picosecond).
        while let Some(e) = s.events.peek().copied() {
            if e.time_s > t + 1e-12 {
                break;
            }
            s.events.pop();
            match e.kind {
                Kind::ComputeDone(op) | Kind::Received(op) => s.done_ops.push(op),
                Kind::Delivered(op) => s.arrived(op, t),
                Kind::Post(op) => s.post(op, t)?,
                Kind::Activate(f) => {
                    let flow = s.flows[f as usize];
                    if flow.path_len == 0 || flow.size_bytes == 0.0 {
                        s.finish_flow(f);
                        s.nic_next(f, t);
                        s.deliver(f, t, t);
                    } else {
                        restart = restart.min(s.lowest_share(f));
                        let start = s.moving_paths.len() as u32;
                        let at = s.active.len() as u32;
                        for k in flow.path_start..flow.path_start + flow.path_len {
                            let c = s.paths[k as usize];
                            s.on[c as usize].push(at);
                        }
                        let path =
                            flow.path_start as usize..(flow.path_start + flow.path_len) as usize;
                        s.moving_paths.extend_from_slice(&s.paths[path]);
                        s.moving_path_entries += flow.path_len as usize;
                        s.active.push(Moving {
                            flow: f,
                            path_start: start,
                            path_len: flow.path_len,
                            since_s: match s.config.nic {
                                NicOrder::Shared => flow.posted_s,
                                NicOrder::Fifo => t,
                            },
                            remaining_bytes: flow.size_bytes,
                            rated_s: t,
                        });
                        s.rates.push(0.0);
                        s.flow_mark.push(0);
                        s.ends.push(f64::INFINITY);
                        s.leaves.push(f64::INFINITY);
                        s.live += 1;
                        s.joined += 1;
                        moved += 1;
                        changed = true;
                    }
                }
            }
        }
        // Operations done now release their successors (which may start flows or computes).
        while let Some(op) = s.done_ops.pop() {
            s.complete(op, t)?;
        }
        // Rates change now anyway: the held flows leave with this solve.
        if changed && !s.held.is_empty() {
            moved += s.release(t, &mut restart);
        }
        if changed && s.live > 0 {
            solves += 1;
            #[cfg(test)]
            if s.rerate == Rerate::Full {
                restart = 0.0;
            }
            // (As many flows joining as a local re-rate may hold go by level too.)
            s.by_level |= s.joined > s.local_budget();
            let local = s.rerate == Rerate::Local && !s.by_level;
            let simple = local && moved <= SIMPLE_CHANGES && s.rerate_simply(t);
            let outcome = match (simple, local) {
                (true, _) => Local::Solved,
                (false, true) => s.rerate_locally(&mut solver, t),
                (false, false) => Local::GaveUp { changed: false },
            };
            if let Local::GaveUp { changed } = outcome {
                s.resolve_from(&mut solver, restart, t, changed);
            }
        }
        s.joined = 0;
        s.freed.clear();
        s.by_level = false;
        if s.active.len() > 2 * s.live + 64 {
            s.compact_moving();
        }
        if changed || ended {
            next_flow = s.next_end();
        }
    }
    if let Some(i) = s.rates.iter().position(|&r| r != LEFT) {
        let f = s.flows[s.active[i].flow as usize];
        let (_, job, op) = s.progress.op(f.op);
        let Some((src, dst, _)) = op.message() else {
            unreachable!("flows are messages")
        };
        return Err(RoutingError::Unroutable {
            src: fabric
                .endpoint_name(job.placement[src as usize])
                .to_string(),
            dst: fabric
                .endpoint_name(job.placement[dst as usize])
                .to_string(),
            reason: "a channel on the path has no bandwidth left (every lane lost)".into(),
        }
        .into());
    }
    let results = jobs
        .iter()
        .zip(s.progress.job_end())
        .map(|(j, &end)| JobResult::new(j, end))
        .collect();
    Ok(FlowResult {
        jobs: results,
        end_s: s.progress.job_end().iter().copied().fold(0.0, f64::max),
        delivered_bytes: s.delivered_bytes,
        channel_bytes: s.channel_bytes,
        events,
        rate_solves: solves,
        op_end_s: s.op_end_s,
    })
}

impl State<'_> {
    /// The channels of flow `f`.
    fn path(&self, f: u32) -> &[ChannelId] {
        let flow = &self.flows[f as usize];
        &self.paths[flow.path_start as usize..(flow.path_start + flow.path_len) as usize]
    }

    /// Drops the places of the flows that left from `active` and its parallel arrays, and
    /// rewrites `moving_paths` without their gaps, keeping the order.
    fn compact_moving(&mut self) {
        let mut packed = Vec::with_capacity(self.moving_path_entries);
        let rates = &self.rates;
        self.ends.retain_positions(|i| rates[i] != LEFT);
        self.leaves.retain_positions(|i| rates[i] != LEFT);
        let mut kept = 0;
        for i in 0..self.active.len() {
            if self.rates[i] == LEFT {
                continue;
            }
            let mut m = self.active[i];
            let (a, b) = (m.path_start as usize, (m.path_start + m.path_len) as usize);
            m.path_start = packed.len() as u32;
            packed.extend_from_slice(&self.moving_paths[a..b]);
            self.active[kept] = m;
            self.flow_mark[kept] = self.flow_mark[i];
            self.rates[kept] = self.rates[i];
            kept += 1;
        }
        self.active.truncate(kept);
        self.flow_mark.truncate(kept);
        self.rates.truncate(kept);
        self.moving_paths = packed;
        for list in &mut self.on {
            list.clear();
        }
        for (i, m) in self.active.iter().enumerate() {
            let path =
                &self.moving_paths[m.path_start as usize..(m.path_start + m.path_len) as usize];
            for &c in path {
                self.on[c as usize].push(i as u32);
            }
        }
    }

    /// The earliest predicted end of a moving flow (infinite when none).
    fn next_end(&mut self) -> f64 {
        self.ends.min()
    }

    /// How long before its predicted `end` a flow whose message's time started at `since_s`
    /// ([`Moving::since_s`]) may leave the network, and how long after it the flow may keep
    /// its bandwidth, in seconds: the time tolerance of its message's time so far, or the
    /// time resolution if larger.
    fn window(&self, end: f64, since_s: f64) -> f64 {
        (self.config.time_tolerance * (end - since_s)).max(self.config.time_resolution_s)
    }

    /// The flows whose predicted end is at most `t` end now: their messages are delivered,
    /// and each keeps its rate (held) until the next solve, which must come within its
    /// window after its end.
    ///
    /// Holding is the mirror of leaving early: a flow that leaves early gives its bandwidth
    /// back up to its window before its end, a held flow up to its window after; the
    /// others' rates move by as much either way. A flow is held only while the next flow
    /// end comes within the window (the caller releases the held flows as soon as it does
    /// not), so a held flow delays a solve only to merge it with the next end; where ends
    /// are sparse no flow is held and the others see every end at its time.
    fn hold(&mut self, t: f64) {
        let mut ending = std::mem::take(&mut self.leaving_scratch);
        ending.clear();
        self.ends.up_to(t, &mut ending);
        for &i in &ending {
            let i = i as usize;
            let end = self.ends.get(i);
            self.hold_until = self
                .hold_until
                .min(end + self.window(end, self.active[i].since_s));
            self.ends.set(i, f64::INFINITY);
            self.leaves.set(i, f64::INFINITY);
            self.held.push(i as u32);
            let f = self.active[i].flow;
            self.nic_next(f, end);
            self.deliver(f, t, t);
        }
        self.leaving_scratch = ending;
    }

    /// The held flows, and the flows that may leave at `t` (leaving time at most `t`), leave
    /// the network at `t`: their rates go back to their channels, and `restart` comes down
    /// to the lowest of those rates. The messages of the early leavers are delivered at their
    /// predicted ends. Returns how many flows left.
    fn release(&mut self, t: f64, restart: &mut f64) -> usize {
        let mut leaving = std::mem::take(&mut self.held);
        let held = leaving.len();
        self.leaves.up_to(t, &mut leaving);
        self.by_level |= leaving.len() > self.local_budget();
        let local = self.rerate == Rerate::Local && !self.by_level;
        for (k, &i) in leaving.iter().enumerate() {
            let i = i as usize;
            if local {
                self.collect_freed(i);
            }
            let (m, rate, end) = (self.active[i], self.rates[i], self.ends.get(i));
            self.rates[i] = LEFT;
            self.ends.set(i, f64::INFINITY);
            self.leaves.set(i, f64::INFINITY);
            self.live -= 1;
            self.moving_path_entries -= m.path_len as usize;
            self.give_back(m.flow, rate);
            self.update_tops(i, rate, LEFT);
            *restart = restart.min(rate);
            self.finish_flow(m.flow);
            if k >= held {
                // (Its end is after `t`: the flows ending by `t` are held.)
                self.nic_next(m.flow, end);
                self.deliver(m.flow, end, t);
            }
        }
        let n = leaving.len();
        leaving.clear();
        self.held = leaving;
        self.hold_until = f64::INFINITY;
        n
    }

    /// Returns flow `f`'s rate to the channels it crosses.
    fn give_back(&mut self, f: u32, rate: f64) {
        let flow = self.flows[f as usize];
        for k in flow.path_start..flow.path_start + flow.path_len {
            self.residual[self.paths[k as usize] as usize] += rate;
        }
    }

    /// A lower bound of the max-min level at which a new flow `f` can change anything: the
    /// smallest fair share on its path at the start of progressive filling.
    fn lowest_share(&self, f: u32) -> f64 {
        self.path(f)
            .iter()
            .map(|&c| self.capacity[c as usize] / f64::from(self.flows_on[c as usize].max(1)))
            .fold(f64::INFINITY, f64::min)
    }

    /// Solves the rates again after flows started or ended at `t`, from max-min level
    /// `restart` up.
    ///
    /// Progressive filling freezes flows in increasing order of rate. A flow that ended with
    /// rate `r` crossed no channel that was a bottleneck below `r`, and a new flow cannot
    /// change anything below the smallest starting fair share on its path; so every flow
    /// whose rate is below `restart` keeps it, and only the flows at or above it are solved
    /// again, on the capacity the others leave. The result is the same as a full solve; the
    /// cost is that of the flows re-rated. A re-rated flow left without bandwidth (rounding
    /// in the residual capacities) falls back to a full solve. `after_local`: a local
    /// re-rate at this event gave up after changing rates, and the flows it marked are
    /// solved again too.
    fn resolve_from(&mut self, solver: &mut MaxMin, restart: f64, t: f64, after_local: bool) {
        let level = restart * (1.0 - 1e-9);
        self.resolve.clear();
        // Flows a local re-rate that gave up has already changed are solved again too.
        let stamp = self.stamp;
        self.resolve.extend((0..self.active.len()).filter(|&i| {
            self.rates[i] >= level
                || self.rates[i] == 0.0
                || (after_local && self.flow_mark[i] == stamp)
        }));
        if !self.solve_subset(solver, t) {
            // Every flow again, on capacities recomputed from scratch.
            self.resolve.clear();
            for i in 0..self.active.len() {
                if self.rates[i] == LEFT {
                    continue;
                }
                let m = &mut self.active[i];
                m.remaining_bytes = (m.remaining_bytes - self.rates[i] * (t - m.rated_s)).max(0.0);
                m.rated_s = t;
                self.rates[i] = 0.0;
                self.ends.set(i, f64::INFINITY);
                self.leaves.set(i, f64::INFINITY);
                self.resolve.push(i);
            }
            self.residual.copy_from_slice(&self.capacity);
            self.top_known.fill(false);
            let whole = self.solve_subset(solver, t);
            debug_assert!(whole, "a full solve gives every live flow some bandwidth");
        }
    }

    /// How many flows a local re-rate may hold: a share of the moving flows, and never
    /// fewer than [`LOCAL_FLOOR`].
    fn local_budget(&self) -> usize {
        (self.live / LOCAL_SHARE).max(LOCAL_FLOOR)
    }

    /// Whether channel `c` has no capacity left (to rounding).
    fn saturated(&self, c: ChannelId) -> bool {
        self.residual[c as usize] <= SATURATED * self.capacity[c as usize]
    }

    /// Puts the moving flow at position `i` in the local set, and queues its saturated
    /// channels (those on which it can move other flows' rates) for a visit.
    fn join(&mut self, i: usize) {
        if self.flow_mark[i] == self.stamp {
            return;
        }
        self.flow_mark[i] = self.stamp;
        self.resolve.push(i);
        let m = self.active[i];
        for k in m.path_start..m.path_start + m.path_len {
            let c = self.moving_paths[k as usize];
            if self.channel_mark[c as usize] != self.stamp && self.saturated(c) {
                self.channel_mark[c as usize] = self.stamp;
                self.pending.push(c);
            }
        }
    }

    /// The top rate of channel `c`'s flows: a scan of them, kept until one of them gets a
    /// new rate or leaves.
    fn top(&mut self, c: ChannelId) -> f64 {
        if !self.top_known[c as usize] {
            self.top_known[c as usize] = true;
            self.channel_top[c as usize] = self.on[c as usize]
                .iter()
                .map(|&j| self.rates[j as usize])
                .fold(0.0, f64::max);
        }
        self.channel_top[c as usize]
    }

    /// Keeps the top rates of the channels of the moving flow at position `i` true when its
    /// rate goes from `old` to `new` (bytes per second; [`LEFT`] when it leaves): a rate
    /// above a channel's top is its new top, and a channel whose top this flow had (to
    /// [`TOP`]) and loses forgets it, to be scanned again when asked.
    fn update_tops(&mut self, i: usize, old: f64, new: f64) {
        let m = self.active[i];
        for k in m.path_start..m.path_start + m.path_len {
            let c = self.moving_paths[k as usize] as usize;
            if !self.top_known[c] {
                continue;
            }
            let top = self.channel_top[c];
            if new >= top {
                self.channel_top[c] = new;
            } else if old >= top * (1.0 - TOP) {
                self.top_known[c] = false;
            }
        }
    }

    /// Whether the moving flow at position `i` has a bottleneck: a saturated channel on its
    /// path on which no flow has a higher rate.
    fn has_bottleneck(&mut self, i: usize) -> bool {
        let (m, rate) = (self.active[i], self.rates[i]);
        let above = rate * (1.0 + TOP);
        (m.path_start..m.path_start + m.path_len).any(|k| {
            let c = self.moving_paths[k as usize];
            self.saturated(c) && self.top(c) <= above
        })
    }

    /// Visits the queued channels: the flows at the top rate of each (those it bottlenecks),
    /// and new flows, join the local set, and so on through their saturated channels. Stops
    /// once the set holds more than `budget` flows.
    fn close_set(&mut self, budget: usize) {
        while let Some(c) = self.pending.pop() {
            if self.resolve.len() > budget {
                self.pending.clear();
                return;
            }
            let top = self.top(c);
            for k in 0..self.on[c as usize].len() {
                let j = self.on[c as usize][k] as usize;
                let rate = self.rates[j];
                if rate == 0.0 || rate >= top * (1.0 - TOP) {
                    self.join(j);
                }
            }
        }
    }

    /// Re-rates, after flows left or joined at `t`, only the flows whose rates can
    /// follow, and checks the result; or gives up (the flows of its set are then marked for
    /// [`Self::resolve_from`], which needs them where it changed rates).
    ///
    /// A max-min fair allocation is the one in which every flow has a bottleneck: a
    /// saturated channel on which no flow has a higher rate. Starting from the allocation
    /// before the event (max-min fair), a flow's rate can change only if it joined, or was
    /// at the top rate of a saturated channel of a flow that left (`freed`), or through the
    /// saturated channels of the flows re-rated: on each, the flows it bottlenecks (at its
    /// top rate) follow. That set is solved on what the others leave; a flow outside it
    /// keeps its bottleneck (no flow of the set crosses it), and a flow of the set has one
    /// unless a flow outside the set has a higher rate on every saturated channel of its
    /// path: such flows join the set, which is solved again. The answer is then the max-min
    /// fair allocation itself (it is unique), at the cost of the flows near the event rather
    /// than of the flows above a level. It gives up after a few rounds, or once the set is
    /// as large as a fraction of the moving flows.
    fn rerate_locally(&mut self, solver: &mut MaxMin, t: f64) -> Local {
        self.stamp += 1;
        self.resolve.clear();
        for k in 0..self.freed.len() {
            let j = self.freed[k] as usize;
            if self.rates[j] > 0.0 {
                self.join(j);
            }
        }
        for i in self.active.len() - self.joined..self.active.len() {
            self.join(i);
        }
        let budget = self.local_budget();
        let mut changed = false;
        for _ in 0..LOCAL_ROUNDS {
            self.close_set(budget);
            if self.resolve.len() > budget {
                return Local::GaveUp { changed };
            }
            // In the order of `active`, so that the solve reads the paths front to back.
            self.resolve.sort_unstable();
            if !self.solve_subset(solver, t) {
                return Local::GaveUp { changed };
            }
            changed = true;
            // Flows outside the set above a set flow on all its saturated channels join it.
            let before = self.resolve.len();
            for k in 0..before {
                let i = self.resolve[k];
                if self.has_bottleneck(i) {
                    continue;
                }
                let above = self.rates[i] * (1.0 + TOP);
                let m = self.active[i];
                let path = m.path_start as usize..(m.path_start + m.path_len) as usize;
                for p in path {
                    let c = self.moving_paths[p];
                    if !self.saturated(c) {
                        continue;
                    }
                    for q in 0..self.on[c as usize].len() {
                        let j = self.on[c as usize][q] as usize;
                        if self.rates[j] > above {
                            self.join(j);
                        }
                    }
                }
            }
            if self.resolve.len() == before {
                return Local::Solved;
            }
        }
        Local::GaveUp { changed }
    }

    /// Re-rates the flows at positions `resolve` on the residual capacity at `t`; false (and
    /// nothing changed) when one of them would get no bandwidth. A flow whose rate changes
    /// has its bytes left brought up to `t` under the old rate and its end predicted under
    /// the new one; a flow whose rate stays (most of them) keeps both.
    fn solve_subset(&mut self, solver: &mut MaxMin, t: f64) -> bool {
        self.new_rates.clear();
        self.new_rates
            .extend(self.resolve.iter().map(|&i| self.rates[i]));
        let (paths, active, resolve) = (&self.moving_paths, &self.active, &self.resolve);
        let ok = solver.resolve(
            &mut self.residual,
            resolve.len(),
            |k| {
                let m = &active[resolve[k]];
                &paths[m.path_start as usize..(m.path_start + m.path_len) as usize]
            },
            &mut self.new_rates,
        );
        if ok {
            for k in 0..self.resolve.len() {
                let (i, new) = (self.resolve[k], self.new_rates[k]);
                if new != self.rates[i] {
                    self.set_rate(i, new, t);
                }
            }
        }
        ok
    }

    /// Gives the moving flow at position `i` rate `new` (bytes per second) from `t`: its
    /// bytes left are brought up to `t` under the old rate, and its end and leaving time
    /// predicted under the new one. (The residual capacities are the caller's.)
    fn set_rate(&mut self, i: usize, new: f64, t: f64) {
        self.update_tops(i, self.rates[i], new);
        let m = &mut self.active[i];
        m.remaining_bytes = (m.remaining_bytes - self.rates[i] * (t - m.rated_s)).max(0.0);
        m.rated_s = t;
        self.rates[i] = new;
        if new > 0.0 {
            let end = t + m.remaining_bytes / new;
            let since_s = m.since_s;
            self.ends.set(i, end);
            // It may leave once its end is within its window.
            let window = self.window(end, since_s);
            // (Never below 0, so that the bit patterns order as the times do.)
            let leave = if end - window > 0.0 {
                end - window
            } else {
                0.0
            };
            self.leaves.set(i, leave);
        } else {
            self.ends.set(i, f64::INFINITY);
            self.leaves.set(i, f64::INFINITY);
        }
    }

    /// Adds to `freed` the other flows with a rate at the top rate of a saturated channel
    /// of the moving flow at position `i`, about to leave: the channel may be their
    /// bottleneck, and their rates may grow once it has capacity again. (Flows that only
    /// started at this event have no rate yet and are not counted.)
    fn collect_freed(&mut self, i: usize) {
        let m = self.active[i];
        for k in m.path_start..m.path_start + m.path_len {
            let c = self.moving_paths[k as usize];
            if !self.saturated(c) {
                continue;
            }
            let top = self.top(c);
            self.freed.extend(self.on[c as usize].iter().filter(|&&j| {
                let rate = self.rates[j as usize];
                j as usize != i && rate > 0.0 && rate >= top * (1.0 - TOP)
            }));
        }
    }

    /// The common case of sparse traffic, solved without a solve. Only two kinds of flows
    /// can change rate when few leave or join: those that joined, and those at the top rate
    /// of a saturated channel of a flow that left (`freed`). One after the other, each of
    /// them takes, on top of its rate, the least residual capacity on its path, and every
    /// other flow keeps its rate. That is the max-min fair allocation (it is unique) when
    /// each of them then has a bottleneck (a saturated channel on which no flow has a
    /// higher rate): a flow that kept its rate kept its bottleneck, since the flows that
    /// left were at the top of none of its saturated channels (or it would be in `freed`)
    /// and a raised flow only takes capacity from channels that had some left. False (and
    /// nothing changed) when a raised flow has no bottleneck so, or a joined flow gets no
    /// bandwidth; the rates are then solved.
    fn rerate_simply(&mut self, t: f64) -> bool {
        let mut freed = std::mem::take(&mut self.freed);
        freed.sort_unstable();
        freed.dedup();
        // (A flow that left at this event too has no rate.)
        freed.retain(|&j| self.rates[j as usize] > 0.0);
        let first_joined = self.active.len() - self.joined;
        let raise = freed
            .iter()
            .map(|&j| j as usize)
            .chain(first_joined..self.active.len());
        let mut simple = true;
        self.raised.clear();
        for i in raise {
            let (m, rate) = (self.active[i], self.rates[i]);
            let path = m.path_start as usize..(m.path_start + m.path_len) as usize;
            let more = self.moving_paths[path.clone()]
                .iter()
                .map(|&c| self.residual[c as usize].max(0.0))
                .fold(f64::INFINITY, f64::min);
            if rate + more <= 0.0 {
                simple = false;
                break;
            }
            if more > 0.0 {
                for p in path {
                    self.residual[self.moving_paths[p] as usize] -= more;
                }
                self.raised.push((i as u32, rate));
                self.set_rate(i, rate + more, t);
            }
            if !self.has_bottleneck(i) {
                simple = false;
                break;
            }
        }
        if !simple {
            while let Some((i, rate)) = self.raised.pop() {
                let (i, m) = (i as usize, self.active[i as usize]);
                let more = self.rates[i] - rate;
                for p in m.path_start..m.path_start + m.path_len {
                    self.residual[self.moving_paths[p as usize] as usize] += more;
                }
                self.set_rate(i, rate, t);
            }
        }
        self.freed = freed;
        simple
    }

    fn push(&mut self, time_s: f64, kind: Kind) {
        self.seq += 1;
        self.events.push(Event {
            time_s,
            seq: self.seq,
            kind,
        });
    }

    /// Starts global op `g` at `t`: a compute schedules its end (once its rank's core is
    /// free, [`HostTimeline::compute`]), and so does a posted
    /// receive once its rank's core has registered the buffer; a message is posted once its
    /// sender's core has paid its host costs ([`Self::post`]).
    fn start(&mut self, g: u32, t: f64) -> Result<(), RoutingError> {
        let (j, _, op) = self.progress.op(g);
        match op {
            Op::Compute { rank, seconds } => {
                let end = self.host.compute(j, rank, seconds, t);
                self.push(end, Kind::ComputeDone(g));
                let mut completed = Vec::new();
                self.host.take_completed(&mut completed);
                for (m, at) in completed {
                    self.push(at.max(t), Kind::Received(m));
                }
            }
            Op::PostReceive { .. } => {
                if let Some(posted) = self.host.depart(g, j, &op, t) {
                    self.push(posted, Kind::ComputeDone(g));
                }
            }
            _ => match self.host.depart(g, j, &op, t) {
                Some(posted) if posted > t => self.push(posted, Kind::Post(g)),
                Some(_) => self.post(g, t)?,
                None => {}
            },
        }
        Ok(())
    }

    /// Message `g` entered the network at `t`: its sender's core goes on with the
    /// messages that arrived meanwhile and its next send ([`HostTimeline::handed_off`]).
    fn handed_off(&mut self, g: u32, t: f64) {
        let (j, _, op) = self.progress.op(g);
        let mut done = Vec::new();
        let next = self.host.handed_off(j, &op, t, &mut done);
        for (m, at) in done {
            self.push(at.max(t), Kind::Received(m));
        }
        if let Some((send, at)) = next {
            self.push(at.max(t), Kind::Post(send));
        }
    }

    /// The last byte of message `g` arrived at `t`: it ends once its receiver's core has
    /// paid its host costs ([`HostTimeline::arrive`]).
    fn arrived(&mut self, g: u32, t: f64) {
        if self.host.is_free() {
            self.done_ops.push(g);
            return;
        }
        let (j, _, op) = self.progress.op(g);
        match self.host.arrive(g, j, &op, t) {
            Some(done) if done > t => self.push(done, Kind::Received(g)),
            Some(_) => self.done_ops.push(g),
            None => {}
        }
    }

    /// Posts message `g` at `t`: it is routed now and becomes a flow once its path's latency
    /// has passed.
    fn post(&mut self, g: u32, t: f64) -> Result<(), RoutingError> {
        self.handed_off(g, t);
        let (_, job, op) = self.progress.op(g);
        let Some((src, dst, size_bytes)) = op.message() else {
            unreachable!("only messages are posted")
        };
        let (a, b) = (job.placement[src as usize], job.placement[dst as usize]);
        let req = RouteRequest {
            fabric: self.fabric,
            faults: self.faults,
            congestion: &FlowsOnChannel(&self.flows_on),
            entropy: message_entropy(self.config.seed, u64::from(g)),
        };
        route_endpoints(self.routing, &req, a, b, &mut self.scratch)?;
        let latency_s: f64 = self
            .scratch
            .iter()
            .map(|&c| self.fabric.channels().latency_s[c as usize])
            .sum();
        if op.is_control() {
            // A control message's few bytes take no share worth solving for: it pays its
            // path's latency and its serialization on the slowest channel at full rate.
            let slowest = self
                .scratch
                .iter()
                .map(|&c| self.capacity[c as usize])
                .fold(f64::INFINITY, f64::min);
            if slowest <= 0.0 {
                return Err(RoutingError::Unroutable {
                    src: self.fabric.endpoint_name(a).to_string(),
                    dst: self.fabric.endpoint_name(b).to_string(),
                    reason: "a channel on the path has no bandwidth left (every lane lost)".into(),
                });
            }
            for &c in &self.scratch {
                self.channel_bytes[c as usize] += size_bytes;
            }
            self.delivered_bytes += size_bytes;
            self.push(t + latency_s + size_bytes / slowest, Kind::Delivered(g));
            return Ok(());
        }
        for &c in &self.scratch {
            self.flows_on[c as usize] += 1;
        }
        let id = self.flows.len() as u32;
        self.flows.push(Flow {
            op: g,
            path_start: self.paths.len() as u32,
            path_len: self.scratch.len() as u32,
            size_bytes,
            posted_s: t,
            src: a,
            delivery_delay_s: match self.config.nic {
                NicOrder::Fifo => latency_s,
                NicOrder::Shared => 0.0,
            },
        });
        self.paths.extend_from_slice(&self.scratch);
        match self.config.nic {
            NicOrder::Shared => self.push(t + latency_s, Kind::Activate(id)),
            NicOrder::Fifo if self.nic_busy[a as usize] => {
                self.nic_waiting[a as usize].push_back(id)
            }
            NicOrder::Fifo => {
                self.nic_busy[a as usize] = true;
                self.push(t, Kind::Activate(id));
            }
        }
        Ok(())
    }

    /// Flow `f`'s last byte left its NIC at `at`: with [`NicOrder::Fifo`], the next flow
    /// waiting for that NIC starts then.
    fn nic_next(&mut self, f: u32, at: f64) {
        if self.config.nic == NicOrder::Shared {
            return;
        }
        let src = self.flows[f as usize].src as usize;
        match self.nic_waiting[src].pop_front() {
            Some(next) => self.push(at, Kind::Activate(next)),
            None => self.nic_busy[src] = false,
        }
    }

    /// Flow `f`'s last byte left its NIC at `at` (not before `t`, now): its message
    /// arrives its delivery delay later.
    fn deliver(&mut self, f: u32, at: f64, t: f64) {
        let flow = self.flows[f as usize];
        let arrival = at + flow.delivery_delay_s;
        if arrival > t {
            self.push(arrival, Kind::Delivered(flow.op));
        } else {
            self.arrived(flow.op, t);
        }
    }

    /// Flow `f` left the network: take it off its channels' flow counts and count its bytes.
    /// (Its message is delivered by the caller, at its own end.)
    fn finish_flow(&mut self, f: u32) {
        let flow = self.flows[f as usize];
        let path =
            &self.paths[flow.path_start as usize..(flow.path_start + flow.path_len) as usize];
        for &c in path {
            self.flows_on[c as usize] -= 1;
            self.channel_bytes[c as usize] += flow.size_bytes;
        }
        self.delivered_bytes += flow.size_bytes;
    }

    /// Op `g` ended at `t`: record it and start every successor that no longer waits, in
    /// the order the DAG lists them.
    fn complete(&mut self, g: u32, t: f64) -> Result<(), RoutingError> {
        self.op_end_s[g as usize] = t;
        let mut released = std::mem::take(&mut self.released);
        self.progress.finish(g, t, &mut released);
        let result = released.drain(..).try_for_each(|next| self.start(next, t));
        self.released = released;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faults::CableSelector;
    use crate::routing;
    use crate::workload::Message;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// Local re-rates and re-rates by level (from the lowest level the event can change)
        /// give the rates of solving every flow again: every message ends at the same time,
        /// to rounding, on random traffic over a dragonfly with failed global links and
        /// adaptive routing, posted at once or spread. With `one_size`, every message has
        /// the same size, so that the flows with the same share end together and events
        /// where many flows leave at once are re-rated too. Either NIC order.
        #[test]
        fn local_and_level_rerates_match_a_full_solve(
            messages in proptest::collection::vec((0u32..72, 0u32..72, 1.0f64..2e6), 20..300),
            one_size in any::<bool>(),
            failed in 0.0f64..0.3,
            seed in 1u64..1000,
            fifo in any::<bool>(),
        ) {
            let size = messages[0].2;
            let messages = messages
                .into_iter()
                .map(|(s, d, bytes)| (s, d, if one_size { size } else { bytes }));
            let fabric = Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap();
            let mut faults = Faults::none(&fabric);
            faults
                .fail_random_cables(&fabric, &CableSelector::parse("global"), failed, seed)
                .unwrap();
            let routing = routing::build("ugal", &fabric, &faults).unwrap();
            let messages: Vec<Message> = messages
                .into_iter()
                .filter(|&(s, d, _)| s != d)
                .map(Message::from)
                .collect();
            prop_assume!(!messages.is_empty());
            let job = Job::from_messages("random", &messages, &fabric).unwrap();
            let nic = if fifo { NicOrder::Fifo } else { NicOrder::Shared };
            let config = FlowConfig { seed, nic, ..FlowConfig::EXACT };
            let run = |rerate| {
                simulate_with(&fabric, &faults, routing.as_ref(), std::slice::from_ref(&job),
                              config, rerate)
            };
            let Ok(full) = run(Rerate::Full) else {
                prop_assert!(run(Rerate::Local).is_err() && run(Rerate::ByLevel).is_err());
                return Ok(());
            };
            for rerate in [Rerate::Local, Rerate::ByLevel] {
                let fast = run(rerate).unwrap();
                for (k, (&a, &b)) in fast.op_end_s.iter().zip(&full.op_end_s).enumerate() {
                    prop_assert!((a - b).abs() <= 1e-9 * b,
                                 "{:?}, message {}: {:e} s against {:e} s", rerate, k, a, b);
                }
            }
        }
    }
}
