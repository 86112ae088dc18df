//! netwatch logs of any text: every line that is not blank or a comment is read as an event
//! or kept as malformed.
#![no_main]

use fray_core::diag::parse_netwatch;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let log = parse_netwatch(text);
    let lines = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim().starts_with('#'))
        .count();
    assert_eq!(log.events.len() + log.malformed.len(), lines);
});
