//! Quantities typed by people, parsed strictly: bandwidths (`3GB/s`, `25Gb/s`) and durations
//! (`100ns`, `1.4us`).
//!
//! A quantity is a number (`12`, `2.5`, `1e3`), optional spaces, then its unit. Decimal prefixes
//! `k` (or `K`), `M`, `G`, `T` are powers of 10; binary prefixes `Ki`, `Mi`, `Gi`, `Ti` are
//! powers of 2 (the grammar of `python/fray/units.py`). A bandwidth is in bytes per second
//! (`B/s`) or bits per second (`b/s`, as link rates are quoted: `25Gb/s` is `3.125GB/s`); a
//! duration is in `s`, `ms`, `us` (or `µs`), `ns` or `ps`, or for plans over months in `min`,
//! `h` or `d` (86,400 s). A value without its unit, with an
//! unknown unit, negative or not finite is an error quoting it.
//!
//! ```
//! use fray_core::units::{parse_rate, parse_seconds};
//!
//! assert_eq!(parse_rate("3GB/s").unwrap(), 3e9);
//! assert_eq!(parse_rate("25Gb/s").unwrap(), 3.125e9);
//! assert_eq!(parse_rate("1KiB/s").unwrap(), 1024.0);
//! assert_eq!(parse_seconds("100ns").unwrap(), 100e-9);
//! assert_eq!(parse_seconds("30d").unwrap(), 30.0 * 86400.0);
//! assert!(parse_rate("3GB").is_err());   // a size, not a rate
//! assert!(parse_seconds("100").is_err()); // no unit
//! ```

use thiserror::Error;

/// A quantity that cannot be read: the text as given and what was expected.
#[derive(Debug, Error, Clone, PartialEq)]
#[error("cannot read {value:?} as {expected}")]
pub struct QuantityError {
    /// The text as given.
    pub value: String,
    /// What a valid value looks like.
    pub expected: &'static str,
}

/// Prefixes as (name, power of ten, power-of-two factor).
const PREFIXES: &[(&str, i32, f64)] = &[
    ("", 0, 1.0),
    ("k", 3, 1.0),
    ("K", 3, 1.0),
    ("M", 6, 1.0),
    ("G", 9, 1.0),
    ("T", 12, 1.0),
    ("Ki", 0, 1024.0),
    ("Mi", 0, 1048576.0),
    ("Gi", 0, 1073741824.0),
    ("Ti", 0, 1099511627776.0),
];

/// Time units as (name, power of ten of a second, factor): the long units a planner over
/// months reads (`min`, `h`, `d`) are whole multiples of a second.
const TIME_UNITS: &[(&str, i32, f64)] = &[
    ("s", 0, 1.0),
    ("ms", -3, 1.0),
    ("us", -6, 1.0),
    ("µs", -6, 1.0),
    ("ns", -9, 1.0),
    ("ps", -12, 1.0),
    ("min", 0, 60.0),
    ("h", 0, 3600.0),
    ("d", 0, 86400.0),
];

const RATE_EXPECTED: &str = "a bandwidth like 3GB/s or 25Gb/s";
const TIME_EXPECTED: &str = "a duration like 100ns, 1.4us or 2s";

/// A number as written (`2.5e-3`: digits, an optional fraction, an optional exponent), then
/// its unit after optional spaces.
struct Number<'a> {
    mantissa: &'a str,
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
        let mut end = digits(0);
        if end == 0 {
            return None;
        }
        if b.get(end) == Some(&b'.') {
            let frac = digits(end + 1);
            if frac == end + 1 {
                return None;
            }
            end = frac;
        }
        let mantissa = &text[..end];
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
            mantissa,
            exponent,
            unit: text[end..].trim_start(),
        })
    }

    /// The value times `10^pow10`, rounded once (so `100ns` is exactly the double `1e-7`).
    fn scaled(&self, pow10: i32) -> Option<f64> {
        let exponent = self.exponent.checked_add(pow10)?;
        format!("{}e{exponent}", self.mantissa).parse().ok()
    }
}

fn error(text: &str, expected: &'static str) -> QuantityError {
    QuantityError {
        value: text.to_string(),
        expected,
    }
}

/// A bandwidth such as `3GB/s`, `800MiB/s` or `25Gb/s`, in bytes per second (must be positive
/// and finite).
pub fn parse_rate(text: &str) -> Result<f64, QuantityError> {
    let fail = || error(text, RATE_EXPECTED);
    let number = Number::split(text.trim()).ok_or_else(fail)?;
    let (prefix, per_byte) = match (
        number.unit.strip_suffix("B/s"),
        number.unit.strip_suffix("b/s"),
    ) {
        (Some(p), _) => (p, 1.0),
        (None, Some(p)) => (p, 8.0),
        (None, None) => return Err(fail()),
    };
    let &(_, pow10, factor) = PREFIXES
        .iter()
        .find(|(p, _, _)| *p == prefix)
        .ok_or_else(fail)?;
    let rate = number.scaled(pow10).ok_or_else(fail)? * factor / per_byte;
    if rate > 0.0 && rate.is_finite() {
        Ok(rate)
    } else {
        Err(error(text, "a positive, finite bandwidth like 3GB/s"))
    }
}

/// A duration such as `100ns`, `1.4us`, `2s`, `90min`, `8h` or `30d`, in seconds (finite, may
/// be zero; a day is 86,400 s).
pub fn parse_seconds(text: &str) -> Result<f64, QuantityError> {
    let fail = || error(text, TIME_EXPECTED);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rates_with_every_prefix_in_bytes_and_bits() {
        assert_eq!(parse_rate("12.5GB/s").unwrap(), 12.5e9);
        assert_eq!(parse_rate("100 Gb/s").unwrap(), 12.5e9);
        assert_eq!(parse_rate("2kB/s").unwrap(), 2e3);
        assert_eq!(parse_rate("2KB/s").unwrap(), 2e3);
        assert_eq!(parse_rate("1MiB/s").unwrap(), 1048576.0);
        assert_eq!(parse_rate("1e3MB/s").unwrap(), 1e9);
        assert_eq!(parse_rate("1.5TB/s").unwrap(), 1.5e12);
        assert_eq!(parse_rate("8b/s").unwrap(), 1.0);
    }

    #[test]
    fn reads_durations() {
        assert_eq!(parse_seconds("2s").unwrap(), 2.0);
        assert_eq!(parse_seconds("1.4us").unwrap(), 1.4e-6);
        assert_eq!(parse_seconds("1.4µs").unwrap(), 1.4e-6);
        assert_eq!(parse_seconds("3ms").unwrap(), 3e-3);
        assert_eq!(parse_seconds("0ns").unwrap(), 0.0);
        assert_eq!(parse_seconds("5ps").unwrap(), 5e-12);
        assert_eq!(parse_seconds("2.5e3ns").unwrap(), 2.5e-6);
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
            assert!(err.to_string().contains("bandwidth"), "{bad}: {err}");
        }
        assert_eq!(parse_seconds("90min").unwrap(), 5400.0);
        assert_eq!(parse_seconds("8h").unwrap(), 28800.0);
        assert_eq!(parse_seconds("1.5d").unwrap(), 129600.0);
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
}
