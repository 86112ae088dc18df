//! The common face of application motifs: a generator of a [`Dag`] for a number of
//! iterations, with the parameters people know from SST's Ember.
//!
//! A motif says which messages go where and what waits for what; it holds no timing model of
//! the network. The time an iteration takes comes out of an engine that runs the DAG.

use super::dag::no_chunks;
use super::{Dag, DagCensus, DagSize, WorkloadError};

/// An application motif: a communication pattern with compute, as a DAG.
///
/// A motif counts its DAG before building it ([`Motif::census`]), so that one too large for
/// [`MAX_DAG_OPS`](super::MAX_DAG_OPS) is refused at once, whatever its iterations, ranks or
/// chunks: [`Motif::dag`] and [`WorkloadSpec::place`](super::WorkloadSpec::place) both call
/// [`Motif::check_dag_size`] first.
pub trait Motif {
    /// Short lower-case name for reports and specs (`halo3d26`, `sweep3d`, ...).
    fn name(&self) -> &'static str;

    /// Number of ranks the motif runs on (the product of its rank grid).
    fn num_ranks(&self) -> Result<u32, WorkloadError>;

    /// What [`Motif::dag`] holds, counted exactly from the parameters without building it,
    /// in a time that grows with neither the iterations nor the ranks; `long` says
    /// which message sizes, in bytes, count as long ([`DagCensus::long_sends`]). Fails as
    /// [`Motif::dag`] does on bad parameters, with the same error.
    fn census(&self, long: &dyn Fn(f64) -> bool) -> Result<DagCensus, WorkloadError>;

    /// The motif's work, all iterations, as one DAG on ranks `0..num_ranks()`.
    fn dag(&self) -> Result<Dag, WorkloadError>;

    /// Operations and dependencies of the motif's DAG with every message cut into `chunks`
    /// ([`Dag::split_messages`]) and then, each chunk longer than `eager_limit_bytes`
    /// bytes, sent as a rendezvous ([`Dag::with_rendezvous`]; an infinite limit sends none
    /// so), counted without building anything ([`DagCensus::size`]).
    fn dag_size(&self, chunks: u32, eager_limit_bytes: f64) -> Result<DagSize, WorkloadError> {
        if chunks == 0 {
            return Err(no_chunks());
        }
        let k = f64::from(chunks);
        // The test `with_rendezvous` applies to each chunk `split_messages` makes.
        let census = self.census(&|bytes| bytes / k > eager_limit_bytes)?;
        Ok(census.size(chunks))
    }

    /// [`Motif::dag_size`], checked against the most a workload may hold
    /// ([`DagSize::check`]): the one check every motif makes before it builds its DAG.
    fn check_dag_size(
        &self,
        chunks: u32,
        eager_limit_bytes: f64,
    ) -> Result<DagSize, WorkloadError> {
        self.dag_size(chunks, eager_limit_bytes)?.check()
    }
}

/// A `WorkloadError` naming `motif` and its `field`.
pub(crate) fn invalid(motif: &str, field: &str, reason: impl Into<String>) -> WorkloadError {
    WorkloadError::Invalid {
        what: format!("{motif} {field}"),
        reason: reason.into(),
    }
}

/// `ranks`, if at least 2: a motif whose ranks send to one another needs a pair; the error
/// names `motif`'s `ranks`.
pub(crate) fn at_least_two_ranks(motif: &str, ranks: u32) -> Result<u32, WorkloadError> {
    if ranks < 2 {
        return Err(invalid(
            motif,
            "ranks",
            format!("needs at least 2 ranks to send to one another, got {ranks}"),
        ));
    }
    Ok(ranks)
}

/// Checks that `value` of `field` is at least 1.
pub(crate) fn check_positive(motif: &str, field: &str, value: u32) -> Result<(), WorkloadError> {
    if value == 0 {
        Err(invalid(motif, field, "must be at least 1, got 0"))
    } else {
        Ok(())
    }
}

/// Checks that `value` of `field`, a quantity in `unit` (seconds, bytes), is finite and not
/// negative.
pub(crate) fn check_non_negative(
    motif: &str,
    field: &str,
    value: f64,
    unit: &str,
) -> Result<(), WorkloadError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(invalid(
            motif,
            field,
            format!("must be a finite number of {unit} >= 0, got {value}"),
        ))
    }
}

/// Checks what every motif of equal messages in rounds takes: at least one iteration, then
/// `compute_s` (seconds of compute per round) and `size_bytes` (bytes per message) finite
/// and not negative; the first that fails names its field (`iterations`, `compute_s`,
/// `size_bytes`).
pub(crate) fn check_rounds(
    motif: &str,
    iterations: u32,
    compute_s: f64,
    size_bytes: f64,
) -> Result<(), WorkloadError> {
    check_positive(motif, "iterations", iterations)?;
    check_non_negative(motif, "compute_s", compute_s, "seconds")?;
    check_non_negative(motif, "size_bytes", size_bytes, "bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_motif_of_messages_needs_a_pair_of_ranks() {
        assert_eq!(at_least_two_ranks("alltoall", 2), Ok(2));
        for ranks in [0, 1] {
            let WorkloadError::Invalid { what, reason } =
                at_least_two_ranks("alltoall", ranks).unwrap_err()
            else {
                panic!("not Invalid");
            };
            assert_eq!(what, "alltoall ranks");
            assert!(reason.ends_with(&format!("got {ranks}")), "{reason}");
        }
    }

    #[test]
    fn rounds_name_their_first_bad_field() {
        assert_eq!(check_rounds("stencil", 1, 0.0, 0.0), Ok(()));
        for (iterations, compute_s, size_bytes, field) in [
            (0, -1.0, -1.0, "iterations"),
            (1, f64::NAN, -1.0, "compute_s"),
            (1, 0.0, f64::INFINITY, "size_bytes"),
        ] {
            let Err(WorkloadError::Invalid { what, .. }) =
                check_rounds("stencil", iterations, compute_s, size_bytes)
            else {
                panic!("not Invalid");
            };
            assert_eq!(what, format!("stencil {field}"));
        }
    }
}
