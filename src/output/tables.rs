//! The CSV tables: `summary.csv`, `distribution.csv` and `compare.csv`.
//!
//! A [`Report`] holds what a Monte Carlo run found, an [`ExactReport`] what the exact engine
//! computed; both lay their metrics out through [`Tables`], so each table has one writer.
//! Floats are written with Rust's shortest round-trip formatting, so equal results give equal
//! bytes.

use crate::stats::pmf;
use crate::stats::{distribution, Histogram, Summary};

/// What a run found for one scenario file: one entry per sweep point.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Report {
    pub scenario: String,
    pub param_names: Vec<String>,
    pub variants: Vec<VariantReport>,
    /// A card game in which both players enumerate their orderings at every sweep point: its
    /// game of orderings is solved (`equilibrium.csv`) even where a player has one ordering.
    /// Kept in a shard's part (left out when false), so a merge writes what the run would.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub both_enumerate: bool,
    /// A roster run's profiles, for `matchups.csv` and `ratings.csv`; kept in a shard's part
    /// (left out when `None`), so a merge writes what the run would.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roster: Option<Roster>,
}

/// What a roster run plays: its profiles (in file order) and which metric says each slot won.
/// (`matchups.csv` and `ratings.csv` are laid out in `output::roster`.)
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Roster {
    pub budget: u64,
    pub profiles: Vec<Profile>,
    /// `<side>.won` of the first slot's side, and of the second's.
    pub first_won: String,
    pub second_won: String,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Profile {
    pub id: String,
    /// Points per model.
    pub points: u64,
    /// Models at the budget: `budget / points`, rounded down.
    pub models: u64,
    /// What the profile's fair-points search found; `None` before it ran (in a shard's part,
    /// for the profiles another shard searches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair: Option<Fair>,
}

/// What a profile's fair-points search found: the model count at which its score against
/// the field is 1/2, searched over 1 to `most` models with the rest of the field at the
/// budget.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fair {
    /// The most models searched.
    pub most: u64,
    /// The crossing: where the line through the scores of the two adjacent model counts that
    /// straddle 1/2 meets 1/2, with the 95% ends of the lines through their intervals (model
    /// counts, low to high); `None` when the score does not reach 1/2 over the counts played.
    pub crossing: Option<[f64; 3]>,
    /// The model count played whose score is nearest 1/2, and that score.
    pub closest: u64,
    pub closest_score: f64,
    /// False when a count the answer rests on was still undecided against 1/2 at the most
    /// trials, or when the score contradicted monotonicity at 95%.
    pub decided: bool,
    /// Trials played over all the counts searched; each plays every matchup of the profile
    /// against the field.
    pub trials: u64,
    /// Model counts played.
    pub counts: u64,
}

/// One sweep point's results.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VariantReport {
    /// The sweep parameters' values, in `Report::param_names` order.
    pub params: Vec<String>,
    pub metrics: Vec<MetricReport>,
    pub comparisons: Vec<Comparison>,
}

impl VariantReport {
    /// Whether `other` holds the same sweep point's metrics and comparisons, in the same
    /// order (whatever their counts): parts of one run, or a checkpoint of it, do.
    pub fn same_layout(&self, other: &VariantReport) -> bool {
        self.params == other.params
            && self.metrics.len() == other.metrics.len()
            && self.comparisons.len() == other.comparisons.len()
            && (self.metrics.iter().zip(&other.metrics))
                .all(|(x, y)| (&x.choice, &x.metric, x.round) == (&y.choice, &y.metric, y.round))
            && (self.comparisons.iter().zip(&other.comparisons))
                .all(|(x, y)| (&x.metric, &x.first, &x.second) == (&y.metric, &y.first, &y.second))
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MetricReport {
    /// The choice's id; empty for a scenario without choices.
    pub choice: String,
    pub metric: String,
    pub histogram: Histogram,
    /// Set on a record of the metric at the end of this round (`rounds.csv`), which no other
    /// table lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
}

/// Per-trial differences of one metric between two choices played on the same trials.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Comparison {
    pub metric: String,
    pub first: String,
    pub second: String,
    pub differences: Histogram,
}

/// What the exact engine computed for one scenario file: one entry per sweep point.
#[derive(Debug, Clone, PartialEq)]
pub struct ExactReport {
    pub scenario: String,
    pub param_names: Vec<String>,
    pub variants: Vec<ExactVariant>,
}

/// One sweep point's exact distributions.
#[derive(Debug, Clone, PartialEq)]
pub struct ExactVariant {
    pub params: Vec<String>,
    pub metrics: Vec<ExactMetric>,
}

/// One metric's exact pmf: `(value, probability)`, ascending by value.
#[derive(Debug, Clone, PartialEq)]
pub struct ExactMetric {
    pub choice: String,
    pub metric: String,
    pub pmf: Vec<(i64, f64)>,
    /// Set on a record of the metric at the end of this round (`rounds.csv`), which no other
    /// table lists.
    pub round: Option<u32>,
}

/// One metric's distribution as the tables see it.
#[derive(Debug, Clone, Copy)]
pub enum Distribution<'a> {
    /// Counted over simulated trials: `method = monte_carlo`.
    Sampled(&'a Histogram),
    /// Computed exactly: `method = exact`, no trial count.
    Exact(&'a [(i64, f64)]),
}

/// One metric of one sweep point, with its place in the tables.
pub struct Row<'a> {
    pub params: &'a [String],
    pub choice: &'a str,
    pub metric: &'a str,
    pub distribution: Distribution<'a>,
}

/// What summary.csv and distribution.csv are written from.
pub trait Tables {
    fn scenario(&self) -> &str;
    fn param_names(&self) -> &[String];
    /// Every metric of every sweep point, in output order.
    fn rows(&self) -> Vec<Row<'_>>;
    /// compare.csv, when the report has comparisons.
    fn compare_table(&self) -> Option<Vec<u8>> {
        None
    }
    /// The records of rounds.csv (an engagement's), each with its round, in output order.
    fn round_rows(&self) -> Vec<(u32, Row<'_>)> {
        Vec::new()
    }
}

impl Tables for Report {
    fn scenario(&self) -> &str {
        &self.scenario
    }
    fn param_names(&self) -> &[String] {
        &self.param_names
    }
    fn rows(&self) -> Vec<Row<'_>> {
        self.metric_rows()
    }
    fn round_rows(&self) -> Vec<(u32, Row<'_>)> {
        self.round_records()
    }
    fn compare_table(&self) -> Option<Vec<u8>> {
        compare_csv(self)
    }
}

impl Tables for ExactReport {
    fn scenario(&self) -> &str {
        &self.scenario
    }
    fn param_names(&self) -> &[String] {
        &self.param_names
    }
    fn rows(&self) -> Vec<Row<'_>> {
        self.metric_rows()
    }
    fn round_rows(&self) -> Vec<(u32, Row<'_>)> {
        self.round_records()
    }
}

/// A sweep point's parameters with its metrics: per metric, its choice, name, distribution
/// and round.
type Point<'a> = (
    &'a [String],
    Vec<(&'a str, &'a str, Distribution<'a>, Option<u32>)>,
);

/// A report's metrics, each with its round: set on a record of rounds.csv, which summary.csv
/// and distribution.csv leave out.
trait Records {
    /// Each sweep point's parameters with its metrics: per metric, its choice, name,
    /// distribution and round.
    fn points(&self) -> Vec<Point<'_>>;

    /// Every metric of every sweep point, in order, with its round.
    fn records(&self) -> Vec<(Option<u32>, Row<'_>)> {
        let mut rows = Vec::new();
        for (params, metrics) in self.points() {
            for (choice, metric, distribution, round) in metrics {
                let row = Row {
                    params,
                    choice,
                    metric,
                    distribution,
                };
                rows.push((round, row));
            }
        }
        rows
    }

    /// The metrics of summary.csv and distribution.csv.
    fn metric_rows(&self) -> Vec<Row<'_>> {
        let records = self.records().into_iter();
        records
            .filter_map(|(r, row)| r.is_none().then_some(row))
            .collect()
    }

    /// The round records of rounds.csv.
    fn round_records(&self) -> Vec<(u32, Row<'_>)> {
        let records = self.records().into_iter();
        records.filter_map(|(r, row)| Some((r?, row))).collect()
    }
}

impl Records for Report {
    fn points(&self) -> Vec<Point<'_>> {
        fn point(v: &VariantReport) -> Point<'_> {
            let metrics = v.metrics.iter().map(|m| {
                let d = Distribution::Sampled(&m.histogram);
                (m.choice.as_str(), m.metric.as_str(), d, m.round)
            });
            (&v.params[..], metrics.collect())
        }
        self.variants.iter().map(point).collect()
    }
}

impl Records for ExactReport {
    fn points(&self) -> Vec<Point<'_>> {
        fn point(v: &ExactVariant) -> Point<'_> {
            let metrics = v.metrics.iter().map(|m| {
                let d = Distribution::Exact(&m.pmf);
                (m.choice.as_str(), m.metric.as_str(), d, m.round)
            });
            (&v.params[..], metrics.collect())
        }
        self.variants.iter().map(point).collect()
    }
}

/// The columns of summary.csv after `metric`, for one distribution (`None` when empty).
/// Exact: trials empty, `std_error` 0 (an exact mean has no sampling error) and the interval
/// collapsed onto the mean; the variance is the distribution's own (population) variance.
fn summary_fields(d: Distribution<'_>) -> Option<[String; 10]> {
    Some(match d {
        Distribution::Sampled(h) => {
            let s = Summary::from_histogram(h)?;
            [
                "monte_carlo".to_string(),
                s.trials.to_string(),
                s.mean.to_string(),
                s.variance.to_string(),
                s.std_dev.to_string(),
                s.std_error.to_string(),
                s.ci95_low.to_string(),
                s.ci95_high.to_string(),
                s.min.to_string(),
                s.max.to_string(),
            ]
        }
        Distribution::Exact(p) => {
            let m = pmf::moments(p)?;
            [
                "exact".to_string(),
                String::new(),
                m.mean.to_string(),
                m.variance.to_string(),
                m.variance.sqrt().to_string(),
                "0".to_string(),
                m.mean.to_string(),
                m.mean.to_string(),
                m.min.to_string(),
                m.max.to_string(),
            ]
        }
    })
}

/// The rows of distribution.csv after `metric`: method, value, count, probability, at_least.
fn distribution_fields(d: Distribution<'_>) -> Vec<[String; 5]> {
    match d {
        Distribution::Sampled(h) => distribution(h)
            .into_iter()
            .map(|r| {
                [
                    "monte_carlo".to_string(),
                    r.value.to_string(),
                    r.count.to_string(),
                    r.probability.to_string(),
                    r.at_least.to_string(),
                ]
            })
            .collect(),
        Distribution::Exact(p) => p
            .iter()
            .zip(pmf::at_least(p))
            .map(|(&(v, q), at_least)| {
                [
                    "exact".to_string(),
                    v.to_string(),
                    String::new(),
                    q.to_string(),
                    at_least.to_string(),
                ]
            })
            .collect(),
    }
}

/// A CSV writer into memory, with the `\n` line ends every table uses.
pub(crate) fn writer() -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new())
}

pub(crate) fn finish(w: csv::Writer<Vec<u8>>) -> Vec<u8> {
    w.into_inner().expect("writing CSV into memory cannot fail")
}

/// A header row: the columns `before`, the sweep parameters, then `after`.
pub(crate) fn header(
    w: &mut csv::Writer<Vec<u8>>,
    before: &[&str],
    params: &[String],
    after: &[&str],
) {
    let row: Vec<&str> = before
        .iter()
        .copied()
        .chain(params.iter().map(String::as_str))
        .chain(after.iter().copied())
        .collect();
    w.write_record(&row).expect("in-memory write");
}

pub(crate) fn record(w: &mut csv::Writer<Vec<u8>>, fields: impl IntoIterator<Item = String>) {
    w.write_record(fields.into_iter().collect::<Vec<_>>())
        .expect("in-memory write");
}

/// `scenario,choice,<params>,metric,method,trials,mean,variance,std_dev,std_error,ci95_low,ci95_high,min,max`
pub fn summary_csv(report: &impl Tables) -> Vec<u8> {
    let mut w = writer();
    header(
        &mut w,
        &["scenario", "choice"],
        report.param_names(),
        &[
            "metric",
            "method",
            "trials",
            "mean",
            "variance",
            "std_dev",
            "std_error",
            "ci95_low",
            "ci95_high",
            "min",
            "max",
        ],
    );
    for row in report.rows() {
        let Some(fields) = summary_fields(row.distribution) else {
            continue;
        };
        record(
            &mut w,
            [report.scenario().to_string(), row.choice.to_string()]
                .into_iter()
                .chain(row.params.iter().cloned())
                .chain([row.metric.to_string()])
                .chain(fields),
        );
    }
    finish(w)
}

/// `scenario,choice,<params>,round,metric,mean,ci95_low,ci95_high`, the interval as summary.csv
/// gives it (an exact mean's collapsed onto it); `None` when the report records no rounds.
pub fn rounds_csv(report: &impl Tables) -> Option<Vec<u8>> {
    let rows = report.round_rows();
    if rows.is_empty() {
        return None;
    }
    let mut w = writer();
    header(
        &mut w,
        &["scenario", "choice"],
        report.param_names(),
        &["round", "metric", "mean", "ci95_low", "ci95_high"],
    );
    for (round, row) in rows {
        let Some(fields) = summary_fields(row.distribution) else {
            continue;
        };
        // summary_fields: method, trials, mean, variance, std_dev, std_error, ci95_low, ci95_high.
        let [_, _, mean, _, _, _, low, high, _, _] = fields;
        record(
            &mut w,
            [report.scenario().to_string(), row.choice.to_string()]
                .into_iter()
                .chain(row.params.iter().cloned())
                .chain([round.to_string(), row.metric.to_string(), mean, low, high]),
        );
    }
    Some(finish(w))
}

/// `scenario,choice,<params>,metric,method,value,count,probability,at_least`
pub fn distribution_csv(report: &impl Tables) -> Vec<u8> {
    let mut w = writer();
    header(
        &mut w,
        &["scenario", "choice"],
        report.param_names(),
        &[
            "metric",
            "method",
            "value",
            "count",
            "probability",
            "at_least",
        ],
    );
    for row in report.rows() {
        for fields in distribution_fields(row.distribution) {
            record(
                &mut w,
                [report.scenario().to_string(), row.choice.to_string()]
                    .into_iter()
                    .chain(row.params.iter().cloned())
                    .chain([row.metric.to_string()])
                    .chain(fields),
            );
        }
    }
    finish(w)
}

/// One row of validation.csv: a metric's exact and simulated results side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationRow {
    pub params: Vec<String>,
    pub choice: String,
    pub metric: String,
    pub exact_mean: f64,
    pub mc_mean: f64,
    pub z: f64,
    pub chi_square: f64,
    pub degrees_of_freedom: u64,
    pub p_value: f64,
    pub pass: bool,
}

/// `scenario,choice,<params>,metric,exact_mean,mc_mean,z,chi_square,df,p_value,result`
pub fn validation_csv(scenario: &str, param_names: &[String], rows: &[ValidationRow]) -> Vec<u8> {
    let mut w = writer();
    header(
        &mut w,
        &["scenario", "choice"],
        param_names,
        &[
            "metric",
            "exact_mean",
            "mc_mean",
            "z",
            "chi_square",
            "df",
            "p_value",
            "result",
        ],
    );
    for r in rows {
        record(
            &mut w,
            [scenario.to_string(), r.choice.clone()]
                .into_iter()
                .chain(r.params.iter().cloned())
                .chain([
                    r.metric.clone(),
                    r.exact_mean.to_string(),
                    r.mc_mean.to_string(),
                    r.z.to_string(),
                    r.chi_square.to_string(),
                    r.degrees_of_freedom.to_string(),
                    r.p_value.to_string(),
                    if r.pass { "pass" } else { "fail" }.to_string(),
                ]),
        );
    }
    finish(w)
}

/// One option at one decision of `rollcall advise`.
#[derive(Debug, Clone, PartialEq)]
pub struct AdviceRow {
    pub params: Vec<String>,
    pub choice: String,
    pub round: u32,
    pub unit: String,
    pub state: String,
    pub option: String,
    pub value: f64,
    pub best: bool,
    /// [`super::EXACT`] or [`super::ROLLOUT`].
    pub method: &'static str,
    /// Rollouts per option; `None` (written empty) for the exact engine's values.
    pub trials: Option<u64>,
    /// The value's 95% interval (the value itself when exact).
    pub ci95_low: f64,
    pub ci95_high: f64,
}

/// `advice.csv`:
/// `scenario,choice,<params>,round,unit,state,option,value,best,method,trials,ci95_low,ci95_high`.
pub fn advice_csv(scenario: &str, param_names: &[String], rows: &[AdviceRow]) -> Vec<u8> {
    let mut w = writer();
    header(
        &mut w,
        &["scenario", "choice"],
        param_names,
        &[
            "round",
            "unit",
            "state",
            "option",
            "value",
            "best",
            "method",
            "trials",
            "ci95_low",
            "ci95_high",
        ],
    );
    for r in rows {
        record(
            &mut w,
            [scenario.to_string(), r.choice.clone()]
                .into_iter()
                .chain(r.params.iter().cloned())
                .chain([
                    r.round.to_string(),
                    r.unit.clone(),
                    r.state.clone(),
                    r.option.clone(),
                    r.value.to_string(),
                    u8::from(r.best).to_string(),
                    r.method.to_string(),
                    r.trials.map_or(String::new(), |t| t.to_string()),
                    r.ci95_low.to_string(),
                    r.ci95_high.to_string(),
                ]),
        );
    }
    finish(w)
}

/// `scenario,<params>,metric,first,second,trials,mean_diff,ci95_low,ci95_high,p_first_higher,p_equal,p_second_higher`;
/// `None` when the scenario has no choices to compare.
pub fn compare_csv(report: &Report) -> Option<Vec<u8>> {
    if report.variants.iter().all(|v| v.comparisons.is_empty()) {
        return None;
    }
    let mut w = writer();
    header(
        &mut w,
        &["scenario"],
        &report.param_names,
        &[
            "metric",
            "first",
            "second",
            "trials",
            "mean_diff",
            "ci95_low",
            "ci95_high",
            "p_first_higher",
            "p_equal",
            "p_second_higher",
        ],
    );
    for v in &report.variants {
        for c in &v.comparisons {
            let Some(s) = Summary::from_histogram(&c.differences) else {
                continue;
            };
            let n = c.differences.total();
            let (mut higher, mut lower) = (0u64, 0u64);
            for (d, count) in c.differences.iter() {
                if d > 0 {
                    higher += count;
                } else if d < 0 {
                    lower += count;
                }
            }
            let equal = n - higher - lower;
            let p = |k: u64| (k as f64 / n as f64).to_string();
            record(
                &mut w,
                [report.scenario.clone()]
                    .into_iter()
                    .chain(v.params.iter().cloned())
                    .chain([
                        c.metric.clone(),
                        c.first.clone(),
                        c.second.clone(),
                        n.to_string(),
                        s.mean.to_string(),
                        s.ci95_low.to_string(),
                        s.ci95_high.to_string(),
                        p(higher),
                        p(equal),
                        p(lower),
                    ]),
            );
        }
    }
    Some(finish(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(values: &[i64]) -> Histogram {
        let mut h = Histogram::new();
        for &v in values {
            h.add(v);
        }
        h
    }

    #[test]
    fn tables_lay_out_a_small_report() {
        let report = Report {
            scenario: "demo".into(),
            param_names: vec!["unit.a.alive".into()],
            variants: vec![VariantReport {
                params: vec!["3".into()],
                metrics: vec![MetricReport {
                    choice: String::new(),
                    metric: "a.restored".into(),
                    histogram: hist(&[0, 1, 1, 2]),
                    round: None,
                }],
                comparisons: vec![],
            }],
            both_enumerate: false,
            roster: None,
        };
        let summary = String::from_utf8(summary_csv(&report)).unwrap();
        let lines: Vec<&str> = summary.lines().collect();
        assert_eq!(
            lines[0],
            "scenario,choice,unit.a.alive,metric,method,trials,mean,variance,std_dev,std_error,ci95_low,ci95_high,min,max"
        );
        // mean 1, variance (1 + 0 + 0 + 1) / 3.
        assert!(lines[1].starts_with("demo,,3,a.restored,monte_carlo,4,1,0.6666666666666666,"));
        assert!(lines[1].ends_with(",0,2"));
        let dist = String::from_utf8(distribution_csv(&report)).unwrap();
        assert_eq!(
            dist,
            "scenario,choice,unit.a.alive,metric,method,value,count,probability,at_least\n\
             demo,,3,a.restored,monte_carlo,0,1,0.25,1\n\
             demo,,3,a.restored,monte_carlo,1,2,0.5,0.75\n\
             demo,,3,a.restored,monte_carlo,2,1,0.25,0.25\n"
        );
        assert!(compare_csv(&report).is_none());
    }

    #[test]
    fn comparisons_count_who_is_higher() {
        let report = Report {
            scenario: "demo".into(),
            param_names: vec![],
            variants: vec![VariantReport {
                params: vec![],
                metrics: vec![],
                comparisons: vec![Comparison {
                    metric: "a.alive".into(),
                    first: "x".into(),
                    second: "y".into(),
                    differences: hist(&[-1, 0, 0, 2]),
                }],
            }],
            both_enumerate: false,
            roster: None,
        };
        let text = String::from_utf8(compare_csv(&report).unwrap()).unwrap();
        let row = text.lines().nth(1).unwrap();
        assert!(row.starts_with("demo,a.alive,x,y,4,0.25,"), "{row}");
        assert!(row.ends_with(",0.25,0.5,0.25"), "{row}");
    }
}
