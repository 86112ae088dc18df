//! A job: a DAG of work on its ranks, and the endpoints its ranks run on.

use super::{Dag, DagBuilder, HostCosts, Message, WorkloadError};
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
    /// What each message costs its ranks' cores ([`HostCosts::NONE`] unless set with
    /// [`Job::with_host`]).
    pub host: HostCosts,
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
            host: HostCosts::NONE,
        })
    }

    /// The same job with `host` costs on its ranks' cores.
    pub fn with_host(self, host: HostCosts) -> Self {
        Self { host, ..self }
    }

    /// One phase of independent messages: rank `i` on endpoint `i` of `fabric` (every
    /// endpoint is a rank), and every message of `messages` (ranks are endpoints) posted at
    /// time 0, none waiting for another. Operation `k` of the DAG is message `k`, so an
    /// engine's per-operation results line up with `messages`. At least one message: a
    /// phase of none has no time, and its throughput would read infinite.
    pub fn from_messages(
        name: impl Into<String>,
        messages: &[Message],
        fabric: &Fabric,
    ) -> Result<Self, WorkloadError> {
        if messages.is_empty() {
            return Err(WorkloadError::Invalid {
                what: "messages".into(),
                reason: "give at least one message, got an empty list".into(),
            });
        }
        let num_ranks =
            u32::try_from(fabric.num_endpoints()).map_err(|_| WorkloadError::Invalid {
                what: "fabric".into(),
                reason: "more endpoints than a job can hold".into(),
            })?;
        let mut dag = DagBuilder::new(num_ranks);
        for m in messages {
            dag.send(m.src, m.dst, m.size_bytes, &[])?;
        }
        Self::new(name, dag.build(1)?, (0..num_ranks).collect(), fabric)
    }
}
