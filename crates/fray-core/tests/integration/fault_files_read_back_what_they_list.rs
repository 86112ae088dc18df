//! Fault files (one `FROM->TO` cable per line, `#` comments), as `fray route --fail-file` and
//! `fray links --down` read them: a file that lists cables fails exactly those cables, in
//! either direction, whatever the comments, blank lines and spaces around them; any other
//! text is refused with an error naming the file and a line it has, never a panic. On fabrics
//! with parallel cables, the file fray writes of any set of down cables (`FROM->TO[k]` for the
//! `k`-th of parallel cables) reads back to exactly those cables.

use std::collections::BTreeSet;

use fray_core::fabric::Fabric;
use fray_core::faults::{fault_file_cables, Faults};
use proptest::prelude::*;

fn fabric() -> Fabric {
    Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap()
}

/// Fabrics with parallel cables: HyperX with 2 and 3 per neighbour pair, and a dragonfly
/// whose routers have two global cables to the same router of another group.
const PARALLEL: [&str; 3] = [
    "hyperx:3x3,k=2",
    "hyperx:4x2,k=1x3",
    "dragonfly:p=1,a=2,h=4,g=3",
];

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

    #[test]
    fn written_files_of_parallel_cables_read_back_to_the_same_channels(
        which in 0..PARALLEL.len(),
        down in proptest::collection::vec(any::<bool>(), 64),
    ) {
        let f = Fabric::parse(PARALLEL[which]).unwrap();
        let ch = f.channels();
        let cables: Vec<u32> = (0..f.num_router_channels() as u32)
            .filter(|&c| c < ch.reverse[c as usize])
            .collect();
        let mut faults = Faults::none(&f);
        // At most 36 cables: one draw each.
        for (&c, _) in cables.iter().zip(&down).filter(|(_, &d)| d) {
            faults.fail_cable(&f, c).unwrap();
        }
        let text = faults.down_cables_file(&f);
        let mut back = Faults::none(&f);
        let listed = back.fail_cables_listed(&f, &text, "saved.txt").unwrap();
        prop_assert_eq!(2 * listed, faults.num_channels_down());
        prop_assert_eq!(&back, &faults, "{}", text);
        // Each line read from the other end names the same cable.
        let flipped: String = fault_file_cables(&text)
            .map(|(_, name)| {
                let (a, b) = name.split_once("->").unwrap();
                match b.split_once('[') {
                    Some((b, k)) => format!("{b}->{a}[{k}\n"),
                    None => format!("{b}->{a}\n"),
                }
            })
            .collect();
        let mut flipped_back = Faults::none(&f);
        flipped_back.fail_cables_listed(&f, &flipped, "flipped.txt").unwrap();
        prop_assert_eq!(&flipped_back, &faults, "{}", flipped);
    }
}

#[test]
fn the_parallel_fabrics_have_parallel_cables_and_files_number_them_all() {
    for spec in PARALLEL {
        let f = Fabric::parse(spec).unwrap();
        let mut faults = Faults::none(&f);
        for c in 0..f.num_router_channels() as u32 {
            faults.fail_cable(&f, c).unwrap();
        }
        let text = faults.down_cables_file(&f);
        let most = if spec.contains("k=1x3") { "[3]" } else { "[2]" };
        assert!(text.contains(most), "{spec}: {text}");
        let mut back = Faults::none(&f);
        back.fail_cables_listed(&f, &text, "all.txt").unwrap();
        assert_eq!(back, faults, "{spec}");
    }
}
