//! Many fabric-based allreduces back to back under a soft-error model: the time of each.

use super::tree::{ReductionTree, Replication};
use super::{first_good_copy, invalid, CollectiveError};
use crate::fabric::{ChannelId, Fabric};
use crate::sim::packet::{ErrorProcess, LinkTiming, SoftErrors, CLOCK_LIMIT_S};
use crate::units::parse_seconds;

/// Where soft errors strike during a study.
#[derive(Debug, Clone, PartialEq)]
pub enum ErrorModel {
    /// No errors.
    None,
    /// In every operation, the first transmission on every channel is corrupted.
    EveryLinkOnce,
    /// Errors on every channel at exponential intervals of mean `mean_s` seconds.
    Exponential {
        /// Mean time between errors on one channel, in seconds.
        mean_s: f64,
    },
    /// Independent bit errors at this rate on every channel.
    BitErrorRate(f64),
    /// In every operation, the first transmission on each named channel (`FROM->TO`, as
    /// [`Fabric::channel_name`] writes it) is corrupted.
    Channels(Vec<String>),
}

/// The highest chance that a bit error rate, or errors at exponential intervals, corrupt one
/// packet that a study takes: 0.99, a mean of 100 tries per hop. Beyond it the link retries (nearly) forever (at `ber:1` no
/// packet ever gets through), so a study would hang rather than end.
pub const MAX_PACKET_HIT: f64 = 0.99;
const MAX_PACKET_HIT_PERCENT: f64 = 99.0;

/// The most operations one study runs: each one's time is kept and returned (80 MB at
/// this limit), and at the paper's 1,728 nodes ten million operations take about half an
/// hour.
pub const MAX_OPS: u32 = 10_000_000;

/// The most a packet's first try on one hop (serialisation, latency and NAK) may take, in
/// picoseconds (about 18,000 s, 1/1024 of the clock), so that an operation's hops and
/// retries add up without passing the clock.
const MAX_HOP_PS: u64 = u64::MAX / 1024;

impl ErrorModel {
    /// Reads `none`, `every-link-once`, `exp:100us`, `ber:1e-12` or `channels:NAME,NAME`.
    pub fn parse(text: &str) -> Result<Self, CollectiveError> {
        let text = text.trim();
        let bad = |reason: String| invalid("errors", reason);
        match text {
            "none" => return Ok(Self::None),
            "every-link-once" => return Ok(Self::EveryLinkOnce),
            _ => {}
        }
        let (kind, value) = text.split_once(':').ok_or_else(|| {
            bad(format!(
                "expected none, every-link-once, exp:MEAN, ber:RATE or channels:NAME,.., \
                 got {text:?}"
            ))
        })?;
        match kind.trim() {
            "exp" => {
                let mean_s = parse_seconds(value).map_err(|e| bad(e.to_string()))?;
                if mean_s <= 0.0 {
                    return Err(bad(format!(
                        "exp: the mean must be positive, got {value:?}"
                    )));
                }
                if mean_s > CLOCK_LIMIT_S {
                    return Err(bad(format!(
                        "exp: the mean {value:?} is more than the {CLOCK_LIMIT_S:.0} s the \
                         packet clock holds (for no errors give none)"
                    )));
                }
                Ok(Self::Exponential { mean_s })
            }
            "ber" => {
                let ber: f64 = value.trim().parse().map_err(|_| {
                    bad(format!("ber: expected a rate such as 1e-12, got {value:?}"))
                })?;
                if !(0.0..=1.0).contains(&ber) {
                    return Err(bad(format!("ber: a rate lies in [0, 1), got {ber}")));
                }
                if ber == 1.0 {
                    return Err(bad(
                        "ber: a rate of 1 corrupts every packet, so none ever gets through and \
                         the link retries forever; a rate lies in [0, 1)"
                            .into(),
                    ));
                }
                Ok(Self::BitErrorRate(ber))
            }
            "channels" => {
                let names: Vec<String> = value
                    .split(',')
                    .map(|n| n.trim().to_string())
                    .filter(|n| !n.is_empty())
                    .collect();
                if names.is_empty() {
                    return Err(bad("channels: name at least one channel (FROM->TO)".into()));
                }
                Ok(Self::Channels(names))
            }
            other => Err(bad(format!(
                "unknown error model {other:?} (known: none, every-link-once, exp, ber, \
                 channels)"
            ))),
        }
    }
}

/// Settings of a collective study.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AllreduceConfig {
    /// The replication scheme.
    pub replication: Replication,
    /// Size of the operand packet, in bytes (256: one InfiniBand MTU).
    pub packet_bytes: u32,
    /// Number of operations, run back to back.
    pub ops: u32,
    /// Detection and NAK time on top of the latency the NAK takes back, in picoseconds.
    pub nak_ps: u64,
    /// Seed of the error processes.
    pub seed: u64,
}

impl Default for AllreduceConfig {
    /// No replication, 256 B, 1,000 operations, NAK paying only the wire, seed 1.
    fn default() -> Self {
        Self {
            replication: Replication::None,
            packet_bytes: 256,
            ops: 1000,
            nak_ps: 0,
            seed: 1,
        }
    }
}

/// Times of the operations of a study, and their summary.
#[derive(Debug, Clone, PartialEq)]
pub struct AllreduceStudy {
    /// Time of each operation, first endpoint sending to last endpoint holding the result,
    /// in seconds.
    pub op_times_s: Vec<f64>,
    /// Mean operation time, seconds.
    pub mean_s: f64,
    /// Median (nearest rank), seconds.
    pub p50_s: f64,
    /// 99th percentile (nearest rank), seconds.
    pub p99_s: f64,
    /// Standard deviation, seconds.
    pub std_s: f64,
    /// Transmissions corrupted over the study.
    pub retransmissions: u64,
}

/// The channels a study times: the fabric's, and for spatial `k` the extra `k - 1` split
/// channels of every endpoint port, numbered after the fabric's.
struct Channels<'a> {
    fabric: &'a Fabric,
    split: u32,
    packet_bytes: u32,
    nak_ps: u64,
}

impl Channels<'_> {
    fn len(&self) -> usize {
        let host = self.fabric.channels().len() - self.fabric.num_router_channels();
        self.fabric.channels().len() + host * (self.split as usize - 1)
    }

    /// Index of split channel `j` of `channel` (`j = 0` is the channel itself).
    fn index(&self, channel: ChannelId, j: u32) -> usize {
        if j == 0 {
            return channel as usize;
        }
        let host = channel as usize - self.fabric.num_router_channels();
        self.fabric.channels().len() + host * (self.split as usize - 1) + (j as usize - 1)
    }

    /// Timing of `channel` at `1 / share` of its bandwidth.
    fn timing(&self, channel: ChannelId, share: u32) -> LinkTiming {
        let ch = self.fabric.channels();
        let bw = ch.bandwidth_bytes_s[channel as usize] / f64::from(share);
        LinkTiming {
            serialisation_ps: (f64::from(self.packet_bytes) * 1e12 / bw).ceil() as u64,
            latency_ps: (ch.latency_s[channel as usize] * 1e12).round() as u64,
            nak_ps: self.nak_ps,
        }
    }
}

/// Runs `config.ops` allreduces over every endpoint of the XGFT `fabric`, back to back,
/// under `errors`.
pub fn allreduce_study(
    fabric: &Fabric,
    config: AllreduceConfig,
    errors: &ErrorModel,
) -> Result<AllreduceStudy, CollectiveError> {
    if !(1..=MAX_OPS).contains(&config.ops) {
        return Err(invalid(
            "ops",
            format!(
                "from 1 to {MAX_OPS} operations (each one's time is kept), got {}",
                config.ops
            ),
        ));
    }
    if config.packet_bytes == 0 {
        return Err(invalid("packet_bytes", "at least 1 byte"));
    }
    let tree = ReductionTree::new(fabric, config.replication)?;
    let copies = config.replication.copies();
    let (split, per_channel) = match config.replication {
        Replication::Spatial(k) => (k, 1),
        _ => (1, copies),
    };
    let channels = Channels {
        fabric,
        split,
        packet_bytes: config.packet_bytes,
        nak_ps: config.nak_ps,
    };
    if let ErrorModel::BitErrorRate(ber) = *errors {
        let bits = 8.0 * f64::from(config.packet_bytes);
        let hit = -(bits * (-ber).ln_1p()).exp_m1();
        if hit.is_nan() || hit > MAX_PACKET_HIT {
            return Err(invalid(
                "errors",
                format!(
                    "ber: {ber} corrupts {:.4} % of {}-byte packets, more than \
                     {MAX_PACKET_HIT_PERCENT} %: the link would retry (nearly) forever",
                    hit * 100.0,
                    config.packet_bytes
                ),
            ));
        }
    }
    // Every hop's time must sit far inside the clock (it holds `CLOCK_LIMIT_S`).
    for c in 0..fabric.channels().len() as ChannelId {
        let link = channels.timing(c, split);
        let hop = link
            .serialisation_ps
            .saturating_add(link.latency_ps.saturating_mul(2))
            .saturating_add(link.nak_ps);
        if let ErrorModel::Exponential { mean_s } = *errors {
            // An error within a packet's time on the wire corrupts it.
            let on_wire_s = link.serialisation_ps as f64 / 1e12;
            let hit = -(-on_wire_s / mean_s).exp_m1();
            if hit > MAX_PACKET_HIT {
                return Err(invalid(
                    "errors",
                    format!(
                        "exp: an error every {mean_s:e} s on average corrupts {:.4} % of the \
                         {}-byte packets on {} ({on_wire_s:e} s on the wire), more than \
                         {MAX_PACKET_HIT_PERCENT} %: the link would retry (nearly) forever",
                        hit * 100.0,
                        config.packet_bytes,
                        fabric.channel_name(c)
                    ),
                ));
            }
        }
        if hop > MAX_HOP_PS {
            // The larger part names the setting to change.
            let field = if link.nak_ps > link.serialisation_ps {
                "nak"
            } else {
                "packet_bytes"
            };
            return Err(invalid(
                field,
                format!(
                    "a {}-byte packet takes {:e} s on {} (serialisation, latency and NAK), more \
                     than the {:.0} s one hop may take in the {CLOCK_LIMIT_S:.0} s clock",
                    config.packet_bytes,
                    hop as f64 / 1e12,
                    fabric.channel_name(c),
                    MAX_HOP_PS as f64 / 1e12
                ),
            ));
        }
    }
    let mut soft = soft_errors(&channels, errors, config.seed)?;
    let rearm = matches!(errors, ErrorModel::EveryLinkOnce | ErrorModel::Channels(_));
    let n_routers = fabric.num_routers();
    let mut ready = vec![0u64; n_routers];
    let (mut head, mut tail) = (vec![u64::MAX; n_routers], vec![u64::MAX; n_routers]);
    let mut op_times_ps = Vec::with_capacity(config.ops as usize);
    let mut start = 0u64;
    let bytes = config.packet_bytes;
    // The first good of a value sent from `at` on a channel: on `split` channels of 1/split
    // the bandwidth (one copy each), or `per_channel` copies on the channel itself.
    let send = |soft: &mut SoftErrors, channel: ChannelId, at: (u64, u64)| {
        (0..split)
            .map(|j| {
                let link = channels.timing(channel, split);
                // Cut-through, unless the tail would fall behind a faster link.
                let from = at.0.max(at.1.saturating_sub(link.serialisation_ps));
                first_good_copy(
                    soft,
                    channels.index(channel, j),
                    link,
                    from,
                    per_channel,
                    bytes,
                )
            })
            .min_by_key(|g| g.head_in_ps)
            .expect("at least one channel")
    };
    for _ in 0..config.ops {
        crate::interrupt::check()?;
        if rearm {
            soft.rearm();
        }
        ready.fill(0);
        head.fill(u64::MAX);
        tail.fill(u64::MAX);
        // Up: every endpoint's operand, then each switch once all its children are in.
        for e in 0..fabric.num_endpoints() as u32 {
            let g = send(&mut soft, fabric.injection_channel(e), (start, start));
            let r = fabric.router_of(e) as usize;
            ready[r] = ready[r].max(g.tail_in_ps);
        }
        for edge in &tree.up {
            let at = ready[edge.from as usize];
            let g = first_good_copy(
                &mut soft,
                edge.channel as usize,
                channels.timing(edge.channel, 1),
                at,
                per_channel,
                bytes,
            );
            ready[edge.to as usize] = ready[edge.to as usize].max(g.tail_in_ps);
        }
        // Down: the roots hold the result; each switch forwards its first good copy.
        for &r in &tree.roots {
            head[r as usize] = ready[r as usize];
            tail[r as usize] = ready[r as usize];
        }
        for edge in tree.up.iter().rev() {
            let channel = fabric.channels().reverse[edge.channel as usize];
            let (p, c) = (edge.to as usize, edge.from as usize);
            let g = first_good_copy(
                &mut soft,
                channel as usize,
                channels.timing(channel, 1),
                head[p].max(tail[p].saturating_sub(channels.timing(channel, 1).serialisation_ps)),
                per_channel,
                bytes,
            );
            if g.head_in_ps < head[c] {
                head[c] = g.head_in_ps;
                tail[c] = g.tail_in_ps;
            }
        }
        let mut end = start;
        for e in 0..fabric.num_endpoints() as u32 {
            let r = fabric.router_of(e) as usize;
            let g = send(&mut soft, fabric.ejection_channel(e), (head[r], tail[r]));
            end = end.max(g.tail_in_ps);
        }
        if end > u64::MAX / 2 {
            return Err(invalid(
                "ops",
                format!(
                    "{} operations run past the {CLOCK_LIMIT_S:.0} s the packet clock holds",
                    config.ops
                ),
            ));
        }
        op_times_ps.push(end - start);
        start = end;
    }
    Ok(summarise(op_times_ps, soft.hits()))
}

/// The error processes of every channel of the study.
fn soft_errors(
    channels: &Channels<'_>,
    errors: &ErrorModel,
    seed: u64,
) -> Result<SoftErrors, CollectiveError> {
    let n = channels.len();
    let uniform = |p| SoftErrors::uniform(n, p, seed);
    Ok(match errors {
        ErrorModel::None => SoftErrors::none(n),
        ErrorModel::EveryLinkOnce => uniform(ErrorProcess::Scripted { count: 1 }),
        ErrorModel::Exponential { mean_s } => uniform(ErrorProcess::Exponential {
            mean_ps: mean_s * 1e12,
        }),
        ErrorModel::BitErrorRate(ber) => uniform(ErrorProcess::BitErrorRate(*ber)),
        ErrorModel::Channels(names) => {
            let fabric = channels.fabric;
            let mut soft = SoftErrors::uniform(n, ErrorProcess::None, seed);
            for name in names {
                let c = (0..fabric.channels().len() as ChannelId)
                    .find(|&c| fabric.channel_name(c) == *name)
                    .ok_or_else(|| {
                        invalid(
                            "errors",
                            format!("channel {name:?} does not exist (names are FROM->TO, e.g. S0->S72)"),
                        )
                    })?;
                let split = if fabric.is_router_channel(c) {
                    1
                } else {
                    channels.split
                };
                for j in 0..split {
                    soft.set(channels.index(c, j), ErrorProcess::Scripted { count: 1 });
                }
            }
            soft
        }
    })
}

/// Mean, nearest-rank percentiles and spread of the operation times.
fn summarise(op_times_ps: Vec<u64>, retransmissions: u64) -> AllreduceStudy {
    let op_times_s: Vec<f64> = op_times_ps.iter().map(|&t| t as f64 * 1e-12).collect();
    let n = op_times_s.len() as f64;
    let mean_s = op_times_s.iter().sum::<f64>() / n;
    let var = op_times_s.iter().map(|t| (t - mean_s).powi(2)).sum::<f64>() / n;
    let mut sorted = op_times_s.clone();
    sorted.sort_by(f64::total_cmp);
    let rank = |q: f64| sorted[((q * n).ceil() as usize).clamp(1, sorted.len()) - 1];
    AllreduceStudy {
        mean_s,
        p50_s: rank(0.5),
        p99_s: rank(0.99),
        std_s: var.sqrt(),
        retransmissions,
        op_times_s,
    }
}
