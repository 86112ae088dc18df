//! TopoBW on a modelled Gemini machine: the flow engine runs the test's phases one after the
//! other, with slow parts injected.

use super::{Layout, Plan, Report, Sharing};
use crate::diag::{apply_injections, DiagError, Injection};
use crate::fabric::{EndpointId, Fabric, LinkParameters};
use crate::faults::Faults;
use crate::routing::{self, Routing};
use crate::sim::flow::{simulate, FlowConfig};
use crate::workload::{DagBuilder, Job};
use rayon::prelude::*;

/// A modelled TopoBW run: its plan and its report.
#[derive(Debug, Clone, PartialEq)]
pub struct TopoBwRun {
    /// The phases that ran.
    pub plan: Plan,
    /// The report, one line per transfer in plan order.
    pub report: Report,
}

/// Runs TopoBW on `layout`'s machine with `injections` applied: each phase is one flow
/// simulation in which every transfer is a job of two ranks moving `count` messages of
/// `message_bytes` (all posted at once, so they share the path as one flow of their total
/// size); a transfer's time is its job's makespan. `routing` names the routing
/// (`dor-retry` as on Gemini); `sharing` whether partner nodes send alone, together or both.
/// Fails when a transfer is unroutable.
pub fn simulate_topobw(
    layout: &Layout,
    injections: &[Injection],
    message_bytes: f64,
    count: u32,
    sharing: Sharing,
    routing_name: &str,
) -> Result<TopoBwRun, DiagError> {
    transfer_bytes(message_bytes, count)?;
    let fabric = layout.gemini.fabric(LinkParameters::default().latency_s)?;
    let mut faults = Faults::none(&fabric);
    apply_injections(&layout.gemini, &fabric, &mut faults, injections)?;
    let routing = routing::build(routing_name, &fabric, &faults)?;
    let plan = Plan::new(layout, &fabric, sharing);
    let bytes = transfer_bytes(message_bytes, count)?;
    let phases = plan.phases.iter().map(|phase| {
        phase
            .transfers
            .iter()
            .map(|t| {
                (
                    layout.endpoints[t.src as usize],
                    layout.endpoints[t.dst as usize],
                )
            })
            .collect()
    });
    let seconds = run_phases(&fabric, &faults, &*routing, phases, bytes)?;
    let report = Report::from_run(layout, &plan, &seconds, bytes)?;
    Ok(TopoBwRun { plan, report })
}

/// Bytes of one transfer of `count` messages of `message_bytes`; fails unless both are
/// positive.
pub(crate) fn transfer_bytes(message_bytes: f64, count: u32) -> Result<f64, DiagError> {
    if !(message_bytes.is_finite() && message_bytes > 0.0) || count == 0 {
        return Err(DiagError::Invalid {
            what: "transfer".into(),
            reason: format!("{count} messages of {message_bytes} bytes: both must be positive"),
        });
    }
    Ok(message_bytes * f64::from(count))
}

/// Runs each phase (its transfers as `(sending endpoint, receiving endpoint)`) as one flow
/// simulation on `fabric`, every transfer a job of two ranks moving `bytes` as one message;
/// returns each transfer's duration (its job's makespan) in seconds, phase by phase. The
/// phases are independent simulations and run on all cores; the result does not depend on
/// the number of threads.
pub(crate) fn run_phases(
    fabric: &Fabric,
    faults: &Faults,
    routing: &dyn Routing,
    phases: impl IntoIterator<Item = Vec<(EndpointId, EndpointId)>>,
    bytes: f64,
) -> Result<Vec<f64>, DiagError> {
    let mut dag = DagBuilder::new(2);
    dag.send(0, 1, bytes, &[])?;
    let dag = dag.build(1)?;
    let phases: Vec<_> = phases.into_iter().collect();
    let per_phase = phases
        .into_par_iter()
        .map(|phase| {
            let jobs: Vec<Job> = phase
                .into_iter()
                .map(|(src, dst)| {
                    Job::new(format!("{src}->{dst}"), dag.clone(), vec![src, dst], fabric)
                })
                .collect::<Result<_, _>>()?;
            let result = simulate(fabric, faults, routing, &jobs, FlowConfig::default())?;
            Ok(result
                .jobs
                .iter()
                .map(|j| j.makespan_s)
                .collect::<Vec<f64>>())
        })
        .collect::<Result<Vec<_>, DiagError>>()?;
    Ok(per_phase.concat())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::gemini::{Gemini, NODE_LINK_BYTES_S, X_CABLE, Z_BACKPLANE};

    #[test]
    fn healthy_rates_follow_the_link_classes() {
        let layout = Layout::whole(Gemini::new([2, 2, 3]).unwrap());
        let run = simulate_topobw(&layout, &[], 4e6, 100, Sharing::Shared, "dor-retry").unwrap();
        for l in &run.report.lines {
            let want = match (l.dim, l.cable) {
                // Two partners share a link; a node sends at most its own link's rate.
                (0, _) => X_CABLE.bandwidth_bytes_s() / 2.0,
                (2, 'B') => (Z_BACKPLANE.bandwidth_bytes_s() / 2.0).min(NODE_LINK_BYTES_S),
                _ => continue,
            };
            assert!((l.bandwidth_bytes_s / want - 1.0).abs() < 1e-3, "{l:?}");
        }
    }

    #[test]
    fn a_lane_degrade_slows_only_its_link() {
        let layout = Layout::whole(Gemini::new([2, 2, 4]).unwrap());
        let inj = ["c0-0c0s1g0l27:1".parse().unwrap()];
        let run = simulate_topobw(&layout, &inj, 4e6, 10, Sharing::Shared, "dor-retry").unwrap();
        let base = simulate_topobw(&layout, &[], 4e6, 10, Sharing::Shared, "dor-retry").unwrap();
        let slower: Vec<String> = run
            .report
            .lines
            .iter()
            .zip(&base.report.lines)
            .filter(|(a, b)| a.bandwidth_bytes_s < 0.99 * b.bandwidth_bytes_s)
            .map(|(a, _)| format!("{} {}", a.src, a.dst))
            .collect();
        assert_eq!(slower, ["c0-0c0s1n0 c0-0c0s2n0", "c0-0c0s1n1 c0-0c0s2n1"]);
    }
}
