//! The Aries wiring reader and the three counter readers never panic, whatever they are
//! given: random text, and real files cut, spliced and corrupted line by line. Every error
//! names the file and a line within it (0 for the file as a whole); a line broken by hand is
//! named by its number.

use fray_core::fabric::{AriesFabric, FabricError};
use fray_core::health::{read_counters, CounterFormat, HealthError};
use proptest::prelude::*;

/// Two groups of two chassis of two routers: green along chassis, black between them, two
/// blue cables between the groups, two processor tiles on router 0.
fn small_aries() -> String {
    let mut lines = Vec::new();
    let name = |g: u32, c: u32, s: u32| format!("c{}-0c{c}s{s}a0", 2 * g);
    for g in 0..2 {
        for c in 0..2 {
            for s in 0..2 {
                let me = name(g, c, s);
                let at = format!("({g}:{c}:{s})");
                lines.push(format!(
                    "{me}l00{at} green -> {}l00({g}:{c}:{})",
                    name(g, c, 1 - s),
                    1 - s
                ));
                lines.push(format!(
                    "{me}l10{at} black -> {}l10({g}:{}:{s})",
                    name(g, 1 - c, s),
                    1 - c
                ));
                let blue = if c == 0 {
                    format!("{}l20({}:0:{s})", name(1 - g, 0, s), 1 - g)
                } else {
                    "unused".into()
                };
                lines.push(format!("{me}l20{at} blue -> {blue}"));
                if (g, c, s) == (0, 0, 0) {
                    lines.push(format!("{me}l50{at} ptile -> processor"));
                    lines.push(format!("{me}l51{at} ptile -> processor"));
                }
            }
        }
    }
    lines.join("\n") + "\n"
}

fn counter_samples() -> [(CounterFormat, &'static str); 3] {
    [
        (
            CounterFormat::Csv,
            "time_s,node,port,counter,value\n0,0x10,1,PortRcvData,5\n60,leaf-a,2,symbol_error,7\n",
        ),
        (
            CounterFormat::Perfquery,
            "# Port extended counters: Lid 9 port 2 (CapMask: 0x5300)\nPortSelect:......2\n\
             PortRcvData:......81\nLinkDownedCounter:......3\n",
        ),
        (
            CounterFormat::Ibqueryerrors,
            "Errors for 0x10 \"sw\"\n   GUID 0x10 port 1: [LinkDownedCounter == 3] \
             [PortRcvData == 5 (20B)]\n## Summary: 1 nodes checked\n",
        ),
    ]
}

#[test]
fn the_small_machine_builds_and_bad_lines_are_named() {
    let text = small_aries();
    let read = AriesFabric::parse(&text, "small.txt").unwrap();
    assert_eq!(read.fabric.num_routers(), 8);
    assert_eq!(read.fabric.num_endpoints(), 1);
    assert_eq!(read.fabric.cables_per_class(), [1, 4, 4, 2]);
    let lines: Vec<&str> = text.lines().collect();
    for (k, replacement, needle) in [
        (
            0,
            "c0-0c0s0a0l00(0:0:0) red -> c0-0c0s1a0l00(0:0:1)",
            "unknown colour",
        ),
        (
            0,
            "c0-0c0s0a0l00(0:0:0) green c0-0c0s1a0l00(0:0:1)",
            "expected PORT",
        ),
        (
            0,
            "c0-0c0s0a0l00(0:0:0) green -> c0-0c1s1a0l00(0:1:1)",
            "green cable cannot",
        ),
        (
            1,
            "c0-0c0s0a0l10(0:0:0) black -> c0-0c1s0a0l20(0:1:0)",
            "does not list",
        ),
        (2, "c0-0c0s0a0l20(0:0:0) blue -> unused", "does not list"),
        (
            3,
            "c0-0c0s0a0l50(0:0:0) ptile -> c0-0c0s1a0l00(0:0:1)",
            "a ptile goes to",
        ),
        (
            0,
            "c0-0c0s0a0l00(0:0:0) green -> c0-0c0s1a0l00(0:0:9)",
            "is at 0:0:1 here but at 0:0:9 on line 1",
        ),
    ] {
        let mut bad = lines.clone();
        bad[k] = replacement;
        let err = AriesFabric::parse(&(bad.join("\n") + "\n"), "small.txt").unwrap_err();
        let text = err.to_string();
        assert!(text.contains(needle), "{replacement}: {text}");
        // The line named is the broken one, or (for a far end that does not answer) the line
        // that points at it.
        let FabricError::File { line, .. } = err else {
            panic!("{err:?}")
        };
        assert!(line >= 1 && line <= lines.len(), "{text}");
    }
    // Half a node: the router's last processor tile is named.
    let mut bad = lines.clone();
    bad[3] = "c0-0c0s0a0l50(0:0:0) ptile -> processor";
    bad.remove(4); // one ptile only: not a whole node
    let err = AriesFabric::parse(&(bad.join("\n") + "\n"), "small.txt").unwrap_err();
    assert_eq!(
        err.to_string(),
        "small.txt:4: router c0-0c0s0a0 has 1 processor tiles, not a multiple of 2 (two per node)"
    );
}

/// One change to a file's lines.
#[derive(Debug, Clone)]
enum Edit {
    Delete(usize),
    Duplicate(usize, usize),
    Swap(usize, usize),
    Overwrite(usize, usize, u8),
    Truncate(usize, usize),
    Insert(usize, String),
}

fn edit() -> impl Strategy<Value = Edit> {
    let byte = prop_oneof![
        prop::sample::select(b"()-:>, \t0123456789clsagreenbluxp#=[]".to_vec()),
        any::<u8>()
    ];
    prop_oneof![
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Duplicate(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Swap(a, b)),
        (any::<usize>(), any::<usize>(), byte).prop_map(|(l, at, b)| Edit::Overwrite(l, at, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(l, at)| Edit::Truncate(l, at)),
        (any::<usize>(), "[ -~]{0,60}").prop_map(|(l, s)| Edit::Insert(l, s)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut lines: Vec<Vec<u8>> = text.lines().map(|l| l.as_bytes().to_vec()).collect();
    for e in edits {
        let n = lines.len().max(1);
        match e {
            Edit::Delete(l) if !lines.is_empty() => {
                lines.remove(l % n);
            }
            Edit::Duplicate(l, to) if !lines.is_empty() => {
                let line = lines[l % n].clone();
                lines.insert(to % (n + 1), line);
            }
            Edit::Swap(a, b) if !lines.is_empty() => lines.swap(a % n, b % n),
            Edit::Overwrite(l, at, b) if !lines.is_empty() => {
                let line = &mut lines[l % n];
                if !line.is_empty() {
                    let k = at % line.len();
                    line[k] = *b;
                }
            }
            Edit::Truncate(l, at) if !lines.is_empty() => {
                let line = &mut lines[l % n];
                let k = at % (line.len() + 1);
                line.truncate(k);
            }
            Edit::Insert(l, s) => lines.insert(l % (lines.len() + 1), s.as_bytes().to_vec()),
            _ => {}
        }
    }
    let bytes: Vec<u8> = lines.join(&b'\n');
    String::from_utf8_lossy(&bytes).into_owned()
}

fn check_aries(text: &str) {
    if let Err(err) = AriesFabric::parse(text, "f.txt") {
        let FabricError::File { file, line, .. } = &err else {
            panic!("not a file error: {err:?}")
        };
        assert_eq!(file, "f.txt");
        assert!(*line <= text.lines().count() + 1, "{err}");
    }
}

fn check_counters(text: &str, format: CounterFormat) {
    if let Err(err) = read_counters(text, "c.txt", format) {
        let HealthError::File { file, line, .. } = &err else {
            panic!("not a file error: {err:?}")
        };
        assert_eq!(file, "c.txt");
        assert!(*line >= 1 && *line <= text.lines().count().max(1), "{err}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn aries_survives_edits(edits in prop::collection::vec(edit(), 1..6)) {
        check_aries(&apply(&small_aries(), &edits));
    }

    #[test]
    fn aries_survives_random_text(text in "[ -~\n]{0,400}") {
        check_aries(&text);
    }

    #[test]
    fn counters_survive_edits(which in 0usize..3, edits in prop::collection::vec(edit(), 1..6)) {
        let (format, text) = counter_samples()[which];
        check_counters(&apply(text, &edits), format);
    }

    #[test]
    fn counters_survive_random_text(which in 0usize..3, text in "[ -~\n]{0,300}") {
        check_counters(&text, counter_samples()[which].0);
    }
}
