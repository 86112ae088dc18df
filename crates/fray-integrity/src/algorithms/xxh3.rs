//! xxHash3, 64-bit. Checksums and streaming use the `xxhash-rust` crate.
//!
//! The one-shot fused copy has its own implementation of XXH3's long-input loop (inputs over
//! 240 bytes): each 64-byte stripe is loaded once, stored to the destination and folded into
//! the eight accumulators; it is checked bit-for-bit against the crate. Inputs of 240 bytes
//! or less are copied, then hashed by the crate.
//!
//! Seed: the XXH3 seed (`XXH3_64bits_withSeed`); 0 is the default hash.

use crate::kernel::Kernel;

/// The `xxhash-rust` streaming state.
#[derive(Clone)]
pub(crate) struct Xxh3 {
    state: xxhash_rust::xxh3::Xxh3,
}

impl Xxh3 {
    /// A fresh state with XXH3 seed `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        Xxh3 {
            state: xxhash_rust::xxh3::Xxh3::with_seed(seed),
        }
    }
}

impl Kernel for Xxh3 {
    fn update(&mut self, data: &[u8]) {
        self.state.update(data);
    }

    fn finish(&self) -> u64 {
        self.state.digest()
    }
}

const STRIPE: usize = 64;
const SECRET_SIZE: usize = 192;
const STRIPES_PER_BLOCK: usize = (SECRET_SIZE - STRIPE) / 8;
const BLOCK: usize = STRIPE * STRIPES_PER_BLOCK;
const MID_SIZE_MAX: usize = 240;

const PRIME32_1: u64 = 0x9E37_79B1;
const PRIME32_2: u64 = 0x85EB_CA77;
const PRIME32_3: u64 = 0xC2B2_AE3D;
const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;
const PRIME64_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const PRIME64_3: u64 = 0x1656_67B1_9E37_79F9;
const PRIME64_4: u64 = 0x85EB_CA77_C2B2_AE63;
const PRIME64_5: u64 = 0x27D4_EB2F_1656_67C5;

/// XXH3's default secret (kSecret of the xxHash specification).
const K_SECRET: [u8; SECRET_SIZE] = [
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
];

#[inline(always)]
fn rd64(s: &[u8], i: usize) -> u64 {
    u64::from_le_bytes([
        s[i],
        s[i + 1],
        s[i + 2],
        s[i + 3],
        s[i + 4],
        s[i + 5],
        s[i + 6],
        s[i + 7],
    ])
}

/// The secret as eight-byte words, for the seed (XXH3_initCustomSecret).
fn secret_for(seed: u64) -> [u8; SECRET_SIZE] {
    let mut s = K_SECRET;
    if seed != 0 {
        for i in 0..SECRET_SIZE / 16 {
            let lo = rd64(&K_SECRET, 16 * i).wrapping_add(seed);
            let hi = rd64(&K_SECRET, 16 * i + 8).wrapping_sub(seed);
            s[16 * i..16 * i + 8].copy_from_slice(&lo.to_le_bytes());
            s[16 * i + 8..16 * i + 16].copy_from_slice(&hi.to_le_bytes());
        }
    }
    s
}

/// Folds one 64-byte stripe (read from `src`, stored to `dst` when given) with key words `key`.
#[inline(always)]
fn stripe(acc: &mut [u64; 8], src: &[u8], dst: Option<&mut [u8]>, key: &[u64; 8]) {
    let mut v = [0u64; 8];
    for (i, vi) in v.iter_mut().enumerate() {
        *vi = rd64(src, 8 * i);
    }
    if let Some(d) = dst {
        for (i, vi) in v.iter().enumerate() {
            d[8 * i..8 * i + 8].copy_from_slice(&vi.to_le_bytes());
        }
    }
    for i in 0..8 {
        let k = v[i] ^ key[i];
        acc[i ^ 1] = acc[i ^ 1].wrapping_add(v[i]);
        acc[i] = acc[i].wrapping_add((k & 0xFFFF_FFFF).wrapping_mul(k >> 32));
    }
}

#[inline(always)]
fn scramble(acc: &mut [u64; 8], key: &[u64; 8]) {
    for i in 0..8 {
        let mut a = acc[i];
        a ^= a >> 47;
        a ^= key[i];
        acc[i] = a.wrapping_mul(PRIME32_1);
    }
}

#[inline(always)]
fn keys_at(secret: &[u8; SECRET_SIZE], off: usize) -> [u64; 8] {
    let mut k = [0u64; 8];
    for (i, ki) in k.iter_mut().enumerate() {
        *ki = rd64(secret, off + 8 * i);
    }
    k
}

#[inline(always)]
fn fused_long(dst: &mut [u8], src: &[u8], seed: u64) -> u64 {
    let len = src.len();
    let secret = secret_for(seed);
    let stripe_keys: [[u64; 8]; STRIPES_PER_BLOCK] =
        std::array::from_fn(|n| keys_at(&secret, 8 * n));
    let scramble_key = keys_at(&secret, SECRET_SIZE - STRIPE);
    let mut acc = [
        PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1,
    ];
    let nb_blocks = (len - 1) / BLOCK;
    let block_bytes = nb_blocks * BLOCK;
    for (db, sb) in dst[..block_bytes]
        .chunks_exact_mut(BLOCK)
        .zip(src[..block_bytes].chunks_exact(BLOCK))
    {
        for (n, (ds, ss)) in db
            .chunks_exact_mut(STRIPE)
            .zip(sb.chunks_exact(STRIPE))
            .enumerate()
        {
            stripe(&mut acc, ss, Some(ds), &stripe_keys[n]);
        }
        scramble(&mut acc, &scramble_key);
    }
    let nb_stripes = ((len - 1) - block_bytes) / STRIPE;
    let stripes_end = block_bytes + nb_stripes * STRIPE;
    for (n, (ds, ss)) in dst[block_bytes..stripes_end]
        .chunks_exact_mut(STRIPE)
        .zip(src[block_bytes..stripes_end].chunks_exact(STRIPE))
        .enumerate()
    {
        stripe(&mut acc, ss, Some(ds), &stripe_keys[n]);
    }
    dst[stripes_end..].copy_from_slice(&src[stripes_end..]);
    let last_key = keys_at(&secret, SECRET_SIZE - STRIPE - 7);
    stripe(&mut acc, &src[len - STRIPE..], None, &last_key);
    merge(&acc, &secret, (len as u64).wrapping_mul(PRIME64_1))
}

fn merge(acc: &[u64; 8], secret: &[u8; SECRET_SIZE], start: u64) -> u64 {
    let mut r = start;
    for i in 0..4 {
        let a = acc[2 * i] ^ rd64(secret, 11 + 16 * i);
        let b = acc[2 * i + 1] ^ rd64(secret, 11 + 16 * i + 8);
        let p = u128::from(a) * u128::from(b);
        r = r.wrapping_add((p as u64) ^ ((p >> 64) as u64));
    }
    r ^= r >> 37;
    r = r.wrapping_mul(0x1656_6791_9E37_79F9);
    r ^ (r >> 32)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fused_long_avx2(dst: &mut [u8], src: &[u8], seed: u64) -> u64 {
    fused_long(dst, src, seed)
}

/// Copies `src` to `dst` and returns `xxh3_64_with_seed(src, seed)`, in one pass for inputs
/// over 240 bytes.
pub(crate) fn copy_xxh3(dst: &mut [u8], src: &[u8], seed: u64) -> u64 {
    assert_eq!(dst.len(), src.len(), "dst and src lengths differ");
    if src.len() <= MID_SIZE_MAX {
        dst.copy_from_slice(src);
        return xxhash_rust::xxh3::xxh3_64_with_seed(dst, seed);
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { fused_long_avx2(dst, src, seed) };
    }
    fused_long(dst, src, seed)
}
