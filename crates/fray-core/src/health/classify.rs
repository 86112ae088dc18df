//! Every cable of a fabric classified from its fault state, its trained width and speed, and
//! its ports' counters.
//!
//! # What is measured, per direction of a cable
//! A direction leaves port A and arrives at port B. Each counter of a port is reduced to one
//! *count*: with two or more timed samples (a CSV), the rise from the earliest to the latest
//! (a fall is taken for a counter reset: the count goes on from the new value); with untimed
//! samples (perfquery, ibqueryerrors), the latest value, a total since the counters were last
//! cleared. Then:
//! - errors = SymbolErrorCounter + PortRcvErrors at B;
//! - bits carried = 32 x PortRcvData at B (the counter counts 4-octet words), or 32 x
//!   PortXmitData at A when B has no data counter;
//! - the bit-error rate = errors / bits, with Garwood's exact Poisson interval at the
//!   confidence asked ([`super::ber`]);
//! - the transmit-wait ratio = PortXmitWait / (PortXmitWait + PortXmitData) at A: the share of
//!   A's ticks with data waiting but none sent, taking a tick for the time of one 4-octet word
//!   (the tick is implementation-defined; the ratio ranks ports, it is not a time share);
//! - link downs = LinkDownedCounter at either end.
//!
//! # Classes, most severe first (a cable gets the first that applies)
//! 1. `down`: the fault state has the cable down (a `--down` fault file); `critical` when it
//!    cuts endpoints off ([`CableHealth::critical`]).
//! 2. `flapping`: the link went down at least once while counted (LinkDownedCounter rose, or
//!    is above 0 since the last clear).
//! 3. `below-peers`: trained at fewer lanes or a slower lane rate than most cables of its class
//!    at the same switches ([`crate::diag::slow_links`]).
//! 4. `erroring`: in either direction, the lower bound of the bit-error-rate interval is above
//!    [`Thresholds::ber`] (the error rate is above the threshold with the confidence asked).
//! 5. `congested`: in either direction, the transmit-wait ratio is above
//!    [`Thresholds::xmit_wait_ratio`].
//! 6. `healthy`: none of these. A healthy cable whose interval's upper bound is above the
//!    threshold has carried too few bits to show that it meets it; its `ber` says so.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use super::ber::BerEstimate;
use super::{Counter, CounterSample, HealthError, PortIndex};
use crate::diag::{slow_links, SlowLink};
use crate::fabric::{ChannelId, Fabric};
use crate::faults::Faults;

/// Bits in one unit of PortXmitData and PortRcvData (a 4-octet word).
pub const BITS_PER_DATA_WORD: f64 = 32.0;

/// The thresholds a classification applies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// Bit-error rate above which a cable is erroring (errors per bit; default 1e-12, the
    /// rate InfiniBand links are specified to meet).
    pub ber: f64,
    /// Confidence of the bit-error-rate interval (default 0.95).
    pub confidence: f64,
    /// Transmit-wait ratio above which a cable is congested (default 0.1).
    pub xmit_wait_ratio: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            ber: 1e-12,
            confidence: 0.95,
            xmit_wait_ratio: 0.1,
        }
    }
}

impl Thresholds {
    /// Checks each threshold: `ber` strictly between 0 and 1 (a rate of errors per bit; a
    /// cable is erroring when its rate's lower bound is above it, which no rate is at 1),
    /// `confidence` strictly between 0 and 1, `xmit_wait_ratio` from 0 to 1.
    pub fn validate(&self) -> Result<(), HealthError> {
        let bad = |field, reason: String| Err(HealthError::Option { field, reason });
        if !(self.ber > 0.0 && self.ber < 1.0) {
            return bad(
                "ber",
                format!(
                    "must be a bit-error rate strictly between 0 and 1, got {}",
                    self.ber
                ),
            );
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return bad(
                "confidence",
                format!("must lie strictly between 0 and 1, got {}", self.confidence),
            );
        }
        if !(0.0..=1.0).contains(&self.xmit_wait_ratio) {
            return bad(
                "xmit_wait_ratio",
                format!("must lie from 0 to 1, got {}", self.xmit_wait_ratio),
            );
        }
        Ok(())
    }
}

/// What a cable's state is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CableClass {
    /// Down in the fault state.
    Down,
    /// Went down while counted.
    Flapping,
    /// Trained below its peers' width or speed.
    BelowPeers,
    /// Bit-error rate above the threshold.
    Erroring,
    /// Transmit-wait ratio above the threshold.
    Congested,
    /// None of the above.
    Healthy,
}

impl CableClass {
    /// Every class, most severe first.
    pub const ALL: [CableClass; 6] = [
        Self::Down,
        Self::Flapping,
        Self::BelowPeers,
        Self::Erroring,
        Self::Congested,
        Self::Healthy,
    ];

    /// The class's name (`down`, `flapping`, `below-peers`, `erroring`, `congested`,
    /// `healthy`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Down => "down",
            Self::Flapping => "flapping",
            Self::BelowPeers => "below-peers",
            Self::Erroring => "erroring",
            Self::Congested => "congested",
            Self::Healthy => "healthy",
        }
    }
}

impl fmt::Display for CableClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CableClass {
    type Err = HealthError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|c| c.name() == s.trim())
            .ok_or_else(|| HealthError::Option {
                field: "class",
                reason: format!(
                    "unknown cable class {s:?} (known: {})",
                    Self::ALL.map(Self::name).join(", ")
                ),
            })
    }
}

/// One cable's classification and the numbers behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct CableHealth {
    /// The cable's channel from its lower-numbered end.
    pub channel: ChannelId,
    /// The cable, named `FROM->TO` by that channel.
    pub name: String,
    /// Its link class (`switch`, `host`, ...).
    pub link_class: String,
    /// Its classification.
    pub verdict: CableClass,
    /// Why, in a few words.
    pub reason: String,
    /// Times the link went down while counted (both ends together).
    pub link_downed: u64,
    /// The bit-error-rate estimate of the direction with the higher lower bound, when a data
    /// counter says how many bits it carried.
    pub ber: Option<BerEstimate>,
    /// The higher transmit-wait ratio of the two directions, when counted.
    pub xmit_wait_ratio: Option<f64>,
    /// Lanes the cable trained at.
    pub lanes: u16,
    /// Lanes most of its peers trained at, when it is below them.
    pub peer_lanes: Option<u16>,
    /// Whether the cable is down and its failure is critical (Domke et al.'s sense for
    /// fail-in-place networks): it cuts endpoints off from each other. A host cable down cuts
    /// its endpoint off; a router cable down is critical when its two routers lie in different
    /// parts of the fabric once every down cable is taken out (repairing it alone joins them).
    pub critical: bool,
}

/// The part of the fabric each router lies in, over the router cables `faults` leaves up.
fn live_parts(fabric: &Fabric, faults: &Faults) -> Vec<usize> {
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let ch = fabric.channels();
    let mut parent: Vec<usize> = (0..fabric.num_routers()).collect();
    for c in 0..fabric.num_router_channels() {
        let (a, b) = (ch.src[c] as usize, ch.dst[c] as usize);
        let down = faults.channel_is_down(c as ChannelId)
            || faults.router_is_down(a as u32)
            || faults.router_is_down(b as u32);
        if !down {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra] = rb;
        }
    }
    (0..parent.len()).map(|r| root(&mut parent, r)).collect()
}

/// The count of each (channel leaving a port, counter) from its samples.
#[derive(Debug, Default)]
struct Counts {
    map: HashMap<(ChannelId, Counter), u64>,
}

impl Counts {
    fn get(&self, c: ChannelId, counter: Counter) -> Option<u64> {
        self.map.get(&(c, counter)).copied()
    }
}

/// One sample's time (if any) and value.
type Reading = (Option<f64>, u64);

/// Reduces samples to counts (see the module), each sample matched to its port by `index`.
/// A sample of a port the fabric does not have cabled is an error naming its file and line,
/// except a switch's port 0 (its management port, on no cable).
fn counts(index: &PortIndex, files: &[(&str, &[CounterSample])]) -> Result<Counts, HealthError> {
    // Per (channel, counter): (time, value) in reading order.
    let mut series: HashMap<(ChannelId, Counter), Vec<Reading>> = HashMap::new();
    for (file, samples) in files {
        for s in *samples {
            let Some(c) = index.channel(&s.port) else {
                if matches!(s.port, super::PortId::Guid(_, 0) | super::PortId::Lid(_, 0)) {
                    continue;
                }
                return Err(HealthError::File {
                    file: file.to_string(),
                    line: s.line,
                    reason: format!("no cable of the fabric leaves {}", s.port),
                });
            };
            series
                .entry((c, s.counter))
                .or_default()
                .push((s.time_s, s.value));
        }
    }
    let mut out = Counts::default();
    for (key, mut values) in series {
        let timed = values.iter().all(|(t, _)| t.is_some());
        let count = if timed && values.len() > 1 {
            values.sort_by(|a, b| a.0.partial_cmp(&b.0).expect("finite times"));
            values
                .windows(2)
                .map(|w| w[1].1.checked_sub(w[0].1).unwrap_or(w[1].1))
                .sum()
        } else {
            values.last().map_or(0, |v| v.1)
        };
        out.map.insert(key, count);
    }
    Ok(out)
}

/// What one direction of a cable shows.
struct Direction {
    ber: Option<BerEstimate>,
    wait: Option<f64>,
}

fn direction(fabric: &Fabric, counts: &Counts, c: ChannelId, t: &Thresholds) -> Direction {
    let back = fabric.channels().reverse[c as usize];
    let errors = counts.get(back, Counter::SymbolErrors).unwrap_or(0)
        + counts.get(back, Counter::RcvErrors).unwrap_or(0);
    let words = counts
        .get(back, Counter::RcvData)
        .or_else(|| counts.get(c, Counter::XmitData));
    let ber = words
        .filter(|&w| w > 0)
        .map(|w| BerEstimate::new(errors, w as f64 * BITS_PER_DATA_WORD, t.confidence));
    let wait = counts.get(c, Counter::XmitWait).map(|w| {
        let data = counts.get(c, Counter::XmitData).unwrap_or(0);
        if w == 0 {
            0.0
        } else {
            w as f64 / (w as f64 + data as f64)
        }
    });
    Direction { ber, wait }
}

/// Classifies every cable of `fabric` (router cables and host cables), most suspect first:
/// by class, then within a class by how far past its threshold (critical failures first, link
/// downs, the error rate's lower bound, the wait ratio), then by channel. `files` are counter samples with the name of
/// the file each came from (for errors); `index` matches them to ports.
pub fn classify(
    fabric: &Fabric,
    index: &PortIndex,
    files: &[(&str, &[CounterSample])],
    faults: &Faults,
    t: &Thresholds,
) -> Result<Vec<CableHealth>, HealthError> {
    t.validate()?;
    let counts = counts(index, files)?;
    let slow: HashMap<ChannelId, SlowLink> = slow_links(fabric)
        .into_iter()
        .map(|s| (s.channel, s))
        .collect();
    let parts = live_parts(fabric, faults);
    let ch = fabric.channels();
    let mut out = Vec::new();
    for c in 0..ch.len() as ChannelId {
        let back = ch.reverse[c as usize];
        if c > back {
            continue;
        }
        let link_downed = counts.get(c, Counter::LinkDowned).unwrap_or(0)
            + counts.get(back, Counter::LinkDowned).unwrap_or(0);
        let (there, back_dir) = (
            direction(fabric, &counts, c, t),
            direction(fabric, &counts, back, t),
        );
        let ber = [there.ber, back_dir.ber]
            .into_iter()
            .flatten()
            .max_by(|a, b| a.low.total_cmp(&b.low).then(a.ber.total_cmp(&b.ber)));
        let wait = [there.wait, back_dir.wait]
            .into_iter()
            .flatten()
            .max_by(f64::total_cmp);
        let is_down = faults.channel_is_down(c) || faults.channel_is_down(back);
        let critical = is_down
            && (!fabric.is_router_channel(c)
                || parts[ch.src[c as usize] as usize] != parts[ch.dst[c as usize] as usize]);
        let (verdict, reason) = if is_down {
            let why = if critical {
                "down in the fault state, critical: it cuts endpoints off"
            } else {
                "down in the fault state"
            };
            (CableClass::Down, why.to_string())
        } else if link_downed > 0 {
            (
                CableClass::Flapping,
                format!("the link went down {link_downed} times"),
            )
        } else if let Some(s) = slow.get(&c) {
            (
                CableClass::BelowPeers,
                format!(
                    "trained at {}x {} Gb/s per lane, its {} peers mostly at {}x {} Gb/s",
                    s.lanes,
                    s.lane_bits_s / 1e9,
                    s.peers,
                    s.peer_lanes,
                    s.peer_lane_bits_s / 1e9
                ),
            )
        } else if let Some(b) = ber.filter(|b| b.low > t.ber) {
            (
                CableClass::Erroring,
                format!(
                    "{} errors in {:.3e} bits: rate {:.3e} ({:.3e} to {:.3e}) above {:.0e}",
                    b.errors, b.bits, b.ber, b.low, b.high, t.ber
                ),
            )
        } else if let Some(w) = wait.filter(|&w| w > t.xmit_wait_ratio) {
            (
                CableClass::Congested,
                format!("transmit-wait ratio {w:.3} above {}", t.xmit_wait_ratio),
            )
        } else {
            (CableClass::Healthy, String::new())
        };
        out.push(CableHealth {
            channel: c,
            name: fabric.channel_name(c),
            link_class: fabric.class_names()[ch.class[c as usize] as usize].clone(),
            verdict,
            reason,
            link_downed,
            ber,
            xmit_wait_ratio: wait,
            lanes: ch.lanes[c as usize],
            peer_lanes: slow.get(&c).map(|s| s.peer_lanes),
            critical,
        });
    }
    let score = |h: &CableHealth| match h.verdict {
        CableClass::Down => f64::from(u8::from(h.critical)),
        CableClass::Flapping => h.link_downed as f64,
        CableClass::Erroring => h.ber.map_or(0.0, |b| b.low),
        CableClass::Congested => h.xmit_wait_ratio.unwrap_or(0.0),
        _ => 0.0,
    };
    out.sort_by(|a, b| {
        a.verdict
            .cmp(&b.verdict)
            .then(score(b).total_cmp(&score(a)))
            .then(a.channel.cmp(&b.channel))
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_threshold_out_of_its_range_is_refused_by_name() {
        let with = |ber, confidence, xmit_wait_ratio| Thresholds {
            ber,
            confidence,
            xmit_wait_ratio,
        };
        assert!(Thresholds::default().validate().is_ok());
        assert!(with(0.5, 0.5, 1.0).validate().is_ok());
        for (t, name) in [
            // A rate of 1 or more used to be accepted: no cable could ever be erroring.
            (with(2.0, 0.95, 0.1), "ber"),
            (with(1.0, 0.95, 0.1), "ber"),
            (with(0.0, 0.95, 0.1), "ber"),
            (with(f64::NAN, 0.95, 0.1), "ber"),
            (with(1e-12, 1.0, 0.1), "confidence"),
            (with(1e-12, 0.95, 1.5), "xmit_wait_ratio"),
        ] {
            match t.validate() {
                Err(HealthError::Option { field, reason }) => {
                    assert_eq!(field, name, "{t:?}: {reason}");
                    assert!(!reason.contains('\n'));
                }
                other => panic!("{t:?}: {other:?}"),
            }
        }
    }
}
