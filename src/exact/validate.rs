//! Checks a Monte Carlo report against the exact one: per metric (and choice, sweep point) the
//! z-score of the simulated mean and a chi-square goodness of fit of the simulated
//! distribution (cells pooled to at least 5 expected trials, [`crate::stats::chi_square`]).

use crate::output::{ExactReport, Report, ValidationRow};
use crate::stats::{chi_square, z_score, Summary};

/// A metric fails when its chi-square p-value is below this...
pub const MIN_P_VALUE: f64 = 1e-6;
/// ...or its mean is more than this many standard errors from the exact mean.
///
/// Both bars are set for a whole validated run rather than one metric: every shipped scenario
/// together validates about a thousand metrics, so per metric a false alarm must be far rarer
/// than one in a thousand (|z| > 6 has two-sided probability 2e-9, so about 2e-6 over a
/// thousand metrics; the chi-square bar gives about 1e-3). A real bias still fails: one
/// percentage point on each of five Resolve tests moves the mean restored by 0.05 against a
/// standard error of sqrt(5 / 4 / 10^6) = 0.0011 at 1e6 trials, |z| about 45
/// (tests/integration/exact.rs).
pub const MAX_Z: f64 = 6.0;

/// One row per metric present in both reports, in the simulated report's order.
pub fn compare(exact: &ExactReport, sampled: &Report) -> Vec<ValidationRow> {
    let mut rows = Vec::new();
    for (e, s) in exact.variants.iter().zip(&sampled.variants) {
        for m in s.metrics.iter().filter(|m| m.round.is_none()) {
            let Some(x) = e
                .metrics
                .iter()
                .find(|x| x.choice == m.choice && x.metric == m.metric)
            else {
                continue;
            };
            let Some(summary) = Summary::from_histogram(&m.histogram) else {
                continue;
            };
            let exact_mean = crate::stats::pmf::moments(&x.pmf).map_or(f64::NAN, |mo| mo.mean);
            let z = z_score(&m.histogram, &x.pmf);
            let fit = chi_square(&m.histogram, &x.pmf);
            rows.push(ValidationRow {
                params: s.params.clone(),
                choice: m.choice.clone(),
                metric: m.metric.clone(),
                exact_mean,
                mc_mean: summary.mean,
                z,
                chi_square: fit.statistic,
                degrees_of_freedom: fit.degrees_of_freedom,
                p_value: fit.p_value,
                pass: fit.p_value >= MIN_P_VALUE && z.abs() <= MAX_Z,
            });
        }
    }
    rows
}
