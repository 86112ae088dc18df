//! Ping-pong through two shared-memory rings between two threads pinned to cores 0 and 1: the
//! checked transport's node-local path alone, without MPI or Python around it.
//!
//! ```text
//! cargo run --release -p fray-integrity --example ring_pingpong -- \
//!     [--algorithms none,fletcher64,crc32c] [--sizes-kib 16,64,256,1024,4096] [--trials 7] \
//!     [--first-chunk-kib 32] [--max-chunk-kib 128] [--slots 8] [--copies 2,1]
//! ```
//!
//! The defaults are those of `fray.integrity.CheckedComm`. `none` copies without a checksum
//! (the baseline). `--copies 2` sends through the ring's slots (a copy in, a copy out);
//! `--copies 1` sends from buffers the receiver can read (`RingSender::send_shared`), so the
//! receiver copies straight out of the sender's buffer. Each (algorithm, size) is timed `trials`
//! times, algorithms interleaved within a trial; the table shows the median one-way
//! bandwidth in GB/s (10^9 bytes per second; one-way = half a round trip).

use std::sync::Barrier;
use std::time::Instant;

use fray_integrity::frame::SourceRef;
use fray_integrity::heap_region::HeapRegion;
use fray_integrity::pipeline::ChunkPlan;
use fray_integrity::ring::{Injection, RingGeometry, RingReceiver, RingSender};
use fray_integrity::Algorithm;

/// Bytes moved per (algorithm, size, trial), to size the number of round trips.
const TARGET_BYTES: usize = 64 << 20;

/// Command-line settings.
struct Settings {
    algorithms: Vec<Option<Algorithm>>,
    copies: Vec<usize>,
    sizes_bytes: Vec<usize>,
    trials: usize,
    plan: ChunkPlan,
    geometry: RingGeometry,
}

fn parse_list<T>(value: &str, flag: &str, item: impl Fn(&str) -> Result<T, String>) -> Vec<T> {
    value
        .split(',')
        .map(|v| item(v.trim()).unwrap_or_else(|e| fail(&format!("{flag}: {e}"))))
        .collect()
}

fn count(v: &str) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("expected a positive whole number, got {v:?}")),
    }
}

fn kib(v: &str) -> Result<usize, String> {
    count(v).map(|n| n << 10)
}

fn fail(message: &str) -> ! {
    eprintln!("ring_pingpong: error: {message}");
    std::process::exit(2)
}

fn settings() -> Settings {
    let mut algorithms = "none,fletcher64".to_string();
    let mut sizes = "16,64,256,1024,4096".to_string();
    let mut copies = "2,1".to_string();
    let (mut trials, mut first, mut max, mut slots) = (7usize, 32usize << 10, 128usize << 10, 8);
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let [flag, value] = pair else {
            fail(&format!("{} needs a value", pair[0]))
        };
        match flag.as_str() {
            "--algorithms" => algorithms = value.clone(),
            "--sizes-kib" => sizes = value.clone(),
            "--copies" => copies = value.clone(),
            "--trials" => trials = parse_list(value, flag, count)[0],
            "--first-chunk-kib" => first = parse_list(value, flag, kib)[0],
            "--max-chunk-kib" => max = parse_list(value, flag, kib)[0],
            "--slots" => slots = parse_list(value, flag, count)[0],
            _ => fail(&format!("unknown option {flag}")),
        }
    }
    let algorithms = parse_list(&algorithms, "--algorithms", |v| {
        if v == "none" {
            Ok(None)
        } else {
            v.parse::<Algorithm>().map(Some).map_err(|e| e.to_string())
        }
    });
    let plan = ChunkPlan {
        first_chunk_bytes: first,
        ratio: 2.0,
        max_chunk_bytes: max,
        align_bytes: 64,
    };
    let geometry = RingGeometry {
        slots,
        slot_payload_bytes: max,
    };
    plan.validate().unwrap_or_else(|e| fail(&e.to_string()));
    geometry.validate().unwrap_or_else(|e| fail(&e.to_string()));
    Settings {
        algorithms,
        copies: parse_list(&copies, "--copies", |v| match v {
            "1" => Ok(1),
            "2" => Ok(2),
            _ => Err(format!("expected 1 or 2, got {v:?}")),
        }),
        sizes_bytes: parse_list(&sizes, "--sizes-kib", kib),
        trials,
        plan,
        geometry,
    }
}

/// Pins the calling thread to `core`; false where that is not possible.
fn pin_to(core: usize) -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the call only reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = core;
        false
    }
}

fn round_trips(size_bytes: usize) -> usize {
    (TARGET_BYTES / size_bytes.max(1)).clamp(20, 2000)
}

/// Sends `msg` on `ring`: from the slots (`at` is `None`) or in one copy from a shared buffer.
fn send(ring: &mut RingSender, msg: &[u8], at: Option<SourceRef>) {
    let go = &mut || true;
    match at {
        Some(at) => ring.send_shared(msg, at, 0, go),
        None => ring.send(msg, 0, go),
    }
    .expect("send");
}

/// The first `len` bytes of `region`, as a slice.
///
/// # Safety
/// The region holds at least `len` bytes; the other thread reads them only while this one
/// sends them (the ping-pong alternates).
#[allow(clippy::mut_from_ref)]
unsafe fn buffer(region: &HeapRegion, len: usize) -> &mut [u8] {
    std::slice::from_raw_parts_mut(region.as_mut_ptr(), len)
}

/// One trial of one algorithm with `copies` copies per message: the one-way time (s) per size.
fn trial(s: &Settings, algorithm: Option<Algorithm>, copies: usize) -> Vec<f64> {
    let bytes = s.geometry.region_bytes();
    let (forth, back) = (HeapRegion::zeroed(bytes), HeapRegion::zeroed(bytes));
    let injection = Injection {
        ber: 0.0,
        seed: 0,
        ring_id: 0,
    };
    let build = |r: &HeapRegion| {
        // SAFETY: both regions outlive both threads (joined below), zeroed, one end each.
        unsafe {
            (
                RingSender::new(r.as_mut_ptr(), bytes, s.geometry, s.plan, algorithm),
                RingReceiver::new(r.as_mut_ptr(), bytes, s.geometry, 8, injection),
            )
        }
    };
    let (send_forth, recv_forth) = build(&forth);
    let (send_back, recv_back) = build(&back);
    let (mut send_forth, mut recv_forth) = (send_forth.unwrap(), recv_forth.unwrap());
    let (mut send_back, mut recv_back) = (send_back.unwrap(), recv_back.unwrap());
    let largest = *s.sizes_bytes.iter().max().expect("at least one size");
    // The ping's source, the echo's buffer and the pong's destination.
    let regions = [0, 1, 2].map(|_| HeapRegion::zeroed(largest));
    let at = (copies == 1).then_some(SourceRef {
        window: 0,
        offset_bytes: 0,
    });
    if at.is_some() {
        // SAFETY: the regions outlive both ends.
        unsafe {
            recv_forth.add_window(regions[0].as_mut_ptr(), largest);
            recv_back.add_window(regions[1].as_mut_ptr(), largest);
        }
    }
    let start = Barrier::new(2);
    let sizes = &s.sizes_bytes;
    std::thread::scope(|scope| {
        scope.spawn(|| {
            pin_to(1);
            // SAFETY: see `buffer`.
            let buf = unsafe { buffer(&regions[1], largest) };
            let go = &mut || true;
            for &n in sizes {
                start.wait();
                for _ in 0..=round_trips(n) {
                    recv_forth.recv(&mut buf[..n], 0, go).expect("echo receive");
                    send(&mut send_back, &buf[..n], at);
                }
            }
        });
        pin_to(0);
        // SAFETY: see `buffer`.
        let src = unsafe { buffer(&regions[0], largest) };
        for (i, b) in src.iter_mut().enumerate() {
            *b = (i.wrapping_mul(31) + 7) as u8;
        }
        // SAFETY: see `buffer`.
        let dst = unsafe { buffer(&regions[2], largest) };
        let go = &mut || true;
        let mut one_way_s = Vec::new();
        for &n in sizes {
            start.wait();
            let reps = round_trips(n);
            let mut t0 = Instant::now();
            // One warm-up round trip, then the timed ones.
            for i in 0..=reps {
                if i == 1 {
                    t0 = Instant::now();
                }
                send(&mut send_forth, &src[..n], at);
                recv_back.recv(&mut dst[..n], 0, go).expect("receive");
            }
            one_way_s.push(t0.elapsed().as_secs_f64() / reps as f64 / 2.0);
            assert!(dst[..n] == src[..n], "the echo differs at {n} bytes");
        }
        one_way_s
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let s = settings();
    let cases: Vec<(Option<Algorithm>, usize)> = s
        .copies
        .iter()
        .flat_map(|&c| s.algorithms.iter().map(move |&a| (a, c)))
        .collect();
    let mut samples = vec![vec![Vec::new(); s.sizes_bytes.len()]; cases.len()];
    for _ in 0..s.trials {
        for (k, &(algorithm, copies)) in cases.iter().enumerate() {
            for (i, t) in trial(&s, algorithm, copies).into_iter().enumerate() {
                samples[k][i].push(t);
            }
        }
    }
    print!("{:<20}", "GB/s");
    for n in &s.sizes_bytes {
        print!("{:>10}", format!("{}KiB", n >> 10));
    }
    println!();
    for (k, (algorithm, copies)) in cases.iter().enumerate() {
        let name = algorithm.map_or("none", |x| x.name());
        print!("{:<20}", format!("{name}/{copies}-copy"));
        for (i, &n) in s.sizes_bytes.iter().enumerate() {
            print!("{:>10.1}", n as f64 / median(samples[k][i].clone()) / 1e9);
        }
        println!();
    }
}
