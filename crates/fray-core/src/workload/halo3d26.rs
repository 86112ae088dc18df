//! Halo3D26: a 27-point stencil on a 3D grid of ranks, after Ember's `Halo3D26` motif.

use super::census::overlap;
use super::exchange::{compute_then_exchange, Round};
use super::grid::RankGrid;
use super::motif::{check_non_negative, check_positive, Motif};
use super::{Dag, DagCensus, Message, WorkloadError};

const NAME: &str = "halo3d26";

/// Flop/s of a rank when a Halo3D26 spec names none: 10^9, what SST Ember's
/// `emberhalo3d26.cc` reads (`params.find<double>("arg.peflops", 1000000000)`; the
/// parameter table beside it documents 10^10, but the code has read 10^9 since 2018). At
/// `nx = ny = nz = 30` and 26 flops per cell that is 702 us of compute per iteration.
pub const EMBER_HALO3D26_PEFLOPS: f64 = 1e9;

/// A 27-point stencil: each rank owns an `nx x ny x nz` block of cells of a
/// `pex x pey x pez` grid of ranks and exchanges halos with its up to 26 neighbours.
///
/// Ranks are numbered `x + pex * (y + pey * z)` and the grid does **not** wrap around, as in
/// Ember (its `convertPositionToRank` returns no rank past an edge): an interior rank has 26
/// neighbours, a corner rank of the grid 7.
///
/// Each iteration, on every rank:
/// 1. compute for `compute_s` seconds;
/// 2. send one message to each neighbour (and receive one from each), all at once, in
///    Ember's order ([`EMBER_HALO3D26_ORDER`]): the six faces (x down, x up, y down, y up,
///    z down, z up), then the edges, then the corners;
///    - to a face neighbour (one coordinate differs): the face's cells, `ny * nz` towards
///      x, `nx * nz` towards y, `nx * ny` towards z;
///    - to an edge neighbour (two coordinates differ): the cells of the edge along the
///      dimension that does not change, `nx`, `ny` or `nz`;
///    - to a corner neighbour (three differ): one cell;
///
///    each cell being `fields_per_cell * element_size_bytes` bytes;
/// 3. wait for all of them: the next iteration's compute on a rank starts once every message
///    the rank sent or received in this exchange has arrived.
///
/// Ember's Halo3D26 reads a `doreduce` flag but never reduces, so there is no allreduce.
///
/// `compute_s` is what Ember derives as `nx * ny * nz * fields_per_cell * flopspercell /
/// peflops` (defaults 26 flops per cell and [`EMBER_HALO3D26_PEFLOPS`] flop/s), or its
/// `computetime` given directly; in the failed-links paper the compute time is a chosen share
/// of the iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct Halo3D26 {
    /// Cells per rank along x.
    pub nx: u32,
    /// Cells per rank along y.
    pub ny: u32,
    /// Cells per rank along z.
    pub nz: u32,
    /// Ranks along x.
    pub pex: u32,
    /// Ranks along y.
    pub pey: u32,
    /// Ranks along z.
    pub pez: u32,
    /// Variables per cell (Ember's `fields_per_cell`, default 1).
    pub fields_per_cell: u32,
    /// Bytes per variable (Ember's `datatype_width`, 8 for a double).
    pub element_size_bytes: u32,
    /// Compute per rank per iteration, in seconds.
    pub compute_s: f64,
    /// Number of iterations.
    pub iterations: u32,
}

impl Halo3D26 {
    /// The paper's weak-scaling problem (30 x 30 x 30 cells per rank) on a
    /// `pex x pey x pez` grid, one double per cell, no compute, one iteration.
    pub fn new(pex: u32, pey: u32, pez: u32) -> Self {
        Self {
            nx: 30,
            ny: 30,
            nz: 30,
            pex,
            pey,
            pez,
            fields_per_cell: 1,
            element_size_bytes: 8,
            compute_s: 0.0,
            iterations: 1,
        }
    }

    fn grid(&self) -> Result<RankGrid<3>, WorkloadError> {
        for (field, value) in [
            ("nx", self.nx),
            ("ny", self.ny),
            ("nz", self.nz),
            ("fields_per_cell", self.fields_per_cell),
            ("element_size_bytes", self.element_size_bytes),
            ("iterations", self.iterations),
        ] {
            check_positive(NAME, field, value)?;
        }
        check_non_negative(NAME, "compute_s", self.compute_s, "seconds")?;
        RankGrid::new(NAME, ["pex", "pey", "pez"], [self.pex, self.pey, self.pez])
    }

    /// The messages of one exchange: for each rank in order, one per existing neighbour, in
    /// the order Ember posts them ([`EMBER_HALO3D26_ORDER`]: faces x down to z up, then its
    /// twelve edges `line_a` to `line_l`, then its eight corners `corner_a` to `corner_h`).
    pub fn messages(&self) -> Result<Vec<Message>, WorkloadError> {
        let grid = self.grid()?;
        let mut messages = Vec::new();
        for src in 0..grid.num_ranks() {
            for offset in EMBER_HALO3D26_ORDER {
                let mut dst = Some(src);
                for (d, &step) in offset.iter().enumerate() {
                    dst = dst.and_then(|r| grid.neighbour(r, d, step));
                }
                let Some(dst) = dst else { continue };
                messages.push(Message {
                    src,
                    dst,
                    size_bytes: self.halo_bytes(offset),
                });
            }
        }
        Ok(messages)
    }

    /// Bytes of the message to the neighbour at `offset`: the halo spans every dimension in
    /// which the two ranks are level, `fields_per_cell * element_size_bytes` per cell.
    fn halo_bytes(&self, offset: [i64; 3]) -> f64 {
        let cells = [self.nx, self.ny, self.nz];
        let cell_bytes = f64::from(self.fields_per_cell) * f64::from(self.element_size_bytes);
        let halo_cells: f64 = (0..3)
            .filter(|&d| offset[d] == 0)
            .map(|d| f64::from(cells[d]))
            .product();
        halo_cells * cell_bytes
    }
}

/// The neighbours of a rank as offsets `[dx, dy, dz]`, in the order SST Ember's
/// `emberhalo3d26.cc` posts its receives and then its sends to them every iteration: the six
/// faces (`xface_down`, `xface_up`, `yface_down`, `yface_up`, `zface_down`, `zface_up`), the
/// twelve edges (`line_a` to `line_l`) and the eight corners (`corner_a` to `corner_h`), each
/// offset as the motif's `convertPositionToRank` calls give it. The order sets which
/// receive an arriving message is matched against first, so it is part of the motif's cost.
pub const EMBER_HALO3D26_ORDER: [[i64; 3]; 26] = [
    [-1, 0, 0],
    [1, 0, 0],
    [0, -1, 0],
    [0, 1, 0],
    [0, 0, -1],
    [0, 0, 1],
    [-1, -1, 0],
    [0, -1, -1],
    [1, -1, 0],
    [0, -1, 1],
    [-1, 0, 1],
    [1, 0, 1],
    [-1, 0, -1],
    [1, 0, -1],
    [-1, 1, 0],
    [0, 1, 1],
    [1, 1, 0],
    [0, 1, -1],
    [-1, -1, 1],
    [1, -1, 1],
    [-1, -1, -1],
    [1, -1, -1],
    [-1, 1, 1],
    [1, 1, 1],
    [-1, 1, -1],
    [1, 1, -1],
];

impl Motif for Halo3D26 {
    fn name(&self) -> &'static str {
        NAME
    }

    fn num_ranks(&self) -> Result<u32, WorkloadError> {
        Ok(self.grid()?.num_ranks())
    }

    fn census(&self, long: &dyn Fn(f64) -> bool) -> Result<DagCensus, WorkloadError> {
        let grid = self.grid()?;
        let sides = [self.pex, self.pey, self.pez].map(u128::from);
        // The ranks with a neighbour at offset `a` and one at offset `b`.
        let both = |a: &[i64; 3], b: &[i64; 3]| -> u128 {
            (0..3).map(|d| overlap(sides[d], a[d], b[d])).product()
        };
        let mut round = Round::default();
        for from in &EMBER_HALO3D26_ORDER {
            round.messages += both(from, from);
            // A message and the one back are the same size: a rank receives a long message
            // from its neighbour at `from` when it sends one there.
            if long(self.halo_bytes(*from)) {
                round.long += both(from, from);
                round.posted_before_sends += EMBER_HALO3D26_ORDER
                    .iter()
                    .map(|to| both(to, from))
                    .sum::<u128>();
            }
        }
        Ok(round.census(grid.num_ranks(), self.iterations))
    }

    fn dag(&self) -> Result<Dag, WorkloadError> {
        self.check_dag_size(1, f64::INFINITY)?;
        let messages = self.messages()?;
        compute_then_exchange(
            self.num_ranks()?,
            self.iterations,
            self.compute_s,
            |round| round.extend_from_slice(&messages),
        )
    }
}
