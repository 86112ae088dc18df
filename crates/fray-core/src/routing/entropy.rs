//! A small stream of random numbers from a message's entropy word (SplitMix64), so that a
//! routing can make several random choices from the one `u64` an engine hands it.

/// Random numbers derived from one 64-bit word; the same word gives the same numbers.
#[derive(Debug, Clone)]
pub struct Entropy(u64);

impl Entropy {
    /// The stream that starts from `word`.
    pub fn new(word: u64) -> Self {
        Self(word)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), by multiply-shift (bias below 2^-32 for `n < 2^32`).
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// A number in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The entropy word of message `index` under `seed`: the same pair gives the same word.
pub fn message_entropy(seed: u64, index: u64) -> u64 {
    Entropy::new(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03)).next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut e = Entropy::new(7);
        let mut seen = [false; 5];
        for _ in 0..200 {
            let k = e.below(5);
            assert!(k < 5);
            seen[k] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn same_word_same_stream() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut e = Entropy::new(3);
                move |_| e.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut e = Entropy::new(3);
                move |_| e.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(message_entropy(1, 0), message_entropy(1, 1));
    }
}
