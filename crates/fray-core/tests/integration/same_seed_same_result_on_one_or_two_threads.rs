//! The same seed gives the same result, bit for bit, whether the core runs on one thread or
//! two: the fabric-based allreduce under soft errors, the packet engine's uniform traffic
//! (routed by the table router, whose distances are computed in parallel) and modelled
//! TopoBW runs with their localisation study. Results are compared through their `Debug`
//! text, which prints every `f64` exactly.

use fray_core::collectives::{allreduce_study, AllreduceConfig, ErrorModel, Replication};
use fray_core::diag::topobw::{simulate_topobw, Layout, Sharing};
use fray_core::diag::{localisation_study, Injection, StudyConfig};
use fray_core::fabric::gemini::Gemini;
use fray_core::fabric::Fabric;
use fray_core::faults::{FaultSpec, Faults};
use fray_core::routing;
use fray_core::sim::packet::{traffic, PacketConfig, TrafficConfig, TrafficResult};

/// `run`'s result on a pool of one thread and on a pool of two, as `Debug` text.
fn on_one_and_two_threads<T: std::fmt::Debug + Send>(run: impl Fn() -> T + Sync) -> [String; 2] {
    [1, 2].map(|threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        format!("{:?}", pool.install(&run))
    })
}

#[test]
fn allreduce_under_soft_errors() {
    let fabric = Fabric::parse("xgft:2;4,4;1,4").unwrap();
    let [one, two] = on_one_and_two_threads(|| {
        let config = AllreduceConfig {
            replication: Replication::parse("temporal:2").unwrap(),
            ops: 20,
            seed: 7,
            ..AllreduceConfig::default()
        };
        allreduce_study(&fabric, config, &ErrorModel::parse("ber:1e-4").unwrap()).unwrap()
    });
    assert_eq!(one, two);
}

#[test]
fn uniform_traffic_on_the_packet_engine() {
    let fabric = Fabric::parse("dragonfly:p=2,a=4,h=2,g=5").unwrap();
    let mut faults = Faults::none(&fabric);
    let spec: FaultSpec = "global:20%".parse().unwrap();
    spec.apply(&fabric, &mut faults, 3).unwrap();
    let [one, two] = on_one_and_two_threads(|| {
        let router = routing::build("table", &fabric, &faults).unwrap();
        let load = TrafficConfig {
            load: 0.3,
            warmup_s: 2e-6,
            measure_s: 5e-6,
        };
        let config = PacketConfig {
            vcs: 3,
            ..PacketConfig::default()
        };
        let result = traffic(&fabric, &faults, router.as_ref(), config, load).unwrap();
        // The wall-clock time of the run is the one field that may differ.
        TrafficResult {
            wall_s: 0.0,
            ..result
        }
    });
    assert_eq!(one, two);
}

#[test]
fn topobw_runs_and_the_localisation_study() {
    let gemini = Gemini::new([3, 4, 4]).unwrap();
    let layout = Layout::whole(gemini.clone());
    let slow = Injection::SlowGemini(gemini.gemini_name(5));
    let [one, two] = on_one_and_two_threads(|| {
        simulate_topobw(&layout, &[slow], 1e6, 4, Sharing::Both, "dor-retry").unwrap()
    });
    assert_eq!(one, two);
    let [one, two] = on_one_and_two_threads(|| {
        localisation_study(&StudyConfig {
            gemini: gemini.clone(),
            cases: 4,
            faults_per_case: 2,
            noise: 0.02,
            seed: 11,
            message_bytes: 1e6,
            count: 2,
        })
        .unwrap()
    });
    assert_eq!(one, two);
}
