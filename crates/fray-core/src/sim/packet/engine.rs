//! The packet engine's core: channels, buffers, credits and the event loop.
//!
//! Drivers (a DAG of jobs, open-loop traffic, ...) post messages with [`Engine::post`],
//! schedule their own timers with [`Engine::schedule_external`], and step the engine with
//! [`Engine::next`]; the engine tells them which messages finished.

use super::event::{Event, Kind, Step};
use super::link::LinkTiming;
use super::queue::RadixHeap;
use super::signal::QueueCounts;
use super::vc::VcClasses;
use super::{PacketConfig, PacketError, QueueView, SoftErrors};
use crate::fabric::{ChannelId, EndpointId, Fabric};
use crate::faults::Faults;
use crate::interrupt::Interrupted;
use crate::routing::{
    check_congestion_unit, message_entropy, route_endpoints, CongestionUnit, RouteRequest, Routing,
};

/// No packet or message (end of an intrusive list).
const NIL: u32 = u32::MAX;

/// Events [`Engine::next`] handles between two looks at the stop request (a relaxed load:
/// a few milliseconds of work apart).
const STOP_CHECK_EVENTS: u64 = 1 << 16;

/// Picoseconds in a second.
pub(crate) const PS_PER_S: f64 = 1e12;

/// The longest time the packet engine's clock holds, in seconds (`u64::MAX` picoseconds,
/// about 213 days): every time given to the engine must be at most this.
pub const CLOCK_LIMIT_S: f64 = u64::MAX as f64 / PS_PER_S;

/// Seconds to whole picoseconds.
pub(crate) fn to_ps(seconds: f64) -> u64 {
    (seconds * PS_PER_S).round() as u64
}

/// The head of an input buffer waiting for an output channel: the packet's size and the
/// virtual channels it may take there.
#[derive(Debug, Clone, Copy)]
struct Request {
    buffer: u32,
    bytes: u32,
    first_vc: u16,
    end_vc: u16,
}

#[derive(Debug, Clone, Copy)]
struct Packet {
    msg: u32,
    bytes: u32,
    /// The packet's route: an entry of the engine's path pool.
    path: u32,
    /// Index in the message's path of the channel the packet is on or waits for.
    hop: u16,
    vc: u16,
    next: u32,
    /// The channel the packet is on (set when it is sent), and whether it is the last of
    /// its path: an arrival needs no look at the message's path.
    channel: ChannelId,
    last_hop: bool,
    injected_ps: u64,
}

#[derive(Debug, Clone, Default)]
struct Message {
    tag: u32,
    src: EndpointId,
    dst: EndpointId,
    /// The route of the message's next packet: an entry of the engine's path pool.
    path: u32,
    /// Bytes not yet cut into packets.
    unsent_bytes: u64,
    /// Packets injected and not yet delivered.
    in_flight: u32,
    next: u32,
}

/// Counters every run reports; the invariants of the engine are stated on them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PacketCounters {
    /// Packets that entered the fabric.
    pub packets_injected: u64,
    /// Packets that reached their destination endpoint.
    pub packets_delivered: u64,
    /// Payload bytes that entered the fabric.
    pub bytes_injected: u64,
    /// Payload bytes that reached their destination.
    pub bytes_delivered: u64,
    /// Transmissions corrupted by a soft error and resent by the link.
    pub retransmissions: u64,
    /// Events handled.
    pub events: u64,
    /// Events found earlier than the clock (0 unless the engine is broken).
    pub time_regressions: u64,
    /// Credit bytes missing from the buffers, summed over every buffer (0 once all is
    /// delivered and every credit came back).
    pub credit_bytes_outstanding: u64,
    /// Sum over delivered packets of injection-to-delivery time, in picoseconds.
    pub latency_sum_ps: u128,
}

/// The state of one packet simulation.
pub(crate) struct Engine<'a> {
    fabric: &'a Fabric,
    faults: &'a Faults,
    routing: &'a dyn Routing,
    config: PacketConfig,
    classes: VcClasses,
    errors: &'a mut SoftErrors,
    vcs: usize,
    /// Current time, picoseconds.
    pub(crate) now_ps: u64,
    queue: RadixHeap,
    ps_per_byte: Vec<f64>,
    latency_ps: Vec<u64>,
    busy_until_ps: Vec<u64>,
    wake_pending: Vec<bool>,
    /// Free bytes of every input buffer as its upstream sees them, `channel * vcs + vc`.
    credits: Vec<u32>,
    /// The bytes behind the congestion signal (see [`super::QueuedBytes`]).
    queued: QueueCounts,
    /// Buffers whose head waits for each output channel, in request order.
    waiting: Vec<Vec<Request>>,
    last_served: Vec<u32>,
    /// Intrusive FIFO lists: router input buffers hold packets (`channel * vcs + vc`), the
    /// source queues of the endpoints that follow hold messages.
    head: Vec<u32>,
    tail: Vec<u32>,
    packets: Vec<Packet>,
    free_packets: Vec<u32>,
    messages: Vec<Message>,
    free_messages: Vec<u32>,
    /// Routes in use, with the number of messages and packets on each; free entries keep
    /// their allocation for the next route.
    paths: Vec<Vec<ChannelId>>,
    path_users: Vec<u32>,
    free_paths: Vec<u32>,
    /// Routes computed so far (each draws its random choices from this count).
    routed: u64,
    /// Whether routers have output buffers ([`PacketConfig::output_buffered`]); the fields
    /// down to `last_vc` are empty otherwise.
    output_buffered: bool,
    /// Per channel: whether it leaves a router (its packets cross that router's crossbar
    /// into an output buffer).
    from_router: Vec<bool>,
    /// Picoseconds per byte of the crossbar into each output channel (its link's over the
    /// speedup).
    xbar_ps_per_byte: Vec<f64>,
    /// When the crossbar port into each output channel is free again.
    xbar_busy_until_ps: Vec<u64>,
    xbar_wake_pending: Vec<bool>,
    /// When each input buffer has finished moving its last packet across the crossbar.
    input_busy_until_ps: Vec<u64>,
    /// Free bytes of every output buffer, `channel * vcs + vc`.
    out_free: Vec<u32>,
    /// Intrusive FIFO lists of the packets in each output buffer, `channel * vcs + vc`.
    out_head: Vec<u32>,
    out_tail: Vec<u32>,
    /// Packets in the output buffers of each channel, all VCs.
    out_packets: Vec<u32>,
    /// The VC each output channel sent from last (its VCs take turns).
    last_vc: Vec<u16>,
    /// Tags of messages whose last packet arrived, for the driver.
    pub(crate) finished: Vec<u32>,
    /// Bytes each channel carried (good transmissions).
    pub(crate) channel_bytes: Vec<u64>,
    pub(crate) counters: PacketCounters,
}

impl<'a> Engine<'a> {
    /// An idle fabric: every buffer empty, every credit home.
    pub(crate) fn new(
        fabric: &'a Fabric,
        faults: &'a Faults,
        routing: &'a dyn Routing,
        config: PacketConfig,
        errors: &'a mut SoftErrors,
    ) -> Result<Self, PacketError> {
        config.validate()?;
        check_congestion_unit(routing, CongestionUnit::Bytes)?;
        let n = fabric.channels().len();
        if errors.len() != n {
            return Err(PacketError::Config {
                field: "errors",
                reason: format!("made for {} channels, the fabric has {n}", errors.len()),
            });
        }
        let classes = VcClasses::new(fabric, routing, config.vcs)?;
        let vcs = usize::from(config.vcs);
        let by_class = routing.reads_classes();
        let queued = QueueCounts::new(n, usize::from(classes.count_classes()), by_class);
        let ps_per_byte: Vec<f64> = (0..n)
            .map(|c| {
                let bw = faults.bandwidth_bytes_s(fabric, c as ChannelId);
                if bw > 0.0 {
                    PS_PER_S / bw
                } else {
                    f64::INFINITY
                }
            })
            .collect();
        let buffers = n * vcs + fabric.num_endpoints();
        let channels = fabric.channels();
        let num_routers = fabric.num_routers() as u32;
        let from_router: Vec<bool> = channels.src.iter().map(|&v| v < num_routers).collect();
        // A channel's latency is the wire's plus the router's output port at its start and
        // input port at its end (endpoints add none).
        let latency_ps = (0..n)
            .map(|c| {
                to_ps(channels.latency_s[c])
                    + if from_router[c] {
                        config.output_latency_ps
                    } else {
                        0
                    }
                    + if channels.dst[c] < num_routers {
                        config.input_latency_ps
                    } else {
                        0
                    }
            })
            .collect();
        let output_buffered = config.output_buffered();
        let per_channel = |len: usize| if output_buffered { len } else { 0 };
        let xbar_ps_per_byte = if output_buffered {
            ps_per_byte.iter().map(|x| x / config.speedup).collect()
        } else {
            Vec::new()
        };
        Ok(Self {
            fabric,
            faults,
            routing,
            config,
            classes,
            errors,
            vcs,
            now_ps: 0,
            queue: RadixHeap::new(),
            ps_per_byte,
            latency_ps,
            busy_until_ps: vec![0; n],
            wake_pending: vec![false; n],
            credits: vec![config.buffer_bytes; n * vcs],
            queued,
            waiting: vec![Vec::new(); n],
            last_served: vec![NIL; n],
            head: vec![NIL; buffers],
            tail: vec![NIL; buffers],
            packets: Vec::new(),
            free_packets: Vec::new(),
            messages: Vec::new(),
            free_messages: Vec::new(),
            paths: Vec::new(),
            path_users: Vec::new(),
            free_paths: Vec::new(),
            routed: 0,
            output_buffered,
            from_router: if output_buffered {
                from_router
            } else {
                Vec::new()
            },
            xbar_ps_per_byte,
            xbar_busy_until_ps: vec![0; per_channel(n)],
            xbar_wake_pending: vec![false; per_channel(n)],
            input_busy_until_ps: vec![0; per_channel(n * vcs)],
            out_free: vec![config.out_buffer_bytes; per_channel(n * vcs)],
            out_head: vec![NIL; per_channel(n * vcs)],
            out_tail: vec![NIL; per_channel(n * vcs)],
            out_packets: vec![0; per_channel(n)],
            last_vc: vec![0; per_channel(n)],
            finished: Vec::new(),
            channel_bytes: vec![0; n],
            counters: PacketCounters::default(),
        })
    }

    fn push(&mut self, time_ps: u64, kind: Kind, a: u32, b: u32) {
        self.queue.push(Event::new(time_ps, kind, a, b).0);
    }

    /// Schedules a driver timer: [`Engine::next`] returns it at `time_ps`.
    pub(crate) fn schedule_external(&mut self, time_ps: u64, word: u32) {
        self.push(time_ps, Kind::External, word, 0);
    }

    /// Whether the run went past the end of the clock: the engine's time sums saturate at
    /// `u64::MAX` picoseconds (about 213 days), so an event there was due later than the
    /// clock holds; an event earlier than the clock means a sum elsewhere wrapped round.
    pub(crate) fn passed_clock(&self) -> bool {
        self.now_ps == u64::MAX || self.counters.time_regressions > 0
    }

    /// Time of the next event, if any.
    pub(crate) fn peek_time_ps(&mut self) -> Option<u64> {
        self.queue.peek().map(|k| Event(k).time_ps())
    }

    /// Handles engine events until a driver timer comes up or messages finish (the clock is
    /// then at that time), or nothing is left (`None`). Finished messages are in `finished`.
    /// Every [`STOP_CHECK_EVENTS`] events it looks at the stop request ([`crate::interrupt`]),
    /// so that a run of a few very large messages stops too.
    pub(crate) fn next(&mut self) -> Result<Option<Step>, Interrupted> {
        while let Some(e) = self.queue.pop().map(Event) {
            if e.time_ps() < self.now_ps {
                self.counters.time_regressions += 1;
            }
            self.now_ps = e.time_ps();
            self.counters.events += 1;
            let a = e.a();
            match e.kind() {
                Kind::Arrive => self.arrive(a),
                Kind::PortFree => {
                    self.wake_pending[a as usize] = false;
                    self.serve_link(a);
                }
                Kind::XbarFree => {
                    self.xbar_wake_pending[a as usize] = false;
                    self.arbitrate(a);
                }
                Kind::InputFree => self.request(a),
                Kind::Credit => self.credit(a, e.b()),
                Kind::Resend => self.resend(a),
                Kind::NicReady => self.request(a),
                Kind::External => return Ok(Some(Step::Timer(a))),
            }
            if !self.finished.is_empty() {
                return Ok(Some(Step::Finished));
            }
            if self.counters.events.is_multiple_of(STOP_CHECK_EVENTS) {
                crate::interrupt::check()?;
            }
        }
        Ok(None)
    }

    /// Messages posted and not yet delivered.
    pub(crate) fn messages_in_flight(&self) -> usize {
        self.messages.len() - self.free_messages.len()
    }

    /// Posts a message of `size_bytes` from `src` to `dst` now; `tag` comes back in
    /// `finished` once its last byte has arrived (at once for a message to its own endpoint;
    /// an empty message arrives after its path's latency, as one packet of no payload).
    pub(crate) fn post(
        &mut self,
        src: EndpointId,
        dst: EndpointId,
        size_bytes: u64,
        tag: u32,
    ) -> Result<(), PacketError> {
        let path = self.route(src, dst)?;
        // A message to its own endpoint takes no time; an empty one goes as one packet of
        // no payload, which takes every hop's latency (as its header would).
        if self.paths[path as usize].is_empty() {
            self.release_path(path);
            self.finished.push(tag);
            return Ok(());
        }
        // Its bytes leave through the injection channel no faster than its rate: a message
        // that could not leave before the clock's end is refused before it is cut into
        // packets (there could be more of them than the run could ever simulate).
        let inject = self.paths[path as usize][0] as usize;
        let leaves_ps = self.now_ps as f64 + size_bytes as f64 * self.ps_per_byte[inject];
        if leaves_ps >= u64::MAX as f64 {
            return Err(PacketError::ClockPassed {
                limit_s: CLOCK_LIMIT_S,
            });
        }
        let m = match self.free_messages.pop() {
            Some(m) => m,
            None => {
                self.messages.push(Message::default());
                (self.messages.len() - 1) as u32
            }
        };
        self.messages[m as usize] = Message {
            tag,
            src,
            dst,
            path,
            unsent_bytes: size_bytes,
            in_flight: 0,
            next: NIL,
        };
        let queue = self.source_queue(src);
        let was_empty = self.head[queue] == NIL;
        self.append(queue, m, |e, m| e.messages[m as usize].next = NIL);
        if was_empty {
            self.start_message(queue as u32, self.now_ps);
        }
        Ok(())
    }

    /// The NIC of source queue `queue` starts on the message now at its head at `from_ps`
    /// (not before now): the message asks for the injection channel once the NIC's setup is
    /// done, at once when there is none.
    fn start_message(&mut self, queue: u32, from_ps: u64) {
        let setup = self.config.nic_setup_ps;
        if setup == 0 {
            self.request(queue);
        } else {
            self.push(from_ps.saturating_add(setup), Kind::NicReady, queue, 0);
        }
    }

    /// Routes `src` to `dst` now, under the current queues, into a new entry of the path
    /// pool (one user); fails when there is no route or it crosses a channel with no
    /// bandwidth left.
    fn route(&mut self, src: EndpointId, dst: EndpointId) -> Result<u32, PacketError> {
        let id = match self.free_paths.pop() {
            Some(id) => id,
            None => {
                self.paths.push(Vec::new());
                self.path_users.push(0);
                (self.paths.len() - 1) as u32
            }
        };
        self.path_users[id as usize] = 1;
        let mut path = std::mem::take(&mut self.paths[id as usize]);
        let req = RouteRequest {
            fabric: self.fabric,
            faults: self.faults,
            congestion: &self.queued.signal(self.config.queue_cap_bytes),
            entropy: message_entropy(self.config.seed, self.routed),
        };
        self.routed += 1;
        let routed = route_endpoints(self.routing, &req, src, dst, &mut path);
        let dead = path
            .iter()
            .find(|&&c| !self.ps_per_byte[c as usize].is_finite())
            .copied();
        self.paths[id as usize] = path;
        let result = match (routed, dead) {
            (Err(e), _) => Err(e.into()),
            (Ok(()), Some(c)) => Err(PacketError::NoBandwidth {
                channel: self.fabric.channel_name(c),
            }),
            (Ok(()), None) => return Ok(id),
        };
        self.release_path(id);
        result
    }

    /// One user of path `id` is done with it.
    fn release_path(&mut self, id: u32) {
        let users = &mut self.path_users[id as usize];
        *users -= 1;
        if *users == 0 {
            self.free_paths.push(id);
        }
    }

    fn source_queue(&self, endpoint: EndpointId) -> usize {
        self.credits.len() + endpoint as usize
    }

    fn is_source_queue(&self, buffer: u32) -> bool {
        buffer as usize >= self.credits.len()
    }

    /// Appends item `x` (packet or message) to list `list`.
    fn append(&mut self, list: usize, x: u32, clear_next: impl Fn(&mut Self, u32)) {
        clear_next(self, x);
        let t = self.tail[list];
        if t == NIL {
            self.head[list] = x;
        } else if self.is_source_queue(list as u32) {
            self.messages[t as usize].next = x;
        } else {
            self.packets[t as usize].next = x;
        }
        self.tail[list] = x;
    }

    /// Removes the head of list `list`.
    fn pop_head(&mut self, list: usize) {
        let h = self.head[list];
        let next = if self.is_source_queue(list as u32) {
            self.messages[h as usize].next
        } else {
            self.packets[h as usize].next
        };
        self.head[list] = next;
        if next == NIL {
            self.tail[list] = NIL;
        }
    }

    /// What the head of `buffer` would send next: (path, hop, bytes).
    fn head_item(&self, buffer: u32) -> (u32, usize, u32) {
        let h = self.head[buffer as usize];
        if self.is_source_queue(buffer) {
            let m = &self.messages[h as usize];
            let bytes = m.unsent_bytes.min(u64::from(self.config.packet_bytes)) as u32;
            (m.path, 0, bytes)
        } else {
            let p = &self.packets[h as usize];
            (p.path, usize::from(p.hop), p.bytes)
        }
    }

    /// The head of `buffer` asks for its next channel.
    fn request(&mut self, buffer: u32) {
        let (path, hop, bytes) = self.head_item(buffer);
        let path = &self.paths[path as usize];
        let out = path[hop];
        let vcs = self.classes.allowed(path, hop);
        self.waiting[out as usize].push(Request {
            buffer,
            bytes,
            first_vc: vcs.start,
            end_vc: vcs.end,
        });
        self.arbitrate(out);
    }

    fn ser_ps(&self, channel: ChannelId, bytes: u32) -> u64 {
        (f64::from(bytes) * self.ps_per_byte[channel as usize]).ceil() as u64
    }

    /// The virtual channel with the most free space in `space` (per `channel * vcs + vc`)
    /// among those request `r` may take on `out`, if one can hold the whole packet (virtual
    /// cut-through).
    fn free_vc(&self, r: &Request, out: ChannelId, space: &[u32]) -> Option<u16> {
        let base = out as usize * self.vcs;
        (r.first_vc..r.end_vc)
            .filter(|&v| space[base + usize::from(v)] >= r.bytes)
            .max_by_key(|&v| (space[base + usize::from(v)], std::cmp::Reverse(v)))
    }

    /// Whether packets reach output `out` through a crossbar and an output buffer.
    #[inline]
    fn crosses_xbar(&self, out: ChannelId) -> bool {
        self.output_buffered && self.from_router[out as usize]
    }

    /// The request for `out` to serve next among those with room in `space` (the next
    /// router's input buffers, or this router's output buffers), and its VC there.
    fn pick(&self, out: ChannelId, space: &[u32]) -> Option<(usize, u16)> {
        let o = out as usize;
        let n_buffers = self.head.len() as u64;
        let last = self.last_served[o];
        let mut pick: Option<(usize, u16, u64)> = None;
        for (i, r) in self.waiting[o].iter().enumerate() {
            let b = r.buffer;
            let Some(vc) = self.free_vc(r, out, space) else {
                continue;
            };
            let rank = match self.config.arbitration {
                super::Arbitration::OldestFirst => i as u64,
                super::Arbitration::RoundRobin => {
                    (u64::from(b) + n_buffers - u64::from(last.wrapping_add(1)) % n_buffers)
                        % n_buffers
                }
            };
            if pick.is_none_or(|(_, _, r)| rank < r) {
                pick = Some((i, vc, rank));
                if self.config.arbitration == super::Arbitration::OldestFirst {
                    break;
                }
            }
        }
        pick.map(|(i, vc, _)| (i, vc))
    }

    /// Serves the next request for output `out`: across the crossbar into its output
    /// buffer when routers have them, else onto the channel if it is free.
    fn arbitrate(&mut self, out: ChannelId) {
        let o = out as usize;
        if self.waiting[o].is_empty() {
            return;
        }
        let crosses = self.crosses_xbar(out);
        let (busy_until, wake) = if crosses {
            (&self.xbar_busy_until_ps, &mut self.xbar_wake_pending)
        } else {
            (&self.busy_until_ps, &mut self.wake_pending)
        };
        let free_at = busy_until[o];
        if free_at > self.now_ps {
            if !wake[o] {
                wake[o] = true;
                let kind = if crosses {
                    Kind::XbarFree
                } else {
                    Kind::PortFree
                };
                self.push(free_at, kind, out, 0);
            }
            return;
        }
        let space = if crosses {
            &self.out_free
        } else {
            &self.credits
        };
        let Some((i, vc)) = self.pick(out, space) else {
            return; // every request waits for space; a credit or a send will wake the port
        };
        let buffer = self.waiting[o].remove(i).buffer;
        self.last_served[o] = buffer;
        if crosses {
            self.cross(buffer, out, vc);
        } else {
            self.transmit(buffer, out, vc);
        }
        let (free_at, wake) = if crosses {
            (self.xbar_busy_until_ps[o], &mut self.xbar_wake_pending[o])
        } else {
            (self.busy_until_ps[o], &mut self.wake_pending[o])
        };
        if !self.waiting[o].is_empty() && !*wake {
            *wake = true;
            let kind = if crosses {
                Kind::XbarFree
            } else {
                Kind::PortFree
            };
            self.push(free_at, kind, out, 0);
        }
    }

    /// Output channel `out` has finished sending: it serves its output buffers when routers
    /// have them, else the requests of the input buffers.
    fn serve_link(&mut self, out: ChannelId) {
        if self.crosses_xbar(out) {
            self.send_from_output(out);
        } else {
            self.arbitrate(out);
        }
    }

    /// Moves the head of router input buffer `buffer` across the crossbar into output
    /// buffer `vc` of `out`, starting now, at the crossbar's rate; the output may send it
    /// at once (the crossbar is at least as fast as the link).
    fn cross(&mut self, buffer: u32, out: ChannelId, vc: u16) {
        let now = self.now_ps;
        let o = out as usize;
        let p = self.head[buffer as usize];
        self.pop_head(buffer as usize);
        let bytes = self.packets[p as usize].bytes;
        let xbar_ps = (f64::from(bytes) * self.xbar_ps_per_byte[o]).ceil() as u64;
        let done = now.saturating_add(xbar_ps);
        // The input buffer's space is free once the tail has crossed; the credit then
        // travels back over the channel the packet came in on.
        self.push(
            done.saturating_add(self.latency_ps[buffer as usize / self.vcs]),
            Kind::Credit,
            buffer,
            bytes,
        );
        self.xbar_busy_until_ps[o] = done;
        self.input_busy_until_ps[buffer as usize] = done;
        if self.head[buffer as usize] != NIL {
            self.push(done, Kind::InputFree, buffer, 0);
        }
        let slot = o * self.vcs + usize::from(vc);
        self.out_free[slot] -= bytes;
        self.packets[p as usize].vc = vc;
        self.packets[p as usize].next = NIL;
        match self.out_tail[slot] {
            NIL => self.out_head[slot] = p,
            t => self.packets[t as usize].next = p,
        }
        self.out_tail[slot] = p;
        self.out_packets[o] += 1;
        // The routing reads the output buffer's occupancy (and, downstream, what it sent
        // that is not yet credited back).
        let class = self.class_counted(vc);
        self.queued.add(out, class, bytes);
        self.send_from_output(out);
    }

    /// Sends the head of one of `out`'s output buffers on the channel if it is free and the
    /// next router has room for it; the VCs take turns.
    fn send_from_output(&mut self, out: ChannelId) {
        let o = out as usize;
        if self.out_packets[o] == 0 {
            return;
        }
        if self.busy_until_ps[o] > self.now_ps {
            if !self.wake_pending[o] {
                self.wake_pending[o] = true;
                self.push(self.busy_until_ps[o], Kind::PortFree, out, 0);
            }
            return;
        }
        let base = o * self.vcs;
        let last = usize::from(self.last_vc[o]);
        let Some(v) = (1..=self.vcs).map(|k| (last + k) % self.vcs).find(|&v| {
            let h = self.out_head[base + v];
            h != NIL && self.credits[base + v] >= self.packets[h as usize].bytes
        }) else {
            return; // a credit will wake the port
        };
        self.last_vc[o] = v as u16;
        let slot = base + v;
        let p = self.out_head[slot];
        let next = self.packets[p as usize].next;
        self.out_head[slot] = next;
        if next == NIL {
            self.out_tail[slot] = NIL;
        }
        self.out_packets[o] -= 1;
        let bytes = self.packets[p as usize].bytes;
        self.credits[slot] -= bytes;
        self.out_free[slot] += bytes;
        if self.config.queue_view == QueueView::Output {
            let class = self.class_counted(v as u16);
            self.queued.remove(out, class, bytes);
        }
        self.send_on(p, out, self.now_ps);
        if self.out_packets[o] > 0 && !self.wake_pending[o] {
            self.wake_pending[o] = true;
            self.push(self.busy_until_ps[o], Kind::PortFree, out, 0);
        }
        // The output buffer has room again.
        self.arbitrate(out);
    }

    /// Sends the head of `buffer` on `out` in virtual channel `vc`, starting now.
    fn transmit(&mut self, buffer: u32, out: ChannelId, vc: u16) {
        let now = self.now_ps;
        let mut source_done = false;
        let p = if self.is_source_queue(buffer) {
            let (posted, _, bytes) = self.head_item(buffer);
            let m = self.head[buffer as usize];
            let msg = &mut self.messages[m as usize];
            msg.unsent_bytes -= u64::from(bytes);
            msg.in_flight += 1;
            let (src, dst, rest) = (msg.src, msg.dst, msg.unsent_bytes);
            // The packet takes the message's route, or, when the engine routes per packet,
            // one chosen now from the queues as it leaves (the message's route, chosen when
            // it was posted, only proved it routable and named the injection channel,
            // whose virtual channels do not depend on the route).
            let fresh = if self.config.route_per_packet {
                self.route(src, dst).ok()
            } else {
                None
            };
            let path = fresh.unwrap_or_else(|| {
                self.path_users[posted as usize] += 1;
                posted
            });
            if rest == 0 {
                self.pop_head(buffer as usize);
                self.release_path(posted);
                source_done = true;
            }
            let packet = Packet {
                msg: m,
                bytes,
                path,
                hop: 0,
                vc,
                next: NIL,
                channel: out,
                last_hop: false,
                injected_ps: now,
            };
            self.counters.packets_injected += 1;
            self.counters.bytes_injected += u64::from(bytes);
            match self.free_packets.pop() {
                Some(p) => {
                    self.packets[p as usize] = packet;
                    p
                }
                None => {
                    self.packets.push(packet);
                    (self.packets.len() - 1) as u32
                }
            }
        } else {
            let p = self.head[buffer as usize];
            self.pop_head(buffer as usize);
            let bytes = self.packets[p as usize].bytes;
            // The buffer's space is free once the tail has left; the credit then travels
            // back over the channel the packet came in on.
            let back = now
                .saturating_add(self.ser_ps(out, bytes))
                .saturating_add(self.latency_ps[buffer as usize / self.vcs]);
            self.push(back, Kind::Credit, buffer, bytes);
            self.packets[p as usize].vc = vc;
            p
        };
        let Packet {
            bytes, path, hop, ..
        } = self.packets[p as usize];
        let slot = out as usize * self.vcs + usize::from(vc);
        self.credits[slot] -= bytes;
        // The packet counts on its next channel from now on (it is on its way to the router
        // that will send it there, then waits in it), and on this one until its credit is
        // back (only the injection channel was not counted before), or, when the signal
        // is the output queue, no longer.
        let hop = usize::from(hop);
        let class = self.class_counted(vc);
        match (self.config.queue_view, hop) {
            (QueueView::Downstream, 0) => self.queued.add(out, class, bytes),
            (QueueView::Output, 1..) => self.queued.remove(out, class, bytes),
            _ => {}
        }
        let route = &self.paths[path as usize];
        // With output buffers a packet counts on its next channel once it has crossed
        // into the output buffer (`cross`).
        if let Some(&next) = route.get(hop + 1).filter(|_| !self.output_buffered) {
            let next_class = if self.queued.by_class() {
                self.classes.class(route, hop + 1)
            } else {
                0
            };
            self.queued.add(next, next_class, bytes);
        }
        self.send_on(p, out, now);
        // The next head asks only now that `out` is busy; a new message at a source's head
        // waits for its NIC, which starts on it once this packet's tail is on the wire.
        if self.head[buffer as usize] != NIL {
            if source_done {
                self.start_message(buffer, self.busy_until_ps[out as usize]);
            } else {
                self.request(buffer);
            }
        }
    }

    /// Puts packet `p` on the wire of `out` from `start_ps` (the channel is free then).
    fn send_on(&mut self, p: u32, out: ChannelId, start_ps: u64) {
        let o = out as usize;
        let bytes = self.packets[p as usize].bytes;
        let ser = self.ser_ps(out, bytes);
        self.busy_until_ps[o] = start_ps.saturating_add(ser);
        let link = LinkTiming {
            serialisation_ps: ser,
            latency_ps: self.latency_ps[o],
            nak_ps: self.config.nak_ps,
        };
        if self.errors.hit(o, start_ps, ser, bytes) {
            self.counters.retransmissions += 1;
            self.push(link.resend_ps(start_ps), Kind::Resend, p, 0);
            return;
        }
        self.channel_bytes[o] += u64::from(bytes);
        let tail_in = link.tail_in_ps(start_ps);
        let packet = self.packets[p as usize];
        let path = &self.paths[packet.path as usize];
        let hop = usize::from(packet.hop);
        let last_hop = hop + 1 == path.len();
        let ready = if last_hop {
            tail_in
        } else {
            // Cut-through: the head may leave once it is in, but never so early that the
            // next link would catch up with the tail.
            let next_ser = self.ser_ps(path[hop + 1], bytes);
            start_ps
                .saturating_add(link.latency_ps)
                .max(tail_in.saturating_sub(next_ser))
        };
        let packet = &mut self.packets[p as usize];
        packet.channel = out;
        packet.last_hop = last_hop;
        self.push(ready, Kind::Arrive, p, 0);
    }

    /// The link resends corrupted packet `p` on the channel it was on, after whatever the
    /// channel is sending now.
    fn resend(&mut self, p: u32) {
        let packet = self.packets[p as usize];
        let out = self.paths[packet.path as usize][usize::from(packet.hop)];
        let start = self.now_ps.max(self.busy_until_ps[out as usize]);
        self.send_on(p, out, start);
    }

    /// Packet `p` entered the buffer at the end of its channel, or its endpoint.
    fn arrive(&mut self, p: u32) {
        let packet = self.packets[p as usize];
        let m = packet.msg as usize;
        let channel = packet.channel;
        let slot = channel as usize * self.vcs + usize::from(packet.vc);
        if packet.last_hop {
            // The endpoint takes the packet whole; its credit goes back over the wire.
            self.push(
                self.now_ps
                    .saturating_add(self.latency_ps[channel as usize]),
                Kind::Credit,
                slot as u32,
                packet.bytes,
            );
            self.counters.packets_delivered += 1;
            self.counters.bytes_delivered += u64::from(packet.bytes);
            self.counters.latency_sum_ps += u128::from(self.now_ps - packet.injected_ps);
            self.free_packets.push(p);
            self.release_path(packet.path);
            let msg = &mut self.messages[m];
            msg.in_flight -= 1;
            if msg.in_flight == 0 && msg.unsent_bytes == 0 {
                self.finished.push(msg.tag);
                self.free_messages.push(m as u32);
            }
            return;
        }
        self.packets[p as usize].hop += 1;
        let was_empty = self.head[slot] == NIL;
        self.append(slot, p, |e, p| e.packets[p as usize].next = NIL);
        if was_empty {
            // An input buffer still moving its last packet across the crossbar asks for the
            // next one's output when it is done.
            match self.input_busy_until_ps.get(slot) {
                Some(&busy) if busy > self.now_ps => {
                    self.push(busy, Kind::InputFree, slot as u32, 0)
                }
                _ => self.request(slot as u32),
            }
        }
    }

    /// The class the congestion counts of a packet on virtual channel `vc` go to (0 when
    /// they are not kept per class: no need to work it out).
    #[inline]
    fn class_counted(&self, vc: u16) -> u16 {
        if self.queued.by_class() {
            self.classes.class_of_vc(vc)
        } else {
            0
        }
    }

    /// `bytes` of space in input buffer `slot` are back with its upstream.
    fn credit(&mut self, slot: u32, bytes: u32) {
        self.credits[slot as usize] += bytes;
        let out = slot as usize / self.vcs;
        if self.config.queue_view == QueueView::Downstream {
            let class = self.class_counted((slot as usize % self.vcs) as u16);
            self.queued.remove(out as ChannelId, class, bytes);
        }
        self.serve_link(out as ChannelId);
    }

    /// The counters, with the credit bytes still away from their buffers.
    pub(crate) fn final_counters(&self) -> PacketCounters {
        let full = u64::from(self.config.buffer_bytes);
        let mut c = self.counters.clone();
        let out_full = u64::from(self.config.out_buffer_bytes);
        c.credit_bytes_outstanding = self
            .credits
            .iter()
            .map(|&x| full - u64::from(x))
            .sum::<u64>()
            + self
                .out_free
                .iter()
                .map(|&x| out_full - u64::from(x))
                .sum::<u64>();
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::{FabricBuilder, LinkParameters, Topology};
    use crate::routing::{build, Congestion};

    /// Routers 0 - 1 - 2 in a line, 1 GB/s and 100 ns per cable, one endpoint each.
    fn line() -> Fabric {
        let link = LinkParameters {
            bandwidth_bytes_s: 1e9,
            latency_s: 100e-9,
            lanes: 1,
        };
        let mut b = FabricBuilder::new(3);
        let class = b.class("wire");
        b.cable(0, 1, class, link).unwrap();
        b.cable(1, 2, class, link).unwrap();
        b.endpoints_everywhere(1, link).unwrap();
        b.build(Topology::Graph).unwrap()
    }

    /// Runs `run` on an engine of `config` over [`line`], healthy, with table routes.
    fn on_line<T>(config: PacketConfig, run: impl FnOnce(&mut Engine<'_>) -> T) -> T {
        let f = line();
        let faults = Faults::none(&f);
        let routing = build("table", &f, &faults).unwrap();
        let mut errors = SoftErrors::none(f.channels().len());
        let mut e = Engine::new(&f, &faults, routing.as_ref(), config, &mut errors).unwrap();
        run(&mut e)
    }

    /// Sends one 256-byte packet from endpoint 0 to endpoint 2 and returns, after every
    /// event, the signal on the cables 0 -> 1 and 1 -> 2.
    fn signal_over_time(view: QueueView) -> Vec<(u64, u64)> {
        let config = PacketConfig {
            queue_view: view,
            ..PacketConfig::default()
        };
        on_line(config, |e| {
            let (c01, c12) = (
                e.fabric.channel_between(0, 1).unwrap(),
                e.fabric.channel_between(1, 2).unwrap(),
            );
            e.post(0, 2, 256, 7).unwrap();
            // Driver timers every 10 ns stop the engine to look (the packet takes about
            // 1.1 us).
            for t in 1..300 {
                e.schedule_external(t * 10_000, 0);
            }
            let mut seen = vec![(e.queued.on(c01), e.queued.on(c12))];
            let mut delivered = false;
            while let Some(step) = e.next().unwrap() {
                delivered |= matches!(step, Step::Finished) && e.finished == vec![7];
                seen.push((e.queued.on(c01), e.queued.on(c12)));
            }
            assert!(delivered);
            seen
        })
    }

    #[test]
    fn times_past_the_clock_saturate_rather_than_wrap() {
        // A packet posted 0.5 us before the clock's end needs about 1.1 us: its events
        // land at the clock's end, none earlier than the clock, and the run says it passed.
        on_line(PacketConfig::default(), |e| {
            e.schedule_external(u64::MAX - 500_000, 0);
            assert!(!e.passed_clock());
            while let Some(step) = e.next().unwrap() {
                if matches!(step, Step::Timer(_)) {
                    e.post(0, 2, 256, 7).unwrap();
                }
            }
            assert_eq!(e.finished, vec![7]);
            assert_eq!(e.counters.time_regressions, 0);
            assert_eq!(e.now_ps, u64::MAX);
            assert!(e.passed_clock());
        });
    }

    #[test]
    fn a_message_that_cannot_leave_before_the_clock_ends_is_refused_at_once() {
        // 2e16 bytes at 1 GB/s take 2e7 s to leave, past the clock's 1.8e7 s: refused
        // before it is cut into 1e13 packets; one that leaves in time is taken.
        on_line(PacketConfig::default(), |e| {
            assert!(matches!(
                e.post(0, 2, 20_000_000_000_000_000, 1),
                Err(PacketError::ClockPassed { .. })
            ));
            assert!(e.post(0, 2, 10_000_000_000_000_000, 2).is_ok());
        });
    }

    #[test]
    fn the_output_view_forgets_a_packet_once_its_router_sends_it() {
        let downstream = signal_over_time(QueueView::Downstream);
        let output = signal_over_time(QueueView::Output);
        // Both count the packet on the next cable from the moment it leaves for the router
        // that sends it there, and nothing is left counted once it is delivered.
        for seen in [&downstream, &output] {
            assert!(seen.contains(&(256, 0)), "{seen:?}");
            assert_eq!(seen.last(), Some(&(0, 0)), "{seen:?}");
        }
        // Once it is on cable 1 -> 2, the downstream view still counts it on 0 -> 1 (its
        // space in router 1's buffer is not yet credited back); the output view does not.
        assert!(downstream.contains(&(256, 256)), "{downstream:?}");
        assert!(output.iter().all(|&(a, b)| a == 0 || b == 0), "{output:?}");
        assert!(output.contains(&(0, 256)), "{output:?}");
    }

    #[test]
    fn a_misroute_counts_its_first_hop_in_class_1_and_its_second_in_class_0() {
        // hyperx:3 with the cable 0 - 2 failed: DOAL goes 0 -> 1 -> 2, the first hop in
        // class 1 (merlin's misroute channel), the second in class 0.
        let f = Fabric::parse("hyperx:3").unwrap();
        let mut faults = Faults::none(&f);
        let hx = f.as_hyperx().unwrap();
        faults.fail_cable(&f, hx.channels_to(0, 0, 2)[0]).unwrap();
        let routing = build("doal:weights=merlin", &f, &faults).unwrap();
        let mut errors = SoftErrors::none(f.channels().len());
        let config = PacketConfig {
            queue_view: QueueView::Downstream,
            ..PacketConfig::default()
        };
        let mut e = Engine::new(&f, &faults, routing.as_ref(), config, &mut errors).unwrap();
        let (first, second) = (hx.channels_to(0, 0, 1)[0], hx.channels_to(1, 0, 2)[0]);
        e.post(0, 2, 256, 7).unwrap();
        for t in 1..300 {
            e.schedule_external(t * 10_000, 0);
        }
        let read = |e: &Engine<'_>| {
            let signal = e.queued.signal(u64::MAX);
            [(first, 0), (first, 1), (second, 0), (second, 1)]
                .map(|(c, k)| signal.congestion_in_class(c, k) as u64)
        };
        let mut seen = vec![read(&e)];
        while e.next().unwrap().is_some() {
            seen.push(read(&e));
        }
        assert_eq!(e.finished, vec![7]);
        assert!(seen.iter().any(|s| s[1] == 256), "{seen:?}");
        assert!(seen.iter().any(|s| s[2] == 256), "{seen:?}");
        assert!(seen.iter().all(|s| s[0] == 0 && s[3] == 0), "{seen:?}");
        assert_eq!(seen.last(), Some(&[0, 0, 0, 0]));
    }
}
