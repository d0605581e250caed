//! What a report shows, decided once for both formats: the run's facts, per metric its
//! distribution and P(at least k), the paired comparisons of choices, a sweep's grids and a card
//! game's orderings. The templates only lay this out, as HTML or as Markdown.

use super::cards::{self, CardSection};
use super::charts::{self, Estimate, Series, Split};
use super::input::{CompareRow, DistributionRow, Results, SummaryRow, SweepPoint};
use super::labels;
use super::table::{id, PivotRow, PivotTable};
use super::ReportError;
use crate::format;
use serde::Serialize;
use std::collections::HashMap;

/// A report page, ready for a template.
#[derive(Debug, Serialize)]
pub struct Page {
    pub title: String,
    /// Exact results: means without intervals.
    pub exact: bool,
    pub facts: Vec<Fact>,
    pub warnings: Vec<String>,
    /// Metrics with one value in every trial everywhere: "wardens lost: always 0".
    pub constants: Vec<String>,
    pub metrics: Vec<MetricSection>,
    pub comparisons: Vec<ComparisonSection>,
    pub sweep: Option<SweepSection>,
    /// An engagement's records by round (`rounds.csv`), drawn as curves.
    pub rounds: Vec<super::rounds::RoundChart>,
    /// A card game's equilibrium, payoff matrix and orderings, shown first.
    pub cards: Option<CardSection>,
    /// A balance search's answer and candidates, shown first.
    pub balance: Option<super::balance::BalanceSection>,
    /// A roster run's matchup matrix and ratings, shown first.
    pub roster: Option<super::roster::RosterSection>,
}

#[derive(Debug, Serialize)]
pub struct Fact {
    pub name: String,
    pub value: String,
}

/// One metric at a few points (its choices, or a small sweep's points).
#[derive(Debug, Serialize)]
pub struct MetricSection {
    pub id: String,
    pub name: String,
    pub raw: String,
    pub summary: PivotTable,
    pub distribution: Vec<PivotTable>,
    pub distribution_chart: String,
    pub at_least_chart: String,
}

/// The paired comparison of two choices on the same trials.
#[derive(Debug, Serialize)]
pub struct ComparisonSection {
    pub id: String,
    pub title: String,
    pub table: PivotTable,
    pub chart: String,
    /// Metrics on which both choices end the same in every trial.
    pub always_equal: Vec<String>,
}

/// A sweep's grids, per metric that varies.
#[derive(Debug, Serialize)]
pub struct SweepSection {
    pub axes: String,
    pub metrics: Vec<SweepMetric>,
}

#[derive(Debug, Serialize)]
pub struct SweepMetric {
    pub id: String,
    pub name: String,
    pub raw: String,
    pub means: Vec<PivotTable>,
    pub charts: Vec<String>,
    /// P(at least k) curves: one line per value of the first key, one chart per value of the
    /// second key (and per grid group).
    pub at_least_charts: Vec<String>,
    pub at_least: Vec<PivotTable>,
}

/// At most this many series in one chart or one metric section; past it a sweep is read
/// through its grids only.
const MAX_SERIES: usize = 8;
/// At most this many values of k get a P(at least k) grid per metric.
const MAX_K: usize = 12;

/// The rows of the results, indexed by point and metric. Every look-up is by hash, and
/// every list of distinct things is gathered through a set: a sweep of many points (tens of
/// thousands) then costs time in proportion to its rows.
struct Index<'a> {
    results: &'a Results,
    points: Vec<SweepPoint>,
    metrics: Vec<String>,
    /// Where each point and metric is in `points` and `metrics`.
    point_at: HashMap<SweepPoint, usize>,
    metric_at: HashMap<String, usize>,
    summary: HashMap<(usize, usize), &'a SummaryRow>,
    distribution: HashMap<(usize, usize), Vec<&'a DistributionRow>>,
    /// Each metric's smallest and largest value anywhere.
    ranges: Vec<Option<(i64, i64)>>,
    exact: bool,
}

/// The distinct items, in the order first met.
fn distinct<T: Clone + Eq + std::hash::Hash>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut seen = std::collections::HashSet::new();
    items
        .into_iter()
        .filter(|item| seen.insert(item.clone()))
        .collect()
}

impl<'a> Index<'a> {
    fn new(results: &'a Results) -> Index<'a> {
        let points = distinct(results.summary.iter().map(|r| &r.point));
        let metrics = distinct(results.summary.iter().map(|r| r.metric.as_str()));
        let point_at: HashMap<SweepPoint, usize> = points
            .iter()
            .enumerate()
            .map(|(i, &p)| (p.clone(), i))
            .collect();
        let metric_at: HashMap<String, usize> = metrics
            .iter()
            .enumerate()
            .map(|(i, &m)| (m.to_string(), i))
            .collect();
        let key = |point: &SweepPoint, metric: &str| {
            Some((*point_at.get(point)?, *metric_at.get(metric)?))
        };
        let mut summary = HashMap::new();
        for row in &results.summary {
            if let Some(k) = key(&row.point, &row.metric) {
                summary.insert(k, row);
            }
        }
        let mut distribution: HashMap<_, Vec<&DistributionRow>> = HashMap::new();
        for row in &results.distribution {
            if let Some(k) = key(&row.point, &row.metric) {
                distribution.entry(k).or_default().push(row);
            }
        }
        for rows in distribution.values_mut() {
            rows.sort_by_key(|r| r.value);
        }
        let mut ranges: Vec<Option<(i64, i64)>> = vec![None; metrics.len()];
        for (&(_, m), s) in &summary {
            ranges[m] = Some(match ranges[m] {
                None => (s.min, s.max),
                Some((lo, hi)) => (lo.min(s.min), hi.max(s.max)),
            });
        }
        Index {
            results,
            points: points.into_iter().cloned().collect(),
            metrics: metrics.into_iter().map(str::to_string).collect(),
            point_at,
            metric_at,
            summary,
            distribution,
            ranges,
            exact: results.run.method == crate::output::EXACT,
        }
    }

    fn key(&self, point: &SweepPoint, metric: &str) -> Option<(usize, usize)> {
        Some((*self.point_at.get(point)?, *self.metric_at.get(metric)?))
    }

    /// Whether a metric only ever takes the values 0 and 1, so its mean is a share of trials.
    fn is_share(&self, metric: &str) -> bool {
        self.range(metric)
            .is_some_and(|(lo, hi)| lo >= 0 && hi <= 1)
    }

    /// A mean as its metric reads: a share of trials as a percentage, else two decimals;
    /// with its 95% interval unless the results are exact.
    fn mean_cell(&self, metric: &str, s: &SummaryRow) -> String {
        if self.is_share(metric) {
            format::percent_with_interval(s.mean, s.ci95_low, s.ci95_high)
        } else {
            format::with_interval(s.mean, s.ci95_low, s.ci95_high)
        }
    }

    /// The heading of a column of means.
    fn mean_heading(&self) -> &'static str {
        if self.exact {
            "mean (exact)"
        } else {
            "mean (95% interval)"
        }
    }

    fn summary(&self, point: &SweepPoint, metric: &str) -> Option<&'a SummaryRow> {
        self.summary.get(&self.key(point, metric)?).copied()
    }

    fn rows(&self, point: &SweepPoint, metric: &str) -> &[&'a DistributionRow] {
        self.key(point, metric)
            .and_then(|k| self.distribution.get(&k))
            .map_or(&[], |v| v.as_slice())
    }

    /// P(at least k): the `at_least` of the smallest value at or above k, 0 past the largest.
    fn at_least(&self, point: &SweepPoint, metric: &str, k: i64) -> Option<f64> {
        let rows = self.rows(point, metric);
        if rows.is_empty() {
            return None;
        }
        Some(
            rows.iter()
                .find(|r| r.value >= k)
                .map_or(0.0, |r| r.at_least),
        )
    }

    /// The smallest and largest value of a metric anywhere.
    fn range(&self, metric: &str) -> Option<(i64, i64)> {
        *self.ranges.get(*self.metric_at.get(metric)?)?
    }

    fn choices(&self) -> Vec<String> {
        distinct(self.points.iter().map(|p| &p.choice))
            .into_iter()
            .cloned()
            .collect()
    }

    /// The values of sweep key i, in the order the tables list them.
    fn values(&self, i: usize) -> Vec<String> {
        distinct(self.points.iter().map(|p| &p.params[i]))
            .into_iter()
            .cloned()
            .collect()
    }
}

/// Builds the page of a results folder.
pub fn build(results: &Results) -> Result<Page, ReportError> {
    let index = Index::new(results);
    let mut constants = Vec::new();
    let mut varying = Vec::new();
    for m in reading_order(&index.metrics, &results.run.objective) {
        match index.range(&m) {
            Some((lo, hi)) if lo == hi => {
                constants.push(format!("{}: always {lo}", labels::metric(&m)))
            }
            _ => varying.push(m),
        }
    }
    let swept = !results.param_names.is_empty();
    let metrics = if !swept || index.points.len() <= MAX_SERIES {
        varying
            .iter()
            .map(|m| metric_section(&index, m))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        Vec::new()
    };
    let sweep = if swept {
        Some(sweep_section(&index, &varying)?)
    } else {
        None
    };
    Ok(Page {
        title: labels::metric(&results.run.scenario),
        exact: index.exact,
        facts: facts(results, &index),
        warnings: warnings(results),
        constants,
        metrics,
        comparisons: comparisons(&index)?,
        sweep,
        rounds: super::rounds::section(results, index.exact, |p| point_name(&index, p))?,
        cards: cards::section(results),
        balance: super::balance::section(results),
        roster: super::roster::section(results),
    })
}

/// Where a metric stands in the report, by its last name part: first what the sides play for
/// (the objective the run names), then the results a reader looks for (restored, won,
/// declared, destroyed, a card game's score and margin), then the rest, and last the
/// bookkeeping that follows from those or only checks the run (alive, lost, damage taken,
/// rounds, and a step's resolved, fizzled, ineligible and responses).
fn reading_rank(metric: &str, objective: &[String]) -> u8 {
    if objective.iter().any(|o| o == metric) {
        return 0;
    }
    let last = metric.rsplit('.').next().unwrap_or(metric);
    match last {
        "restored" => 1,
        "won" => 2,
        "declared" => 3,
        "destroyed" | "score" | "margin" => 4,
        "alive" | "lost" | "damage_taken" | "rounds" => 6,
        "resolved" | "fizzled" | "ineligible" | "responses" => 7,
        _ => 5,
    }
}

/// The metrics in reading order (see [`reading_rank`]); the tables' order within a rank.
fn reading_order(metrics: &[String], objective: &[String]) -> Vec<String> {
    let mut ordered = metrics.to_vec();
    ordered.sort_by_key(|m| reading_rank(m, objective));
    ordered
}

fn facts(results: &Results, index: &Index<'_>) -> Vec<Fact> {
    let run = &results.run;
    let exact = run.method == crate::output::EXACT;
    let mut facts = vec![
        ("Scenario", run.scenario.clone()),
        (
            "Method",
            if exact {
                "exact (dynamic programming over every outcome)".to_string()
            } else {
                "Monte Carlo simulation".to_string()
            },
        ),
    ];
    if !exact {
        facts.push(("Trials per point", format::thousands(run.trials_requested)));
        if let Some(played) = run.trials_played {
            facts.push(("Trials played", format::thousands(played)));
        }
        facts.push(("Seed", run.seed.to_string()));
    }
    let points = run.sweep_points.unwrap_or(index.points.len() as u64);
    if !results.param_names.is_empty() {
        let keys: Vec<String> = results.param_names.iter().map(|k| labels::key(k)).collect();
        facts.push((
            "Sweep",
            format!("{} points over {}", points, keys.join(", ")),
        ));
    }
    let choices = index.choices();
    if choices.len() > 1 || choices.first().is_some_and(|c| !c.is_empty()) {
        facts.push(("Choices", choices_in_short(&choices)));
    }
    facts.push(("rollcall version", run.version.clone()));
    if let Some(wall) = run.wall_seconds {
        facts.push(("Computing time", format::duration_one_decimal(wall)));
    }
    if let Some(threads) = run.threads.filter(|_| !exact) {
        facts.push(("Threads", threads.to_string()));
    }
    if let Some(shard) = run.shard.as_ref().filter(|s| s.as_str() != "0/1") {
        facts.push(("Shards", shard.clone()));
    }
    if let Some(written) = results.written {
        facts.push(("Results written", format::utc(written)));
    }
    facts.push((
        "Complete",
        if run.complete { "yes" } else { "no" }.to_string(),
    ));
    if !run.scenario_hash.is_empty() {
        facts.push(("Scenario hash", run.scenario_hash.clone()));
    }
    facts
        .into_iter()
        .map(|(name, value)| Fact {
            name: name.into(),
            value,
        })
        .collect()
}

/// The most choices the facts list by name; past it they are counted.
const MOST_CHOICES_LISTED: usize = 6;

/// The choices as the facts table gives them: by name when few, else counted (a card game's
/// pairs of orderings per player), so the facts stay on the first screen.
fn choices_in_short(choices: &[String]) -> String {
    if choices.len() <= MOST_CHOICES_LISTED {
        return choices.join(", ");
    }
    if let Some(per_player) = cards::orderings_per_player(choices) {
        let counts: Vec<String> = per_player
            .iter()
            .map(|(player, n)| format!("{n} orderings of {player}"))
            .collect();
        return format!(
            "{} pairings: {} (see the payoff matrix)",
            choices.len(),
            counts.join(" against ")
        );
    }
    format!(
        "{} choices: {}, … {}",
        choices.len(),
        choices[..3].join(", "),
        choices[choices.len() - 1]
    )
}

fn warnings(results: &Results) -> Vec<String> {
    let mut out = Vec::new();
    if !results.run.complete {
        out.push(
            "This run was interrupted: the numbers come from the trials played before it stopped."
                .to_string(),
        );
    }
    out.extend(results.run.warnings.iter().cloned());
    out
}

/// A point's name in a legend or column heading: its choice, then its sweep values.
fn point_name(index: &Index<'_>, point: &SweepPoint) -> String {
    let mut parts: Vec<String> = Vec::new();
    if !point.choice.is_empty() {
        parts.push(point.choice.clone());
    }
    for (k, v) in index.results.param_names.iter().zip(&point.params) {
        parts.push(format!("{}: {}", labels::key(k), labels::value(v)));
    }
    if parts.is_empty() {
        "all trials".into()
    } else {
        parts.join(", ")
    }
}

fn metric_section(index: &Index<'_>, metric: &str) -> Result<MetricSection, ReportError> {
    let points: Vec<&SweepPoint> = index
        .points
        .iter()
        .filter(|p| index.summary(p, metric).is_some())
        .collect();
    let names: Vec<String> = points.iter().map(|p| point_name(index, p)).collect();
    let summary = PivotTable {
        id: id("summary", metric),
        title: format!("{}: {}", labels::metric(metric), index.mean_heading()),
        corner: "where".into(),
        columns: vec![
            index.mean_heading().into(),
            "lowest".into(),
            "highest".into(),
        ],
        rows: points
            .iter()
            .zip(&names)
            .filter_map(|(p, name)| {
                let s = index.summary(p, metric)?;
                Some(PivotRow::new(
                    name.clone(),
                    vec![
                        index.mean_cell(metric, s),
                        s.min.to_string(),
                        s.max.to_string(),
                    ],
                ))
            })
            .collect(),
    };
    let (lo, hi) = index.range(metric).unwrap_or((0, 0));
    let distribution = distribution_tables(index, metric, &points, &names, (lo, hi));
    let series = |at_least: bool| -> Vec<Series> {
        points
            .iter()
            .zip(&names)
            .map(|(p, name)| Series {
                name: name.clone(),
                points: if at_least {
                    (lo..=hi)
                        .map(|k| (k, index.at_least(p, metric, k).unwrap_or(0.0)))
                        .collect()
                } else {
                    index
                        .rows(p, metric)
                        .iter()
                        .map(|r| (r.value, r.probability))
                        .collect()
                },
            })
            .collect()
    };
    let x_desc = labels::metric(metric);
    // Past the palette the lines cannot be told apart: the tables carry the numbers.
    let drawn = points.len() <= charts::MAX_LINES;
    Ok(MetricSection {
        id: id("metric", metric),
        name: labels::metric(metric),
        raw: metric.to_string(),
        summary,
        distribution_chart: if drawn {
            charts::distribution(&x_desc, &series(false))?
        } else {
            String::new()
        },
        at_least_chart: if drawn {
            charts::at_least("", &x_desc, &series(true))?
        } else {
            String::new()
        },
        distribution,
    })
}

/// A metric's distribution at its points over the values `lo..=hi`: at one point a row per
/// value, as a dice table reads; at several a row per point for P(exactly k) and another
/// table for P(at least k), so the tables stay as wide as the values.
fn distribution_tables(
    index: &Index<'_>,
    metric: &str,
    points: &[&SweepPoint],
    names: &[String],
    (lo, hi): (i64, i64),
) -> Vec<PivotTable> {
    let exactly = |p: &SweepPoint, v: i64| {
        index
            .rows(p, metric)
            .iter()
            .find(|r| r.value == v)
            .map_or(0.0, |r| r.probability)
    };
    let at_least = |p: &SweepPoint, v: i64| index.at_least(p, metric, v).unwrap_or(0.0);
    if points.len() == 1 {
        // One point: a row per value, as a dice table reads.
        let p = points[0];
        vec![PivotTable {
            id: id("distribution", metric),
            title: format!("{}: distribution", labels::metric(metric)),
            corner: "value".into(),
            columns: vec!["P(exactly)".into(), "P(at least)".into()],
            rows: (lo..=hi)
                .map(|v| {
                    PivotRow::new(
                        v.to_string(),
                        vec![
                            format::percent(exactly(p, v)),
                            format::percent(at_least(p, v)),
                        ],
                    )
                })
                .collect(),
        }]
    } else {
        // Several points: a row per point, so the table stays as wide as the values.
        let grid = |slug: &str,
                    what: &str,
                    head: &dyn Fn(i64) -> String,
                    cell: &dyn Fn(&SweepPoint, i64) -> f64| PivotTable {
            id: id(slug, metric),
            title: format!("{}: {what}", labels::metric(metric)),
            corner: "where".into(),
            columns: (lo..=hi).map(head).collect(),
            rows: points
                .iter()
                .zip(names)
                .map(|(p, name)| {
                    PivotRow::new(
                        name.clone(),
                        (lo..=hi).map(|v| format::percent(cell(p, v))).collect(),
                    )
                })
                .collect(),
        };
        vec![
            grid("exactly", "P(exactly k)", &|v| v.to_string(), &exactly),
            grid("atleast", "P(at least k)", &|v| format!("{v}+"), &at_least),
        ]
    }
}

/// The most comparisons of a sweep point with the first that get a section of their own.
const MOST_POINTS_COMPARED: usize = 8;

fn comparisons(index: &Index<'_>) -> Result<Vec<ComparisonSection>, ReportError> {
    let results = index.results;
    // One section per sweep point and pair of choices, in the order compare.csv lists them.
    let key_of = |r: &'_ CompareRow| (r.params.clone(), r.first.clone(), r.second.clone());
    let mut keys: Vec<(Vec<String>, String, String)> = distinct(results.compare.iter().map(key_of));
    let mut rows_of: HashMap<(Vec<String>, String, String), Vec<&CompareRow>> = HashMap::new();
    for r in &results.compare {
        rows_of.entry(key_of(r)).or_default().push(r);
    }
    // A large sweep's comparisons of every point with the first would be a section each; its
    // grids already show the points side by side, and compare.csv keeps the paired rows.
    let points_compared = keys.iter().filter(|k| k.1.contains('=')).count();
    if points_compared > MOST_POINTS_COMPARED {
        keys.retain(|k| !k.1.contains('='));
    }
    keys.iter()
        .map(|key| {
            let (params, first_id, second_id) = key;
            let (first, second) = (&labels::side(first_id), &labels::side(second_id));
            let (rows, same): (Vec<&CompareRow>, Vec<&CompareRow>) = rows_of
                .get(key)
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .partition(|r| r.p_equal < 1.0);
            let at: Vec<String> = results
                .param_names
                .iter()
                .zip(params)
                .map(|(k, v)| format!("{}: {}", labels::key(k), labels::value(v)))
                .collect();
            let title = if at.is_empty() {
                format!("{first} against {second}")
            } else {
                format!("{first} against {second} ({})", at.join(", "))
            };
            let table = PivotTable {
                id: id("compare", &title),
                title: title.clone(),
                corner: "metric".into(),
                columns: vec![
                    if index.exact {
                        format!("mean difference, {first} minus {second} (exact)")
                    } else {
                        format!("mean difference, {first} minus {second} (95% interval)")
                    },
                    format!("P({first} higher)"),
                    "P(equal)".into(),
                    format!("P({second} higher)"),
                ],
                rows: rows
                    .iter()
                    .map(|r| {
                        PivotRow::new(
                            labels::metric(&r.metric),
                            vec![
                                format::with_interval(r.mean_diff, r.ci95_low, r.ci95_high),
                                format::percent(r.p_first_higher),
                                format::percent(r.p_equal),
                                format::percent(r.p_second_higher),
                            ],
                        )
                    })
                    .collect(),
            };
            let splits: Vec<Split> = rows
                .iter()
                .map(|r| Split {
                    name: labels::metric(&r.metric),
                    first: r.p_first_higher,
                    equal: r.p_equal,
                    second: r.p_second_higher,
                })
                .collect();
            Ok(ComparisonSection {
                id: id("compare", &title),
                title,
                chart: charts::comparison(first, second, &splits)?,
                table,
                always_equal: same.iter().map(|r| labels::metric(&r.metric)).collect(),
            })
        })
        .collect()
}

/// The labels of a sweep key's values, saying "N missing" where models are missing at the
/// start: a swept `missing` key reads so directly; a swept size does when the tables pin down
/// how many were alive (at every trial's end `alive = alive at the start + restored - lost`,
/// so the means give the start exactly), as "3 missing (size 8)", and a size with none
/// missing reads as the size alone.
fn value_labels(index: &Index<'_>, key: usize) -> Vec<String> {
    let name = &index.results.param_names[key];
    let values = index.values(key);
    let unit_key = |suffix: &str| {
        name.strip_prefix("unit.")
            .and_then(|r| r.strip_suffix(suffix))
            .map(str::to_string)
    };
    if unit_key(".missing").is_some() {
        return values.iter().map(|v| missing_label(v)).collect();
    }
    let unit = unit_key(".size");
    let mut points_of: HashMap<&str, Vec<&SweepPoint>> = HashMap::new();
    if unit.is_some() {
        for p in &index.points {
            points_of.entry(p.params[key].as_str()).or_default().push(p);
        }
    }
    values
        .iter()
        .map(|v| {
            let plain = labels::value(v);
            let (Some(unit), Ok(size)) = (unit.as_deref(), v.parse::<i64>()) else {
                return plain;
            };
            let starts: Vec<Option<i64>> = points_of
                .get(v.as_str())
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(|p| {
                    let mean = |m: &str| index.summary(p, &format!("{unit}.{m}")).map(|s| s.mean);
                    let start = mean("alive")? - mean("restored")? + mean("lost")?;
                    ((start - start.round()).abs() < 1e-6).then_some(start.round() as i64)
                })
                .collect();
            match starts.first() {
                Some(Some(a)) if starts.iter().all(|s| *s == Some(*a)) && size > *a => {
                    format!("{} (size {plain})", missing_label(&(size - a).to_string()))
                }
                _ => plain,
            }
        })
        .collect()
}

/// A count of models missing: "3 missing", "none missing".
fn missing_label(count: &str) -> String {
    match count.trim() {
        "0" => "none missing".into(),
        n => format!("{n} missing"),
    }
}

/// A line's name in a sweep chart's legend: the key and the value, unless the value's label
/// already says what it counts ("3 missing").
fn line_name(key: &str, label: &str) -> String {
    if label.contains(" missing") {
        label.to_string()
    } else {
        format!("{key}: {label}")
    }
}

/// A P(at least k) chart of a metric over `lo..=hi`: one line per row of the sweep, the other
/// keys fixed by `point_at`; none when there are more rows than lines a chart can tell apart.
fn at_least_chart(
    index: &Index<'_>,
    layout: &SweepLayout<'_>,
    metric: &str,
    caption: &str,
    point_at: &dyn Fn(&str) -> SweepPoint,
) -> Result<Option<String>, ReportError> {
    if layout.row_values.len() > charts::MAX_LINES {
        return Ok(None);
    }
    let (lo, hi) = index.range(metric).unwrap_or((0, 0));
    let series: Vec<Series> = layout
        .row_values
        .iter()
        .zip(&layout.row_labels)
        .map(|(r, label)| Series {
            name: line_name(&layout.row_key, label),
            points: (lo..=hi)
                .filter_map(|k| Some((k, index.at_least(&point_at(r), metric, k)?)))
                .collect(),
        })
        .collect();
    charts::at_least(caption, &labels::metric(metric), &series).map(Some)
}

fn sweep_section(index: &Index<'_>, varying: &[String]) -> Result<SweepSection, ReportError> {
    let layout = SweepLayout::new(index);
    let metrics = varying
        .iter()
        .map(|metric| {
            if layout.keys == 1 {
                one_key_sweep_metric(index, &layout, metric)
            } else {
                grids_sweep_metric(index, &layout, metric)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SweepSection {
        axes: sweep_axes(layout.names),
        metrics,
    })
}

/// How a sweep's grids are laid out: the first key's values down the rows, the second's (if
/// any) across the columns, and one grid for each combination of the further keys' values and
/// each choice.
struct SweepLayout<'a> {
    names: &'a [String],
    keys: usize,
    row_values: Vec<String>,
    row_labels: Vec<String>,
    col_values: Vec<String>,
    col_labels: Vec<String>,
    /// Each grid is one combination of the further keys' values and one choice.
    groups: Vec<(Vec<String>, String)>,
    chart_labels: Vec<String>,
    row_key: String,
    corner: String,
}

impl<'a> SweepLayout<'a> {
    fn new(index: &Index<'a>) -> SweepLayout<'a> {
        let names = &index.results.param_names;
        let keys = names.len();
        let row_values = index.values(0);
        let (col_values, col_labels) = if keys > 1 {
            (index.values(1), value_labels(index, 1))
        } else {
            (Vec::new(), Vec::new())
        };
        let groups: Vec<(Vec<String>, String)> = distinct(
            index
                .points
                .iter()
                .map(|p| (p.params.get(2..).unwrap_or(&[]).to_vec(), p.choice.clone())),
        );
        let row_key = labels::key(&names[0]);
        let corner = if keys > 1 {
            format!("{row_key} \\ {}", labels::key(&names[1]))
        } else {
            row_key.clone()
        };
        SweepLayout {
            names,
            keys,
            row_labels: value_labels(index, 0),
            chart_labels: row_values.iter().map(|v| labels::value(v)).collect(),
            row_values,
            col_values,
            col_labels,
            groups,
            row_key,
            corner,
        }
    }

    /// A grid's name: its choice and the further keys' values.
    fn group_name(&self, further: &[String], choice: &str) -> String {
        let mut parts: Vec<String> = self
            .names
            .iter()
            .skip(2)
            .zip(further)
            .map(|(k, v)| format!("{}: {}", labels::key(k), labels::value(v)))
            .collect();
        if !choice.is_empty() {
            parts.insert(0, format!("choice {choice}"));
        }
        parts.join(", ")
    }

    /// The point at a row's value, a column's value (if any), the further values and a choice.
    fn point_at(
        &self,
        row: &str,
        col: Option<&str>,
        further: &[String],
        choice: &str,
    ) -> SweepPoint {
        let mut params = vec![row.to_string()];
        params.extend(col.map(str::to_string));
        params.extend(further.iter().cloned());
        SweepPoint {
            params,
            choice: choice.to_string(),
        }
    }
}

/// A title, with the grid's group after it when there is one.
fn titled(what: String, group: &str) -> String {
    if group.is_empty() {
        what
    } else {
        format!("{what}, {group}")
    }
}

/// A metric of a one-key sweep: a column per choice for the means, a column per k for
/// P(at least k).
fn one_key_sweep_metric(
    index: &Index<'_>,
    layout: &SweepLayout<'_>,
    metric: &str,
) -> Result<SweepMetric, ReportError> {
    let name = labels::metric(metric);
    let (lo, hi) = index.range(metric).unwrap_or((0, 0));
    let ks: Vec<i64> = (lo + 1..=hi).take(MAX_K).collect();
    let (row_values, row_labels) = (&layout.row_values, &layout.row_labels);
    let choices = index.choices();
    let column = |c: &String| -> String {
        if c.is_empty() {
            "mean".into()
        } else {
            c.clone()
        }
    };
    let cell = |row: &str, choice: &str| {
        index
            .summary(&layout.point_at(row, None, &[], choice), metric)
            .map_or(String::new(), |s| index.mean_cell(metric, s))
    };
    let means = vec![PivotTable {
        id: id("means", metric),
        title: format!("{name}: {}", index.mean_heading()),
        corner: layout.corner.clone(),
        columns: choices.iter().map(column).collect(),
        rows: row_values
            .iter()
            .zip(row_labels)
            .map(|(v, label)| {
                PivotRow::new(label.clone(), choices.iter().map(|c| cell(v, c)).collect())
            })
            .collect(),
    }];
    let series: Vec<(String, Vec<Option<Estimate>>)> = choices
        .iter()
        .map(|c| {
            (
                column(c),
                estimates(index, metric, row_values, |v| {
                    layout.point_at(v, None, &[], c)
                }),
            )
        })
        .collect();
    let mut charts_svg = Vec::new();
    if series.len() <= MAX_SERIES {
        charts_svg.push(charts::sweep_means(
            &name,
            &layout.row_key,
            &name,
            &layout.chart_labels,
            &series,
        )?);
    }
    let mut at_least_charts = Vec::new();
    for c in &choices {
        let caption = titled(format!("{name}: P(at least k)"), &layout.group_name(&[], c));
        at_least_charts.extend(at_least_chart(index, layout, metric, &caption, &|r| {
            layout.point_at(r, None, &[], c)
        })?);
    }
    let at_least = choices
        .iter()
        .map(|c| PivotTable {
            id: id("atleast", &format!("{metric}-{c}")),
            title: titled(format!("{name}: P(at least k)"), &layout.group_name(&[], c)),
            corner: format!("{} \\ k", layout.row_key),
            columns: ks.iter().map(|k| format!("{k}+")).collect(),
            rows: row_values
                .iter()
                .zip(row_labels)
                .map(|(v, label)| {
                    PivotRow::new(
                        label.clone(),
                        ks.iter()
                            .map(|&k| {
                                index
                                    .at_least(&layout.point_at(v, None, &[], c), metric, k)
                                    .map_or(String::new(), format::percent)
                            })
                            .collect(),
                    )
                })
                .collect(),
        })
        .collect();
    Ok(SweepMetric {
        id: id("sweep", metric),
        name,
        raw: metric.to_string(),
        means,
        charts: charts_svg,
        at_least_charts,
        at_least,
    })
}

/// A metric of a sweep of two keys or more: per grid group, a grid of means, a chart of them
/// (when the columns are few enough) and a grid per k of P(at least k).
fn grids_sweep_metric(
    index: &Index<'_>,
    layout: &SweepLayout<'_>,
    metric: &str,
) -> Result<SweepMetric, ReportError> {
    let name = labels::metric(metric);
    let (lo, hi) = index.range(metric).unwrap_or((0, 0));
    let ks: Vec<i64> = (lo + 1..=hi).take(MAX_K).collect();
    let (row_values, row_labels) = (&layout.row_values, &layout.row_labels);
    let (col_values, col_labels) = (&layout.col_values, &layout.col_labels);
    let mut means = Vec::new();
    let mut charts_svg = Vec::new();
    let mut at_least_charts = Vec::new();
    let mut at_least = Vec::new();
    for (further, choice) in &layout.groups {
        let group = layout.group_name(further, choice);
        let grid = |what: String, slug: String, cell: &dyn Fn(&SweepPoint) -> String| PivotTable {
            id: id(&slug, &format!("{metric}-{group}")),
            title: titled(what, &group),
            corner: layout.corner.clone(),
            columns: col_labels.clone(),
            rows: row_values
                .iter()
                .zip(row_labels)
                .map(|(r, label)| {
                    PivotRow::new(
                        label.clone(),
                        col_values
                            .iter()
                            .map(|c| cell(&layout.point_at(r, Some(c), further, choice)))
                            .collect(),
                    )
                })
                .collect(),
        };
        means.push(grid(
            format!("{name}: {}", index.mean_heading()),
            "means".into(),
            &|p| {
                index
                    .summary(p, metric)
                    .map_or(String::new(), |s| index.mean_cell(metric, s))
            },
        ));
        if col_values.len() <= MAX_SERIES {
            let series: Vec<(String, Vec<Option<Estimate>>)> = col_values
                .iter()
                .zip(col_labels)
                .map(|(c, label)| {
                    (
                        format!("{}: {label}", labels::key(&layout.names[1])),
                        estimates(index, metric, row_values, |r| {
                            layout.point_at(r, Some(c), further, choice)
                        }),
                    )
                })
                .collect();
            charts_svg.push(charts::sweep_means(
                &titled(name.clone(), &group),
                &layout.row_key,
                &name,
                &layout.chart_labels,
                &series,
            )?);
        }
        for (c, label) in col_values.iter().zip(col_labels) {
            let column = format!("{}: {label}", labels::key(&layout.names[1]));
            let caption = titled(format!("{name}: P(at least k), {column}"), &group);
            at_least_charts.extend(at_least_chart(index, layout, metric, &caption, &|r| {
                layout.point_at(r, Some(c), further, choice)
            })?);
        }
        for &k in &ks {
            at_least.push(grid(
                format!("{name}: P(at least {k})"),
                format!("atleast{k}"),
                &|p| {
                    index
                        .at_least(p, metric, k)
                        .map_or(String::new(), format::percent)
                },
            ));
        }
    }
    Ok(SweepMetric {
        id: id("sweep", metric),
        name,
        raw: metric.to_string(),
        means,
        charts: charts_svg,
        at_least_charts,
        at_least,
    })
}

/// What a sweep's grids show along each axis, in words.
fn sweep_axes(names: &[String]) -> String {
    let keys = names.len();
    let mut axes = format!("rows: {}", labels::key(&names[0]));
    if keys > 1 {
        axes.push_str(&format!("; columns: {}", labels::key(&names[1])));
    }
    if keys > 2 {
        let rest: Vec<String> = names[2..].iter().map(|k| labels::key(k)).collect();
        axes.push_str(&format!("; one grid for each {}", rest.join(" and ")));
    }
    axes
}

fn estimates(
    index: &Index<'_>,
    metric: &str,
    rows: &[String],
    point: impl Fn(&str) -> SweepPoint,
) -> Vec<Option<Estimate>> {
    rows.iter()
        .map(|r| {
            index.summary(&point(r), metric).map(|s| Estimate {
                mean: s.mean,
                low: s.ci95_low,
                high: s.ci95_high,
            })
        })
        .collect()
}
