//! The netwatch parser reads any text: every non-blank line is an event or a malformed line.

use fray_core::diag::parse_netwatch;
use proptest::prelude::*;

const GOOD: &str = "130325 15:51:00 c0-0c1s0g0l27 c0-0c1s1g0l17 1 RX lanemask=3";

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
        let log = parse_netwatch(&text);
        let lines = text.lines().filter(|l| !l.trim().is_empty() && !l.trim().starts_with('#')).count();
        prop_assert_eq!(log.events.len() + log.malformed.len(), lines);
    }

    #[test]
    fn mutated_good_lines_are_read_or_reported(cut in 0usize..GOOD.len(), junk in "[ -~]{0,6}") {
        let mut line = GOOD.to_string();
        line.replace_range(cut..cut, &junk);
        let text = format!("{GOOD}\n{line}\n{GOOD}\n");
        let log = parse_netwatch(&text);
        // A mutation that makes the line start with '#' turns it into a comment.
        let comment = line.trim().starts_with('#');
        prop_assert_eq!(log.events.len() + log.malformed.len(), if comment { 2 } else { 3 });
        prop_assert!(log.malformed.iter().all(|m| m.line == 2));
        prop_assert_eq!(log.events[0].line, 1);
    }
}
