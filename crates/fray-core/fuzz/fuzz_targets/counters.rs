//! Port counter files of any text, in each format (perfquery, ibqueryerrors, CSV) and in the
//! one detected: samples, or one line naming the file.
#![no_main]

use fray_core::health::{read_counters, CounterFormat};
use fray_core_fuzz::{assert_one_line_naming_the_file, FILE};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    for format in [
        CounterFormat::Perfquery,
        CounterFormat::Ibqueryerrors,
        CounterFormat::Csv,
        CounterFormat::detect(text),
    ] {
        if let Err(e) = read_counters(text, FILE, format) {
            assert_one_line_naming_the_file(e);
        }
    }
});
