//! Seeds of independent random cases.

/// The most independent replications a study draws: the failed-links study's seeds per
/// cell and the plan's horizons. Each is at least one simulation, and the studies keep a
/// number per replication.
pub const MAX_REPLICATIONS: u32 = 100_000;

/// The `(seed, case)` pair mixed into one 64-bit RNG seed (SplitMix64 finaliser), so that a
/// case's failures do not depend on which worker runs it or in which order.
pub fn case_seed(seed: u64, case: u64) -> u64 {
    let mut z = seed
        ^ case
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(0x632B_E59B_D9B4_E019);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
