//! UGAL on a dragonfly: minimal or Valiant, chosen at the source router by congestion.

use super::minimal::minimal_path;
use super::valiant::{intermediate_group, valiant_path};
use super::{DragonflyPaths, Walk};
use crate::fabric::{ChannelId, Fabric, RouterId};
use crate::options::OptionError;
use crate::routing::spec::bad_option;
use crate::routing::{Congestion, CongestionUnit, InClass, RouteRequest, Routing, RoutingError};
use crate::units::{format_bytes, parse_bytes};

/// Universal globally-adaptive load-balanced routing, local variant (UGAL-L, Kim et al.
/// 2008), as the failed-links study uses it: at the source router, compare the minimal path
/// ([`super::DragonflyMinimal`]) with **one** Valiant candidate ([`super::DragonflyValiant`],
/// intermediate group weighted by live links) by the congestion of each path's first channel
/// (the source router's output port) times the path's hop count, and take the minimal path
/// when `q_min * H_min <= q_val * H_val + T`. `T` is the threshold of Kim et al.'s UGAL
/// (congestion units times hops, see [`UgalOptions`]; 0 by default, routing name `ugal`;
/// `ugal:threshold=T` sets it): with `T = 0` a message goes Valiant as soon as the minimal
/// port carries any flow and the Valiant one none, which real switches temper with a
/// threshold (SST's merlin goes Valiant only when the minimal port has less than half the
/// Valiant port's free credits).
/// Congestion comes from [`RouteRequest::congestion`] (whichever engine runs the routing).
///
/// With no congestion on the minimal path's first channel (`q_min = 0`) the minimal path
/// wins outright and no Valiant candidate is drawn, so under [`crate::routing::NoCongestion`]
/// UGAL routes exactly as minimal does. When there is no whole minimal path (e.g. every
/// global link between the two groups is down) it goes Valiant; when there is no Valiant
/// path it goes minimal; unroutable only when neither exists. At most 5 hops.
///
/// With [`GlobalLinks::Adaptive`] (routing name `ugal:links=adaptive`) it chooses between
/// groups as SST's merlin routers do at a packet's source router: every live global link to
/// the destination group weighs the congestion of its first hop from the source router
/// (`q`), every live global link to the drawn Valiant group `2 q + T`, and the lightest
/// link wins (ties drawn uniformly among all of them); the Valiant path goes on from where
/// its global link lands over the lightest link to the destination group, a local first
/// hop counting double (merlin's choice in the intermediate group, made here at the
/// source). Within a group it is the rule above (`q_min <= 2 q_val + T`), merlin's too.
///
/// With [`UgalRule::Credits`] (routing name `ugal:credits=B`) it is merlin's other adaptive
/// dragonfly routing, `adaptive-local` (the one SST's Ember parameter files for the
/// failed-links study's machines select): each port is weighed by the free space of an
/// output buffer of `B` (congestion units: bytes on the packet engine), `free = max(B - q,
/// 0)`, two of the live parallel global links are drawn per group pair and the one with
/// more free space kept, and the Valiant candidate wins only when it has more than `F`
/// times the direct one's free space (`F = 2`, merlin's `adaptive_threshold`). So a direct
/// port is kept until it is more than half full, and two full ports look alike.
///
/// With `per_vc` (routing option `queues=vc`) every port is weighed by its congestion in
/// the virtual-channel class the packet would take there
/// ([`Congestion::congestion_in_class`]): class 0 at the source router, class 1 where a
/// Valiant path lands, as merlin reads the output queue of the packet's virtual channel.
#[derive(Debug)]
pub struct DragonflyUgal {
    paths: DragonflyPaths,
    options: UgalOptions,
}

/// How UGAL weighs the minimal path against the Valiant one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UgalRule {
    /// Kim et al.'s comparison of queues (`ugal`, `ugal:threshold=T,links=...`): minimal
    /// while `q_min * H_min <= q_val * H_val + threshold` (or, with adaptive links, the
    /// lightest of `q` and `2 q + threshold` over every parallel link).
    Queues {
        /// `T`: how much more congested (congestion units times hops) the minimal path may
        /// be than the Valiant one and still be taken; at least 0.
        threshold: f64,
        /// How the parallel global links between two groups are picked.
        links: GlobalLinks,
    },
    /// merlin's `adaptive-local` (`ugal:credits=B,factor=F`): free output-buffer space,
    /// `max(buffer - q, 0)`, the better of two parallel links per group pair, Valiant only
    /// when its free space exceeds `factor` times the direct one's.
    Credits {
        /// `B`: the output buffer the free space is counted in (congestion units: bytes on
        /// the packet engine); above 0.
        buffer: f64,
        /// `F`: how many times the direct port's free space the Valiant port must have to
        /// be taken; above 0 (merlin's default 2).
        factor: f64,
    },
}

impl Default for UgalRule {
    /// Kim et al.'s rule with no threshold and random parallel links (`ugal`).
    fn default() -> Self {
        Self::Queues {
            threshold: 0.0,
            links: GlobalLinks::Random,
        }
    }
}

impl UgalRule {
    /// Whether the minimal path wins whatever the Valiant one's congestion (then no Valiant
    /// candidate need be drawn): `q_min H_min <= T`, or `F free(q_min) >= B` (no Valiant port
    /// has more than `B` free).
    fn minimal_regardless(&self, q_min: f64, h_min: usize) -> bool {
        match *self {
            Self::Queues { threshold, .. } => q_min * h_min as f64 <= threshold,
            Self::Credits { buffer, factor } => factor * free(buffer, q_min) >= buffer,
        }
    }

    /// Whether the minimal path (congestion `q_min` on its first channel, `h_min` hops) wins
    /// over the Valiant one (`q_val`, `h_val`).
    fn prefers_minimal(&self, q_min: f64, h_min: usize, q_val: f64, h_val: usize) -> bool {
        match *self {
            Self::Queues { threshold, .. } => {
                q_min * h_min as f64 <= q_val * h_val as f64 + threshold
            }
            Self::Credits { buffer, factor } => free(buffer, q_val) <= factor * free(buffer, q_min),
        }
    }
}

/// Free space of an output buffer of `buffer` holding `queued` (same units), at least 0.
#[inline]
fn free(buffer: f64, queued: f64) -> f64 {
    (buffer - queued).max(0.0)
}

/// How UGAL picks among the parallel global links between two groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GlobalLinks {
    /// Uniformly among the live ones, as minimal and Valiant routing do (`links=random`).
    #[default]
    Random,
    /// The one whose first hop from the source router is least congested, compared across
    /// minimal and Valiant candidates at once, as SST's merlin does (`links=adaptive`).
    Adaptive,
}

impl GlobalLinks {
    /// Reads `random` or `adaptive`.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::Random, Self::Adaptive]
            .into_iter()
            .find(|l| l.name() == text)
    }

    /// The name [`GlobalLinks::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Self::Random => "random",
            Self::Adaptive => "adaptive",
        }
    }
}

/// UGAL's options, as the routing spec `ugal:OPTIONS` sets them (comma-separated
/// `key=value`, each key at most once): Kim et al.'s queues with `threshold=T` (at least 0;
/// default 0) and `links=random|adaptive` (default random), or merlin's `adaptive-local`
/// with `credits=B` (the output buffer, above 0) and `factor=F` (above 0; default 2), which
/// take neither of the others; with any of them `queues=vc|port` (default port): whether
/// each port is read in the packet's virtual-channel class. `T` and `B` are amounts of
/// congestion: a bare finite number is read in the unit of the engine that runs the routing
/// (routes, flows or bytes, [`CongestionUnit`]); a size (`800B`, `32kB`, whole bytes below
/// 2^53) is bytes queued and runs only on the packet engine.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct UgalOptions {
    /// How the minimal path is weighed against the Valiant one.
    pub rule: UgalRule,
    /// Whether each port is read in the packet's virtual-channel class (`queues=vc`).
    pub per_vc: bool,
    /// The unit `threshold` (above 0) or `credits` was written in; `None`: a bare number,
    /// read in the engine's unit (and always for a threshold of 0).
    pub unit: Option<CongestionUnit>,
}

/// The largest amount of bytes an option takes: every whole number of bytes up to it is a
/// double exactly.
const MAX_BYTES: u64 = 1 << 53;

/// merlin's `adaptive_threshold`: the default `factor=F` of [`UgalRule::Credits`].
const DEFAULT_FACTOR: f64 = 2.0;

impl UgalOptions {
    /// Reads the options after `ugal:` of routing spec `spec`; an error names the option.
    pub fn parse(spec: &str, options: &str) -> Result<Self, OptionError> {
        let bad = |field: &str, reason: String| bad_option(spec, field, reason);
        let number = |key: &str, value: &str, zero_ok: bool| match value.parse::<f64>() {
            Ok(v) if v.is_finite() && (v > 0.0 || (zero_ok && v == 0.0)) => Ok(v),
            _ => Err(bad(
                key,
                format!(
                    "{key} must be a finite number {} 0, got {value:?}",
                    if zero_ok { ">=" } else { ">" }
                ),
            )),
        };
        // An amount of congestion: a bare number, or a size in bytes.
        let amount = |key: &str, value: &str, zero_ok: bool| {
            if value.parse::<f64>().is_ok() {
                return number(key, value, zero_ok).map(|v| (v, None));
            }
            match parse_bytes(value) {
                Ok(b) if b <= MAX_BYTES && (b > 0 || zero_ok) => {
                    Ok((b as f64, Some(CongestionUnit::Bytes)))
                }
                _ => Err(bad(
                    key,
                    format!(
                        "{key} must be a finite number {} 0 (in the engine's unit) or a \
                         size in bytes such as 800B, got {value:?}",
                        if zero_ok { ">=" } else { ">" }
                    ),
                )),
            }
        };
        let (mut threshold, mut links) = (None, None);
        let (mut credits, mut factor) = (None, None);
        let mut per_vc = false;
        let mut seen: Vec<&str> = Vec::new();
        for option in options.split(',') {
            if let Some((key, _)) = option.split_once('=') {
                if seen.contains(&key) {
                    return Err(bad(key, format!("{key} given twice")));
                }
                seen.push(key);
            }
            match option.split_once('=') {
                Some(("queues", value)) => {
                    per_vc = match value {
                        "vc" => true,
                        "port" => false,
                        _ => {
                            return Err(bad(
                                "queues",
                                format!("queues must be vc or port, got {value:?}"),
                            ))
                        }
                    }
                }
                Some(("threshold", value)) => threshold = Some(amount("threshold", value, true)?),
                Some(("credits", value)) => credits = Some(amount("credits", value, false)?),
                Some(("factor", value)) => factor = Some(number("factor", value, false)?),
                Some(("links", value)) => {
                    links = Some(GlobalLinks::parse(value).ok_or_else(|| {
                        bad(
                            "links",
                            format!("links must be random or adaptive, got {value:?}"),
                        )
                    })?)
                }
                _ => {
                    return Err(bad(
                        option.split_once('=').map_or(option, |(key, _)| key),
                        format!(
                            "expected threshold=T, links=random|adaptive, credits=B, factor=F \
                             or queues=vc|port, got {option:?}"
                        ),
                    ))
                }
            }
        }
        let (rule, unit) = match credits {
            Some((buffer, unit)) if threshold.is_none() && links.is_none() => Ok((
                UgalRule::Credits {
                    buffer,
                    factor: factor.unwrap_or(DEFAULT_FACTOR),
                },
                unit,
            )),
            Some(_) => Err(bad(
                "credits",
                "credits=B (merlin's adaptive-local) takes factor=F, not threshold= or links="
                    .to_string(),
            )),
            None if factor.is_some() => Err(bad("factor", "factor=F needs credits=B".to_string())),
            None => {
                let (threshold, unit) = threshold.unwrap_or((0.0, None));
                Ok((
                    UgalRule::Queues {
                        threshold,
                        links: links.unwrap_or_default(),
                    },
                    // No congestion is no congestion in any unit.
                    unit.filter(|_| threshold > 0.0),
                ))
            }
        }?;
        Ok(Self { rule, per_vc, unit })
    }

    /// `amount` written as this option's unit reads it back: bytes as a size (`800B`,
    /// `32KiB`), a bare number as itself.
    fn write_amount(&self, amount: f64) -> String {
        match self.unit {
            Some(CongestionUnit::Bytes) => format_bytes(amount as u64),
            _ => amount.to_string(),
        }
    }

    /// The option written with a unit of congestion, as printed (`threshold=800B`), and the
    /// unit; `None` when it is a bare number.
    pub fn congestion_unit(&self) -> Option<(String, CongestionUnit)> {
        let unit = self.unit?;
        let (key, amount) = match self.rule {
            UgalRule::Queues { threshold, .. } => ("threshold", threshold),
            UgalRule::Credits { buffer, .. } => ("credits", buffer),
        };
        Some((format!("{key}={}", self.write_amount(amount)), unit))
    }

    /// The options that differ from the defaults, in the order `threshold`, `links`,
    /// `credits`, `factor`, `queues`, as [`UgalOptions::parse`] reads them.
    pub fn options(&self) -> Vec<(&'static str, String)> {
        let mut options = Vec::new();
        match self.rule {
            UgalRule::Queues { threshold, links } => {
                if threshold != 0.0 {
                    options.push(("threshold", self.write_amount(threshold)));
                }
                if links != GlobalLinks::default() {
                    options.push(("links", links.name().to_string()));
                }
            }
            UgalRule::Credits { buffer, factor } => {
                options.push(("credits", self.write_amount(buffer)));
                if factor != DEFAULT_FACTOR {
                    options.push(("factor", factor.to_string()));
                }
            }
        }
        if self.per_vc {
            options.push(("queues", "vc".to_string()));
        }
        options
    }
}

impl DragonflyUgal {
    /// The routing for a dragonfly fabric with `options` (as `ugal:OPTIONS` reads them).
    pub fn new(fabric: &Fabric, options: UgalOptions) -> Result<Self, RoutingError> {
        debug_assert!(
            match options.rule {
                UgalRule::Queues { threshold, .. } => threshold >= 0.0,
                UgalRule::Credits { buffer, factor } => buffer > 0.0 && factor > 0.0,
            },
            "UGAL options {options:?} out of range"
        );
        Ok(Self {
            paths: DragonflyPaths::new(fabric, "dragonfly UGAL")?,
            options,
        })
    }
}

/// Appends the UGAL-L choice, by `rule`, between the minimal path and one Valiant path.
fn ugal_path(
    w: &mut Walk<'_>,
    congestion: &dyn Congestion,
    rule: &UgalRule,
    path: &mut Vec<ChannelId>,
) -> Result<(), String> {
    if let Err(no_minimal) = minimal_path(w, path) {
        return valiant_path(w, path).map_err(|no_valiant| {
            format!("no minimal path ({no_minimal}) and no Valiant path ({no_valiant})")
        });
    }
    let h_min = path.len();
    let q_min = congestion.congestion(path[0]);
    if rule.minimal_regardless(q_min, h_min) || valiant_path(w, path).is_err() {
        return Ok(());
    }
    let h_val = path.len() - h_min;
    let q_val = congestion.congestion(path[h_min]);
    if rule.prefers_minimal(q_min, h_min, q_val, h_val) {
        path.truncate(h_min);
    } else {
        path.drain(..h_min);
    }
    Ok(())
}

/// Appends the choice of UGAL with adaptive global links (see [`DragonflyUgal`]) between
/// groups.
fn ugal_adaptive_path(
    w: &mut Walk<'_>,
    (congestion, landed_congestion): (&dyn Congestion, &dyn Congestion),
    threshold: f64,
    path: &mut Vec<ChannelId>,
) -> Result<(), String> {
    let (src, dst) = (w.src, w.dst);
    let (gs, gd) = (w.group(src), w.group(dst));
    let direct = w.lightest_link(src, gd, Some(dst), congestion, |q, _| q);
    let via = intermediate_group(w, gs, gd);
    let valiant =
        via.and_then(|i| w.lightest_link(src, i, None, congestion, |q, _| 2.0 * q + threshold));
    let go_valiant = match (direct, valiant) {
        (None, None) => return valiant_path(w, path),
        (Some(_), None) => false,
        (None, Some(_)) => true,
        (Some(d), Some(v)) if d.weight == v.weight => w.entropy.below(d.ties + v.ties) >= d.ties,
        (Some(d), Some(v)) => v.weight < d.weight,
    };
    if !go_valiant {
        let d = direct.expect("a direct link when not going Valiant");
        w.leg_through(src, d.channel, Some(dst), path);
        return Ok(());
    }
    let v = valiant.expect("a Valiant link when going Valiant");
    let onward = |q: f64, local: bool| if local { 2.0 * q } else { q };
    valiant_through(w, v.channel, path, |w, landed| {
        w.lightest_link(landed, gd, Some(dst), landed_congestion, onward)
            .map(|l| l.channel)
    })
}

/// Appends the choice of merlin's `adaptive-local` between groups (see
/// [`UgalRule::Credits`], whose `rule` decides; hop counts do not enter it): the roomier of
/// two direct links against the roomier of two links to a drawn intermediate group, and on
/// from there over the roomier of two links to the destination group (merlin decides that
/// one again where the packet lands).
fn credits_path(
    w: &mut Walk<'_>,
    (congestion, landed_congestion): (&dyn Congestion, &dyn Congestion),
    rule: &UgalRule,
    buffer: f64,
    path: &mut Vec<ChannelId>,
) -> Result<(), String> {
    let (src, dst) = (w.src, w.dst);
    let (gs, gd) = (w.group(src), w.group(dst));
    let room = |q: f64| free(buffer, q);
    let direct = w.better_of_two(src, gd, Some(dst), congestion, room);
    let valiant = match direct {
        Some((_, q_d)) if rule.minimal_regardless(q_d, 1) => None,
        _ => intermediate_group(w, gs, gd)
            .and_then(|i| w.better_of_two(src, i, None, congestion, room)),
    };
    let v = match (direct, valiant) {
        (None, None) => return valiant_path(w, path),
        (Some((_, q_d)), Some((v, q_v))) if !rule.prefers_minimal(q_d, 1, q_v, 1) => v,
        (None, Some((v, _))) => v,
        (Some((d, _)), _) => {
            w.leg_through(src, d, Some(dst), path);
            return Ok(());
        }
    };
    valiant_through(w, v, path, |w, landed| {
        w.better_of_two(landed, gd, Some(dst), landed_congestion, room)
            .map(|(c, _)| c)
    })
}

/// Appends the Valiant leg from the source through global channel `v`, then the leg from
/// where it lands to the destination through the global channel `onward` picks there; when
/// `onward` finds none (failed local links in the intermediate group), any whole Valiant
/// path instead.
fn valiant_through(
    w: &mut Walk<'_>,
    v: ChannelId,
    path: &mut Vec<ChannelId>,
    onward: impl FnOnce(&mut Walk<'_>, RouterId) -> Option<ChannelId>,
) -> Result<(), String> {
    let (src, dst) = (w.src, w.dst);
    let mark = path.len();
    let landed = w.leg_through(src, v, None, path);
    match onward(w, landed) {
        Some(next) => {
            w.leg_through(landed, next, Some(dst), path);
            Ok(())
        }
        None => {
            path.truncate(mark);
            valiant_path(w, path)
        }
    }
}

impl Routing for DragonflyUgal {
    fn name(&self) -> &'static str {
        "ugal"
    }

    fn reads_classes(&self) -> bool {
        self.options.per_vc
    }

    fn congestion_unit(&self) -> Option<(String, CongestionUnit)> {
        self.options.congestion_unit()
    }

    fn route_into(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        self.paths.route(req, src, dst, path, |w, path| {
            // What the source router reads, and what it reads where a Valiant path lands.
            let [source, landed] = InClass::first_two(req.congestion);
            let views: (&dyn Congestion, &dyn Congestion) = if self.options.per_vc {
                (&source, &landed)
            } else {
                (req.congestion, req.congestion)
            };
            // Within a group every rule compares one minimal and one Valiant path.
            let within_group = w.group(src) == w.group(dst);
            let rule = &self.options.rule;
            match *rule {
                UgalRule::Queues {
                    links: GlobalLinks::Random,
                    ..
                } => ugal_path(w, views.0, rule, path),
                _ if within_group => ugal_path(w, views.0, rule, path),
                UgalRule::Queues {
                    threshold,
                    links: GlobalLinks::Adaptive,
                } => ugal_adaptive_path(w, views, threshold, path),
                UgalRule::Credits { buffer, .. } => credits_path(w, views, rule, buffer, path),
            }
        })
    }
}
