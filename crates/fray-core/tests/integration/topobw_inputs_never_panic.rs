//! Layout files and reports (of a Gemini machine or of hosts) of any text are read or refused
//! with an error naming the line; they never panic.

use fray_core::diag::topobw::{HostReport, Layout, Report};
use fray_core::diag::DiagError;
use proptest::prelude::*;

const LAYOUT: &str = "machine gemini:2x2x2\n0 c0-0c0s0n0\n1 nid00001\n2 1 1 1 1\n";
const REPORT: &str =
    "c0-0c0s5n1 X+CE c0-0c1s5n1 (nid00011 to nid00053): 5.0454 seconds = 5945.98 MB/sec\nBandwidth X\n";
const HOST_REPORT: &str =
    "H-1 -> H-2 (round 1): 0.0336 seconds = 1999.99 MB/sec\nBandwidth hosts\n";

fn check(r: Result<(), DiagError>, lines: usize) -> Result<(), TestCaseError> {
    if let Err(e) = r {
        match e {
            DiagError::Line { line, .. } => prop_assert!(line <= lines),
            // A report with no transfer line is refused as a whole, by the file's name.
            DiagError::Invalid { what, .. } => prop_assert_eq!(what, "r.txt"),
            other => prop_assert!(false, "not a line error: {other}"),
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn mutated_layouts(cut in 0usize..LAYOUT.len(), junk in "[ -~\n]{0,8}") {
        let mut text = LAYOUT.to_string();
        text.replace_range(cut..cut, &junk);
        let r = Layout::parse("layout.txt", Some(&text), 3).map(|_| ());
        check(r, text.lines().count())?;
    }

    #[test]
    fn mutated_reports(cut in 0usize..REPORT.len(), junk in "[ -~]{0,8}") {
        let mut text = REPORT.to_string();
        text.replace_range(cut..cut, &junk);
        check(Report::parse("r.txt", &text).map(|_| ()), text.lines().count())?;
    }

    #[test]
    fn arbitrary_reports(text in "\\PC{0,300}") {
        check(Report::parse("r.txt", &text).map(|_| ()), text.lines().count())?;
        check(HostReport::parse("r.txt", &text).map(|_| ()), text.lines().count())?;
    }

    #[test]
    fn mutated_host_reports(cut in 0usize..HOST_REPORT.len(), junk in "[ -~]{0,8}") {
        let mut text = HOST_REPORT.to_string();
        text.replace_range(cut..cut, &junk);
        check(HostReport::parse("r.txt", &text).map(|_| ()), text.lines().count())?;
    }
}
