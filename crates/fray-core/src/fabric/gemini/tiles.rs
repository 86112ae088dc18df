//! Gemini tiles (`c0-0c1s0g0l27`) and lane masks.
//!
//! A Gemini router is a 6 x 8 array of tiles; tile `lRC` sits in row `R`, column `C`. Forty
//! network tiles each carry one link of [`TILE_LANES`] lanes towards one direction (the
//! paper's Figure 3); eight processor tiles (`P`) serve the nodes. A lane mask has one bit per
//! lane: 7 is healthy, 3, 5 and 6 have one lane down, 1, 2 and 4 two, 0 all three.

use std::fmt;
use std::str::FromStr;

use super::names::{parse_index, parse_module};
use super::{GeminiName, GEMINIS_PER_MODULE};
use crate::fabric::{Direction, FabricError};

/// Lanes of one tile's link.
pub const TILE_LANES: u16 = 3;

/// Rows of the tile array.
pub const TILE_ROWS: usize = 6;
/// Columns of the tile array.
pub const TILE_COLUMNS: usize = 8;

/// What each tile serves (Figure 3): `Some((dimension, direction))`, or `None` for a
/// processor tile.
const TILE_PORTS: [[&str; TILE_COLUMNS]; TILE_ROWS] = [
    ["Z+", "Z+", "X-", "X-", "X+", "X+", "Z-", "Z-"],
    ["Z+", "Z+", "X-", "X-", "X+", "X+", "Z-", "Z-"],
    ["Z-", "Z-", "Z-", "P", "P", "Z+", "Z+", "Z+"],
    ["X-", "X-", "Z-", "P", "P", "Z+", "X+", "X+"],
    ["X-", "X-", "Y-", "P", "P", "Y+", "X+", "X+"],
    ["Y-", "Y-", "Y-", "P", "P", "Y+", "Y+", "Y+"],
];

/// One tile of one Gemini.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tile {
    /// The Gemini.
    pub gemini: GeminiName,
    /// Row in the tile array, 0 to 5.
    pub row: usize,
    /// Column in the tile array, 0 to 7.
    pub col: usize,
}

impl Tile {
    /// The dimension (0 = X, 1 = Y, 2 = Z) and direction the tile's link goes, or `None` for
    /// a processor tile.
    pub fn port(&self) -> Option<(usize, Direction)> {
        let p = TILE_PORTS[self.row][self.col].as_bytes();
        if p[0] == b'P' {
            return None;
        }
        let dim = usize::from(p[0] - b'X');
        let dir = if p[1] == b'+' {
            Direction::Up
        } else {
            Direction::Down
        };
        Some((dim, dir))
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}l{}{}", self.gemini, self.row, self.col)
    }
}

impl FromStr for Tile {
    type Err = FabricError;

    /// Reads `c0-0c1s0g0l27`, and the same name as the paper's text prints it, with the
    /// letter `l` read as the digit `1` (`c0-0c1s0g0127`).
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let bad = |reason: String| FabricError::Name {
            name: name.to_string(),
            reason,
        };
        let (module, rest) = parse_module(name, name.trim())?;
        let (gemini, rest) = parse_index(name, rest, 'g', "Gemini", GEMINIS_PER_MODULE)?;
        let digits = rest
            .strip_prefix('l')
            .or_else(|| rest.strip_prefix('1').filter(|d| d.len() == 2))
            .ok_or_else(|| bad("expected the tile, e.g. l27".into()))?;
        let rc: Vec<usize> = digits
            .chars()
            .map(|c| c.to_digit(10).map(|d| d as usize))
            .collect::<Option<_>>()
            .filter(|v: &Vec<usize>| v.len() == 2)
            .ok_or_else(|| {
                bad(format!(
                    "tile {digits:?}: expected two digits, row and column"
                ))
            })?;
        if rc[0] >= TILE_ROWS || rc[1] >= TILE_COLUMNS {
            return Err(bad(format!(
                "tile l{digits}: rows are 0 to {}, columns 0 to {}",
                TILE_ROWS - 1,
                TILE_COLUMNS - 1
            )));
        }
        Ok(Self {
            gemini: GeminiName { module, gemini },
            row: rc[0],
            col: rc[1],
        })
    }
}

/// A tile's lane mask: one bit per lane, 7 with every lane up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LaneMask(u8);

impl LaneMask {
    /// Every lane up.
    pub const HEALTHY: LaneMask = LaneMask(7);

    /// The mask `bits` (0 to 7), or an error naming it.
    pub fn new(bits: u32) -> Result<Self, FabricError> {
        if bits > 7 {
            return Err(FabricError::Name {
                name: bits.to_string(),
                reason: "a lane mask is 0 to 7 (three lanes)".into(),
            });
        }
        Ok(Self(bits as u8))
    }

    /// The mask's bits.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// Lanes up (set bits).
    pub fn lanes_up(self) -> u16 {
        self.0.count_ones() as u16
    }

    /// Lanes down (clear bits).
    pub fn lanes_lost(self) -> u16 {
        TILE_LANES - self.lanes_up()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure_three_has_eight_tiles_per_x_z_direction_and_four_per_y() {
        let mut count = std::collections::HashMap::new();
        for row in 0..TILE_ROWS {
            for col in 0..TILE_COLUMNS {
                let t: Tile = format!("c0-0c0s0g0l{row}{col}").parse().unwrap();
                *count.entry(t.port()).or_insert(0) += 1;
            }
        }
        assert_eq!(count[&None], 8);
        for d in 0..3 {
            let want = if d == 1 { 4 } else { 8 };
            assert_eq!(count[&Some((d, Direction::Up))], want);
            assert_eq!(count[&Some((d, Direction::Down))], want);
        }
    }

    #[test]
    fn reads_the_papers_misprint() {
        let a: Tile = "c0-0c1s0g0127".parse().unwrap();
        let b: Tile = "c0-0c1s0g0l27".parse().unwrap();
        assert_eq!(a, b);
        assert_eq!(a.port(), Some((2, Direction::Up)));
        assert_eq!(b.to_string(), "c0-0c1s0g0l27");
        assert!("c0-0c1s0g0l67".parse::<Tile>().is_err());
        assert!("c0-0c1s0g0l2".parse::<Tile>().is_err());
    }

    #[test]
    fn masks_count_lanes() {
        let lost: Vec<u16> = (0..8)
            .map(|b| LaneMask::new(b).unwrap().lanes_lost())
            .collect();
        assert_eq!(lost, [3, 2, 2, 1, 2, 1, 1, 0]);
        assert!(LaneMask::new(8).is_err());
    }
}
