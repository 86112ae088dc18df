//! The queue of posted receives that a rank's MPI searches when a message arrives, as SST
//! Firefly's `ctrlMsg` does: the receives in the order the rank posted them, searched from
//! the front, each entry examined costing a match delay (`matchDelay_ns`), the matched
//! entry removed. How many entries an arrival examines depends on the order messages
//! arrive in, so a network that reorders them costs the receivers' cores more.
//!
//! The posting order is that of Ember's Halo3D26 and stencil motifs, which post a round's
//! receives in the order they send to the same peers (Halo3D26: faces x down to z up, then
//! edges, then corners), before the receives of peers they do not send to (in the order the
//! DAG lists those messages). Sweep3D's and LQCD's Ember motifs post theirs one kind at a
//! time; for them the same rule is an approximation. A round (an epoch) is what a rank
//! does between two of its computes; every receive of a round is taken as posted when the
//! round begins, so a message of the next round that arrives early is searched for behind
//! every receive still unmatched in this one (in Firefly it would walk those and wait in
//! the unexpected queue, which costs about the same).

use super::{Job, Op};

/// Every rank's posted receives (of several jobs, job 0's ranks first), with which are
/// matched.
#[derive(Debug, Clone, Default)]
pub struct PostedReceives {
    /// Place of each global operation in the flat queue (`u32::MAX` for an operation no
    /// receive matches), operations numbered as [`super::JobsProgress`] numbers them.
    place: Vec<u32>,
    /// Whether each entry of the flat queue has been matched.
    matched: Vec<bool>,
    /// Per global rank: its first entry not yet matched, and one past its last entry.
    head: Vec<u32>,
    end: Vec<u32>,
}

impl PostedReceives {
    /// The queues of every rank of `jobs`, nothing matched.
    pub fn new(jobs: &[Job]) -> Self {
        // (global rank, round, slot, global op) of every operation a receiver matches
        // against its posted receives: an eager message or a long message's match header.
        let mut entries: Vec<(u32, u32, u32, u32)> = Vec::new();
        let (mut rank_base, mut op_base) = (0u32, 0u32);
        for job in jobs {
            let ops = job.dag.ops();
            let ranks = job.dag.num_ranks() as usize;
            // Each rank's round (computes so far) when each operation is listed, and its
            // sends as (round, peer), in the order it makes them (rounds never decrease).
            let mut round = vec![0u32; ranks];
            let mut sends: Vec<Vec<(u32, u32)>> = vec![Vec::new(); ranks];
            let mut received: Vec<(u32, u32, u32, u32)> = Vec::new();
            for (i, op) in ops.iter().enumerate() {
                match *op {
                    Op::Compute { rank, .. } => round[rank as usize] += 1,
                    Op::Send { src, dst, .. } | Op::Header { src, dst, .. } => {
                        sends[src as usize].push((round[src as usize], dst));
                        received.push((dst, round[dst as usize], src, i as u32));
                    }
                    _ => {}
                }
            }
            for (dst, r, src, i) in received {
                // The slot of the rank's first send to that peer in that round; peers the
                // rank does not send to come after those it does, in DAG order.
                let own = &sends[dst as usize];
                let first = own.partition_point(|&(sr, _)| sr < r);
                let slot = own[first..]
                    .iter()
                    .take_while(|&&(sr, _)| sr == r)
                    .position(|&(_, peer)| peer == src)
                    .map_or(u32::MAX / 2 + i, |k| k as u32);
                entries.push((rank_base + dst, r, slot, op_base + i));
            }
            rank_base += ranks as u32;
            op_base += ops.len() as u32;
        }
        entries.sort_unstable();
        let mut place = vec![u32::MAX; op_base as usize];
        let mut head = vec![0u32; rank_base as usize];
        let mut end = vec![0u32; rank_base as usize];
        for (k, &(rank, _, _, g)) in entries.iter().enumerate() {
            place[g as usize] = k as u32;
            end[rank as usize] = k as u32 + 1;
        }
        // A rank's entries start where the previous rank's end (ranks without any start
        // and end at the same place).
        let mut start = 0;
        for (h, e) in head.iter_mut().zip(end.iter_mut()) {
            *h = start;
            *e = (*e).max(start);
            start = *e;
        }
        Self {
            place,
            matched: vec![false; entries.len()],
            head,
            end,
        }
    }

    /// Global operation `g`, arrived at global rank `rank`, is matched now: returns how many
    /// of the rank's entries the search examined (the unmatched ones posted before it, and
    /// its own), 1 for an operation no receive matches.
    pub fn take(&mut self, g: u32, rank: usize) -> u32 {
        let k = self.place[g as usize];
        if k == u32::MAX {
            return 1;
        }
        let (head, end) = (self.head[rank], self.end[rank]);
        let before = self.matched[head as usize..k as usize]
            .iter()
            .filter(|&&m| !m)
            .count() as u32;
        self.matched[k as usize] = true;
        let mut h = head;
        while h < end && self.matched[h as usize] {
            h += 1;
        }
        self.head[rank] = h;
        before + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::Fabric;
    use crate::workload::{Halo3D26, Motif};

    /// Two Halo3D26 iterations on 3 x 3 x 3 ranks, and the centre rank's received messages
    /// of each round (op ids), in the order it posts their receives (that of its sends).
    fn centre() -> (PostedReceives, [Vec<u32>; 2]) {
        let f = Fabric::parse("torus:3x3x3").unwrap();
        let halo = Halo3D26 {
            iterations: 2,
            ..Halo3D26::new(3, 3, 3)
        };
        let job = Job::new("halo", halo.dag().unwrap(), (0..27).collect(), &f).unwrap();
        let order: Vec<u32> = halo
            .messages()
            .unwrap()
            .iter()
            .filter(|m| m.src == 13)
            .map(|m| m.dst)
            .collect();
        let mut rounds: [Vec<(usize, u32)>; 2] = [Vec::new(), Vec::new()];
        let mut seen = 0;
        for (i, op) in job.dag.ops().iter().enumerate() {
            if let Op::Send { src, dst: 13, .. } = *op {
                let slot = order.iter().position(|&p| p == src).unwrap();
                rounds[seen / 26].push((slot, i as u32));
                seen += 1;
            }
        }
        let posted = rounds.map(|mut r| {
            r.sort_unstable();
            r.into_iter().map(|(_, op)| op).collect()
        });
        (PostedReceives::new(&[job]), posted)
    }

    #[test]
    fn arrivals_in_posting_order_examine_one_entry_each() {
        let (mut q, [first, second]) = centre();
        assert_eq!(first.len(), 26);
        for g in first.into_iter().chain(second) {
            assert_eq!(q.take(g, 13), 1);
        }
    }

    #[test]
    fn arrivals_in_reverse_order_examine_every_unmatched_entry() {
        let (mut q, [first, _]) = centre();
        let examined: Vec<u32> = first.iter().rev().map(|&g| q.take(g, 13)).collect();
        assert_eq!(examined, (1..=26).rev().collect::<Vec<_>>());
    }

    #[test]
    fn an_early_message_of_the_next_round_searches_past_this_rounds_unmatched_receives() {
        let (mut q, [first, second]) = centre();
        for &g in &first[..20] {
            assert_eq!(q.take(g, 13), 1);
        }
        // Six receives of round one are unmatched; the next round's third receive is
        // behind them and behind that round's first two.
        assert_eq!(q.take(second[2], 13), 6 + 2 + 1);
        assert_eq!(q.take(first[20], 13), 1);
        // Ranks and operations that match nothing examine one entry.
        let compute = 0;
        assert_eq!(q.take(compute, 13), 1);
    }
}
