//! Every algorithm against published reference values.

use fray_integrity::{checksum, copy_checksum, Algorithm, Checksummer};

fn all_paths(data: &[u8], a: Algorithm, seed: u64) -> u64 {
    let one = checksum(data, a, seed);
    let mut c = Checksummer::new(a, seed);
    for piece in data.chunks(3) {
        c.update(piece);
    }
    assert_eq!(c.value(), one, "{a}: streaming in 3-byte pieces differs");
    let mut dst = vec![0u8; data.len()];
    assert_eq!(
        copy_checksum(&mut dst, data, a, seed).unwrap(),
        one,
        "{a}: fused copy differs"
    );
    assert_eq!(dst, data);
    one
}

#[test]
fn crc32c_rfc3720_appendix_b4() {
    let a = Algorithm::Crc32c;
    assert_eq!(all_paths(&[0u8; 32], a, 0), 0x8A91_36AA);
    assert_eq!(all_paths(&[0xFFu8; 32], a, 0), 0x62A8_AB43);
    let inc: Vec<u8> = (0..32).collect();
    assert_eq!(all_paths(&inc, a, 0), 0x46DD_794E);
    let dec: Vec<u8> = (0..32).rev().collect();
    assert_eq!(all_paths(&dec, a, 0), 0x113F_DB5C);
    // iSCSI SCSI Read (10) command PDU.
    let pdu: [u8; 48] = [
        0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
        0x00, 0x18, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00,
    ];
    assert_eq!(all_paths(&pdu, a, 0), 0xD996_3A56);
    assert_eq!(all_paths(b"123456789", a, 0), 0xE306_9283);
}

#[test]
fn crc32_ieee_check_value() {
    assert_eq!(all_paths(b"123456789", Algorithm::Crc32, 0), 0xCBF4_3926);
    assert_eq!(all_paths(b"", Algorithm::Crc32, 0), 0);
    assert_eq!(
        all_paths(
            b"The quick brown fox jumps over the lazy dog",
            Algorithm::Crc32,
            0
        ),
        0x414F_A339
    );
}

#[test]
fn adler32_zlib_values() {
    let a = Algorithm::Adler32;
    assert_eq!(all_paths(b"", a, 0), 1);
    assert_eq!(all_paths(b"Wikipedia", a, 0), 0x11E6_0398);
    assert_eq!(all_paths(b"abc", a, 0), 0x024D_0127);
    // 1 MiB of 0xFF exercises the modulo reductions (zlib value).
    let ff = vec![0xFFu8; 1 << 20];
    let mut a2 = adler2::Adler32::new();
    a2.write_slice(&ff);
    assert_eq!(all_paths(&ff, a, 0), u64::from(a2.checksum()));
}

#[test]
fn fnv1a_reference_values() {
    // Landon Curt Noll's FNV test suite.
    let a32 = Algorithm::Fnv1a32;
    assert_eq!(all_paths(b"", a32, 0), 0x811c_9dc5);
    assert_eq!(all_paths(b"a", a32, 0), 0xe40c_292c);
    assert_eq!(all_paths(b"foobar", a32, 0), 0xbf9c_f968);
    let a64 = Algorithm::Fnv1a64;
    assert_eq!(all_paths(b"", a64, 0), 0xcbf2_9ce4_8422_2325);
    assert_eq!(all_paths(b"a", a64, 0), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(all_paths(b"foobar", a64, 0), 0x8594_4171_f739_67e8);
}

#[test]
fn fletcher64_reference_values() {
    let a = Algorithm::Fletcher64;
    assert_eq!(all_paths(b"abcde", a, 0), 0xc8c6_c527_6463_62c6);
    assert_eq!(all_paths(b"abcdef", a, 0), 0xc8c7_2b27_6463_c8c6);
    assert_eq!(all_paths(b"abcdefgh", a, 0), 0x312e_2b28_ccca_c8c6);
}

#[test]
fn jenkins_one_at_a_time_reference_values() {
    let a = Algorithm::Jenkins;
    assert_eq!(all_paths(b"a", a, 0), 0xca2e_9442);
    assert_eq!(
        all_paths(b"The quick brown fox jumps over the lazy dog", a, 0),
        0x519e_91f5
    );
}

/// xxHash's own sanity buffer (`XSUM_fillTestBuffer`).
fn xxh_sanity_buffer(len: usize) -> Vec<u8> {
    const PRIME32: u64 = 2_654_435_761;
    const PRIME64: u64 = 11_400_714_785_074_694_797;
    let mut g = PRIME32;
    (0..len)
        .map(|_| {
            let b = (g >> 56) as u8;
            g = g.wrapping_mul(PRIME64);
            b
        })
        .collect()
}

#[test]
fn xxh3_sanity_vectors() {
    const P64: u64 = 11_400_714_785_074_694_797;
    let buf = xxh_sanity_buffer(2367);
    let cases: &[(usize, u64, u64)] = &[
        (0, 0, 0x2D06_8005_38D3_94C2),
        (0, P64, 0xA8A6_B918_B2F0_364A),
        (1, 0, 0xC44B_DFF4_074E_ECDB),
        (1, P64, 0x032B_E332_DD76_6EF8),
        (6, 0, 0x27B5_6A84_CD2D_7325),
        (6, P64, 0x8458_9C11_6AB5_9AB9),
        (12, 0, 0xA713_DAF0_DFBB_77E7),
        (12, P64, 0xE730_3E1B_2336_DE0E),
        (24, 0, 0xA3FE_70BF_9D35_10EB),
        (24, P64, 0x850E_80FC_35BD_D690),
        (48, 0, 0x397D_A259_ECBA_1F11),
        (48, P64, 0xADC2_CBAA_44AC_C616),
        (80, 0, 0xBCDE_FBBB_2C47_C90A),
        (80, P64, 0xC6DD_0CB6_9953_2E73),
        (195, 0, 0xCD94_217E_E362_EC3A),
        (195, P64, 0xBA68_003D_370C_B3D9),
        (403, 0, 0xCDEB_804D_65C6_DEA4),
        (403, P64, 0x6259_F6EC_FD64_43FD),
        (512, 0, 0x617E_4959_9013_CB6B),
        (512, P64, 0x3CE4_57DE_14C2_7708),
        (2048, 0, 0xDD59_E2C3_A5F0_38E0),
    ];
    for &(len, seed, want) in cases {
        assert_eq!(
            all_paths(&buf[..len], Algorithm::Xxh3, seed),
            want,
            "xxh3 len {len} seed {seed:#x}"
        );
    }
}
