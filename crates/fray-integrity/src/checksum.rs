//! One-shot and streaming checksums over any algorithm.

use crate::algorithm::Algorithm;
use crate::algorithms::{
    adler32::Adler32,
    crc32::Crc32,
    crc32c::Crc32c,
    fletcher64::Fletcher64,
    fnv1a::Fnv1a32,
    fnv1a::Fnv1a64,
    jenkins::Jenkins,
    knuth::Knuth,
    murmur2a::Murmur2a,
    superfasthash::SuperFastHash,
    word_reduce::{Sum32, Xor32},
    xxh3::Xxh3,
};
use crate::error::IntegrityError;
use crate::kernel::Kernel;
use crate::words::WordStream;

#[derive(Clone)]
enum State {
    Sum32(WordStream<Sum32>),
    Xor32(WordStream<Xor32>),
    Adler32(Adler32),
    Fletcher64(WordStream<Fletcher64>),
    Jenkins(Jenkins),
    Fnv1a32(Fnv1a32),
    Fnv1a64(Fnv1a64),
    Knuth(WordStream<Knuth>),
    Murmur2a(WordStream<Murmur2a>),
    SuperFastHash(WordStream<SuperFastHash>),
    Crc32c(Crc32c),
    Crc32(Crc32),
    Xxh3(Box<Xxh3>),
}

macro_rules! dispatch {
    ($state:expr, $k:ident => $body:expr) => {
        match $state {
            State::Sum32($k) => $body,
            State::Xor32($k) => $body,
            State::Adler32($k) => $body,
            State::Fletcher64($k) => $body,
            State::Jenkins($k) => $body,
            State::Fnv1a32($k) => $body,
            State::Fnv1a64($k) => $body,
            State::Knuth($k) => $body,
            State::Murmur2a($k) => $body,
            State::SuperFastHash($k) => $body,
            State::Crc32c($k) => $body,
            State::Crc32($k) => $body,
            State::Xxh3($k) => $body,
        }
    };
}

/// A checksum computed in pieces: feeding `a` then `b` gives the same [`Checksummer::value`]
/// as one [`checksum`] of `a ++ b`.
///
/// ```
/// use fray_integrity::{checksum, Algorithm, Checksummer};
/// let mut c = Checksummer::new(Algorithm::Crc32c, 0);
/// c.update(b"1234");
/// c.update(b"56789");
/// assert_eq!(c.value(), checksum(b"123456789", Algorithm::Crc32c, 0));
/// assert_eq!(c.value(), 0xE306_9283);
/// ```
#[derive(Clone)]
pub struct Checksummer {
    algorithm: Algorithm,
    state: State,
}

impl Checksummer {
    /// A fresh computation of `algorithm` with `seed` (see each algorithm for what the seed
    /// means; 0 always gives the standard function).
    pub fn new(algorithm: Algorithm, seed: u64) -> Self {
        let state = match algorithm {
            Algorithm::Sum32 => State::Sum32(WordStream::new(Sum32::new(seed))),
            Algorithm::Xor32 => State::Xor32(WordStream::new(Xor32::new(seed))),
            Algorithm::Adler32 => State::Adler32(Adler32::new(seed)),
            Algorithm::Fletcher64 => State::Fletcher64(WordStream::new(Fletcher64::new(seed))),
            Algorithm::Jenkins => State::Jenkins(Jenkins::new(seed)),
            Algorithm::Fnv1a32 => State::Fnv1a32(Fnv1a32::new(seed)),
            Algorithm::Fnv1a64 => State::Fnv1a64(Fnv1a64::new(seed)),
            Algorithm::Knuth => State::Knuth(WordStream::new(Knuth::new(seed))),
            Algorithm::Murmur2a => State::Murmur2a(WordStream::new(Murmur2a::new(seed))),
            Algorithm::SuperFastHash => {
                State::SuperFastHash(WordStream::new(SuperFastHash::new(seed)))
            }
            Algorithm::Crc32c => State::Crc32c(Crc32c::new(seed)),
            Algorithm::Crc32 => State::Crc32(Crc32::new(seed)),
            Algorithm::Xxh3 => State::Xxh3(Box::new(Xxh3::new(seed))),
        };
        Checksummer { algorithm, state }
    }

    /// The algorithm being computed.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// Folds `data` into the checksum.
    pub fn update(&mut self, data: &[u8]) {
        dispatch!(&mut self.state, k => k.update(data))
    }

    /// Copies `src` into `dst` and folds the bytes into the checksum, in one pass where the
    /// algorithm has a fused loop (all but CRC-32 and xxh3's streaming form, which copy an L1
    /// block then checksum it).
    pub fn update_copy(&mut self, dst: &mut [u8], src: &[u8]) -> Result<(), IntegrityError> {
        if dst.len() != src.len() {
            return Err(IntegrityError::LengthMismatch {
                dst_bytes: dst.len(),
                src_bytes: src.len(),
            });
        }
        dispatch!(&mut self.state, k => k.update_copy(dst, src));
        Ok(())
    }

    /// The checksum of everything fed so far; 32-bit algorithms fill the low 32 bits.
    pub fn value(&self) -> u64 {
        dispatch!(&self.state, k => k.finish())
    }
}

/// The checksum of `data` with `algorithm` and `seed`, in one call.
///
/// ```
/// use fray_integrity::{checksum, Algorithm};
/// assert_eq!(checksum(b"a", Algorithm::Fnv1a32, 0), 0xe40c_292c);
/// assert_eq!(checksum(b"Wikipedia", Algorithm::Adler32, 0), 0x11E6_0398);
/// ```
pub fn checksum(data: &[u8], algorithm: Algorithm, seed: u64) -> u64 {
    match algorithm {
        Algorithm::Crc32c => u64::from(crc32c::crc32c_append(seed as u32, data)),
        Algorithm::Xxh3 => xxhash_rust::xxh3::xxh3_64_with_seed(data, seed),
        _ => {
            let mut c = Checksummer::new(algorithm, seed);
            c.update(data);
            c.value()
        }
    }
}
