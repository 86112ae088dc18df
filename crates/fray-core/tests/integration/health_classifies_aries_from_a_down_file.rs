//! Cray XC wiring (NERSC Edison) is classified from a fault file naming three blue cables by
//! Cray's port names: those three are down and not critical (every pair of groups keeps 23
//! other blue cables), every other cable is healthy; counters, which name InfiniBand ports,
//! are refused with Aries wiring.

use std::path::PathBuf;

use fray_core::health::{classify_files, CableClass, HealthError, Thresholds};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/data")
        .join(name)
}

#[test]
fn edison_down_file_gives_three_down_blue_cables() {
    let t = Thresholds::default();
    let cables = classify_files(
        &data("edison_aries_links.txt"),
        &[],
        Some(&data("edison_down.txt")),
        &t,
    )
    .unwrap();
    // green 10800 + black 10800 + blue 2520 + host 5760, counted from the file apart.
    assert_eq!(cables.len(), 29_880);
    let down: Vec<_> = cables
        .iter()
        .filter(|c| c.verdict == CableClass::Down)
        .collect();
    assert_eq!(down.len(), 3);
    assert!(down.iter().all(|c| c.link_class == "blue" && !c.critical));
    let mut names: Vec<&str> = down.iter().map(|c| c.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "c0-0c0s0a0->c2-0c0s0a0",
            "c0-1c2s10a0->c6-3c2s8a0",
            "c2-0c2s13a0->c6-1c2s3a0"
        ],
        "each cable is named by its routers, Cray's names"
    );
    assert!(cables[3..].iter().all(|c| c.verdict == CableClass::Healthy));
}

#[test]
fn counters_with_aries_wiring_are_refused() {
    let err = classify_files(
        &data("edison_aries_links.txt"),
        &[data("x5_counters.csv").as_path()],
        None,
        &Thresholds::default(),
    )
    .unwrap_err();
    assert!(
        matches!(&err, HealthError::Option { field: "counters", reason } if reason.contains("aries")),
        "{err}"
    );
}
