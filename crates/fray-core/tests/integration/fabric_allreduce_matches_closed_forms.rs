//! The fabric-based allreduce on the paper's 1,728-node XGFT at 1 GB/s and 100 ns per hop
//! against closed forms: a 256 B packet serialises in `s = 256 ns`; the reduction pays
//! `s + L` per level (store and forward), the multicast `L` per level and `s` once (cut-
//! through), and spatial replication halves the endpoint ports' bandwidth.

use fray_core::collectives::{allreduce_study, AllreduceConfig, ErrorModel, Replication};
use fray_core::fabric::{Fabric, LinkParameters};

const S: f64 = 256e-9;
const L: f64 = 100e-9;

fn paper_tree() -> Fabric {
    let spec = "xgft:3;24,12,6;1,12,6".parse().unwrap();
    let link = LinkParameters {
        bandwidth_bytes_s: 1e9,
        latency_s: 100e-9,
        lanes: 1,
    };
    Fabric::from_spec(&spec, link).unwrap()
}

fn mean(fabric: &Fabric, replication: &str, errors: &str) -> f64 {
    let config = AllreduceConfig {
        replication: Replication::parse(replication).unwrap(),
        ops: 3,
        ..AllreduceConfig::default()
    };
    let study = allreduce_study(fabric, config, &ErrorModel::parse(errors).unwrap()).unwrap();
    assert!(study
        .op_times_s
        .iter()
        .all(|&t| (t - study.mean_s).abs() < 1e-15));
    study.mean_s
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn no_errors() {
    let f = paper_tree();
    let unreplicated = 3.0 * (S + L) + 3.0 * L + S;
    assert!(close(mean(&f, "none", "none"), unreplicated));
    // Temporal copies trail the first one and cost nothing without errors.
    for k in [2, 4, 6] {
        assert!(close(
            mean(&f, &format!("temporal:{k}"), "none"),
            unreplicated
        ));
    }
    // Spatial: the endpoint hops serialise at 1/k of the bandwidth.
    for k in [2.0, 4.0, 6.0] {
        let spatial = (k * S + L) + 2.0 * (S + L) + 3.0 * L + k * S;
        let got = mean(&f, &format!("spatial:{k}"), "none");
        assert!(close(got, spatial), "spatial:{k}: {got} vs {spatial}");
    }
}

#[test]
fn every_link_errs_once() {
    let f = paper_tree();
    // Temporal: the second copy, one serialisation later, gets through on every hop.
    let temporal = 3.0 * (2.0 * S + L) + 2.0 * (S + L) + (2.0 * S + L);
    assert!(close(mean(&f, "temporal:2", "every-link-once"), temporal));
    // Spatial: every copy is hit and resent after its NAK (s + 2L) on every hop.
    let retry = |s: f64| s + 2.0 * L;
    let spatial = (retry(2.0 * S) + 2.0 * S + L)
        + 2.0 * (retry(S) + S + L)
        + 2.0 * (retry(S) + L)
        + (retry(2.0 * S) + 2.0 * S + L);
    assert!(close(mean(&f, "spatial:2", "every-link-once"), spatial));
    // Unreplicated pays the retry on every hop too.
    let none = 3.0 * (retry(S) + S + L) + 2.0 * (retry(S) + L) + retry(S) + S + L;
    assert!(close(mean(&f, "none", "every-link-once"), none));
}

#[test]
fn chosen_channels() {
    let f = paper_tree();
    let clean_t = mean(&f, "temporal:2", "none");
    let clean_s = mean(&f, "spatial:2", "none");
    // S0's up ports go to S72 and S73; the tree of port 0 climbs S0 -> S72 -> S144.
    assert!(close(
        mean(&f, "temporal:2", "channels:S0->S72"),
        clean_t + S
    ));
    assert!(close(mean(&f, "spatial:2", "channels:S0->S72"), clean_s));
    // Both up ports of one level-1 switch: spatial has no clean path left and pays a retry.
    let both = mean(&f, "spatial:2", "channels:S0->S72,S0->S73");
    assert!(close(both, clean_s + S + 2.0 * L), "{both}");
    // Two adjacent levels: temporal pays its second copy twice.
    let adjacent = mean(&f, "temporal:2", "channels:S0->S72,S72->S144");
    assert!(close(adjacent, clean_t + 2.0 * S));
}

#[test]
fn bad_input_names_the_field() {
    for (text, needle) in [
        ("spatial:0", "replication"),
        ("temporal", "replication"),
        ("mirror:2", "replication"),
    ] {
        let e = Replication::parse(text).unwrap_err().to_string();
        assert!(e.contains(needle), "{text}: {e}");
    }
    for text in [
        "exp:0us",
        "exp:fast",
        "ber:2",
        "ber:1",
        "exp:1e308s",
        "exp:2e7s",
        "channels:",
        "gamma:3",
    ] {
        let e = ErrorModel::parse(text).unwrap_err().to_string();
        assert!(e.starts_with("errors:"), "{text}: {e}");
    }
    let f = paper_tree();
    let config = AllreduceConfig {
        replication: Replication::Spatial(13),
        ..AllreduceConfig::default()
    };
    let e = allreduce_study(&f, config, &ErrorModel::None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("up ports"), "{e}");
    let e = allreduce_study(
        &f,
        AllreduceConfig::default(),
        &ErrorModel::parse("channels:S0->S1").unwrap(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("S0->S1"), "{e}");
}

#[test]
fn studies_that_would_never_end_or_pass_the_clock_are_refused() {
    let small = || {
        let spec = "xgft:2;4,4;1,4".parse().unwrap();
        let link = LinkParameters {
            bandwidth_bytes_s: 1.0,
            latency_s: 1.0,
            lanes: 1,
        };
        Fabric::from_spec(&spec, link).unwrap()
    };
    // A rate that corrupts nearly every packet retries forever.
    let e = allreduce_study(
        &paper_tree(),
        AllreduceConfig::default(),
        &ErrorModel::parse("ber:0.1").unwrap(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("errors: ber: 0.1 corrupts 100.0000 % of 256-byte packets"),
        "{e}"
    );
    // So do errors much more frequent than a packet's time on the wire (this one never
    // ended, and Ctrl-C could not stop its first operation).
    let e = allreduce_study(
        &small(),
        AllreduceConfig {
            ops: 5,
            ..AllreduceConfig::default()
        },
        &ErrorModel::parse("exp:10s").unwrap(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("errors: exp: an error every 1e1 s on average corrupts 100.0000 % of"),
        "{e}"
    );
    let slower = ErrorModel::parse("exp:1000000s").unwrap();
    let config = AllreduceConfig {
        ops: 5,
        ..AllreduceConfig::default()
    };
    assert_eq!(
        allreduce_study(&small(), config, &slower)
            .unwrap()
            .op_times_s
            .len(),
        5
    );
    // A 4 GiB packet at 1 B/s takes longer than a hop may.
    let config = AllreduceConfig {
        packet_bytes: u32::MAX,
        ops: 1,
        ..AllreduceConfig::default()
    };
    let e = allreduce_study(&small(), config, &ErrorModel::None)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("packet_bytes: a 4294967295-byte packet takes"),
        "{e}"
    );
    // A NAK that long is the NAK's fault, not the packet's (it blamed packet_bytes).
    let config = AllreduceConfig {
        nak_ps: u64::MAX / 2,
        ops: 1,
        ..AllreduceConfig::default()
    };
    let e = allreduce_study(&paper_tree(), config, &ErrorModel::None)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("nak: a 256-byte packet takes"), "{e}");
    // Many operations of a slow hop pass the clock: refused, not wrapped to a small time.
    let config = AllreduceConfig {
        packet_bytes: 16_384,
        ops: 1_000,
        ..AllreduceConfig::default()
    };
    let e = allreduce_study(&small(), config, &ErrorModel::None)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("ops: 1000 operations run past"), "{e}");
    // Every operation's time is kept: a count past the limit is refused before any runs
    // (2^32-1 of them would want 32 GiB at once).
    let config = AllreduceConfig {
        ops: u32::MAX,
        ..AllreduceConfig::default()
    };
    let e = allreduce_study(&small(), config, &ErrorModel::None)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "ops: from 1 to 10000000 operations (each one's time is kept), got 4294967295"
    );
}
