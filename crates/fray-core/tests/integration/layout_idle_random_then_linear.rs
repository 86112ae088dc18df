//! The study's layout: the endpoints no job needs are drawn at random and left idle, then
//! the jobs take the rest linearly, job after job; and SST's linear layout beside it.

use fray_core::workload::{linear_after_random_idle, Layout};

#[test]
fn jobs_get_their_sizes_on_distinct_endpoints_in_order() {
    let jobs = [30u32, 7, 41];
    for seed in 0..50 {
        let layout = linear_after_random_idle(100, &jobs, seed).unwrap();
        assert_eq!(
            layout.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![30, 7, 41]
        );
        let all: Vec<u32> = layout.concat();
        // Linear: strictly increasing through job 0, then job 1, ...
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        assert!(all.iter().all(|&e| e < 100));
    }
}

#[test]
fn same_seed_same_layout() {
    let a = linear_after_random_idle(1000, &[300, 300], 7).unwrap();
    assert_eq!(a, linear_after_random_idle(1000, &[300, 300], 7).unwrap());
    assert_ne!(a, linear_after_random_idle(1000, &[300, 300], 8).unwrap());
}

#[test]
fn a_full_machine_has_no_randomness() {
    let layout = linear_after_random_idle(12, &[5, 7], 3).unwrap();
    assert_eq!(layout, vec![(0..5).collect::<Vec<_>>(), (5..12).collect()]);
}

#[test]
fn idle_endpoints_are_a_uniform_subset() {
    // 40 of 100 endpoints idle: over 2000 seeds each is idle about 40% of the time
    // (standard deviation 1.1%).
    let seeds = 2000;
    let mut idle = [0u32; 100];
    for seed in 0..seeds {
        let mut used = [false; 100];
        for e in linear_after_random_idle(100, &[25, 35], seed)
            .unwrap()
            .concat()
        {
            used[e as usize] = true;
        }
        for (count, u) in idle.iter_mut().zip(used) {
            *count += u32::from(!u);
        }
    }
    for (e, &count) in idle.iter().enumerate() {
        let frequency = f64::from(count) / seeds as f64;
        assert!(
            (frequency - 0.4).abs() < 0.06,
            "endpoint {e} idle {frequency}"
        );
    }
}

#[test]
fn too_many_ranks_is_an_error() {
    let err = linear_after_random_idle(10, &[6, 5], 0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("11 ranks do not fit on 10 endpoints"), "{err}");
}

#[test]
fn the_linear_layout_fills_from_endpoint_zero_whatever_the_seed() {
    for seed in 0..10 {
        let layout = Layout::Linear.place(100, &[30, 7], seed).unwrap();
        assert_eq!(
            layout,
            vec![(0..30).collect::<Vec<_>>(), (30..37).collect()]
        );
    }
    assert_eq!(
        Layout::RandomIdle.place(1000, &[300, 300], 7).unwrap(),
        linear_after_random_idle(1000, &[300, 300], 7).unwrap()
    );
    let err = Layout::Linear
        .place(10, &[6, 5], 0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("11 ranks do not fit on 10 endpoints"), "{err}");
}

#[test]
fn layout_names_read_back() {
    for layout in Layout::ALL {
        assert_eq!(Layout::parse(layout.name()).unwrap(), layout);
    }
    assert_eq!(Layout::parse("zigzag").unwrap_err().field, "layout");
}
