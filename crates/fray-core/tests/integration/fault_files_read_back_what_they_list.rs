//! Fault files (one `FROM->TO` cable per line, `#` comments), as `fray route --fail-file` and
//! `fray links --down` read them: a file that lists cables fails exactly those cables, in
//! either direction, whatever the comments, blank lines and spaces around them; any other
//! text is refused with an error naming the file and a line it has, never a panic.

use std::collections::BTreeSet;

use fray_core::fabric::Fabric;
use fray_core::faults::Faults;
use proptest::prelude::*;

fn fabric() -> Fabric {
    Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap()
}

proptest! {
    #[test]
    fn listed_cables_and_only_they_go_down(
        picks in proptest::collection::vec((0usize..10_000, any::<bool>(), 0u8..4), 0..20),
    ) {
        let f = fabric();
        let ch = f.channels();
        let routers = f.num_router_channels();
        let mut text = String::new();
        let mut expected = BTreeSet::new();
        for (i, &(k, reverse, dressing)) in picks.iter().enumerate() {
            let c = (k % routers) as u32;
            // A cable is listed once (listing it again, in either direction, is an error).
            if !expected.insert(c.min(ch.reverse[c as usize])) {
                continue;
            }
            let named = if reverse { ch.reverse[c as usize] } else { c };
            let name = f.channel_name(named);
            match dressing {
                0 => text.push_str(&format!("{name}\n")),
                1 => text.push_str(&format!("  {name}\t # cable {i}\n")),
                2 => text.push_str(&format!("# a comment\n\n{name}\n")),
                _ => text.push_str(&format!("{name}#\n   \n")),
            }
        }
        let mut faults = Faults::none(&f);
        let listed = faults.fail_cables_listed(&f, &text, "down.txt").unwrap();
        prop_assert_eq!(listed, expected.len());
        let down: BTreeSet<u32> = (0..ch.len() as u32)
            .filter(|&c| faults.channel_is_down(c))
            .map(|c| c.min(ch.reverse[c as usize]))
            .collect();
        let cables = expected.len();
        prop_assert_eq!(down, expected);
        prop_assert_eq!(faults.num_channels_down(), 2 * cables);
    }

    #[test]
    fn other_text_is_an_error_naming_the_file_and_a_line_it_has(text in "\\PC{0,200}") {
        let f = fabric();
        let mut faults = Faults::none(&f);
        if let Err(e) = faults.fail_cables_listed(&f, &text, "down.txt") {
            let msg = e.to_string();
            let line: usize = msg
                .strip_prefix("down.txt:")
                .and_then(|rest| rest.split(':').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("no file and line in {msg:?}"));
            prop_assert!(line >= 1 && line <= text.lines().count(), "{msg}");
        }
    }
}
