//! Counting a motif's DAG from its parameters, without building it: how many operations and
//! dependencies it holds, and how many it would hold with its messages cut into chunks
//! ([`Dag::split_messages`]) and its long messages sent as rendezvous
//! ([`Dag::with_rendezvous`]). A workload is checked against [`MAX_DAG_OPS`] and
//! [`MAX_DAG_EDGES`] from this count before anything is allocated.
//!
//! [`MAX_DAG_OPS`]: super::MAX_DAG_OPS
//! [`MAX_DAG_EDGES`]: super::MAX_DAG_EDGES

use super::{Dag, DagSize};

/// What a motif's DAG holds, counted exactly from the motif's parameters
/// ([`Motif::census`](super::Motif::census)): its operations and dependencies by kind, and
/// the messages a test of their size in bytes marks long, which [`Dag::with_rendezvous`]
/// would send as a rendezvous. [`DagCensus::size`] gives the size of the DAG a workload
/// spec builds from it. Every count is a number of operations or dependencies (`u128`, so
/// that no count of a motif's parameters overflows).
///
/// A motif DAG holds only messages ([`Op::Send`](super::Op::Send)) and computations
/// ([`Op::Compute`](super::Op::Compute)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DagCensus {
    /// Computations.
    pub computes: u128,
    /// Messages.
    pub sends: u128,
    /// Dependencies of a computation on a computation.
    pub compute_to_compute: u128,
    /// Dependencies of a message on a computation.
    pub compute_to_send: u128,
    /// Dependencies of a computation on a message.
    pub send_to_compute: u128,
    /// Dependencies of a message on a message.
    pub send_to_send: u128,
    /// Messages whose size the census's test marks long.
    pub long_sends: u128,
    /// Long messages whose receiver computes nothing before them in the DAG's order (their
    /// receives are posted at the start, waiting for nothing).
    pub long_sends_posted_first: u128,
    /// Over every dependency of a message on a computation of its own sender, the long
    /// messages whose receives that computation posts (those to its rank after it and
    /// before the rank's next computation): the dependencies [`Dag::with_rendezvous`] adds
    /// so that a rank sends only after posting those receives.
    pub posted_before_sends: u128,
}

impl DagCensus {
    /// Operations and dependencies of the DAG after [`Dag::split_messages`] into `chunks`
    /// and then [`Dag::with_rendezvous`], when the census's long messages are those whose
    /// chunks are longer than the eager limit (its test given the size of a whole message):
    /// each chunk of a long message becomes a match header, a get request, the payload, an
    /// acknowledgement and a posted receive. With `chunks = 1` and no long message, the
    /// size of the motif's own DAG. Saturates instead of overflowing.
    pub fn size(&self, chunks: u32) -> DagSize {
        let k = u128::from(chunks);
        let k2 = k.saturating_mul(k);
        let sum = |terms: &[u128]| terms.iter().fold(0u128, |a, &t| a.saturating_add(t));
        let chunk_sends = k.saturating_mul(self.sends);
        let long = k.saturating_mul(self.long_sends);
        let posted_first = k.saturating_mul(self.long_sends_posted_first);
        let ops = sum(&[self.computes, chunk_sends, long.saturating_mul(4)]);
        let deps = sum(&[
            self.compute_to_compute,
            k.saturating_mul(self.compute_to_send.saturating_add(self.send_to_compute)),
            k2.saturating_mul(self.send_to_send),
            // A header waits as its message did; the get request for the header and the
            // posted receive, the payload for the request, the acknowledgement for the
            // payload.
            long.saturating_mul(4),
            // A receive posted after a computation waits for it.
            long.saturating_sub(posted_first),
            k2.saturating_mul(self.posted_before_sends),
        ]);
        DagSize { ops, deps }
    }

    /// The census of a built motif DAG (messages and computations only), the long messages
    /// those whose size `long` marks: what [`Motif::census`](super::Motif::census) counts
    /// without building, in time linear in the DAG (for tests and checks).
    pub fn of(dag: &Dag, long: &dyn Fn(f64) -> bool) -> Self {
        use super::Op;
        let ops = dag.ops();
        let mut c = Self::default();
        let mut last_compute: Vec<Option<usize>> = vec![None; dag.num_ranks() as usize];
        let mut posted_by = vec![0u128; ops.len()];
        for (i, op) in ops.iter().enumerate() {
            match *op {
                Op::Compute { rank, .. } => {
                    c.computes += 1;
                    last_compute[rank as usize] = Some(i);
                }
                Op::Send {
                    dst, size_bytes, ..
                } => {
                    c.sends += 1;
                    if long(size_bytes) {
                        c.long_sends += 1;
                        match last_compute[dst as usize] {
                            Some(at) => posted_by[at] += 1,
                            None => c.long_sends_posted_first += 1,
                        }
                    }
                }
                _ => {}
            }
        }
        for (a, before) in ops.iter().enumerate() {
            for &b in dag.successors(a as u32) {
                let after = &ops[b as usize];
                let is_send = |op: &Op| matches!(op, Op::Send { .. });
                match (is_send(before), is_send(after)) {
                    (false, false) => c.compute_to_compute += 1,
                    (false, true) => {
                        c.compute_to_send += 1;
                        if before.rank() == after.rank() {
                            c.posted_before_sends += posted_by[a];
                        }
                    }
                    (true, false) => c.send_to_compute += 1,
                    (true, true) => c.send_to_send += 1,
                }
            }
        }
        c
    }
}

/// How many positions `x` in `0..len` have both `x + a` and `x + b` in `0..len`: along one
/// dimension of a grid without wrap-around, the ranks with a neighbour at offset `a` and one
/// at offset `b`.
pub(crate) fn overlap(len: u128, a: i64, b: i64) -> u128 {
    let span = u128::from(a.max(b).max(0).abs_diff(a.min(b).min(0)));
    len.saturating_sub(span)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlaps_count_the_ranks_with_both_neighbours() {
        assert_eq!(overlap(5, 0, 0), 5);
        assert_eq!(overlap(5, 1, 1), 4);
        assert_eq!(overlap(5, -1, 1), 3);
        assert_eq!(overlap(5, 1, 0), 4);
        assert_eq!(overlap(1, 1, -1), 0);
        assert_eq!(overlap(2, -1, 1), 0);
    }

    #[test]
    fn sizes_saturate_rather_than_overflow() {
        let c = DagCensus {
            send_to_send: u128::MAX / 2,
            ..DagCensus::default()
        };
        assert_eq!(c.size(u32::MAX).deps, u128::MAX);
        assert!(c.size(2).check().is_err());
    }
}

#[cfg(test)]
mod motifs_are_counted_exactly_before_they_are_built {
    use super::*;
    use crate::workload::{
        AllToAll, Halo3D26, Lqcd, Motif, Stencil, StencilKind, StencilMotif, Sweep3D, UniformRandom,
    };
    use proptest::prelude::*;

    /// The motif's census and size, counted without building, against the DAG it builds,
    /// cut into `chunks` and sent as rendezvous above `eager` bytes as a workload spec does;
    /// a motif that cannot be built fails its count with the same error.
    fn counted_as_built(motif: &dyn Motif, chunks: u32, eager: f64) -> Result<(), TestCaseError> {
        let k = f64::from(chunks);
        let long = |bytes: f64| bytes / k > eager;
        let dag = match motif.dag() {
            Ok(dag) => dag,
            Err(e) => {
                prop_assert_eq!(motif.census(&long).unwrap_err(), e.clone());
                prop_assert_eq!(motif.dag_size(chunks, eager).unwrap_err(), e);
                return Ok(());
            }
        };
        prop_assert_eq!(motif.census(&long).unwrap(), DagCensus::of(&dag, &long));
        prop_assert_eq!(motif.dag_size(1, f64::INFINITY).unwrap(), DagSize::of(&dag));
        let mut built = if chunks == 1 {
            dag
        } else {
            dag.split_messages(chunks).unwrap()
        };
        if eager.is_finite() {
            built = built.with_rendezvous(eager).unwrap();
        }
        prop_assert_eq!(motif.dag_size(chunks, eager).unwrap(), DagSize::of(&built));
        Ok(())
    }

    /// Chunks of a message, and eager limits in bytes: none, every message long, or about
    /// the size of the motifs' messages.
    fn reshape() -> impl Strategy<Value = (u32, f64)> {
        (
            1u32..4,
            prop_oneof![Just(f64::INFINITY), Just(0.0), 0.0f64..2000.0],
        )
    }

    proptest! {
        #[test]
        fn halo3d26(
            grid in [1u32..5, 1u32..5, 1u32..5],
            cells in [1u32..6, 1u32..6, 1u32..6],
            fields in 1u32..3,
            width in prop_oneof![Just(0u32), 1u32..9],
            iterations in 0u32..4,
            (chunks, eager) in reshape(),
        ) {
            let mut m = Halo3D26::new(grid[0], grid[1], grid[2]);
            [m.nx, m.ny, m.nz] = cells;
            m.fields_per_cell = fields;
            m.element_size_bytes = width;
            m.iterations = iterations;
            counted_as_built(&m, chunks, eager)?;
        }

        #[test]
        fn sweep3d(
            grid in [1u32..5, 1u32..5],
            cells in [1u32..6, 1u32..6],
            kba in 1u32..4,
            blocks in 1u32..4,
            uneven in any::<bool>(),
            fields in 1u32..3,
            iterations in 0u32..3,
            (chunks, eager) in reshape(),
        ) {
            let mut m = Sweep3D::new(grid[0], grid[1]);
            [m.nx, m.ny] = cells;
            m.kba = kba;
            m.nz = kba * blocks + u32::from(uneven && kba > 1);
            m.fields_per_cell = fields;
            m.element_size_bytes = 4;
            m.iterations = iterations;
            counted_as_built(&m, chunks, eager)?;
        }

        #[test]
        fn lqcd(
            lattice in [1u32..9, 1u32..9, 1u32..9, 1u32..9],
            ranks in 1u32..33,
            width in 1u32..9,
            short in prop_oneof![Just(0.0), Just(f64::INFINITY), 0.0f64..3000.0],
            iterations in 1u32..3,
            (chunks, eager) in reshape(),
        ) {
            let mut m = Lqcd::new(lattice, ranks);
            m.element_size_bytes = width;
            m.short_msg_length_bytes = short;
            m.iterations = iterations;
            counted_as_built(&m, chunks, eager)?;
        }

        #[test]
        fn uniform_random(
            ranks in 0u32..12,
            size in 0.0f64..3000.0,
            iterations in 0u32..4,
            seed in any::<u64>(),
            (chunks, eager) in reshape(),
        ) {
            let m = UniformRandom { ranks, size_bytes: size, compute_s: 1e-6, iterations, seed };
            counted_as_built(&m, chunks, eager)?;
        }

        #[test]
        fn alltoall(
            ranks in 0u32..10,
            size in 0.0f64..3000.0,
            iterations in 0u32..4,
            (chunks, eager) in reshape(),
        ) {
            let m = AllToAll { ranks, size_bytes: size, compute_s: 0.0, iterations };
            counted_as_built(&m, chunks, eager)?;
        }

        #[test]
        fn stencil(
            kind in proptest::sample::select(vec![
                StencilKind::FiveP,
                StencilKind::NineP,
                StencilKind::SevenP,
                StencilKind::TwentySevenP,
            ]),
            periodic in any::<bool>(),
            grid in proptest::collection::vec(0usize..5, 2..4),
            size in 0.0f64..3000.0,
            iterations in 1u32..4,
            (chunks, eager) in reshape(),
        ) {
            let m = StencilMotif {
                stencil: Stencil { kind, periodic },
                grid,
                size_bytes: size,
                compute_s: 0.0,
                iterations,
            };
            counted_as_built(&m, chunks, eager)?;
        }
    }

    #[test]
    fn lqcd_of_the_paper_is_counted_exactly() {
        // The 64-job size of the paper's LQCD (512 ranks), Ember's eager limit.
        let mut m = crate::workload::lqcd_job_size(64).unwrap();
        m.iterations = 2;
        counted_as_built(&m, 1, crate::workload::EMBER_SHORT_MSG_LENGTH_BYTES).unwrap();
        counted_as_built(&m, 3, crate::workload::EMBER_SHORT_MSG_LENGTH_BYTES).unwrap();
    }
}
