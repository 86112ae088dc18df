//! The flow engine against closed forms: one flow gets its bottleneck, n flows on one channel
//! get 1/n each, the textbook max-min example, latency paid once per message, DAG
//! dependencies in time, agreement with the load engine's bound on a single phase, the
//! time tolerance's rule for flows that end: held only to merge ends closer than the window,
//! and a FIFO NIC sending one message at a time.

use fray_core::fabric::{ChannelId, RouterId};
use fray_core::fabric::{Fabric, FabricBuilder, LinkParameters, Topology};
use fray_core::faults::Faults;
use fray_core::routing::{DimensionOrder, RouteRequest, Routing, RoutingError};
use fray_core::sim::flow::{simulate, FlowConfig, FlowResult, NicOrder};
use fray_core::sim::load::static_load;
use fray_core::workload::{DagBuilder, Halo3D26, Job, Message, Motif, Op, Stencil, StencilKind};

fn link(bandwidth_bytes_s: f64, latency_s: f64) -> LinkParameters {
    LinkParameters {
        bandwidth_bytes_s,
        latency_s,
        lanes: 1,
    }
}

const EXACT: FlowConfig = FlowConfig::EXACT;

/// A line of routers 0 - 1 - 2 - 3 with the given cable bandwidths, one endpoint each, host
/// links far faster than any cable, no latency.
fn line(bandwidths: &[f64]) -> Fabric {
    let mut b = FabricBuilder::new(bandwidths.len() + 1);
    let class = b.class("wire");
    for (i, &bw) in bandwidths.iter().enumerate() {
        b.cable(i as u32, i as u32 + 1, class, link(bw, 0.0))
            .unwrap();
    }
    b.endpoints_everywhere(1, link(1e18, 0.0)).unwrap();
    b.build(Topology::Graph).unwrap()
}

/// One job whose ranks are the fabric's endpoints, sending `messages` all at time 0.
fn phase(fabric: &Fabric, messages: &[(u32, u32, f64)]) -> Job {
    let messages: Vec<Message> = messages
        .iter()
        .map(|&(src, dst, size_bytes)| Message {
            src,
            dst,
            size_bytes,
        })
        .collect();
    Job::from_messages("phase", &messages, fabric).unwrap()
}

/// `job` alone on healthy `f` with [`LineRouting`] and `config`.
fn run_alone(f: &Fabric, job: &Job, config: FlowConfig) -> FlowResult {
    simulate(
        f,
        &Faults::none(f),
        &LineRouting,
        std::slice::from_ref(job),
        config,
    )
    .unwrap()
}

/// Two routers, one endpoint each: a 1 GB/s cable of 1 us, host links far faster of 2 us
/// (5 us from endpoint to endpoint).
fn pair_with_latency() -> Fabric {
    let mut b = FabricBuilder::new(2);
    let class = b.class("wire");
    b.cable(0, 1, class, link(1e9, 1e-6)).unwrap();
    b.endpoints_everywhere(1, link(1e18, 2e-6)).unwrap();
    b.build(Topology::Graph).unwrap()
}

/// Routing along a line of routers (or between the two routers of a pair).
struct LineRouting;

impl Routing for LineRouting {
    fn name(&self) -> &'static str {
        "line"
    }

    fn route_into(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        path.clear();
        let mut at = src;
        while at != dst {
            let next = if dst > at { at + 1 } else { at - 1 };
            path.push(req.fabric.channel_between(at, next).unwrap());
            at = next;
        }
        Ok(())
    }
}

#[test]
fn one_flow_gets_its_bottleneck_bandwidth() {
    let f = line(&[4e9, 1e9, 8e9]);
    let job = phase(&f, &[(0, 3, 2e9)]);
    let r = simulate(&f, &Faults::none(&f), &LineRouting, &[job], EXACT).unwrap();
    assert!((r.end_s - 2.0).abs() < 1e-12, "{}", r.end_s);
}

#[test]
fn n_flows_on_one_channel_get_one_nth_each() {
    // Endpoints 0..4 on router 0, one endpoint on router 1; four flows share the cable.
    // Four NICs with one message each: the FIFO order changes nothing.
    let mut b = FabricBuilder::new(2);
    let class = b.class("wire");
    b.cable(0, 1, class, link(1e9, 0.0)).unwrap();
    b.endpoints(0, 4, link(1e18, 0.0)).unwrap();
    b.endpoints(1, 4, link(1e18, 0.0)).unwrap();
    let f = b.build(Topology::Graph).unwrap();
    let job = phase(&f, &[(0, 4, 1e9), (1, 5, 1e9), (2, 6, 1e9), (3, 7, 1e9)]);
    for nic in [NicOrder::Shared, NicOrder::Fifo] {
        let config = FlowConfig { nic, ..EXACT };
        let r = run_alone(&f, &job, config);
        for &end in &r.op_end_s {
            assert!(
                (end - 4.0).abs() < 1e-12,
                "{nic:?}: each gets 1/4 GB/s: {end}"
            );
        }
        assert_eq!(r.rate_solves, 1, "{nic:?}: the four flows end together");
    }
}

#[test]
fn textbook_max_min_with_three_links() {
    // Line 0-1-2-3, links A = (0,1) 1 GB/s, B = (1,2) 2 GB/s, C = (2,3) 1 GB/s.
    // Flow 0 crosses A and B, flow 1 crosses B and C, flow 2 crosses A only, flow 3 B only.
    // Max-min: flows 0 and 2 get 0.5 (A), flows 1 and 3 get 0.75 (B).
    // Sizes 0.5 GB each: flows 1 and 3 end at 2/3 s; then B has 1.5 for flow 0 but A still
    // limits it to 0.5: flows 0 and 2 end at 1 s.
    let f = line(&[1e9, 2e9, 1e9]);
    let job = phase(
        &f,
        &[(0, 2, 0.5e9), (1, 3, 0.5e9), (0, 1, 0.5e9), (1, 2, 0.5e9)],
    );
    let r = simulate(&f, &Faults::none(&f), &LineRouting, &[job], EXACT).unwrap();
    assert!((r.end_s - 1.0).abs() < 1e-12, "{}", r.end_s);
    // Every message's own completion time, in the order given.
    let expected = [1.0, 2.0 / 3.0, 1.0, 2.0 / 3.0];
    assert_eq!(r.op_end_s.len(), expected.len());
    for (k, (&got, want)) in r.op_end_s.iter().zip(expected).enumerate() {
        assert!((got - want).abs() < 1e-12, "message {k}: {got} vs {want}");
    }
    // One solve when the four start, one when the B flows end; the A flows end together.
    assert_eq!(r.rate_solves, 2);
}

/// Three messages of `sizes` bytes from endpoint 0 to endpoint 1 over one 1 GB/s cable, at
/// tolerance `tol` (no resolution): their end times and the rate solves.
fn three_on_one_cable(sizes: [f64; 3], tol: f64) -> (Vec<f64>, u64) {
    let f = line(&[1e9]);
    let job = phase(&f, &sizes.map(|s| (0, 1, s)));
    let config = FlowConfig {
        time_tolerance: tol,
        ..EXACT
    };
    let r = simulate(&f, &Faults::none(&f), &LineRouting, &[job], config).unwrap();
    (r.op_end_s, r.rate_solves)
}

fn assert_ends(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (k, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() < 1e-15,
            "message {k}: {g:e} s against {w:e} s"
        );
    }
}

#[test]
fn ends_farther_apart_than_the_window_are_exact() {
    // 1, 1.1 and 2 MB at 1/3 GB/s each: the first ends at 3 ms, the second 0.2 ms later
    // (1/2 GB/s), the third 0.9 ms after that (1 GB/s): each gap is far beyond the 3e-3
    // window (9 us), so no flow leaves early or keeps its bandwidth after its end.
    let sizes = [1e6, 1.1e6, 2e6];
    let (ends, solves) = three_on_one_cable(sizes, 3e-3);
    assert_ends(&ends, &[3e-3, 3.2e-3, 4.1e-3]);
    assert_eq!(solves, 3);
    assert_eq!(three_on_one_cable(sizes, 0.0), (ends, solves));
}

#[test]
fn a_flow_keeps_its_bandwidth_until_an_end_within_its_window() {
    // 1, 1.001 and 2 MB: exact, the second ends at 3.002 ms (1/2 GB/s after 3 ms). With a
    // tolerance of 3e-3 the first keeps its 1/3 GB/s after its end (3 ms) up to the second's
    // (3.003 ms at 1/3 GB/s, within 9 us): one solve for both ends, and the third gets the
    // whole cable from 3.003 ms for its last 0.999 MB. Every message within the tolerance.
    let sizes = [1e6, 1.001e6, 2e6];
    let (exact, exact_solves) = three_on_one_cable(sizes, 0.0);
    assert_ends(&exact, &[3e-3, 3.002e-3, 4.001e-3]);
    assert_eq!(exact_solves, 3);
    let (ends, solves) = three_on_one_cable(sizes, 3e-3);
    assert_ends(&ends, &[3e-3, 3.003e-3, 4.002e-3]);
    assert_eq!(solves, 2);
    for (e, f) in exact.iter().zip(&ends) {
        assert!((f - e).abs() <= 3e-3 * e);
    }
}

#[test]
fn latency_is_paid_once_and_dependencies_order_time() {
    let f = pair_with_latency();
    // compute 1 ms on rank 0, then send 1 MB to rank 1, then compute 2 ms on rank 1.
    let mut d = DagBuilder::new(2);
    let c0 = d.compute(0, 1e-3, &[]).unwrap();
    let m = d.send(0, 1, 1e6, &[c0]).unwrap();
    d.compute(1, 2e-3, &[m]).unwrap();
    let job = Job::new("chain", d.build(1).unwrap(), vec![0, 1], &f).unwrap();
    let r = simulate(&f, &Faults::none(&f), &LineRouting, &[job], EXACT).unwrap();
    // 1 ms + (2 + 1 + 2) us latency + 1 ms of bytes + 2 ms.
    let expected = 1e-3 + 5e-6 + 1e-3 + 2e-3;
    assert!(
        (r.end_s - expected).abs() < 1e-12,
        "{} vs {expected}",
        r.end_s
    );
    assert_eq!(r.jobs[0].makespan_s, r.end_s);
}

#[test]
fn a_compute_waits_for_every_message_it_depends_on() {
    // Rank 0 sends 1 MB and 2 MB to rank 1 over one 1 GB/s cable; rank 1 then computes 2 ms.
    // The two share the cable until the 1 MB ends (2 ms), the 2 MB has 1 MB left at the full
    // rate (3 ms), and only then may the compute start: the run ends at 5 ms.
    let f = line(&[1e9]);
    let mut d = DagBuilder::new(2);
    let short = d.send(0, 1, 1e6, &[]).unwrap();
    let long = d.send(0, 1, 2e6, &[]).unwrap();
    let compute = d.compute(1, 2e-3, &[short, long]).unwrap();
    let job = Job::new("join", d.build(1).unwrap(), vec![0, 1], &f).unwrap();
    for config in [EXACT, FlowConfig::default()] {
        let r = run_alone(&f, &job, config);
        let tol = 3.0 * config.time_tolerance;
        let end = |op: u32, want: f64| {
            let got = r.op_end_s[op as usize];
            assert!(
                (got - want).abs() <= 1e-12 + tol * want,
                "op {op}: {got} vs {want}"
            );
        };
        end(short, 2e-3);
        end(long, 3e-3);
        end(compute, 5e-3);
        assert!((r.end_s - 5e-3).abs() <= 1e-12 + tol * 5e-3, "{}", r.end_s);
    }
}

/// Rank 0 of [`pair_with_latency`] sends messages of `sizes` bytes to rank 1, all posted at
/// 0, then rank 1 computes 1 ms: when each message and the compute end, with NIC order
/// `nic`, exact.
fn one_sender(sizes: &[f64], nic: NicOrder) -> Vec<f64> {
    let f = pair_with_latency();
    let mut d = DagBuilder::new(2);
    let sends: Vec<u32> = sizes
        .iter()
        .map(|&bytes| d.send(0, 1, bytes, &[]).unwrap())
        .collect();
    d.compute(1, 1e-3, &sends).unwrap();
    let job = Job::new("sender", d.build(1).unwrap(), vec![0, 1], &f).unwrap();
    run_alone(&f, &job, FlowConfig { nic, ..EXACT }).op_end_s
}

fn assert_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (k, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() < 1e-12, "op {k}: {g:e} s against {w:e} s");
    }
}

#[test]
fn a_fifo_nic_sends_one_message_at_a_time_in_post_order() {
    // 2 MB then 1 KB: the NIC sends the 2 MB from 0 to 2 ms at the full 1 GB/s, then the
    // 1 KB to 2.001 ms; each arrives its path's 5 us later, and the compute follows the last.
    let lat = 5e-6;
    assert_close(
        &one_sender(&[2e6, 1e3], NicOrder::Fifo),
        &[2e-3 + lat, 2.001e-3 + lat, 3.001e-3 + lat],
    );
    // Shared, the two start together after 5 us at 0.5 GB/s each: the 1 KB arrives after
    // 2 us of bytes, and the 2 MB has the cable alone from then on.
    assert_close(
        &one_sender(&[2e6, 1e3], NicOrder::Shared),
        &[lat + 2.001e-3, lat + 2e-6, lat + 3.001e-3],
    );
    // Posted the other way round, the small message goes first under both.
    assert_close(
        &one_sender(&[1e3, 2e6], NicOrder::Fifo),
        &[1e-6 + lat, 2.001e-3 + lat, 3.001e-3 + lat],
    );
}

#[test]
fn no_operation_ends_before_what_it_waits_for() {
    // Three iterations of a 26-neighbour halo with compute on a small torus, at the study's
    // tolerance: every compute must start after each of its predecessors has ended.
    let f = Fabric::parse("torus:3x3x3,t=1").unwrap();
    let mut motif = Halo3D26::new(3, 3, 3);
    motif.nx = 6;
    motif.compute_s = 2e-6;
    motif.iterations = 3;
    let dag = motif.dag().unwrap();
    let job = Job::new("halo", dag.clone(), (0..27).collect(), &f).unwrap();
    let dor = DimensionOrder::new(&f).unwrap();
    let config = FlowConfig {
        time_tolerance: 3e-3,
        ..EXACT
    };
    let r = simulate(&f, &Faults::none(&f), &dor, &[job], config).unwrap();
    for (op, kind) in dag.ops().iter().enumerate() {
        for &next in dag.successors(op as u32) {
            // A message's start is not recorded; a compute's is its end less its length.
            let Op::Compute { seconds, .. } = dag.ops()[next as usize] else {
                continue;
            };
            let next_start = r.op_end_s[next as usize] - seconds;
            assert!(
                next_start >= r.op_end_s[op] * (1.0 - 1e-12),
                "op {next} starts at {next_start}, before op {op} ends at {}",
                r.op_end_s[op]
            );
        }
        assert!(r.op_end_s[op].is_finite(), "op {op} ({kind:?}) never ended");
    }
    let last = r.op_end_s.iter().copied().fold(0.0, f64::max);
    assert_eq!(r.end_s, last);
}

#[test]
fn single_phase_agrees_with_the_load_engine_bound() {
    // A 7-point exchange on its own torus: every network channel carries one message, every
    // host link six; with equal sizes both engines give the host link's time plus latency.
    let f = Fabric::cartesian(
        fray_core::fabric::Cartesian::torus(&[4, 4, 4]),
        link(1e9, 1e-7),
    )
    .unwrap();
    let messages = Stencil {
        kind: StencilKind::SevenP,
        periodic: true,
    }
    .messages(&[4, 4, 4], 1e6)
    .unwrap();
    let placement: Vec<u32> = (0..64).collect();
    let dor = DimensionOrder::new(&f).unwrap();
    let bound = static_load(&f, &Faults::none(&f), &dor, &placement, &messages, 1).unwrap();
    let triples: Vec<(u32, u32, f64)> = messages
        .iter()
        .map(|m| (m.src, m.dst, m.size_bytes))
        .collect();
    let job = phase(&f, &triples);
    let r = simulate(&f, &Faults::none(&f), &dor, &[job], EXACT).unwrap();
    // Every message waits 3 latencies (host, one hop, host), then shares its injection link
    // with five others: 6 MB at 1 GB/s.
    assert!((r.end_s - (6e-3 + 3e-7)).abs() < 1e-12, "{}", r.end_s);
    assert!((r.end_s - bound.phase_time_s).abs() < 1e-12);
}

#[test]
fn bytes_are_conserved_on_every_channel() {
    let f = Fabric::parse("torus:4x4,t=2").unwrap();
    let messages: Vec<(u32, u32, f64)> = (0..32u32)
        .map(|i| (i, (i * 7 + 3) % 32, 1000.0 + f64::from(i)))
        .filter(|(a, b, _)| a != b)
        .collect();
    let job = phase(&f, &messages);
    let dor = DimensionOrder::new(&f).unwrap();
    let r = simulate(&f, &Faults::none(&f), &dor, &[job], FlowConfig::default()).unwrap();
    let sent: f64 = messages.iter().map(|m| m.2).sum();
    assert!((r.delivered_bytes - sent).abs() < 1e-6);
    let placement: Vec<u32> = (0..32).collect();
    let msgs: Vec<_> = messages
        .iter()
        .map(|&(src, dst, size_bytes)| fray_core::workload::Message {
            src,
            dst,
            size_bytes,
        })
        .collect();
    let load = static_load(&f, &Faults::none(&f), &dor, &placement, &msgs, 1).unwrap();
    for (c, (&a, &b)) in r.channel_bytes.iter().zip(&load.bytes).enumerate() {
        assert!((a - b).abs() < 1e-6, "channel {c}: {a} vs {b}");
    }
}
