//! The zero-copy rendezvous's chunk plan follows the model: every chunk is verified while the
//! next one arrives, the last chunk's verification costs about one gap, and the gaps stay a
//! small share of the network time.

use fray_integrity::model::{net_chunk_plan, ModelParams, NET_GAP_SHARE};

fn tcp_like() -> ModelParams {
    ModelParams {
        net_bandwidth_bytes_s: 2e9,
        gap_s: 10e-6,
        csum_bandwidth_bytes_s: 20e9,
        ..ModelParams::paper()
    }
}

#[test]
fn each_chunk_is_verified_while_the_next_arrives() {
    for p in [ModelParams::paper(), tcp_like()] {
        let plan = net_chunk_plan(&p).unwrap();
        for len in [
            1usize,
            4096,
            65_536,
            1 << 20,
            3 << 20,
            16 << 20,
            100_000_003,
        ] {
            let chunks = plan.chunks_shrinking(len).unwrap();
            assert_eq!(chunks.iter().sum::<usize>(), len);
            for w in chunks.windows(2) {
                let verify_s = w[0] as f64 / p.csum_bandwidth_bytes_s;
                let arrive_s = w[1] as f64 / p.net_bandwidth_bytes_s;
                assert!(verify_s <= arrive_s * 1.01, "{len}: {w:?}");
            }
        }
    }
}

#[test]
fn last_chunk_costs_a_gap_and_gaps_stay_small() {
    let p = tcp_like();
    let plan = net_chunk_plan(&p).unwrap();
    let last_s = plan.first_chunk_bytes as f64 / p.csum_bandwidth_bytes_s;
    assert!((last_s - p.gap_s).abs() < 0.01 * p.gap_s, "{plan:?}");
    let share = p.gap_s / (plan.max_chunk_bytes as f64 / p.net_bandwidth_bytes_s);
    assert!(
        (share - NET_GAP_SHARE).abs() < 0.01 * NET_GAP_SHARE,
        "{plan:?}"
    );
    assert!((plan.ratio - 10.0).abs() < 1e-12);
}

#[test]
fn a_checksum_slower_than_the_network_keeps_chunks_equal() {
    let p = ModelParams {
        csum_bandwidth_bytes_s: 1e9,
        ..tcp_like()
    };
    assert_eq!(net_chunk_plan(&p).unwrap().ratio, 1.0);
}

#[test]
fn the_paper_network_gets_its_sub_block() {
    // 300 ns x 6 GB/s = 1.8 kB, below the 4 KiB floor.
    assert_eq!(
        net_chunk_plan(&ModelParams::paper())
            .unwrap()
            .first_chunk_bytes,
        4096
    );
}
