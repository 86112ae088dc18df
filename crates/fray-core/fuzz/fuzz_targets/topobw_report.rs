//! TopoBW reports (of a Gemini machine or of hosts) and layout files of any text: read, or
//! one line naming the file.
#![no_main]

use fray_core::diag::topobw::{HostReport, Layout, Report};
use fray_core_fuzz::{assert_one_line_naming_the_file, FILE};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Err(e) = Report::parse(FILE, text) {
        assert_one_line_naming_the_file(e);
    }
    if let Err(e) = HostReport::parse(FILE, text) {
        assert_one_line_naming_the_file(e);
    }
    if let Err(e) = Layout::parse(FILE, Some(text), 8) {
        assert_one_line_naming_the_file(e);
    }
});
