//! Incremental collision counting: only the routes of messages whose ranks moved change.

use std::sync::Arc;

use super::placement::{Move, Placement};
use crate::routing::DimensionOrder;

/// The messages and which ranks they touch: fixed for a study, shared by every case's tracker.
#[derive(Debug)]
struct Messages {
    /// `incident[incident_offsets[r]..incident_offsets[r+1]]`: messages sent or received by rank `r`.
    incident_offsets: Vec<u32>,
    incident: Vec<u32>,
    pairs: Vec<(u32, u32)>,
}

/// Route counts on every directed channel for a fixed set of rank-to-rank messages, kept
/// up to date as ranks move. The maximum is tracked through a histogram of counts, so
/// reading it costs O(1) and an update costs O(path length).
#[derive(Debug, Clone)]
pub struct CollisionTracker {
    messages: Arc<Messages>,
    load: Vec<u32>,
    histogram: Vec<u32>,
    max: u32,
    stamp: Vec<u32>,
    epoch: u32,
    pending: Vec<u32>,
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
        let mut degree = vec![0u32; ranks + 1];
        for &(a, b) in &pairs {
            degree[a as usize + 1] += 1;
            degree[b as usize + 1] += 1;
        }
        for r in 0..ranks {
            degree[r + 1] += degree[r];
        }
        let incident_offsets = degree.clone();
        let mut incident = vec![0u32; pairs.len() * 2];
        let mut cursor = degree;
        for (i, &(a, b)) in pairs.iter().enumerate() {
            for r in [a, b] {
                incident[cursor[r as usize] as usize] = i as u32;
                cursor[r as usize] += 1;
            }
        }
        let mut t = Self {
            histogram: vec![0; pairs.len() + 1],
            stamp: vec![0; pairs.len()],
            messages: Arc::new(Messages {
                incident_offsets,
                incident,
                pairs,
            }),
            load: vec![0; num_channels],
            max: 0,
            epoch: 0,
            pending: Vec::new(),
        };
        t.histogram[0] = num_channels as u32;
        for i in 0..t.messages.pairs.len() {
            t.route(routing, placement, i as u32, true);
        }
        t
    }

    /// The largest number of routes on one channel ("message collisions").
    #[inline]
    pub fn max_collisions(&self) -> u32 {
        self.max
    }

    /// Route count of every channel.
    pub fn loads(&self) -> &[u32] {
        &self.load
    }

    /// Removes the routes of every message touching a rank in `moves`, under the current
    /// placement. Call [`after_moves`](Self::after_moves) once the placement has changed.
    pub fn before_moves(
        &mut self,
        routing: &DimensionOrder,
        placement: &Placement,
        moves: &[Move],
    ) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.fill(0);
            self.epoch = 1;
        }
        self.pending.clear();
        for m in moves {
            let r = m.rank as usize;
            let m = &*self.messages;
            for k in m.incident_offsets[r]..m.incident_offsets[r + 1] {
                let msg = m.incident[k as usize];
                if self.stamp[msg as usize] != self.epoch {
                    self.stamp[msg as usize] = self.epoch;
                    self.pending.push(msg);
                }
            }
        }
        for i in 0..self.pending.len() {
            self.route(routing, placement, self.pending[i], false);
        }
    }

    /// Adds back the routes removed by [`before_moves`](Self::before_moves), under the new placement.
    pub fn after_moves(&mut self, routing: &DimensionOrder, placement: &Placement) {
        for i in 0..self.pending.len() {
            self.route(routing, placement, self.pending[i], true);
        }
    }

    fn route(&mut self, routing: &DimensionOrder, placement: &Placement, msg: u32, add: bool) {
        let (a, b) = self.messages.pairs[msg as usize];
        let (src, dst) = (placement.node_of(a), placement.node_of(b));
        let (load, histogram, max) = (&mut self.load, &mut self.histogram, &mut self.max);
        routing.for_each_hop(src, dst, |ch, _| {
            let l = &mut load[ch as usize];
            histogram[*l as usize] -= 1;
            if add {
                *l += 1;
                *max = (*max).max(*l);
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
