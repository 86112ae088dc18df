//! Hop distances between every pair of routers over the live channels: one breadth-first
//! search per destination over the reversed live graph, destinations in parallel.

use rayon::prelude::*;

use crate::fabric::{Fabric, RouterId};
use crate::faults::Faults;

/// A hop count as one table entry holds it: `u8` while every finite distance fits, else
/// `u16`. The largest value of the type stands for "unreachable".
pub(super) trait Hops: Copy + Eq + Send + Sync {
    /// The entry of a router that cannot reach the destination.
    const UNREACHED: Self;
    /// The largest finite distance the type holds, in hops.
    const MAX_FINITE: u32;
    /// The entry for `hops` (at most `MAX_FINITE`).
    fn from_hops(hops: u32) -> Self;
    /// The hop count of a finite entry.
    fn hops(self) -> u32;
}

macro_rules! impl_hops {
    ($t:ty) => {
        impl Hops for $t {
            const UNREACHED: Self = <$t>::MAX;
            const MAX_FINITE: u32 = <$t>::MAX as u32 - 1;
            #[inline]
            fn from_hops(hops: u32) -> Self {
                hops as $t
            }
            #[inline]
            fn hops(self) -> u32 {
                u32::from(self)
            }
        }
    };
}
impl_hops!(u8);
impl_hops!(u16);

/// One destination's row of the table: `row[r]` is the hop count from router `r`.
pub(super) enum Row<'a> {
    /// Entries of one byte.
    Narrow(&'a [u8]),
    /// Entries of two bytes.
    Wide(&'a [u16]),
}

/// The flat `R x R` table, row `dst`, column `src`.
#[derive(Debug, Clone)]
enum Table {
    Narrow(Vec<u8>),
    Wide(Vec<u16>),
}

/// Hop counts from every router to every router over live channels and live routers, for
/// one fault state; a down router reaches nothing and nothing reaches it.
#[derive(Debug, Clone)]
pub(super) struct HopDistances {
    num_routers: usize,
    table: Table,
    diameter: u32,
}

/// A finite distance too large for the entry type.
struct TooFar;

impl HopDistances {
    /// Runs one breadth-first search per destination (in parallel) over the live channels
    /// reversed. Entries take one byte when the live graph's diameter is below 255, else two
    /// (the caller keeps `num_routers` below 2^16 - 1).
    pub(super) fn new(fabric: &Fabric, faults: &Faults) -> Self {
        let n = fabric.num_routers();
        let live_in = LiveInNeighbours::new(fabric, faults);
        let (table, diameter) = match fill::<u8>(n, &live_in, faults) {
            Ok((t, d)) => (Table::Narrow(t), d),
            Err(TooFar) => match fill::<u16>(n, &live_in, faults) {
                Ok((t, d)) => (Table::Wide(t), d),
                Err(TooFar) => unreachable!("fewer routers than u16 entries"),
            },
        };
        Self {
            num_routers: n,
            table,
            diameter,
        }
    }

    /// Number of routers the table covers.
    pub(super) fn num_routers(&self) -> usize {
        self.num_routers
    }

    /// The row of destination `dst`.
    #[inline]
    pub(super) fn row(&self, dst: RouterId) -> Row<'_> {
        let span = dst as usize * self.num_routers..(dst as usize + 1) * self.num_routers;
        match &self.table {
            Table::Narrow(t) => Row::Narrow(&t[span]),
            Table::Wide(t) => Row::Wide(&t[span]),
        }
    }

    /// Hops from `src` to `dst`, or `None` when no live path joins them.
    pub(super) fn get(&self, src: RouterId, dst: RouterId) -> Option<u32> {
        fn finite<D: Hops>(d: D) -> Option<u32> {
            (d != D::UNREACHED).then(|| d.hops())
        }
        match self.row(dst) {
            Row::Narrow(r) => finite(r[src as usize]),
            Row::Wide(r) => finite(r[src as usize]),
        }
    }

    /// The longest finite distance, in hops (0 when no two live routers are joined).
    pub(super) fn diameter(&self) -> u32 {
        self.diameter
    }

    /// Bytes per table entry (1 or 2).
    pub(super) fn bytes_per_entry(&self) -> usize {
        match self.table {
            Table::Narrow(_) => 1,
            Table::Wide(_) => 2,
        }
    }
}

/// For every live router `v`, the live routers with a live channel into `v`, in CSR form
/// (a router appears once per such channel, so parallel cables repeat it).
struct LiveInNeighbours {
    offsets: Vec<u32>,
    routers: Vec<RouterId>,
}

impl LiveInNeighbours {
    fn new(fabric: &Fabric, faults: &Faults) -> Self {
        let ch = fabric.channels();
        let n = fabric.num_routers();
        let mut offsets = Vec::with_capacity(n + 1);
        let mut routers = Vec::with_capacity(fabric.num_router_channels());
        offsets.push(0);
        for v in 0..n as RouterId {
            if !faults.router_is_down(v) {
                // The channels into `v` are the reverses of the channels out of it.
                for &out in fabric.out_channels(v) {
                    let into = ch.reverse[out as usize];
                    let u = ch.src[into as usize];
                    if !faults.channel_is_down(into) && !faults.router_is_down(u) {
                        routers.push(u);
                    }
                }
            }
            offsets.push(routers.len() as u32);
        }
        Self { offsets, routers }
    }

    #[inline]
    fn of(&self, v: RouterId) -> &[RouterId] {
        &self.routers[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
    }
}

/// The whole table with entries of type `D`, and its diameter; `TooFar` when a distance
/// does not fit `D`.
fn fill<D: Hops>(
    n: usize,
    live_in: &LiveInNeighbours,
    faults: &Faults,
) -> Result<(Vec<D>, u32), TooFar> {
    let mut table = vec![D::UNREACHED; n * n];
    let diameter = table
        .par_chunks_mut(n.max(1))
        .enumerate()
        .map_init(
            || Vec::with_capacity(n),
            |queue, (dst, row)| {
                let dst = dst as RouterId;
                if faults.router_is_down(dst) {
                    // Nothing reaches a down router, itself included.
                    Ok(0)
                } else {
                    fill_row(row, dst, live_in, queue)
                }
            },
        )
        .try_reduce(|| 0, |a, b| Ok(a.max(b)))?;
    Ok((table, diameter))
}

/// Breadth-first search from the live router `dst` over the reversed live graph into `row`
/// (all `UNREACHED` on entry); returns the largest distance written.
fn fill_row<D: Hops>(
    row: &mut [D],
    dst: RouterId,
    live_in: &LiveInNeighbours,
    queue: &mut Vec<RouterId>,
) -> Result<u32, TooFar> {
    queue.clear();
    queue.push(dst);
    row[dst as usize] = D::from_hops(0);
    let mut head = 0;
    let mut farthest = 0;
    while head < queue.len() {
        let v = queue[head];
        head += 1;
        let next = row[v as usize].hops() + 1;
        for &u in live_in.of(v) {
            if row[u as usize] == D::UNREACHED {
                if next > D::MAX_FINITE {
                    return Err(TooFar);
                }
                row[u as usize] = D::from_hops(next);
                farthest = next;
                queue.push(u);
            }
        }
    }
    Ok(farthest)
}
