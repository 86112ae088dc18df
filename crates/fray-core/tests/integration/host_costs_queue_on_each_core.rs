//! Host costs against closed forms: a message pays its sender's cost before it enters the
//! network and its receiver's after its last byte arrives; one core's sends go one after
//! another, and so do its receives; every engine adds the same costs to one message.

use crate::common;

use common::packets::simulate_clean;
use fray_core::fabric::{Fabric, FabricBuilder, LinkParameters, Topology};
use fray_core::faults::Faults;
use fray_core::routing::build;
use fray_core::sim::flow::{simulate, FlowConfig};
use fray_core::sim::packet::PacketConfig;
use fray_core::sim::{run, Engine};
use fray_core::workload::{
    DagBuilder, HostCosts, Job, Message, Op, Progress, WorkloadSpec, CONTROL_BYTES,
};

const EXACT: FlowConfig = FlowConfig::EXACT;

/// Send 1 ms, receive 0.5 ms, no copies: far longer than any transfer below.
const SLOW_CORE: HostCosts = HostCosts {
    send_s: 1e-3,
    recv_s: 0.5e-3,
    ..HostCosts::NONE
};

/// A line of `n` routers with 1 GB/s cables, one endpoint each on a far faster host link, no
/// latency.
fn line(n: usize) -> Fabric {
    let link = |bandwidth_bytes_s| LinkParameters {
        bandwidth_bytes_s,
        latency_s: 0.0,
        lanes: 1,
    };
    let mut b = FabricBuilder::new(n);
    let class = b.class("wire");
    for i in 0..n as u32 - 1 {
        b.cable(i, i + 1, class, link(1e9)).unwrap();
    }
    b.endpoints_everywhere(1, link(1e18)).unwrap();
    b.build(Topology::Graph).unwrap()
}

fn phase(fabric: &Fabric, messages: &[(u32, u32, f64)], host: HostCosts) -> Job {
    let messages: Vec<Message> = messages.iter().map(|&m| m.into()).collect();
    Job::from_messages("phase", &messages, fabric)
        .unwrap()
        .with_host(host)
}

fn flow_ends(fabric: &Fabric, job: Job) -> (Vec<f64>, f64) {
    let faults = Faults::none(fabric);
    let routing = build("table", fabric, &faults).unwrap();
    let r = simulate(fabric, &faults, routing.as_ref(), &[job], EXACT).unwrap();
    (r.op_end_s, r.delivered_bytes)
}

#[test]
fn one_message_pays_send_copy_transfer_copy_receive() {
    // 1 MB at 1 GB/s is 1 ms; copies at 1 ns per byte are 1 ms on each side.
    let host = HostCosts {
        send_s: 0.1e-3,
        recv_s: 0.2e-3,
        send_copy_s_per_byte: 1e-9,
        recv_copy_s_per_byte: 1e-9,
        ..SLOW_CORE
    };
    let f = line(2);
    let (ends, _) = flow_ends(&f, phase(&f, &[(0, 1, 1e6)], host));
    let expected = (0.1e-3 + 1e-3) + 1e-3 + (0.2e-3 + 1e-3);
    assert!((ends[0] - expected).abs() < 1e-12, "{ends:?}");
}

#[test]
fn one_cores_sends_go_one_after_another() {
    // Rank 0 sends 100 kB (0.1 ms on the wire) to ranks 1 and 2: the second send is posted
    // once the first has cost its 1 ms, so the two never share the cable out of router 0.
    let f = line(3);
    let (ends, _) = flow_ends(&f, phase(&f, &[(0, 1, 1e5), (0, 2, 1e5)], SLOW_CORE));
    let expected = [1e-3 + 0.1e-3 + 0.5e-3, 2e-3 + 0.1e-3 + 0.5e-3];
    for (got, want) in ends.iter().zip(expected) {
        assert!((got - want).abs() < 1e-12, "{ends:?}");
    }
}

#[test]
fn the_nic_latency_delays_each_side_of_a_message_and_holds_no_core() {
    // 0.3 ms from core to NIC and back: rank 0's two sends of 100 kB leave 0.3 ms after
    // their 1 ms posts (the second post starts when the first ends, not 0.3 ms later), and
    // each receive starts 0.3 ms after its last byte. The load engine adds the two crossings
    // to its bound; the flow and packet engines agree on the makespan.
    let host = HostCosts {
        nic_latency_s: 0.3e-3,
        ..SLOW_CORE
    };
    let f = line(3);
    let (ends, _) = flow_ends(&f, phase(&f, &[(0, 1, 1e5), (0, 2, 1e5)], host));
    let (nic, wire, recv) = (0.3e-3, 0.1e-3, 0.5e-3);
    let expected = [
        1e-3 + nic + wire + nic + recv,
        2e-3 + nic + wire + nic + recv,
    ];
    for (got, want) in ends.iter().zip(expected) {
        assert!((got - want).abs() < 1e-12, "{ends:?}");
    }
    let (f, job) = line_job(2, host, |b| {
        b.send(0, 1, 1e5, &[]).unwrap();
    });
    let one = 1e-3 + nic + wire + nic + recv;
    for got in makespans(&f, &job) {
        assert!((got - one).abs() < 1e-9, "{got} against {one}");
    }
    let faults = Faults::none(&f);
    let routing = build("table", &f, &faults).unwrap();
    let jobs = std::slice::from_ref(&job);
    let bound = run(
        Engine::Load,
        &f,
        &faults,
        routing.as_ref(),
        jobs,
        EXACT.seed,
    )
    .unwrap();
    assert!((bound.jobs[0].makespan_s - one).abs() < 1e-9);
}

#[test]
fn one_cores_receives_go_one_after_another() {
    // Ranks 1 and 2 post at once (their own cores) to rank 0; both messages share the cable
    // into router 0 and arrive together after 0.2 ms; rank 0 completes one, then the other.
    let f = line(3);
    let (mut ends, delivered) = flow_ends(&f, phase(&f, &[(1, 0, 1e5), (2, 0, 1e5)], SLOW_CORE));
    ends.sort_by(f64::total_cmp);
    let arrival = 1e-3 + 0.2e-3;
    let expected = [arrival + 0.5e-3, arrival + 1e-3];
    for (got, want) in ends.iter().zip(expected) {
        assert!((got - want).abs() < 1e-12, "{ends:?}");
    }
    assert!(
        (delivered - 2e5).abs() < 1e-6,
        "bytes conserved: {delivered}"
    );
}

#[test]
fn long_messages_register_instead_of_copying() {
    let host = HostCosts::EMBER;
    let f = line(2);
    // 40,000 bytes is above Ember's 12,000-byte eager limit: 3 us + 9 pages x 100 ns on
    // each side, no copy.
    let (ends, _) = flow_ends(&f, phase(&f, &[(0, 1, 40_000.0)], host));
    let expected = (190e-9 + 3.9e-6) + 40_000.0 / 1e9 + (310e-9 + 3.9e-6);
    assert!((ends[0] - expected).abs() < 1e-12, "{ends:?}");
}

#[test]
fn long_messages_go_as_firefly_rendezvous_header_get_payload_ack() {
    // Each rank computes (no time), then rank 0 sends 40 kB to rank 1 and rank 1 sends
    // 12,000 bytes (eager) to rank 0.
    let f = line(2);
    let mut b = DagBuilder::new(2);
    let c0 = b.compute(0, 0.0, &[]).unwrap();
    let c1 = b.compute(1, 0.0, &[]).unwrap();
    b.send(0, 1, 40_000.0, &[c0]).unwrap();
    b.send(1, 0, 12_000.0, &[c1]).unwrap();
    let plain = b.build(1).unwrap();
    let dag = plain
        .with_rendezvous(HostCosts::EMBER.eager_limit_bytes)
        .unwrap();
    let control = |src, dst| Op::Control { src, dst };
    let compute = |rank| Op::Compute { rank, seconds: 0.0 };
    assert_eq!(
        dag.ops(),
        [
            compute(0),
            compute(1),
            Op::PostReceive {
                rank: 1,
                size_bytes: 40_000.0
            },
            Op::Header {
                src: 0,
                dst: 1,
                size_bytes: 40_000.0
            },
            control(1, 0),
            Op::Payload {
                src: 0,
                dst: 1,
                size_bytes: 40_000.0
            },
            control(1, 0),
            Op::Send {
                src: 1,
                dst: 0,
                size_bytes: 12_000.0
            },
        ]
    );
    // Rank 1 posts its receive before it sends; the get waits for the header and for the
    // posted receive.
    assert_eq!(dag.successors(2), &[4, 7]);
    assert_eq!(dag.indegree(4), 2);
    assert_eq!(dag.total_bytes(), plain.total_bytes());
    assert_eq!(dag.num_messages(), 2);
    let placement = vec![0, 1];
    // Ember's costs with a copy of eager messages (344 ps per byte on each side), so that
    // rank 1's eager send keeps its core busy past the header's arrival.
    let host = HostCosts {
        send_copy_s_per_byte: 344e-12,
        recv_copy_s_per_byte: 344e-12,
        ..HostCosts::EMBER
    };
    let job = Job::new("rendezvous", dag, placement, &f)
        .unwrap()
        .with_host(host);
    let (ends, delivered) = flow_ends(&f, job);
    // Rank 1's core registers the receive buffer (3 us + 9 pages), then copies its eager
    // send. Rank 0's core registers its send buffer before the header leaves; 64 bytes at
    // 1 GB/s. Rank 1's core, busy until its copy is done, matches the header (310 ns) only
    // then, and the get goes. The payload costs the sender's core nothing and the
    // receiver's the release of its registration; the get and the ack cost no core anything.
    let hop = CONTROL_BYTES / 1e9;
    let register = 3e-6 + 9.0 * 100e-9;
    let eager_posted = register + 190e-9 + 12_000.0 * 344e-12;
    assert!(eager_posted > 190e-9 + register + hop);
    let matched = eager_posted + 310e-9;
    let get = matched + hop;
    let payload = get + 40_000.0 / 1e9 + register;
    let eager = eager_posted + 12_000.0 / 1e9 + (310e-9 + 12_000.0 * 344e-12);
    let expected = [
        0.0,
        0.0,
        register,
        matched,
        get,
        payload,
        payload + hop,
        eager,
    ];
    for (got, want) in ends.iter().zip(expected) {
        assert!((got - want).abs() < 1e-12, "{ends:?} against {expected:?}");
    }
    assert!(
        (delivered - 52_000.0 - 3.0 * CONTROL_BYTES).abs() < 1e-6,
        "{delivered}"
    );
}

/// A job on `line(n)`, one rank per router, whose DAG `add` writes, with `host` costs.
fn line_job(n: usize, host: HostCosts, add: impl FnOnce(&mut DagBuilder)) -> (Fabric, Job) {
    let f = line(n);
    let mut b = DagBuilder::new(n as u32);
    add(&mut b);
    let placement = (0..n as u32).collect();
    let job = Job::new("line", b.build(1).unwrap(), placement, &f)
        .unwrap()
        .with_host(host);
    (f, job)
}

/// The makespan of `job` on the flow engine and on the packet engine, in seconds.
fn makespans(f: &Fabric, job: &Job) -> Vec<f64> {
    let faults = Faults::none(f);
    let routing = build("table", f, &faults).unwrap();
    [Engine::Flow(EXACT), Engine::Packet(PacketConfig::default())]
        .into_iter()
        .map(|engine| {
            let jobs = std::slice::from_ref(job);
            run(engine, f, &faults, routing.as_ref(), jobs, EXACT.seed)
                .unwrap()
                .jobs[0]
                .makespan_s
        })
        .collect()
}

#[test]
fn a_message_that_arrives_while_its_receiver_computes_completes_after_the_compute() {
    // Rank 0 sends 1 kB to rank 1 (posted after 1 ms of send cost, 1 us on the cable);
    // rank 1 computes for 3 ms meanwhile, so its core completes the receive (0.5 ms) only
    // after the compute, as an Ember rank handles arrivals only inside its MPI calls.
    let (f, job) = line_job(2, SLOW_CORE, |b| {
        b.send(0, 1, 1e3, &[]).unwrap();
        b.compute(1, 3e-3, &[]).unwrap();
    });
    for end in makespans(&f, &job) {
        assert!((end - 3.5e-3).abs() < 1e-9, "{end} s, expected 3.5 ms");
    }
    // Without host costs the compute and the message overlap: the run is the compute.
    for end in makespans(&f, &job.with_host(HostCosts::NONE)) {
        assert!((end - 3e-3).abs() < 1e-9, "{end} s, expected 3 ms");
    }
}

/// Rank 0 posts its receives from ranks 1, 2 and 3 in that order (the order it sends to
/// them); ranks 1-3 send to rank 0 after computing `delays_s[i]`. Returns each engine's
/// makespan, with 1 ms per entry examined in rank 0's posted-receive queue and no other
/// cost.
fn matching_makespans(delays_s: [f64; 3]) -> Vec<f64> {
    let host = HostCosts {
        match_s: 1e-3,
        ..HostCosts::NONE
    };
    let (f, job) = line_job(4, host, |b| {
        let computes: Vec<_> = [0.0, delays_s[0], delays_s[1], delays_s[2]]
            .iter()
            .enumerate()
            .map(|(r, &delay)| b.compute(r as u32, delay, &[]).unwrap())
            .collect();
        for peer in 1..4 {
            b.send(0, peer, 1e3, &[computes[0]]).unwrap();
        }
        for peer in 1..4 {
            b.send(peer, 0, 1e3, &[computes[peer as usize]]).unwrap();
        }
    });
    makespans(&f, &job)
}

#[test]
fn a_receive_searches_past_the_unmatched_receives_posted_before_it() {
    // In posting order (rank 1's message first) each search examines one entry: rank 0's
    // core is done at 1, 2 and 3 ms (the last arrival is at 2 ms plus a few us). In the
    // reverse order rank 3's message examines 3 entries, rank 2's 2 and rank 1's 1: done at
    // 3, 5 and 6 ms.
    for makespan in matching_makespans([0.0, 1e-3, 2e-3]) {
        assert!((makespan - 3e-3).abs() < 1e-4, "{makespan}");
    }
    for makespan in matching_makespans([2e-3, 1e-3, 0.0]) {
        assert!((makespan - 6e-3).abs() < 1e-4, "{makespan}");
    }
}

#[test]
fn a_compute_waits_for_the_messaging_its_core_queued_before_it() {
    // Rank 0 posts a send (1 ms on its core) and, independently, 2 ms of compute: one core
    // does one after the other, so the compute ends at 3 ms; rank 1 then completes the
    // receive (0.5 ms) after the message arrived at 1 ms.
    let (f, job) = line_job(2, SLOW_CORE, |b| {
        b.send(0, 1, 1e3, &[]).unwrap();
        b.compute(0, 2e-3, &[]).unwrap();
    });
    for end in makespans(&f, &job) {
        assert!((end - 3e-3).abs() < 1e-9, "{end} s, expected 3 ms");
    }
}

#[test]
fn what_waited_for_a_long_message_waits_for_its_payload_or_its_ack() {
    // Rank 0 sends 40 kB to rank 1; then each computes. The receiver's compute waits for
    // the payload, the sender's for the acknowledgement (its send completes then).
    let mut b = DagBuilder::new(2);
    let msg = b.send(0, 1, 40_000.0, &[]).unwrap();
    b.compute(0, 1e-6, &[msg]).unwrap();
    b.compute(1, 1e-6, &[msg]).unwrap();
    let dag = b.build(1).unwrap().with_rendezvous(12_000.0).unwrap();
    // Rank 1 computes nothing before the message, so it posts the receive first; then
    // header, get, payload, ack, and the two computes.
    assert!(matches!(dag.ops()[0], Op::PostReceive { rank: 1, .. }));
    assert_eq!(dag.indegree(0), 0);
    assert_eq!(dag.successors(3), &[4, 6]);
    assert_eq!(dag.successors(4), &[5]);
    assert_eq!(dag.indegree(5), 1);
    assert_eq!(dag.indegree(6), 1);
}

#[test]
fn ember_halo_faces_above_the_eager_limit_cross_four_times() {
    // nx = 40: a face is 40 x 40 x 8 = 12,800 bytes, above Ember's 12,000; edges and
    // corners stay eager. nx = 30 (7,200-byte faces) has no control message.
    let f = Fabric::parse("torus:4x4x4").unwrap();
    let count = |spec: &str| {
        let jobs = WorkloadSpec::parse(spec).unwrap().place(&f, 1).unwrap();
        let ops = jobs[0].dag.ops();
        let long = ops
            .iter()
            .filter(|op| matches!(op, Op::Payload { size_bytes, .. } if *size_bytes > 12_000.0))
            .count();
        let long_sends = ops
            .iter()
            .filter(|op| matches!(op, Op::Send { size_bytes, .. } if *size_bytes > 12_000.0))
            .count();
        let control = ops.iter().filter(|op| op.is_control()).count();
        (long, control, jobs[0].dag.total_bytes(), long_sends)
    };
    let (long, control, bytes, long_sends) = count("halo3d26:nx=40,host=ember");
    assert!(
        long > 0 && control == 3 * long && long_sends == 0,
        "{long} long, {control} control, {long_sends} long sends"
    );
    assert_eq!(count("halo3d26:nx=40").3, long);
    assert_eq!(bytes, count("halo3d26:nx=40").2);
    assert_eq!(count("halo3d26:nx=30,host=ember").1, 0);
    assert_eq!(count("halo3d26:nx=40").1, 0);
}

#[test]
fn every_engine_adds_the_same_costs_to_one_message() {
    // A single message meets nothing else, so each engine's time grows by exactly the
    // sender's and the receiver's costs (the packet engine rounds to picoseconds).
    let f = Fabric::parse("torus:4x4").unwrap();
    let faults = Faults::none(&f);
    let routing = build("dor", &f, &faults).unwrap();
    let host = HostCosts::EMBER;
    let extra = host.send_cost_s(7200.0) + host.recv_cost_s(7200.0);
    let time = |engine: Engine, host: HostCosts| {
        let job = phase(&f, &[(0, 10, 7200.0)], host);
        run(engine, &f, &faults, routing.as_ref(), &[job], EXACT.seed)
            .unwrap()
            .jobs[0]
            .makespan_s
    };
    for engine in [
        Engine::Flow(EXACT),
        Engine::Packet(PacketConfig::default()),
        Engine::Load,
    ] {
        let added = time(engine, host) - time(engine, HostCosts::NONE);
        assert!(
            (added - extra).abs() < 3e-12,
            "{engine}: added {added} s, expected {extra} s"
        );
    }
}

#[test]
fn flow_and_packet_engines_add_the_same_costs_to_one_long_message() {
    // One 40 kB rendezvous alone: the receiver posts its receive (3.9 us of registration)
    // while the sender registers its buffer (190 ns + 3.9 us), so only the sender's cost,
    // the match (310 ns) and the release of the receive's registration (3.9 us) lengthen
    // the run; the header, get, payload and ack cross the network either way.
    let f = Fabric::parse("torus:4x4").unwrap();
    let faults = Faults::none(&f);
    let routing = build("dor", &f, &faults).unwrap();
    let host = HostCosts::EMBER;
    let register = 3e-6 + 9.0 * 100e-9;
    let extra = (190e-9 + register) + 310e-9 + register;
    let time = |engine: Engine, host: HostCosts| {
        let plain = phase(&f, &[(0, 10, 40_000.0)], HostCosts::NONE);
        let dag = plain.dag.with_rendezvous(12_000.0).unwrap();
        let job = Job::new("long", dag, plain.placement.clone(), &f)
            .unwrap()
            .with_host(host);
        run(engine, &f, &faults, routing.as_ref(), &[job], EXACT.seed)
            .unwrap()
            .jobs[0]
            .makespan_s
    };
    for engine in [Engine::Flow(EXACT), Engine::Packet(PacketConfig::default())] {
        let added = time(engine, host) - time(engine, HostCosts::NONE);
        assert!(
            (added - extra).abs() < 3e-12,
            "{engine}: added {added} s, expected {extra} s"
        );
    }
}

#[test]
fn packet_engine_queues_receives_on_one_core() {
    // Three ranks send 1 kB to rank 0 at once: however the packets interleave, rank 0's
    // core completes them one after another, so the last ends at least 3 receive costs
    // after the first byte could have arrived.
    let f = line(4);
    let faults = Faults::none(&f);
    let routing = build("table", &f, &faults).unwrap();
    let job = phase(&f, &[(1, 0, 1e3), (2, 0, 1e3), (3, 0, 1e3)], SLOW_CORE);
    let config = PacketConfig::default().with_enough_vcs(&f, routing.as_ref());
    let r = simulate_clean(&f, &faults, routing.as_ref(), &[job], config).unwrap();
    assert!(r.end_s >= 1e-3 + 3.0 * 0.5e-3, "{}", r.end_s);
    assert!(r.end_s < 1e-3 + 3.0 * 0.5e-3 + 1e-5, "{}", r.end_s);
    assert_eq!(r.counters.bytes_delivered, 3_000);
}

#[test]
fn the_workload_spec_names_the_host_costs() {
    let f = Fabric::parse("torus:4x4x4").unwrap();
    let jobs = WorkloadSpec::parse("halo3d26:host=ember")
        .unwrap()
        .place(&f, 1)
        .unwrap();
    assert_eq!(jobs[0].host, HostCosts::EMBER);
    let plain = WorkloadSpec::parse("halo3d26")
        .unwrap()
        .place(&f, 1)
        .unwrap();
    assert_eq!(plain[0].host, HostCosts::NONE);
}

/// [`SLOW_CORE`] made progress call by call, as SST's Firefly does.
const CALLS: HostCosts = HostCosts {
    progress: Progress::Calls,
    ..SLOW_CORE
};

#[test]
fn with_firefly_progress_a_message_arriving_between_sends_is_completed_before_the_next() {
    // Rank 0 sends three 1 kB messages to rank 1 (1 ms of core each), rank 1 one to rank 0.
    // Rank 1's message reaches rank 0 1 us after rank 0's first send left: released in
    // order, rank 0 completes it after its third send (3 to 3.5 ms); made call by call it
    // completes it when its second send has left (2 to 2.5 ms), and its third send leaves
    // at 3.5 ms, so rank 1 completes that one at 4 ms (plus the wire's 1 us each way).
    let f = line(2);
    let messages = [(0, 1, 1e3), (0, 1, 1e3), (0, 1, 1e3), (1, 0, 1e3)];
    let wire = 1e-6;
    for (host, rank0_receive, last) in [
        (SLOW_CORE, 3.5e-3, 3.5e-3 + wire),
        (CALLS, 2.5e-3, 4e-3 + wire),
    ] {
        let (ends, _) = flow_ends(&f, phase(&f, &messages, host));
        assert!((ends[3] - rank0_receive).abs() < 1e-9, "{host:?}: {ends:?}");
        assert!((ends[2] - last).abs() < 1e-9, "{host:?}: {ends:?}");
        let (f, job) = line_job(2, host, |b| {
            for &(src, dst, bytes) in &messages {
                b.send(src, dst, bytes, &[]).unwrap();
            }
        });
        for makespan in makespans(&f, &job) {
            assert!((makespan - last).abs() < 1e-5, "{host:?}: {makespan}");
        }
    }
}

#[test]
fn with_firefly_progress_an_early_message_waits_for_its_receive_to_be_posted() {
    // Three ranks, two rounds; 1 ms per send, 0.5 ms per receive, 1 ms per entry a search
    // examines, 0.25 ms to post a receive. Rank 1 posts its round-one receives from ranks 0
    // and 2 (0 to 0.5 ms); rank 0's message arrives at 1 ms and is done at 2.5 ms (0.5 ms
    // and its own examination); rank 0 then sends its round-two message, which arrives at
    // 3.5 ms while rank 2's (after 5 ms of compute) has not: rank 1's receive for it is not
    // posted yet. Call by call, it walks the one posted receive (1 ms) and waits; rank 2's
    // arrives at 6 ms and is done at 7.5 ms; rank 1 enters round two and posts the receive,
    // which finds the waiting message first in the queue: 0.25 ms + 1.5 ms, done at
    // 9.25 ms. Released in order, the early message is searched for behind rank 2's
    // receive at once (2.5 ms, to 6 ms), rank 2's follows (to 7.5 ms) and round two's post
    // ends the run at 7.75 ms (each plus a few us of wire).
    let host = HostCosts {
        match_s: 1e-3,
        post_s: 0.25e-3,
        ..SLOW_CORE
    };
    let dag = |b: &mut DagBuilder| {
        let c0 = b.compute(0, 0.0, &[]).unwrap();
        let c1 = b.compute(1, 0.0, &[]).unwrap();
        let c2 = b.compute(2, 5e-3, &[]).unwrap();
        let w = b.send(0, 1, 1e3, &[c0]).unwrap();
        let z = b.send(2, 1, 1e3, &[c2]).unwrap();
        let c0_2 = b.compute(0, 0.0, &[c0, w]).unwrap();
        b.compute(1, 0.0, &[c1, w, z]).unwrap();
        b.send(0, 1, 1e3, &[c0_2]).unwrap();
    };
    for (progress, expected) in [(Progress::Calls, 9.25e-3), (Progress::Released, 7.75e-3)] {
        let (f, job) = line_job(3, HostCosts { progress, ..host }, dag);
        for makespan in makespans(&f, &job) {
            assert!(
                (makespan - expected).abs() < 2e-5,
                "{progress:?}: {makespan}"
            );
        }
    }
}
