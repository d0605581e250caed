//! Comparisons of a Monte Carlo histogram with an exact distribution (from `exact`).
//!
//! These are the statistical tests of the sampler: chi-square for the shape of the whole
//! distribution, a z-score for the mean alone.

use statrs::distribution::{ChiSquared, ContinuousCDF};

use super::histogram::Histogram;
use super::summary::exact_mean;

/// Smallest expected count per pooled cell for the chi-square approximation to hold.
const MIN_EXPECTED: f64 = 5.0;

/// Result of a chi-square goodness-of-fit test.
#[derive(Clone, Debug, PartialEq)]
pub struct GoodnessOfFit {
    /// Pearson's statistic `Σ (O − E)² / E` over pooled cells; infinite when a value with zero
    /// probability was observed.
    pub statistic: f64,
    /// Pooled cells − 1 (no parameter is estimated from the data).
    pub degrees_of_freedom: u64,
    /// `P(χ² >= statistic)`; 1 when there is a single cell, 0 for an impossible observation.
    pub p_value: f64,
    /// Number of pooled cells.
    pub cells: usize,
}

/// Chi-square goodness of fit of `observed` against the exact `pmf` (`value -> probability`).
///
/// The pmf may come in any order and repeat values (their probabilities add up). Adjacent
/// values, in ascending order, are pooled until each cell expects at least 5 trials; a final
/// cell that falls short is merged into the one before it. An observed value with zero (or no)
/// probability is a certain misfit: the statistic is infinite and the p-value 0.
///
/// ```
/// use rollcall::stats::{chi_square, Histogram};
/// let mut h = Histogram::new();
/// h.add_count(0, 50);
/// h.add_count(1, 50);
/// let fit = chi_square(&h, &[(0, 0.5), (1, 0.5)]);
/// assert_eq!((fit.statistic, fit.p_value, fit.degrees_of_freedom), (0.0, 1.0, 1));
/// ```
pub fn chi_square(observed: &Histogram, pmf: &[(i64, f64)]) -> GoodnessOfFit {
    let pmf = support(pmf);
    let n = observed.total() as f64;
    let impossible = observed
        .iter()
        .any(|(value, _)| pmf.binary_search_by_key(&value, |&(v, _)| v).is_err());

    // Each pooled cell as (observed count, expected count).
    let mut cells: Vec<(u64, f64)> = Vec::new();
    let mut open: Option<(u64, f64)> = None;
    for &(value, p) in &pmf {
        let cell = open.get_or_insert((0, 0.0));
        cell.0 += observed.count(value);
        cell.1 += n * p;
        if cell.1 >= MIN_EXPECTED {
            cells.extend(open.take());
        }
    }
    if let Some((o, e)) = open {
        match cells.last_mut() {
            Some(last) => {
                last.0 += o;
                last.1 += e;
            }
            None => cells.push((o, e)),
        }
    }

    let degrees_of_freedom = cells.len().saturating_sub(1) as u64;
    let (statistic, p_value) = if impossible {
        (f64::INFINITY, 0.0)
    } else if degrees_of_freedom == 0 {
        // With one cell the observed total always equals the expected one: nothing to test.
        (0.0, 1.0)
    } else {
        let statistic: f64 = cells
            .iter()
            .map(|&(o, e)| {
                let d = o as f64 - e;
                d * d / e
            })
            .sum();
        let p_value = ChiSquared::new(degrees_of_freedom as f64)
            .expect("degrees of freedom >= 1 are valid")
            .sf(statistic);
        (statistic, p_value)
    };
    GoodnessOfFit {
        statistic,
        degrees_of_freedom,
        p_value,
        cells: cells.len(),
    }
}

/// z-score of the Monte Carlo mean against the exact mean of `pmf`:
/// `(mc_mean − exact_mean) / sqrt(exact_variance / n)`.
///
/// The standard error uses the exact variance, not the sample one, so the score measures
/// sampling error under the hypothesis being tested. When the exact variance is zero any
/// deviation is a certain misfit: the score is ±infinity if the means differ, +infinity if the
/// means agree but the sample still varies, and 0 only when the sample is that single value.
/// An empty histogram has no mean and gives NaN.
///
/// ```
/// use rollcall::stats::{z_score, Histogram};
/// let mut h = Histogram::new();
/// h.add_count(1, 60);
/// h.add_count(0, 40);
/// // Exact mean 0.5, variance 0.25: (0.6 − 0.5) / sqrt(0.25 / 100) = 2.
/// assert!((z_score(&h, &[(0, 0.5), (1, 0.5)]) - 2.0).abs() < 1e-12);
/// ```
pub fn z_score(observed: &Histogram, pmf: &[(i64, f64)]) -> f64 {
    let sums = observed.sums();
    if sums.n == 0 {
        return f64::NAN;
    }
    let pmf = support(pmf);
    let exact = pmf.iter().map(|&(v, p)| v as f64 * p).sum::<f64>();
    // Central form, not E[X²] − E[X]², to avoid cancellation when the mean is large.
    let exact_variance = pmf
        .iter()
        .map(|&(v, p)| {
            let d = v as f64 - exact;
            d * d * p
        })
        .sum::<f64>();
    let difference = exact_mean(&sums) - exact;
    let std_error = (exact_variance / sums.n as f64).sqrt();
    if std_error > 0.0 {
        difference / std_error
    } else if difference != 0.0 {
        f64::INFINITY.copysign(difference)
    } else if observed.min() == observed.max() {
        0.0
    } else {
        f64::INFINITY
    }
}

/// The pmf sorted by value with repeated values combined and zero-probability values dropped,
/// so pooling walks values in order and a lookup tells whether a value is possible.
fn support(pmf: &[(i64, f64)]) -> Vec<(i64, f64)> {
    let mut sorted: Vec<(i64, f64)> = pmf.iter().copied().filter(|&(_, p)| p > 0.0).collect();
    sorted.sort_by_key(|&(v, _)| v);
    let mut combined: Vec<(i64, f64)> = Vec::with_capacity(sorted.len());
    for (v, p) in sorted {
        match combined.last_mut() {
            Some(last) if last.0 == v => last.1 += p,
            _ => combined.push((v, p)),
        }
    }
    combined
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "{actual} differs from {expected} by more than {tolerance}"
        );
    }

    fn die() -> Vec<(i64, f64)> {
        (1..=6).map(|v| (v, 1.0 / 6.0)).collect()
    }

    fn from_counts(cells: &[(i64, u64)]) -> Histogram {
        let mut h = Histogram::new();
        for &(v, c) in cells {
            h.add_count(v, c);
        }
        h
    }

    #[test]
    fn perfect_fit_has_zero_statistic_and_unit_p_value() {
        // 2d6 over 36 · 10 trials: counts exactly n·p = 10 · (1,2,3,4,5,6,5,4,3,2,1).
        let ways = [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1];
        let pmf: Vec<(i64, f64)> = (2..=12)
            .zip(ways)
            .map(|(v, w)| (v, w as f64 / 36.0))
            .collect();
        let h = from_counts(&(2..=12).zip(ways.map(|w| 10 * w)).collect::<Vec<_>>());
        let fit = chi_square(&h, &pmf);
        // Expected 10/36·360 = 10 for value 2 already reaches 5, so no pooling: 11 cells.
        assert_eq!(fit.cells, 11);
        assert_eq!(fit.degrees_of_freedom, 10);
        close(fit.statistic, 0.0, 1e-12);
        close(fit.p_value, 1.0, 1e-12);
    }

    #[test]
    fn fair_die_hand_case() {
        // 60 rolls, expected 10 each: (25 + 4 + 1 + 4 + 0 + 100) / 10 = 13.4, df 5.
        // Q(13.4; 5) = erfc(√x/√2) + 2φ(√x)(√x + x^{3/2}/3) = 0.0199052203347743782 (mpmath).
        let h = from_counts(&[(1, 5), (2, 8), (3, 9), (4, 8), (5, 10), (6, 20)]);
        let fit = chi_square(&h, &die());
        assert_eq!(fit.cells, 6);
        assert_eq!(fit.degrees_of_freedom, 5);
        close(fit.statistic, 13.4, 1e-12);
        close(fit.p_value, 0.019_905_220_334_774, 1e-12);
    }

    #[test]
    fn pmf_order_and_repeats_do_not_matter() {
        let h = from_counts(&[(1, 5), (2, 8), (3, 9), (4, 8), (5, 10), (6, 20)]);
        let mut shuffled = die();
        shuffled.reverse();
        // Value 3 split into two entries that add up to 1/6.
        shuffled.retain(|&(v, _)| v != 3);
        shuffled.extend([(3, 1.0 / 12.0), (3, 1.0 / 12.0), (9, 0.0)]);
        let fit = chi_square(&h, &shuffled);
        assert_eq!(fit.cells, 6);
        close(fit.statistic, 13.4, 1e-12);
    }

    #[test]
    fn small_head_and_tail_cells_are_pooled() {
        // n = 100, expected 1, 3, 30, 41.5, 20, 3, 1.5. Pooling in value order:
        // {0,1,2} = 34, {3} = 41.5, {4} = 20, then {5,6} = 4.5 < 5 joins {4}: 24.5.
        let pmf = [
            (0, 0.01),
            (1, 0.03),
            (2, 0.3),
            (3, 0.415),
            (4, 0.2),
            (5, 0.03),
            (6, 0.015),
        ];
        let h = from_counts(&[(0, 2), (1, 2), (2, 31), (3, 40), (4, 18), (5, 5), (6, 2)]);
        let fit = chi_square(&h, &pmf);
        assert_eq!(fit.cells, 3);
        assert_eq!(fit.degrees_of_freedom, 2);
        // Observed pooled 35, 40, 25.
        let x = 1.0 / 34.0 + 1.5 * 1.5 / 41.5 + 0.5 * 0.5 / 24.5;
        close(fit.statistic, x, 1e-12);
        // Closed form for df 2: Q(x; 2) = e^{-x/2}.
        close(fit.p_value, (-x / 2.0).exp(), 1e-12);
    }

    #[test]
    fn short_final_cell_merges_into_previous() {
        // n = 100, expected 6, 90, 4: {0} = 6, {1} = 90, then {2} = 4 < 5 joins {1}: 2 cells.
        let pmf = [(0, 0.06), (1, 0.9), (2, 0.04)];
        let h = from_counts(&[(0, 7), (1, 89), (2, 4)]);
        let fit = chi_square(&h, &pmf);
        assert_eq!(fit.cells, 2);
        assert_eq!(fit.degrees_of_freedom, 1);
        // (7 − 6)²/6 + (93 − 94)²/94.
        close(fit.statistic, 1.0 / 6.0 + 1.0 / 94.0, 1e-12);
    }

    #[test]
    fn single_pooled_cell_has_no_degrees_of_freedom() {
        let h = from_counts(&[(1, 2), (2, 1)]);
        let fit = chi_square(&h, &die());
        assert_eq!(fit.cells, 1);
        assert_eq!(fit.degrees_of_freedom, 0);
        assert_eq!((fit.statistic, fit.p_value), (0.0, 1.0));
    }

    #[test]
    fn observed_impossible_value_is_a_certain_misfit() {
        let h = from_counts(&[(1, 10), (2, 10), (3, 10), (4, 10), (5, 10), (6, 9), (7, 1)]);
        let fit = chi_square(&h, &die());
        assert_eq!(fit.p_value, 0.0);
        assert_eq!(fit.statistic, f64::INFINITY);
        assert_eq!(fit.cells, 6);
        // An explicit zero probability counts as impossible too.
        let mut pmf = die();
        pmf.push((7, 0.0));
        assert_eq!(chi_square(&h, &pmf).p_value, 0.0);
        // A value between support points (0 has no entry here).
        let gap = from_counts(&[(-1, 50), (0, 1), (1, 50)]);
        assert_eq!(chi_square(&gap, &[(-1, 0.5), (1, 0.5)]).p_value, 0.0);
    }

    #[test]
    fn z_score_sign_and_magnitude() {
        // Fair die: exact mean 3.5, variance 35/12. 120 rolls with sum 450 → mean 3.75.
        // z = 0.25 / sqrt(35/12/120) = 0.25 / sqrt(35/1440) = 1.6035674514745464.
        let h = from_counts(&[(1, 20), (2, 15), (3, 15), (4, 20), (5, 25), (6, 25)]);
        assert_eq!(h.sums().sum, 450);
        close(z_score(&h, &die()), 1.603_567_451_474_546_4, 1e-12);
        // Mirrored sample (v → 7 − v) has mean 3.25: the same magnitude, negative.
        let mirrored = from_counts(&[(6, 20), (5, 15), (4, 15), (3, 20), (2, 25), (1, 25)]);
        close(z_score(&mirrored, &die()), -1.603_567_451_474_546_4, 1e-12);
    }

    #[test]
    fn z_score_with_zero_exact_variance() {
        let point = [(4, 1.0)];
        assert_eq!(z_score(&from_counts(&[(4, 9)]), &point), 0.0);
        assert_eq!(z_score(&from_counts(&[(5, 9)]), &point), f64::INFINITY);
        assert_eq!(z_score(&from_counts(&[(3, 9)]), &point), f64::NEG_INFINITY);
        // Same mean, but the sample varies where the exact law cannot.
        assert_eq!(
            z_score(&from_counts(&[(3, 1), (5, 1)]), &point),
            f64::INFINITY
        );
        assert!(z_score(&Histogram::new(), &point).is_nan());
    }
}
