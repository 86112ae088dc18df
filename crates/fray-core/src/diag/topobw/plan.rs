//! The phases of TopoBW: who sends to whom, and over which kind of cable.
//!
//! For each dimension in turn (the paper's Figure 5): Geminis at even coordinates send up to
//! their odd neighbours, then odd ones send down to even ones; then odd ones send up to even
//! ones and even ones down to odd ones. Along a ring of odd length the last and first
//! Geminis then send to each other, up then down. In every phase the senders and receivers
//! are different Geminis, so no Gemini sends and receives at once; along a ring of two, which
//! has one link, the first two phases test it both ways. In a phase every rank of a sending
//! Gemini sends to the rank on the same node position of the receiving Gemini; a transfer is
//! *shared* when its sender's partner (the other node of its Gemini) sends in the same phase.
//!
//! [`Sharing`] says whether partners send together, one at a time, or both in turn: a slow
//! node hides behind a shared cable (two partners get half of it each), so the exclusive
//! transfers are what show it.

use super::Layout;
use crate::fabric::gemini::{Gemini, GEMINI_CLASSES, NODES_PER_GEMINI};
use crate::fabric::{Direction, Fabric, RouterId};

/// One transfer of a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transfer {
    /// Sending rank.
    pub src: u32,
    /// Receiving rank.
    pub dst: u32,
    /// The cable type letter of the link crossed: `C` cable, `B` backplane, `M` mezzanine.
    pub cable: char,
    /// Whether the sender's partner node sends in the same phase.
    pub shared: bool,
}

/// One phase: transfers along one dimension in one direction, all at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phase {
    /// Dimension, 0 = X, 1 = Y, 2 = Z.
    pub dim: usize,
    /// Direction of the transfers.
    pub dir: Direction,
    /// The transfers.
    pub transfers: Vec<Transfer>,
}

/// How the two nodes of a Gemini take part in a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharing {
    /// Each node position alone (`E` lines): a phase runs once per node position.
    Exclusive,
    /// Both nodes at once (`S` lines where both nodes of the Gemini are in the run).
    Shared,
    /// Each node alone, then both at once (the default).
    Both,
}

impl std::str::FromStr for Sharing {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "exclusive" => Ok(Self::Exclusive),
            "shared" => Ok(Self::Shared),
            "both" => Ok(Self::Both),
            _ => Err(format!("sharing {s:?}: expected exclusive, shared or both")),
        }
    }
}

/// Every phase of a TopoBW run, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The phases in the order they run.
    pub phases: Vec<Phase>,
}

/// The sending Geminis' coordinate parity and direction of each phase along a ring of `n`;
/// `None` parity stands for the wrap pair of an odd ring (the last Gemini up, the first down).
fn phase_kinds(n: usize) -> Vec<(Option<usize>, Direction)> {
    use Direction::{Down, Up};
    match n {
        0 | 1 => vec![],
        2 => vec![(Some(0), Up), (Some(1), Down)],
        _ => {
            let mut k = vec![
                (Some(0), Up),
                (Some(1), Down),
                (Some(1), Up),
                (Some(0), Down),
            ];
            if n % 2 == 1 {
                k.extend([(None, Up), (None, Down)]);
            }
            k
        }
    }
}

/// Whether Gemini coordinate `c` on a ring of `n` sends in a phase of this kind.
fn sends(c: usize, n: usize, parity: Option<usize>, dir: Direction) -> bool {
    let odd_ring = n % 2 == 1 && n > 2;
    match (parity, dir) {
        (None, Direction::Up) => c == n - 1,
        (None, Direction::Down) => c == 0,
        // The wrap pair of an odd ring goes in its own phases.
        (Some(p), Direction::Up) => c % 2 == p && !(odd_ring && c == n - 1),
        (Some(p), Direction::Down) => c % 2 == p && !(odd_ring && c == 0),
    }
}

impl Plan {
    /// The phases of TopoBW for the ranks of `layout` on `fabric` (built by
    /// `layout.gemini.fabric`).
    pub fn new(layout: &Layout, fabric: &Fabric, sharing: Sharing) -> Self {
        let g: &Gemini = &layout.gemini;
        let t = g.torus();
        let mut rank_of = vec![u32::MAX; fabric.num_endpoints()];
        for (r, &e) in layout.endpoints.iter().enumerate() {
            rank_of[e as usize] = r as u32;
        }
        let rank = |router: RouterId, k: usize| {
            let r = rank_of[router as usize * NODES_PER_GEMINI + k];
            (r != u32::MAX).then_some(r)
        };
        let mut phases = Vec::new();
        for dim in 0..3 {
            let n = t.dims()[dim];
            for (parity, dir) in phase_kinds(n) {
                // (sending rank, receiving rank, node position, cable) of every pair.
                let mut pairs: Vec<(u32, u32, usize, char)> = Vec::new();
                for s in 0..g.num_geminis() as RouterId {
                    if !sends(t.coord(s, dim), n, parity, dir) {
                        continue;
                    }
                    let other = match dir {
                        Direction::Up => Direction::Down,
                        Direction::Down => Direction::Up,
                    };
                    let Some(d) = t
                        .neighbor(s, dim, dir)
                        .or_else(|| t.neighbor(s, dim, other))
                    else {
                        continue;
                    };
                    let ch = fabric.channel_between(s, d).expect("torus link");
                    let class =
                        &fabric.class_names()[fabric.channels().class[ch as usize] as usize];
                    let cable = GEMINI_CLASSES
                        .iter()
                        .find(|c| c.name == class)
                        .map_or('?', |c| c.letter);
                    pairs.extend(
                        (0..NODES_PER_GEMINI)
                            .filter_map(|k| Some((rank(s, k)?, rank(d, k)?, k, cable))),
                    );
                }
                let mut push = |transfers: Vec<Transfer>| {
                    if !transfers.is_empty() {
                        phases.push(Phase {
                            dim,
                            dir,
                            transfers,
                        });
                    }
                };
                if sharing != Sharing::Shared {
                    for k in 0..NODES_PER_GEMINI {
                        push(
                            pairs
                                .iter()
                                .filter(|p| p.2 == k)
                                .map(|&(src, dst, _, cable)| Transfer {
                                    src,
                                    dst,
                                    cable,
                                    shared: false,
                                })
                                .collect(),
                        );
                    }
                }
                let partnered = |src: u32| {
                    let gem = layout.endpoints[src as usize] / NODES_PER_GEMINI as u32;
                    pairs
                        .iter()
                        .filter(|p| layout.endpoints[p.0 as usize] / NODES_PER_GEMINI as u32 == gem)
                        .count()
                        > 1
                };
                let any_partnered = pairs.iter().any(|p| partnered(p.0));
                if sharing == Sharing::Shared || (sharing == Sharing::Both && any_partnered) {
                    push(
                        pairs
                            .iter()
                            .map(|&(src, dst, _, cable)| Transfer {
                                src,
                                dst,
                                cable,
                                shared: partnered(src),
                            })
                            .collect(),
                    );
                }
            }
        }
        Self { phases }
    }

    /// Number of transfers over all phases.
    pub fn num_transfers(&self) -> usize {
        self.phases.iter().map(|p| p.transfers.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(spec: &str, ranks: usize, sharing: Sharing) -> (Layout, Plan) {
        let l = Layout::parse(spec, None, ranks).unwrap();
        let f = l.gemini.fabric(1e-7).unwrap();
        let p = Plan::new(&l, &f, sharing);
        (l, p)
    }

    #[test]
    fn no_gemini_sends_and_receives_at_once_and_every_link_is_tested_both_ways() {
        for (spec, ranks) in [
            ("builtin:3x2x5", 30),
            ("builtin:4x4x4", 128),
            ("builtin:2x2x1", 4),
        ] {
            let (l, p) = plan(spec, ranks, Sharing::Both);
            let gem = |r: u32| l.endpoints[r as usize] / 2;
            let mut tested = std::collections::HashSet::new();
            for phase in &p.phases {
                let senders: std::collections::HashSet<u32> =
                    phase.transfers.iter().map(|t| gem(t.src)).collect();
                assert!(phase
                    .transfers
                    .iter()
                    .all(|t| !senders.contains(&gem(t.dst))));
                for t in &phase.transfers {
                    tested.insert((gem(t.src), gem(t.dst)));
                }
            }
            let f = l.gemini.fabric(1e-7).unwrap();
            assert_eq!(tested.len(), f.num_router_channels(), "{spec}");
        }
    }

    #[test]
    fn partners_share() {
        let all = |p: &Plan, shared: bool| {
            p.phases
                .iter()
                .flat_map(|p| &p.transfers)
                .all(|t| t.shared == shared)
        };
        let (_, p) = plan("builtin:2x2x1", 8, Sharing::Shared);
        assert!(all(&p, true));
        let (_, p) = plan("builtin:2x2x1", 8, Sharing::Exclusive);
        assert!(all(&p, false));
        assert_eq!(p.phases.len(), 8);
        // Each node alone, then both: one run per node position plus one shared.
        let (_, p) = plan("builtin:2x2x1", 8, Sharing::Both);
        assert_eq!(p.num_transfers(), 32);
        // One node per Gemini: nothing to share, no phase twice.
        let (_, p) = plan("builtin:2x2x1", 4, Sharing::Both);
        assert!(all(&p, false));
        assert_eq!(p.num_transfers(), 8);
    }
}
