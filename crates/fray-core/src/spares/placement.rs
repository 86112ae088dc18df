//! Which node runs which rank, which nodes are free and which have failed.

use std::sync::atomic::{AtomicU64, Ordering};

use super::SpareAllocation;
use crate::fabric::Cartesian;

/// `node_rank` value of a healthy node that runs no rank (a spare or a vacated node).
pub const FREE: u32 = u32::MAX;
/// `node_rank` value of a failed node.
pub const FAILED: u32 = u32::MAX - 1;
const NOT_LISTED: u32 = u32::MAX;

/// One rank moving from one node to another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    /// The rank that moves.
    pub rank: u32,
    /// The node it leaves (the failed node for the displaced rank).
    pub from: u32,
    /// The node it moves to (free before the move, or left by another move of the batch).
    pub to: u32,
}

/// Source of [`Placement::lineage`] values.
static NEXT_LINEAGE: AtomicU64 = AtomicU64::new(0);

fn new_lineage() -> u64 {
    NEXT_LINEAGE.fetch_add(1, Ordering::Relaxed)
}

/// The rank-to-node map of a job, its inverse, and the set of free nodes; beside them, per
/// line of nodes, a stamp of the changes that can open a slide that line blocked (see
/// [`line_stamp`](Placement::line_stamp)).
#[derive(Debug)]
pub struct Placement {
    rank_node: Vec<u32>,
    node_rank: Vec<u32>,
    free: Vec<u32>,
    free_slot: Vec<u32>,
    /// The grid's size along each dimension.
    dims: Vec<u32>,
    /// `free_coords[d][i]`: coordinate along `d` of the free node `free[i]`, when every
    /// dimension has at most `u16::MAX` nodes (no column otherwise).
    free_coords: Vec<Vec<u16>>,
    /// Node index step of each dimension.
    strides: Vec<u32>,
    /// Index of the first line along each dimension in `line_stamps`.
    line_base: Vec<u32>,
    /// Per line along each dimension (see [`line_of`](Placement::line_of)): a count of the
    /// changes of its nodes other than a free node taking a rank or failing.
    line_stamps: Vec<u64>,
    /// Names this placement's history of line stamps: a new value whenever the placement is
    /// made, cloned or reset, so that stamps read from two placements are never confused.
    lineage: u64,
}

impl Clone for Placement {
    fn clone(&self) -> Self {
        Self {
            rank_node: self.rank_node.clone(),
            node_rank: self.node_rank.clone(),
            free: self.free.clone(),
            free_slot: self.free_slot.clone(),
            dims: self.dims.clone(),
            free_coords: self.free_coords.clone(),
            strides: self.strides.clone(),
            line_base: self.line_base.clone(),
            line_stamps: self.line_stamps.clone(),
            lineage: new_lineage(),
        }
    }
}

/// Two placements are equal when they run the same ranks on the same nodes and list the same
/// free nodes in the same order; stamps and lineage are bookkeeping.
impl PartialEq for Placement {
    fn eq(&self, other: &Self) -> bool {
        self.rank_node == other.rank_node
            && self.node_rank == other.node_rank
            && self.free == other.free
            && self.dims == other.dims
    }
}

impl Eq for Placement {}

impl Placement {
    /// The initial map: the rank at logical coordinates `c` of the compute box runs on the
    /// node with the same coordinates; every spare node is free.
    pub fn initial(shape: &Cartesian, alloc: &SpareAllocation) -> Self {
        let extents = alloc.compute_extents(shape);
        let n = shape.num_nodes();
        let mut node_rank = vec![FREE; n];
        let mut rank_node = Vec::with_capacity(extents.iter().product());
        let mut coord = vec![0usize; extents.len()];
        for rank in 0..extents.iter().product::<usize>() {
            let mut r = rank;
            for (c, &e) in coord.iter_mut().zip(&extents) {
                *c = r % e;
                r /= e;
            }
            let node = shape.node(&coord);
            node_rank[node as usize] = rank as u32;
            rank_node.push(node);
        }
        let q = shape.num_dims();
        // Lines along `d`: one per node with coordinate 0 along `d`.
        let lines_along = |d: usize| n / shape.dims()[d];
        let line_base = (0..q)
            .map(|d| (0..d).map(lines_along).sum::<usize>() as u32)
            .collect::<Vec<_>>();
        let lines: usize = (0..q).map(lines_along).sum();
        let mut p = Self {
            rank_node,
            node_rank,
            free: Vec::new(),
            free_slot: vec![NOT_LISTED; n],
            dims: shape.dims().iter().map(|&s| s as u32).collect(),
            free_coords: if shape.dims().iter().all(|&s| s <= usize::from(u16::MAX)) {
                vec![Vec::new(); q]
            } else {
                Vec::new()
            },
            strides: (0..q).map(|d| shape.stride(d) as u32).collect(),
            line_base,
            line_stamps: vec![0; lines],
            lineage: new_lineage(),
        };
        for node in 0..n as u32 {
            if p.node_rank[node as usize] == FREE {
                p.list_free(node);
            }
        }
        p
    }

    /// Makes this placement equal to `other`, reusing this one's memory.
    pub fn reset_to(&mut self, other: &Self) {
        self.rank_node.clone_from(&other.rank_node);
        self.node_rank.clone_from(&other.node_rank);
        self.free.clone_from(&other.free);
        self.free_slot.clone_from(&other.free_slot);
        self.free_coords.clone_from(&other.free_coords);
        self.line_stamps.clone_from(&other.line_stamps);
        self.lineage = new_lineage();
    }

    /// The line along `d` through `node`, as an index into the line stamps (lines along
    /// different dimensions have different indices).
    #[inline]
    pub fn line_of(&self, d: usize, node: u32) -> u32 {
        let (stride, size) = (self.strides[d], self.dims[d]);
        // The node's index with its coordinate along `d` removed.
        let within = node % stride + node / (stride * size) * stride;
        self.line_base[d] + within
    }

    /// The stamp of `line` (from [`line_of`](Self::line_of)): it changes whenever one of the
    /// line's nodes changes in a way that can let a slide through where the line blocked it
    /// before (a node freed or repaired, or a rank's node failing); it stays when a free node
    /// takes a rank or fails, or a rank moves onto a node that ran another, which can only
    /// block more. Comparable only within one [`lineage`](Self::lineage).
    #[inline]
    pub fn line_stamp(&self, line: u32) -> u64 {
        self.line_stamps[line as usize]
    }

    /// A value naming this placement's history of line stamps: new when the placement is
    /// made, cloned or reset, kept otherwise.
    pub fn lineage(&self) -> u64 {
        self.lineage
    }

    /// Changes the stamps of the lines through `node`.
    fn touch(&mut self, node: u32) {
        for d in 0..self.dims.len() {
            let line = self.line_of(d, node) as usize;
            self.line_stamps[line] = self.line_stamps[line].wrapping_add(1);
        }
    }

    /// Number of ranks of the job.
    pub fn num_ranks(&self) -> usize {
        self.rank_node.len()
    }

    /// The node each rank runs on (a failed rank's entry names its failed node until it moves).
    pub fn rank_nodes(&self) -> &[u32] {
        &self.rank_node
    }

    /// The node rank `rank` runs on.
    #[inline]
    pub fn node_of(&self, rank: u32) -> u32 {
        self.rank_node[rank as usize]
    }

    /// What runs on `node`: a rank, [`FREE`] or [`FAILED`].
    #[inline]
    pub fn state(&self, node: u32) -> u32 {
        self.node_rank[node as usize]
    }

    /// The healthy nodes that run no rank, in no particular order.
    pub fn free_nodes(&self) -> &[u32] {
        &self.free
    }

    /// Coordinates along each dimension of the free nodes, in the order of
    /// [`free_nodes`](Self::free_nodes): `free_coords()[d][i]` is that of `free_nodes()[i]`;
    /// `None` when some dimension has more than `u16::MAX` nodes.
    pub fn free_coords(&self) -> Option<&[Vec<u16>]> {
        (self.free_coords.len() == self.dims.len()).then_some(&self.free_coords[..])
    }

    fn list_free(&mut self, node: u32) {
        if self.free_slot[node as usize] == NOT_LISTED {
            self.touch(node);
            self.free_slot[node as usize] = self.free.len() as u32;
            self.free.push(node);
            let mut rest = node;
            for (column, &size) in self.free_coords.iter_mut().zip(&self.dims) {
                column.push((rest % size) as u16);
                rest /= size;
            }
        }
    }

    fn unlist_free(&mut self, node: u32) {
        let slot = self.free_slot[node as usize];
        if slot != NOT_LISTED {
            let last = self.free.pop().expect("listed node");
            for column in &mut self.free_coords {
                let c = column.pop().expect("listed node");
                if last != node {
                    column[slot as usize] = c;
                }
            }
            if last != node {
                self.free[slot as usize] = last;
                self.free_slot[last as usize] = slot;
            }
            self.free_slot[node as usize] = NOT_LISTED;
        }
    }

    /// Marks the node running `rank` failed; the rank stays attached to it until moved.
    pub fn fail_rank(&mut self, rank: u32) -> u32 {
        let node = self.rank_node[rank as usize];
        debug_assert_eq!(self.node_rank[node as usize], rank);
        self.node_rank[node as usize] = FAILED;
        self.touch(node);
        node
    }

    /// Undoes [`fail_rank`](Self::fail_rank) once the rank's moves have been reverted.
    pub fn repair(&mut self, node: u32, rank: u32) {
        debug_assert_eq!(self.node_rank[node as usize], FAILED);
        debug_assert_eq!(self.rank_node[rank as usize], node);
        self.node_rank[node as usize] = rank;
        self.touch(node);
    }

    /// Marks a free node failed (it leaves the free nodes).
    pub fn fail_free_node(&mut self, node: u32) {
        debug_assert_eq!(self.node_rank[node as usize], FREE);
        self.node_rank[node as usize] = FAILED;
        self.unlist_free(node);
    }

    /// Undoes [`fail_free_node`](Self::fail_free_node).
    pub fn unfail_free_node(&mut self, node: u32) {
        debug_assert_eq!(self.node_rank[node as usize], FAILED);
        self.node_rank[node as usize] = FREE;
        self.list_free(node);
    }

    /// Applies a batch of moves at once (their order does not matter). Only the nodes the
    /// batch leaves free, and those it fills, enter or leave the free list.
    pub fn apply(&mut self, moves: &[Move]) {
        for m in moves {
            if self.node_rank[m.from as usize] == m.rank {
                self.node_rank[m.from as usize] = FREE;
            }
        }
        for m in moves {
            debug_assert_eq!(self.node_rank[m.to as usize], FREE);
            self.node_rank[m.to as usize] = m.rank;
            self.rank_node[m.rank as usize] = m.to;
            self.unlist_free(m.to);
        }
        for m in moves {
            if self.node_rank[m.from as usize] == FREE {
                self.list_free(m.from);
            }
        }
    }

    /// Reverts a batch applied with [`apply`](Self::apply).
    pub fn revert(&mut self, moves: &[Move]) {
        for m in moves {
            if self.node_rank[m.to as usize] == m.rank {
                self.node_rank[m.to as usize] = FREE;
            }
        }
        for m in moves {
            self.rank_node[m.rank as usize] = m.from;
            if self.node_rank[m.from as usize] != FAILED {
                debug_assert_eq!(self.node_rank[m.from as usize], FREE);
                self.node_rank[m.from as usize] = m.rank;
                self.unlist_free(m.from);
            }
        }
        for m in moves {
            if self.node_rank[m.to as usize] == FREE {
                self.list_free(m.to);
            }
        }
    }
}
