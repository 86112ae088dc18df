//! Frames of the checked transport detect any flipped bit, in header or payload.

use fray_integrity::frame::*;
use fray_integrity::inject::{flip_bit, inject_ber, rng_for};
use fray_integrity::pipeline::ChunkPlan;
use fray_integrity::Algorithm;

fn header(a: Algorithm) -> ChunkHeader {
    ChunkHeader {
        algorithm: Some(a),
        seq: 7,
        chunk_index: 1,
        chunk_count: 3,
        offset_bytes: 100,
        length_bytes: 0,
        message_bytes: 400,
        checksum: 0,
        tag: 9,
        shared_source: false,
    }
}

#[test]
fn every_single_bit_flip_is_detected() {
    let payload: Vec<u8> = (0..100u8).collect();
    for a in [Algorithm::Crc32c, Algorithm::Xxh3, Algorithm::Fnv1a64] {
        let mut frame = vec![0u8; HEADER_BYTES + payload.len()];
        encode_chunk(&mut frame, &header(a), &payload).unwrap();
        let mut out = vec![0u8; payload.len()];
        let v = verify_copy_out(&frame, &mut out).unwrap();
        assert!(v.is_intact());
        assert_eq!(out, payload);
        for bit in 0..(frame.len() * 8) as u64 {
            let mut bad = frame.clone();
            flip_bit(&mut bad, bit);
            match verify_copy_out(&bad, &mut out) {
                Ok(v) => assert!(!v.is_intact(), "{a}: flip of bit {bit} went unnoticed"),
                // A flip in the length field that still passes the CRC cannot happen; a
                // length inconsistent with the frame is reported as an error.
                Err(e) => panic!("{a}: bit {bit}: {e}"),
            }
        }
    }
}

#[test]
fn header_round_trips() {
    let payload = vec![9u8; 33];
    let mut frame = vec![0u8; HEADER_BYTES + 33];
    let c = encode_chunk(&mut frame, &header(Algorithm::Crc32c), &payload).unwrap();
    let h = ChunkHeader::read(&frame).unwrap();
    assert_eq!(h.checksum, c);
    assert_eq!(h.length_bytes, 33);
    assert_eq!(h.seq, 7);
    assert_eq!(h.message_bytes, 400);
}

#[test]
fn rts_round_trips_and_detects_flips() {
    let mut f = [0u8; RTS_BYTES];
    encode_rts(&mut f, 5, 1 << 20).unwrap();
    assert_eq!(decode_rts(&f), Some((5, 1 << 20)));
    for bit in 0..(RTS_BYTES * 8) as u64 {
        let mut g = f;
        flip_bit(&mut g, bit);
        assert_eq!(decode_rts(&g), None, "bit {bit}");
    }
}

#[test]
fn ber_injection_flips_about_ber_times_bits() {
    let mut buf = vec![0u8; 1 << 20];
    let mut rng = rng_for(3, 0);
    let flips = inject_ber(&mut buf, 1e-4, &mut rng).unwrap();
    let ones: u64 = buf.iter().map(|b| u64::from(b.count_ones())).sum();
    assert_eq!(ones, flips);
    // Expected 838.9, sd 29: allow 6 sd.
    assert!((660..1020).contains(&flips), "{flips}");
    let mut again = vec![0u8; 1 << 20];
    assert_eq!(
        inject_ber(&mut again, 1e-4, &mut rng_for(3, 0)).unwrap(),
        flips
    );
    assert_eq!(again, buf);
    assert!(inject_ber(&mut buf, 1.5, &mut rng).is_err());
    assert_eq!(inject_ber(&mut buf, 0.0, &mut rng).unwrap(), 0);
}

#[test]
fn chunk_plan_grows_geometrically_and_covers_the_message() {
    let plan = ChunkPlan {
        first_chunk_bytes: 16 * 1024,
        ratio: 2.0,
        max_chunk_bytes: 256 * 1024,
        align_bytes: 64,
    };
    let c = plan.chunks(1 << 20).unwrap();
    assert_eq!(c.iter().sum::<usize>(), 1 << 20);
    assert_eq!(&c[..5], &[16384, 32768, 65536, 131072, 262144]);
    assert!(c.iter().all(|&x| x <= 256 * 1024));
    assert_eq!(plan.chunks(0).unwrap(), vec![0]);
    assert_eq!(plan.chunks(100).unwrap(), vec![100]);
    let bad = ChunkPlan { ratio: 0.5, ..plan };
    assert!(bad
        .chunks(10)
        .unwrap_err()
        .to_string()
        .starts_with("ratio:"));
}

#[test]
fn a_shared_source_frame_carries_the_checksum_and_where_the_payload_lies() {
    let payload: Vec<u8> = (0..300u32).map(|i| (i * 7) as u8).collect();
    let at = SourceRef {
        window: 2,
        offset_bytes: 4096 + 5,
    };
    let mut frame = vec![0u8; HEADER_BYTES + SOURCE_REF_BYTES];
    let a = Algorithm::Fletcher64;
    let c = encode_shared_chunk(&mut frame, &header(a), &payload, at).unwrap();
    assert_eq!(c, fray_integrity::checksum(&payload, a, 0));
    let h = ChunkHeader::read(&frame).unwrap();
    assert!(h.shared_source);
    assert_eq!((h.length_bytes, h.checksum), (300, c));
    assert_eq!(SourceRef::read(&frame), Some(at));
    // The receiver's one copy, verified inside it; a damaged source byte is caught.
    let mut out = vec![0u8; 300];
    assert!(verify_copy_from(&h, &payload, &mut out).unwrap());
    assert_eq!(out, payload);
    let mut damaged = payload.clone();
    flip_bit(&mut damaged, 1234);
    assert!(!verify_copy_from(&h, &damaged, &mut out).unwrap());
    assert!(verify_copy_from(&h, &payload[1..], &mut out[1..]).is_err());
    // A shared-source frame has nothing to copy out of the frame itself.
    assert!(verify_copy_out(&frame, &mut out).is_err());
    // Every flip of the reference is caught by its CRC, every flip of the header by its own.
    for bit in 0..(SOURCE_REF_BYTES * 8) as u64 {
        let mut bad = frame.clone();
        flip_bit(&mut bad, (HEADER_BYTES * 8) as u64 + bit);
        assert_eq!(SourceRef::read(&bad), None, "bit {bit} of the reference");
    }
    for bit in 0..(HEADER_BYTES * 8) as u64 {
        let mut bad = frame.clone();
        flip_bit(&mut bad, bit);
        assert!(ChunkHeader::read(&bad).is_err(), "bit {bit} of the header");
    }
}

#[test]
fn a_header_with_unknown_flags_is_refused() {
    let mut frame = vec![0u8; HEADER_BYTES];
    encode_chunk(&mut frame, &header(Algorithm::Crc32c), &[]).unwrap();
    frame[6] |= 2;
    let crc = crc32c::crc32c(&frame[..60]);
    frame[60..64].copy_from_slice(&crc.to_le_bytes());
    let e = ChunkHeader::read(&frame).unwrap_err().to_string();
    assert!(e.contains("flags"), "{e}");
}

mod ack_blocks {
    use fray_integrity::net::ledger::{
        ack_block_bytes, read_ack_block, write_ack_block, MAX_CARRIED,
    };
    use proptest::prelude::*;

    /// A frame: `prefix` bytes of anything, then the ack block of `acks`.
    fn framed(prefix: &[u8], acks: &[u64]) -> Vec<u8> {
        let mut f = prefix.to_vec();
        f.resize(prefix.len() + ack_block_bytes(acks.len()), 0);
        write_ack_block(&mut f[prefix.len()..], acks);
        f
    }

    proptest! {
        #[test]
        fn an_ack_block_reads_back_whatever_precedes_it(
            prefix in proptest::collection::vec(any::<u8>(), 0..300),
            acks in proptest::collection::vec(any::<u64>(), 0..=MAX_CARRIED),
        ) {
            let f = framed(&prefix, &acks);
            prop_assert_eq!(read_ack_block(&f), Some((ack_block_bytes(acks.len()), acks)));
        }

        #[test]
        fn a_flipped_bit_in_an_ack_block_is_caught(
            acks in proptest::collection::vec(any::<u64>(), 0..=MAX_CARRIED),
            bit in any::<prop::sample::Index>(),
        ) {
            let mut f = framed(&[7u8; 64], &acks);
            let block_bits = 8 * ack_block_bytes(acks.len());
            let b = 8 * 64 + bit.index(block_bits);
            f[b / 8] ^= 1 << (b % 8);
            // CRC-32C catches every single-bit error; a damaged count is refused too.
            prop_assert_eq!(read_ack_block(&f), None);
        }
    }

    #[test]
    fn a_frame_too_short_for_its_block_is_refused() {
        assert_eq!(read_ack_block(&[0u8; 7]), None);
        let f = framed(&[], &[1, 2, 3]);
        assert_eq!(read_ack_block(&f[8..]), None);
    }
}
