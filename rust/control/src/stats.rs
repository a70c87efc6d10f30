//! The statistics control needs to decide whether a cell needs more trials. The harness computes
//! the reported intervals with the same method (harness/codecbench/stats.py, whose module doc has
//! the derivation).
//!
//! The interval is a 95 % rerun interval: with n sorted trial figures, [x_(j), x_(n-j+1)] holds
//! the median of an identical rerun of n trials with probability 1 - 2 P(K >= ceil(n/2)), where K,
//! the number of the rerun's figures below x_(j), is negative hypergeometric:
//! P(K = t) = C(j-1+t, t) C(2n-j-t, n-t) / C(2n, n), whatever the distribution (exact for odd n,
//! a lower bound for even n). j is the largest rank whose coverage is still >= the confidence
//! asked; below 9 trials no rank reaches 95 %, and min..max is used with its actual coverage
//! (83.3 % for 5).

pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => None,
        n if n % 2 == 1 => Some(v[n / 2]),
        n => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// C(n, k) as f64 (exact up to 2^53, then within rounding; trial counts stay far below overflow).
fn choose(n: usize, k: usize) -> f64 {
    let k = k.min(n - k);
    (0..k).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64)
}

/// Probability that an identical rerun's median lands in [x_(j), x_(n-j+1)] of n trials.
pub fn rerun_coverage(n: usize, j: usize) -> f64 {
    if n == 0 || j < 1 || 2 * j > n + 1 {
        return 0.0;
    }
    let need = n.div_ceil(2);
    let below: f64 = (need..=n).map(|t| choose(j - 1 + t, t) * choose(2 * n - j - t, n - t)).sum::<f64>() / choose(2 * n, n);
    (1.0 - 2.0 * below).max(0.0)
}

/// The rerun interval of the median: (low, high, actual coverage). None with fewer than 2 values.
pub fn median_interval(values: &[f64], confidence: f64) -> Option<(f64, f64, f64)> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(f64::total_cmp);
    let mut j = 1;
    while rerun_coverage(n, j + 1) >= confidence {
        j += 1;
    }
    Some((v[j - 1], v[n - j], rerun_coverage(n, j)))
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
    fn rerun_interval_ranks_and_coverage() {
        // n = 5: no rank reaches 95 %; min..max holds a rerun's median 5/6 of the time.
        let (lo, hi, c) = median_interval(&[5.0, 1.0, 4.0, 2.0, 3.0], 0.95).unwrap();
        assert_eq!((lo, hi), (1.0, 5.0));
        assert!((c - 5.0 / 6.0).abs() < 1e-12, "{c}");
        // The same ranks and coverages as harness/tests/test_stats.py.
        for (n, j, cov) in [(3, 1, 0.6), (7, 1, 0.9301), (8, 1, 0.9231), (9, 1, 0.9706), (13, 2, 0.9698), (17, 3, 0.9745), (20, 4, 0.9593)] {
            let v: Vec<f64> = (1..=n).map(|i| i as f64).collect();
            let (lo, hi, c) = median_interval(&v, 0.95).unwrap();
            assert_eq!((lo, hi), (j as f64, (n - j + 1) as f64), "n = {n}");
            assert!((c - cov).abs() < 1e-4, "n = {n}: {c}");
        }
        // The largest trial count a scenario may ask for stays finite.
        assert!(rerun_coverage(100, 1) > 0.99 && rerun_coverage(100, 40) < 0.95);
        assert!(median_interval(&[1.0], 0.95).is_none());
        assert_eq!(median(&[3.0, 1.0, 2.0, 10.0]), Some(2.5));
    }

    #[test]
    fn half_width_in_percent() {
        assert_eq!(relative_half_width_pct(&[99.0, 100.0, 100.0, 100.0, 101.0]), Some(1.0));
        assert_eq!(relative_half_width_pct(&[99.0, 100.0, 100.0, 100.0, 110.0]), Some(10.0), "the wider side counts");
    }
}
