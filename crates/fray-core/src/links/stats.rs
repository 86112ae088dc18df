//! Means and confidence intervals over seeds.

/// The 0.975 quantile of Student's t distribution with `df` degrees of freedom (the factor
/// of a two-sided 95 % confidence interval); the normal 1.96 from 120 on. `df` 0 gives NaN.
pub fn student_t975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        1..=30 => TABLE[df - 1],
        31..=40 => 2.021,
        41..=60 => 2.000,
        61..=119 => 1.980,
        _ => 1.960,
    }
}

/// The mean of `values` and the half-width of its two-sided 95 % confidence interval
/// (Student's t times the standard error; NaN with fewer than two values). Empty input
/// gives NaN for both.
pub fn mean_ci95(values: &[f64]) -> (f64, f64) {
    let n = values.len();
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return (mean, f64::NAN);
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    (mean, student_t975(n - 1) * (var / n as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_values_use_t_with_two_degrees_of_freedom() {
        // mean 2, sample sd 1, standard error 1/sqrt(3), t(0.975, 2) = 4.303.
        let (mean, half) = mean_ci95(&[1.0, 2.0, 3.0]);
        assert_eq!(mean, 2.0);
        assert!((half - 4.303 / 3f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn equal_values_have_no_spread_and_one_value_no_interval() {
        assert_eq!(mean_ci95(&[0.5; 4]), (0.5, 0.0));
        let (mean, half) = mean_ci95(&[7.0]);
        assert_eq!(mean, 7.0);
        assert!(half.is_nan());
    }

    #[test]
    fn large_samples_tend_to_the_normal_quantile() {
        assert_eq!(student_t975(1000), 1.96);
        assert!(student_t975(30) > student_t975(31));
    }
}
