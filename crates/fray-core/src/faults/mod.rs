//! Fault state: which routers, endpoints and channels are down, and which links lost lanes.
//!
//! A cable failure takes both directions of the link. An endpoint failure loses the compute
//! part of a node only: its router still forwards traffic (the model of the spare-node
//! study); a message to or from a failed endpoint is unroutable. A router failure takes the
//! router and every channel through it. A link that loses lanes keeps running at
//! `bandwidth x lanes_up / lanes`.
//!
//! Random failures ([`Faults::fail_random_cables`]) draw from a PCG generator seeded by the
//! caller's seed, so the same seed gives the same failed set on every machine.
//!
//! [`Faults::down_fingerprint`] names the set of down routers and channels in one word, kept
//! up to date as parts fail, so that a routing which precomputes for one fault state (table
//! routing) can check each request's faults at no cost.

mod select;
mod spec;

pub use select::{cable_name, channel_by_name, CableSelector};
pub use spec::FaultSpec;

use rand::SeedableRng;
use rand_pcg::Pcg64;
use thiserror::Error;

use crate::fabric::{ChannelId, EndpointId, Fabric, FabricError, RouterId};
use crate::routing::Entropy;

/// Errors raised while describing faults.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum FaultError {
    /// A router, endpoint or channel index that the fabric does not have.
    #[error("{what} {index} does not exist (the fabric has {count})")]
    OutOfRange {
        /// What kind of part was named.
        what: &'static str,
        /// The index given.
        index: u64,
        /// How many such parts the fabric has.
        count: u64,
    },
    /// Two routers that no channel joins.
    #[error("routers {0} and {1} are not linked")]
    NotLinked(RouterId, RouterId),
    /// A fault description that cannot be used (bad fraction, unknown class, bad name).
    #[error("{what}: {reason}")]
    Invalid {
        /// The field or name at fault.
        what: String,
        /// What is wrong.
        reason: String,
    },
    /// A part named in a fault list that the fabric does not have.
    #[error(transparent)]
    Fabric(#[from] FabricError),
}

/// Per-part state of one fabric.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Faults {
    router_down: Vec<bool>,
    endpoint_down: Vec<bool>,
    channel_down: Vec<bool>,
    lanes_down: Vec<u16>,
    /// XOR of [`part_hash`] over the down routers and channels.
    down_fingerprint: u64,
}

/// Tag of a router in [`part_hash`].
const ROUTER_PART: u64 = 0;
/// Tag of a channel in [`part_hash`].
const CHANNEL_PART: u64 = 1;

/// The SplitMix64 hash of one part (`tag` says which kind, `index` which one).
fn part_hash(tag: u64, index: usize) -> u64 {
    Entropy::new(((index as u64) << 1) | tag).next_u64()
}

fn check(what: &'static str, index: u32, count: usize) -> Result<usize, FaultError> {
    if (index as usize) < count {
        Ok(index as usize)
    } else {
        Err(FaultError::OutOfRange {
            what,
            index: index.into(),
            count: count as u64,
        })
    }
}

impl Faults {
    /// Every part of `fabric` up.
    pub fn none(fabric: &Fabric) -> Self {
        Self {
            router_down: vec![false; fabric.num_routers()],
            endpoint_down: vec![false; fabric.num_endpoints()],
            channel_down: vec![false; fabric.channels().len()],
            lanes_down: vec![0; fabric.channels().len()],
            down_fingerprint: 0,
        }
    }

    /// Marks router `i` down, updating the fingerprint when it was up.
    fn mark_router_down(&mut self, i: usize) {
        if !self.router_down[i] {
            self.router_down[i] = true;
            self.down_fingerprint ^= part_hash(ROUTER_PART, i);
        }
    }

    /// Marks channel `c` down, updating the fingerprint when it was up.
    fn mark_channel_down(&mut self, c: usize) {
        if !self.channel_down[c] {
            self.channel_down[c] = true;
            self.down_fingerprint ^= part_hash(CHANNEL_PART, c);
        }
    }

    /// Checks that this fault state was made for `fabric` (same numbers of parts).
    pub fn check_fits(&self, fabric: &Fabric) -> Result<(), FaultError> {
        let fits = self.router_down.len() == fabric.num_routers()
            && self.endpoint_down.len() == fabric.num_endpoints()
            && self.channel_down.len() == fabric.channels().len();
        if fits {
            Ok(())
        } else {
            Err(FaultError::Invalid {
                what: "faults".into(),
                reason: "were made for another fabric".into(),
            })
        }
    }

    /// Takes a router down (and with it every path through it).
    pub fn fail_router(&mut self, router: RouterId) -> Result<(), FaultError> {
        let i = check("router", router, self.router_down.len())?;
        self.mark_router_down(i);
        Ok(())
    }

    /// Takes an endpoint's compute part down; its router keeps forwarding.
    pub fn fail_endpoint(&mut self, endpoint: EndpointId) -> Result<(), FaultError> {
        let i = check("endpoint", endpoint, self.endpoint_down.len())?;
        self.endpoint_down[i] = true;
        Ok(())
    }

    /// Takes the cable between two adjacent routers down, both directions (the first such
    /// cable when there are parallel ones).
    pub fn fail_link(
        &mut self,
        fabric: &Fabric,
        a: RouterId,
        b: RouterId,
    ) -> Result<(), FaultError> {
        check("router", a, self.router_down.len())?;
        check("router", b, self.router_down.len())?;
        let ab = fabric
            .channel_between(a, b)
            .ok_or(FaultError::NotLinked(a, b))?;
        self.fail_cable(fabric, ab)
    }

    /// Takes down the cable `channel` belongs to, both directions.
    pub fn fail_cable(&mut self, fabric: &Fabric, channel: ChannelId) -> Result<(), FaultError> {
        let c = check("channel", channel, self.channel_down.len())?;
        self.mark_channel_down(c);
        self.mark_channel_down(fabric.channels().reverse[c] as usize);
        Ok(())
    }

    /// Brings the cable `channel` belongs to back up, both directions, with every lane (a
    /// repaired cable is a new one); the fingerprint forgets it.
    pub fn repair_cable(&mut self, fabric: &Fabric, channel: ChannelId) -> Result<(), FaultError> {
        let c = check("channel", channel, self.channel_down.len())?;
        for c in [c, fabric.channels().reverse[c] as usize] {
            if self.channel_down[c] {
                self.channel_down[c] = false;
                self.down_fingerprint ^= part_hash(CHANNEL_PART, c);
            }
            self.lanes_down[c] = 0;
        }
        Ok(())
    }

    /// Fails `round(fraction x n)` of the `n` live cables `selector` picks, drawn uniformly
    /// without replacement by a generator seeded with `seed`; returns how many failed.
    pub fn fail_random_cables(
        &mut self,
        fabric: &Fabric,
        selector: &CableSelector,
        fraction: f64,
        seed: u64,
    ) -> Result<usize, FaultError> {
        if !(0.0..=1.0).contains(&fraction) {
            return Err(FaultError::Invalid {
                what: "fraction".into(),
                reason: format!("must be between 0 and 1, got {fraction}"),
            });
        }
        let candidates: Vec<ChannelId> = selector
            .cables(fabric)?
            .into_iter()
            .filter(|&c| !self.channel_down[c as usize])
            .collect();
        let count = (fraction * candidates.len() as f64).round() as usize;
        let mut rng = Pcg64::seed_from_u64(seed);
        for i in rand::seq::index::sample(&mut rng, candidates.len(), count) {
            self.fail_cable(fabric, candidates[i])?;
        }
        Ok(count)
    }

    /// Fails the cables named `FROM->TO` or `FROM->TO[k]` (router names; either direction
    /// names the cable; see [`channel_by_name`]).
    pub fn fail_named_cables<S: AsRef<str>>(
        &mut self,
        fabric: &Fabric,
        names: &[S],
    ) -> Result<(), FaultError> {
        for name in names {
            let channel = select::channel_by_name(fabric, name.as_ref())?;
            self.fail_cable(fabric, channel)?;
        }
        Ok(())
    }

    /// Fails the cables listed in a fault file: one cable per line, `FROM->TO` (router names)
    /// or `FROM->TO[k]` for the `k`-th of parallel cables ([`channel_by_name`]); blank lines
    /// and text after `#` are ignored. `file` names the file in errors, which give
    /// its 1-based line.
    pub fn fail_cables_listed(
        &mut self,
        fabric: &Fabric,
        text: &str,
        file: &str,
    ) -> Result<usize, FaultError> {
        let mut listed: Vec<(ChannelId, usize)> = Vec::new();
        for (line, name) in fault_file_cables(text) {
            let at_line = |reason: String| {
                FaultError::Fabric(FabricError::File {
                    file: file.to_string(),
                    line,
                    reason,
                })
            };
            let channel =
                select::channel_by_name(fabric, name).map_err(|e| at_line(e.to_string()))?;
            // A cable is both its directions: one of them listed twice, or each once, is
            // the same cable listed twice (and a repair of one line would repair nothing).
            let cable = channel.min(fabric.channels().reverse[channel as usize]);
            if let Some(&(_, first)) = listed.iter().find(|(c, _)| *c == cable) {
                return Err(at_line(format!(
                    "{name} is the cable of line {first} again (a cable is both directions: \
                     list it once)"
                )));
            }
            listed.push((cable, line));
            self.fail_cable(fabric, channel)?;
        }
        Ok(listed.len())
    }

    /// Fails the cables listed in the fault file at `path` (see [`Faults::fail_cables_listed`]).
    pub fn fail_cables_from_file(
        &mut self,
        fabric: &Fabric,
        path: &std::path::Path,
    ) -> Result<usize, FaultError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| {
            FaultError::Fabric(FabricError::File {
                file: file.clone(),
                line: 0,
                reason: e.to_string(),
            })
        })?;
        self.fail_cables_listed(fabric, &text, &file)
    }

    /// Sets the number of lanes the channel (one direction) has lost to `lanes`, replacing
    /// any earlier count rather than adding to it: losing 3 and then 3 lanes of a 4-lane
    /// channel leaves 3 lost, not 6 (an error) or 4. Its bandwidth scales with the lanes
    /// left. Losing every lane takes the channel down, and it stays down: a later, smaller
    /// count does not bring it back.
    pub fn lose_lanes(
        &mut self,
        fabric: &Fabric,
        channel: ChannelId,
        lanes: u16,
    ) -> Result<(), FaultError> {
        let c = check("channel", channel, self.channel_down.len())?;
        let total = fabric.channels().lanes[c];
        if lanes > total {
            return Err(FaultError::Invalid {
                what: format!("channel {}", fabric.channel_name(channel)),
                reason: format!("has {total} lanes, cannot lose {lanes}"),
            });
        }
        self.lanes_down[c] = lanes;
        if lanes == total {
            self.mark_channel_down(c);
        }
        Ok(())
    }

    /// Whether a router is down.
    #[inline]
    pub fn router_is_down(&self, router: RouterId) -> bool {
        self.router_down[router as usize]
    }

    /// Whether an endpoint's compute part is down.
    #[inline]
    pub fn endpoint_is_down(&self, endpoint: EndpointId) -> bool {
        self.endpoint_down[endpoint as usize]
    }

    /// Whether a channel is down.
    #[inline]
    pub fn channel_is_down(&self, channel: ChannelId) -> bool {
        self.channel_down[channel as usize]
    }

    /// Lanes the channel has lost.
    #[inline]
    pub fn lanes_lost(&self, channel: ChannelId) -> u16 {
        self.lanes_down[channel as usize]
    }

    /// The channel's bandwidth with its lost lanes taken off (0 when it is down), in bytes
    /// per second.
    #[inline]
    pub fn bandwidth_bytes_s(&self, fabric: &Fabric, channel: ChannelId) -> f64 {
        let c = channel as usize;
        if self.channel_down[c] {
            return 0.0;
        }
        let ch = fabric.channels();
        let lanes = ch.lanes[c];
        ch.bandwidth_bytes_s[c] * f64::from(lanes - self.lanes_down[c]) / f64::from(lanes)
    }

    /// A 64-bit identity of the set of down routers and channels: the XOR of a SplitMix64
    /// hash of each down part. Equal sets give equal fingerprints whatever the order the parts
    /// failed in; two different sets collide with probability about 2^-64. Endpoints and lost
    /// lanes that leave a channel up do not count (they change no path). 0 when no router or
    /// channel is down. Kept up to date as parts fail, so reading it costs nothing.
    #[inline]
    pub fn down_fingerprint(&self) -> u64 {
        self.down_fingerprint
    }

    /// The down router-to-router cables as a fault file lists them: a comment line, then each
    /// cable's [`cable_name`] (`FROM->TO` in its lower channel id's direction, `FROM->TO[k]`
    /// for one of parallel cables), in channel order. [`Faults::fail_cables_listed`] reads it
    /// back to the same down channels.
    pub fn down_cables_file(&self, fabric: &Fabric) -> String {
        let ch = fabric.channels();
        let mut text = String::from("# down cables, one FROM->TO per line\n");
        for c in 0..fabric.num_router_channels() {
            if self.channel_down[c] && c < ch.reverse[c] as usize {
                text.push_str(&cable_name(fabric, c as ChannelId));
                text.push('\n');
            }
        }
        text
    }

    /// Number of channels down.
    pub fn num_channels_down(&self) -> usize {
        self.channel_down.iter().filter(|&&d| d).count()
    }

    /// Whether nothing is down or degraded.
    pub fn is_empty(&self) -> bool {
        !(self.router_down.iter().any(|&d| d)
            || self.endpoint_down.iter().any(|&d| d)
            || self.channel_down.iter().any(|&d| d)
            || self.lanes_down.iter().any(|&l| l > 0))
    }
}

/// The cables a fault file lists, with their 1-based line numbers: one `FROM->TO` (or
/// `FROM->TO[k]`) name per line, blank lines and text after `#` left out (the names are not checked here).
pub fn fault_file_cables(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines().enumerate().filter_map(|(i, line)| {
        let name = line.split('#').next().unwrap_or("").trim();
        (!name.is_empty()).then_some((i + 1, name))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_files_fail_listed_cables_and_name_bad_lines() {
        let f = Fabric::parse("mesh:3x3").unwrap();
        let mut faults = Faults::none(&f);
        let text = "# failed cables\n(0,0)->(1,0)\n\n(1,1)->(1,2)  # flapping\n";
        assert_eq!(
            faults.fail_cables_listed(&f, text, "cables.txt").unwrap(),
            2
        );
        assert_eq!(faults.num_channels_down(), 4);
        let err = faults
            .fail_cables_listed(&f, "(0,0)->(1,0)\n(0,0)->(2,2)\n", "cables.txt")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("cables.txt:2:"), "{err}");
    }

    #[test]
    fn a_cable_listed_twice_in_either_direction_is_named() {
        let f = Fabric::parse("mesh:3x3").unwrap();
        for text in [
            "(0,0)->(1,0)\n(1,0)->(0,0)\n",
            "(0,0)->(1,0)\n# again\n(0,0)->(1,0)\n",
        ] {
            let err = Faults::none(&f)
                .fail_cables_listed(&f, text, "down.txt")
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("down.txt:") && err.contains("cable of line 1 again"),
                "{err}"
            );
        }
    }

    #[test]
    fn parallel_cables_are_numbered_from_either_end_and_plain_names_the_first() {
        let f = Fabric::parse("hyperx:3x3,k=2").unwrap();
        let first = channel_by_name(&f, "(0,0)->(1,0)").unwrap();
        let second = channel_by_name(&f, "(0,0)->(1,0)[2]").unwrap();
        assert_ne!(first, second);
        assert_eq!(channel_by_name(&f, "(0,0)->(1,0)[1]"), Ok(first));
        let back = f.channels().reverse[second as usize];
        assert_eq!(channel_by_name(&f, "(1,0)->(0,0) [2]"), Ok(back));
        assert_eq!(cable_name(&f, second), "(0,0)->(1,0)[2]");
        assert_eq!(cable_name(&f, back), "(1,0)->(0,0)[2]");
        let single = Fabric::parse("hyperx:3x3").unwrap();
        let c = channel_by_name(&single, "(0,0)->(1,0)").unwrap();
        assert_eq!(cable_name(&single, c), "(0,0)->(1,0)");
    }

    #[test]
    fn a_cable_number_out_of_range_or_listed_twice_names_the_line() {
        let f = Fabric::parse("hyperx:3x3,k=2").unwrap();
        for (text, line, says) in [
            ("(0,0)->(1,0)[3]\n", 1, "are numbered [1] to [2]"),
            ("# none\n(0,0)->(1,0)[0]\n", 2, "are numbered [1] to [2]"),
            (
                "(0,0)->(1,0)[99999999999999999999999]\n",
                1,
                "are numbered [1] to [2]",
            ),
            (
                "(0,0)->(1,0)[2]\n(1,0)->(0,0)[2]\n",
                2,
                "cable of line 1 again",
            ),
            (
                "(0,0)->(1,0)\n(0,0)->(1,0)[1]\n",
                2,
                "cable of line 1 again",
            ),
            ("(0,0)->(1,1)[1]\n", 1, "link \"(0,0)->(1,1)[1]\""),
        ] {
            let err = Faults::none(&f)
                .fail_cables_listed(&f, text, "down.txt")
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with(&format!("down.txt:{line}: ")) && err.contains(says),
                "{text}: {err}"
            );
        }
        let single = Fabric::parse("mesh:3x3").unwrap();
        let err = Faults::none(&single)
            .fail_cables_listed(&single, "(0,0)->(1,0)[2]\n", "down.txt")
            .unwrap_err()
            .to_string();
        assert!(err.ends_with("are numbered [1] to [1]"), "{err}");
    }

    #[test]
    fn a_router_whose_name_ends_in_a_number_in_brackets_is_still_named() {
        let text = r#"{"routers": ["x", "x[2]", "y"],
                       "links": [{"a": "y", "b": "x[2]"}, {"a": "y", "b": "x", "count": 2}]}"#;
        let f = Fabric::read_str(text, "f.json", crate::fabric::FileFormat::Json).unwrap();
        let mut faults = Faults::none(&f);
        for c in 0..f.num_router_channels() as ChannelId {
            faults.fail_cable(&f, c).unwrap();
        }
        let file = faults.down_cables_file(&f);
        assert!(file.contains("y->x[2][1]\n"), "{file}");
        let mut back = Faults::none(&f);
        assert_eq!(back.fail_cables_listed(&f, &file, "saved").unwrap(), 3);
        assert_eq!(back, faults);
    }

    #[test]
    fn a_byte_order_mark_before_the_first_cable_is_skipped() {
        let f = Fabric::parse("mesh:3x3").unwrap();
        let mut faults = Faults::none(&f);
        assert_eq!(
            faults
                .fail_cables_listed(&f, "\u{feff}(0,0)->(1,0)\n", "bom.txt")
                .unwrap(),
            1
        );
        assert_eq!(faults.num_channels_down(), 2);
    }

    #[test]
    fn a_written_fault_file_reads_back_to_the_same_state_and_repairs_undo_failures() {
        let f = Fabric::parse("dragonfly:p=2,a=4,h=2,g=5").unwrap();
        let mut faults = Faults::none(&f);
        faults
            .fail_random_cables(&f, &CableSelector::parse("router"), 0.3, 7)
            .unwrap();
        let text = faults.down_cables_file(&f);
        let mut back = Faults::none(&f);
        let n = back.fail_cables_listed(&f, &text, "saved").unwrap();
        assert_eq!(2 * n, faults.num_channels_down());
        assert_eq!(back, faults);
        let first = (0..f.num_router_channels())
            .find(|&c| faults.channel_is_down(c as ChannelId))
            .unwrap() as ChannelId;
        let before = faults.down_fingerprint();
        faults.repair_cable(&f, first).unwrap();
        assert_eq!(faults.num_channels_down(), 2 * n - 2);
        faults.fail_cable(&f, first).unwrap();
        assert_eq!(faults.down_fingerprint(), before);
        for c in 0..f.channels().len() {
            faults.repair_cable(&f, c as ChannelId).unwrap();
        }
        assert_eq!(faults, Faults::none(&f));
    }
}
