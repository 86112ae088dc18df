//! Localisation: from a TopoBW report, the parts most likely at fault.
//!
//! Each transfer is compared with the others of its kind (same dimension, cable type and
//! exclusive/shared flag) by a robust z-score: `(rate - median) / sigma`, with `sigma` the
//! scaled median absolute deviation (1.4826 MAD), floored at [`RESOLUTION`] of the median so
//! that a perfectly even report does not turn rounding into alarms. A transfer is slow when
//! its z-score is below `-`[`Z_THRESHOLD`], or when it moved nothing (0 MB/s). Then, most specific last:
//! - a **Gemini** is bad when at least half the transfers of each of its nodes are slow, in
//!   at least two dimensions (the paper's two modules on Titan);
//! - a **node** is bad when at least half its transfers are slow, in at least two
//!   dimensions, and its partner on the same Gemini is not;
//! - a **link** (one direction between two Geminis) is bad when at least
//!   [`LINK_SLOW_TRANSFERS`] of the transfers that crossed it were slow (all of them when
//!   fewer crossed it, or one that moved nothing) and neither end is a bad Gemini or node. A degraded link slows both
//!   partners' shared transfers, whereas noise slows transfers one at a time.
//!
//! Suspects are ordered by how much slower their transfers ran (one minus the median of rate
//! over the kind's median), most likely first.

use std::collections::{BTreeMap, BTreeSet};

use super::topobw::{dimension_letter, HostReport, Report, ReportLine};
use super::DiagError;
use crate::fabric::gemini::{GeminiName, NodeName};
use crate::fabric::Direction;
use crate::fabric::Fabric;

/// Robust z-score below which a transfer is slow (minus this value).
pub const Z_THRESHOLD: f64 = 3.5;

/// Smallest spread assumed, as a share of the median rate (the resolution of the test).
pub const RESOLUTION: f64 = 0.01;

/// Share of a node's transfers that must be slow for the node (or its Gemini) to be suspect.
pub const SLOW_SHARE: f64 = 0.5;

/// The `direction` of a suspect that is a host's link to its switch (see [`locate_hosts`]).
pub const HOST_LINK: &str = "host";

/// Slow transfers needed to suspect a link (fewer when fewer crossed it).
pub const LINK_SLOW_TRANSFERS: usize = 2;

/// What kind of part a suspect is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PartKind {
    /// One direction of the link between two Geminis.
    Link,
    /// A Gemini: slow in every dimension on both its nodes.
    Gemini,
    /// A node: slow in every dimension while its partner is not.
    Node,
}

impl PartKind {
    /// `link`, `gemini` or `node`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Link => "link",
            Self::Gemini => "gemini",
            Self::Node => "node",
        }
    }
}

/// A part suspected of running slow.
#[derive(Debug, Clone, PartialEq)]
pub struct Suspect {
    /// What kind of part.
    pub kind: PartKind,
    /// Its name: `c0-0c0s1g0->c0-0c0s2g0` for a link (sending Gemini first), a Gemini's or
    /// a node's Cray name; for a host's link to its switch, the cable's name (`HOST->SWITCH`).
    pub name: String,
    /// For a link, its dimension and direction (`Z+`), or [`HOST_LINK`] for a host's link;
    /// empty otherwise.
    pub direction: String,
    /// One minus the median, over the part's slow transfers, of rate over the median rate
    /// of their kind (0.5: half speed); for a host's link, one minus the host's best rate
    /// over the median of its switch's hosts.
    pub slowdown: f64,
    /// Slow transfers that point at the part (for a host's link, all of the host's).
    pub slow_transfers: usize,
    /// Transfers of the part in the report.
    pub transfers: usize,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// Rate of each transfer over the median of its kind, and whether it is slow: transfer `i`
/// is of kind `kinds[i]` and ran at `rates[i]` bytes per second.
fn judge<K: Ord>(kinds: &[K], rates: &[f64]) -> Vec<(f64, bool)> {
    let mut by_kind: BTreeMap<&K, Vec<usize>> = BTreeMap::new();
    for (i, k) in kinds.iter().enumerate() {
        by_kind.entry(k).or_default().push(i);
    }
    let mut out = vec![(1.0, false); rates.len()];
    for members in by_kind.values() {
        let mut of_kind: Vec<f64> = members.iter().map(|&i| rates[i]).collect();
        let m = median(&mut of_kind);
        let mut dev: Vec<f64> = of_kind.iter().map(|r| (r - m).abs()).collect();
        let sigma = (1.4826 * median(&mut dev)).max(RESOLUTION * m);
        for &i in members {
            let r = rates[i];
            let z = if sigma > 0.0 { (r - m) / sigma } else { 0.0 };
            // A transfer that moved nothing is slow whatever its kind's spread.
            let ratio = if m > 0.0 {
                r / m
            } else if r > 0.0 {
                1.0
            } else {
                0.0
            };
            out[i] = (ratio, z < -Z_THRESHOLD || r <= 0.0);
        }
    }
    out
}

#[derive(Default)]
struct Tally {
    lines: Vec<usize>,
    slow: Vec<usize>,
    slow_dims: BTreeSet<usize>,
}

impl Tally {
    fn add(&mut self, i: usize, line: &ReportLine, slow: bool) {
        self.lines.push(i);
        if slow {
            self.slow.push(i);
            self.slow_dims.insert(line.dim);
        }
    }

    fn is_slow_everywhere(&self) -> bool {
        !self.lines.is_empty()
            && self.slow.len() as f64 >= SLOW_SHARE * self.lines.len() as f64
            && self.slow_dims.len() >= 2
    }
}

/// The suspects of a report, most likely first.
pub fn locate(report: &Report) -> Vec<Suspect> {
    let kinds: Vec<_> = report
        .lines
        .iter()
        .map(|l| (l.dim, l.cable, l.shared))
        .collect();
    let rates: Vec<f64> = report.lines.iter().map(|l| l.bandwidth_bytes_s).collect();
    let judged = judge(&kinds, &rates);
    let mut nodes: BTreeMap<NodeName, Tally> = BTreeMap::new();
    for (i, l) in report.lines.iter().enumerate() {
        for n in [l.src, l.dst] {
            nodes.entry(n).or_default().add(i, l, judged[i].1);
        }
    }
    let slowdown = |lines: &[usize]| {
        let mut r: Vec<f64> = lines.iter().map(|&i| judged[i].0).collect();
        1.0 - median(&mut r)
    };
    let slow_nodes: BTreeSet<NodeName> = nodes
        .iter()
        .filter(|(_, t)| t.is_slow_everywhere())
        .map(|(n, _)| *n)
        .collect();
    let mut suspects = Vec::new();
    let mut bad_geminis: BTreeSet<GeminiName> = BTreeSet::new();
    let mut explained: BTreeSet<NodeName> = BTreeSet::new();
    for n in &slow_nodes {
        let partner = n.partner();
        let partner_ok = nodes.contains_key(&partner) && !slow_nodes.contains(&partner);
        let (kind, name) = if partner_ok {
            (PartKind::Node, n.to_string())
        } else if bad_geminis.insert(n.gemini()) {
            (PartKind::Gemini, n.gemini().to_string())
        } else {
            continue;
        };
        let mut lines: Vec<usize> = nodes[n].lines.clone();
        let mut slow: Vec<usize> = nodes[n].slow.clone();
        if kind == PartKind::Gemini {
            explained.insert(partner);
            if let Some(p) = nodes.get(&partner) {
                lines.extend(&p.lines);
                slow.extend(&p.slow);
            }
        }
        explained.insert(*n);
        suspects.push(Suspect {
            kind,
            name,
            direction: String::new(),
            slowdown: slowdown(&slow),
            slow_transfers: slow.len(),
            transfers: lines.len(),
        });
    }
    let mut links: BTreeMap<(GeminiName, GeminiName, usize, bool), Tally> = BTreeMap::new();
    for (i, l) in report.lines.iter().enumerate() {
        let key = (
            l.src.gemini(),
            l.dst.gemini(),
            l.dim,
            l.dir == Direction::Up,
        );
        links.entry(key).or_default().add(i, l, judged[i].1);
    }
    for ((a, b, dim, up), t) in &links {
        let involved = |i: usize| {
            let l = &report.lines[i];
            explained.contains(&l.src) || explained.contains(&l.dst)
        };
        let slow: Vec<usize> = t.slow.iter().copied().filter(|&i| !involved(i)).collect();
        // One transfer that moved nothing is enough: noise does not stop a transfer.
        let stalled = slow
            .iter()
            .any(|&i| report.lines[i].bandwidth_bytes_s <= 0.0);
        if slow.is_empty() || (slow.len() < LINK_SLOW_TRANSFERS.min(t.lines.len()) && !stalled) {
            continue;
        }
        suspects.push(Suspect {
            kind: PartKind::Link,
            name: format!("{a}->{b}"),
            direction: format!("{}{}", dimension_letter(*dim), if *up { '+' } else { '-' }),
            slowdown: slowdown(&slow),
            slow_transfers: slow.len(),
            transfers: t.lines.len(),
        });
    }
    most_likely_first(&mut suspects);
    suspects
}

fn most_likely_first(suspects: &mut [Suspect]) {
    suspects.sort_by(|a, b| b.slowdown.total_cmp(&a.slowdown).then(a.name.cmp(&b.name)));
}

/// The suspects of a host report (TopoBW's pairing of the hosts of each switch of
/// `fabric`), most likely first. A transfer runs at the rate of the slower of its two hosts'
/// links, so a host's bandwidth is the best rate of its transfers: what its own link gave
/// when it met a healthy neighbour. Hosts are judged as transfers are in [`locate`], each
/// switch's hosts one kind; a slow host's link to its switch is suspect, named as
/// [`slow_links`](super::slow_links) names cables, with direction [`HOST_LINK`]. Fails when
/// the report names a host `fabric` lacks.
pub fn locate_hosts(report: &HostReport, fabric: &Fabric) -> Result<Vec<Suspect>, DiagError> {
    // (best rate, transfers) of each host that took part.
    let mut hosts: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for l in &report.lines {
        for h in [&l.src, &l.dst] {
            let e = hosts.entry(h).or_insert((0.0, 0));
            e.0 = e.0.max(l.bandwidth_bytes_s);
            e.1 += 1;
        }
    }
    let mut switches = Vec::with_capacity(hosts.len());
    for &h in hosts.keys() {
        switches.push(fabric.router_of(fabric.endpoint_by_name(h)?));
    }
    let rates: Vec<f64> = hosts.values().map(|v| v.0).collect();
    let judged = judge(&switches, &rates);
    let ch = fabric.channels();
    let mut suspects = Vec::new();
    for (i, (&h, &(_, transfers))) in hosts.iter().enumerate() {
        if !judged[i].1 {
            continue;
        }
        let c = fabric.injection_channel(fabric.endpoint_by_name(h)?);
        suspects.push(Suspect {
            kind: PartKind::Link,
            name: fabric.channel_name(c.min(ch.reverse[c as usize])),
            direction: HOST_LINK.to_string(),
            slowdown: 1.0 - judged[i].0,
            slow_transfers: transfers,
            transfers,
        });
    }
    most_likely_first(&mut suspects);
    Ok(suspects)
}
