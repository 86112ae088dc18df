//! SMHasher's verification values, with SMHasher's seeding convention: hash keys
//! `{}`, `{0}`, `{0,1}`, ... `{0..254}` with seed `256 - len`, concatenate the results
//! (little-endian, 4 or 8 bytes each), hash that with seed 0, and read the first four bytes
//! as a little-endian integer.

use fray_integrity::{checksum, Algorithm};

fn verification(a: Algorithm) -> u32 {
    let bytes = (a.bits() / 8) as usize;
    let mut key = [0u8; 256];
    let mut hashes = vec![0u8; bytes * 256];
    for i in 0..256usize {
        key[i] = i as u8;
        let h = checksum(&key[..i], a, (256 - i) as u64);
        hashes[i * bytes..(i + 1) * bytes].copy_from_slice(&h.to_le_bytes()[..bytes]);
    }
    let fin = checksum(&hashes, a, 0).to_le_bytes();
    u32::from_le_bytes([fin[0], fin[1], fin[2], fin[3]])
}

#[test]
fn murmur2a_matches_smhasher() {
    assert_eq!(verification(Algorithm::Murmur2a), 0x7FBD_4396);
}

#[test]
fn fnv1a32_matches_smhasher() {
    assert_eq!(verification(Algorithm::Fnv1a32), 0xE3CB_BE91);
}

#[test]
fn fnv1a64_matches_smhasher() {
    assert_eq!(verification(Algorithm::Fnv1a64), 0x1034_55FC);
}

#[test]
fn superfasthash_matches_smhasher_x86() {
    assert_eq!(verification(Algorithm::SuperFastHash), 0x0C80_403A);
}

#[test]
fn jenkins_matches_smhasher_perl_oaat() {
    assert_eq!(verification(Algorithm::Jenkins), 0xEE05_869B);
}
