//! Job sizes of the failed-links study (papers/failed-links-dragonfly-hyperx.txt, "Studies
//! of Application Communication Patterns"): a budget of endpoints is shared among the jobs,
//! and each motif takes the largest problem of its shape that fits.

use super::motif::invalid;
use super::{Lqcd, WorkloadError};

/// The paper's budget of endpoints shared among the jobs: 32k.
pub const PAPER_ENDPOINT_BUDGET: u32 = 32768;

/// The paper's LQCD lattice (x, y, z, t) for one job on [`LQCD_PAPER_RANKS`] ranks.
pub const LQCD_PAPER_LATTICE: [u32; 4] = [144, 144, 144, 192];

/// Ranks of the paper's largest LQCD job.
pub const LQCD_PAPER_RANKS: u32 = 32768;

/// Endpoints available to each of `jobs` jobs sharing `budget` endpoints: `budget / jobs`
/// (the paper: "dividing 32k by the number of jobs").
pub fn ranks_per_job(budget: u32, jobs: u32) -> Result<u32, WorkloadError> {
    if jobs == 0 || budget < jobs {
        return Err(invalid(
            "jobs",
            "count",
            format!("{jobs} jobs cannot share {budget} endpoints with at least one each"),
        ));
    }
    Ok(budget / jobs)
}

/// The largest `r` with `r^k <= n`.
fn integer_root(n: u32, k: u32) -> u32 {
    let pow = |r: u32| u64::from(r).pow(k);
    let mut r = f64::from(n).powf(1.0 / f64::from(k)).round() as u32;
    while pow(r) > u64::from(n) {
        r -= 1;
    }
    while pow(r + 1) <= u64::from(n) {
        r += 1;
    }
    r
}

/// The largest perfect cube of ranks that fits on `n` endpoints, as a `p x p x p` grid
/// (Halo3D26's job shape; `(0, 0, 0)` when `n` is 0).
pub fn largest_cube(n: u32) -> (u32, u32, u32) {
    let p = integer_root(n, 3);
    (p, p, p)
}

/// The largest perfect square of ranks that fits on `n` endpoints, as a `p x p` grid
/// (Sweep3D's job shape; `(0, 0)` when `n` is 0).
pub fn largest_square(n: u32) -> (u32, u32) {
    let p = integer_root(n, 2);
    (p, p)
}

/// The paper's LQCD job when `jobs` jobs share the machine: `LQCD_PAPER_RANKS / jobs` ranks
/// and the lattice [`LQCD_PAPER_LATTICE`] halved once per halving of the ranks, cutting nx,
/// ny, nz, nt in that order and round again ("reducing one of nx, ny, nz, nt (in that order)
/// by half at each size reduction").
///
/// `jobs` must be a power of two so that the jobs are equal: 2^k jobs halve the lattice k
/// times (halving `i`, from 0, cuts dimension `i mod 4`), which keeps the sites per rank
/// fixed at 17496. So 1 job: 144 x 144 x 144 x 192 on 32768 ranks; 4 jobs: 72 x 72 x 144 x
/// 192 on 8192; 16 jobs: 72 x 72 x 72 x 96 on 2048; 64 jobs: 36 x 36 x 72 x 96 on 512.
/// [`Lqcd::decomposition`] gives the rank grid (9 x 9 x 18 x 12 sites per rank in each of
/// these). The returned motif has no compute and one iteration.
pub fn lqcd_job_size(jobs: u32) -> Result<Lqcd, WorkloadError> {
    if !jobs.is_power_of_two() || jobs > LQCD_PAPER_RANKS {
        return Err(invalid(
            "lqcd",
            "jobs",
            format!("must be a power of two up to {LQCD_PAPER_RANKS}, got {jobs}"),
        ));
    }
    let halvings = jobs.trailing_zeros();
    let mut lattice = LQCD_PAPER_LATTICE;
    for i in 0..halvings as usize {
        let side = &mut lattice[i % 4];
        if !side.is_multiple_of(2) {
            return Err(invalid(
                "lqcd",
                "jobs",
                format!("{jobs} jobs would halve an odd side of the lattice ({side})"),
            ));
        }
        *side /= 2;
    }
    Ok(Lqcd::new(lattice, LQCD_PAPER_RANKS / jobs))
}
