//! What every fuzz target asserts of a reader's error: the promise of the readers, one line
//! that names the file it read.

use std::fmt::Display;

/// The name the targets give the file they feed a reader.
pub const FILE: &str = "fuzz.txt";

/// Panics (a finding for the fuzzer) unless `err` prints as one line naming [`FILE`].
pub fn assert_one_line_naming_the_file(err: impl Display) {
    let text = err.to_string();
    assert!(!text.contains('\n'), "an error of several lines: {text:?}");
    assert!(
        text.contains(FILE),
        "an error that does not name the file: {text:?}"
    );
}
