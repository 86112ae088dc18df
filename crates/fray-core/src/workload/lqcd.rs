//! LQCD: the halo exchanges and allreduces of a lattice QCD conjugate-gradient step (MILC's
//! staggered Dslash), after Ember's `LQCD` motif.

use super::allreduce::allreduce_recursive_doubling;
use super::grid::RankGrid;
use super::motif::{check_non_negative, check_positive, invalid, Motif};
use super::{Dag, DagBuilder, DagCensus, OpId, WorkloadError};

const NAME: &str = "lqcd";

/// Variables per site in a gather: an SU(3) vector, three complex numbers.
pub const SU3_VECTOR_ELEMENTS: u32 = 6;

/// Ember's flops per site of one matrix-vector-multiply-sum compute segment (`mmvs4d`).
const MMVS4D_FLOPS_PER_SITE: f64 = 288.0;
/// Ember's flops per site of the residual compute segment (157 / 2).
const RESID_FLOPS_PER_SITE: f64 = 78.5;
/// Flops per site of one whole iteration: four `mmvs4d` segments and one residual.
const ITERATION_FLOPS_PER_SITE: f64 = 4.0 * MMVS4D_FLOPS_PER_SITE + RESID_FLOPS_PER_SITE;

/// How the lattice is cut among the ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LqcdDecomposition {
    /// Ranks along x, y, z, t.
    pub ranks_per_dim: [u32; 4],
    /// Lattice sites per rank along x, y, z, t.
    pub sites_per_rank: [u32; 4],
}

/// Lattice QCD on an `nx x ny x nz x nt` lattice cut among `ranks` ranks.
///
/// **Rank grid.** As in Ember (which takes MILC's `setup_hyper_prime`): the ranks' prime
/// factors, largest first, each cut the lattice in the dimension whose per-rank side is the
/// largest multiple of that prime, preferring among equal sides one already cut, else the
/// first (x, y, z, t). See [`Lqcd::decomposition`]. Ranks are numbered `x + px * (y + py *
/// (z + pz * t))` and the grid does not wrap around (Ember's `lex_rank` gives no rank past
/// an edge).
///
/// **Messages.** With `S_d` the sites of a rank's face across dimension `d` (the product of
/// its per-rank sides other than `d`) and a site's vector `6 * element_size_bytes` bytes, each
/// iteration is:
/// 1. two passes (even and odd sites), each:
///    - a gather: every rank sends to each existing neighbour two messages, the
///      first-neighbour gather, `floor(S_d / 2)` vectors, and the three-hop (Naik) gather,
///      `S_d` vectors (Ember's `2 * S_d / 2`), as Ember does: blocking sends one after the
///      other, first-neighbour to +x .. +t, Naik to +x .. +t, first-neighbour to -t .. -x,
///      Naik to -t .. -x, each receive posted just before the sends of its kind. A send
///      larger than `short_msg_length_bytes` waits for its receive: one to a + neighbour
///      until that neighbour has finished its own sends before it (it posts receives from
///      its - side only then), one to a - neighbour until that neighbour has started the
///      pass (first-neighbour) or finished its + first-neighbour sends (Naik). The + sends
///      thus unwind one rank after another from the top corner of the rank grid;
///    - a compute of the positive links, once the rank's own sends have arrived (Ember's
///      sends are blocking) and the messages from its + neighbours have arrived;
///    - a compute of the negative links, after that and after the messages from its -
///      neighbours;
/// 2. an allreduce of one `element_size_bytes` value (recursive doubling, see
///    [`allreduce_recursive_doubling`](super::allreduce_recursive_doubling));
/// 3. a compute of the residual;
/// 4. another allreduce of one value. The next iteration starts on a rank once this
///    allreduce has finished there.
///
/// **Compute.** `compute_s` is the iteration's compute, shared among the five segments in
/// Ember's flop counts: each link compute gets `288 / 1230.5` of it, the residual
/// `78.5 / 1230.5`. Ember derives it as `sites_per_rank * 1230.5 / peflops` (default
/// `peflops` 2 * 10^10 flop/s).
#[derive(Debug, Clone, PartialEq)]
pub struct Lqcd {
    /// Lattice sites along x (whole job).
    pub nx: u32,
    /// Lattice sites along y.
    pub ny: u32,
    /// Lattice sites along z.
    pub nz: u32,
    /// Lattice sites along t.
    pub nt: u32,
    /// Number of ranks.
    pub ranks: u32,
    /// Bytes per real number (8 for a double).
    pub element_size_bytes: u32,
    /// Compute per rank per iteration, in seconds.
    pub compute_s: f64,
    /// Number of iterations.
    pub iterations: u32,
    /// Largest message sent eager, in bytes (Ember's `shortMsgLength`, default 12,000):
    /// a larger send waits until its receiver has posted the receive (rendezvous).
    pub short_msg_length_bytes: f64,
}

/// Ember's default `shortMsgLength`: messages up to it go eager (bytes).
pub const EMBER_SHORT_MSG_LENGTH_BYTES: f64 = 12_000.0;

impl Lqcd {
    /// The lattice `nx x ny x nz x nt` on `ranks` ranks, doubles, no compute, one iteration,
    /// Ember's eager limit.
    pub fn new(lattice: [u32; 4], ranks: u32) -> Self {
        let [nx, ny, nz, nt] = lattice;
        Self {
            nx,
            ny,
            nz,
            nt,
            ranks,
            element_size_bytes: 8,
            compute_s: 0.0,
            iterations: 1,
            short_msg_length_bytes: EMBER_SHORT_MSG_LENGTH_BYTES,
        }
    }

    /// The lattice's sides, x, y, z, t.
    pub fn lattice(&self) -> [u32; 4] {
        [self.nx, self.ny, self.nz, self.nt]
    }

    /// How the lattice is cut among the ranks (MILC's hypercube layout, as Ember does it).
    /// An error if some prime factor of `ranks` divides no remaining per-rank side.
    pub fn decomposition(&self) -> Result<LqcdDecomposition, WorkloadError> {
        for (field, value) in ["nx", "ny", "nz", "nt"].into_iter().zip(self.lattice()) {
            check_positive(NAME, field, value)?;
        }
        check_positive(NAME, "ranks", self.ranks)?;
        let mut sites = self.lattice();
        let mut ranks = [1u32; 4];
        for prime in prime_factors_descending(self.ranks) {
            let largest = sites.iter().copied().filter(|s| s % prime == 0).max();
            let Some(largest) = largest else {
                return Err(invalid(
                    NAME,
                    "ranks",
                    format!(
                        "cannot cut the lattice {:?} into {} ranks: no side left divisible by {prime}",
                        self.lattice(),
                        self.ranks
                    ),
                ));
            };
            let dim = (0..4)
                .find(|&d| sites[d] == largest && ranks[d] > 1)
                .or_else(|| (0..4).find(|&d| sites[d] == largest))
                .unwrap_or(0);
            sites[dim] /= prime;
            ranks[dim] *= prime;
        }
        Ok(LqcdDecomposition {
            ranks_per_dim: ranks,
            sites_per_rank: sites,
        })
    }
}

/// The prime factors of `n` with multiplicity, largest first.
fn prime_factors_descending(mut n: u32) -> Vec<u32> {
    let mut factors = Vec::new();
    let mut p = 2u32;
    while u64::from(p) * u64::from(p) <= u64::from(n) {
        while n.is_multiple_of(p) {
            factors.push(p);
            n /= p;
        }
        p += 1;
    }
    if n > 1 {
        factors.push(n);
    }
    factors.reverse();
    factors
}

/// How many ranks below `m` of a grid of `dims` ranks (dimension 0 fastest) are on its top
/// side along dimension `d` (they have no + neighbour there).
fn top_ranks_below(dims: [u32; 4], d: usize, m: u128) -> u128 {
    let stride: u128 = dims[..d].iter().map(|&s| u128::from(s)).product();
    let side = u128::from(dims[d]);
    let block = stride * side;
    let rest = m % block;
    (m / block) * stride + rest.saturating_sub((side - 1) * stride).min(stride)
}

/// What the ops of one gather pass release: per rank, its sends, and the sends arriving from
/// its + side (`from_up`) and from its - side (`from_down`).
type Arrivals = Vec<Vec<OpId>>;

impl Lqcd {
    /// Adds one gather pass of every rank, in Ember's order and blocking semantics (see
    /// [`Lqcd`]), each rank starting once `ready` has finished; `gathers[d]` are the
    /// first-neighbour and Naik bytes across dimension `d`.
    #[allow(clippy::too_many_arguments)]
    fn gather(
        &self,
        b: &mut DagBuilder,
        grid: &RankGrid<4>,
        gathers: &[[f64; 2]],
        ready: &[Vec<OpId>],
        own: &mut Arrivals,
        from_up: &mut Arrivals,
        from_down: &mut Arrivals,
    ) -> Result<(), WorkloadError> {
        let n = ready.len();
        let rendezvous = |bytes: f64| bytes > self.short_msg_length_bytes;
        // Where each rank has posted its receives from the - side: after its + sends
        // (first-neighbour receives), after its - first-neighbour sends (Naik receives).
        let mut minus_first_posted: Vec<Vec<OpId>> = vec![Vec::new(); n];
        let mut minus_naik_posted: Vec<Vec<OpId>> = vec![Vec::new(); n];
        // Where each rank has posted its Naik receives from the + side: after its + first-
        // neighbour sends.
        let mut plus_naik_posted: Vec<Vec<OpId>> = vec![Vec::new(); n];
        let mut send = |b: &mut DagBuilder,
                        rank: usize,
                        peer: u32,
                        bytes: f64,
                        prev: &mut Vec<OpId>,
                        waits: &[OpId],
                        positive: bool|
         -> Result<(), WorkloadError> {
            let mut deps = prev.clone();
            if rendezvous(bytes) {
                deps.extend_from_slice(waits);
            }
            let op = b.send(rank as u32, peer, bytes, &deps)?;
            *prev = vec![op];
            own[rank].push(op);
            // The peer hears from its neighbour on the other side.
            if positive {
                from_down[peer as usize].push(op);
            } else {
                from_up[peer as usize].push(op);
            }
            Ok(())
        };
        // One kind of send (`which`: 0 first-neighbour, 1 Naik) of `rank` to its neighbour
        // on the + side of each dimension in order, or on the - side in reverse order, a
        // rendezvous send waiting for `posted[peer]`.
        let mut sweep = |b: &mut DagBuilder,
                         rank: usize,
                         positive: bool,
                         which: usize,
                         prev: &mut Vec<OpId>,
                         posted: &[Vec<OpId>]|
         -> Result<(), WorkloadError> {
            let dims = gathers.len();
            for i in 0..dims {
                let dim = if positive { i } else { dims - 1 - i };
                let step = if positive { 1 } else { -1 };
                let Some(peer) = grid.neighbour(rank as u32, dim, step) else {
                    continue;
                };
                let bytes = gathers[dim][which];
                send(b, rank, peer, bytes, prev, &posted[peer as usize], positive)?;
            }
            Ok(())
        };
        // + neighbours have higher rank numbers: going down the ranks, whatever a + send
        // waits for already exists.
        for rank in (0..n).rev() {
            let mut prev = ready[rank].clone();
            sweep(b, rank, true, 0, &mut prev, &minus_first_posted)?;
            plus_naik_posted[rank] = prev.clone();
            sweep(b, rank, true, 1, &mut prev, &minus_naik_posted)?;
            minus_first_posted[rank] = prev.clone();
            sweep(b, rank, false, 0, &mut prev, ready)?;
            minus_naik_posted[rank] = prev;
        }
        // The - Naik sends last, each rank going on from where its - first-neighbour sends
        // ended.
        for (rank, prev) in minus_naik_posted.iter_mut().enumerate() {
            sweep(b, rank, false, 1, prev, &plus_naik_posted)?;
        }
        Ok(())
    }
}

impl Lqcd {
    /// Checks the parameters [`Motif::dag`] needs, in its order, and gives the rank grid
    /// and the bytes of the gathers: per dimension, (first-neighbour gather, Naik gather).
    fn layout(&self) -> Result<(RankGrid<4>, Vec<[f64; 2]>), WorkloadError> {
        check_positive(NAME, "element_size_bytes", self.element_size_bytes)?;
        check_positive(NAME, "iterations", self.iterations)?;
        check_non_negative(NAME, "compute_s", self.compute_s, "seconds")?;
        check_non_negative(
            NAME,
            "short_msg_length_bytes",
            self.short_msg_length_bytes,
            "bytes",
        )?;
        let layout = self.decomposition()?;
        let grid = RankGrid::new(NAME, ["px", "py", "pz", "pt"], layout.ranks_per_dim)?;
        let vector_bytes = f64::from(SU3_VECTOR_ELEMENTS) * f64::from(self.element_size_bytes);
        let face = |d: usize| -> u64 {
            (0..4)
                .filter(|&e| e != d)
                .map(|e| u64::from(layout.sites_per_rank[e]))
                .product()
        };
        let gathers = (0..4)
            .map(|d| {
                [
                    (face(d) / 2) as f64 * vector_bytes,
                    face(d) as f64 * vector_bytes,
                ]
            })
            .collect();
        Ok((grid, gathers))
    }
}

impl Motif for Lqcd {
    fn name(&self) -> &'static str {
        NAME
    }

    fn num_ranks(&self) -> Result<u32, WorkloadError> {
        check_positive(NAME, "ranks", self.ranks)?;
        Ok(self.ranks)
    }

    fn census(&self, long: &dyn Fn(f64) -> bool) -> Result<DagCensus, WorkloadError> {
        let (grid, gathers) = self.layout()?;
        let n = u128::from(grid.num_ranks());
        let it = u128::from(self.iterations);
        let later = it - 1;
        // Per iteration: two passes of a positive and a negative link compute, a residual.
        let computes = 5 * n * it;
        if n == 1 {
            // No neighbour and no allreduce: one chain of computes.
            return Ok(DagCensus {
                computes,
                compute_to_compute: computes - 1,
                ..DagCensus::default()
            });
        }
        let sides = grid.dims().map(u128::from);
        // Along each dimension, the ranks with a + neighbour (one per pair of neighbours).
        let pairs = sides.map(|p| n - n / p);
        let all_pairs: u128 = pairs.iter().sum();
        // A pass sends both gathers both ways over every pair.
        let per_pass = 4 * all_pairs;
        // The allreduce: p the largest power of two up to n; m folded in and back.
        let p = 1u128 << (127 - n.leading_zeros());
        let m = n - p;
        let rounds = u128::from(p.trailing_zeros());
        let per_allreduce = 2 * m + p * rounds;
        // Its dependencies on messages; each rank's first send waits for its compute.
        let allreduce_chain = 3 * m + 2 * p * (rounds - 1);
        // After an allreduce a rank waits for one message (r < m) or two: n + p in all.
        let after_allreduce = n + p;
        let rv = |bytes: f64| u128::from(bytes > self.short_msg_length_bytes);
        let top = sides.map(|p| u128::from(p >= 2));
        // Rendezvous waits of a pass (Ember's short-message limit), on messages: a + send
        // waits for the peer's last + send (but the top corner's, which has none: its
        // pass's start), a + Naik and a - Naik send for one send of the peer's.
        let waits_on_sends: u128 = (0..4)
            .map(|d| rv(gathers[d][0]) * (pairs[d] - top[d]) + 2 * rv(gathers[d][1]) * pairs[d])
            .sum();
        // And on what the pass starts from: a - first-neighbour send waits for its peer's
        // start, as a + one does for the top corner's. In the second pass each start is
        // the rank's negative link compute; after an allreduce, one message for ranks below
        // m, two for the others (the top corner is one of them).
        let waits_on_computes: u128 = (0..4)
            .map(|d| rv(gathers[d][0]) * (top[d] + pairs[d]))
            .sum();
        let waits_after_allreduce: u128 = (0..4)
            .map(|d| {
                let below_m = m - top_ranks_below(grid.dims(), d, m);
                rv(gathers[d][0]) * (2 * top[d] + 2 * pairs[d] - below_m)
            })
            .sum();
        // A rank's sends of a pass after its first wait for its previous one.
        let chain = per_pass - n;
        // The link computes wait for the rank's sends, the sends from its + side (positive)
        // and from its - side (negative): 8 per pair.
        let link_waits = 8 * all_pairs;

        let gather_long: u128 = (0..4)
            .map(|d| {
                2 * pairs[d] * (u128::from(long(gathers[d][0])) + u128::from(long(gathers[d][1])))
            })
            .sum();
        let allreduce_long = per_allreduce * u128::from(long(f64::from(self.element_size_bytes)));
        Ok(DagCensus {
            computes,
            sends: it * (2 * per_pass + 2 * per_allreduce),
            // Negative after positive in both passes; positive after the first pass's
            // negative in the second.
            compute_to_compute: 3 * n * it,
            // Each rank's first send of the second pass and of both allreduces.
            compute_to_send: it * (3 * n + waits_on_computes),
            send_to_compute: it * (2 * link_waits + after_allreduce) + later * after_allreduce,
            send_to_send: it * (2 * chain + 2 * waits_on_sends + 2 * allreduce_chain)
                + later * (after_allreduce + waits_after_allreduce),
            long_sends: it * (2 * gather_long + 2 * allreduce_long),
            // Nobody has computed before the first pass.
            long_sends_posted_first: gather_long,
            // The first sends after the second pass's negative compute (the second pass's
            // receives), the first allreduce's, the residual's (the second allreduce's and
            // the next iteration's first pass's).
            posted_before_sends: it * (gather_long + 2 * allreduce_long) + later * gather_long,
        })
    }

    fn dag(&self) -> Result<Dag, WorkloadError> {
        self.check_dag_size(1, f64::INFINITY)?;
        let (grid, gathers) = self.layout()?;
        let n = grid.num_ranks() as usize;
        let link_s = self.compute_s * MMVS4D_FLOPS_PER_SITE / ITERATION_FLOPS_PER_SITE;
        let resid_s = self.compute_s * RESID_FLOPS_PER_SITE / ITERATION_FLOPS_PER_SITE;
        let value_bytes = f64::from(self.element_size_bytes);

        let mut b = DagBuilder::new(n as u32);
        // What each rank waits for before its next step.
        let mut ready: Vec<Vec<OpId>> = vec![Vec::new(); n];
        let mut own: Vec<Vec<OpId>> = vec![Vec::new(); n];
        let mut from_up: Vec<Vec<OpId>> = vec![Vec::new(); n];
        let mut from_down: Vec<Vec<OpId>> = vec![Vec::new(); n];
        for _ in 0..self.iterations {
            for _parity in 0..2 {
                self.gather(
                    &mut b,
                    &grid,
                    &gathers,
                    &ready,
                    &mut own,
                    &mut from_up,
                    &mut from_down,
                )?;
                for rank in 0..n {
                    let mut waits = std::mem::take(&mut ready[rank]);
                    waits.append(&mut own[rank]);
                    waits.append(&mut from_up[rank]);
                    let positive = b.compute(rank as u32, link_s, &waits)?;
                    from_down[rank].push(positive);
                    let negative = b.compute(rank as u32, link_s, &from_down[rank])?;
                    from_down[rank].clear();
                    ready[rank].push(negative);
                }
            }
            allreduce_recursive_doubling(&mut b, &mut ready, value_bytes)?;
            for (rank, wait) in ready.iter_mut().enumerate() {
                let resid = b.compute(rank as u32, resid_s, wait)?;
                *wait = vec![resid];
            }
            allreduce_recursive_doubling(&mut b, &mut ready, value_bytes)?;
        }
        b.build(self.iterations)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prime_factors() {
        assert_eq!(prime_factors_descending(1), Vec::<u32>::new());
        assert_eq!(prime_factors_descending(360), vec![5, 3, 3, 2, 2, 2]);
        assert_eq!(prime_factors_descending(97), vec![97]);
    }
}
