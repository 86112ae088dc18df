//! Runs jobs (DAGs of messages and compute) on the packet engine.

use super::engine::{to_ps, Engine, CLOCK_LIMIT_S, PS_PER_S};
use super::event::Step;
use super::{PacketConfig, PacketCounters, PacketError, SoftErrors};
use crate::fabric::Fabric;
use crate::faults::Faults;
use crate::interrupt;
use crate::routing::Routing;
use crate::sim::flow::JobResult;
use crate::workload::{HostTimeline, Job, JobsProgress, Op};

/// The outcome of a packet simulation of jobs.
#[derive(Debug, Clone, PartialEq)]
pub struct PacketResult {
    /// One entry per job, in the order given (as the flow engine reports them).
    pub jobs: Vec<JobResult>,
    /// Time the last operation of any job ended, in seconds.
    pub end_s: f64,
    /// The same, in picoseconds.
    pub end_ps: u64,
    /// Packets, bytes, retransmissions and the invariant checks.
    pub counters: PacketCounters,
    /// Payload bytes each channel carried, resends not counted.
    pub channel_bytes: Vec<u64>,
}

/// Runs `jobs` on `fabric` under `faults` with `routing` until every operation is done;
/// `errors` corrupts transmissions (use [`SoftErrors::none`] for a clean fabric). Message
/// sizes are rounded to whole bytes; each job's host costs ([`Job::host`]) delay its
/// messages on their ranks' cores before they enter the network and after they arrive.
/// Fails when a message cannot be routed, the fabric deadlocks, the run passes the clock, or
/// a stop is requested ([`crate::interrupt`]).
pub fn simulate(
    fabric: &Fabric,
    faults: &Faults,
    routing: &dyn Routing,
    jobs: &[Job],
    config: PacketConfig,
    errors: &mut SoftErrors,
) -> Result<PacketResult, PacketError> {
    let mut progress = JobsProgress::<u64>::new(jobs);
    let mut engine = Engine::new(fabric, faults, routing, config, errors)?;
    let mut host = HostTimeline::new(jobs);
    // Which messages have entered the network: a driver timer of a message not yet posted
    // posts it (its sender's host costs paid), one of a posted message ends it (its
    // receiver's paid).
    let mut posted = vec![
        false;
        if host.is_free() {
            0
        } else {
            progress.num_ops()
        }
    ];
    let mut ready = progress.initially_ready();
    let mut starting: Vec<u32> = Vec::new();
    let mut arrived: Vec<u32> = Vec::new();
    let mut done: Vec<u32> = Vec::new();
    let mut completed: Vec<(u32, f64)> = Vec::new();
    loop {
        interrupt::check()?;
        // Released operations start in the order they were released (a rank's sends in
        // its DAG's order, as the flow engine starts them).
        std::mem::swap(&mut ready, &mut starting);
        for g in starting.drain(..) {
            match progress.op(g) {
                (j, _, Op::Compute { rank, seconds }) => {
                    let end_ps = if host.is_free() {
                        engine.now_ps.checked_add(to_ps(seconds))
                    } else {
                        let now_s = engine.now_ps as f64 / PS_PER_S;
                        let end_s = host.compute(j, rank, seconds, now_s);
                        (end_s < CLOCK_LIMIT_S).then(|| to_ps(end_s))
                    }
                    .ok_or(PacketError::ClockPassed {
                        limit_s: CLOCK_LIMIT_S,
                    })?;
                    engine.schedule_external(end_ps, g);
                    // Messages that waited for receives the compute's round posted.
                    host.take_completed(&mut completed);
                    for (m, at) in completed.drain(..) {
                        engine.schedule_external(to_ps(at).max(engine.now_ps), m);
                    }
                }
                (j, _, op @ Op::PostReceive { .. }) => {
                    let now_s = engine.now_ps as f64 / PS_PER_S;
                    if let Some(at) = host.depart(g, j, &op, now_s) {
                        engine.schedule_external(to_ps(at), g);
                    }
                }
                (j, _, op) => {
                    let now_s = engine.now_ps as f64 / PS_PER_S;
                    match host.depart(g, j, &op, now_s).map(to_ps) {
                        Some(at_ps) if at_ps > engine.now_ps => engine.schedule_external(at_ps, g),
                        Some(_) => post(&mut engine, &mut host, &mut posted, &progress, g)?,
                        None => {}
                    }
                }
            }
            arrived.append(&mut engine.finished);
        }
        if arrived.is_empty() && done.is_empty() {
            match engine.next()? {
                Some(Step::Timer(g)) => match progress.op(g) {
                    (_, _, op)
                        if !host.is_free() && op.message().is_some() && !posted[g as usize] =>
                    {
                        post(&mut engine, &mut host, &mut posted, &progress, g)?;
                        arrived.append(&mut engine.finished);
                    }
                    _ => done.push(g),
                },
                Some(Step::Finished) => arrived.append(&mut engine.finished),
                None => break,
            }
        }
        // Messages whose last byte arrived end once their receivers' cores are done.
        for g in arrived.drain(..) {
            let (j, _, op) = progress.op(g);
            let now_s = engine.now_ps as f64 / PS_PER_S;
            match host.arrive(g, j, &op, now_s).map(to_ps) {
                Some(at_ps) if at_ps > engine.now_ps => engine.schedule_external(at_ps, g),
                Some(_) => done.push(g),
                None => {}
            }
        }
        // Operations done now release their successors.
        while let Some(g) = done.pop() {
            progress.finish(g, engine.now_ps, &mut ready);
        }
    }
    if engine.passed_clock() {
        return Err(PacketError::ClockPassed {
            limit_s: CLOCK_LIMIT_S,
        });
    }
    let in_flight = engine.messages_in_flight();
    if in_flight > 0 {
        return Err(PacketError::Deadlock {
            messages: in_flight,
            at_s: engine.now_ps as f64 / PS_PER_S,
        });
    }
    let job_end_ps = progress.job_end();
    let end_ps = job_end_ps.iter().copied().max().unwrap_or(0);
    let results = jobs
        .iter()
        .zip(job_end_ps)
        .map(|(j, &end)| JobResult::new(j, end as f64 / PS_PER_S))
        .collect();
    Ok(PacketResult {
        jobs: results,
        end_s: end_ps as f64 / PS_PER_S,
        end_ps,
        counters: engine.final_counters(),
        channel_bytes: engine.channel_bytes.clone(),
    })
}

/// Puts message `g` into the network now; its sender's core goes on with the messages
/// that arrived meanwhile and its next send ([`HostTimeline::handed_off`]), on timers.
fn post(
    engine: &mut Engine,
    host: &mut HostTimeline,
    posted: &mut [bool],
    progress: &JobsProgress<u64>,
    g: u32,
) -> Result<(), PacketError> {
    let (j, job, op) = progress.op(g);
    let Some((src, dst, size_bytes)) = op.message() else {
        unreachable!("only messages are posted")
    };
    if let Some(p) = posted.get_mut(g as usize) {
        *p = true;
    }
    let (a, b) = (job.placement[src as usize], job.placement[dst as usize]);
    engine.post(a, b, size_bytes.round() as u64, g)?;
    let now_s = engine.now_ps as f64 / PS_PER_S;
    let mut done = Vec::new();
    let next = host.handed_off(j, &op, now_s, &mut done);
    for (m, at) in done.into_iter().chain(next) {
        engine.schedule_external(to_ps(at).max(engine.now_ps), m);
    }
    Ok(())
}
