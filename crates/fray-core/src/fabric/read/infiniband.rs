//! InfiniBand link widths and speeds (`4xQDR`, `1xEDR`, `4xHDR`): lanes and data rate per lane.

use crate::fabric::LinkParameters;

/// Data rate per lane of each InfiniBand link speed, in bits per second, after line encoding:
///
/// | speed | signalling per lane     | encoding                | data per lane  |
/// |-------|-------------------------|-------------------------|----------------|
/// | SDR   | 2.5 Gb/s                | 8b/10b                  | 2 Gb/s         |
/// | DDR   | 5 Gb/s                  | 8b/10b                  | 4 Gb/s         |
/// | QDR   | 10 Gb/s                 | 8b/10b                  | 8 Gb/s         |
/// | FDR10 | 10.3125 Gb/s            | 64b/66b                 | 10 Gb/s        |
/// | FDR   | 14.0625 Gb/s            | 64b/66b                 | 13.636 Gb/s    |
/// | EDR   | 25.78125 Gb/s           | 64b/66b                 | 25 Gb/s        |
/// | HDR   | 53.125 Gb/s (PAM4)      | 64b/66b, RS-FEC         | 50 Gb/s        |
/// | NDR   | 106.25 Gb/s (PAM4)      | 64b/66b, RS-FEC         | 100 Gb/s       |
/// | XDR   | 212.5 Gb/s (PAM4)       | RS-FEC                  | 200 Gb/s       |
///
/// HDR and later speeds are taken at their nominal data rate (50, 100, 200 Gb/s per lane).
/// This table is the one place fray turns an InfiniBand speed into a rate.
const SPEEDS: &[(&str, f64)] = &[
    ("SDR", 2e9),
    ("DDR", 4e9),
    ("QDR", 8e9),
    ("FDR10", 10.3125e9 * 64.0 / 66.0),
    ("FDR", 14.0625e9 * 64.0 / 66.0),
    ("EDR", 25.78125e9 * 64.0 / 66.0),
    ("HDR", 50e9),
    ("NDR", 100e9),
    ("XDR", 200e9),
];

/// Link widths as ibnetdiscover prints them, and their lane counts.
const WIDTHS: &[(&str, u16)] = &[("1x", 1), ("2x", 2), ("4x", 4), ("8x", 8), ("12x", 12)];

/// The width and speed of one InfiniBand link, as read from a token such as `4xQDR`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct IbLink {
    /// Number of lanes (the width: 1, 2, 4, 8 or 12).
    pub lanes: u16,
    /// Data rate of one lane, in bits per second (see [`SPEEDS`]).
    pub lane_rate_bits_s: f64,
}

impl IbLink {
    /// Reads a width-and-speed token (`4xQDR`, `12xEDR`, `4xFDR10`); the error names the bad
    /// part and lists the known ones.
    pub fn parse(token: &str) -> Result<Self, String> {
        let split = token.find('x').map_or(token.len(), |i| i + 1);
        let (width, speed) = token.split_at(split);
        let lanes = WIDTHS
            .iter()
            .find(|(w, _)| *w == width)
            .ok_or_else(|| {
                format!("bad link width {width:?} in {token:?} (expected 1x, 2x, 4x, 8x or 12x)")
            })?
            .1;
        let lane_rate_bits_s = SPEEDS
            .iter()
            .find(|(s, _)| *s == speed)
            .ok_or_else(|| {
                let known: Vec<&str> = SPEEDS.iter().map(|s| s.0).collect();
                format!(
                    "unknown link speed {speed:?} in {token:?} (expected {})",
                    known.join(", ")
                )
            })?
            .1;
        Ok(Self {
            lanes,
            lane_rate_bits_s,
        })
    }

    /// The link's parameters: `lanes x data rate / 8` bytes per second, and `latency_s`.
    pub fn parameters(&self, latency_s: f64) -> LinkParameters {
        LinkParameters {
            bandwidth_bytes_s: f64::from(self.lanes) * self.lane_rate_bits_s / 8.0,
            latency_s,
            lanes: self.lanes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_times_speed_gives_lanes_and_data_rate() {
        let qdr = IbLink::parse("4xQDR").unwrap();
        assert_eq!((qdr.lanes, qdr.lane_rate_bits_s), (4, 8e9));
        assert_eq!(qdr.parameters(0.0).bandwidth_bytes_s, 4e9);
        let edr = IbLink::parse("12xEDR").unwrap();
        assert_eq!(edr.lanes, 12);
        assert!((edr.lane_rate_bits_s - 25e9).abs() < 1.0);
        assert!((IbLink::parse("4xFDR10").unwrap().lane_rate_bits_s - 10e9).abs() < 1.0);
        let fdr = IbLink::parse("4xFDR").unwrap().parameters(0.0);
        assert!((fdr.bandwidth_bytes_s * 8.0 - 54.545e9).abs() < 1e7);
        assert_eq!(IbLink::parse("1xNDR").unwrap().lane_rate_bits_s, 100e9);
    }

    #[test]
    fn bad_tokens_name_the_bad_part() {
        for (bad, needle) in [
            ("3xQDR", "bad link width \"3x\""),
            ("QDR", "bad link width \"QDR\""),
            ("??", "bad link width \"??\""),
            ("4xQQR", "unknown link speed \"QQR\""),
            ("4x???", "unknown link speed \"???\""),
            ("4x", "unknown link speed \"\""),
        ] {
            let err = IbLink::parse(bad).unwrap_err();
            assert!(err.contains(needle), "{bad}: {err}");
        }
    }
}
