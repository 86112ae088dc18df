//! The failed-links study's case that SST 16 measured on the quarter-bandwidth
//! 8,704-endpoint dragonfly: one Halo3D26 job of 8,000 ranks, nx = 30, no compute, Ember's
//! host costs, UGAL over every parallel global link, 50 GB/s links, a share of the global
//! cables failed. Prints, per seed, the healthy and failed time per iteration of iterations
//! 3-4 (a 4-iteration run less a 2-iteration one, over 2, as SST's numbers are taken) and
//! the loss:
//! `cargo run --release -p fray-core --example sst_dragonfly -- ENGINE LATENCY FAILED_PCT SEEDS [FIRST [SPEC [HOST [ROUTING [LAST [DOWN [LAYOUT]]]]]]]`
//! (seeds `FIRST..FIRST + SEEDS`, as `fray links` numbers them; HOST the host costs,
//! default `ember`; ROUTING default `ugal:links=adaptive,threshold=800B`, merlin's bias in
//! bytes, which the flow engine refuses: give it `ugal:links=adaptive`; LAST, default 4,
//! times iterations `LAST - 1` and `LAST` instead, as SST's 5-6; DOWN a fault file of
//! cables down in the failed case besides FAILED_PCT % drawn (`fray links --down`), e.g.
//! the cables of one of SST's draws with FAILED_PCT 0, `-` for none; LAYOUT the workload's
//! `layout=`: `random-idle`, the default, leaves the idle endpoints at random as `fray links`
//! does, `linear` places rank `r` on endpoint `r` as SST's `allocateNodes(ep, "linear")`
//! does; with FAILED_PCT 0 and
//! no DOWN only the healthy machine runs), e.g.
//! `packet:router=merlin,mtu=2048 20ns 30 3`.

use fray_core::fabric::{Fabric, FabricSpec, LinkParameters};
use fray_core::faults::CableSelector;
use fray_core::links::{DownCables, LinksCase, LinksStudy};
use fray_core::routing;
use fray_core::sim::run;
use fray_core::units::parse_seconds;
use fray_core::workload::{Layout, WorkloadSpec};

fn main() {
    let arg = |i: usize, default: &str| std::env::args().nth(i).unwrap_or(default.to_string());
    let engine = arg(1, "packet:router=merlin,mtu=2048").parse().unwrap();
    let latency_s = parse_seconds(&arg(2, "20ns")).unwrap();
    let failed_pct: f64 = arg(3, "30").parse().unwrap();
    let seeds: u32 = arg(4, "3").parse().unwrap();
    let first: u32 = arg(5, "0").parse().unwrap();
    let spec: FabricSpec = arg(6, "dragonfly:p=16,a=32,h=1,g=17").parse().unwrap();
    let host = arg(7, "ember");
    let routing = arg(8, "ugal:links=adaptive,threshold=800B");
    let last: u32 = arg(9, "4").parse().unwrap();
    let down = std::env::args()
        .nth(10)
        .filter(|file| file != "-")
        .map(|file| DownCables {
            text: std::fs::read_to_string(&file).unwrap(),
            file,
        })
        .unwrap_or_default();
    let layout = Layout::parse(&arg(11, "random-idle")).unwrap();
    let link = LinkParameters {
        bandwidth_bytes_s: 50e9,
        latency_s,
        lanes: 1,
    };
    let fabric = Fabric::from_spec(&spec, link).unwrap();
    let study = |iterations: u32| LinksStudy {
        workload: WorkloadSpec::parse(&format!(
            "halo3d26:iterations={iterations},nx=30,compute=no,host={host},layout={}",
            layout.name()
        ))
        .unwrap(),
        routing: routing.clone(),
        fail: CableSelector::parse("global"),
        jobs: vec![1],
        failed_pct: vec![failed_pct],
        seeds: first + seeds,
        seed: 1,
        engine,
        down: down.clone(),
    };
    let makespan = |iterations: u32, replica: u32, baseline: bool| {
        let study = study(iterations);
        let case = LinksCase {
            jobs: 1,
            failed_pct: if baseline { 0.0 } else { failed_pct },
            replica,
            baseline,
        };
        // As `LinksStudy::run_case`.
        let seed = study.replica_seed(replica);
        let faults = study.case_faults(&fabric, case).unwrap();
        let jobs = study.workload.place(&fabric, seed).unwrap();
        let router = routing::build(&study.routing, &fabric, &faults).unwrap();
        let results = run(study.engine, &fabric, &faults, router.as_ref(), &jobs, seed).unwrap();
        results.jobs[0].iteration_s * f64::from(iterations)
    };
    println!(
        "engine {engine}, host {host}, links {latency_s:e} s, {failed_pct} % of global cables \
         failed{}, {} layout, iterations {}-{last}",
        if down.is_empty() {
            String::new()
        } else {
            format!(" besides those of {}", down.file)
        },
        layout.name(),
        last - 1
    );
    for replica in first..first + seeds {
        let per_iteration = |baseline| {
            (makespan(last, replica, baseline) - makespan(last - 2, replica, baseline)) / 2.0
        };
        let healthy = per_iteration(true);
        if failed_pct == 0.0 && down.is_empty() {
            println!("seed {replica}: healthy {:.2} us", healthy * 1e6);
            continue;
        }
        let failed = per_iteration(false);
        println!(
            "seed {replica}: healthy {:.2} us, failed {:.2} us, loss {:+.1} %",
            healthy * 1e6,
            failed * 1e6,
            (failed / healthy - 1.0) * 100.0
        );
    }
}
