//! Fault injection: flip bits at a given bit error rate, or in given patterns.

use rand::Rng;
use rand_pcg::Pcg64Mcg;

use crate::error::IntegrityError;

/// A seeded RNG for case `stream` of a run seeded with `seed`: the same pair always gives the
/// same flips, whatever else runs. The pair is mixed with SplitMix64 so that neighbouring
/// streams give unrelated sequences.
pub fn rng_for(seed: u64, stream: u64) -> Pcg64Mcg {
    fn splitmix(mut z: u64) -> u64 {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    let hi = splitmix(seed ^ splitmix(stream));
    let lo = splitmix(hi ^ stream.rotate_left(17));
    Pcg64Mcg::new(((u128::from(hi) << 64) | u128::from(lo)) | 1)
}

/// Flips bit `bit` of `buf` (bit 0 is the least significant bit of byte 0).
pub fn flip_bit(buf: &mut [u8], bit: u64) {
    buf[(bit / 8) as usize] ^= 1 << (bit % 8);
}

/// Flips each bit of `buf` independently with probability `ber` (bit error rate); returns the
/// number of bits flipped. Positions are drawn by geometric skips, so the cost grows with the
/// number of flips, not with the buffer size.
pub fn inject_ber(buf: &mut [u8], ber: f64, rng: &mut Pcg64Mcg) -> Result<u64, IntegrityError> {
    if !(ber.is_finite() && (0.0..=1.0).contains(&ber)) {
        return Err(IntegrityError::invalid(
            "ber",
            format!("bit error rate must be in [0, 1], got {ber}"),
        ));
    }
    let nbits = buf.len() as u64 * 8;
    if ber == 0.0 || nbits == 0 {
        return Ok(0);
    }
    if ber == 1.0 {
        for b in buf.iter_mut() {
            *b = !*b;
        }
        return Ok(nbits);
    }
    let log_q = (1.0 - ber).ln();
    let mut flips = 0;
    let mut pos: u64 = 0;
    loop {
        let u: f64 = rng.random::<f64>();
        // Number of untouched bits before the next flip: Geometric(ber).
        let skip = ((1.0 - u).ln() / log_q).floor();
        if !skip.is_finite() || skip >= (nbits - pos) as f64 {
            break;
        }
        pos += skip as u64;
        flip_bit(buf, pos);
        flips += 1;
        pos += 1;
        if pos >= nbits {
            break;
        }
    }
    Ok(flips)
}

/// An error pattern for the detection-quality experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorPattern {
    /// One bit flipped at a random position.
    SingleBit,
    /// Two distinct bits flipped at random positions anywhere in the buffer.
    DoubleBit,
    /// A burst of `bits` bits: the first and last bits of a random window of that length are
    /// flipped, the bits between them each with probability 1/2.
    Burst {
        /// Length of the burst window in bits (at least 1).
        bits: u32,
    },
}

impl ErrorPattern {
    /// `"single"`, `"double"` or `"burst<N>"`.
    pub fn name(&self) -> String {
        match self {
            ErrorPattern::SingleBit => "single".to_string(),
            ErrorPattern::DoubleBit => "double".to_string(),
            ErrorPattern::Burst { bits } => format!("burst{bits}"),
        }
    }

    /// Parses `"single"`, `"double"` or `"burstN"` (N >= 1 bits).
    pub fn parse(s: &str) -> Result<Self, IntegrityError> {
        let t = s.trim().to_ascii_lowercase();
        match t.as_str() {
            "single" => Ok(ErrorPattern::SingleBit),
            "double" => Ok(ErrorPattern::DoubleBit),
            _ => t
                .strip_prefix("burst")
                .and_then(|n| n.parse::<u32>().ok())
                .filter(|&n| n >= 1)
                .map(|bits| ErrorPattern::Burst { bits })
                .ok_or_else(|| {
                    IntegrityError::invalid(
                        "patterns",
                        format!("unknown error pattern {s:?} (known: single, double, burstN)"),
                    )
                }),
        }
    }

    /// Applies the pattern to `buf` at random; returns the flipped bit positions.
    pub fn apply(&self, buf: &mut [u8], rng: &mut Pcg64Mcg) -> Vec<u64> {
        let nbits = buf.len() as u64 * 8;
        assert!(nbits > 0, "cannot corrupt an empty buffer");
        let mut flipped = Vec::new();
        match *self {
            ErrorPattern::SingleBit => flipped.push(rng.random_range(0..nbits)),
            ErrorPattern::DoubleBit => {
                let a = rng.random_range(0..nbits);
                let mut b = rng.random_range(0..nbits - 1);
                if b >= a {
                    b += 1;
                }
                flipped.extend([a, b]);
            }
            ErrorPattern::Burst { bits } => {
                let len = u64::from(bits).min(nbits);
                let start = rng.random_range(0..=nbits - len);
                flipped.push(start);
                for i in 1..len.saturating_sub(1) {
                    if rng.random::<bool>() {
                        flipped.push(start + i);
                    }
                }
                if len > 1 {
                    flipped.push(start + len - 1);
                }
            }
        }
        for &bit in &flipped {
            flip_bit(buf, bit);
        }
        flipped
    }
}
