//! Incremental collision counting: only the routes of messages whose ranks moved change, and
//! of those only the routes that no other moved message takes over.

use std::sync::Arc;

use super::grid::Routes;
use super::placement::{Move, Placement};
use crate::routing::DimensionOrder;

/// The messages, which ranks they touch, and the routes as tables: fixed for a study, shared
/// by every case's tracker.
#[derive(Debug)]
struct Messages {
    /// `incident[incident_offsets[r]..incident_offsets[r+1]]`: messages sent or received by rank `r`.
    incident_offsets: Vec<u32>,
    incident: Vec<u32>,
    /// `sent_offsets[r]..sent_offsets[r+1]`: messages sent by rank `r` (`pairs` is sorted
    /// by sender, stably).
    sent_offsets: Vec<u32>,
    /// Whether a message is the first in the list with its `(src, dst)` pair (the one a
    /// lookup by pair finds).
    first_of_pair: Vec<bool>,
    pairs: Vec<(u32, u32)>,
    routes: Routes,
}

impl Messages {
    /// `offsets, items`: for each rank, the messages `ranks_of` names it in, in list order.
    fn by_rank(
        ranks: usize,
        pairs: &[(u32, u32)],
        ranks_of: impl Fn(&(u32, u32)) -> Vec<u32>,
    ) -> (Vec<u32>, Vec<u32>) {
        let mut offsets = vec![0u32; ranks + 1];
        for p in pairs {
            for r in ranks_of(p) {
                offsets[r as usize + 1] += 1;
            }
        }
        for r in 0..ranks {
            offsets[r + 1] += offsets[r];
        }
        let mut items = vec![0u32; offsets[ranks] as usize];
        let mut cursor = offsets.clone();
        for (i, p) in pairs.iter().enumerate() {
            for r in ranks_of(p) {
                items[cursor[r as usize] as usize] = i as u32;
                cursor[r as usize] += 1;
            }
        }
        (offsets, items)
    }

    /// The first message from rank `src` to rank `dst`, if any.
    #[inline]
    fn find(&self, src: u32, dst: u32) -> Option<u32> {
        let s = src as usize;
        (self.sent_offsets[s]..self.sent_offsets[s + 1]).find(|&m| self.pairs[m as usize].1 == dst)
    }
}

/// Mark of a listed message whose old route another's new route takes over.
const OLD_KEPT: u32 = 1;
/// Mark of a listed message whose new route is another's old route.
const NEW_KEPT: u32 = 2;

/// A message whose route is being changed: its index and the nodes of its ends before the moves.
#[derive(Debug, Clone, Copy)]
struct Pending {
    msg: u32,
    src: u32,
    dst: u32,
}

/// Route counts on every directed channel for a fixed set of rank-to-rank messages, kept
/// up to date as ranks move. The maximum is tracked through a histogram of counts, so
/// reading it costs O(1) and an update costs O(path length).
///
/// When a batch of moves makes message `k` run between exactly the nodes message `m` ran
/// between before (a slide shifts a whole row of ranks one step: each message inside the row
/// takes over the route of the message one step ahead), `m`'s old route and `k`'s new one
/// are the same channels, so neither is walked: a slide costs its rows' ends, not their
/// lengths.
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
    /// Per message: `epoch << 2` of the batch it was last listed in `pending`, plus
    /// [`OLD_KEPT`] when its old route was taken over by another's new one in that batch and
    /// [`NEW_KEPT`] when its new route is another's old one.
    marks: Vec<u32>,
    /// The current batch, below `1 << 30`.
    epoch: u32,
    pending: Vec<Pending>,
}

impl CollisionTracker {
    /// Counts the routes of `pairs` (`(src_rank, dst_rank)`) under `placement`.
    pub fn new(
        routing: &DimensionOrder,
        num_channels: usize,
        mut pairs: Vec<(u32, u32)>,
        placement: &Placement,
    ) -> Self {
        let ranks = placement.num_ranks();
        pairs.sort_by_key(|&(a, _)| a);
        let (incident_offsets, incident) =
            Messages::by_rank(
                ranks,
                &pairs,
                |&(a, b)| {
                    if a == b {
                        vec![a]
                    } else {
                        vec![a, b]
                    }
                },
            );
        let (sent_offsets, _) = Messages::by_rank(ranks, &pairs, |&(a, _)| vec![a]);
        let mut first_of_pair = vec![false; pairs.len()];
        for r in 0..ranks {
            let (from, to) = (sent_offsets[r] as usize, sent_offsets[r + 1] as usize);
            for m in from..to {
                first_of_pair[m] = pairs[from..m].iter().all(|o| o.1 != pairs[m].1);
            }
        }
        let n = pairs.len();
        let routes = Routes::new(routing);
        let slots = routes.num_slots();
        let mut t = Self {
            messages: Arc::new(Messages {
                incident_offsets,
                incident,
                sent_offsets,
                first_of_pair,
                pairs,
                routes,
            }),
            num_channels,
            load: vec![0; slots],
            histogram: vec![slots as u32],
            max: 0,
            marks: vec![0; n],
            epoch: 0,
            pending: Vec::new(),
        };
        let messages = Arc::clone(&t.messages);
        for &(a, b) in &messages.pairs {
            t.route(placement.node_of(a), placement.node_of(b), true);
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

    /// Lists the messages touching a rank in `moves` and where their ends are under the
    /// current placement. Call [`after_moves`](Self::after_moves) once the placement has
    /// changed (by these moves or by reverting them).
    pub fn before_moves(
        &mut self,
        _routing: &DimensionOrder,
        placement: &Placement,
        moves: &[Move],
    ) {
        self.epoch += 1;
        if self.epoch == 1 << 30 {
            self.marks.fill(0);
            self.epoch = 1;
        }
        self.pending.clear();
        let m = &*self.messages;
        let listed = self.epoch << 2;
        for mv in moves {
            let r = mv.rank as usize;
            for k in m.incident_offsets[r]..m.incident_offsets[r + 1] {
                let msg = m.incident[k as usize];
                if self.marks[msg as usize] & !3 != listed {
                    self.marks[msg as usize] = listed;
                    let (a, b) = m.pairs[msg as usize];
                    self.pending.push(Pending {
                        msg,
                        src: placement.node_of(a),
                        dst: placement.node_of(b),
                    });
                }
            }
        }
    }

    /// Moves the routes of the messages listed by [`before_moves`](Self::before_moves) to
    /// where their ends are under the new placement.
    pub fn after_moves(&mut self, _routing: &DimensionOrder, placement: &Placement) {
        let messages = Arc::clone(&self.messages);
        let m = &*messages;
        let listed = self.epoch << 2;
        // Pair each old route with a listed message that now runs between the same nodes.
        for p in &self.pending {
            if !m.first_of_pair[p.msg as usize] {
                continue;
            }
            let (x, y) = (placement.state(p.src), placement.state(p.dst));
            if (x as usize) < placement.num_ranks() && (y as usize) < placement.num_ranks() {
                if let Some(k) = m.find(x, y) {
                    if self.marks[k as usize] & !3 == listed {
                        self.marks[p.msg as usize] |= OLD_KEPT;
                        self.marks[k as usize] |= NEW_KEPT;
                    }
                }
            }
        }
        let pending = std::mem::take(&mut self.pending);
        for p in &pending {
            if self.marks[p.msg as usize] & OLD_KEPT == 0 {
                self.route(p.src, p.dst, false);
            }
        }
        for p in &pending {
            if self.marks[p.msg as usize] & NEW_KEPT == 0 {
                let (a, b) = m.pairs[p.msg as usize];
                self.route(placement.node_of(a), placement.node_of(b), true);
            }
        }
        self.pending = pending;
    }

    /// Adds (or removes) one route from node `src` to node `dst`.
    fn route(&mut self, src: u32, dst: u32, add: bool) {
        let (load, histogram, max) = (&mut self.load, &mut self.histogram, &mut self.max);
        self.messages.routes.for_each_hop(src, dst, |slot| {
            let l = &mut load[slot];
            histogram[*l as usize] -= 1;
            if add {
                *l += 1;
                if *l > *max {
                    *max = *l;
                    if histogram.len() <= *l as usize {
                        histogram.push(0);
                    }
                }
            } else {
                *l -= 1;
            }
            histogram[*l as usize] += 1;
        });
        while *max > 0 && histogram[*max as usize] == 0 {
            *max -= 1;
        }
    }
}
