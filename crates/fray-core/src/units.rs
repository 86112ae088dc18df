//! Quantities typed by people, parsed strictly and printed back: bandwidths (`3GB/s`,
//! `400Gb/s`), sizes (`2KiB`, `4MB`, `1e6B`) and durations (`100ns`, `1.4us`).
//!
//! A quantity is a number (`12`, `2.5`, `1e3`), optional spaces, then its unit. Decimal prefixes
//! `k` (or `K`), `M`, `G`, `T` are powers of 10; binary prefixes `Ki`, `Mi`, `Gi`, `Ti` are
//! powers of 2. A bandwidth is in bytes per second (`B/s`) or bits per second (`b/s`, as link
//! rates are quoted: `400Gb/s` is `50GB/s`); a size is a whole number of bytes (`B`); a duration
//! is in `s`, `ms`, `us` (or `µs`, `μs`), `ns` or `ps`, or for plans over months in `min`, `h`
//! or `d` (86,400 s). A value without its unit, with an
//! unknown unit, negative or not finite is an error quoting it and naming its field.
//!
//! Every value is read with one rounding (`100ns` is exactly the double `1e-7`), and the
//! printers ([`format_rate`], [`format_bytes`], [`format_seconds`]) write the shortest text
//! that reads back to the same value.
//!
//! ```
//! use fray_core::units::{format_rate, parse_bytes, parse_rate, parse_seconds};
//!
//! assert_eq!(parse_rate("3GB/s").unwrap(), 3e9);
//! assert_eq!(parse_rate("400 Gb/s").unwrap(), 50e9);
//! assert_eq!(parse_rate("1KiB/s").unwrap(), 1024.0);
//! assert_eq!(parse_bytes("2KiB").unwrap(), 2048);
//! assert_eq!(parse_seconds("100ns").unwrap(), 100e-9);
//! assert_eq!(parse_seconds("30d").unwrap(), 30.0 * 86400.0);
//! assert_eq!(format_rate(50e9), "50GB/s");
//! assert!(parse_rate("3GB").is_err());   // a size, not a rate
//! let err = parse_seconds("100").unwrap_err().in_field("latency");   // no unit
//! assert_eq!(err.field, "latency");
//! ```

use thiserror::Error;

/// A quantity that cannot be read: the field it was given for, the text as given and what
/// was expected. It displays as `cannot read "TEXT" as EXPECTED`, for the caller to place
/// after the field or the path it names.
#[derive(Debug, Error, Clone, PartialEq)]
#[error("cannot read {value:?} as {expected}")]
pub struct QuantityError {
    /// The field the value was given for: the kind of quantity (`bandwidth`, `size`,
    /// `duration`) until a caller names it with [`QuantityError::in_field`].
    pub field: String,
    /// The text as given.
    pub value: String,
    /// What a valid value looks like.
    pub expected: &'static str,
}

impl QuantityError {
    /// The same error, naming `field` (an option or key, e.g. `link_bandwidth`).
    pub fn in_field(self, field: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            ..self
        }
    }
}

/// Prefixes as (name, power of ten, power-of-two exponent).
const PREFIXES: &[(&str, i32, u32)] = &[
    ("", 0, 0),
    ("k", 3, 0),
    ("K", 3, 0),
    ("M", 6, 0),
    ("G", 9, 0),
    ("T", 12, 0),
    ("Ki", 0, 10),
    ("Mi", 0, 20),
    ("Gi", 0, 30),
    ("Ti", 0, 40),
];

/// Time units as (name, power of ten of a second, factor): the long units a planner over
/// months reads (`min`, `h`, `d`) are whole multiples of a second.
const TIME_UNITS: &[(&str, i32, f64)] = &[
    ("s", 0, 1.0),
    ("ms", -3, 1.0),
    ("us", -6, 1.0),
    ("µs", -6, 1.0),
    ("μs", -6, 1.0),
    ("ns", -9, 1.0),
    ("ps", -12, 1.0),
    ("min", 0, 60.0),
    ("h", 0, 3600.0),
    ("d", 0, 86400.0),
];

const RATE_EXPECTED: &str = "a bandwidth like 3GB/s or 25Gb/s";
const SIZE_EXPECTED: &str = "a size like 64KiB, 4MB or 8B";
const WHOLE_EXPECTED: &str = "a whole number of bytes";
const TIME_EXPECTED: &str = "a duration like 100ns, 1.4us or 2s";
const LIST_EXPECTED: &str = "sizes separated by single commas, or a range LOW..HIGH";
const RANGE_EXPECTED: &str = "a range LOW..HIGH with 0 < LOW <= HIGH";

/// A number as written (`2.5e-3`: digits, an optional fraction, an optional exponent), then
/// its unit after optional spaces.
struct Number<'a> {
    /// The digits before the point.
    whole: &'a str,
    /// The digits after the point (may be empty).
    fraction: &'a str,
    exponent: i32,
    unit: &'a str,
}

impl<'a> Number<'a> {
    fn split(text: &'a str) -> Option<Self> {
        let b = text.as_bytes();
        let digits = |mut i: usize| {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            i
        };
        let whole_end = digits(0);
        if whole_end == 0 {
            return None;
        }
        let mut end = whole_end;
        let mut fraction = "";
        if b.get(end) == Some(&b'.') {
            let frac = digits(end + 1);
            if frac == end + 1 {
                return None;
            }
            fraction = &text[end + 1..frac];
            end = frac;
        }
        let mut exponent = 0;
        if matches!(b.get(end), Some(b'e' | b'E')) {
            let sign = end + 1 + usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
            let exp_end = digits(sign);
            if exp_end > sign {
                exponent = text[end + 1..exp_end].parse().ok()?;
                end = exp_end;
            }
        }
        Some(Self {
            whole: &text[..whole_end],
            fraction,
            exponent,
            unit: text[end..].trim_start(),
        })
    }

    /// The value times `10^pow10`, rounded once (so `100ns` is exactly the double `1e-7`).
    fn scaled(&self, pow10: i32) -> Option<f64> {
        let exponent = self.exponent.checked_add(pow10)?;
        format!("{}.{}0e{exponent}", self.whole, self.fraction)
            .parse()
            .ok()
    }

    /// The value times `10^pow10 * 2^pow2` as a whole number, exactly, or `None` when it is
    /// not whole or does not fit in 64 bits.
    fn whole_times(&self, pow10: i32, pow2: u32) -> Option<u64> {
        let digits = format!("{}{}", self.whole, self.fraction);
        let digits = digits.trim_start_matches('0');
        let mut shift = self
            .exponent
            .checked_add(pow10)?
            .checked_sub(i32::try_from(self.fraction.len()).ok()?)?;
        let mut digits = digits;
        // Drop trailing zeros into the shift, so that 1.000KB is as whole as 1KB.
        while shift < 0 && digits.ends_with('0') {
            digits = &digits[..digits.len() - 1];
            shift += 1;
        }
        let mut n: u128 = if digits.is_empty() {
            0
        } else {
            digits.parse().ok()?
        };
        n = n.checked_mul(1u128.checked_shl(pow2)?)?;
        if shift >= 0 {
            n = n.checked_mul(10u128.checked_pow(u32::try_from(shift).ok()?)?)?;
        } else {
            let divisor = 10u128.checked_pow(shift.unsigned_abs())?;
            if !n.is_multiple_of(divisor) {
                return None;
            }
            n /= divisor;
        }
        u64::try_from(n).ok()
    }
}

fn error(text: &str, field: &str, expected: &'static str) -> QuantityError {
    QuantityError {
        field: field.to_string(),
        value: text.to_string(),
        expected,
    }
}

/// A prefix's (power of ten, power of two), if `prefix` is one.
fn prefix(prefix: &str) -> Option<(i32, u32)> {
    PREFIXES
        .iter()
        .find(|(p, _, _)| *p == prefix)
        .map(|&(_, pow10, pow2)| (pow10, pow2))
}

/// The slowest bandwidth fray takes, in bytes per second (0.125 B/s: one bit per second).
/// Slower rates, down to the subnormal doubles a "positive, finite" check lets through, make
/// the time of one byte overflow the engines' clocks (or round a channel's rate to zero, so
/// that a healthy fabric reads as unroutable), and no interconnect is that slow.
pub const MIN_RATE_BYTES_S: f64 = 0.125;

/// The fastest bandwidth fray takes, in bytes per second (1e21 B/s, a billion times today's
/// fastest links): every time per byte the engines use stays a normal double.
pub const MAX_RATE_BYTES_S: f64 = 1e21;

/// The longest latency of one hop (wire plus router) a link may have, in seconds (1 s, the
/// time light takes over 300,000 km of fibre). Every engine adds hop latencies in its clock
/// (the packet engine's holds 2^64 ps, about 213 days), so a bound far below the clock keeps
/// the sum of a run's hops representable instead of wrapping to a wrong, small time.
pub const MAX_LINK_LATENCY_S: f64 = 1.0;

const RATE_RANGE_EXPECTED: &str = "a bandwidth from 1b/s to 1e9TB/s (1e21 B/s) like 3GB/s";
const LATENCY_RANGE_EXPECTED: &str = "a link latency from 0s to 1s like 100ns";

/// Why a bandwidth in bytes per second is out of [`MIN_RATE_BYTES_S`] ..=
/// [`MAX_RATE_BYTES_S`] (or not finite), if it is: the one range check of every rate.
pub fn rate_out_of_range(bytes_per_s: f64) -> Option<String> {
    if (MIN_RATE_BYTES_S..=MAX_RATE_BYTES_S).contains(&bytes_per_s) {
        None
    } else {
        Some(format!(
            "must be from 1 b/s (0.125 B/s) to 1e21 B/s, got {bytes_per_s:e} B/s"
        ))
    }
}

/// Why a hop latency in seconds is out of `0 ..= MAX_LINK_LATENCY_S` (or not finite), if it
/// is: the one range check of every link latency.
pub fn link_latency_out_of_range(seconds: f64) -> Option<String> {
    if (0.0..=MAX_LINK_LATENCY_S).contains(&seconds) {
        None
    } else {
        Some(format!(
            "must be from 0 s to 1 s per hop, got {seconds:e} s"
        ))
    }
}

/// A link latency: a duration as [`parse_seconds`] reads it, at most
/// [`MAX_LINK_LATENCY_S`]. The error's field is `latency`.
pub fn parse_link_latency(text: &str) -> Result<f64, QuantityError> {
    let seconds = parse_seconds(text).map_err(|e| e.in_field("latency"))?;
    match link_latency_out_of_range(seconds) {
        None => Ok(seconds),
        Some(_) => Err(error(text, "latency", LATENCY_RANGE_EXPECTED)),
    }
}

/// A bandwidth such as `3GB/s`, `800MiB/s`, `400Gb/s` or `400 Gb/s`, in bytes per second,
/// from [`MIN_RATE_BYTES_S`] to [`MAX_RATE_BYTES_S`]. The error's field is `bandwidth`.
pub fn parse_rate(text: &str) -> Result<f64, QuantityError> {
    let fail = || error(text, "bandwidth", RATE_EXPECTED);
    let number = Number::split(text.trim()).ok_or_else(fail)?;
    let (unit_prefix, bits) = match (
        number.unit.strip_suffix("B/s"),
        number.unit.strip_suffix("b/s"),
    ) {
        (Some(p), _) => (p, false),
        (None, Some(p)) => (p, true),
        (None, None) => return Err(fail()),
    };
    let (pow10, pow2) = prefix(unit_prefix).ok_or_else(fail)?;
    // Dividing by 8 and multiplying by 2^k are exact: one rounding, in `scaled`.
    let mut rate = number.scaled(pow10).ok_or_else(fail)? * f64::from(pow2).exp2();
    if bits {
        rate /= 8.0;
    }
    if !(rate > 0.0 && rate.is_finite()) {
        return Err(error(
            text,
            "bandwidth",
            "a positive, finite bandwidth like 3GB/s",
        ));
    }
    match rate_out_of_range(rate) {
        None => Ok(rate),
        Some(_) => Err(error(text, "bandwidth", RATE_RANGE_EXPECTED)),
    }
}

/// A size such as `64KiB`, `4MB`, `2 GiB`, `1.5KiB` or `1e6B`, in bytes: a whole number that
/// fits in 64 bits (`1.1KB` is exactly 1100). The error's field is `size`.
pub fn parse_bytes(text: &str) -> Result<u64, QuantityError> {
    let fail = || error(text, "size", SIZE_EXPECTED);
    let number = Number::split(text.trim()).ok_or_else(fail)?;
    let unit_prefix = number.unit.strip_suffix('B').ok_or_else(fail)?;
    let (pow10, pow2) = prefix(unit_prefix).ok_or_else(fail)?;
    number
        .whole_times(pow10, pow2)
        .ok_or_else(|| error(text, "size", WHOLE_EXPECTED))
}

/// A duration such as `100ns`, `1.4us`, `1.4µs`, `2s`, `90min`, `8h` or `30d`, in seconds
/// (finite, may be zero).
/// The error's field is `duration`.
pub fn parse_seconds(text: &str) -> Result<f64, QuantityError> {
    let fail = || error(text, "duration", TIME_EXPECTED);
    let number = Number::split(text.trim()).ok_or_else(fail)?;
    let &(_, pow10, factor) = TIME_UNITS
        .iter()
        .find(|(u, _, _)| *u == number.unit)
        .ok_or_else(fail)?;
    let seconds = number.scaled(pow10).ok_or_else(fail)? * factor;
    if seconds.is_finite() {
        Ok(seconds)
    } else {
        Err(fail())
    }
}

/// Sizes separated by commas (`32KiB,64MiB`), or a doubling range (`8B..64MiB`: 8, 16, 32,
/// .. bytes up to 64 MiB), in bytes. The error's field is `sizes`.
pub fn parse_size_list(text: &str) -> Result<Vec<u64>, QuantityError> {
    let in_list = |e: QuantityError| e.in_field("sizes");
    let trimmed = text.trim();
    if let Some((low, high)) = trimmed.split_once("..") {
        let (low, high) = (
            parse_bytes(low).map_err(in_list)?,
            parse_bytes(high).map_err(in_list)?,
        );
        if low == 0 || high < low {
            return Err(error(text, "sizes", RANGE_EXPECTED));
        }
        let doublings = (high / low).ilog2();
        return Ok((0..=doublings).map(|k| low << k).collect());
    }
    let parts: Vec<&str> = trimmed.split(',').collect();
    if trimmed.is_empty() || parts.iter().any(|p| p.trim().is_empty()) {
        return Err(error(text, "sizes", LIST_EXPECTED));
    }
    parts
        .into_iter()
        .map(|p| parse_bytes(p).map_err(in_list))
        .collect()
}

/// `value` written with the largest of `units` (name, power of ten,
/// largest first) that leaves at least one digit before the point, in the shortest digits
/// that read back to `value`.
fn with_prefix(value: f64, units: &[(&str, i32)]) -> String {
    let last = units.last().expect("at least one unit");
    let &(smallest, _) = last;
    if !(value.is_finite() && value >= 0.0) {
        // Not a quantity the parsers accept: shown as it is, in the smallest unit.
        return format!("{value}{smallest}");
    }
    // `{:e}` gives the shortest digits that round-trip, e.g. `3.125e9`.
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific.split_once('e').expect("`{:e}` has an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` writes an integer exponent");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let &(name, pow10) = units.iter().find(|(_, p)| *p <= exponent).unwrap_or(last);
    // The value is 0.DIGITS * 10^(exponent + 1): place the point `exponent + 1 - pow10`
    // digits in.
    let point = exponent + 1 - pow10;
    let number = if value == 0.0 {
        "0".to_string()
    } else if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else {
        let point = point as usize;
        if digits.len() <= point {
            format!("{digits}{}", "0".repeat(point - digits.len()))
        } else {
            format!("{}.{}", &digits[..point], &digits[point..])
        }
    };
    format!("{number}{name}")
}

/// A bandwidth in bytes per second (positive, finite) as text that [`parse_rate`] reads
/// back to the same value: `50e9` is `50GB/s`, `1.25e8` is `125MB/s`.
pub fn format_rate(bytes_per_s: f64) -> String {
    with_prefix(
        bytes_per_s,
        &[
            ("TB/s", 12),
            ("GB/s", 9),
            ("MB/s", 6),
            ("kB/s", 3),
            ("B/s", 0),
        ],
    )
}

/// A size in bytes as text that [`parse_bytes`] reads back: with a binary prefix when the
/// size is a whole number of KiB, MiB, GiB or TiB (`2048` is `2KiB`), else in bytes.
pub fn format_bytes(bytes: u64) -> String {
    ["TiB", "GiB", "MiB", "KiB"]
        .iter()
        .zip([40, 30, 20, 10])
        .find(|&(_, shift)| bytes != 0 && bytes.trailing_zeros() >= shift)
        .map(|(name, shift)| format!("{}{name}", bytes >> shift))
        .unwrap_or_else(|| format!("{bytes}B"))
}

/// A duration in seconds (finite, not negative) as text that [`parse_seconds`] reads back to
/// the same value: `1e-7` is `100ns`, `1.4e-6` is `1.4us`.
pub fn format_seconds(seconds: f64) -> String {
    with_prefix(
        seconds,
        &[("s", 0), ("ms", -3), ("us", -6), ("ns", -9), ("ps", -12)],
    )
}

/// A duration, in seconds, in the largest of days, hours and minutes that holds it a whole
/// number of times (`30d`, `8h`, `90min`), else as [`format_seconds`] prints it; read back
/// exactly by [`parse_seconds`].
pub fn format_duration(seconds: f64) -> String {
    for (unit, size) in [("d", 86_400.0), ("h", 3_600.0), ("min", 60.0)] {
        let n = seconds / size;
        if seconds >= size && n.fract() == 0.0 && n * size == seconds {
            return format!("{n}{unit}");
        }
    }
    format_seconds(seconds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn durations_print_in_the_largest_whole_unit_and_read_back() {
        for (s, text) in [
            (2_592_000.0, "30d"),
            (28_800.0, "8h"),
            (5_400.0, "90min"),
            (90.0, "90s"),
            (1.5, "1.5s"),
            (86_400.0 * 1.5, "36h"),
        ] {
            assert_eq!(format_duration(s), text);
            assert_eq!(parse_seconds(text).unwrap(), s);
        }
    }

    #[test]
    fn reads_rates_with_every_prefix_in_bytes_and_bits() {
        assert_eq!(parse_rate("12.5GB/s").unwrap(), 12.5e9);
        assert_eq!(parse_rate("100 Gb/s").unwrap(), 12.5e9);
        assert_eq!(parse_rate("400Gb/s").unwrap(), 50e9);
        assert_eq!(parse_rate("2kB/s").unwrap(), 2e3);
        assert_eq!(parse_rate("2KB/s").unwrap(), 2e3);
        assert_eq!(parse_rate("1MiB/s").unwrap(), 1048576.0);
        assert_eq!(parse_rate("1e3MB/s").unwrap(), 1e9);
        assert_eq!(parse_rate("1.5TB/s").unwrap(), 1.5e12);
        assert_eq!(parse_rate("8b/s").unwrap(), 1.0);
        assert_eq!(parse_rate(" 50 GB/s ").unwrap(), 50e9);
    }

    #[test]
    fn reads_sizes_exactly() {
        for (text, want) in [
            ("8B", 8),
            ("64KiB", 65536),
            ("4MB", 4_000_000),
            ("1.5KiB", 1536),
            ("1.1KB", 1100),
            ("0.1KB", 100),
            ("2 GiB", 2 << 30),
            ("3kB", 3000),
            ("1e3B", 1000),
            ("1e6B", 1_000_000),
            ("1.000KB", 1000),
            ("0B", 0),
            ("2.5e-3MB", 2500),
            ("16TiB", 16 << 40),
        ] {
            assert_eq!(parse_bytes(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn reads_durations() {
        assert_eq!(parse_seconds("2s").unwrap(), 2.0);
        assert_eq!(parse_seconds("1.4us").unwrap(), 1.4e-6);
        assert_eq!(parse_seconds("1.4µs").unwrap(), 1.4e-6);
        assert_eq!(parse_seconds("1.4μs").unwrap(), 1.4e-6);
        assert_eq!(parse_seconds("150 ns").unwrap(), 150e-9);
        assert_eq!(parse_seconds("3ms").unwrap(), 3e-3);
        assert_eq!(parse_seconds("0ns").unwrap(), 0.0);
        assert_eq!(parse_seconds("5ps").unwrap(), 5e-12);
        assert_eq!(parse_seconds("2.5e3ns").unwrap(), 2.5e-6);
    }

    #[test]
    fn reads_size_lists_and_doubling_ranges() {
        assert_eq!(
            parse_size_list("32KiB,64MiB").unwrap(),
            vec![32768, 64 << 20]
        );
        assert_eq!(parse_size_list("8B..64B").unwrap(), vec![8, 16, 32, 64]);
        assert_eq!(parse_size_list("8B..100B").unwrap(), vec![8, 16, 32, 64]);
        assert_eq!(parse_size_list("8B..8B").unwrap(), vec![8]);
        assert_eq!(parse_size_list("8B..64MiB").unwrap().len(), 24);
        for bad in ["", "32KiB,,64MiB", "64B..8B", "0B..8B", "32KiB,", "8B..x"] {
            let err = parse_size_list(bad).unwrap_err();
            assert_eq!(err.field, "sizes", "{bad}");
        }
    }

    #[test]
    fn prints_in_the_largest_unit_that_keeps_a_digit_before_the_point() {
        assert_eq!(format_rate(50e9), "50GB/s");
        assert_eq!(format_rate(3.125e9), "3.125GB/s");
        assert_eq!(format_rate(1.25e8), "125MB/s");
        assert_eq!(format_rate(0.5), "0.5B/s");
        assert_eq!(format_rate(2e15), "2000TB/s");
        assert_eq!(format_bytes(2048), "2KiB");
        assert_eq!(format_bytes(3 << 20), "3MiB");
        assert_eq!(format_bytes(1000), "1000B");
        assert_eq!(format_bytes(0), "0B");
        assert_eq!(format_seconds(1e-7), "100ns");
        assert_eq!(format_seconds(1.4e-6), "1.4us");
        assert_eq!(format_seconds(0.0), "0s");
        assert_eq!(format_seconds(120.0), "120s");
        assert_eq!(format_seconds(2.5e-13), "0.25ps");
    }

    #[test]
    fn rejects_what_is_not_a_quantity_quoting_it() {
        for bad in [
            "",
            "GB/s",
            "3",
            "3GB",
            "3gB/s",
            "3GBps",
            "-3GB/s",
            "0GB/s",
            "3.GB/s",
            ".5GB/s",
            "3 G B/s",
            "1e999GB/s",
            "3XB/s",
            "3GB/s/s",
        ] {
            let err = parse_rate(bad).unwrap_err();
            assert_eq!(err.value, bad);
            assert_eq!(err.field, "bandwidth");
            assert!(err.to_string().contains("bandwidth"), "{bad}: {err}");
        }
        for bad in [
            "8", "8b", "KiB", "1.5B", "-1B", "1.0001KB", "4 MiBs", "", "1e30B",
        ] {
            let err = parse_bytes(bad).unwrap_err();
            assert_eq!(err.field, "size", "{bad}");
        }
        for bad in [
            "",
            "100",
            "100 n s",
            "100sec",
            "1e999s",
            "-1s",
            "1y",
            "1hr",
            "1e99999999999s",
        ] {
            let err = parse_seconds(bad).unwrap_err();
            assert!(err.to_string().contains("duration"), "{bad}: {err}");
        }
    }

    /// A prefix name and its factor as a double (exact for every prefix).
    fn prefixes() -> impl Strategy<Value = (&'static str, f64)> {
        prop::sample::select(PREFIXES)
            .prop_map(|(name, pow10, pow2)| (name, 10f64.powi(pow10) * f64::from(pow2).exp2()))
    }

    proptest! {
        #[test]
        fn printed_rates_read_back(rate in 1e-3f64..1e16) {
            prop_assert_eq!(parse_rate(&format_rate(rate)).unwrap(), rate);
        }

        #[test]
        fn printed_sizes_read_back(any_size in any::<u64>(), n in 0u64..(1 << 23), shift in 0u32..41) {
            // Any size, and sizes that are whole KiB, MiB, GiB or TiB.
            for bytes in [any_size, n << shift] {
                prop_assert_eq!(parse_bytes(&format_bytes(bytes)).unwrap(), bytes);
            }
        }

        #[test]
        fn printed_durations_read_back(seconds in 0f64..1e4) {
            prop_assert_eq!(parse_seconds(&format_seconds(seconds)).unwrap(), seconds);
        }

        #[test]
        fn a_prefix_scales_by_its_power(n in 1u32..100_000, (name, factor) in prefixes()) {
            let rate = parse_rate(&format!("{n}{name}B/s")).unwrap();
            prop_assert_eq!(rate, f64::from(n) * factor);
            let size = parse_bytes(&format!("{n} {name}B")).unwrap();
            prop_assert_eq!(size as f64, f64::from(n) * factor);
        }

        #[test]
        fn bits_are_an_eighth_of_bytes(n in 1u32..1_000_000, (name, _) in prefixes()) {
            let bytes = parse_rate(&format!("{n}{name}B/s")).unwrap();
            let bits = parse_rate(&format!("{n}{name}b/s")).unwrap();
            prop_assert_eq!(bytes, 8.0 * bits);
        }

        #[test]
        fn time_units_scale_by_powers_of_a_thousand(n in 0u32..1_000_000) {
            let s = parse_seconds(&format!("{n}s")).unwrap();
            for text in [format!("{n}000ms"), format!("{n}e6 us"), format!("{n}e9ns")] {
                prop_assert_eq!(parse_seconds(&text).unwrap(), s);
            }
        }

        #[test]
        fn nonsense_is_refused_naming_its_field(
            text in "[a-zA-Z/ µ.,-]{0,12}",
            field in "[a-z_]{1,16}",
        ) {
            // No digit first: never a quantity.
            for err in [
                parse_rate(&text).unwrap_err(),
                parse_bytes(&text).map(|b| b as f64).unwrap_err(),
                parse_seconds(&text).unwrap_err(),
            ] {
                let err = err.in_field(field.clone());
                prop_assert_eq!(&err.field, &field);
                prop_assert_eq!(&err.value, &text);
            }
        }

        #[test]
        fn a_unit_of_the_wrong_kind_is_refused(n in 1u32..1000, (name, _) in prefixes()) {
            let (size, rate) = (format!("{n}{name}B"), format!("{n}{name}B/s"));
            prop_assert!(parse_rate(&size).is_err());
            prop_assert!(parse_bytes(&rate).is_err());
            prop_assert!(parse_seconds(&size).is_err());
        }
    }
}

#[cfg(test)]
mod rates_and_latencies_stay_in_physical_bounds {
    use super::*;

    #[test]
    fn rates_below_a_bit_or_above_1e21_bytes_per_second_are_refused() {
        for text in [
            "1e-320B/s",
            "1e-6B/s",
            "0.1B/s",
            "0.5b/s",
            "1e22B/s",
            "1e10TB/s",
        ] {
            assert_eq!(
                parse_rate(text).unwrap_err().to_string(),
                format!("cannot read {text:?} as {RATE_RANGE_EXPECTED}")
            );
        }
        assert_eq!(parse_rate("1b/s").unwrap(), 0.125);
        assert_eq!(parse_rate("8b/s").unwrap(), 1.0);
        assert_eq!(parse_rate("1e9TB/s").unwrap(), 1e21);
    }

    #[test]
    fn link_latencies_beyond_a_second_are_refused() {
        for text in ["2s", "1e300s", "1e6s", "1d"] {
            let err = parse_link_latency(text).unwrap_err();
            assert_eq!(err.field, "latency");
            assert_eq!(
                err.to_string(),
                format!("cannot read {text:?} as {LATENCY_RANGE_EXPECTED}")
            );
        }
        assert_eq!(parse_link_latency("1s").unwrap(), 1.0);
        assert_eq!(parse_link_latency("0s").unwrap(), 0.0);
        assert!(link_latency_out_of_range(f64::NAN).is_some());
        assert!(rate_out_of_range(f64::INFINITY).is_some());
    }
}
