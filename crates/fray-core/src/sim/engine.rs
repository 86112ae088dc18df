//! One entry point for every engine: run placed jobs on an engine with its own settings and
//! get each job's time per iteration, with one error type for all engines ([`SimError`]).

use std::str::FromStr;

use super::flow::{simulate as flow_simulate, FlowConfig, JobResult, FLOW_OPTIONS};
use super::load::{static_load, LoadReport};
use super::packet::{simulate as packet_simulate, PacketConfig, SoftErrors, PACKET_OPTIONS};
use super::SimError;
use crate::fabric::Fabric;
use crate::faults::Faults;
use crate::options::OptionError;
use crate::options::{write_spec, OptionFamily};
use crate::routing::{CongestionUnit, Routing, RoutingError};
use crate::workload::{Job, Message, Op};

/// The engines a workload can run on, each with its own settings. The seed of a run is not
/// among them: [`run`] takes it apart, the same for every engine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Engine {
    /// The static load engine: a bandwidth estimate per job (see [`run`]); it has no
    /// settings.
    Load,
    /// The flow engine: max-min fair fluid simulation of the jobs' DAGs, with these time
    /// tolerance and resolution (its seed from the run's).
    Flow(FlowConfig),
    /// The packet engine with these settings, given at least as many virtual channels as
    /// the routing needs ([`PacketConfig::with_enough_vcs`]), its seed from the run's, and no
    /// soft errors.
    Packet(PacketConfig),
}

impl FromStr for Engine {
    type Err = OptionError;

    /// Reads `load`, or `flow` or `packet` optionally followed by `:` and the engine's options
    /// ([`FlowConfig::parse_options`], [`PacketConfig::parse_options`]), e.g.
    /// `flow:time_tolerance=0` or `packet:route=packet,mtu=2KiB,buffer=16KiB`; an error names
    /// the option (or `engine`).
    fn from_str(s: &str) -> Result<Self, OptionError> {
        let (name, options) = match s.trim().split_once(':') {
            Some((name, options)) => (name, Some(options)),
            None => (s.trim(), None),
        };
        match (name, options) {
            ("load", None) => Ok(Self::Load),
            ("flow", options) => FlowConfig::parse_options(options.unwrap_or(""))
                .map(Self::Flow)
                .map_err(|e| OptionError::new(e.field, format!("engine {s:?}: {}", e.message))),
            ("packet", options) => PacketConfig::parse_options(options.unwrap_or(""))
                .map(Self::Packet)
                .map_err(|e| OptionError::new(e.field, format!("engine {s:?}: {}", e.message))),
            ("load", Some(_)) => Err(OptionError::new(
                name,
                format!("engine {s:?}: {name} takes no options"),
            )),
            _ => Err(OptionError::new(
                "engine",
                format!(
                    "unknown engine {s:?} (known: load, flow[:OPTIONS] with OPTIONS from \
                     {FLOW_OPTIONS}, packet[:OPTIONS] with OPTIONS from {PACKET_OPTIONS})"
                ),
            )),
        }
    }
}

impl OptionFamily for Engine {
    const FAMILY: &'static str = "engine";

    fn kind(&self) -> &'static str {
        match self {
            Self::Load => "load",
            Self::Flow(_) => "flow",
            Self::Packet(_) => "packet",
        }
    }

    /// The flow or packet engine's options that differ from their defaults
    /// ([`FlowConfig::options`], [`PacketConfig::options`]); none for the load engine.
    fn options(&self) -> Vec<(&'static str, String)> {
        match self {
            Self::Flow(flows) => flows.options(),
            Self::Packet(packets) => packets.options(),
            Self::Load => Vec::new(),
        }
    }
}

impl std::fmt::Display for Engine {
    /// The engine as [`Engine::from_str`] reads it: the name, and the options that differ
    /// from the engine's defaults ([`OptionFamily::options`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write_spec(f, self.kind(), &self.options())
    }
}

/// What [`run`] gives: each job's result and where the bytes went.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// One result per job, in the order given.
    pub jobs: Vec<JobResult>,
    /// Bytes each channel carried over the whole run (every job, every iteration), indexed
    /// by channel: the flow engine's fluid bytes, the packet engine's payload bytes (resends
    /// not counted), the load engine's routed bytes of every job's messages.
    pub channel_bytes: Vec<f64>,
    /// The load engine's report of each job's messages (routes and bytes per channel,
    /// message collisions, the phase time), in the order of `jobs`; empty on the other
    /// engines.
    pub loads: Vec<LoadReport>,
    /// When each operation of the jobs ended, in seconds, jobs in the order given and each
    /// job's operations in its DAG's order: the flow engine's; empty on the other engines.
    pub op_end_s: Vec<f64>,
}

impl Engine {
    /// What this engine's congestion signal counts, the unit in which it reads a routing's
    /// bare amounts of congestion ([`crate::routing::check_congestion_unit`]).
    pub fn congestion_unit(&self) -> CongestionUnit {
        match self {
            Self::Load => CongestionUnit::Routes,
            Self::Flow(_) => CongestionUnit::Flows,
            Self::Packet(_) => CongestionUnit::Bytes,
        }
    }

    /// This engine with the flow engine's time tolerance and resolution (seconds) set where
    /// given, as the studies take them beside the engine spec; the load and packet engines,
    /// which have neither, as they are. A given value that differs from one the engine spec
    /// set (other than the default) is refused, naming it: the setting is given once.
    pub fn with_flow_times(
        self,
        time_tolerance: Option<f64>,
        time_resolution_s: Option<f64>,
    ) -> Result<Self, SimError> {
        let Self::Flow(config) = self else {
            return Ok(self);
        };
        let default = FlowConfig::default();
        let set = |field: &'static str, spec: f64, default: f64, given: Option<f64>| match given {
            Some(given) if spec != default && spec != given => Err(SimError::Config {
                field,
                reason: format!("the engine spec sets {spec} and the run {given}; give it once"),
            }),
            Some(given) => Ok(given),
            None => Ok(spec),
        };
        let config = FlowConfig {
            time_tolerance: set(
                "time_tolerance",
                config.time_tolerance,
                default.time_tolerance,
                time_tolerance,
            )?,
            time_resolution_s: set(
                "time_resolution",
                config.time_resolution_s,
                default.time_resolution_s,
                time_resolution_s,
            )?,
            ..config
        };
        config.check()?;
        Ok(Self::Flow(config))
    }
}

/// Runs `jobs` on `engine` with the routings' random choices drawn from `seed`, and returns
/// one result per job, with the bytes each channel carried. A stop requested before the run
/// starts ([`crate::interrupt`]) ends it with [`SimError::Interrupted`] on every engine.
///
/// - `Flow`: [`flow_simulate`] with the engine's [`FlowConfig`] (checked first,
///   [`FlowConfig::check`]) and its seed `seed`.
/// - `Packet`: [`packet_simulate`] with its [`PacketConfig`] (the seed `seed`, virtual
///   channels raised to what `routing` needs) and no soft errors.
/// - `Load`: for each job as if it ran alone, every message of its DAG routed at once by the
///   static load engine (routing choices from `seed`): the busiest channel's bytes
///   over its bandwidth plus the slowest path's latency ([`static_load`]'s phase time), plus
///   the most compute any rank does, plus the most host time ([`Job::host`]) any rank spends
///   sending and the most any spends receiving, plus the NIC latency on both sides
///   ([`crate::workload::HostCosts::nic_latency_s`]), over the number of iterations. A static estimate in no
///   time at all: exact for one message or a phase bound by one channel, and blind to the
///   order in which the DAG sends.
pub fn run(
    engine: Engine,
    fabric: &Fabric,
    faults: &Faults,
    routing: &dyn Routing,
    jobs: &[Job],
    seed: u64,
) -> Result<Run, SimError> {
    // A study of many short runs stops between them, whatever the engine.
    crate::interrupt::check()?;
    Ok(match engine {
        Engine::Flow(config) => {
            let config = FlowConfig { seed, ..config };
            config.check()?;
            let r = flow_simulate(fabric, faults, routing, jobs, config)?;
            Run {
                jobs: r.jobs,
                channel_bytes: r.channel_bytes,
                loads: Vec::new(),
                op_end_s: r.op_end_s,
            }
        }
        Engine::Load => {
            let mut channel_bytes = vec![0.0; fabric.channels().len()];
            let (jobs, loads) = jobs
                .iter()
                .map(|job| load_bound(fabric, faults, routing, job, seed, &mut channel_bytes))
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .unzip();
            Run {
                jobs,
                channel_bytes,
                loads,
                op_end_s: Vec::new(),
            }
        }
        Engine::Packet(packets) => {
            let packets = PacketConfig { seed, ..packets }.with_enough_vcs(fabric, routing);
            let mut errors = SoftErrors::none(fabric.channels().len());
            let r = packet_simulate(fabric, faults, routing, jobs, packets, &mut errors)?;
            Run {
                jobs: r.jobs,
                channel_bytes: r.channel_bytes.iter().map(|&b| b as f64).collect(),
                loads: Vec::new(),
                op_end_s: Vec::new(),
            }
        }
    })
}

/// One job's [`run`] on the load engine, with the load report of its messages; adds the
/// bytes its messages route over each channel to `channel_bytes`.
fn load_bound(
    fabric: &Fabric,
    faults: &Faults,
    routing: &dyn Routing,
    job: &Job,
    seed: u64,
    channel_bytes: &mut [f64],
) -> Result<(JobResult, LoadReport), RoutingError> {
    let mut messages = Vec::new();
    // Compute, and host time sending and receiving, per rank, in seconds.
    let ranks = job.dag.num_ranks() as usize;
    let (mut compute, mut sending, mut receiving) = (
        vec![0.0f64; ranks],
        vec![0.0f64; ranks],
        vec![0.0f64; ranks],
    );
    for op in job.dag.ops() {
        if let Some((src, dst, size_bytes)) = op.message() {
            sending[src as usize] += job.host.before_s(op);
            receiving[dst as usize] += job.host.after_s(op);
            if matches!(op, Op::Send { .. } | Op::Header { .. }) {
                // Its receive was posted on the receiver's core.
                receiving[dst as usize] += job.host.post_s;
            }
            messages.push(Message {
                src,
                dst,
                size_bytes,
            });
        } else if let Op::Compute { rank, seconds } = *op {
            compute[rank as usize] += seconds;
        } else {
            receiving[op.rank() as usize] += job.host.before_s(op);
        }
    }
    let load = static_load(fabric, faults, routing, &job.placement, &messages, seed)?;
    for (total, bytes) in channel_bytes.iter_mut().zip(&load.bytes) {
        *total += bytes;
    }
    let most = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    let nic_s = if messages.is_empty() {
        0.0
    } else {
        2.0 * job.host.nic_latency_s
    };
    let makespan_s = load.phase_time_s + nic_s + most(&compute) + most(&sending) + most(&receiving);
    Ok((JobResult::new(job, makespan_s), load))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::packet::{Arbitration, QueueView};
    use proptest::prelude::*;

    #[test]
    fn packet_options_set_the_packet_engine() {
        let e: Engine = "packet:route=packet, mtu=2048,buffer=16384"
            .parse()
            .unwrap();
        let Engine::Packet(p) = e else {
            panic!("{e:?}")
        };
        assert!(p.route_per_packet);
        assert_eq!((p.packet_bytes, p.buffer_bytes), (2048, 16384));
        assert_eq!(p.vcs, PacketConfig::default().vcs);
        assert_eq!(e.to_string(), "packet:route=packet,mtu=2048,buffer=16384");
        let merlin: Engine = "packet:queue=output,queue_cap=14336".parse().unwrap();
        let Engine::Packet(m) = merlin else {
            panic!("{merlin:?}")
        };
        assert_eq!(
            (m.queue_view, m.queue_cap_bytes),
            (QueueView::Output, 14336)
        );
        assert_eq!(merlin.to_string(), "packet:queue=output,queue_cap=14336");
        let nic: Engine = "packet:nic_setup=0.545us".parse().unwrap();
        let Engine::Packet(n) = nic else {
            panic!("{nic:?}")
        };
        assert_eq!(n.nic_setup_ps, 545_000);
        assert_eq!(nic.to_string(), "packet:nic_setup=545ns");
        assert_eq!(
            "packet:route=message"
                .parse::<Engine>()
                .unwrap()
                .to_string(),
            "packet"
        );
    }

    #[test]
    fn the_merlin_router_is_sst_hr_router_and_other_options_override_it() {
        let Engine::Packet(m) = "packet:router=merlin".parse::<Engine>().unwrap() else {
            panic!()
        };
        assert_eq!(
            (m.speedup, m.out_buffer_bytes, m.buffer_bytes),
            (1.5, 32_000, 32_000)
        );
        assert_eq!((m.input_latency_ps, m.output_latency_ps), (20_000, 20_000));
        assert!(m.route_per_packet);
        assert_eq!(m.queue_view, QueueView::Output);
        // The preset prints as its values, which read back to the same router.
        let printed = Engine::Packet(m).to_string();
        assert_eq!(
            printed,
            "packet:route=packet,buffer=32000,queue=output,speedup=1.5,out_buffer=32000,\
             input_latency=20ns,output_latency=20ns"
        );
        assert_eq!(printed.parse::<Engine>(), Ok(Engine::Packet(m)));
        // Other options override the preset wherever they stand; sizes take units.
        let Engine::Packet(o) = "packet:mtu=2KiB,buffer=16KiB,router=merlin,speedup=2"
            .parse::<Engine>()
            .unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (o.packet_bytes, o.buffer_bytes, o.speedup),
            (2048, 16384, 2.0)
        );
        assert_eq!(o.out_buffer_bytes, 32_000);
        let twice = "packet:router=merlin,router=input-queued".parse::<Engine>();
        let twice = twice.unwrap_err();
        assert!(twice.message.contains("option router is given twice"));
        assert_eq!(twice.field, "router");
    }

    #[test]
    fn bad_engines_are_refused_with_the_reason() {
        for (spec, field, reason) in [
            ("packets", "engine", "unknown engine"),
            (
                "flow:route=packet",
                "route",
                "unknown option \"route\" of the flow engine",
            ),
            ("load:seed=2", "load", "load takes no options"),
            (
                "flow:time_tolerance=0.5",
                "time_tolerance",
                "must be in [0, 0.5)",
            ),
            (
                "flow:time_resolution=1ms",
                "time_resolution",
                "must be in [0, 1 ms)",
            ),
            (
                "packet:route=flit",
                "route",
                "route must be message or packet",
            ),
            (
                "packet:mtu=big",
                "mtu",
                "mtu must be a whole number of bytes",
            ),
            ("packet:speed=1.5", "speed", "unknown option \"speed\""),
            (
                "packet:speedup=1.5",
                "speedup",
                "needs output buffers (out_buffer)",
            ),
            (
                "packet:speedup=0.5,out_buffer=4KiB",
                "speedup",
                "speedup: must be a number of at least 1",
            ),
            (
                "packet:out_buffer=100",
                "out_buffer",
                "out_buffer_bytes: must hold at least one packet",
            ),
            (
                "packet:mtu=2KiB,mtu=2048",
                "mtu",
                "option mtu is given twice",
            ),
            (
                "packet:router=cray",
                "router",
                "router must be input-queued or merlin",
            ),
            (
                "packet:input_latency=20",
                "input_latency",
                "input_latency: ",
            ),
            ("packet:mtu", "mtu", "is not KEY=VALUE"),
            ("packet:mtu=8192", "buffer", "must hold at least one packet"),
            ("packet:vcs=0", "vcs", "at least 1"),
            (
                "packet:queue=input",
                "queue",
                "queue must be downstream or output",
            ),
            ("packet:queue_cap=0", "queue_cap", "must be at least 1 byte"),
            ("packet:nic_setup=5", "nic_setup", "nic_setup: "),
            ("packet:nic_setup=-5ns", "nic_setup", "nic_setup"),
            (
                "packet:nic_setup=2e7s",
                "nic_setup",
                "nic_setup is 2e7 s, more than the 18446744 s the packet engine's clock holds",
            ),
            (
                "packet:input_latency=300d",
                "input_latency",
                "input_latency is 2.592e7 s, more than",
            ),
            (
                "packet:output_latency=1e30s",
                "output_latency",
                "output_latency is 1e30 s, more than",
            ),
            (
                "packet:queue_cap=-1",
                "queue_cap",
                "queue_cap must be a whole number of bytes",
            ),
        ] {
            let err = spec.parse::<Engine>().unwrap_err();
            assert!(err.message.contains(reason), "{spec}: {err}");
            assert_eq!(err.field, field, "{spec}: {err}");
        }
    }

    /// `engine` reads back from its printed spec and from its options of kind `kind`.
    fn reads_back(engine: Engine, kind: &str) -> Result<(), TestCaseError> {
        prop_assert_eq!(engine.to_string().parse::<Engine>(), Ok(engine));
        let options = engine.options();
        let options: Vec<(&str, &str)> = options.iter().map(|(k, v)| (*k, v.as_str())).collect();
        prop_assert_eq!(Engine::from_options(kind, &options), Ok(engine));
        Ok(())
    }

    proptest! {
        #[test]
        fn an_engine_reads_back_as_it_prints(
            route_per_packet: bool,
            packet_bytes in 1u32..=4096,
            extra_packets in 0u32..64,
            vcs in 1u16..8,
            round_robin: bool,
            output_queue: bool,
            queue_cap_bytes in prop_oneof![Just(u64::MAX), 1u64..1_000_000],
            nic_setup_ps in prop_oneof![Just(0u64), 1u64..10_000_000],
            router in prop_oneof![
                Just(None),
                (1.0f64..4.0, 1u32..64).prop_map(Some),
            ],
            input_latency_ps in prop_oneof![Just(0u64), 1u64..1_000_000],
            output_latency_ps in prop_oneof![Just(0u64), 1u64..1_000_000],
        ) {
            let (speedup, out_buffer_bytes) = match router {
                Some((s, packets)) => (s, packet_bytes * packets),
                None => (1.0, 0),
            };
            let engine = Engine::Packet(PacketConfig {
                route_per_packet,
                packet_bytes,
                buffer_bytes: packet_bytes * (1 + extra_packets),
                vcs,
                arbitration: if round_robin { Arbitration::RoundRobin } else { Arbitration::OldestFirst },
                queue_view: if output_queue { QueueView::Output } else { QueueView::Downstream },
                queue_cap_bytes,
                nic_setup_ps,
                speedup,
                out_buffer_bytes,
                input_latency_ps,
                output_latency_ps,
                ..PacketConfig::default()
            });
            reads_back(engine, "packet")?;
        }

        #[test]
        fn a_flow_engine_reads_back_as_it_prints(
            tolerance in prop_oneof![Just(FlowConfig::DEFAULT_TIME_TOLERANCE), 0.0f64..0.5],
            resolution_ps in prop_oneof![Just(10_000u64), 0u64..1_000_000_000],
        ) {
            let engine = Engine::Flow(FlowConfig {
                time_tolerance: tolerance,
                time_resolution_s: resolution_ps as f64 * 1e-12,
                ..FlowConfig::default()
            });
            reads_back(engine, "flow")?;
        }

        #[test]
        fn flow_times_are_given_once(tolerance in 0.0f64..0.5) {
            let spec: Engine = format!("flow:time_tolerance={tolerance}").parse().unwrap();
            // The study's setting may repeat the spec's or fill in what it leaves out.
            prop_assert_eq!(spec.with_flow_times(Some(tolerance), None), Ok(spec));
            let plain = Engine::Flow(FlowConfig::default());
            let Ok(Engine::Flow(set)) = plain.with_flow_times(Some(tolerance), Some(0.0)) else {
                panic!("refused");
            };
            prop_assert_eq!((set.time_tolerance, set.time_resolution_s), (tolerance, 0.0));
            if tolerance != FlowConfig::DEFAULT_TIME_TOLERANCE {
                let other = if tolerance == 0.1 { 0.2 } else { 0.1 };
                let refused = spec.with_flow_times(Some(other), None).unwrap_err();
                prop_assert_eq!(refused.field(), Some("time_tolerance"));
            }
            let packets = Engine::Packet(PacketConfig::default());
            prop_assert_eq!(packets.with_flow_times(Some(tolerance), Some(1.0)), Ok(packets));
        }

        #[test]
        fn any_text_parses_or_gets_a_reason(text in "\\PC{0,40}") {
            if let Err(why) = text.parse::<Engine>() {
                prop_assert!(!why.message.is_empty() && !why.field.is_empty());
            }
        }
    }
}
