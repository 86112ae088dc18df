//! The trailer of a rendezvous message: the checksums of its chunks, sent after the chunks
//! (each computed while the chunks were in flight), protected by its own CRC-32C.
//!
//! Layout (little-endian): magic `FRTL` (4), algorithm id (1, 0 for none), 3 zero bytes,
//! message sequence number (8), message length in bytes (8), chunk count (4), 4 zero bytes,
//! one 8-byte checksum per chunk, then the CRC-32C of everything before it (4) and 4 zero
//! bytes.

use crate::algorithm::Algorithm;

const MAGIC: u32 = u32::from_le_bytes(*b"FRTL");
const FIXED_BYTES: usize = 32;

/// The fields of a trailer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trailer {
    /// Checksum algorithm of the chunks; `None` when the message carries none.
    pub algorithm: Option<Algorithm>,
    /// Message sequence number.
    pub seq: u64,
    /// Length of the message (bytes).
    pub message_bytes: u64,
    /// The checksum of each chunk, in order.
    pub checksums: Vec<u64>,
}

/// Bytes of the trailer of a message of `chunks` chunks.
pub fn trailer_bytes(chunks: usize) -> usize {
    FIXED_BYTES + 8 * chunks + 8
}

impl Trailer {
    /// The trailer on the wire.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(trailer_bytes(self.checksums.len()));
        out.extend_from_slice(&MAGIC.to_le_bytes());
        out.extend_from_slice(&[self.algorithm.map_or(0, Algorithm::id), 0, 0, 0]);
        out.extend_from_slice(&self.seq.to_le_bytes());
        out.extend_from_slice(&self.message_bytes.to_le_bytes());
        out.extend_from_slice(&(self.checksums.len() as u32).to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        for c in &self.checksums {
            out.extend_from_slice(&c.to_le_bytes());
        }
        let crc = crc32c::crc32c(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out
    }

    /// Reads a trailer; `None` when it is damaged or malformed.
    pub fn decode(bytes: &[u8]) -> Option<Trailer> {
        if bytes.len() < trailer_bytes(0) || !bytes.len().is_multiple_of(8) {
            return None;
        }
        let body = bytes.len() - 8;
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4"));
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8"));
        if u32_at(0) != MAGIC || crc32c::crc32c(&bytes[..body]) != u32_at(body) {
            return None;
        }
        if bytes[5..8] != [0; 3] || u32_at(28) != 0 || u32_at(body + 4) != 0 {
            return None;
        }
        let count = u32_at(24) as usize;
        if trailer_bytes(count) != bytes.len() {
            return None;
        }
        let algorithm = match bytes[4] {
            0 => None,
            id => Some(Algorithm::from_id(id)?),
        };
        Some(Trailer {
            algorithm,
            seq: u64_at(8),
            message_bytes: u64_at(16),
            checksums: (0..count).map(|k| u64_at(FIXED_BYTES + 8 * k)).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inject::flip_bit;

    fn sample() -> Trailer {
        Trailer {
            algorithm: Some(Algorithm::Crc32c),
            seq: 7,
            message_bytes: 1 << 20,
            checksums: vec![1, 2, 0xdead_beef],
        }
    }

    #[test]
    fn round_trip() {
        let t = sample();
        let wire = t.encode();
        assert_eq!(wire.len(), trailer_bytes(3));
        assert_eq!(Trailer::decode(&wire), Some(t));
    }

    #[test]
    fn every_single_bit_flip_is_caught() {
        let wire = sample().encode();
        for bit in 0..wire.len() as u64 * 8 {
            let mut w = wire.clone();
            flip_bit(&mut w, bit);
            assert_eq!(Trailer::decode(&w), None, "bit {bit}");
        }
    }

    #[test]
    fn wrong_length_is_refused() {
        let wire = sample().encode();
        assert_eq!(Trailer::decode(&wire[..wire.len() - 8]), None);
    }
}
