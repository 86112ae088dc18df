//! Bit-error-rate estimates from error counts: the point estimate and an exact Poisson
//! confidence interval.
//!
//! Errors on a link arrive as a Poisson process: `k` errors counted over `n` bits estimate the
//! rate as `k / n`. The two-sided interval at confidence `1 - alpha` is Garwood's exact one,
//! the means `mu` for which `k` is not in either tail of probability `alpha / 2`:
//! `P(X >= k; mu_low) = alpha/2` and `P(X <= k; mu_high) = alpha/2`, divided by `n`. With no
//! error `mu_low = 0` and `mu_high = -ln(alpha/2)` (3.689 at 95 %): the closed form the tests
//! check. The tails are found by bisection on the Poisson distribution function, summed in
//! log space for up to [`EXACT_COUNTS`] errors, beyond which the Wilson-Hilferty
//! approximation (relative error below 1e-4 there) gives the bounds directly.

/// Largest error count whose interval is computed exactly.
pub const EXACT_COUNTS: u64 = 200;

/// A bit-error rate estimated from counts, with its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BerEstimate {
    /// Errors counted.
    pub errors: u64,
    /// Bits carried while they were counted.
    pub bits: f64,
    /// `errors / bits`.
    pub ber: f64,
    /// Lower bound of the interval (0 with no error).
    pub low: f64,
    /// Upper bound of the interval.
    pub high: f64,
}

impl BerEstimate {
    /// The estimate from `errors` counted over `bits` bits (more than 0) at `confidence`
    /// (strictly between 0 and 1, e.g. 0.95) for the two-sided interval.
    pub fn new(errors: u64, bits: f64, confidence: f64) -> Self {
        let alpha = 1.0 - confidence;
        let (low, high) = poisson_interval(errors, alpha);
        Self {
            errors,
            bits,
            ber: errors as f64 / bits,
            low: low / bits,
            high: high / bits,
        }
    }
}

/// Garwood's exact interval `(low, high)` for the mean of a Poisson variable observed at `k`,
/// each tail of probability `alpha / 2`.
pub fn poisson_interval(k: u64, alpha: f64) -> (f64, f64) {
    let tail = alpha / 2.0;
    if k > EXACT_COUNTS {
        let z = normal_quantile(1.0 - tail);
        let kf = k as f64;
        let low = kf * (1.0 - 1.0 / (9.0 * kf) - z / (3.0 * kf.sqrt())).powi(3);
        let k1 = kf + 1.0;
        let high = k1 * (1.0 - 1.0 / (9.0 * k1) + z / (3.0 * k1.sqrt())).powi(3);
        return (low, high);
    }
    let high = bisect(|mu| poisson_cdf(k, mu) - tail, k as f64 + 1.0);
    let low = if k == 0 {
        0.0
    } else {
        // P(X >= k; mu) = 1 - P(X <= k - 1; mu) rises with mu.
        bisect(|mu| tail - (1.0 - poisson_cdf(k - 1, mu)), k as f64)
    };
    (low, high)
}

/// The root of `f` (falling through 0 as `mu` grows) on `[0, inf)`, starting the bracket at
/// `guess`.
fn bisect(f: impl Fn(f64) -> f64, guess: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, guess.max(1.0));
    while f(hi) > 0.0 {
        lo = hi;
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-12 * hi {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// `P(X <= k)` for a Poisson variable of mean `mu`, summed in log space.
fn poisson_cdf(k: u64, mu: f64) -> f64 {
    if mu == 0.0 {
        return 1.0;
    }
    let ln_mu = mu.ln();
    let mut ln_term = -mu; // ln P(X = 0)
    let mut sum = ln_term.exp();
    for i in 1..=k {
        ln_term += ln_mu - (i as f64).ln();
        sum += ln_term.exp();
    }
    sum.min(1.0)
}

/// The standard normal quantile (Acklam's rational approximation, relative error below
/// 1.2e-9).
fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_error_gives_the_closed_form_upper_bound() {
        let (low, high) = poisson_interval(0, 0.05);
        assert_eq!(low, 0.0);
        assert!((high - (-(0.025f64).ln())).abs() < 1e-9, "{high}");
        let e = BerEstimate::new(0, 1e12, 0.95);
        assert!((e.high - 3.688_879_454e-12).abs() < 1e-20, "{}", e.high);
    }

    #[test]
    fn exact_bounds_match_published_tables() {
        // Garwood 95 % limits (e.g. Ulm 1990 tables): k=1 -> 0.0253, 5.572; k=10 -> 4.795, 18.39.
        let (low, high) = poisson_interval(1, 0.05);
        assert!((low - 0.025_32).abs() < 1e-4 && (high - 5.5716).abs() < 1e-3);
        let (low, high) = poisson_interval(10, 0.05);
        assert!((low - 4.7954).abs() < 1e-3 && (high - 18.3904).abs() < 1e-3);
    }

    #[test]
    fn the_approximation_takes_over_smoothly() {
        let exact = {
            let k = EXACT_COUNTS;
            let high = bisect(|mu| poisson_cdf(k, mu) - 0.025, k as f64 + 1.0);
            let low = bisect(|mu| 0.025 - (1.0 - poisson_cdf(k - 1, mu)), k as f64);
            (low, high)
        };
        let approx = poisson_interval(EXACT_COUNTS + 1, 0.05);
        // One more count moves each bound by about one; the two methods agree to far better.
        assert!(
            (approx.0 - exact.0 - 1.0).abs() < 0.1,
            "{exact:?} {approx:?}"
        );
        assert!(
            (approx.1 - exact.1 - 1.0).abs() < 0.1,
            "{exact:?} {approx:?}"
        );
        assert!((normal_quantile(0.975) - 1.959_963_985).abs() < 1e-8);
    }
}
