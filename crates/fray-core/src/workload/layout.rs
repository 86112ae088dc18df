//! Placing several jobs on one fabric as the failed-links study does ("Architectures
//! Studied"): "Endpoints not needed to fit problems are allocated randomly across the
//! network, then jobs are mapped linearly thereafter."

use rand::SeedableRng;
use rand_pcg::Pcg64;

use super::motif::invalid;
use super::WorkloadError;
use crate::fabric::EndpointId;

/// Places jobs of `job_ranks[j]` ranks on `num_endpoints` endpoints: first the endpoints no
/// job needs (`num_endpoints - sum(job_ranks)` of them) are drawn uniformly at random
/// without replacement by a PCG generator seeded with `seed` and left idle; then the other
/// endpoints, in increasing index, take job 0's ranks in rank order, then job 1's, and so on.
///
/// Returns, per job, the endpoint of each rank (a placement for [`Job`](super::Job)). Every
/// endpoint serves at most one rank; the same seed gives the same layout.
pub fn linear_after_random_idle(
    num_endpoints: usize,
    job_ranks: &[u32],
    seed: u64,
) -> Result<Vec<Vec<EndpointId>>, WorkloadError> {
    let needed: u64 = job_ranks.iter().map(|&r| u64::from(r)).sum();
    if needed > num_endpoints as u64 {
        return Err(invalid(
            "layout",
            "jobs",
            format!("{job_ranks:?}: {needed} ranks do not fit on {num_endpoints} endpoints"),
        ));
    }
    if EndpointId::try_from(num_endpoints).is_err() {
        return Err(invalid(
            "layout",
            "endpoints",
            format!("{num_endpoints} endpoints are more than endpoint ids can number"),
        ));
    }
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut idle = vec![false; num_endpoints];
    let num_idle = num_endpoints - needed as usize;
    for e in rand::seq::index::sample(&mut rng, num_endpoints, num_idle) {
        idle[e] = true;
    }
    let mut free = (0..num_endpoints as EndpointId).filter(|&e| !idle[e as usize]);
    Ok(job_ranks
        .iter()
        .map(|&ranks| free.by_ref().take(ranks as usize).collect())
        .collect())
}
