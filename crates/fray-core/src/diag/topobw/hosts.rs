//! The nearest-neighbour idea of TopoBW on any fabric with hosts on switches (an imported
//! InfiniBand fabric): spine switches have no hosts, so hosts are paired instead of routers.
//!
//! A host's nearest neighbours are the other hosts on its switch: a transfer between two of
//! them crosses only their two host links, so it measures those links and nothing else
//! (between switches, transfers share uplinks and spine cables, whose contention hides the
//! host links). The hosts of each switch are paired
//! in rounds by the circle method (a round robin: each host meets every other host of its
//! switch once; one sits out a round when their number is odd); a host alone on its switch
//! has no neighbour and is left out. Each round runs as two phases, the first host of each
//! pair sending, then the second: every host is in exactly one transfer per direction per
//! round and never sends and receives at once, and no two transfers of a phase share a
//! channel. A report line gives a transfer's time and rate; summary lines give each host's
//! rates, then all transfers':
//!
//! ```text
//! H-003048c749bb0000 -> H-003048c707b60000 (round 1): 0.0336 seconds = 1999.99 MB/sec
//! Bandwidth of H-003048c7488b0000 min: 1999.99 max: 1999.99 avg: 1999.99
//! Bandwidth hosts min: 1999.99 on H-003048c749bb0000 max: 3999.95 on H-78e7d1030022a46c avg: 3467.76
//! ```

use std::collections::BTreeMap;
use std::fmt::Write;

use super::model::{run_phases, transfer_bytes};
use super::report::parse_report_lines;
use crate::diag::DiagError;
use crate::fabric::{EndpointId, Fabric};
use crate::faults::Faults;
use crate::routing;

/// The rounds of a host pairing: each round's pairs `(first, second)` of endpoints; the first
/// sends in the round's first phase, the second in its second phase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPlan {
    /// The pairs of each round, in the order the rounds run.
    pub rounds: Vec<Vec<(EndpointId, EndpointId)>>,
}

impl HostPlan {
    /// The round robin of the hosts of each switch of `fabric`, switches side by side: round
    /// `r` holds round `r` of every switch that has one (a switch of `n` hosts has `n - 1`
    /// rounds, `n` when `n` is odd). Fails when no switch has two hosts.
    pub fn new(fabric: &Fabric) -> Result<Self, DiagError> {
        let mut on_switch: Vec<Vec<Option<EndpointId>>> = vec![Vec::new(); fabric.num_routers()];
        for e in 0..fabric.num_endpoints() as EndpointId {
            on_switch[fabric.router_of(e) as usize].push(Some(e));
        }
        let mut rounds: Vec<Vec<(EndpointId, EndpointId)>> = Vec::new();
        for mut hosts in on_switch.into_iter().filter(|h| h.len() >= 2) {
            if hosts.len() % 2 == 1 {
                hosts.push(None);
            }
            let m = hosts.len();
            for r in 0..m - 1 {
                // Position 0 stays; the others turn by one place each round.
                let at = |i: usize| {
                    if i == 0 {
                        hosts[0]
                    } else {
                        hosts[1 + (i - 1 + r) % (m - 1)]
                    }
                };
                if rounds.len() <= r {
                    rounds.push(Vec::new());
                }
                rounds[r].extend((0..m / 2).filter_map(|i| Some((at(i)?, at(m - 1 - i)?))));
            }
        }
        if rounds.is_empty() {
            return Err(DiagError::Invalid {
                what: "fabric".into(),
                reason: "no switch has two hosts to pair".into(),
            });
        }
        Ok(Self { rounds })
    }

    /// The phases in the order they run: per round, the first hosts sending, then the
    /// second ones, as `(sender, receiver)`.
    pub fn phases(&self) -> impl Iterator<Item = Vec<(EndpointId, EndpointId)>> + '_ {
        self.rounds
            .iter()
            .flat_map(|pairs| [pairs.clone(), pairs.iter().map(|&(a, b)| (b, a)).collect()])
    }
}

/// One transfer line of a host report.
#[derive(Debug, Clone, PartialEq)]
pub struct HostLine {
    /// Sending host's name.
    pub src: String,
    /// Receiving host's name.
    pub dst: String,
    /// The 1-based round.
    pub round: usize,
    /// Duration of the transfer, in seconds.
    pub seconds: f64,
    /// Rate, in bytes per second.
    pub bandwidth_bytes_s: f64,
}

/// The transfer lines of a host TopoBW run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HostReport {
    /// Transfer lines in the order they ran.
    pub lines: Vec<HostLine>,
}

/// The slowest and fastest of `lines` and their mean rate in MB/sec; `None` when empty.
fn extremes<'a>(lines: &[&'a HostLine]) -> Option<(&'a HostLine, &'a HostLine, f64)> {
    let cmp = |a: &&&HostLine, b: &&&HostLine| a.bandwidth_bytes_s.total_cmp(&b.bandwidth_bytes_s);
    let lo = *lines.iter().min_by(cmp)?;
    let hi = *lines.iter().max_by(cmp)?;
    let avg = lines.iter().map(|l| l.bandwidth_bytes_s / 1e6).sum::<f64>() / lines.len() as f64;
    Some((lo, hi, avg))
}

/// Whether `text` looks like a host report (its first transfer line has `SRC -> DST`).
pub fn is_host_report(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("Bandwidth "))
        .is_some_and(|l| l.contains(" -> "))
}

impl HostReport {
    /// The report as text: a line per transfer; then, per host (by name), the lowest,
    /// highest and mean rate of the transfers it sent or received; then the lowest, highest
    /// and mean rate of all transfers with the host that sent each extreme.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let mb = |l: &HostLine| l.bandwidth_bytes_s / 1e6;
        for l in &self.lines {
            let _ = writeln!(
                out,
                "{} -> {} (round {}): {:.4} seconds = {:.2} MB/sec",
                l.src,
                l.dst,
                l.round,
                l.seconds,
                mb(l)
            );
        }
        let mut per_host: BTreeMap<&str, Vec<&HostLine>> = BTreeMap::new();
        for l in &self.lines {
            per_host.entry(&l.src).or_default().push(l);
            per_host.entry(&l.dst).or_default().push(l);
        }
        for (host, lines) in &per_host {
            if let Some((lo, hi, avg)) = extremes(lines) {
                let _ = writeln!(
                    out,
                    "Bandwidth of {host} min: {:.2} max: {:.2} avg: {avg:.2}",
                    mb(lo),
                    mb(hi)
                );
            }
        }
        let all: Vec<&HostLine> = self.lines.iter().collect();
        if let Some((lo, hi, avg)) = extremes(&all) {
            let _ = writeln!(
                out,
                "Bandwidth hosts min: {:.2} on {} max: {:.2} on {} avg: {avg:.2}",
                mb(lo),
                lo.src,
                mb(hi),
                hi.src
            );
        }
        out
    }

    /// Reads a host report; summary lines, blank lines and `#` comments are skipped. Errors
    /// name `file` and the line.
    pub fn parse(file: &str, text: &str) -> Result<Self, DiagError> {
        let lines = parse_report_lines(
            file,
            text,
            |_, line| parse_host_line(line),
            |l: &HostLine| (l.src.clone(), l.dst.clone(), l.round),
        )?;
        Ok(Self { lines })
    }
}

fn parse_host_line(text: &str) -> Result<HostLine, String> {
    let expected = || "expected SRC -> DST (round N): T seconds = R MB/sec".to_string();
    let (src, rest) = text.split_once(" -> ").ok_or_else(expected)?;
    let (dst, rest) = rest.split_once(" (round ").ok_or_else(expected)?;
    let (round, rest) = rest.split_once("): ").ok_or_else(expected)?;
    let w: Vec<&str> = rest.split_whitespace().collect();
    if w.len() != 5 || w[1] != "seconds" || w[2] != "=" || w[4] != "MB/sec" {
        return Err(expected());
    }
    let number = |s: &str, what: &str| -> Result<f64, String> {
        s.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("{what} {s:?} is not a non-negative number"))
    };
    Ok(HostLine {
        src: src.trim().to_string(),
        dst: dst.trim().to_string(),
        round: round
            .parse()
            .map_err(|_| format!("round {round:?} is not a whole number"))?,
        seconds: number(w[0], "time")?,
        bandwidth_bytes_s: number(w[3], "rate")? * 1e6,
    })
}

/// Runs the [`HostPlan`] of `fabric` under `faults` with the flow engine, as the modelled
/// Gemini test does ([`simulate_topobw`](super::simulate_topobw)): each phase one simulation
/// routed by `routing_name`, each transfer a job moving `count` messages of `message_bytes`;
/// returns the report, one line per transfer in plan order. Fails when a size is not
/// positive, no switch has two hosts, or a transfer is unroutable.
pub fn simulate_host_topobw(
    fabric: &Fabric,
    faults: &Faults,
    routing_name: &str,
    message_bytes: f64,
    count: u32,
) -> Result<HostReport, DiagError> {
    let bytes = transfer_bytes(message_bytes, count)?;
    let plan = HostPlan::new(fabric)?;
    let routing = routing::build(routing_name, fabric, faults)?;
    let seconds = run_phases(fabric, faults, &*routing, plan.phases(), bytes)?;
    let transfers = plan
        .phases()
        .enumerate()
        .flat_map(|(p, phase)| phase.into_iter().map(move |t| (p / 2 + 1, t)));
    let lines = transfers
        .zip(seconds)
        .map(|((round, (src, dst)), s)| HostLine {
            src: fabric.endpoint_name(src).to_string(),
            dst: fabric.endpoint_name(dst).to_string(),
            round,
            seconds: s,
            bandwidth_bytes_s: if s > 0.0 { bytes / s } else { 0.0 },
        })
        .collect();
    Ok(HostReport { lines })
}
