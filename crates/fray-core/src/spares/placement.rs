//! Which node runs which rank, which nodes are free and which have failed.

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

/// The rank-to-node map of a job, its inverse, and the set of free nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    rank_node: Vec<u32>,
    node_rank: Vec<u32>,
    free: Vec<u32>,
    free_slot: Vec<u32>,
    /// The grid's size along each dimension.
    dims: Vec<u32>,
    /// `free_coords[d][i]`: coordinate along `d` of the free node `free[i]`.
    free_coords: Vec<Vec<u32>>,
}

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
        let mut p = Self {
            rank_node,
            node_rank,
            free: Vec::new(),
            free_slot: vec![NOT_LISTED; n],
            dims: shape.dims().iter().map(|&s| s as u32).collect(),
            free_coords: vec![Vec::new(); shape.num_dims()],
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
    /// [`free_nodes`](Self::free_nodes): `free_coords()[d][i]` is that of `free_nodes()[i]`.
    pub fn free_coords(&self) -> &[Vec<u32>] {
        &self.free_coords
    }

    fn list_free(&mut self, node: u32) {
        if self.free_slot[node as usize] == NOT_LISTED {
            self.free_slot[node as usize] = self.free.len() as u32;
            self.free.push(node);
            let mut rest = node;
            for (column, &size) in self.free_coords.iter_mut().zip(&self.dims) {
                column.push(rest % size);
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
        node
    }

    /// Undoes [`fail_rank`](Self::fail_rank) once the rank's moves have been reverted.
    pub fn repair(&mut self, node: u32, rank: u32) {
        debug_assert_eq!(self.node_rank[node as usize], FAILED);
        debug_assert_eq!(self.rank_node[rank as usize], node);
        self.node_rank[node as usize] = rank;
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
