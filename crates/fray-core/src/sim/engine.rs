//! One entry point for every engine: run placed jobs and get each job's time per iteration
//! (errors are the packet engine's, which include the routing's).

use std::str::FromStr;

use super::flow::{simulate as flow_simulate, FlowConfig, JobResult};
use super::load::static_load;
use super::packet::{simulate as packet_simulate, PacketConfig, PacketError, SoftErrors};
use crate::fabric::Fabric;
use crate::faults::Faults;
use crate::routing::{Routing, RoutingError};
use crate::workload::{Job, Message, Op};

/// The engines a workload can run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// The static load engine: a bandwidth estimate per job (see [`run`]).
    Load,
    /// The flow engine: max-min fair fluid simulation of the jobs' DAGs.
    Flow,
    /// The packet engine with its default settings ([`PacketConfig`]), as many virtual
    /// channels as the routing needs ([`PacketConfig::with_enough_vcs`]) and no soft errors;
    /// with `route_per_packet`, every packet is routed on its own as it leaves its source
    /// ([`PacketConfig::route_per_packet`]).
    Packet {
        /// Route every packet on its own instead of once per message.
        route_per_packet: bool,
    },
}

impl FromStr for Engine {
    type Err = String;

    /// Reads `load`, `flow`, `packet` (routing once per message) or `packet:route=packet`
    /// (routing every packet on its own; `packet:route=message` is plain `packet`).
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "load" => Ok(Self::Load),
            "flow" => Ok(Self::Flow),
            "packet" | "packet:route=message" => Ok(Self::Packet {
                route_per_packet: false,
            }),
            "packet:route=packet" => Ok(Self::Packet {
                route_per_packet: true,
            }),
            other => Err(format!(
                "unknown engine {other:?} (known: load, flow, packet, packet:route=packet)"
            )),
        }
    }
}

impl Engine {
    /// The engine's name, as [`Engine::from_str`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Load => "load",
            Self::Flow => "flow",
            Self::Packet {
                route_per_packet: false,
            } => "packet",
            Self::Packet {
                route_per_packet: true,
            } => "packet:route=packet",
        }
    }
}

/// Runs `jobs` on `engine` and returns one result per job.
///
/// - `Flow`: [`flow_simulate`] with `config`.
/// - `Packet`: [`packet_simulate`] with the default [`PacketConfig`] (its seed from
///   `config.seed`, its routing per message or per packet as asked) and no soft errors.
/// - `Load`: for each job as if it ran alone, every message of its DAG routed at once by the
///   static load engine (routing choices from `config.seed`): the busiest channel's bytes
///   over its bandwidth plus the slowest path's latency ([`static_load`]'s phase time), plus
///   the most compute any rank does, plus the most host time ([`Job::host`]) any rank spends
///   sending and the most any spends receiving, over the number of iterations. A static estimate in no
///   time at all: exact for one message or a phase bound by one channel, and blind to the
///   order in which the DAG sends.
pub fn run(
    engine: Engine,
    fabric: &Fabric,
    faults: &Faults,
    routing: &dyn Routing,
    jobs: &[Job],
    config: FlowConfig,
) -> Result<Vec<JobResult>, PacketError> {
    Ok(match engine {
        Engine::Flow => flow_simulate(fabric, faults, routing, jobs, config)?.jobs,
        Engine::Load => jobs
            .iter()
            .map(|job| load_bound(fabric, faults, routing, job, config.seed))
            .collect::<Result<_, _>>()?,
        Engine::Packet { route_per_packet } => {
            let packets = PacketConfig {
                seed: config.seed,
                route_per_packet,
                ..PacketConfig::default()
            }
            .with_enough_vcs(fabric, routing);
            let mut errors = SoftErrors::none(fabric.channels().len());
            packet_simulate(fabric, faults, routing, jobs, packets, &mut errors)?.jobs
        }
    })
}

fn load_bound(
    fabric: &Fabric,
    faults: &Faults,
    routing: &dyn Routing,
    job: &Job,
    seed: u64,
) -> Result<JobResult, RoutingError> {
    let mut messages = Vec::new();
    // Compute, and host time sending and receiving, per rank, in seconds.
    let ranks = job.dag.num_ranks() as usize;
    let (mut compute, mut sending, mut receiving) = (
        vec![0.0f64; ranks],
        vec![0.0f64; ranks],
        vec![0.0f64; ranks],
    );
    for op in job.dag.ops() {
        match *op {
            Op::Send {
                src,
                dst,
                size_bytes,
            } => {
                sending[src as usize] += job.host.send_cost_s(size_bytes);
                receiving[dst as usize] += job.host.recv_cost_s(size_bytes);
                messages.push(Message {
                    src,
                    dst,
                    size_bytes,
                });
            }
            Op::Compute { rank, seconds } => compute[rank as usize] += seconds,
        }
    }
    let load = static_load(fabric, faults, routing, &job.placement, &messages, seed)?;
    let most = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    let makespan_s = load.phase_time_s + most(&compute) + most(&sending) + most(&receiving);
    Ok(JobResult::new(job, makespan_s))
}
