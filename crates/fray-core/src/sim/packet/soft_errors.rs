//! Soft errors: per-channel processes that corrupt packets on the wire.
//!
//! A corrupted packet fails its CRC at the receiver, which drops it and sends a NAK; the
//! sender's link layer then sends it again (see [`super::PacketConfig::nak_ps`]). This module
//! only decides which transmissions are hit.

use super::PacketError;
use crate::routing::Entropy;

/// How errors strike one channel.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum ErrorProcess {
    /// No errors.
    #[default]
    None,
    /// Independent bit errors: a packet of `b` bits is hit with probability `1 - (1 - ber)^b`.
    BitErrorRate(f64),
    /// Errors arrive as a Poisson process with mean inter-arrival `mean_ps` picoseconds; a
    /// transmission is hit when an error falls while it is on the wire.
    Exponential {
        /// Mean time between errors on this channel, in picoseconds.
        mean_ps: f64,
    },
    /// The next `count` transmissions on the channel are hit (scripted errors), counted again
    /// from `count` after each [`SoftErrors::rearm`].
    Scripted {
        /// Transmissions to hit.
        count: u32,
    },
}

impl ErrorProcess {
    /// Checks the parameter of the process: a rate in `[0, 1)` (at 1 every transmission is
    /// corrupted, so no packet ever gets through and the link retries forever), a positive
    /// mean that the packet clock holds (`u64::MAX` ps, [`super::CLOCK_LIMIT_S`]).
    pub fn validate(&self) -> Result<(), PacketError> {
        match *self {
            Self::BitErrorRate(ber) if !(0.0..=1.0).contains(&ber) => Err(PacketError::Config {
                field: "ber",
                reason: format!("a bit error rate lies in [0, 1), got {ber}"),
            }),
            Self::BitErrorRate(1.0) => Err(PacketError::Config {
                field: "ber",
                reason: "a bit error rate of 1 corrupts every transmission, so no packet ever \
                         gets through; it lies in [0, 1)"
                    .into(),
            }),
            Self::Exponential { mean_ps } if mean_ps > u64::MAX as f64 => {
                Err(PacketError::Config {
                    field: "mean",
                    reason: format!(
                        "the mean time between errors is {:e} s, more than the {:.0} s the \
                         packet engine's clock holds (give no errors instead)",
                        mean_ps / 1e12,
                        super::CLOCK_LIMIT_S
                    ),
                })
            }
            Self::Exponential { mean_ps } if !(mean_ps.is_finite() && mean_ps > 0.0) => {
                Err(PacketError::Config {
                    field: "mean",
                    reason: format!(
                        "the mean time between errors must be positive, got {mean_ps} ps"
                    ),
                })
            }
            _ => Ok(()),
        }
    }
}

/// The error process of every channel, with its state (next error time, scripted hits left)
/// and a seeded random stream.
#[derive(Debug, Clone)]
pub struct SoftErrors {
    process: Vec<ErrorProcess>,
    /// Time of the next error of an exponential process, `u64::MAX` when not drawn yet.
    next_error_ps: Vec<u64>,
    scripted_left: Vec<u32>,
    rng: Entropy,
    hits: u64,
}

impl SoftErrors {
    /// No errors on any of `num_channels` channels.
    pub fn none(num_channels: usize) -> Self {
        Self::uniform(num_channels, ErrorProcess::None, 0)
    }

    /// The same process on each of `num_channels` channels, random draws seeded by `seed`.
    pub fn uniform(num_channels: usize, process: ErrorProcess, seed: u64) -> Self {
        let mut s = Self {
            process: vec![process; num_channels],
            next_error_ps: vec![u64::MAX; num_channels],
            scripted_left: vec![0; num_channels],
            rng: Entropy::new(seed ^ 0x5EED_E220_0000_0000),
            hits: 0,
        };
        s.rearm();
        s
    }

    /// Gives `channel` its own process.
    pub fn set(&mut self, channel: usize, process: ErrorProcess) {
        self.process[channel] = process;
        self.next_error_ps[channel] = u64::MAX;
        self.scripted_left[channel] = match process {
            ErrorProcess::Scripted { count } => count,
            _ => 0,
        };
    }

    /// Resets every scripted channel to its full count of hits.
    pub fn rearm(&mut self) {
        for (left, p) in self.scripted_left.iter_mut().zip(&self.process) {
            *left = match p {
                ErrorProcess::Scripted { count } => *count,
                _ => 0,
            };
        }
    }

    /// Number of channels.
    pub fn len(&self) -> usize {
        self.process.len()
    }

    /// Whether there is no channel.
    pub fn is_empty(&self) -> bool {
        self.process.is_empty()
    }

    /// Transmissions hit so far.
    pub fn hits(&self) -> u64 {
        self.hits
    }

    /// Whether the transmission of `bytes` on `channel` from `start_ps` for `duration_ps` is
    /// hit. Calls must come in non-decreasing `start_ps` per channel for an exponential
    /// process to be a process.
    pub fn hit(&mut self, channel: usize, start_ps: u64, duration_ps: u64, bytes: u32) -> bool {
        let hit = match self.process[channel] {
            ErrorProcess::None => false,
            ErrorProcess::BitErrorRate(ber) => {
                let bits = 8.0 * f64::from(bytes);
                let p = -(bits * (-ber).ln_1p()).exp_m1();
                self.rng.unit() < p
            }
            ErrorProcess::Exponential { mean_ps } => {
                let next = &mut self.next_error_ps[channel];
                if *next == u64::MAX || *next < start_ps {
                    // Memoryless: errors that fell while the channel idled corrupt nothing.
                    *next = start_ps.saturating_add(exponential(&mut self.rng, mean_ps));
                }
                let end = start_ps.saturating_add(duration_ps);
                let hit = *next < end;
                if hit {
                    *next = end.saturating_add(exponential(&mut self.rng, mean_ps));
                }
                hit
            }
            ErrorProcess::Scripted { .. } => {
                let left = &mut self.scripted_left[channel];
                let hit = *left > 0;
                *left = left.saturating_sub(1);
                hit
            }
        };
        self.hits += u64::from(hit);
        hit
    }
}

/// A draw from an exponential distribution of mean `mean_ps`, rounded to picoseconds.
fn exponential(rng: &mut Entropy, mean_ps: f64) -> u64 {
    (-mean_ps * (1.0 - rng.unit()).ln()).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ber_hit_rate_matches_its_probability() {
        let ber = 1e-4;
        let mut s = SoftErrors::uniform(1, ErrorProcess::BitErrorRate(ber), 7);
        let n = 200_000;
        let hits = (0..n).filter(|&i| s.hit(0, i, 1, 256)).count() as f64;
        let p = 1.0 - (1.0f64 - ber).powi(2048);
        assert!(
            (hits / n as f64 - p).abs() < 0.01,
            "{} vs {p}",
            hits / n as f64
        );
    }

    #[test]
    fn exponential_hit_rate_matches_poisson() {
        // Back-to-back transmissions of 1 us under a 10 us mean: P(hit) = 1 - e^-0.1.
        let mut s = SoftErrors::uniform(1, ErrorProcess::Exponential { mean_ps: 1e7 }, 3);
        let n = 100_000u64;
        let hits = (0..n)
            .filter(|&i| s.hit(0, i * 1_000_000, 1_000_000, 256))
            .count();
        let p = 1.0 - (-0.1f64).exp();
        assert!((hits as f64 / n as f64 - p).abs() < 0.01);
    }

    #[test]
    fn scripted_hits_count_then_rearm() {
        let mut s = SoftErrors::none(2);
        s.set(1, ErrorProcess::Scripted { count: 2 });
        let got: Vec<bool> = (0..3).map(|t| s.hit(1, t, 1, 8)).collect();
        assert_eq!(got, [true, true, false]);
        assert!(!s.hit(0, 0, 1, 8));
        s.rearm();
        assert!(s.hit(1, 5, 1, 8));
        assert_eq!(s.hits(), 3);
    }
}

#[cfg(test)]
mod processes_that_never_let_a_packet_through_are_refused {
    use super::*;

    #[test]
    fn a_ber_of_one_and_a_mean_beyond_the_clock_are_refused() {
        let err = ErrorProcess::BitErrorRate(1.0).validate().unwrap_err();
        assert!(
            err.to_string()
                .starts_with("ber: a bit error rate of 1 corrupts"),
            "{err}"
        );
        let err = ErrorProcess::Exponential { mean_ps: 1e300 }
            .validate()
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("mean: the mean time between errors is"),
            "{err}"
        );
        assert!(ErrorProcess::BitErrorRate(0.5).validate().is_ok());
    }

    #[test]
    fn an_error_past_the_clock_never_wraps_into_a_hit() {
        let mut s = SoftErrors::uniform(1, ErrorProcess::Exponential { mean_ps: 1.8e19 }, 3);
        let start = u64::MAX - 10;
        assert!((0..100).all(|_| !s.hit(0, start, 5, 256)));
    }
}
