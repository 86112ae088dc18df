//! Incremental collision counting: only the routes of messages whose ranks moved change, and
//! of those only the hops that differ between the old and the new route.

use std::sync::Arc;

use super::grid::{Routes, NOT_DISPLACED, NO_SLOT};
use super::placement::{Move, Placement};
use crate::routing::DimensionOrder;

/// The messages, by sender and by receiver, and the routes as tables: fixed for a study,
/// shared by every case's tracker.
#[derive(Debug)]
struct Messages {
    /// `sent[sent_offsets[r]..sent_offsets[r+1]]`: the receivers of the messages rank `r` sends.
    sent_offsets: Vec<u32>,
    sent: Vec<u32>,
    /// `received[received_offsets[r]..received_offsets[r+1]]`: the senders of the messages
    /// rank `r` receives.
    received_offsets: Vec<u32>,
    received: Vec<u32>,
    /// Beside `sent` and `received`: the output port of the message's route under the
    /// initial placement when that route is one hop, else `NO_PORT` (a hint for
    /// [`Routes::one_hop_step_change`], which checks it).
    sent_port: Vec<u8>,
    received_port: Vec<u8>,
    routes: Routes,
}

/// For each rank, the `other` end of the messages whose `key` end it is: `(offsets, items)`.
fn by_rank(
    ranks: usize,
    pairs: &[(u32, u32)],
    key: impl Fn(&(u32, u32)) -> (u32, u32),
) -> (Vec<u32>, Vec<u32>) {
    let mut offsets = vec![0u32; ranks + 1];
    for p in pairs {
        offsets[key(p).0 as usize + 1] += 1;
    }
    for r in 0..ranks {
        offsets[r + 1] += offsets[r];
    }
    let mut items = vec![0u32; pairs.len()];
    let mut cursor = offsets.clone();
    for p in pairs {
        let (r, other) = key(p);
        items[cursor[r as usize] as usize] = other;
        cursor[r as usize] += 1;
    }
    (offsets, items)
}

/// `before` entry of a rank that did not move in the current batch.
const NOT_MOVED: u32 = u32::MAX;

/// Route counts on every directed channel for a fixed set of rank-to-rank messages, kept
/// up to date as ranks move. The maximum is tracked through a histogram of counts, so
/// reading it costs O(1).
///
/// A batch of moves changes the messages with a moved end, and each of those only by the
/// hops its old and new routes do not share ([`Routes::for_each_change`]): when a slide
/// shifts a row of ranks one step, a message along the row gains one hop at one end and
/// loses one at the other, and a message across it gains or loses the hop at its moved end.
/// In a slide, a route that was one hop when the tracker was made and still is takes a
/// fixed pattern ([`Routes::one_hop_step_change`]); one that has at most one hop along every
/// dimension has its shape read off its ends' displacements ([`Routes::short_shape`]) and
/// changes segment by segment; the others take the general difference.
#[derive(Debug, Clone)]
pub struct CollisionTracker {
    messages: Arc<Messages>,
    /// Number of channels of the fabric.
    num_channels: usize,
    /// Route count of every output slot (see [`Routes`]).
    load: Vec<u32>,
    /// `histogram[c]`: channels carrying `c` routes; grows with the maximum.
    histogram: Vec<u32>,
    max: u32,
    /// Per rank: its node before the batch being counted, or [`NOT_MOVED`] (outside a
    /// batch, every entry).
    before: Vec<u32>,
    /// Per rank: how far it is from where it was when the tracker was made
    /// ([`Routes::displacement`]), so that a message's route shape follows from its ends'
    /// displacements and its one-hop port then ([`Routes::short_shape`]).
    displaced: Vec<u64>,
}

impl CollisionTracker {
    /// Counts the routes of `pairs` (`(src_rank, dst_rank)`) under `placement`.
    pub fn new(
        routing: &DimensionOrder,
        num_channels: usize,
        pairs: Vec<(u32, u32)>,
        placement: &Placement,
    ) -> Self {
        let ranks = placement.num_ranks();
        let (sent_offsets, sent) = by_rank(ranks, &pairs, |&(a, b)| (a, b));
        let (received_offsets, received) = by_rank(ranks, &pairs, |&(a, b)| (b, a));
        let routes = Routes::new(routing);
        let slots = routes.num_slots();
        let port_of = |offsets: &[u32], others: &[u32], sends: bool| {
            (0..ranks)
                .flat_map(|r| {
                    let node = placement.node_of(r as u32);
                    let range = offsets[r] as usize..offsets[r + 1] as usize;
                    let routes = &routes;
                    others[range].iter().map(move |&o| {
                        let other = placement.node_of(o);
                        if sends {
                            routes.one_hop_port(node, other)
                        } else {
                            routes.one_hop_port(other, node)
                        }
                    })
                })
                .collect::<Vec<u8>>()
        };
        let sent_port = port_of(&sent_offsets, &sent, true);
        let received_port = port_of(&received_offsets, &received, false);
        let mut t = Self {
            messages: Arc::new(Messages {
                sent_offsets,
                sent,
                received_offsets,
                received,
                sent_port,
                received_port,
                routes,
            }),
            num_channels,
            load: vec![0; slots],
            histogram: vec![slots as u32],
            max: 0,
            before: vec![NOT_MOVED; ranks],
            displaced: vec![NOT_DISPLACED; ranks],
        };
        let messages = Arc::clone(&t.messages);
        for &(a, b) in &pairs {
            messages
                .routes
                .for_each_hop(placement.node_of(a), placement.node_of(b), |slot| {
                    t.count(slot, true)
                });
        }
        t
    }

    /// Makes this tracker count what `other` counts (both built for the same messages),
    /// reusing this one's memory.
    pub fn reset_to(&mut self, other: &Self) {
        debug_assert!(Arc::ptr_eq(&self.messages, &other.messages));
        self.load.copy_from_slice(&other.load);
        self.histogram.clone_from(&other.histogram);
        self.max = other.max;
        self.displaced.copy_from_slice(&other.displaced);
    }

    /// The largest number of routes on one channel ("message collisions").
    #[inline]
    pub fn max_collisions(&self) -> u32 {
        self.max
    }

    /// Route count of every channel, indexed by channel.
    pub fn loads(&self) -> Vec<u32> {
        let mut out = vec![0; self.num_channels];
        for (slot, &l) in self.load.iter().enumerate() {
            if let Some(ch) = self.messages.routes.channel(slot) {
                out[ch as usize] = l;
            }
        }
        out
    }

    /// Recounts after `moves` were applied to `placement` (which is now after them).
    pub fn after_apply(&mut self, placement: &Placement, moves: &[Move]) {
        self.recount(placement, moves, |m| m.from);
    }

    /// Recounts after `moves` were reverted on `placement` (which is now before them).
    pub fn after_revert(&mut self, placement: &Placement, moves: &[Move]) {
        self.recount(placement, moves, |m| m.to);
    }

    /// Moves the routes of every message with an end in `moves` from where its ends were
    /// (`was(move)` for a moved rank) to where `placement` has them now.
    fn recount(&mut self, placement: &Placement, moves: &[Move], was: impl Fn(&Move) -> u32) {
        for mv in moves {
            debug_assert_eq!(
                self.before[mv.rank as usize], NOT_MOVED,
                "a rank moves once"
            );
            self.before[mv.rank as usize] = was(mv);
        }
        let messages = Arc::clone(&self.messages);
        let m = &*messages;
        // A slide moves every rank by the same step: then each route changes by where its
        // moving ends are, without comparing old and new coordinates.
        let step = moves.first().and_then(|mv| {
            let step = m.routes.step(was(mv), placement.node_of(mv.rank))?;
            let k = i64::from(placement.node_of(mv.rank)) - i64::from(was(mv));
            moves
                .iter()
                .all(|mv| {
                    i64::from(placement.node_of(mv.rank)) - i64::from(was(mv)) == k
                        && m.routes.step(was(mv), placement.node_of(mv.rank)) == Some(step)
                })
                .then_some(step)
        });
        for mv in moves {
            let r = mv.rank as usize;
            let (old, new) = (self.before[r], placement.node_of(mv.rank));
            let r_displaced = self.displaced[r];
            // Every message it sends, and those it receives from ranks that stayed (a moved
            // sender counts its own).
            let sent = m.sent_offsets[r] as usize..m.sent_offsets[r + 1] as usize;
            for (&b, &port) in m.sent[sent.clone()].iter().zip(&m.sent_port[sent]) {
                let b_new = placement.node_of(b);
                let b_moved = self.before[b as usize] != NOT_MOVED;
                let b_old = if b_moved {
                    self.before[b as usize]
                } else {
                    b_new
                };
                let count = |slot, added| self.count(slot, added);
                match step {
                    Some(step) => {
                        let ends = (old, b_old);
                        let moves = (true, b_moved);
                        match m.routes.one_hop_step_change(ends, port, moves, step) {
                            Some(change) => self.count_pattern(change),
                            None => {
                                let to = self.displaced[b as usize];
                                let count = |slot, added| self.count(slot, added);
                                match m.routes.short_shape(port, r_displaced, to) {
                                    Some(shape) => m
                                        .routes
                                        .for_each_short_step_change(old, shape, moves, step, count),
                                    None => m.routes.for_each_step_change(ends, moves, step, count),
                                }
                            }
                        }
                    }
                    None => m.routes.for_each_change((old, b_old), (new, b_new), count),
                }
            }
            let received = m.received_offsets[r] as usize..m.received_offsets[r + 1] as usize;
            for (&a, &port) in m.received[received.clone()]
                .iter()
                .zip(&m.received_port[received])
            {
                if self.before[a as usize] == NOT_MOVED {
                    let a_node = placement.node_of(a);
                    let count = |slot, added| self.count(slot, added);
                    match step {
                        Some(step) => {
                            let (ends, moves) = ((a_node, old), (false, true));
                            match m.routes.one_hop_step_change(ends, port, moves, step) {
                                Some(change) => self.count_pattern(change),
                                None => {
                                    let from = self.displaced[a as usize];
                                    let count = |slot, added| self.count(slot, added);
                                    match m.routes.short_shape(port, from, r_displaced) {
                                        Some(shape) => m.routes.for_each_short_step_change(
                                            a_node, shape, moves, step, count,
                                        ),
                                        None => {
                                            m.routes.for_each_step_change(ends, moves, step, count)
                                        }
                                    }
                                }
                            }
                        }
                        None => m
                            .routes
                            .for_each_change((a_node, old), (a_node, new), count),
                    }
                }
            }
        }
        for mv in moves {
            let r = mv.rank as usize;
            let shift = m
                .routes
                .displacement(self.before[r], placement.node_of(mv.rank));
            self.displaced[r] = self.displaced[r].wrapping_add(shift);
            self.before[r] = NOT_MOVED;
        }
        while self.max > 0 && self.histogram[self.max as usize] == 0 {
            self.max -= 1;
        }
    }

    /// Counts a pattern of [`Routes::one_hop_step_change`]: the slot lost, those gained.
    #[inline(always)]
    fn count_pattern(&mut self, (lost, gained): (usize, [usize; 2])) {
        if lost != NO_SLOT {
            self.count(lost, false);
        }
        for slot in gained {
            if slot != NO_SLOT {
                self.count(slot, true);
            }
        }
    }

    /// Adds (or removes) one route on output `slot`; the maximum may be left too high after
    /// a removal (the caller lowers it once the batch is counted).
    #[inline]
    fn count(&mut self, slot: usize, add: bool) {
        let l = &mut self.load[slot];
        self.histogram[*l as usize] -= 1;
        if add {
            *l += 1;
            if *l > self.max {
                self.max = *l;
                if self.histogram.len() <= *l as usize {
                    self.histogram.push(0);
                }
            }
        } else {
            *l -= 1;
        }
        self.histogram[*l as usize] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::{Cartesian, Fabric, LinkParameters};
    use crate::spares::grid::NO_PORT;
    use crate::spares::{Method, SpareAllocation, Substituter};
    use crate::workload::{Stencil, StencilKind};
    use proptest::prelude::*;

    /// The same tracker with no one-hop hint (so no short shape either): every route changes
    /// through the general difference of [`Routes`].
    fn without_hints(t: &CollisionTracker, routing: &DimensionOrder) -> CollisionTracker {
        let m = &t.messages;
        let mut plain = t.clone();
        plain.messages = Arc::new(Messages {
            sent_offsets: m.sent_offsets.clone(),
            sent: m.sent.clone(),
            received_offsets: m.received_offsets.clone(),
            received: m.received.clone(),
            sent_port: vec![NO_PORT; m.sent.len()],
            received_port: vec![NO_PORT; m.received.len()],
            routes: Routes::new(routing),
        });
        plain
    }

    const METHODS: [&str; 4] = ["hybrid(all)", "1D", "2D", "0D"];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// After every substitution (and every undo), the tracker with one-hop patterns and
        /// short shapes from displacements counts exactly what the route-by-route difference
        /// counts, on small meshes and tori (dimensions of two to four nodes included, where
        /// the patterns or the shapes must stand aside).
        #[test]
        fn hinted_changes_count_as_route_differences(
            dims in prop::collection::vec(2usize..7, 2..4),
            wrap in any::<bool>(),
            sides in 1usize..3,
            method in 0usize..METHODS.len(),
            full in any::<bool>(),
            picks in prop::collection::vec((any::<u32>(), any::<bool>()), 1..40),
        ) {
            let q = dims.len();
            let shape = Cartesian::new(dims, vec![wrap; q]);
            let alloc = SpareAllocation { dims: q, sides: sides.min(q), thickness: 1 };
            prop_assume!(alloc.check_fits(&shape).is_ok());
            let kind = match (q, full) {
                (2, false) => StencilKind::FiveP,
                (2, true) => StencilKind::NineP,
                (_, false) => StencilKind::SevenP,
                (_, true) => StencilKind::TwentySevenP,
            };
            let stencil = Stencil { kind, periodic: wrap };
            let fabric = Fabric::cartesian(shape.clone(), LinkParameters::default()).unwrap();
            let routing = DimensionOrder::new(&fabric).unwrap();
            let mut placement = Placement::initial(&shape, &alloc);
            let pairs = stencil.pairs(&alloc.compute_extents(&shape)).unwrap();
            let channels = fabric.num_router_channels();
            let mut fast = CollisionTracker::new(&routing, channels, pairs, &placement);
            let mut plain = without_hints(&fast, &routing);
            let mut substituter =
                Substituter::new(shape.clone(), alloc, Method::parse(METHODS[method], q).unwrap());
            let ranks = placement.num_ranks() as u32;
            let mut failed = Vec::new();
            for (pick, undo) in picks.into_iter().take(alloc.num_spares(&shape)) {
                let rank = pick % ranks;
                if failed.contains(&rank) {
                    continue;
                }
                let node = placement.fail_rank(rank);
                let Some(sub) = substituter.substitute(&placement, rank) else {
                    placement.repair(node, rank);
                    break;
                };
                placement.apply(&sub.moves);
                fast.after_apply(&placement, &sub.moves);
                plain.after_apply(&placement, &sub.moves);
                prop_assert_eq!(fast.loads(), plain.loads());
                prop_assert_eq!(fast.max_collisions(), plain.max_collisions());
                if undo {
                    placement.revert(&sub.moves);
                    fast.after_revert(&placement, &sub.moves);
                    plain.after_revert(&placement, &sub.moves);
                    placement.repair(node, rank);
                    substituter.forget(&sub);
                    prop_assert_eq!(fast.loads(), plain.loads());
                    prop_assert_eq!(fast.max_collisions(), plain.max_collisions());
                } else {
                    failed.push(rank);
                }
            }
        }
    }
}
