//! Placing several jobs on one fabric: as the failed-links study does ("Architectures
//! Studied": "Endpoints not needed to fit problems are allocated randomly across the
//! network, then jobs are mapped linearly thereafter"), or linearly from the first endpoint
//! as SST's Ember places a job (`allocateNodes(ep, "linear")`).

use rand::SeedableRng;
use rand_pcg::Pcg64;

use super::motif::invalid;
use super::WorkloadError;
use crate::fabric::EndpointId;
use crate::options::OptionError;

/// How the jobs' ranks are placed on the fabric's endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// The endpoints no job needs are drawn at random and left idle, then the jobs take the
    /// rest linearly ([`linear_after_random_idle`]): the failed-links paper's layout, the
    /// default.
    #[default]
    RandomIdle,
    /// The jobs take the endpoints linearly from endpoint 0, job after job, and the idle
    /// endpoints are the last ones: SST Ember's linear allocation.
    Linear,
}

impl Layout {
    /// Every layout, in the order they are listed.
    pub const ALL: [Self; 2] = [Self::RandomIdle, Self::Linear];

    /// The name the workload option `layout=` takes.
    pub fn name(self) -> &'static str {
        match self {
            Self::RandomIdle => "random-idle",
            Self::Linear => "linear",
        }
    }

    /// Reads `random-idle` or `linear`; the error names the `layout` option.
    pub fn parse(text: &str) -> Result<Self, OptionError> {
        Self::ALL
            .into_iter()
            .find(|l| l.name() == text.trim())
            .ok_or_else(|| {
                OptionError::new(
                    "layout",
                    format!("layout must be random-idle or linear, got {text:?}"),
                )
            })
    }

    /// Places jobs of `job_ranks[j]` ranks on `num_endpoints` endpoints, job after job in
    /// increasing endpoint index, after leaving idle the endpoints this layout leaves idle
    /// (`seed` draws them for [`Layout::RandomIdle`]; [`Layout::Linear`] ignores it).
    /// Returns, per job, the endpoint of each rank.
    pub fn place(
        self,
        num_endpoints: usize,
        job_ranks: &[u32],
        seed: u64,
    ) -> Result<Vec<Vec<EndpointId>>, WorkloadError> {
        match self {
            Self::RandomIdle => linear_after_random_idle(num_endpoints, job_ranks, seed),
            Self::Linear => linear_from_first(num_endpoints, job_ranks),
        }
    }
}

/// The error when `job_ranks` do not fit on `num_endpoints` endpoints or the endpoints are
/// more than an [`EndpointId`] numbers.
fn check_fits(num_endpoints: usize, job_ranks: &[u32]) -> Result<u64, WorkloadError> {
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
    Ok(needed)
}

/// Jobs of `job_ranks[j]` ranks on endpoints `0, 1, ...` in order, job after job; the
/// endpoints after the last job's are idle.
fn linear_from_first(
    num_endpoints: usize,
    job_ranks: &[u32],
) -> Result<Vec<Vec<EndpointId>>, WorkloadError> {
    check_fits(num_endpoints, job_ranks)?;
    let mut next: EndpointId = 0;
    Ok(job_ranks
        .iter()
        .map(|&ranks| {
            let start = next;
            next += ranks;
            (start..next).collect()
        })
        .collect())
}

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
    let needed = check_fits(num_endpoints, job_ranks)?;
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
