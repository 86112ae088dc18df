//! Port counters written by hand for the real X5 dump (`examples/data/x5_*`), with faults
//! planted, are matched to its cables and each fault is found and classified: a flapping port,
//! a port with a known error rate (its estimate and interval checked against the Poisson
//! closed form), a congested port, and, in a copy of the dump, one cable trained at 1x
//! instead of 4x. The same faults read from perfquery and ibqueryerrors output classify alike.

use std::path::PathBuf;

use fray_core::fabric::IbnetdiscoverFabric;
use fray_core::faults::Faults;
use fray_core::health::{
    classify, read_counters, CableClass, CableHealth, CounterFormat, PortIndex, Thresholds,
};

fn data(name: &str) -> String {
    std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/data")
            .join(name),
    )
    .unwrap()
}

fn x5(text: &str) -> IbnetdiscoverFabric {
    IbnetdiscoverFabric::parse(text, "x5").unwrap()
}

fn run(read: &IbnetdiscoverFabric, file: &str, t: &Thresholds) -> Vec<CableHealth> {
    let text = data(file);
    let samples = read_counters(&text, file, CounterFormat::detect(&text)).unwrap();
    let faults = Faults::none(&read.fabric);
    classify(
        &read.fabric,
        &PortIndex::new(read),
        &[(file, &samples[..])],
        &faults,
        t,
    )
    .unwrap()
}

/// The cables between the switches of node guids `a` and `b`.
fn cable<'a>(
    read: &IbnetdiscoverFabric,
    cables: &'a [CableHealth],
    a: u64,
    b: u64,
) -> Vec<&'a CableHealth> {
    let name = |g| read.fabric.router_name(read.router_by_guid(g).unwrap());
    let (a, b) = (name(a), name(b));
    cables
        .iter()
        .filter(|h| h.name == format!("{a}->{b}") || h.name == format!("{b}->{a}"))
        .collect()
}

const SW_0B50: u64 = 0x0008f10500200b50;
const SW_8C5C: u64 = 0x0008f10500108c5c;

/// Poisson P(X <= k; mu), summed directly.
fn cdf(k: u64, mu: f64) -> f64 {
    let mut term = (-mu).exp();
    let mut sum = term;
    for i in 1..=k {
        term *= mu / i as f64;
        sum += term;
    }
    sum
}

#[test]
fn the_csv_faults_are_found_and_classified() {
    let read = x5(&data("x5.topofile"));
    let cables = run(&read, "x5_counters.csv", &Thresholds::default());
    assert_eq!(cables.len(), 159, "every cable classified once");
    // Six parallel cables join the two switches; each planted fault is on its own one.
    let between = cable(&read, &cables, SW_0B50, SW_8C5C);
    let verdicts: Vec<CableClass> = between.iter().map(|h| h.verdict).collect();
    for class in [
        CableClass::Flapping,
        CableClass::Erroring,
        CableClass::Congested,
    ] {
        assert_eq!(
            verdicts.iter().filter(|&&v| v == class).count(),
            1,
            "{class}: {verdicts:?}"
        );
    }
    let flap = between
        .iter()
        .find(|h| h.verdict == CableClass::Flapping)
        .unwrap();
    assert_eq!(flap.link_downed, 3);
    let erroring = between
        .iter()
        .find(|h| h.verdict == CableClass::Erroring)
        .unwrap();
    let b = erroring.ber.unwrap();
    assert_eq!(b.errors, 100);
    assert_eq!(b.bits, 1e13);
    assert_eq!(b.ber, 1e-11);
    // Garwood's bounds are where the Poisson tails at the count hold 2.5 % each.
    let (low, high) = (b.low * b.bits, b.high * b.bits);
    assert!((1.0 - cdf(99, low) - 0.025).abs() < 1e-9, "low {low}");
    assert!((cdf(100, high) - 0.025).abs() < 1e-9, "high {high}");
    assert!(
        low > 81.3 && low < 81.4 && high > 121.6 && high < 121.7,
        "{low} {high}"
    );
    let congested = between
        .iter()
        .find(|h| h.verdict == CableClass::Congested)
        .unwrap();
    assert_eq!(congested.xmit_wait_ratio, Some(0.5));
    // The 4xDDR HCA cables run below their 4xQDR peers; everything else is healthy.
    let below = cables
        .iter()
        .filter(|h| h.verdict == CableClass::BelowPeers)
        .count();
    assert!(below > 0);
    assert!(cables
        .iter()
        .filter(|h| h.verdict == CableClass::BelowPeers)
        .all(|h| h.link_class == "host"));
    assert_eq!(
        cables
            .iter()
            .filter(|h| h.verdict == CableClass::Healthy)
            .count(),
        159 - 3 - below
    );
    // Most suspect first.
    assert_eq!(cables[0].verdict, CableClass::Flapping);
    // A cable that carried 1e14 bits without error is shown to meet 1e-12.
    let proven = cables
        .iter()
        .find(|h| h.ber.is_some_and(|b| b.bits == 1e14))
        .unwrap();
    assert_eq!(proven.verdict, CableClass::Healthy);
    assert!((proven.ber.unwrap().high - (-(0.025f64).ln()) / 1e14).abs() < 1e-24);
}

#[test]
fn a_tighter_threshold_or_looser_one_moves_the_erroring_cable() {
    let read = x5(&data("x5.topofile"));
    let erroring = |ber: f64| {
        let t = Thresholds {
            ber,
            ..Thresholds::default()
        };
        run(&read, "x5_counters.csv", &t)
            .iter()
            .filter(|h| h.verdict == CableClass::Erroring)
            .count()
    };
    assert_eq!(erroring(1e-12), 1);
    // Above the interval's lower bound (8.14e-12) the rate is no longer shown to exceed it.
    assert_eq!(erroring(9e-12), 0);
    let bad = Thresholds {
        confidence: 1.0,
        ..Thresholds::default()
    };
    let samples = read_counters(
        "time_s,node,port,counter,value\n",
        "e.csv",
        CounterFormat::Csv,
    )
    .unwrap();
    let err = classify(
        &read.fabric,
        &PortIndex::new(&read),
        &[("e.csv", &samples[..])],
        &Faults::none(&read.fabric),
        &bad,
    )
    .unwrap_err();
    assert!(err.to_string().contains("confidence"), "{err}");
}

#[test]
fn perfquery_and_ibqueryerrors_give_the_same_verdicts() {
    let read = x5(&data("x5.topofile"));
    for file in ["x5_perfquery.txt", "x5_ibqueryerrors.txt"] {
        let cables = run(&read, file, &Thresholds::default());
        let between = cable(&read, &cables, SW_0B50, SW_8C5C);
        let mut verdicts: Vec<CableClass> = between.iter().map(|h| h.verdict).collect();
        verdicts.sort();
        assert_eq!(verdicts.len(), 6, "six parallel cables");
        assert_eq!(
            verdicts[..3],
            [
                CableClass::Flapping,
                CableClass::Erroring,
                CableClass::Healthy
            ],
            "{file}"
        );
        assert!(
            verdicts[3..].iter().all(|&v| v == CableClass::Healthy),
            "{file}"
        );
        let erroring = between
            .iter()
            .find(|h| h.verdict == CableClass::Erroring)
            .unwrap();
        assert_eq!(erroring.ber.unwrap().ber, 1e-11, "{file}");
    }
}

#[test]
fn a_cable_trained_at_one_lane_runs_below_its_peers() {
    // Plant a 1x link in a copy of the dump: both ends of 8C5C port 16 to 369C port 6.
    let text = data("x5.topofile");
    let mut planted = 0;
    let text: String = text
        .lines()
        .map(|l| {
            let ends = (l.starts_with("[16]\t\"S-0008f1050020369c\"[6]")
                || l.starts_with("[6]\t\"S-0008f10500108c5c\"[16]"))
                && l.ends_with("4xQDR");
            if ends {
                planted += 1;
                format!("{}1xQDR\n", &l[..l.len() - 5])
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    assert_eq!(planted, 2);
    let read = x5(&text);
    let cables = run(&read, "x5_counters.csv", &Thresholds::default());
    let slow: Vec<&CableHealth> = cables
        .iter()
        .filter(|h| h.verdict == CableClass::BelowPeers && h.link_class == "switch")
        .collect();
    assert_eq!(slow.len(), 1);
    assert_eq!((slow[0].lanes, slow[0].peer_lanes), (1, Some(4)));
    assert!(slow[0].name.contains("4036-8C5C") && slow[0].name.contains("4036-369C"));
}

#[test]
fn a_sample_of_a_port_with_no_cable_names_its_line() {
    let read = x5(&data("x5.topofile"));
    let text = "time_s,node,port,counter,value\n0,0x0008f10500200b50,25,PortRcvData,5\n";
    let samples = read_counters(text, "c.csv", CounterFormat::Csv).unwrap();
    let err = classify(
        &read.fabric,
        &PortIndex::new(&read),
        &[("c.csv", &samples[..])],
        &Faults::none(&read.fabric),
        &Thresholds::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "c.csv:2: no cable of the fabric leaves 0x0008f10500200b50 port 25"
    );
}

#[test]
fn a_down_cable_is_critical_only_when_it_cuts_endpoints_off() {
    let read = x5(&data("x5.topofile"));
    let f = &read.fabric;
    let (a, b) = (
        read.router_by_guid(SW_0B50).unwrap(),
        read.router_by_guid(SW_8C5C).unwrap(),
    );
    let parallel = f.channel_between(a, b).unwrap();
    let host = f.injection_channel(0);
    let mut faults = Faults::none(f);
    faults.fail_cable(f, parallel).unwrap();
    faults.fail_cable(f, host).unwrap();
    let cables = classify(
        f,
        &PortIndex::new(&read),
        &[],
        &faults,
        &Thresholds::default(),
    )
    .unwrap();
    let down: Vec<&CableHealth> = cables
        .iter()
        .filter(|h| h.verdict == CableClass::Down)
        .collect();
    assert_eq!(down.len(), 2);
    // The critical one (an HCA cut off) first; the switch cable has five live twins.
    assert!(down[0].critical && down[0].link_class == "host");
    assert!(!down[1].critical && down[1].link_class == "switch");
    assert_eq!((cables[0].critical, cables[1].critical), (true, false));
}
