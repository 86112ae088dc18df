//! One simulation of any workload on any engine, the way a user asks for it: a workload
//! spec's jobs, one phase of messages, or open-loop traffic, on a fabric under faults with a
//! routing named by its spec. What `fray.simulate` runs.

use super::flow::{FlowConfig, JobResult};
use super::load::LoadReport;
use super::packet::{traffic, PacketConfig, TrafficConfig, TrafficResult};
use super::{run, Engine, SimError};
use crate::fabric::Fabric;
use crate::faults::Faults;
use crate::links::throughput;
use crate::routing;
use crate::workload::{HostCosts, Job, Message, WorkloadSpec};

/// What one simulation runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Workload {
    /// The jobs of a workload spec, placed with the simulation's seed
    /// ([`WorkloadSpec::place`]), as a study places them.
    Jobs(WorkloadSpec),
    /// One phase of independent messages between endpoints, all posted at time 0, as one job
    /// named `messages` with rank `i` on endpoint `i` ([`Job::from_messages`]).
    Messages(Vec<Message>),
    /// Open-loop uniform random traffic at an offered load (the packet engine only).
    Traffic(TrafficConfig),
}

/// One simulation: a workload, the routing, the engine and the seed.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    /// What runs.
    pub workload: Workload,
    /// The routing spec ([`routing::build`]); `None`: the fabric's own
    /// ([`routing::default_for`]).
    pub routing: Option<String>,
    /// The engine; `None`: the flow engine for jobs and messages, the packet engine for
    /// traffic ([`Simulation::engine`]).
    pub engine: Option<Engine>,
    /// The flow engine's time tolerance ([`FlowConfig::time_tolerance`]) in place of the
    /// engine's own (`None`: the engine's; the other engines have none).
    pub time_tolerance: Option<f64>,
    /// The flow engine's time resolution in seconds ([`FlowConfig::time_resolution_s`]) in
    /// place of the engine's own (`None`: the engine's).
    pub time_resolution_s: Option<f64>,
    /// Host costs charged on every rank's core, in place of the workload spec's (`None`:
    /// the spec's, none for messages; traffic takes none).
    pub host: Option<HostCosts>,
    /// Seed of the layout and of the routings' and the engine's random choices.
    pub seed: u64,
}

/// What a [`Simulation`] gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulated {
    /// The engine that ran, with its settings as asked for ([`Simulation::engine`]).
    pub engine: Engine,
    /// Virtual channels per channel the packet engine ran with: its `vcs` raised to what the
    /// routing needs ([`PacketConfig::with_enough_vcs`]); `None` on the other engines.
    pub vcs: Option<u16>,
    /// The routing spec used.
    pub routing: String,
    /// One result per job, in placement order (empty for traffic).
    pub jobs: Vec<JobResult>,
    /// Ranks of each job, as `jobs`.
    pub ranks: Vec<u32>,
    /// Bytes each channel carried over the run, by channel ([`super::Run::channel_bytes`];
    /// empty for traffic).
    pub channel_bytes: Vec<f64>,
    /// What open-loop traffic measured (`None` for jobs and messages).
    pub traffic: Option<TrafficResult>,
    /// The load engine's report of each job's messages ([`super::Run::loads`]; empty on
    /// the other engines).
    pub loads: Vec<LoadReport>,
    /// For a phase of messages on the flow engine, when each message's last byte arrived, in
    /// seconds, in the order given; empty otherwise.
    pub message_end_s: Vec<f64>,
}

impl Simulated {
    /// Machine throughput: rank-iterations per second summed over the jobs, as the links
    /// study's tables count it (0 for traffic).
    pub fn throughput(&self) -> f64 {
        let iteration_s: Vec<f64> = self.jobs.iter().map(|j| j.iteration_s).collect();
        throughput(&self.ranks, &iteration_s)
    }
}

impl Simulation {
    /// The engine that runs: the one given (else the flow engine with its defaults, or the
    /// packet engine for traffic), with [`Simulation::time_tolerance`] and
    /// [`Simulation::time_resolution_s`] when given and it is the flow engine
    /// ([`Engine::with_flow_times`]: refused where they differ from what the engine spec
    /// sets).
    pub fn engine(&self) -> Result<Engine, SimError> {
        let default = match self.workload {
            Workload::Traffic(_) => Engine::Packet(PacketConfig::default()),
            Workload::Jobs(_) | Workload::Messages(_) => Engine::Flow(FlowConfig::default()),
        };
        self.engine
            .unwrap_or(default)
            .with_flow_times(self.time_tolerance, self.time_resolution_s)
    }

    /// Runs the simulation on `fabric` under `faults`. Errors name the setting at fault:
    /// traffic on another engine than the packet engine (`engine`), host costs given for
    /// traffic or twice (in the spec and as `host`), an unroutable pair, a workload that
    /// does not fit.
    pub fn run(&self, fabric: &Fabric, faults: &Faults) -> Result<Simulated, SimError> {
        let name = self
            .routing
            .clone()
            .unwrap_or_else(|| routing::default_for(fabric).to_string());
        let router = routing::build(&name, fabric, faults)?;
        let engine = self.engine()?;
        let host_error = |reason: &str| SimError::Config {
            field: "host",
            reason: reason.to_string(),
        };
        let jobs = match &self.workload {
            Workload::Traffic(config) => {
                let Engine::Packet(packets) = engine else {
                    return Err(SimError::Config {
                        field: "engine",
                        reason: format!("traffic runs on the packet engine, not {engine}"),
                    });
                };
                if self.host.is_some() {
                    return Err(host_error("traffic charges no host costs"));
                }
                let packets = PacketConfig {
                    seed: self.seed,
                    ..packets
                }
                .with_enough_vcs(fabric, router.as_ref());
                let measured = traffic(fabric, faults, router.as_ref(), packets, *config)?;
                return Ok(Simulated {
                    engine,
                    vcs: Some(packets.vcs),
                    routing: name,
                    jobs: Vec::new(),
                    ranks: Vec::new(),
                    channel_bytes: Vec::new(),
                    traffic: Some(measured),
                    loads: Vec::new(),
                    message_end_s: Vec::new(),
                });
            }
            Workload::Jobs(spec) => match self.host {
                Some(_) if spec.host != HostCosts::NONE => {
                    return Err(host_error("given twice: in the workload spec and as host"))
                }
                Some(host) => WorkloadSpec {
                    host,
                    ..spec.clone()
                }
                .place(fabric, self.seed)?,
                None => spec.place(fabric, self.seed)?,
            },
            Workload::Messages(messages) => {
                Message::check_all(messages, fabric.num_endpoints())?;
                let job = Job::from_messages("messages", messages, fabric)?;
                vec![job.with_host(self.host.unwrap_or(HostCosts::NONE))]
            }
        };
        let r = run(engine, fabric, faults, router.as_ref(), &jobs, self.seed)?;
        let vcs = match engine {
            Engine::Packet(packets) => Some(packets.with_enough_vcs(fabric, router.as_ref()).vcs),
            Engine::Load | Engine::Flow(_) => None,
        };
        Ok(Simulated {
            engine,
            vcs,
            routing: name,
            ranks: jobs.iter().map(|j| j.dag.num_ranks()).collect(),
            jobs: r.jobs,
            channel_bytes: r.channel_bytes,
            traffic: None,
            loads: r.loads,
            message_end_s: if matches!(self.workload, Workload::Messages(_)) {
                r.op_end_s
            } else {
                Vec::new()
            },
        })
    }
}
