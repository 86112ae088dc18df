//! A job: a DAG of work on its ranks, and the endpoints its ranks run on.

use super::{Dag, WorkloadError};
use crate::fabric::{EndpointId, Fabric};

/// One job placed on a fabric: rank `i` runs on endpoint `placement[i]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// A name for reports (`halo3d26-0`, ...).
    pub name: String,
    /// The work.
    pub dag: Dag,
    /// Endpoint of each rank.
    pub placement: Vec<EndpointId>,
}

impl Job {
    /// A job, checking that every rank has an endpoint of `fabric` and no two ranks share one.
    pub fn new(
        name: impl Into<String>,
        dag: Dag,
        placement: Vec<EndpointId>,
        fabric: &Fabric,
    ) -> Result<Self, WorkloadError> {
        let name = name.into();
        let bad = |reason: String| WorkloadError::Invalid {
            what: format!("job {name:?}"),
            reason,
        };
        if placement.len() != dag.num_ranks() as usize {
            return Err(bad(format!(
                "{} ranks but {} endpoints placed",
                dag.num_ranks(),
                placement.len()
            )));
        }
        let mut used = vec![false; fabric.num_endpoints()];
        for &e in &placement {
            let slot = used.get_mut(e as usize).ok_or_else(|| {
                bad(format!(
                    "endpoint {e} does not exist (the fabric has {})",
                    fabric.num_endpoints()
                ))
            })?;
            if *slot {
                return Err(bad(format!("two ranks on endpoint {e}")));
            }
            *slot = true;
        }
        Ok(Self {
            name,
            dag,
            placement,
        })
    }
}
