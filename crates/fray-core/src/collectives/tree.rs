//! The reduction tree of a fabric-based collective on an XGFT, for a replication scheme.

use super::{invalid, CollectiveError};
use crate::fabric::{ChannelId, Fabric, RouterId};

/// How the packets of a collective are replicated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replication {
    /// One copy over one tree.
    None,
    /// `k` copies through `k` up ports and `k` split endpoint channels.
    Spatial(u32),
    /// `k` copies back to back on each channel of one tree.
    Temporal(u32),
}

impl Replication {
    /// Most copies of a value: each channel schedules a packet's copies (and their resends)
    /// one against another, so the work per channel grows as the square of `K`; 64 copies is
    /// far past where replication stops paying (the paper studies 2 and 3).
    pub const MAX_COPIES: u32 = 64;

    /// Reads `none`, `spatial:K` or `temporal:K` (`1 <= K <=` [`Self::MAX_COPIES`]).
    pub fn parse(text: &str) -> Result<Self, CollectiveError> {
        let text = text.trim();
        if text == "none" {
            return Ok(Self::None);
        }
        let bad = || {
            invalid(
                "replication",
                format!("expected none, spatial:K or temporal:K with K >= 1, got {text:?}"),
            )
        };
        let (kind, k) = text.split_once(':').ok_or_else(bad)?;
        let k: u32 = k.trim().parse().map_err(|_| bad())?;
        if k == 0 {
            return Err(bad());
        }
        if k > Self::MAX_COPIES {
            return Err(invalid(
                "replication",
                format!(
                    "{text:?}: at most {} copies (the work per channel grows as K squared)",
                    Self::MAX_COPIES
                ),
            ));
        }
        match kind.trim() {
            "spatial" => Ok(Self::Spatial(k)),
            "temporal" => Ok(Self::Temporal(k)),
            _ => Err(bad()),
        }
    }

    /// Number of copies of each value (1 for none).
    pub fn copies(&self) -> u32 {
        match *self {
            Self::None => 1,
            Self::Spatial(k) | Self::Temporal(k) => k,
        }
    }

    /// Name of the scheme: `none`, `spatial` or `temporal`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Spatial(_) => "spatial",
            Self::Temporal(_) => "temporal",
        }
    }

    /// Up ports each switch sends on (`k` for spatial, 1 otherwise).
    fn up_ports(&self) -> usize {
        match *self {
            Self::Spatial(k) => k as usize,
            _ => 1,
        }
    }
}

/// A channel of the tree: from `from` to `to` (switches), over `channel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeEdge {
    /// Sending switch.
    pub from: RouterId,
    /// Receiving switch.
    pub to: RouterId,
    /// The channel.
    pub channel: ChannelId,
}

/// The switches and channels a collective uses on an XGFT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReductionTree {
    /// Up channels between switches, level by level from the bottom.
    pub up: Vec<TreeEdge>,
    /// The top switches, each of which completes the result.
    pub roots: Vec<RouterId>,
}

impl ReductionTree {
    /// The tree of `replication` on `fabric`, which must be an XGFT with at least `k` up
    /// ports per switch for spatial `k`.
    pub fn new(fabric: &Fabric, replication: Replication) -> Result<Self, CollectiveError> {
        let tree = fabric.as_xgft().ok_or_else(|| {
            invalid(
                "fabric",
                "fabric-based collectives need an XGFT (xgft:H;M..;W..)",
            )
        })?;
        let ports = replication.up_ports();
        let h = tree.height();
        for l in 1..h {
            let w = tree.shape().up_degree(l);
            if ports > w {
                return Err(invalid(
                    "replication",
                    format!("spatial:{ports} needs {ports} up ports, level-{l} switches have {w}"),
                ));
            }
        }
        let mut active: Vec<RouterId> = tree.switches_at(1).collect();
        let mut up = Vec::new();
        let mut digits = vec![0u32; h];
        for l in 1..h {
            let mut next = Vec::new();
            for &r in &active {
                digits.copy_from_slice(tree.digits(r));
                for port in 0..ports {
                    digits[l] = port as u32;
                    let parent = tree.switch(l + 1, &digits);
                    let channel = fabric
                        .channel_between(r, parent)
                        .expect("an XGFT links every switch to its parents");
                    up.push(TreeEdge {
                        from: r,
                        to: parent,
                        channel,
                    });
                    next.push(parent);
                }
            }
            next.sort_unstable();
            next.dedup();
            active = next;
        }
        Ok(Self { up, roots: active })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replication_counts_are_bounded() {
        assert_eq!(
            Replication::parse("temporal:64"),
            Ok(Replication::Temporal(64))
        );
        for bad in [
            "temporal:65",
            "temporal:1000000",
            "spatial:4294967296",
            "temporal:0",
        ] {
            let e = Replication::parse(bad).unwrap_err().to_string();
            assert!(e.contains("replication"), "{bad}: {e}");
        }
        let e = Replication::parse("temporal:1000000")
            .unwrap_err()
            .to_string();
        assert!(e.contains("at most 64"), "{e}");
    }
}
