//! Neither reader panics, whatever it is given: random text, and the real X5 ibnetdiscover
//! file and the JSON example cut, spliced, shuffled and corrupted byte by byte. Every error is
//! a `FabricError::File` whose line lies within the file (1 to one past its last newline).

use std::path::PathBuf;

use fray_core::fabric::{Fabric, FabricError, FileFormat};
use proptest::prelude::*;

fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
    .unwrap()
}

/// One change to the bytes of a file; positions are taken modulo the current length.
#[derive(Debug, Clone)]
enum Edit {
    Delete { at: usize, len: usize },
    Insert { at: usize, bytes: Vec<u8> },
    Overwrite { at: usize, byte: u8 },
    SwapLines { a: usize, b: usize },
    DuplicateLine { line: usize, to: usize },
    Truncate { at: usize },
}

fn edit() -> impl Strategy<Value = Edit> {
    // Bytes the formats care about, so that insertions often change the meaning.
    let meaningful = prop::sample::select(b"\"[]()#{}:,=- \t\n0123456789xSHRabcdefQDRE".to_vec());
    let byte = prop_oneof![meaningful, any::<u8>()];
    prop_oneof![
        (any::<usize>(), 1usize..40).prop_map(|(at, len)| Edit::Delete { at, len }),
        (any::<usize>(), prop::collection::vec(byte.clone(), 1..8))
            .prop_map(|(at, bytes)| Edit::Insert { at, bytes }),
        (any::<usize>(), byte).prop_map(|(at, byte)| Edit::Overwrite { at, byte }),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::SwapLines { a, b }),
        (any::<usize>(), any::<usize>()).prop_map(|(line, to)| Edit::DuplicateLine { line, to }),
        any::<usize>().prop_map(|at| Edit::Truncate { at }),
    ]
}

fn apply(bytes: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for e in edits {
        let n = out.len().max(1);
        match e {
            Edit::Delete { at, len } => {
                let at = at % n;
                let end = (at + len).min(out.len());
                out.drain(at.min(end)..end);
            }
            Edit::Insert { at, bytes } => {
                let at = at % (out.len() + 1);
                out.splice(at..at, bytes.iter().copied());
            }
            Edit::Overwrite { at, byte } => {
                if !out.is_empty() {
                    let at = at % out.len();
                    out[at] = *byte;
                }
            }
            Edit::SwapLines { a, b } => {
                let mut lines: Vec<Vec<u8>> =
                    out.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
                let k = lines.len();
                lines.swap(a % k, b % k);
                out = lines.join(&b'\n');
            }
            Edit::DuplicateLine { line, to } => {
                let mut lines: Vec<Vec<u8>> =
                    out.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
                let copy = lines[line % lines.len()].clone();
                let to = to % (lines.len() + 1);
                lines.insert(to, copy);
                out = lines.join(&b'\n');
            }
            Edit::Truncate { at } => out.truncate(at % n),
        }
    }
    out
}

/// Reads `bytes`, which must not panic; an error must be a file error on a line of the file.
fn check(bytes: &[u8], format: FileFormat) -> Result<(), TestCaseError> {
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
    match Fabric::read_bytes(bytes, "fuzz", format) {
        Ok(fabric) => prop_assert!(fabric.num_routers() > 0),
        Err(FabricError::File { file, line, reason }) => {
            prop_assert_eq!(file, "fuzz");
            prop_assert!(
                (1..=lines).contains(&line),
                "line {} outside 1..={}: {}",
                line,
                lines,
                reason
            );
            prop_assert!(!reason.is_empty());
        }
        Err(other) => prop_assert!(false, "not a file error: {}", other),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_text(text in "(\\PC|\n|\t){0,300}") {
        check(text.as_bytes(), FileFormat::Ibnetdiscover)?;
        check(text.as_bytes(), FileFormat::Json)?;
    }

    #[test]
    fn random_lines_of_ibnetdiscover_words(
        lines in prop::collection::vec(
            "(Switch|Ca|Rt|\\[[0-9]{1,3}\\]|\\[1\\]\\(2c9\\)|vendid=0x1|#)?[ \t]*(\"[SHRX]-[0-9a-f]{1,17}\"(\\[[0-9]{1,3}\\])?)?[ \t]*(# \"[a-z ]{0,5}\" lid [0-9]{1,2} [0-9]{1,2}x[A-Z0-9]{0,5})?",
            0..12,
        )
    ) {
        check(lines.join("\n").as_bytes(), FileFormat::Ibnetdiscover)?;
    }

    #[test]
    fn mutated_x5_ibnetdiscover(edits in prop::collection::vec(edit(), 1..5)) {
        check(&apply(&data("psmn_X5_ibnetdiscover.topofile"), &edits), FileFormat::Ibnetdiscover)?;
    }

    #[test]
    fn mutated_json_example(edits in prop::collection::vec(edit(), 1..5)) {
        check(&apply(&data("two_level.json"), &edits), FileFormat::Json)?;
    }
}

#[test]
fn the_unmutated_files_read() {
    check(
        &data("psmn_X5_ibnetdiscover.topofile"),
        FileFormat::Ibnetdiscover,
    )
    .unwrap();
    check(&data("two_leaves.topofile"), FileFormat::Ibnetdiscover).unwrap();
    check(&data("two_level.json"), FileFormat::Json).unwrap();
}
