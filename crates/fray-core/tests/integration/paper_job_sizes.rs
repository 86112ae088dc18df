//! Job sizes of the failed-links study: the largest cube (Halo3D26) or square (Sweep3D) that
//! fits in 32k / jobs endpoints, and LQCD's lattice halved one dimension at a time.

use fray_core::workload::{
    largest_cube, largest_square, lqcd_job_size, ranks_per_job, Motif, PAPER_ENDPOINT_BUDGET,
};

#[test]
fn cubes_and_squares_for_1_4_16_64_jobs() {
    let rows = [
        (1, 32768, 32, 181),
        (4, 8192, 20, 90),
        (16, 2048, 12, 45),
        (64, 512, 8, 22),
    ];
    for (jobs, available, cube, square) in rows {
        let n = ranks_per_job(PAPER_ENDPOINT_BUDGET, jobs).unwrap();
        assert_eq!(n, available);
        assert_eq!(largest_cube(n), (cube, cube, cube));
        assert_eq!(largest_square(n), (square, square));
    }
}

#[test]
fn roots_are_exact_at_the_edges() {
    for n in 0..5000u32 {
        let (p, _, _) = largest_cube(n);
        assert!(p.pow(3) <= n && (p + 1).pow(3) > n, "cube of {n}");
        let (q, _) = largest_square(n);
        assert!(q * q <= n && (q + 1) * (q + 1) > n, "square of {n}");
    }
    assert_eq!(largest_cube(u32::MAX), (1625, 1625, 1625));
    assert_eq!(largest_square(u32::MAX), (65535, 65535));
}

#[test]
fn lqcd_halves_nx_ny_nz_nt_in_turn_at_fixed_sites_per_rank() {
    let rows = [
        (1, [144, 144, 144, 192], 32768),
        (2, [72, 144, 144, 192], 16384),
        (4, [72, 72, 144, 192], 8192),
        (16, [72, 72, 72, 96], 2048),
        (64, [36, 36, 72, 96], 512),
    ];
    for (jobs, lattice, ranks) in rows {
        let m = lqcd_job_size(jobs).unwrap();
        assert_eq!(m.lattice(), lattice, "{jobs} jobs");
        assert_eq!(m.num_ranks().unwrap(), ranks);
        let d = m.decomposition().unwrap();
        assert_eq!(d.sites_per_rank.iter().product::<u32>(), 17496);
        assert_eq!(d.ranks_per_dim.iter().product::<u32>(), ranks);
        for ((r, s), side) in d.ranks_per_dim.iter().zip(d.sites_per_rank).zip(lattice) {
            assert_eq!(r * s, side);
        }
    }
}

#[test]
fn bad_job_counts_are_errors() {
    assert!(ranks_per_job(32768, 0).is_err());
    assert!(ranks_per_job(3, 4).is_err());
    let err = lqcd_job_size(3).unwrap_err().to_string();
    assert!(
        err.contains("lqcd jobs") && err.contains("power of two"),
        "{err}"
    );
}
