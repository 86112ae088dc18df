//! The detection experiment tells weak checksums from strong ones.

use fray_integrity::inject::ErrorPattern;
use fray_integrity::quality::{detection_quality, detection_table, QualityConfig, Requirement};
use fray_integrity::Algorithm;

fn cfg(trials: u64) -> QualityConfig {
    QualityConfig {
        message_bytes: 256,
        trials,
        seed: 42,
    }
}

#[test]
fn crcs_and_xxh3_catch_every_single_double_and_short_burst() {
    let patterns = [
        ErrorPattern::SingleBit,
        ErrorPattern::DoubleBit,
        ErrorPattern::Burst { bits: 32 },
    ];
    let rows = detection_table(
        &[
            Algorithm::Crc32c,
            Algorithm::Crc32,
            Algorithm::Xxh3,
            Algorithm::Fletcher64,
        ],
        &patterns,
        &cfg(3000),
    )
    .unwrap();
    assert_eq!(rows.len(), 12);
    for r in rows {
        assert_eq!(r.missed, 0, "{} missed {}", r.algorithm, r.pattern.name());
    }
}

#[test]
fn xor_misses_double_bit_errors_in_the_same_column() {
    // Two flips in the same bit position of different words cancel in an XOR: about 1 in 32.
    let r = detection_quality(Algorithm::Xor32, ErrorPattern::DoubleBit, &cfg(4000)).unwrap();
    assert!(r.missed > 40, "xor32 missed only {} of 4000", r.missed);
    assert!(r.miss_rate() < 0.1);
    // Every single-bit error changes the XOR.
    let r = detection_quality(Algorithm::Xor32, ErrorPattern::SingleBit, &cfg(2000)).unwrap();
    assert_eq!(r.missed, 0);
}

#[test]
fn sum_misses_some_double_bit_errors() {
    let r = detection_quality(Algorithm::Sum32, ErrorPattern::DoubleBit, &cfg(4000)).unwrap();
    assert!(r.missed > 10, "sum32 missed only {}", r.missed);
}

#[test]
fn the_default_requirement_rejects_the_reference_sums() {
    let req = Requirement {
        config: cfg(3000),
        ..Requirement::default()
    };
    assert!(!req.check(Algorithm::Xor32).unwrap().0);
    assert!(!req.check(Algorithm::Sum32).unwrap().0);
    assert!(req.check(Algorithm::Crc32c).unwrap().0);
}

#[test]
fn same_seed_same_result() {
    let a = detection_quality(Algorithm::Xor32, ErrorPattern::DoubleBit, &cfg(500)).unwrap();
    let b = detection_quality(Algorithm::Xor32, ErrorPattern::DoubleBit, &cfg(500)).unwrap();
    assert_eq!(a, b);
}

#[test]
fn bad_pattern_and_burst_are_errors() {
    assert!(ErrorPattern::parse("triple").is_err());
    assert_eq!(
        ErrorPattern::parse("burst16").unwrap(),
        ErrorPattern::Burst { bits: 16 }
    );
    let too_long = ErrorPattern::Burst { bits: 256 * 8 + 1 };
    assert!(detection_quality(Algorithm::Crc32c, too_long, &cfg(10)).is_err());
}
