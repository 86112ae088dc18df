//! The failed-links study's case that SST 16 measured on the quarter-bandwidth
//! 8,704-endpoint dragonfly: one Halo3D26 job of 8,000 ranks, nx = 30, no compute, Ember's
//! host costs, UGAL over every parallel global link, 50 GB/s links, a share of the global
//! cables failed. Prints, per seed, the healthy and failed time per iteration of iterations
//! 3-4 (a 4-iteration run less a 2-iteration one, over 2, as SST's numbers are taken) and
//! the loss:
//! `cargo run --release -p fray-core --example sst_dragonfly -- ENGINE LATENCY FAILED_PCT SEEDS [FIRST [SPEC [HOST [ROUTING [LAST]]]]]`
//! (seeds `FIRST..FIRST + SEEDS`, as `fray links` numbers them; HOST the host costs,
//! default `ember`; ROUTING default `ugal:links=adaptive,threshold=800`; LAST, default 4,
//! times iterations `LAST - 1` and `LAST` instead, as SST's 5-6; with FAILED_PCT 0 only
//! the healthy machine runs), e.g.
//! `packet:router=merlin,mtu=2048 20ns 30 3`.

use fray_core::fabric::{Fabric, FabricSpec, LinkParameters};
use fray_core::faults::CableSelector;
use fray_core::links::{CaseOutcome, DownCables, LinksCase, LinksStudy};
use fray_core::units::parse_seconds;
use fray_core::workload::WorkloadSpec;

fn main() {
    let arg = |i: usize, default: &str| std::env::args().nth(i).unwrap_or(default.to_string());
    let engine = arg(1, "packet:router=merlin,mtu=2048").parse().unwrap();
    let latency_s = parse_seconds(&arg(2, "20ns")).unwrap();
    let failed_pct: f64 = arg(3, "30").parse().unwrap();
    let seeds: u32 = arg(4, "3").parse().unwrap();
    let first: u32 = arg(5, "0").parse().unwrap();
    let spec: FabricSpec = arg(6, "dragonfly:p=16,a=32,h=1,g=17").parse().unwrap();
    let host = arg(7, "ember");
    let routing = arg(8, "ugal:links=adaptive,threshold=800");
    let last: u32 = arg(9, "4").parse().unwrap();
    let link = LinkParameters {
        bandwidth_bytes_s: 50e9,
        latency_s,
        lanes: 1,
    };
    let fabric = Fabric::from_spec(&spec, link).unwrap();
    let study = |iterations: u32| LinksStudy {
        workload: WorkloadSpec::parse(&format!(
            "halo3d26:iterations={iterations},nx=30,compute=no,host={host}"
        ))
        .unwrap(),
        routing: routing.clone(),
        fail: CableSelector::parse("global"),
        jobs: vec![1],
        failed_pct: vec![failed_pct],
        seeds: first + seeds,
        seed: 1,
        engine,
        down: DownCables::default(),
    };
    let makespan = |iterations: u32, replica: u32, baseline: bool| {
        let case = LinksCase {
            jobs: 1,
            failed_pct: if baseline { 0.0 } else { failed_pct },
            replica,
            baseline,
        };
        match study(iterations).run_case(&fabric, case).unwrap() {
            CaseOutcome::Ran { iteration_s, .. } => iteration_s[0] * f64::from(iterations),
            CaseOutcome::Unroutable(why) => panic!("{why}"),
        }
    };
    println!(
        "engine {engine}, host {host}, links {latency_s:e} s, {failed_pct} % of global cables \
         failed, iterations {}-{last}",
        last - 1
    );
    for replica in first..first + seeds {
        let per_iteration = |baseline| {
            (makespan(last, replica, baseline) - makespan(last - 2, replica, baseline)) / 2.0
        };
        let healthy = per_iteration(true);
        if failed_pct == 0.0 {
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
