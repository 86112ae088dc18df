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
//!
//! With Firefly's call-by-call progress ([`super::Progress::Calls`]) the queue follows
//! SST 16's `ctrlMsgProcessQueuesState.cc` instead: a rank's receives of a round are posted
//! when it enters the round ([`PostedReceives::enter_round`]); a message that arrives
//! before its receive is posted walks every receive posted and unmatched, matches none and
//! waits in the rank's unexpected queue ([`PostedReceives::arrive`]); posting a receive
//! first walks that queue from its front, one match delay per message examined, up to its
//! own message or, when it has none, to the end.

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
    /// Per global rank: its first entry.
    start: Vec<u32>,
    /// The round of each entry of the flat queue (rounds count from 1, as computes do).
    round: Vec<u32>,
    /// The global operation of each entry of the flat queue.
    op_of: Vec<u32>,
    /// Per global rank: the round whose receives it has posted ([`Self::enter_round`]).
    current: Vec<u32>,
    /// Per global rank: the entries whose messages arrived before their receive was
    /// posted, in the order they arrived (Firefly's unexpected queue).
    unexpected: Vec<Vec<u32>>,
}

/// What the search of a rank's queues found for an arrived message ([`PostedReceives::arrive`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Its receive was posted: the search examined this many entries, its own included.
    Matched(u32),
    /// Its receive is not posted yet: the search walked this many posted receives without
    /// a match and the message waits in the rank's unexpected queue.
    Unexpected(u32),
}

/// One receive a rank posts as it enters a round ([`PostedReceives::enter_round`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting {
    /// The message that was waiting for it in the unexpected queue, now matched (global
    /// operation), or `None` when none was.
    pub matched: Option<u32>,
    /// Messages of the unexpected queue the post examined: the matched one's place from the
    /// front (1 for the first), or the whole queue's length when none matched.
    pub examined: u32,
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
        let ranks = head.len();
        let start = head.clone();
        Self {
            start,
            place,
            matched: vec![false; entries.len()],
            head,
            end,
            round: entries.iter().map(|&(_, r, _, _)| r).collect(),
            op_of: entries.iter().map(|&(_, _, _, g)| g).collect(),
            current: vec![0; ranks],
            unexpected: vec![Vec::new(); ranks],
        }
    }

    /// Global operation `g` arrived at global rank `rank`, which has posted the receives of
    /// its rounds up to [`Self::enter_round`]'s last: matched now if its receive is among
    /// them ([`Self::take`]), else put in the rank's unexpected queue after walking every
    /// posted receive still unmatched.
    pub fn arrive(&mut self, g: u32, rank: usize) -> Arrival {
        let k = self.place[g as usize];
        let current = self.current[rank];
        if k == u32::MAX || self.round[k as usize] <= current {
            return Arrival::Matched(self.take(g, rank));
        }
        let (head, end) = (self.head[rank] as usize, self.end[rank] as usize);
        let walked = (head..end)
            .take_while(|&e| self.round[e] <= current)
            .filter(|&e| !self.matched[e])
            .count() as u32;
        self.unexpected[rank].push(k);
        Arrival::Unexpected(walked)
    }

    /// Global rank `rank` enters its next round and posts its receives, in the order it
    /// posts them: each searches the unexpected queue ([`Posting`]); the postings are
    /// appended to `out`.
    pub fn enter_round(&mut self, rank: usize, out: &mut Vec<Posting>) {
        self.current[rank] += 1;
        let round = self.current[rank];
        let (start, end) = (self.start[rank] as usize, self.end[rank] as usize);
        let first = (start..end)
            .find(|&e| self.round[e] >= round)
            .unwrap_or(end);
        let last = (first..end)
            .find(|&e| self.round[e] != round)
            .unwrap_or(end);
        for e in first..last {
            let waiting = &mut self.unexpected[rank];
            let posting = match waiting.iter().position(|&k| k as usize == e) {
                Some(p) => {
                    waiting.remove(p);
                    let g = self.op_of[e];
                    self.take(g, rank);
                    Posting {
                        matched: Some(g),
                        examined: p as u32 + 1,
                    }
                }
                None => Posting {
                    matched: None,
                    examined: waiting.len() as u32,
                },
            };
            out.push(posting);
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
    fn with_firefly_progress_an_early_message_waits_unexpected_until_its_round_is_posted() {
        let (mut q, [first, second]) = centre();
        let mut out = Vec::new();
        q.enter_round(13, &mut out);
        assert_eq!(out.len(), 26);
        assert!(out.iter().all(|p| *p
            == Posting {
                matched: None,
                examined: 0
            }));
        for &g in &first[..20] {
            assert_eq!(q.arrive(g, 13), Arrival::Matched(1));
        }
        // Six receives of round one are unmatched: two early messages of round two walk
        // them, then the last of round one is matched behind five.
        assert_eq!(q.arrive(second[4], 13), Arrival::Unexpected(6));
        assert_eq!(q.arrive(second[1], 13), Arrival::Unexpected(6));
        assert_eq!(q.arrive(first[25], 13), Arrival::Matched(6));
        for &g in &first[20..25] {
            assert_eq!(q.arrive(g, 13), Arrival::Matched(1));
        }
        // Round two's posts: the first walks both waiting messages, the second finds its
        // message second in the queue, the next three walk the one left, the fifth finds
        // it first, the rest find the queue empty.
        out.clear();
        q.enter_round(13, &mut out);
        let examined: Vec<u32> = out.iter().map(|p| p.examined).collect();
        assert_eq!(examined[..6], [2, 2, 1, 1, 1, 0]);
        assert_eq!(out[1].matched, Some(second[1]));
        assert_eq!(out[4].matched, Some(second[4]));
        assert_eq!(out.iter().filter(|p| p.matched.is_some()).count(), 2);
        // The others arrive in order and examine one entry each.
        for (i, &g) in second.iter().enumerate() {
            if i != 1 && i != 4 {
                assert_eq!(q.arrive(g, 13), Arrival::Matched(1), "receive {i}");
            }
        }
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
