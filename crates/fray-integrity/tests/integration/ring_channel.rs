//! The shared-memory ring delivers every message intact or reports why, and both ends stay in
//! step: two threads play the two processes on one zeroed region.

use std::thread;

use fray_integrity::frame::SourceRef;
use fray_integrity::heap_region::HeapRegion;
use fray_integrity::pipeline::ChunkPlan;
use fray_integrity::ring::{
    Injection, RingError, RingGeometry, RingReceiver, RingSender, Transfer,
};
use fray_integrity::Algorithm;
use proptest::prelude::*;

const GEOMETRY: RingGeometry = RingGeometry {
    slots: 4,
    slot_payload_bytes: 16 * 1024,
};

fn plan(first: usize, ratio: f64) -> ChunkPlan {
    ChunkPlan {
        first_chunk_bytes: first,
        ratio,
        max_chunk_bytes: 16 * 1024,
        align_bytes: 64,
    }
}

fn ends(region: &HeapRegion, ber: f64, seed: u64, max_retries: u32) -> (RingSender, RingReceiver) {
    let len = GEOMETRY.region_bytes();
    // SAFETY: the region outlives both ends (the tests join the threads before dropping it).
    unsafe {
        (
            RingSender::new(
                region.as_mut_ptr(),
                len,
                GEOMETRY,
                plan(1024, 2.0),
                Some(Algorithm::Crc32c),
            )
            .unwrap(),
            RingReceiver::new(
                region.as_mut_ptr(),
                len,
                GEOMETRY,
                max_retries,
                Injection {
                    ber,
                    seed,
                    ring_id: 1,
                },
            )
            .unwrap(),
        )
    }
}

fn message(len: usize, salt: u64) -> Vec<u8> {
    (0..len)
        .map(|i| ((i as u64).wrapping_mul(2654435761) ^ salt) as u8)
        .collect()
}

type Outcome = (
    Vec<Result<Transfer, RingError>>,
    Vec<(Result<Transfer, RingError>, Vec<u8>)>,
);

/// Sends `sizes` one after another; the receiver uses buffers of `capacity(size)` bytes.
/// With `shared`, the messages lie back to back (from byte 100 on) in a buffer the receiver
/// registered, and go in one copy ([`RingSender::send_shared`]).
fn exchange(
    sizes: &[usize],
    capacity: fn(usize) -> usize,
    ber: f64,
    max_retries: u32,
    shared: bool,
) -> Outcome {
    let region = HeapRegion::zeroed(GEOMETRY.region_bytes());
    let (mut tx, mut rx) = ends(&region, ber, 7, max_retries);
    let mut window = vec![0xA5u8; 100];
    let mut starts = Vec::new();
    for (i, &n) in sizes.iter().enumerate() {
        starts.push(window.len());
        window.extend(message(n, i as u64));
    }
    if shared {
        // SAFETY: `window` outlives both threads and is not changed while they run.
        assert_eq!(unsafe { rx.add_window(window.as_ptr(), window.len()) }, 0);
    }
    let (sent, received) = thread::scope(|s| {
        let window = &window;
        let starts = &starts;
        let sender = s.spawn(move || {
            sizes
                .iter()
                .zip(starts)
                .map(|(&n, &at)| {
                    let msg = &window[at..at + n];
                    if shared {
                        let source = SourceRef {
                            window: 0,
                            offset_bytes: at as u64,
                        };
                        tx.send_shared(msg, source, 3, &mut || true)
                    } else {
                        tx.send(msg, 3, &mut || true)
                    }
                })
                .collect::<Vec<_>>()
        });
        let receiver = s.spawn(move || {
            sizes
                .iter()
                .map(|&n| {
                    let mut buf = vec![0u8; capacity(n)];
                    let r = rx.recv(&mut buf, 3, &mut || true);
                    (r, buf)
                })
                .collect::<Vec<_>>()
        });
        (sender.join().unwrap(), receiver.join().unwrap())
    });
    drop(region);
    (sent, received)
}

#[test]
fn messages_of_every_shape_arrive_intact() {
    let sizes = [
        0,
        1,
        63,
        64,
        1000,
        1024,
        3 * 1024 + 5,
        16 * 1024,
        200 * 1024 + 17,
    ];
    for shared in [false, true] {
        let (sent, received) = exchange(&sizes, |n| n, 0.0, 4, shared);
        for (i, (&n, (r, buf))) in sizes.iter().zip(&received).enumerate() {
            let t = r.as_ref().unwrap();
            assert_eq!(
                buf,
                &message(n, i as u64),
                "message {i} of {n} bytes differs (shared: {shared})"
            );
            assert_eq!(t.message_bytes, n as u64);
            assert_eq!(t.chunks, plan(1024, 2.0).chunks(n).unwrap().len() as u64);
            assert_eq!(t.corrupted, 0);
            assert_eq!(sent[i].as_ref().unwrap().chunks, t.chunks);
        }
    }
}

#[test]
fn flipped_bits_are_caught_and_resent_never_delivered() {
    let sizes = vec![40 * 1024; 60];
    for shared in [false, true] {
        let (sent, received) = exchange(&sizes, |n| n, 2e-6, 16, shared);
        let (mut corrupted, mut injected) = (0, 0);
        for (i, (r, buf)) in received.iter().enumerate() {
            let t = r.as_ref().unwrap();
            assert_eq!(
                buf,
                &message(sizes[i], i as u64),
                "message {i} delivered damaged (shared: {shared})"
            );
            // The sender resent exactly the chunks the receiver found damaged.
            assert_eq!(sent[i].as_ref().unwrap().corrupted, t.corrupted);
            corrupted += t.corrupted;
            injected += t.injected_bits;
        }
        // 60 x 40 KiB at 2e-6: about 4 flips expected; the seed is fixed, so this is exact.
        assert!(
            injected > 0 && corrupted > 0 && corrupted <= injected,
            "{injected} {corrupted} (shared: {shared})"
        );
    }
}

#[test]
fn a_message_larger_than_the_buffer_is_refused_and_the_ring_stays_in_step() {
    let sizes = [100 * 1024, 5000, 70 * 1024];
    for shared in [false, true] {
        let capacity = |n| if n == 5000 { n } else { n / 2 };
        let (sent, received) = exchange(&sizes, capacity, 0.0, 4, shared);
        assert_eq!(
            received[0].0,
            Err(RingError::TooLarge {
                message_bytes: 100 * 1024,
                capacity_bytes: Some(50 * 1024)
            })
        );
        assert_eq!(
            sent[0],
            Err(RingError::TooLarge {
                message_bytes: 100 * 1024,
                capacity_bytes: None
            })
        );
        assert_eq!(received[1].1, message(5000, 1));
        assert!(received[1].0.is_ok() && sent[1].is_ok());
        assert!(matches!(received[2].0, Err(RingError::TooLarge { .. })));
    }
}

#[test]
fn a_chunk_damaged_on_every_try_ends_in_an_error_on_both_sides() {
    // One 16 KiB chunk holds 131,072 bits: at 1e-3 every attempt is damaged.
    let sizes = [16 * 1024, 16 * 1024];
    for shared in [false, true] {
        let (sent, received) = exchange(&sizes, |n| n, 1e-3, 2, shared);
        let rx = received[0].0.as_ref().unwrap_err();
        assert!(
            matches!(rx, RingError::Retries { seq: 0 } | RingError::Protocol(_)),
            "{rx}"
        );
        assert!(sent[0].is_err());
    }
}

#[test]
fn a_receive_with_another_tag_leaves_the_message_for_the_right_one() {
    let region = HeapRegion::zeroed(GEOMETRY.region_bytes());
    let (mut tx, mut rx) = ends(&region, 0.0, 1, 4);
    let msg = message(30_000, 9);
    thread::scope(|s| {
        let m = &msg;
        s.spawn(move || tx.send(m, 5, &mut || true).unwrap());
        let mut buf = vec![0u8; 30_000];
        assert_eq!(
            rx.recv(&mut buf, 4, &mut || true),
            Err(RingError::TagMismatch {
                expected: 4,
                got: 5
            })
        );
        rx.recv(&mut buf, 5, &mut || true).unwrap();
        assert_eq!(&buf, m);
    });
}

#[test]
fn a_wait_the_caller_cancels_breaks_the_ring() {
    let region = HeapRegion::zeroed(GEOMETRY.region_bytes());
    let (_tx, mut rx) = ends(&region, 0.0, 1, 4);
    let mut buf = [0u8; 8];
    assert_eq!(
        rx.recv(&mut buf, 0, &mut || false),
        Err(RingError::Interrupted)
    );
    assert!(matches!(
        rx.recv(&mut buf, 0, &mut || false),
        Err(RingError::Protocol(_))
    ));
}

#[test]
fn bad_geometry_and_regions_name_the_field() {
    let region = HeapRegion::zeroed(GEOMETRY.region_bytes());
    let small = RingGeometry {
        slots: 1,
        ..GEOMETRY
    };
    let e = unsafe {
        RingSender::new(
            region.as_mut_ptr(),
            GEOMETRY.region_bytes(),
            small,
            plan(64, 1.0),
            Some(Algorithm::Crc32c),
        )
    };
    assert!(e.err().unwrap().to_string().starts_with("slots:"));
    let e = unsafe {
        RingSender::new(
            region.as_mut_ptr(),
            100,
            GEOMETRY,
            plan(64, 1.0),
            Some(Algorithm::Crc32c),
        )
    };
    assert!(e.err().unwrap().to_string().starts_with("region:"));
    let big = ChunkPlan {
        max_chunk_bytes: 32 * 1024,
        ..plan(64, 1.0)
    };
    let e = unsafe {
        RingSender::new(
            region.as_mut_ptr(),
            GEOMETRY.region_bytes(),
            GEOMETRY,
            big,
            Some(Algorithm::Crc32c),
        )
    };
    assert!(e.err().unwrap().to_string().starts_with("max_chunk:"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn any_sequence_of_messages_arrives_in_order_and_intact(
        sizes in proptest::collection::vec(0usize..90_000, 1..12),
        shared in any::<bool>(),
    ) {
        let (sent, received) = exchange(&sizes, |n| n + 3, 0.0, 4, shared);
        for (i, (r, buf)) in received.iter().enumerate() {
            let t = r.as_ref().unwrap();
            prop_assert_eq!(t.message_bytes, sizes[i] as u64);
            prop_assert_eq!(&buf[..sizes[i]], &message(sizes[i], i as u64)[..]);
            prop_assert!(sent[i].is_ok());
        }
    }
}

#[test]
fn without_a_checksum_flipped_bits_are_delivered() {
    // The unchecked baseline: the same ring, plain copies; damage goes through unnoticed.
    let region = HeapRegion::zeroed(GEOMETRY.region_bytes());
    let len = GEOMETRY.region_bytes();
    // SAFETY: the region outlives both ends.
    let (mut tx, mut rx) = unsafe {
        (
            RingSender::new(region.as_mut_ptr(), len, GEOMETRY, plan(1024, 2.0), None).unwrap(),
            RingReceiver::new(
                region.as_mut_ptr(),
                len,
                GEOMETRY,
                4,
                Injection {
                    ber: 1e-4,
                    seed: 3,
                    ring_id: 0,
                },
            )
            .unwrap(),
        )
    };
    let msg = message(60_000, 1);
    let mut buf = vec![0u8; 60_000];
    let t = thread::scope(|s| {
        let m = &msg;
        s.spawn(move || tx.send(m, 0, &mut || true).unwrap());
        rx.recv(&mut buf, 0, &mut || true).unwrap()
    });
    assert!(t.injected_bits > 0);
    assert_eq!(t.corrupted, 0);
    assert_ne!(buf, msg);
}

#[test]
fn a_source_outside_the_shared_buffer_is_a_protocol_error_not_a_read() {
    let region = HeapRegion::zeroed(GEOMETRY.region_bytes());
    let (mut tx, mut rx) = ends(&region, 0.0, 1, 4);
    let window = message(4096, 1);
    // SAFETY: `window` outlives both ends.
    unsafe { rx.add_window(window.as_ptr(), 1000) };
    let stop = std::sync::atomic::AtomicBool::new(false);
    thread::scope(|s| {
        let (window, stop) = (&window, &stop);
        let sender = s.spawn(move || {
            let at = SourceRef {
                window: 0,
                offset_bytes: 0,
            };
            tx.send_shared(&window[..2000], at, 0, &mut || {
                !stop.load(std::sync::atomic::Ordering::Relaxed)
            })
        });
        let mut buf = vec![0u8; 2000];
        let got = rx.recv(&mut buf, 0, &mut || true);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        match got {
            Err(RingError::Protocol(why)) => assert!(why.contains("overrun"), "{why}"),
            other => panic!("expected a protocol error, got {other:?}"),
        }
        assert_eq!(sender.join().unwrap(), Err(RingError::Interrupted));
    });
}
