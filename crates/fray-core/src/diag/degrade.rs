//! Parts made slow on a Gemini model: tiles that lost lanes, slow Geminis, slow nodes.

use std::collections::BTreeMap;
use std::str::FromStr;

use super::DiagError;
use crate::fabric::gemini::{Gemini, GeminiName, LaneMask, NodeName, Tile};
use crate::fabric::{ChannelId, Direction, Fabric, FabricError};
use crate::faults::Faults;

/// Share of its lanes a slow Gemini or slow node keeps on every link it drives (the paper's
/// slow Geminis never exceeded 4 GB/s where healthy ones reach 6 to 7).
pub const SLOW_LANE_SHARE: f64 = 0.5;

/// One slow part to inject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Injection {
    /// The link leaving a Gemini through `tile` runs on the lanes of `mask` (`TILE:MASK`,
    /// e.g. `c0-0c0s1g0l27:3`).
    Lanes {
        /// The tile sending over the degraded lanes.
        tile: Tile,
        /// Its lane mask.
        mask: LaneMask,
    },
    /// Every link of a Gemini, and both its nodes' links to it, keep [`SLOW_LANE_SHARE`] of
    /// their lanes (`gemini:c0-0c0s1g0`).
    SlowGemini(GeminiName),
    /// One node's link to its Gemini keeps [`SLOW_LANE_SHARE`] of its lanes
    /// (`node:c0-0c0s1n2`).
    SlowNode(NodeName),
}

impl FromStr for Injection {
    type Err = FabricError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        if let Some(name) = text.strip_prefix("gemini:") {
            return Ok(Self::SlowGemini(name.parse()?));
        }
        if let Some(name) = text.strip_prefix("node:") {
            return Ok(Self::SlowNode(name.parse()?));
        }
        let (tile, mask) = text.rsplit_once(':').ok_or_else(|| FabricError::Name {
            name: text.to_string(),
            reason: "expected TILE:MASK (c0-0c0s1g0l27:3), gemini:NAME or node:NAME".into(),
        })?;
        let bits = mask.trim().parse::<u32>().map_err(|_| FabricError::Name {
            name: text.to_string(),
            reason: format!("lane mask {mask:?} is not a number"),
        })?;
        Ok(Self::Lanes {
            tile: tile.parse()?,
            mask: LaneMask::new(bits)?,
        })
    }
}

impl std::fmt::Display for Injection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Lanes { tile, mask } => write!(f, "{tile}:{}", mask.bits()),
            Self::SlowGemini(g) => write!(f, "gemini:{g}"),
            Self::SlowNode(n) => write!(f, "node:{n}"),
        }
    }
}

/// The channel leaving the tile's Gemini in the tile's direction.
pub fn tile_channel(gemini: &Gemini, fabric: &Fabric, tile: &Tile) -> Result<ChannelId, DiagError> {
    let router = gemini.router_of(&tile.gemini)?;
    let (d, dir) = tile.port().ok_or_else(|| DiagError::Invalid {
        what: tile.to_string(),
        reason: "is a processor tile: it carries no network link".into(),
    })?;
    let other = match dir {
        Direction::Up => Direction::Down,
        Direction::Down => Direction::Up,
    };
    // A ring of two has one link, reached from either direction's tiles.
    let t = gemini.torus();
    let next = t
        .neighbor(router, d, dir)
        .or_else(|| t.neighbor(router, d, other))
        .ok_or_else(|| DiagError::Invalid {
            what: tile.to_string(),
            reason: "leads nowhere: this machine has one Gemini along that dimension".into(),
        })?;
    Ok(fabric.channel_between(router, next).expect("torus link"))
}

/// Lanes a slow part keeps of `lanes`.
fn slow_lanes_lost(lanes: u16) -> u16 {
    lanes - ((f64::from(lanes) * SLOW_LANE_SHARE).round() as u16).max(1)
}

/// Applies the injections to `faults`. Tiles are read in order, a later mask of a tile
/// replacing an earlier one (as a log reports a lane coming back); lanes lost on one channel
/// through several tiles add up; a channel that loses every lane goes down.
pub fn apply_injections(
    gemini: &Gemini,
    fabric: &Fabric,
    faults: &mut Faults,
    injections: &[Injection],
) -> Result<(), DiagError> {
    let mut tile_masks: BTreeMap<Tile, LaneMask> = BTreeMap::new();
    let mut lost: BTreeMap<ChannelId, u16> = BTreeMap::new();
    let lanes = |c: ChannelId| fabric.channels().lanes[c as usize];
    for inj in injections {
        match inj {
            Injection::Lanes { tile, mask } => {
                tile_channel(gemini, fabric, tile)?;
                tile_masks.insert(*tile, *mask);
            }
            Injection::SlowGemini(name) => {
                let r = gemini.router_of(name)?;
                let out = fabric.out_channels(r);
                let into = out.iter().map(|&c| fabric.channels().reverse[c as usize]);
                let mut slow: Vec<ChannelId> = out.iter().copied().chain(into).collect();
                for e in fabric.endpoints_of(r) {
                    slow.extend([fabric.injection_channel(e), fabric.ejection_channel(e)]);
                }
                for c in slow {
                    let l = lost.entry(c).or_default();
                    *l = (*l).max(slow_lanes_lost(lanes(c)));
                }
            }
            Injection::SlowNode(name) => {
                let e = gemini.endpoint_of(name)?;
                for c in [fabric.injection_channel(e), fabric.ejection_channel(e)] {
                    let l = lost.entry(c).or_default();
                    *l = (*l).max(slow_lanes_lost(lanes(c)));
                }
            }
        }
    }
    for (tile, mask) in &tile_masks {
        let c = tile_channel(gemini, fabric, tile)?;
        *lost.entry(c).or_default() += mask.lanes_lost();
    }
    for (c, l) in lost {
        faults.lose_lanes(fabric, c, l.min(lanes(c)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_every_kind() {
        for text in ["c0-0c0s1g0l27:3", "gemini:c0-0c0s1g1", "node:c0-0c0s1n2"] {
            assert_eq!(text.parse::<Injection>().unwrap().to_string(), text);
        }
        for bad in [
            "c0-0c0s1g0l27",
            "c0-0c0s1g0l27:9",
            "c0-0c0s1g0l27:x",
            "gemini:c0",
        ] {
            assert!(bad.parse::<Injection>().is_err(), "{bad}");
        }
    }
}
