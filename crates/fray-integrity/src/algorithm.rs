//! The list of checksum algorithms, their names and their properties.

use std::fmt;
use std::str::FromStr;

use crate::error::IntegrityError;

/// A checksum algorithm. Python and the CLI name them by [`Algorithm::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algorithm {
    /// Sum of little-endian 32-bit words modulo 2^32 (reference only: misses many errors).
    Sum32,
    /// XOR of little-endian 32-bit words (reference only: misses many errors).
    Xor32,
    /// Adler-32 (RFC 1950, zlib).
    Adler32,
    /// Fletcher-64: two running sums of 32-bit words modulo 2^32 - 1.
    Fletcher64,
    /// Bob Jenkins' one-at-a-time hash.
    Jenkins,
    /// FNV-1a, 32-bit.
    Fnv1a32,
    /// FNV-1a, 64-bit.
    Fnv1a64,
    /// Knuth's multiplicative hash over 32-bit words (multiplier 2654435761).
    Knuth,
    /// Austin Appleby's MurmurHash2A (the incremental MurmurHash2 variant), 32-bit.
    Murmur2a,
    /// Paul Hsieh's SuperFastHash, 32-bit.
    SuperFastHash,
    /// CRC-32C (Castagnoli, iSCSI, RFC 3720); SSE 4.2 instruction where the CPU has it.
    Crc32c,
    /// CRC-32 (IEEE 802.3, zlib, PNG).
    Crc32,
    /// xxHash3, 64-bit.
    Xxh3,
}

impl Algorithm {
    /// Every algorithm, in the order the paper lists them, then the modern ones.
    pub const ALL: [Algorithm; 13] = [
        Algorithm::Sum32,
        Algorithm::Xor32,
        Algorithm::Adler32,
        Algorithm::Fletcher64,
        Algorithm::Jenkins,
        Algorithm::Fnv1a32,
        Algorithm::Fnv1a64,
        Algorithm::Knuth,
        Algorithm::Murmur2a,
        Algorithm::SuperFastHash,
        Algorithm::Crc32c,
        Algorithm::Crc32,
        Algorithm::Xxh3,
    ];

    /// The name used by Python and the CLI (`"crc32c"`, `"xxh3"`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Algorithm::Sum32 => "sum32",
            Algorithm::Xor32 => "xor32",
            Algorithm::Adler32 => "adler32",
            Algorithm::Fletcher64 => "fletcher64",
            Algorithm::Jenkins => "jenkins",
            Algorithm::Fnv1a32 => "fnv1a32",
            Algorithm::Fnv1a64 => "fnv1a64",
            Algorithm::Knuth => "knuth",
            Algorithm::Murmur2a => "murmur2a",
            Algorithm::SuperFastHash => "superfasthash",
            Algorithm::Crc32c => "crc32c",
            Algorithm::Crc32 => "crc32",
            Algorithm::Xxh3 => "xxh3",
        }
    }

    /// Width of the checksum value in bits (32 or 64).
    pub const fn bits(self) -> u32 {
        match self {
            Algorithm::Fletcher64 | Algorithm::Fnv1a64 | Algorithm::Xxh3 => 64,
            _ => 32,
        }
    }

    /// True for the two reference sums the paper keeps only as a speed yardstick.
    pub const fn is_reference_only(self) -> bool {
        matches!(self, Algorithm::Sum32 | Algorithm::Xor32)
    }

    /// A one-line description for tables.
    pub const fn description(self) -> &'static str {
        match self {
            Algorithm::Sum32 => "sum of 32-bit words (reference only)",
            Algorithm::Xor32 => "XOR of 32-bit words (reference only)",
            Algorithm::Adler32 => "Adler-32 (zlib)",
            Algorithm::Fletcher64 => "Fletcher-64, sums of 32-bit words mod 2^32-1",
            Algorithm::Jenkins => "Jenkins one-at-a-time",
            Algorithm::Fnv1a32 => "FNV-1a 32-bit",
            Algorithm::Fnv1a64 => "FNV-1a 64-bit",
            Algorithm::Knuth => "Knuth multiplicative, 32-bit words",
            Algorithm::Murmur2a => "MurmurHash2A 32-bit",
            Algorithm::SuperFastHash => "Paul Hsieh's SuperFastHash",
            Algorithm::Crc32c => "CRC-32C (Castagnoli), hardware where available",
            Algorithm::Crc32 => "CRC-32 (IEEE)",
            Algorithm::Xxh3 => "xxHash3 64-bit",
        }
    }

    /// A small stable number that identifies the algorithm in transport headers.
    pub const fn id(self) -> u8 {
        match self {
            Algorithm::Sum32 => 1,
            Algorithm::Xor32 => 2,
            Algorithm::Adler32 => 3,
            Algorithm::Fletcher64 => 4,
            Algorithm::Jenkins => 5,
            Algorithm::Fnv1a32 => 6,
            Algorithm::Fnv1a64 => 7,
            Algorithm::Knuth => 8,
            Algorithm::Murmur2a => 9,
            Algorithm::SuperFastHash => 10,
            Algorithm::Crc32c => 11,
            Algorithm::Crc32 => 12,
            Algorithm::Xxh3 => 13,
        }
    }

    /// The algorithm with header number `id`, if any.
    pub fn from_id(id: u8) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.id() == id)
    }

    /// All names, comma separated (for error messages and help texts).
    pub fn known_names() -> String {
        Algorithm::ALL
            .iter()
            .map(|a| a.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = IntegrityError;

    /// Parses a name exactly as [`Algorithm::name`] writes it (ASCII case-insensitive).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        Algorithm::ALL
            .into_iter()
            .find(|a| a.name() == lower)
            .ok_or_else(|| IntegrityError::UnknownAlgorithm {
                name: s.to_string(),
                known: Algorithm::known_names(),
            })
    }
}
