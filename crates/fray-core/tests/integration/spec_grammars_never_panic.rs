//! Every spec grammar and the fault-file reader take any text: a value, or an error on one
//! line; never a panic, never a hang, never a fabric larger than memory allows. Inputs are
//! arbitrary text and valid specs with a few characters inserted.

use fray_core::collectives::{ErrorModel, Replication};
use fray_core::fabric::{fabric_bytes, Fabric, FabricSpec, MAX_FABRIC_BYTES};
use fray_core::faults::{FaultSpec, Faults};
use fray_core::routing;
use fray_core::workload::WorkloadSpec;
use proptest::prelude::*;

const FABRICS: [&str; 6] = [
    "torus:4x4",
    "mesh:3x3,t=2",
    "hyperx:3x3,t=2",
    "dragonfly:p=2,a=4,h=2,g=5",
    "xgft:2;4,4;1,4",
    "gemini:2x2x2",
];
const ROUTINGS: [&str; 6] = [
    "ugal:threshold=5,links=adaptive",
    "ugal:credits=8,factor=2,queues=vc",
    "doal:weights=merlin",
    "dor-retry",
    "table",
    "updown-ft",
];
const WORKLOADS: [&str; 3] = [
    "halo3d26:nx=2,iterations=1",
    "uniform:iterations=2,host=ember*2",
    "sweep3d:iterations=1",
];

/// `base` with `junk` inserted at `at` (a char boundary at or before it).
fn mutated(base: &str, at: usize, junk: &str) -> String {
    let mut at = at.min(base.len());
    while !base.is_char_boundary(at) {
        at -= 1;
    }
    let mut s = base.to_string();
    s.insert_str(at, junk);
    s
}

fn one_line<E: std::fmt::Display>(e: E) -> Result<(), TestCaseError> {
    let text = e.to_string();
    prop_assert!(!text.is_empty() && !text.contains('\n'), "{text:?}");
    Ok(())
}

fn check_fabric(text: &str) -> Result<(), TestCaseError> {
    match text.parse::<FabricSpec>() {
        Err(e) => one_line(e),
        Ok(spec) => match Fabric::from_spec(&spec, Default::default()) {
            Err(e) => one_line(e),
            Ok(f) => {
                let bytes =
                    fabric_bytes(f.num_routers(), f.num_endpoints(), f.num_router_channels());
                prop_assert!(bytes <= MAX_FABRIC_BYTES);
                Ok(())
            }
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn fabric_specs(pick in 0usize..6, at in 0usize..40, junk in "[0-9a-z:;,=x.+-]{0,2}") {
        check_fabric(&mutated(FABRICS[pick], at, &junk))?;
    }

    #[test]
    fn fabric_specs_of_any_text(text in "\\PC{0,40}") {
        check_fabric(&text)?;
    }

    #[test]
    fn routing_names(pick in 0usize..6, at in 0usize..40, junk in "[0-9a-z:;,=.-]{0,4}",
                     on in 0usize..3) {
        let fabric = Fabric::parse(["dragonfly:p=2,a=4,h=2,g=5", "hyperx:3x3,t=2", "torus:4x4"][on]).unwrap();
        let name = mutated(ROUTINGS[pick], at, &junk);
        if let Err(e) = routing::build(&name, &fabric, &Faults::none(&fabric)) {
            one_line(e)?;
        }
    }

    #[test]
    fn replication_error_model_fault_and_workload_specs(text in "\\PC{0,30}", pick in 0usize..3,
                                                        at in 0usize..40,
                                                        junk in "[0-9a-z:;,=.*+%-]{0,4}") {
        if let Err(e) = Replication::parse(&text) { one_line(e)?; }
        if let Err(e) = ErrorModel::parse(&text) { one_line(e)?; }
        if let Err(e) = text.parse::<FaultSpec>() { one_line(e)?; }
        if let Err(e) = WorkloadSpec::parse(&text) { one_line(e)?; }
        if let Err(e) = WorkloadSpec::parse(&mutated(WORKLOADS[pick], at, &junk)) { one_line(e)?; }
        for k in ["spatial", "temporal"] {
            if let Ok(r) = Replication::parse(&format!("{k}:{}", at * 1_000_003)) {
                prop_assert!(r.copies() <= Replication::MAX_COPIES);
            }
        }
    }

    #[test]
    fn fault_files(lines in prop::collection::vec("(\\(\\d,\\d\\)->\\(\\d,\\d\\)(\\[\\d\\])?|\\PC{0,12})( *#.*)?", 0..6),
                   bom in any::<bool>()) {
        let fabric = Fabric::parse("mesh:3x3").unwrap();
        let text = format!("{}{}", if bom { "\u{feff}" } else { "" }, lines.join("\n"));
        let mut faults = Faults::none(&fabric);
        match faults.fail_cables_listed(&fabric, &text, "down.txt") {
            Err(e) => {
                let e = e.to_string();
                prop_assert!(e.starts_with("down.txt:") && !e.contains('\n'), "{e}");
            }
            // Every listed line is one distinct cable: both its directions are down.
            Ok(n) => prop_assert_eq!(faults.num_channels_down(), 2 * n),
        }
    }
}
