//! A's per-trial margin (`A.score - B.score`) in every arm of an enumerating game, as exact
//! integer sums, and intervals on weighted averages of the arms' mean margins.
//!
//! All arms play the same trials (common random numbers), so the arms' margins are correlated
//! and an average over arms (an ordering's average row, an equilibrium's value) needs their
//! covariance, not only each arm's variance. The engine gathers, besides each metric's
//! histogram, the histogram of the per-trial difference of chosen metric pairs
//! ([`pairs`]): with `X` and `Y` any two score metrics,
//! `Σ X·Y = (Σ X² + Σ Y² - Σ (X - Y)²) / 2` exactly, so the sums of products of every arm's
//! margin with every other's come out as integers, and merge across chunks, threads and shards
//! like everything else. That needs every pair of the `2K` score metrics of `K` arms; beyond
//! [`MAX_COVARIANCE_ARMS`] arms only each arm's own margin is gathered (pair intervals, no
//! interval on averages).
//!
//! An interval on `Σ w_k · mean margin_k` is the Student t interval of the per-trial quantity
//! `Σ w_k · margin_k`, whose mean and variance follow from those sums.

use crate::output::{Comparison, VariantReport};
use crate::stats::histogram::Sums;
use crate::stats::summary::{exact_variance, mean_of};

use crate::stats::t_critical_95;

/// Arms up to which the covariance of every pair of arms is gathered (2K² - K difference
/// histograms for K arms).
pub const MAX_COVARIANCE_ARMS: usize = 256;

/// The metric pairs whose per-trial differences the engine gathers, given each arm's
/// `(A.score, B.score)` metric indices, in arm order. Up to [`MAX_COVARIANCE_ARMS`] arms:
/// every pair `(i, j)`, `i < j`, of the list `A_0, B_0, A_1, B_1, ...`; beyond, `(A_k, B_k)`.
pub fn pairs(scores: &[(usize, usize)]) -> Vec<(usize, usize)> {
    if scores.len() > MAX_COVARIANCE_ARMS {
        return scores.to_vec();
    }
    let flat: Vec<usize> = scores.iter().flat_map(|&(a, b)| [a, b]).collect();
    let mut out = Vec::with_capacity(flat.len() * flat.len().saturating_sub(1) / 2);
    for i in 0..flat.len() {
        for j in i + 1..flat.len() {
            out.push((flat[i], flat[j]));
        }
    }
    out
}

/// The margins of one sweep point's arms.
#[derive(Debug, Clone, PartialEq)]
pub struct Margins {
    /// Trials (the same for every arm).
    pub trials: u64,
    /// `Σ_t margin_k(t)` per arm.
    sums: Vec<i128>,
    /// `Σ_t margin_k(t) · margin_l(t)`, row-major `K × K`; `None` off the diagonal when only
    /// each arm's own margin was gathered.
    products: Vec<Option<i128>>,
}

impl Margins {
    /// Reads the margins of `arms` (each arm's `(A.score, B.score)` metric indices into
    /// `v.metrics`) from the variant's histograms and comparisons; `None` unless the arms all
    /// played the same number of trials. Without the comparisons [`pairs`] lays out (a report
    /// made otherwise), only the means are known.
    pub fn read(v: &VariantReport, arms: &[(usize, usize)]) -> Option<Margins> {
        let metric = |i: usize| v.metrics.get(i).map(|m| m.histogram.sums());
        let trials = v.metrics.get(arms.first()?.0)?.histogram.total();
        let k = arms.len();
        let mut sums = Vec::with_capacity(k);
        let mut squares = Vec::with_capacity(2 * k);
        for &(a, b) in arms {
            let (sa, sb) = (metric(a)?, metric(b)?);
            if sa.n != u128::from(trials) || sb.n != u128::from(trials) {
                return None;
            }
            sums.push(sa.sum - sb.sum);
            squares.extend([sa.sum_sq as i128, sb.sum_sq as i128]);
        }
        let expected = pairs(arms);
        // The point's own pairs come first; a sweep point's comparisons with the first point
        // follow them.
        let own = v.comparisons.get(..expected.len()).unwrap_or(&[]);
        let gathered = own.len() == expected.len()
            && own
                .iter()
                .zip(&expected)
                .all(|(c, &(i, j))| names_pair(v, c, i, j));
        let mut products = vec![None; k * k];
        if gathered && k <= MAX_COVARIANCE_ARMS {
            // Σ X_i X_j over the flat list A_0, B_0, A_1, B_1, ...
            let n = 2 * k;
            let mut cross = vec![0i128; n * n];
            for i in 0..n {
                cross[i * n + i] = squares[i];
            }
            for (c, &(i, j)) in own.iter().zip(&position_pairs(n)) {
                let d = c.differences.sums().sum_sq as i128;
                let p = (squares[i] + squares[j] - d) / 2;
                cross[i * n + j] = p;
                cross[j * n + i] = p;
            }
            for x in 0..k {
                for y in 0..k {
                    let at = |p: usize, q: usize| cross[(2 * x + p) * n + 2 * y + q];
                    products[x * k + y] = Some(at(0, 0) - at(0, 1) - at(1, 0) + at(1, 1));
                }
            }
        } else if gathered {
            for (x, c) in own.iter().enumerate() {
                products[x * k + x] = Some(c.differences.sums().sum_sq as i128);
            }
        }
        Some(Margins {
            trials,
            sums,
            products,
        })
    }

    pub fn arms(&self) -> usize {
        self.sums.len()
    }

    /// The equally weighted average of the arms' mean margins, exact up to one rounding, with
    /// its 95% interval when the covariances it needs were gathered.
    pub fn average(&self, arms: &[usize]) -> (f64, Option<(f64, f64)>) {
        let count = arms.len().max(1) as u128;
        let sum: i128 = arms.iter().map(|&k| self.sums[k]).sum();
        let n = u128::from(self.trials);
        let mean = mean_of(sum, n * count);
        let sum_sq = arms
            .iter()
            .flat_map(|&x| arms.iter().map(move |&y| (x, y)))
            .map(|(x, y)| self.product(x, y))
            .sum::<Option<i128>>();
        let interval = sum_sq.and_then(|sum_sq| {
            let variance = exact_variance(&Sums {
                n,
                sum,
                sum_sq: u128::try_from(sum_sq).ok()?,
            });
            let scale = count as f64;
            self.interval(mean, variance / (scale * scale))
        });
        (mean, interval)
    }

    /// The mean of `Σ w_k · margin_k` and its 95% interval, when the covariances it needs were
    /// gathered. The variance is `Σ w_x w_y · cov(x, y)` over exact integer co-moments, so arms
    /// that never vary give an interval of no width.
    /// Arm `arm`'s margin summed over the trials: the exact numerator of its mean.
    pub fn sum(&self, arm: usize) -> i128 {
        self.sums[arm]
    }

    pub fn weighted(&self, weights: &[f64]) -> (f64, Option<(f64, f64)>) {
        let n = self.trials as f64;
        let mean: f64 = weights
            .iter()
            .zip(&self.sums)
            .map(|(&w, &s)| w * (s as f64 / n))
            .sum();
        let used: Vec<usize> = (0..weights.len()).filter(|&k| weights[k] != 0.0).collect();
        let mut co_moments = Some(0.0);
        for &x in &used {
            for &y in &used {
                co_moments = co_moments.and_then(|acc: f64| {
                    Some(acc + weights[x] * weights[y] * self.co_moment(x, y)?)
                });
            }
        }
        let interval = co_moments.and_then(|c| {
            if self.trials < 2 {
                return None;
            }
            let variance = (c / (n * (n - 1.0))).max(0.0);
            self.interval(mean, variance)
        });
        (mean, interval)
    }

    /// `n · Σ x·y - Σ x · Σ y` of arms `x` and `y` (n(n - 1) times their covariance): exact in
    /// integers while it fits, so it is exactly 0 for an arm that never varies.
    fn co_moment(&self, x: usize, y: usize) -> Option<f64> {
        let product = self.product(x, y)?;
        let n = i128::from(self.trials);
        let (sx, sy) = (self.sums[x], self.sums[y]);
        let exact = n
            .checked_mul(product)
            .and_then(|np| np.checked_sub(sx.checked_mul(sy)?));
        Some(match exact {
            Some(c) => c as f64,
            None => n as f64 * product as f64 - sx as f64 * sy as f64,
        })
    }

    fn product(&self, x: usize, y: usize) -> Option<i128> {
        self.products[x * self.arms() + y]
    }

    /// `mean ± t · sqrt(variance / n)` for a per-trial variance.
    fn interval(&self, mean: f64, variance: f64) -> Option<(f64, f64)> {
        if self.trials < 2 {
            return None;
        }
        let half = t_critical_95(self.trials - 1) * (variance / self.trials as f64).sqrt();
        Some((mean - half, mean + half))
    }
}

/// Positions `(i, j)`, `i < j`, in a flat list of `n`, in [`pairs`] order.
fn position_pairs(n: usize) -> Vec<(usize, usize)> {
    (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect()
}

/// Whether comparison `c` is the difference of metrics `i` and `j` as the app labels it.
fn names_pair(v: &VariantReport, c: &Comparison, i: usize, j: usize) -> bool {
    match (v.metrics.get(i), v.metrics.get(j)) {
        (Some(first), Some(second)) => {
            c.metric == first.metric && c.first == first.choice && c.second == second.choice
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::MetricReport;
    use crate::stats::Histogram;

    fn hist(values: &[i64]) -> Histogram {
        let mut h = Histogram::new();
        values.iter().for_each(|&x| h.add(x));
        h
    }

    /// A variant of two arms whose per-trial scores are given, with the pairs gathered as
    /// the engine would.
    fn variant(scores: &[[&[i64]; 2]]) -> (VariantReport, Vec<(usize, usize)>) {
        let mut metrics = Vec::new();
        let mut arms = Vec::new();
        for (k, [a, b]) in scores.iter().enumerate() {
            arms.push((metrics.len(), metrics.len() + 1));
            for (name, values) in [("A.score", a), ("B.score", b)] {
                metrics.push(MetricReport {
                    choice: format!("arm{k}"),
                    metric: name.into(),
                    histogram: hist(values),
                    round: None,
                });
            }
        }
        // Metric i is side i % 2 of arm i / 2.
        let value = |i: usize, t: usize| scores[i / 2][i % 2][t];
        let n = scores[0][0].len();
        let comparisons = pairs(&arms)
            .into_iter()
            .map(|(i, j)| Comparison {
                metric: metrics[i].metric.clone(),
                first: metrics[i].choice.clone(),
                second: metrics[j].choice.clone(),
                differences: hist(
                    &(0..n)
                        .map(|t| value(i, t) - value(j, t))
                        .collect::<Vec<_>>(),
                ),
            })
            .collect();
        (
            VariantReport {
                params: vec![],
                metrics,
                comparisons,
            },
            arms,
        )
    }

    #[test]
    fn pairs_cover_every_score_metric_pair_or_each_arm() {
        assert_eq!(
            pairs(&[(0, 1), (5, 6)]),
            [(0, 1), (0, 5), (0, 6), (1, 5), (1, 6), (5, 6)]
        );
        let many: Vec<(usize, usize)> = (0..=MAX_COVARIANCE_ARMS)
            .map(|k| (2 * k, 2 * k + 1))
            .collect();
        assert_eq!(pairs(&many), many);
    }

    #[test]
    fn sums_of_products_by_hand() {
        // Three trials. Arm 0: A 3,1,2 B 0,1,1 -> margin 3,0,1. Arm 1: A 1,1,4 B 1,0,0 ->
        // margin 0,1,4.
        let (v, arms) = variant(&[[&[3, 1, 2], &[0, 1, 1]], [&[1, 1, 4], &[1, 0, 0]]]);
        let m = Margins::read(&v, &arms).unwrap();
        assert_eq!(m.trials, 3);
        assert_eq!(m.sums, [4, 5]);
        // Σ m0² = 9 + 0 + 1 = 10; Σ m0 m1 = 0 + 0 + 4 = 4; Σ m1² = 0 + 1 + 16 = 17.
        assert_eq!(m.products, [Some(10), Some(4), Some(4), Some(17)]);
        // Average of both arms: per-trial 3/2, 1/2, 5/2: mean 3/2, variance
        // ((0)² + (-1)² + (1)²) / 2 = 1; t(2) = 4.302652730.
        let (mean, ci) = m.average(&[0, 1]);
        assert_eq!(mean, 1.5);
        let (lo, hi) = ci.unwrap();
        let half = 4.302_652_730 * (1.0f64 / 3.0).sqrt();
        assert!((lo - (1.5 - half)).abs() < 1e-8 && (hi - (1.5 + half)).abs() < 1e-8);
        // The same through float weights.
        let (wmean, wci) = m.weighted(&[0.5, 0.5]);
        assert!((wmean - 1.5).abs() < 1e-12);
        let (wlo, whi) = wci.unwrap();
        assert!((wlo - lo).abs() < 1e-9 && (whi - hi).abs() < 1e-9);
    }

    #[test]
    fn without_the_pairs_only_means_are_known() {
        let (mut v, arms) = variant(&[[&[3, 1], &[0, 1]], [&[1, 1], &[1, 0]]]);
        v.comparisons.clear();
        let m = Margins::read(&v, &arms).unwrap();
        assert_eq!(m.average(&[0, 1]), (1.0, None));
        assert_eq!(m.weighted(&[1.0, 0.0]).1, None);
    }
}
