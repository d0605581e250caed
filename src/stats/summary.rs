//! Summaries of one metric: moments, confidence interval and the distribution table.
//!
//! Every float here is a pure function of the histogram's exact integer sums and counts, each
//! converted to `f64` once, so the reported numbers do not depend on how trials were split into
//! chunks, threads or shards.

use statrs::distribution::{ContinuousCDF, StudentsT};
use std::sync::atomic::{AtomicU64, Ordering};

use super::histogram::{Histogram, Sums};

/// What summary.csv reports for one metric.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Number of trials.
    pub trials: u64,
    /// Sample mean.
    pub mean: f64,
    /// Unbiased (n − 1) sample variance; 0 for a single trial.
    pub variance: f64,
    /// Square root of `variance`.
    pub std_dev: f64,
    /// Standard error of the mean, `std_dev / sqrt(n)`.
    pub std_error: f64,
    /// Lower end of the 95 % Student's t confidence interval for the mean.
    pub ci95_low: f64,
    /// Upper end of the 95 % Student's t confidence interval for the mean.
    pub ci95_high: f64,
    /// Smallest value observed.
    pub min: i64,
    /// Largest value observed.
    pub max: i64,
}

impl Summary {
    /// Summarises `h`; `None` when it holds no trial.
    ///
    /// ```
    /// use rollcall::stats::{Histogram, Summary};
    /// let mut h = Histogram::new();
    /// for v in [1, 2, 2, 3, 7] {
    ///     h.add(v);
    /// }
    /// let s = Summary::from_histogram(&h).unwrap();
    /// assert_eq!((s.trials, s.mean, s.variance), (5, 3.0, 5.5));
    /// ```
    pub fn from_histogram(h: &Histogram) -> Option<Summary> {
        let (min, max) = (h.min()?, h.max()?);
        let sums = h.sums();
        let trials = u64::try_from(sums.n).expect("a histogram's total fits in u64");
        let mean = exact_mean(&sums);
        let variance = exact_variance(&sums);
        let std_dev = variance.sqrt();
        let (std_error, half_width) = if trials > 1 {
            let std_error = std_dev / (trials as f64).sqrt();
            (std_error, t_critical_95(trials - 1) * std_error)
        } else {
            (0.0, 0.0)
        };
        Some(Summary {
            trials,
            mean,
            variance,
            std_dev,
            std_error,
            ci95_low: mean - half_width,
            ci95_high: mean + half_width,
            min,
            max,
        })
    }
}

/// One row of distribution.csv.
#[derive(Clone, Debug, PartialEq)]
pub struct DistributionRow {
    /// The metric's value.
    pub value: i64,
    /// Trials that produced exactly `value`.
    pub count: u64,
    /// `count / n`.
    pub probability: f64,
    /// `P(X >= value)`: trials with a value of at least `value`, over `n`.
    pub at_least: f64,
}

/// One row per observed value (cells with a zero count are omitted), ascending by value.
///
/// `at_least` comes from an integer suffix count divided once, so it is exactly 1 on the first
/// row and never drifts the way a running float sum would.
pub fn distribution(h: &Histogram) -> Vec<DistributionRow> {
    let n = h.total() as f64;
    let cells: Vec<(i64, u64)> = h.iter().collect();
    let mut at_least_count: u64 = 0;
    let mut rows: Vec<DistributionRow> = cells
        .iter()
        .rev()
        .map(|&(value, count)| {
            at_least_count += count;
            DistributionRow {
                value,
                count,
                probability: count as f64 / n,
                at_least: at_least_count as f64 / n,
            }
        })
        .collect();
    rows.reverse();
    rows
}

/// Two-sided 95 % Student's t critical value `t_{0.975, df}`.
///
/// `df = 0` gives infinity: with no degrees of freedom the interval is unbounded.
///
/// ```
/// let t = rollcall::stats::t_critical_95(10);
/// assert!((t - 2.228138852).abs() < 1e-6);
/// ```
pub fn t_critical_95(df: u64) -> f64 {
    // statrs inverts the incomplete beta function, which drifts (error ~1e-5 at df = 1e5) and
    // then stops converging as df grows; beyond this point the series below is better.
    const SERIES_FROM_DF: u64 = 1000;
    if df == 0 {
        return f64::INFINITY;
    }
    if df > SERIES_FROM_DF {
        return t_975_series(df as f64);
    }
    // Worked out once per df: a sweep's every point and metric asks for the same few, and
    // each inversion was a tenth of a 1,600-point sweep's run. Threads that race write the
    // same bits; 0 (no value is +0.0) says not yet.
    static KNOWN: [AtomicU64; SERIES_FROM_DF as usize + 1] =
        [const { AtomicU64::new(0) }; SERIES_FROM_DF as usize + 1];
    let slot = &KNOWN[df as usize];
    match slot.load(Ordering::Relaxed) {
        0 => {
            let t = StudentsT::new(0.0, 1.0, df as f64)
                .expect("location 0, scale 1 and df >= 1 are valid Student's t parameters")
                .inverse_cdf(0.975);
            slot.store(t.to_bits(), Ordering::Relaxed);
            t
        }
        bits => f64::from_bits(bits),
    }
}

/// Φ⁻¹(0.975): the two-sided 95% point of the normal distribution.
pub const Z_975: f64 = 1.959_963_984_540_054;

/// Cornish–Fisher expansion of the t quantile around the normal one (Abramowitz & Stegun
/// 26.7.5). The first omitted term is below 1e-15 for df > 1000 and shrinks as df^-5.
fn t_975_series(df: f64) -> f64 {
    const Z: f64 = Z_975;
    let z2 = Z * Z;
    let g1 = Z * (z2 + 1.0) / 4.0;
    let g2 = Z * ((5.0 * z2 + 16.0) * z2 + 3.0) / 96.0;
    let g3 = Z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / 384.0;
    let g4 = Z * ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) / 92160.0;
    Z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df
}

/// The mean of `sums`; see [`mean_of`].
pub(crate) fn exact_mean(sums: &Sums) -> f64 {
    mean_of(sums.sum, sums.n)
}

/// `sum / n` from exact integer sums. Below 2^53 both are exact doubles and one division
/// rounds correctly, so the shortest text of the mean is the decimal one (`-0.166505`, not
/// `-0.16650500000000001`); beyond, the integer quotient and remainder keep the integer part
/// exact. `n` must be nonzero.
pub fn mean_of(sum: i128, n: u128) -> f64 {
    const EXACT: u128 = 1 << f64::MANTISSA_DIGITS;
    if sum.unsigned_abs() < EXACT && n < EXACT {
        return sum as f64 / n as f64;
    }
    let n = n as i128;
    let (whole, rest) = (sum / n, sum % n);
    whole as f64 + rest as f64 / n as f64
}

/// Unbiased variance `(n·Σv² − (Σv)²) / (n(n−1))`; 0 when `n < 2`.
///
/// The numerator is formed in 256 bits because `n·Σv²` can pass `u128::MAX` (for instance
/// 1e13 trials of values around 1e7) even though each sum fits.
pub(crate) fn exact_variance(sums: &Sums) -> f64 {
    if sums.n < 2 {
        return 0.0;
    }
    let square_of_sum = mul_wide(sums.sum.unsigned_abs(), sums.sum.unsigned_abs());
    let numerator = sub_wide(mul_wide(sums.n, sums.sum_sq), square_of_sum);
    let denominator = sums.n * (sums.n - 1);
    wide_to_f64(numerator) / denominator as f64
}

/// A 256-bit unsigned integer as `(high, low)` 128-bit halves.
type Wide = (u128, u128);

fn mul_wide(a: u128, b: u128) -> Wide {
    const LOW: u128 = u64::MAX as u128;
    let (a_hi, a_lo) = (a >> 64, a & LOW);
    let (b_hi, b_lo) = (b >> 64, b & LOW);
    let lo_lo = a_lo * b_lo;
    let hi_lo = a_hi * b_lo;
    let lo_hi = a_lo * b_hi;
    let hi_hi = a_hi * b_hi;
    // Middle column: three terms below 2^64 each, so no overflow.
    let middle = (lo_lo >> 64) + (hi_lo & LOW) + (lo_hi & LOW);
    let low = (middle << 64) | (lo_lo & LOW);
    let high = hi_hi + (hi_lo >> 64) + (lo_hi >> 64) + (middle >> 64);
    (high, low)
}

/// `a - b` for `a >= b` (Cauchy–Schwarz guarantees `n·Σv² >= (Σv)²`).
fn sub_wide(a: Wide, b: Wide) -> Wide {
    let (low, borrow) = a.1.overflowing_sub(b.1);
    (a.0 - b.0 - u128::from(borrow), low)
}

fn wide_to_f64((high, low): Wide) -> f64 {
    high as f64 * 2f64.powi(128) + low as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::histogram::tests::SplitMix;

    fn from_values(values: &[i64]) -> Histogram {
        let mut h = Histogram::new();
        for &v in values {
            h.add(v);
        }
        h
    }

    fn close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "{actual} differs from {expected} by more than {tolerance}"
        );
    }

    #[test]
    fn empty_histogram_has_no_summary() {
        assert_eq!(Summary::from_histogram(&Histogram::new()), None);
        assert!(distribution(&Histogram::new()).is_empty());
    }

    #[test]
    fn moments_by_hand() {
        // Values 1,2,2,3,7: mean 15/5 = 3; squared deviations 4,1,1,0,16 sum to 22; 22/4 = 5.5.
        let s = Summary::from_histogram(&from_values(&[1, 2, 2, 3, 7])).unwrap();
        assert_eq!(s.trials, 5);
        assert_eq!(s.mean, 3.0);
        assert_eq!(s.variance, 5.5);
        assert_eq!(s.std_dev, 5.5f64.sqrt());
        assert_eq!(s.std_error, 5.5f64.sqrt() / 5f64.sqrt());
        assert_eq!((s.min, s.max), (1, 7));
        // t_{0.975,4} = 2.776445105 (published table); half-width = 2.776445105 · sqrt(1.1).
        let half = 2.776_445_105 * 1.1f64.sqrt();
        close(s.ci95_low, 3.0 - half, 1e-8);
        close(s.ci95_high, 3.0 + half, 1e-8);
    }

    #[test]
    fn moments_of_negative_values() {
        // Values -5,-1,-1,-1: mean -8/4 = -2; deviations² 9,1,1,1 = 12; 12/3 = 4.
        let s = Summary::from_histogram(&from_values(&[-5, -1, -1, -1])).unwrap();
        assert_eq!(s.mean, -2.0);
        assert_eq!(s.variance, 4.0);
        assert_eq!(s.std_dev, 2.0);
        assert_eq!(s.std_error, 1.0);
        assert_eq!((s.min, s.max), (-5, -1));
        // Mean -7/4 exercises the remainder branch of the exact mean with a negative sum.
        let s = Summary::from_histogram(&from_values(&[-5, -1, -1, 0])).unwrap();
        assert_eq!(s.mean, -1.75);
    }

    #[test]
    fn single_trial_has_zero_spread() {
        let s = Summary::from_histogram(&from_values(&[-4])).unwrap();
        assert_eq!(s.trials, 1);
        assert_eq!(s.mean, -4.0);
        assert_eq!((s.variance, s.std_dev, s.std_error), (0.0, 0.0, 0.0));
        assert_eq!((s.ci95_low, s.ci95_high), (-4.0, -4.0));
    }

    #[test]
    fn constant_sample_has_zero_variance() {
        let mut h = Histogram::new();
        h.add_count(6, 1000);
        let s = Summary::from_histogram(&h).unwrap();
        assert_eq!(
            (s.mean, s.variance, s.ci95_low, s.ci95_high),
            (6.0, 0.0, 6.0, 6.0)
        );
    }

    #[test]
    fn summaries_of_merged_parts_are_bit_identical() {
        let mut rng = SplitMix(0x5EED_0002);
        for _ in 0..30 {
            let len = 1 + rng.below(500) as usize;
            let values: Vec<i64> = (0..len).map(|_| rng.below(2001) as i64 - 1000).collect();
            let whole = Summary::from_histogram(&from_values(&values)).unwrap();
            let mut merged = Histogram::new();
            let mut start = 0;
            while start < len {
                let end = (start + 1 + rng.below(64) as usize).min(len);
                merged.merge(&from_values(&values[start..end]));
                start = end;
            }
            let parts = Summary::from_histogram(&merged).unwrap();
            let bits = |s: &Summary| {
                [
                    s.mean,
                    s.variance,
                    s.std_dev,
                    s.std_error,
                    s.ci95_low,
                    s.ci95_high,
                ]
                .map(f64::to_bits)
            };
            assert_eq!(bits(&parts), bits(&whole));
            assert_eq!(parts, whole);
        }
    }

    #[test]
    fn huge_counts_and_values_keep_exact_moments() {
        // 1e12 trials at +1e6 and 1e12 at −1e6: mean 0, variance = 2e24 / (2e12 − 1).
        let mut h = Histogram::new();
        h.add_count(1_000_000, 1_000_000_000_000);
        h.add_count(-1_000_000, 1_000_000_000_000);
        let s = Summary::from_histogram(&h).unwrap();
        assert_eq!(s.trials, 2_000_000_000_000);
        assert_eq!(s.mean, 0.0);
        close(s.variance, 2e24 / (2e12 - 1.0), 1e-3);
        close(s.std_dev, 1e6, 1e-3);

        // n·Σv² = 1e13 · 1e13·1e14 = 1e40 > u128::MAX: needs the 256-bit numerator.
        // Values 1e7 ± 1 in equal numbers: mean 1e7, variance n/(n − 1) (deviations all 1).
        let mut h = Histogram::new();
        h.add_count(10_000_001, 5_000_000_000_000);
        h.add_count(9_999_999, 5_000_000_000_000);
        let s = Summary::from_histogram(&h).unwrap();
        assert_eq!(s.mean, 1e7);
        close(s.variance, 1e13 / (1e13 - 1.0), 1e-9);
    }

    #[test]
    fn wide_arithmetic() {
        assert_eq!(mul_wide(u128::MAX, u128::MAX), (u128::MAX - 1, 1));
        assert_eq!(mul_wide(1 << 100, 1 << 100), (1 << 72, 0));
        assert_eq!(mul_wide(12345, 678), (0, 12345 * 678));
        assert_eq!(sub_wide((1, 0), (0, 1)), (0, u128::MAX));
        assert_eq!(wide_to_f64((1, 0)), 2f64.powi(128));
    }

    #[test]
    fn distribution_by_hand() {
        // Values 1,2,2,3,7 (n = 5): P = 1/5, 2/5, 1/5, 1/5; P(X >= v) = 5/5, 4/5, 2/5, 1/5.
        let rows = distribution(&from_values(&[1, 2, 2, 3, 7]));
        let got: Vec<(i64, u64, f64, f64)> = rows
            .iter()
            .map(|r| (r.value, r.count, r.probability, r.at_least))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, 1, 0.2, 1.0),
                (2, 2, 0.4, 0.8),
                (3, 1, 0.2, 0.4),
                (7, 1, 0.2, 0.2),
            ]
        );
    }

    #[test]
    fn t_critical_matches_published_tables() {
        close(t_critical_95(1), 12.706_204_736, 1e-6);
        close(t_critical_95(4), 2.776_445_105, 1e-6);
        close(t_critical_95(10), 2.228_138_852, 1e-6);
        close(t_critical_95(30), 2.042_272_456, 1e-6);
        close(t_critical_95(1_000_000_000), 1.959_963_985, 1e-6);
        // Either side of the switch to the series, against mpmath (40 digits):
        close(t_critical_95(1000), 1.962_339_080_826_408_5, 1e-12);
        close(t_critical_95(1001), t_975_series(1001.0), 1e-14);
        close(t_975_series(1000.0), 1.962_339_080_826_408_5, 1e-14);
        close(t_critical_95(100_000), 1.959_987_707_534_609_6, 1e-14);
        close(t_critical_95(u64::MAX), 1.959_963_984_540_054, 1e-15);
        assert_eq!(t_critical_95(0), f64::INFINITY);
        // Asked again, from the values kept: the same bits as worked out afresh.
        for df in [1, 4, 10, 30, 199, 1000] {
            let fresh = StudentsT::new(0.0, 1.0, df as f64)
                .unwrap()
                .inverse_cdf(0.975);
            assert_eq!(t_critical_95(df).to_bits(), fresh.to_bits(), "df {df}");
            assert_eq!(
                t_critical_95(df).to_bits(),
                fresh.to_bits(),
                "df {df}, kept"
            );
        }
    }

    #[test]
    fn a_mean_that_is_a_short_decimal_prints_as_one() {
        // 33,301 trials of -1 among 200,000: the mean is -0.166505 exactly, whose nearest
        // double prints as "-0.166505"; adding the floor -1 and the fraction 0.833495 did not.
        let mut h = Histogram::new();
        h.add_count(-1, 33_301);
        h.add_count(0, 200_000 - 33_301);
        let mean = Summary::from_histogram(&h).unwrap().mean;
        assert_eq!(mean.to_string(), "-0.166505");
    }
}
