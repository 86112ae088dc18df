//! What messaging costs a rank's own core: the host time to post a send and to complete a
//! receive, copies of eager messages included (LogGP's overhead `o`, SST Firefly's host
//! delays). A rank's core does one such thing at a time, computing included, so its sends,
//! receives and compute queue behind each other. The time is the host's, not the network's;
//! failed links change it only through the order messages arrive in, which sets how far
//! each receive's search of the posted-receive queue goes ([`super::PostedReceives`]).

use std::fmt;
use std::str::FromStr;

use super::lqcd::EMBER_SHORT_MSG_LENGTH_BYTES;
use std::collections::{HashMap, VecDeque};

use super::{Arrival, Job, Op, PostedReceives};
use crate::options::{join_options, OptionError, OptionFamily};
use crate::units::format_seconds;

/// Host costs of messaging, per message, on the sending and on the receiving rank.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostCosts {
    /// Host time to post one send, in seconds.
    pub send_s: f64,
    /// Host time to complete one receive, the search for its posted receive aside, in
    /// seconds.
    pub recv_s: f64,
    /// Host time to examine one entry of the posted-receive queue while matching an arrived
    /// message, in seconds: a message whose receive is first in the queue pays it once, one
    /// behind `n` unmatched receives `n + 1` times ([`super::PostedReceives`]).
    pub match_s: f64,
    /// Host time per byte the sender spends copying an eager message, in seconds per byte.
    pub send_copy_s_per_byte: f64,
    /// Host time per byte the receiver spends copying an eager message out, in seconds per
    /// byte.
    pub recv_copy_s_per_byte: f64,
    /// Largest message sent eager (copied), in bytes; a larger one goes from the user's
    /// buffer after registering it instead.
    pub eager_limit_bytes: f64,
    /// Host time to register a message's buffer for a rendezvous, on each side, in seconds.
    pub register_s: f64,
    /// Added registration time per whole 4 KiB page of a message longer than one page, in
    /// seconds per page.
    pub register_s_per_page: f64,
    /// Time between a rank's core and its NIC, each way, in seconds (Firefly's
    /// `nic2host_lat`): a send or a long message's header reaches the NIC that long after
    /// the core has posted it, and the core hears of an arrived message (a send, a header,
    /// a payload) that long after its last byte. It holds no core; the get requests and
    /// acknowledgements NICs exchange on their own do not pay it.
    pub nic_latency_s: f64,
    /// Host time to post one receive, in seconds, paid on the receiver's core when it
    /// enters the round whose message the receive is for, before that round's sends
    /// (Firefly charges an `MPI_Irecv` its call's entry and return, 30 ns each).
    pub post_s: f64,
    /// When a rank's core completes the messages that arrive while it still has sends to
    /// post ([`Progress`]).
    pub progress: Progress,
}

/// When a rank's core completes the messages that arrive while it is busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Progress {
    /// Its work is done in the order it was released: a round's sends, released together,
    /// all go before any message that arrives meanwhile; a message that arrives before
    /// its receive is posted is searched for behind the receives still unmatched and done
    /// ([`PostedReceives`]). The default.
    #[default]
    Released,
    /// As SST Firefly's MPI does it, call by call (`ctrlMsgProcessQueuesState.cc`): the
    /// rank posts its receives as it enters a round, then its sends one at a time, and each
    /// send, once handed to the NIC, first completes the messages that arrived before it
    /// (`enterMakeProgress`); a message that arrives before its receive is posted walks
    /// the posted receives, waits in the unexpected queue, and is completed when its
    /// receive is posted, each post walking that queue first ([`PostedReceives::arrive`],
    /// [`PostedReceives::enter_round`]).
    Calls,
}

impl Progress {
    /// The name the `progress` override takes.
    pub fn name(self) -> &'static str {
        match self {
            Self::Released => "released",
            Self::Calls => "calls",
        }
    }
}

/// Bytes in one page of memory registration.
const PAGE_BYTES: f64 = 4096.0;

impl HostCosts {
    /// No host costs: messages leave and arrive in no host time (the engines' default).
    pub const NONE: Self = Self {
        send_s: 0.0,
        recv_s: 0.0,
        match_s: 0.0,
        send_copy_s_per_byte: 0.0,
        recv_copy_s_per_byte: 0.0,
        eager_limit_bytes: f64::INFINITY,
        register_s: 0.0,
        register_s_per_page: 0.0,
        nic_latency_s: 0.0,
        post_s: 0.0,
        progress: Progress::Released,
    };

    /// What SST's Ember jobs charge with Firefly's defaults as `EmberMPIJob` sets them
    /// (the `ember.ctrl` and `ember.functionsm` parameter sets): posting a send costs
    /// `txSetup` 130 ns plus 60 ns to enter and leave the MPI call; completing a receive
    /// costs `rxSetup` 100 ns and the same 60 ns, plus `matchDelay` 150 ns for each entry
    /// of the posted-receive queue its search examines; a message up to
    /// `shortMsgLength` (12,000 bytes) goes eager and its copies cost nothing: those
    /// parameter sets give the copy modules (`txMemcpyMod`, `rxMemcpyMod`) 344 ps as their
    /// `base`, which Firefly's `LatencyMod` adds once per copy, not per byte, and rounds to
    /// whole nanoseconds, so 0 ns; a longer message registers its buffer on both sides,
    /// 3 us plus 100 ns per 4 KiB page.
    pub const EMBER: Self = Self {
        send_s: 190e-9,
        recv_s: 160e-9,
        match_s: 150e-9,
        send_copy_s_per_byte: 0.0,
        recv_copy_s_per_byte: 0.0,
        eager_limit_bytes: EMBER_SHORT_MSG_LENGTH_BYTES,
        register_s: 3e-6,
        register_s_per_page: 100e-9,
        nic_latency_s: 0.0,
        post_s: 0.0,
        progress: Progress::Released,
    };

    /// Ember's costs ([`Self::EMBER`]) charged where SST 16's Firefly charges them, call by
    /// call ([`Progress::Calls`]), with the platform `firefly-defaults` that SST's own
    /// Ember configurations select: posting a receive costs its `MPI_Irecv` call's entry
    /// and return (`defaultEnterLatency` and `defaultReturnLatency`, 30 ns each), paid as
    /// the rank enters the round; completing one costs `rxSetup` 100 ns plus `matchDelay`
    /// 150 ns per entry its search examines; posting a send 190 ns as in Ember's; and the
    /// core and its NIC are `nic2host_lat` 150 ns apart.
    pub const FIREFLY: Self = Self {
        recv_s: 100e-9,
        nic_latency_s: 150e-9,
        post_s: 60e-9,
        progress: Progress::Calls,
        ..Self::EMBER
    };

    /// These costs times `factor` (at least 0), every time and time per byte or page alike;
    /// the eager limit stays.
    pub fn scaled(&self, factor: f64) -> Self {
        Self {
            send_s: self.send_s * factor,
            recv_s: self.recv_s * factor,
            match_s: self.match_s * factor,
            send_copy_s_per_byte: self.send_copy_s_per_byte * factor,
            recv_copy_s_per_byte: self.recv_copy_s_per_byte * factor,
            eager_limit_bytes: self.eager_limit_bytes,
            register_s: self.register_s * factor,
            register_s_per_page: self.register_s_per_page * factor,
            nic_latency_s: self.nic_latency_s * factor,
            post_s: self.post_s * factor,
            progress: self.progress,
        }
    }

    /// Whether every cost is zero.
    pub fn is_free(&self) -> bool {
        self.send_s == 0.0
            && self.recv_s == 0.0
            && self.match_s == 0.0
            && self.send_copy_s_per_byte == 0.0
            && self.recv_copy_s_per_byte == 0.0
            && self.register_s == 0.0
            && self.register_s_per_page == 0.0
            && self.nic_latency_s == 0.0
            && self.post_s == 0.0
    }

    /// The NIC latency `op` pays on its way out of its sender's core (a send or a header)
    /// and again on its way into its receiver's (those and a payload), in seconds: see
    /// [`Self::nic_latency_s`].
    fn nic_s(&self, op: &Op, leaving: bool) -> f64 {
        match op {
            Op::Send { .. } | Op::Header { .. } => self.nic_latency_s,
            Op::Payload { .. } if !leaving => self.nic_latency_s,
            _ => 0.0,
        }
    }

    /// The part one side pays for a message of `bytes`: its copy at `copy_s_per_byte` if
    /// eager, its buffer's registration if not, in seconds.
    fn per_side_s(&self, bytes: f64, copy_s_per_byte: f64) -> f64 {
        if bytes <= self.eager_limit_bytes {
            bytes * copy_s_per_byte
        } else {
            let pages = if bytes > PAGE_BYTES {
                (bytes / PAGE_BYTES).floor()
            } else {
                0.0
            };
            self.register_s + pages * self.register_s_per_page
        }
    }

    /// Host time the sender spends on a message of `bytes` before it enters the network, in
    /// seconds.
    pub fn send_cost_s(&self, bytes: f64) -> f64 {
        self.send_s + self.per_side_s(bytes, self.send_copy_s_per_byte)
    }

    /// Host time the receiver spends on a message of `bytes` that arrives whole, after its
    /// last byte (an eager one, or a long one sent without [`super::Dag::with_rendezvous`]),
    /// its receive first in the queue, in seconds. With the rendezvous a long message's
    /// receiver pays instead a registration when it posts the receive, `recv_s` and the
    /// search to match the header, and the registration's release after the payload
    /// ([`Self::before_s`], [`Self::after_s`]).
    pub fn recv_cost_s(&self, bytes: f64) -> f64 {
        self.recv_s + self.match_s + self.per_side_s(bytes, self.recv_copy_s_per_byte)
    }

    /// Host time the core of `op`'s rank spends on it before it enters the network (or,
    /// for a posted receive, before it is done), in seconds: a send's or a long message's
    /// header's [`Self::send_cost_s`]; the registration of a long receive's buffer; nothing
    /// for a payload, a get request or an acknowledgement, which the NICs handle, or
    /// compute.
    pub fn before_s(&self, op: &Op) -> f64 {
        match *op {
            Op::Send { size_bytes, .. } | Op::Header { size_bytes, .. } => {
                self.send_cost_s(size_bytes)
            }
            Op::PostReceive { size_bytes, .. } => {
                self.per_side_s(size_bytes, self.recv_copy_s_per_byte)
            }
            Op::Payload { .. } | Op::Control { .. } | Op::Compute { .. } => 0.0,
        }
    }

    /// Host time the receiving rank's core spends on `op` once it has arrived, its receive
    /// first in the queue, in seconds: an eager send's [`Self::recv_cost_s`]; matching a
    /// long message's header (`recv_s + match_s`);
    /// releasing the registration of its payload's buffer; nothing for a get request, an
    /// acknowledgement or compute.
    pub fn after_s(&self, op: &Op) -> f64 {
        match *op {
            Op::Send { size_bytes, .. } => self.recv_cost_s(size_bytes),
            Op::Header { .. } => self.recv_s + self.match_s,
            Op::Payload { size_bytes, .. } => {
                self.per_side_s(size_bytes, self.recv_copy_s_per_byte)
            }
            Op::PostReceive { .. } | Op::Control { .. } | Op::Compute { .. } => 0.0,
        }
    }
}

impl Default for HostCosts {
    fn default() -> Self {
        Self::NONE
    }
}

impl FromStr for HostCosts {
    type Err = OptionError;

    /// Reads `none`, `ember`, `firefly` ([`HostCosts::FIREFLY`]), or `ember*K` (Ember's
    /// costs times `K`, a number at least 0, to ask how much a faster or slower MPI stack
    /// would hide or show), then any number of `+KEY=VALUE` overrides of single costs,
    /// applied after the scaling: `send`, `recv`, `match`, `register`, `page`, `nic` and
    /// `post` are times (`190ns`); `copy`, `send_copy` and `recv_copy` are times per byte
    /// (`344ps/B`; `copy` sets both sides); `eager` is the largest eager message in bytes;
    /// `progress` is `released` or `calls` ([`Progress`]). E.g. `ember+send_copy=344ps/B` is Ember's older
    /// parameter file, whose send copy costs 344 ps per byte. An error names the cost it is
    /// about (`scale` for `K`, `host` for the rest of the base).
    fn from_str(s: &str) -> Result<Self, OptionError> {
        let in_spec =
            |e: OptionError| OptionError::new(e.field, format!("host costs {s:?}: {}", e.message));
        let mut items = s.split('+');
        let base = items.next().unwrap_or_default();
        let mut costs = match base {
            "none" => Self::NONE,
            "ember" => Self::EMBER,
            "firefly" => Self::FIREFLY,
            other => match other.strip_prefix("ember*") {
                Some(factor) => match factor.parse::<f64>() {
                    Ok(k) if k.is_finite() && k >= 0.0 => Self::EMBER.scaled(k),
                    _ => {
                        return Err(in_spec(OptionError::new(
                            "scale",
                            format!(
                                "the factor after ember* must be a number at least 0, got \
                                 {factor:?}"
                            ),
                        )))
                    }
                },
                None => {
                    return Err(OptionError::new(
                        "host",
                        format!(
                            "unknown host costs {other:?} (known: none, ember, firefly, \
                             ember*K, each followed by +KEY=VALUE overrides)"
                        ),
                    ))
                }
            },
        };
        let mut seen: Vec<&str> = Vec::new();
        for item in items {
            // The same wording as the routing, engine, fabric and workload specs.
            if let Some((key, _)) = item.split_once('=') {
                if seen.contains(&key) {
                    return Err(in_spec(OptionError::new(
                        key,
                        format!("option {key} is given twice"),
                    )));
                }
                seen.push(key);
            }
            costs.set(item).map_err(in_spec)?;
        }
        costs.check_clock().map_err(in_spec)?;
        Ok(costs)
    }
}

/// The base a host-costs spec starts from ([`HostCosts::from_str`]).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Base {
    /// `none`.
    None,
    /// `ember`.
    Ember,
    /// `ember*K`.
    Scaled(f64),
    /// `firefly`.
    Firefly,
}

impl Base {
    fn costs(self) -> HostCosts {
        match self {
            Self::None => HostCosts::NONE,
            Self::Ember => HostCosts::EMBER,
            Self::Scaled(k) => HostCosts::EMBER.scaled(k),
            Self::Firefly => HostCosts::FIREFLY,
        }
    }
}

/// One cost of [`HostCosts`], in seconds.
type Cost = fn(&HostCosts) -> f64;

/// The times a spec overrides one by one: name, the cost (in seconds) it sets.
const TIMES: [(&str, Cost); 7] = [
    ("send", |c| c.send_s),
    ("recv", |c| c.recv_s),
    ("match", |c| c.match_s),
    ("register", |c| c.register_s),
    ("page", |c| c.register_s_per_page),
    ("nic", |c| c.nic_latency_s),
    ("post", |c| c.post_s),
];

impl HostCosts {
    /// The overrides that turn `base`'s costs into these, in canonical order (`copy` for
    /// equal copy costs on both sides), each as (name, value as the spec writes it).
    fn overrides_of(&self, base: &Self) -> Vec<(&'static str, String)> {
        let mut out: Vec<(&'static str, String)> = TIMES
            .iter()
            .filter(|(_, get)| get(self) != get(base))
            .map(|&(name, get)| (name, format_seconds(get(self))))
            .collect();
        let per_byte = |s_per_byte: f64| format!("{}/B", format_seconds(s_per_byte));
        let (send, recv) = (self.send_copy_s_per_byte, self.recv_copy_s_per_byte);
        if send == recv && (send != base.send_copy_s_per_byte || recv != base.recv_copy_s_per_byte)
        {
            out.push(("copy", per_byte(send)));
        } else {
            if send != base.send_copy_s_per_byte {
                out.push(("send_copy", per_byte(send)));
            }
            if recv != base.recv_copy_s_per_byte {
                out.push(("recv_copy", per_byte(recv)));
            }
        }
        if self.eager_limit_bytes != base.eager_limit_bytes {
            out.push(("eager", self.eager_limit_bytes.to_string()));
        }
        if self.progress != base.progress {
            out.push(("progress", self.progress.name().to_string()));
        }
        out
    }

    /// The base and overrides of the canonical spec: of `none`, `ember` and Ember scaled
    /// by the ratio of any of these costs to Ember's, the first that needs the fewest
    /// overrides.
    fn canonical(&self) -> (Base, Vec<(&'static str, String)>) {
        let ratios = TIMES.iter().filter_map(|(_, get)| {
            let k = get(self) / get(&Self::EMBER);
            (k.is_finite() && k >= 0.0 && k != 1.0).then_some(Base::Scaled(k))
        });
        [Base::None, Base::Ember, Base::Firefly]
            .into_iter()
            .chain(ratios)
            .map(|base| (base, self.overrides_of(&base.costs())))
            .min_by_key(|(_, overrides)| overrides.len())
            .expect("two bases at least")
    }
}

impl OptionFamily for HostCosts {
    const FAMILY: &'static str = "host";

    /// `ember` for Ember's costs (scaled or not), `none` otherwise.
    fn kind(&self) -> &'static str {
        match self.canonical().0 {
            Base::None => "none",
            Base::Ember | Base::Scaled(_) => "ember",
            Base::Firefly => "firefly",
        }
    }

    /// `scale` (the `K` of `ember*K`) when not 1, then the costs that differ from the
    /// base's.
    fn options(&self) -> Vec<(&'static str, String)> {
        let (base, overrides) = self.canonical();
        let scale = match base {
            Base::Scaled(k) => Some(("scale", k.to_string())),
            Base::None | Base::Ember | Base::Firefly => None,
        };
        scale.into_iter().chain(overrides).collect()
    }

    /// `KIND[*SCALE]+NAME=VALUE...` read as any host-costs spec is.
    fn from_options(kind: &str, options: &[(&str, &str)]) -> Result<Self, OptionError> {
        let (scale, costs): (Vec<_>, Vec<_>) =
            options.iter().partition(|(name, _)| *name == "scale");
        let kind = match (kind, scale.as_slice()) {
            (kind, []) => kind.to_string(),
            ("ember", [(_, k)]) => format!("ember*{k}"),
            _ => {
                return Err(OptionError::new(
                    "scale",
                    format!("host costs {kind}: scale applies once, to ember"),
                ))
            }
        };
        join_options("host", &kind, &costs, '+', '+')?.parse()
    }
}

impl fmt::Display for HostCosts {
    /// The canonical spec: `none`, `ember` or `ember*K`, whichever needs the fewest
    /// overrides, then those (`ember+send_copy=344ps/B`), as [`HostCosts::from_str`] reads
    /// them back to the same costs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (base, overrides) = self.canonical();
        match base {
            Base::None => f.write_str("none")?,
            Base::Ember => f.write_str("ember")?,
            Base::Scaled(k) => write!(f, "ember*{k}")?,
            Base::Firefly => f.write_str("firefly")?,
        }
        for (name, value) in overrides {
            write!(f, "+{name}={value}")?;
        }
        Ok(())
    }
}

impl HostCosts {
    /// Fails, naming the first cost and the limit, when a time or a time per byte or page
    /// is longer than the packet engine's clock holds
    /// ([`crate::sim::packet::CLOCK_LIMIT_S`]): such costs would saturate it silently.
    fn check_clock(&self) -> Result<(), OptionError> {
        let limit = crate::sim::packet::CLOCK_LIMIT_S;
        for (name, value) in [
            ("send", self.send_s),
            ("recv", self.recv_s),
            ("match", self.match_s),
            ("send_copy", self.send_copy_s_per_byte),
            ("recv_copy", self.recv_copy_s_per_byte),
            ("register", self.register_s),
            ("page", self.register_s_per_page),
            ("nic", self.nic_latency_s),
            ("post", self.post_s),
        ] {
            if value > limit {
                return Err(OptionError::new(
                    name,
                    format!(
                        "{name} costs {value:e} s, more than the {limit:.0} s the packet \
                         engine's clock holds"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Applies one `KEY=VALUE` override (see [`HostCosts::from_str`]).
    fn set(&mut self, item: &str) -> Result<(), OptionError> {
        let (key, value) = item.split_once('=').ok_or_else(|| {
            OptionError::new(
                if item.is_empty() { "host" } else { item },
                format!("{item:?} is not KEY=VALUE"),
            )
        })?;
        let bad = |expected: &str| {
            OptionError::new(key, format!("{key}: expected {expected}, got {value:?}"))
        };
        let seconds = |text: Option<&str>, expected: &str| {
            text.and_then(|t| crate::units::parse_seconds(t).ok())
                .filter(|t| *t >= 0.0)
                .ok_or_else(|| bad(expected))
        };
        let time = || seconds(Some(value), "a time at least 0 like 150ns");
        let per_byte = || {
            seconds(
                value.strip_suffix("/B"),
                "a time per byte at least 0 like 344ps/B",
            )
        };
        match key {
            "send" => self.send_s = time()?,
            "recv" => self.recv_s = time()?,
            "match" => self.match_s = time()?,
            "register" => self.register_s = time()?,
            "page" => self.register_s_per_page = time()?,
            "nic" => self.nic_latency_s = time()?,
            "post" => self.post_s = time()?,
            "progress" => {
                self.progress = [Progress::Released, Progress::Calls]
                    .into_iter()
                    .find(|p| p.name() == value)
                    .ok_or_else(|| bad("released or calls"))?
            }
            "copy" => {
                let c = per_byte()?;
                self.send_copy_s_per_byte = c;
                self.recv_copy_s_per_byte = c;
            }
            "send_copy" => self.send_copy_s_per_byte = per_byte()?,
            "recv_copy" => self.recv_copy_s_per_byte = per_byte()?,
            "eager" => {
                self.eager_limit_bytes = value
                    .parse::<f64>()
                    .ok()
                    .filter(|b| *b >= 0.0 && !b.is_nan())
                    .ok_or_else(|| bad("a number of bytes at least 0"))?
            }
            other => {
                return Err(OptionError::new(
                    other,
                    format!(
                        "unknown cost {other:?} (known: send, recv, match, register, page, \
                         nic, post, copy, send_copy, recv_copy, eager, progress)"
                    ),
                ))
            }
        }
        Ok(())
    }
}

/// When each rank's core is next free, over every rank of several jobs (job 0's ranks
/// first): engines ask it when a send may enter the network and when a receive is done.
///
/// With [`Progress::Calls`] an answer may be "later": [`Self::depart`] and
/// [`Self::arrive`] return `None` for a send that waits for the rank's previous send and for
/// a message completed at a later call; the engine then learns its time from
/// [`Self::handed_off`] (called when a send enters the network) or [`Self::compute`]'s
/// completions ([`Self::take_completed`]).
#[derive(Debug, Clone)]
pub struct HostTimeline {
    /// First global rank of each job.
    rank_base: Vec<usize>,
    costs: Vec<HostCosts>,
    /// When each rank's core is next free, in seconds.
    free_s: Vec<f64>,
    /// Each rank's posted receives, searched as messages arrive (empty without host
    /// costs).
    posted: PostedReceives,
    /// Per global rank, with [`Progress::Calls`]: whether a send of it is booked on its
    /// core and not yet in the network, the sends released after it (global operation and
    /// core time), and the work of messages that arrived meanwhile (global operation, or
    /// `None` for an unexpected message's walk, and core time).
    sending: Vec<bool>,
    unsent: Vec<VecDeque<(u32, f64)>>,
    deferred: Vec<Vec<(Option<u32>, f64)>>,
    /// With [`Progress::Calls`]: the messages waiting in an unexpected queue (global
    /// operation) and what completing each costs once found ([`HostCosts::after_s`]).
    unexpected_s: HashMap<u32, f64>,
    /// Messages completed by receives posted in [`Self::compute`], with their times.
    completed: Vec<(u32, f64)>,
}

impl HostTimeline {
    /// Every core free at time 0.
    pub fn new(jobs: &[Job]) -> Self {
        let mut rank_base = Vec::with_capacity(jobs.len());
        let mut total = 0usize;
        for j in jobs {
            rank_base.push(total);
            total += j.dag.num_ranks() as usize;
        }
        let any = jobs.iter().any(|j| !j.host.is_free());
        let calls = jobs.iter().any(|j| j.host.progress == Progress::Calls);
        let per_rank = if any && calls { total } else { 0 };
        Self {
            rank_base,
            costs: jobs.iter().map(|j| j.host).collect(),
            free_s: if any { vec![0.0; total] } else { Vec::new() },
            posted: if jobs.iter().any(|j| {
                j.host.match_s > 0.0 || j.host.post_s > 0.0 || j.host.progress == Progress::Calls
            }) {
                PostedReceives::new(jobs)
            } else {
                PostedReceives::default()
            },
            sending: vec![false; per_rank],
            unsent: vec![VecDeque::new(); per_rank],
            deferred: vec![Vec::new(); per_rank],
            unexpected_s: HashMap::new(),
            completed: Vec::new(),
        }
    }

    /// Whether no job has host costs (then every answer is "now").
    pub fn is_free(&self) -> bool {
        self.free_s.is_empty()
    }

    /// Whether job `job` makes progress call by call ([`Progress::Calls`]).
    fn calls(&self, job: usize) -> bool {
        !self.is_free() && self.costs[job].progress == Progress::Calls
    }

    /// Message or posted receive `op` (global operation `g`) of job `job` is released at
    /// `t`: returns when it enters the network (when the receive is posted), once the core
    /// of its rank has finished what it queued before and then paid
    /// [`HostCosts::before_s`], and the message has crossed to the NIC
    /// ([`HostCosts::nic_latency_s`]), in seconds. With [`Progress::Calls`] a send (or a
    /// long message's header) released while another of its rank's is still on the core
    /// waits for it: `None`, and [`Self::handed_off`] gives its time later.
    pub fn depart(&mut self, g: u32, job: usize, op: &Op, t: f64) -> Option<f64> {
        if self.is_free() {
            return Some(t);
        }
        let costs = self.costs[job];
        let cost = costs.before_s(op);
        if self.calls(job) && matches!(op, Op::Send { .. } | Op::Header { .. }) {
            let r = self.rank_base[job] + op.rank() as usize;
            if self.sending[r] {
                self.unsent[r].push_back((g, cost));
                return None;
            }
            self.sending[r] = true;
        }
        Some(self.occupy(job, op.rank(), cost, t) + costs.nic_s(op, true))
    }

    /// Message `op` of job `job` entered the network at `t` (its [`Self::depart`] time, or
    /// one [`Self::handed_off`] gave). If it is a send (or a long message's header) and the
    /// job makes [`Progress::Calls`], its rank's core completes the messages that arrived
    /// meanwhile and then pays for the rank's next send; appends each of those messages (global operation) with when it is
    /// done to `done`, and returns that send with when it enters the network. Nothing
    /// without [`Progress::Calls`].
    pub fn handed_off(
        &mut self,
        job: usize,
        op: &Op,
        t: f64,
        done: &mut Vec<(u32, f64)>,
    ) -> Option<(u32, f64)> {
        if !self.calls(job) || !matches!(op, Op::Send { .. } | Op::Header { .. }) {
            return None;
        }
        let rank = op.rank();
        let r = self.rank_base[job] + rank as usize;
        self.sending[r] = false;
        let at = t - self.costs[job].nic_latency_s;
        for (g, cost) in std::mem::take(&mut self.deferred[r]) {
            let end = self.occupy(job, rank, cost, at);
            done.extend(g.map(|g| (g, end)));
        }
        let (g, cost) = self.unsent[r].pop_front()?;
        self.sending[r] = true;
        Some((
            g,
            self.occupy(job, rank, cost, at) + self.costs[job].nic_latency_s,
        ))
    }

    /// Compute of `seconds` on rank `rank` of job `job` is released at `t`: returns when it
    /// ends. With host costs the compute holds its rank's core like any messaging work: it
    /// starts once the core has finished what it queued before, and a message that arrives
    /// meanwhile is completed after it (an Ember rank handles arrivals only inside its MPI
    /// calls, not while it computes). Without host costs it ends at `t + seconds`. A
    /// compute starts a round: after it the rank posts that round's receives
    /// ([`HostCosts::post_s`] each; with [`Progress::Calls`] each first searches the
    /// unexpected queue and completes the message it finds there, listed in
    /// [`Self::take_completed`]), and the compute ends when they are posted. Those
    /// receives count as posted from the compute's start: a message that arrives during
    /// the compute is searched for among them (Firefly would park it in the unexpected
    /// queue and the post would find it there, at about the same cost).
    pub fn compute(&mut self, job: usize, rank: u32, seconds: f64, t: f64) -> f64 {
        if self.is_free() {
            return t + seconds;
        }
        let mut end = self.occupy(job, rank, seconds, t);
        let costs = self.costs[job];
        if costs.post_s == 0.0 && costs.progress == Progress::Released {
            return end;
        }
        let mut postings = Vec::new();
        self.posted
            .enter_round(self.rank_base[job] + rank as usize, &mut postings);
        for p in postings {
            let walk = costs.match_s * f64::from(p.examined);
            end = match p.matched {
                Some(g) => {
                    // The walk ends at its message, whose own examination is the match
                    // `after_s` already counts.
                    let after = self.unexpected_s.remove(&g).unwrap_or_default();
                    let cost = costs.post_s + walk - costs.match_s + after;
                    let done = self.occupy(job, rank, cost, end);
                    self.completed.push((g, done));
                    done
                }
                None => self.occupy(job, rank, costs.post_s + walk, end),
            };
        }
        end
    }

    /// Moves the messages that receives posted in [`Self::compute`] completed, with when
    /// each is done, into `out`.
    pub fn take_completed(&mut self, out: &mut Vec<(u32, f64)>) {
        out.append(&mut self.completed);
    }

    /// The last byte of message `op` (global operation `g`, numbered as
    /// [`super::JobsProgress`] numbers them) of job `job` arrived at `t`: returns when it
    /// is done, once the NIC has told its receiver's core ([`HostCosts::nic_latency_s`])
    /// and the core has finished what it queued before and then paid
    /// [`HostCosts::after_s`] and `match_s` for each unmatched receive its search passed
    /// over ([`PostedReceives::take`]), in seconds. With [`Progress::Calls`], `None` when it
    /// is completed later: its receive is not posted yet (the core walks the posted
    /// receives now, and [`Self::compute`] completes it), or its rank still has a send on
    /// the core (then [`Self::handed_off`] completes it).
    pub fn arrive(&mut self, g: u32, job: usize, op: &Op, t: f64) -> Option<f64> {
        let Some((_, dst, _)) = op.message() else {
            return Some(t);
        };
        if self.is_free() {
            return Some(t);
        }
        let costs = self.costs[job];
        let r = self.rank_base[job] + dst as usize;
        let notified = t + costs.nic_s(op, false);
        let (cost, done) = if costs.progress == Progress::Calls {
            match self.posted.arrive(g, r) {
                Arrival::Matched(examined) => (
                    costs.after_s(op) + costs.match_s * f64::from(examined - 1),
                    true,
                ),
                Arrival::Unexpected(walked) => {
                    self.unexpected_s.insert(g, costs.after_s(op));
                    (costs.match_s * f64::from(walked), false)
                }
            }
        } else {
            let mut cost = costs.after_s(op);
            if costs.match_s > 0.0 {
                let examined = self.posted.take(g, r);
                cost += costs.match_s * f64::from(examined - 1);
            }
            (cost, true)
        };
        if costs.progress == Progress::Calls && self.sending[r] && cost > 0.0 {
            self.deferred[r].push((done.then_some(g), cost));
            return None;
        }
        let at = self.occupy(job, dst, cost, notified);
        done.then_some(at)
    }

    fn occupy(&mut self, job: usize, rank: u32, cost: f64, t: f64) -> f64 {
        if cost == 0.0 {
            return t;
        }
        let free = &mut self.free_s[self.rank_base[job] + rank as usize];
        *free = free.max(t) + cost;
        *free
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn printing_picks_the_base_with_the_fewest_overrides() {
        for (given, canonical) in [
            ("none", "none"),
            ("ember", "ember"),
            ("ember*1", "ember"),
            ("ember*0.5", "ember*0.5"),
            ("ember+send_copy=344ps/B", "ember+send_copy=344ps/B"),
            ("ember+copy=1ns/B", "ember+copy=1ns/B"),
            ("none+nic=150ns", "none+nic=150ns"),
            ("ember*2+match=0ns+send=2us", "ember*2+send=2us+match=0s"),
            ("none+send=190ns+recv=160ns", "none+send=190ns+recv=160ns"),
        ] {
            let costs: HostCosts = given.parse().unwrap();
            assert_eq!(costs.to_string(), canonical, "{given}");
            assert_eq!(canonical.parse::<HostCosts>(), Ok(costs), "{given}");
        }
        let scaled: HostCosts = "ember*3+nic=1us".parse().unwrap();
        assert_eq!((scaled.kind(), scaled.options()[0].0), ("ember", "scale"));
        assert_eq!(
            HostCosts::from_options("ember", &[("nic", "1us"), ("scale", "3")]),
            Ok(scaled)
        );
        let e = HostCosts::from_options("none", &[("scale", "2")]).unwrap_err();
        assert_eq!(e.field, "scale");
    }

    fn seconds() -> impl Strategy<Value = f64> {
        prop_oneof![
            Just(0.0),
            (0u32..1_000_000).prop_map(|ns| f64::from(ns) * 1e-9),
            0.0f64..1e-3,
        ]
    }

    fn host_costs() -> impl Strategy<Value = HostCosts> {
        let base = prop_oneof![
            Just(HostCosts::NONE),
            Just(HostCosts::EMBER),
            Just(HostCosts::FIREFLY),
            (0.0f64..10.0).prop_map(|k| HostCosts::EMBER.scaled(k)),
        ];
        let overrides = proptest::collection::vec((0usize..12, seconds()), 0..4);
        let eager = prop_oneof![
            Just(f64::INFINITY),
            (0u32..100_000).prop_map(f64::from),
            0.0f64..1e9
        ];
        (base, overrides, eager, any::<bool>()).prop_map(|(mut c, overrides, eager, set_eager)| {
            for (which, v) in overrides {
                match which {
                    0 => c.send_s = v,
                    1 => c.recv_s = v,
                    2 => c.match_s = v,
                    3 => c.register_s = v,
                    4 => c.register_s_per_page = v,
                    5 => c.nic_latency_s = v,
                    6 => c.send_copy_s_per_byte = v * 1e-3,
                    7 => c.recv_copy_s_per_byte = v * 1e-3,
                    8 => c.post_s = v,
                    9 => {
                        c.progress = match c.progress {
                            Progress::Released => Progress::Calls,
                            Progress::Calls => Progress::Released,
                        }
                    }
                    _ => {
                        c.send_copy_s_per_byte = v * 1e-3;
                        c.recv_copy_s_per_byte = v * 1e-3;
                    }
                }
            }
            if set_eager {
                c.eager_limit_bytes = eager;
            }
            c
        })
    }

    proptest! {
        #[test]
        fn host_costs_read_back_as_they_print(costs in host_costs()) {
            let printed = costs.to_string();
            prop_assert_eq!(printed.parse::<HostCosts>(), Ok(costs), "{}", printed);
            let options = costs.options();
            let options: Vec<(&str, &str)> = options.iter().map(|(k, v)| (*k, v.as_str())).collect();
            prop_assert_eq!(HostCosts::from_options(costs.kind(), &options), Ok(costs));
        }

        #[test]
        fn a_printed_host_spec_is_stable(
            base in prop_oneof![Just("none"), Just("ember"), Just("ember*0.25"), Just("ember*3"),
                                Just("firefly")],
            overrides in proptest::sample::subsequence(
                vec!["send=1us", "match=0ns", "copy=344ps/B", "recv_copy=1ns/B", "eager=64",
                     "nic=150ns", "send=190ns", "post=60ns", "progress=calls",
                     "progress=released", "recv=100ns"],
                0..4,
            ),
        ) {
            // Each cost once: a cost given twice is refused (`overrides_given_twice_are_refused`).
            let mut keys = Vec::new();
            let overrides = overrides.into_iter().filter(|o| {
                let key = o.split_once('=').map_or(*o, |(k, _)| k);
                let first = !keys.contains(&key);
                keys.push(key);
                first
            });
            let given = std::iter::once(base).chain(overrides).collect::<Vec<_>>().join("+");
            let once = given.parse::<HostCosts>().unwrap().to_string();
            prop_assert_eq!(once.parse::<HostCosts>().unwrap().to_string(), once);
        }

        #[test]
        fn bad_host_specs_name_a_field(text in "\\PC{0,40}") {
            if let Err(e) = text.parse::<HostCosts>() {
                prop_assert!(!e.field.is_empty() && !e.message.contains('\n'), "{:?}", e);
            }
        }
    }

    #[test]
    fn costs_longer_than_the_engine_clock_are_refused_with_the_limit() {
        for spec in ["ember*1e30", "none+send=1e8s", "ember+copy=1e9s/B"] {
            let e = spec.parse::<HostCosts>().unwrap_err().message;
            assert!(
                e.contains("18446744 s") && e.contains("clock"),
                "{spec}: {e}"
            );
        }
        assert!("ember*1000".parse::<HostCosts>().is_ok());
    }

    #[test]
    fn ember_costs_follow_firefly_defaults() {
        let e = HostCosts::EMBER;
        // A 7,200-byte Halo3D26 face (30 x 30 doubles) is eager, its copies free: 190 ns to
        // send, 310 ns to receive, whatever its size up to 12,000 bytes.
        for bytes in [8.0, 7200.0, 12_000.0] {
            assert!((e.send_cost_s(bytes) - 190e-9).abs() < 1e-15);
            assert!((e.recv_cost_s(bytes) - 310e-9).abs() < 1e-15);
        }
        // 40,000 bytes go rendezvous: 3 us + 9 pages x 100 ns on top of the setup.
        assert!((e.send_cost_s(40_000.0) - (190e-9 + 3e-6 + 9.0 * 100e-9)).abs() < 1e-15);
        assert!(HostCosts::NONE.is_free() && !e.is_free());
        assert_eq!("ember".parse::<HostCosts>(), Ok(e));
        assert!("mpich"
            .parse::<HostCosts>()
            .unwrap_err()
            .message
            .contains("none, ember, firefly, ember*K"));
    }

    #[test]
    fn firefly_charges_the_irecv_call_when_posting_and_reads_back() {
        let f = HostCosts::FIREFLY;
        // The 60 ns of the MPI_Irecv call move from the receive's completion to its post:
        // 60 ns posted, 100 ns + 150 ns to complete, 310 ns in all as in Ember's costs.
        assert!((f.post_s - 60e-9).abs() < 1e-18);
        assert!(
            (f.post_s + f.recv_cost_s(7200.0) - HostCosts::EMBER.recv_cost_s(7200.0)).abs() < 1e-18
        );
        assert_eq!(f.send_cost_s(7200.0), HostCosts::EMBER.send_cost_s(7200.0));
        assert_eq!((f.progress, f.nic_latency_s), (Progress::Calls, 150e-9));
        assert_eq!("firefly".parse::<HostCosts>(), Ok(f));
        assert_eq!(f.to_string(), "firefly");
        let spelled = "ember+recv=100ns+nic=150ns+post=60ns+progress=calls";
        assert_eq!(spelled.parse::<HostCosts>().unwrap().to_string(), "firefly");
        assert_eq!(
            "firefly+nic=100ns+progress=released"
                .parse::<HostCosts>()
                .unwrap()
                .to_string(),
            "firefly+nic=100ns+progress=released"
        );
        let e = "firefly+progress=eventually"
            .parse::<HostCosts>()
            .unwrap_err();
        assert_eq!(e.field, "progress");
        assert!(e.message.contains("released or calls"), "{}", e.message);
    }

    #[test]
    fn overrides_set_single_costs_after_the_scaling() {
        // Ember's older parameter file: the send's copy at 344 ps per byte, the receive's free.
        let old: HostCosts = "ember+send_copy=344ps/B".parse().unwrap();
        assert!((old.send_cost_s(7200.0) - (190e-9 + 7200.0 * 344e-12)).abs() < 1e-15);
        assert!((old.recv_cost_s(7200.0) - 310e-9).abs() < 1e-15);
        // A long message registers, it does not copy.
        assert_eq!(
            old.send_cost_s(40_000.0),
            HostCosts::EMBER.send_cost_s(40_000.0)
        );
        let both: HostCosts = "ember+copy=1ns/B".parse().unwrap();
        assert_eq!(
            (both.send_copy_s_per_byte, both.recv_copy_s_per_byte),
            (1e-9, 1e-9)
        );
        // Overrides come after the scaling (each cost once: a repeat is refused).
        let c: HostCosts = "ember*2+match=0ns+send=2us+eager=100".parse().unwrap();
        assert_eq!(c.match_s, 0.0);
        assert_eq!(c.send_s, 2e-6);
        assert_eq!(c.recv_s, 2.0 * HostCosts::EMBER.recv_s);
        assert_eq!(c.eager_limit_bytes, 100.0);
        assert!(
            c.send_cost_s(101.0) > c.send_cost_s(100.0) + 2e-6,
            "101 bytes register"
        );
        let nic: HostCosts = "none+nic=150ns".parse().unwrap();
        assert!(!nic.is_free() && nic.send_cost_s(8.0) == 0.0 && nic.nic_latency_s == 150e-9);
        let r: HostCosts = "none+register=1us+page=10ns".parse().unwrap();
        assert_eq!((r.register_s, r.register_s_per_page), (1e-6, 10e-9));
        for (bad, says) in [
            ("ember+copy=344ps", "time per byte"),
            ("ember+copy=-1ps/B", "time per byte"),
            ("ember+send=-1ns", "time at least 0"),
            ("ember+send=fast", "time at least 0"),
            ("ember+eager=-5", "bytes at least 0"),
            ("ember+speed=1ns", "unknown cost \"speed\""),
            ("ember+copy", "not KEY=VALUE"),
            ("ember+", "not KEY=VALUE"),
            ("fast+send=1ns", "unknown host costs \"fast\""),
        ] {
            let err = bad.parse::<HostCosts>().unwrap_err();
            assert!(err.message.contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn scaled_ember_costs_scale_every_cost_and_keep_the_eager_limit() {
        let half: HostCosts = "ember*0.5".parse().unwrap();
        let e = HostCosts::EMBER;
        for bytes in [64.0, 7200.0, 12_000.0, 12_001.0, 40_000.0] {
            assert!((half.send_cost_s(bytes) - 0.5 * e.send_cost_s(bytes)).abs() < 1e-18);
            assert!((half.recv_cost_s(bytes) - 0.5 * e.recv_cost_s(bytes)).abs() < 1e-18);
        }
        assert_eq!(half.eager_limit_bytes, e.eager_limit_bytes);
        assert_eq!("ember*1".parse::<HostCosts>(), Ok(e));
        assert!("ember*0".parse::<HostCosts>().unwrap().is_free());
        for bad in ["ember*", "ember*-1", "ember*x", "ember*inf", "ember*NaN"] {
            let err = bad.parse::<HostCosts>().unwrap_err();
            assert!(err.message.contains("at least 0"), "{bad}: {err}");
            assert_eq!(err.field, "scale", "{bad}");
        }
    }
}

#[cfg(test)]
mod overrides_given_twice_are_refused {
    use super::*;

    #[test]
    fn a_cost_set_twice_is_an_error_naming_it() {
        let err = "ember+send=1s+send=2s".parse::<HostCosts>().unwrap_err();
        assert_eq!(err.field, "send");
        assert_eq!(
            err.message,
            "host costs \"ember+send=1s+send=2s\": option send is given twice"
        );
        assert!("ember+send=1s+recv=2s".parse::<HostCosts>().is_ok());
    }
}
