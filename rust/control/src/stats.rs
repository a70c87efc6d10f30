//! The statistics control needs to decide whether a cell needs more trials. The harness computes
//! the reported intervals with the same method (harness/codecbench/stats.py).
//!
//! The interval is the distribution-free confidence interval of the median from binomial order
//! statistics: with n sorted trial figures, [x_(j), x_(n-j+1)] covers the true median with
//! probability 1 - 2 P(B <= j-1), B ~ Binomial(n, 1/2), whatever the distribution. j is the
//! largest rank whose coverage is still >= the confidence asked; below 6 trials no rank reaches
//! 95 %, and min..max is used with its actual coverage (93.75 % for 5).

pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => None,
        n if n % 2 == 1 => Some(v[n / 2]),
        n => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// P(B <= k) for B ~ Binomial(n, 1/2).
fn binomial_cdf_half(n: usize, k: usize) -> f64 {
    let mut term = 0.5f64.powi(n as i32); // C(n, 0) / 2^n
    let mut sum = term;
    for i in 1..=k.min(n) {
        term *= (n - i + 1) as f64 / i as f64;
        sum += term;
    }
    sum
}

/// The interval of the median: (low, high, actual coverage). None with fewer than 2 values.
pub fn median_interval(values: &[f64], confidence: f64) -> Option<(f64, f64, f64)> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(f64::total_cmp);
    let coverage = |j: usize| 1.0 - 2.0 * binomial_cdf_half(n, j - 1);
    let mut j = 1;
    while j < n / 2 && coverage(j + 1) >= confidence {
        j += 1;
    }
    Some((v[j - 1], v[n - j], coverage(j)))
}

/// Half-width of the interval in % of the median, on its wider side (the interval need not be
/// symmetric): the figure adaptive trials drive below target, as the harness reports it.
pub fn relative_half_width_pct(values: &[f64]) -> Option<f64> {
    let m = median(values)?;
    let (lo, hi, _) = median_interval(values, 0.95)?;
    (m > 0.0).then(|| (m - lo).max(hi - m) / m * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_statistic_interval_ranks_and_coverage() {
        // n = 5: no rank reaches 95 %, min..max covers 1 - 2/32 = 93.75 %.
        let (lo, hi, c) = median_interval(&[5.0, 1.0, 4.0, 2.0, 3.0], 0.95).unwrap();
        assert_eq!((lo, hi), (1.0, 5.0));
        assert!((c - 0.9375).abs() < 1e-12);
        // n = 9: ranks 2 and 8 (coverage 1 - 2 * 10/512 = 96.1 %).
        let v: Vec<f64> = (1..=9).map(f64::from).collect();
        let (lo, hi, c) = median_interval(&v, 0.95).unwrap();
        assert_eq!((lo, hi), (2.0, 8.0));
        assert!((c - (1.0 - 20.0 / 512.0)).abs() < 1e-12);
        // n = 20: ranks 6 and 15 (coverage 95.9 %); rank 7 would give only 88.5 %.
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        let (lo, hi, c) = median_interval(&v, 0.95).unwrap();
        assert_eq!((lo, hi), (6.0, 15.0), "coverage {c}");
        assert!(c >= 0.95);
        assert!(median_interval(&[1.0], 0.95).is_none());
        assert_eq!(median(&[3.0, 1.0, 2.0, 10.0]), Some(2.5));
    }

    #[test]
    fn half_width_in_percent() {
        assert_eq!(relative_half_width_pct(&[99.0, 100.0, 100.0, 100.0, 101.0]), Some(1.0));
        assert_eq!(relative_half_width_pct(&[99.0, 100.0, 100.0, 100.0, 110.0]), Some(10.0), "the wider side counts");
    }
}
