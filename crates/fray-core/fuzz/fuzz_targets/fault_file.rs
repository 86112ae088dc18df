//! Fault files (`FROM->TO` per line) of any text on a 3x3 mesh: every listed line fails one
//! distinct cable (both its directions), or one line names the file.
#![no_main]

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use fray_core_fuzz::{assert_one_line_naming_the_file, FILE};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let fabric = Fabric::parse("mesh:3x3").expect("a valid spec");
    let mut faults = Faults::none(&fabric);
    match faults.fail_cables_listed(&fabric, text, FILE) {
        Ok(cables) => assert_eq!(faults.num_channels_down(), 2 * cables),
        Err(e) => assert_one_line_naming_the_file(e),
    }
});
