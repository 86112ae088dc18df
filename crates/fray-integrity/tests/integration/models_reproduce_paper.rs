//! With the paper's parameters (3 GB/s network, 6 GB/s checksum, 1.4 us latency) the models
//! give the paper's figures.

use fray_integrity::model::*;

#[test]
fn naive_approach_gives_half_the_network_bandwidth() {
    let p = ModelParams::paper();
    let asym = naive_asymptotic_bandwidth_bytes_s(&p);
    assert!((asym - 1.5e9).abs() < 1.0, "{asym}");
    // And the curve tends to it: at 1 GiB the apparent bandwidth is within 0.1 % of 50 %.
    let l = (1u64 << 30) as f64;
    let bw = l / naive_time_s(l, &p);
    assert!((bw / p.net_bandwidth_bytes_s - 0.5).abs() < 1e-3, "{bw}");
}

#[test]
fn eager_fused_costs_about_a_third_at_4_kib() {
    let p = ModelParams::paper();
    let l = 4096.0;
    let o = overhead(eager_fused_time_s(l, &p), raw_time_s(l, &p));
    // 1 - 2.765 us / 4.131 us = 33.1 %; the paper rounds to 34 %.
    assert!((o - 0.34).abs() < 0.015, "overhead {o}");
}

#[test]
fn pipelined_costs_under_one_percent_at_1_mib() {
    let p = ModelParams::paper();
    let l = (1u64 << 20) as f64;
    let o = overhead(pipelined_checksum_time_s(l, &p), raw_time_s(l, &p));
    assert!(o > 0.0 && o < 0.01, "overhead {o}");
    // About six gaps of 300 ns at q = 2 and C0 = 2 * 1.4 us * 6 GB/s = 16.8 kB.
    let n = pipeline_gaps(l, p.csum_bandwidth_bytes_s, &p);
    assert!((n - 5.99).abs() < 0.01, "{n}");
}

#[test]
fn fray_switches_from_eager_to_pipeline_at_the_threshold() {
    let p = ModelParams::paper();
    let t = p.rendezvous_threshold_bytes;
    assert_eq!(fray_time_s(t, &p), eager_fused_time_s(t, &p));
    assert_eq!(
        fray_time_s(t + 1.0, &p),
        pipelined_checksum_time_s(t + 1.0, &p)
    );
}

#[test]
fn slow_copy_makes_the_copy_the_bottleneck() {
    let p = ModelParams {
        csum_bandwidth_bytes_s: 1e9,
        ..ModelParams::paper()
    };
    let l = 64e6;
    let bw = l / pipelined_checksum_time_s(l, &p);
    assert!(bw < 1e9 && bw > 0.9e9, "{bw}");
}

#[test]
fn bad_parameters_name_the_field() {
    let p = ModelParams {
        net_bandwidth_bytes_s: 0.0,
        ..ModelParams::paper()
    };
    let e = model_table(&[1.0], &p).unwrap_err().to_string();
    assert!(e.starts_with("net:"), "{e}");
}
