//! Sweep3D: wavefront sweeps over a 2D grid of ranks, after Ember's `Sweep3D` motif.

use super::grid::RankGrid;
use super::motif::{check_non_negative, check_positive, invalid, Motif};
use super::{Dag, DagBuilder, DagCensus, OpId, WorkloadError};

const NAME: &str = "sweep3d";

/// Number of sweeps in one iteration: Ember sweeps from each of the four corners of the rank
/// grid, twice (the two directions in z of the real Sweep3D, which look the same when z is
/// on-node).
pub const SWEEPS_PER_ITERATION: u32 = 8;

/// A discrete-ordinates wavefront sweep (KBA): a `pex x pey` grid of ranks, each owning
/// `nx x ny` columns of `nz` cells (the third dimension on-node), processed in `nz / kba`
/// blocks of `kba` planes.
///
/// Ranks are numbered `x + pex * y`; the grid does not wrap around. One iteration is
/// [`SWEEPS_PER_ITERATION`] sweeps, in Ember's order: from corner (0, 0) towards
/// (pex-1, pey-1), from (pex-1, 0), from (pex-1, pey-1), from (0, pey-1), then the same four
/// again. In a sweep going `+x` (or `-x`) and `+y` (or `-y`), for each block in turn, a rank:
/// 1. waits for the block from its upstream x neighbour and its upstream y neighbour (those
///    that exist; the sweep's corner rank has none and starts at once), and for its own
///    previous block (its compute and its sends: Ember's sends are blocking);
/// 2. computes for `compute_s / (8 * nz / kba)` seconds (the iteration's compute shared
///    evenly among its blocks);
/// 3. sends the block downstream: `nx * kba * fields_per_cell * element_size_bytes` bytes to
///    its x neighbour, `ny * kba * ...` to its y neighbour (Ember's sizes: the x message is
///    counted with `nx`, the y message with `ny`).
///
/// Sweeps follow each other without a barrier: a rank starts the next sweep once it is done
/// with its part of the previous one. There is no allreduce.
///
/// `compute_s` is what Ember derives as `8 * nz * nx * ny * fields_per_cell *
/// flops_per_cell / nodeflops` (each block computes `nx * ny * flops_per_cell / nodeflops *
/// kba * fields_per_cell` seconds; defaults 275 flops per cell, 10^9 flop/s), or
/// `8 * nz / kba` times its `computetime` when that is given.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep3D {
    /// Cells per rank along x.
    pub nx: u32,
    /// Cells per rank along y.
    pub ny: u32,
    /// Cells per rank along z (on-node).
    pub nz: u32,
    /// Planes of z per block (must divide `nz`).
    pub kba: u32,
    /// Ranks along x.
    pub pex: u32,
    /// Ranks along y.
    pub pey: u32,
    /// Variables per cell (Ember's `fields_per_cell`, default 8: the angles per cell).
    pub fields_per_cell: u32,
    /// Bytes per variable (Ember's `datatype_width`, 8 for a double).
    pub element_size_bytes: u32,
    /// Compute per rank per iteration (all 8 sweeps), in seconds.
    pub compute_s: f64,
    /// Number of iterations.
    pub iterations: u32,
}

impl Sweep3D {
    /// The paper's weak-scaling problem (nx = ny = 8, nz = 100, kba = 10 per rank) on a
    /// `pex x pey` grid, Ember's 8 fields of 8 bytes per cell, no compute, one iteration.
    pub fn new(pex: u32, pey: u32) -> Self {
        Self {
            nx: 8,
            ny: 8,
            nz: 100,
            kba: 10,
            pex,
            pey,
            fields_per_cell: 8,
            element_size_bytes: 8,
            compute_s: 0.0,
            iterations: 1,
        }
    }

    /// Number of blocks per sweep, `nz / kba`.
    pub fn blocks(&self) -> Result<u32, WorkloadError> {
        check_positive(NAME, "nz", self.nz)?;
        check_positive(NAME, "kba", self.kba)?;
        if !self.nz.is_multiple_of(self.kba) {
            return Err(invalid(
                NAME,
                "kba",
                format!("{} does not divide nz = {}", self.kba, self.nz),
            ));
        }
        Ok(self.nz / self.kba)
    }

    fn grid(&self) -> Result<RankGrid<2>, WorkloadError> {
        for (field, value) in [
            ("nx", self.nx),
            ("ny", self.ny),
            ("fields_per_cell", self.fields_per_cell),
            ("element_size_bytes", self.element_size_bytes),
            ("iterations", self.iterations),
        ] {
            check_positive(NAME, field, value)?;
        }
        check_non_negative(NAME, "compute_s", self.compute_s, "seconds")?;
        RankGrid::new(NAME, ["pex", "pey"], [self.pex, self.pey])
    }

    /// Bytes of a block's message to the x neighbour and to the y neighbour.
    fn message_bytes(&self) -> [f64; 2] {
        let block_bytes = f64::from(self.kba)
            * f64::from(self.fields_per_cell)
            * f64::from(self.element_size_bytes);
        [
            f64::from(self.nx) * block_bytes,
            f64::from(self.ny) * block_bytes,
        ]
    }

    /// The direction `(dx, dy)` of the `s`-th sweep (counting from 0 over all iterations),
    /// each +1 or -1; the sweep starts at the corner it moves away from.
    pub fn direction(s: u32) -> (i64, i64) {
        match s % 4 {
            0 => (1, 1),
            1 => (-1, 1),
            2 => (-1, -1),
            _ => (1, -1),
        }
    }
}

impl Motif for Sweep3D {
    fn name(&self) -> &'static str {
        NAME
    }

    fn num_ranks(&self) -> Result<u32, WorkloadError> {
        Ok(self.grid()?.num_ranks())
    }

    fn census(&self, long: &dyn Fn(f64) -> bool) -> Result<DagCensus, WorkloadError> {
        let grid = self.grid()?;
        let blocks = u128::from(self.blocks()?);
        let n = u128::from(grid.num_ranks());
        let (px, py) = (u128::from(self.pex), u128::from(self.pey));
        let it = u128::from(self.iterations);
        // Blocks over every sweep of every iteration; in each, the messages along x and y.
        let all_blocks = it * u128::from(SWEEPS_PER_ITERATION) * blocks;
        let (along_x, along_y) = ((px - 1) * py, px * (py - 1));
        let per_block = along_x + along_y;
        let [long_x, long_y] = self.message_bytes().map(|b| u128::from(long(b)));
        let long_per_block = long_x * along_x + long_y * along_y;
        // Positions along a side of `len` ranks that send downstream in a sweep going `a`
        // and receive from upstream in one going `b`.
        let both = |len: u128, a: i64, b: i64| {
            let last = if a > 0 { len - 1 } else { 0 };
            let first = if b > 0 { 0 } else { len - 1 };
            if last == first {
                len - 1
            } else {
                len - 2
            }
        };
        // Over the ranks, the messages a rank sends in a block of sweep `a` times the long
        // ones it receives in the next block, of sweep `b`: what its compute of the first
        // posts before its sends under a rendezvous.
        let posted = |a: u32, b: u32| {
            let ((ax, ay), (bx, by)) = (Self::direction(a), Self::direction(b));
            long_x * both(px, ax, bx) * py
                + long_y * (px - 1) * (py - 1)
                + long_x * (px - 1) * (py - 1)
                + long_y * px * both(py, ay, by)
        };
        // Sweeps 0 to 3 each come 2 * iterations times; from one sweep to the next, 3 to 0
        // once fewer (the last sweep has no next).
        let within: u128 = (0..4).map(|d| 2 * it * (blocks - 1) * posted(d, d)).sum();
        let between: u128 = (0..4)
            .map(|d| (2 * it - u128::from(d == 3)) * posted(d, (d + 1) % 4))
            .sum();
        Ok(DagCensus {
            computes: all_blocks * n,
            sends: all_blocks * per_block,
            // Every compute but a rank's first waits for its previous one.
            compute_to_compute: (all_blocks - 1) * n,
            compute_to_send: all_blocks * per_block,
            // Both ends of a message wait for it, but for the sender of the last block's.
            send_to_compute: (2 * all_blocks - 1) * per_block,
            send_to_send: 0,
            long_sends: all_blocks * long_per_block,
            // In the first block a receiver has not computed yet.
            long_sends_posted_first: long_per_block,
            posted_before_sends: within + between,
        })
    }

    fn dag(&self) -> Result<Dag, WorkloadError> {
        self.check_dag_size(1, f64::INFINITY)?;
        let grid = self.grid()?;
        let blocks = self.blocks()?;
        let n = grid.num_ranks();
        let bytes = self.message_bytes();
        let block_s = self.compute_s / f64::from(SWEEPS_PER_ITERATION * blocks);

        let mut b = DagBuilder::new(n);
        // What each rank's next block waits for: its previous block, then what arrived.
        let mut waits: Vec<Vec<OpId>> = vec![Vec::new(); n as usize];
        let along = |len: u32, d: i64| -> Vec<u32> {
            if d > 0 {
                (0..len).collect()
            } else {
                (0..len).rev().collect()
            }
        };
        for sweep in 0..self.iterations * SWEEPS_PER_ITERATION {
            let (dx, dy) = Self::direction(sweep);
            // Visiting ranks row by row from the sweep's corner puts every upstream
            // neighbour before its downstream one.
            let xs = along(self.pex, dx);
            let order: Vec<u32> = along(self.pey, dy)
                .into_iter()
                .flat_map(|y| xs.iter().map(move |&x| x + self.pex * y))
                .collect();
            for _ in 0..blocks {
                for &rank in &order {
                    let work = b.compute(rank, block_s, &waits[rank as usize])?;
                    waits[rank as usize].clear();
                    waits[rank as usize].push(work);
                    for (dim, step) in [(0, dx), (1, dy)] {
                        if let Some(down) = grid.neighbour(rank, dim, step) {
                            let op = b.send(rank, down, bytes[dim], &[work])?;
                            waits[rank as usize].push(op);
                            waits[down as usize].push(op);
                        }
                    }
                }
            }
        }
        b.build(self.iterations)
    }
}
