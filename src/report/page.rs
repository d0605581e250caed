//! What a report shows, decided once for both formats: the run's facts, per metric its
//! distribution and P(at least k), the paired comparisons of choices, a sweep's grids and a card
//! game's orderings. The templates only lay this out, as HTML or as Markdown.

use super::charts::{self, Estimate, Series, Split};
use super::input::{DistributionRow, Results, SummaryRow, SweepPoint, TextTable};
use super::labels;
use super::ReportError;
use crate::format;
use serde::Serialize;
use std::collections::HashMap;

/// A report page, ready for a template.
#[derive(Debug, Serialize)]
pub struct Page {
    pub title: String,
    pub facts: Vec<Fact>,
    pub warnings: Vec<String>,
    /// Metrics with one value in every trial everywhere: "wardens lost: always 0".
    pub constants: Vec<String>,
    pub metrics: Vec<MetricSection>,
    pub comparisons: Vec<ComparisonSection>,
    pub sweep: Option<SweepSection>,
    pub orderings: Option<PivotTable>,
    pub equilibrium: Option<PivotTable>,
}

#[derive(Debug, Serialize)]
pub struct Fact {
    pub name: String,
    pub value: String,
}

/// A table for people laid out as a pivot: a corner label, column headings and rows of text
/// cells, each row with its label.
#[derive(Debug, Clone, Serialize)]
pub struct PivotTable {
    pub id: String,
    pub title: String,
    pub corner: String,
    pub columns: Vec<String>,
    pub rows: Vec<PivotRow>,
}

/// One row of a [`PivotTable`]: its label and its cells, one per column.
#[derive(Debug, Clone, Serialize)]
pub struct PivotRow {
    pub label: String,
    pub cells: Vec<String>,
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
    pub at_least: Vec<PivotTable>,
}

/// At most this many series in one chart or one metric section; past it a sweep is read
/// through its grids only.
const MAX_SERIES: usize = 8;
/// At most this many values of k get a P(at least k) grid per metric.
const MAX_K: usize = 12;

/// The rows of the results, indexed by point and metric.
struct Index<'a> {
    results: &'a Results,
    points: Vec<SweepPoint>,
    metrics: Vec<String>,
    summary: HashMap<(SweepPoint, String), &'a SummaryRow>,
    distribution: HashMap<(SweepPoint, String), Vec<&'a DistributionRow>>,
}

impl<'a> Index<'a> {
    fn new(results: &'a Results) -> Index<'a> {
        let mut points: Vec<SweepPoint> = Vec::new();
        let mut metrics: Vec<String> = Vec::new();
        let mut summary = HashMap::new();
        for row in &results.summary {
            if !points.contains(&row.point) {
                points.push(row.point.clone());
            }
            if !metrics.contains(&row.metric) {
                metrics.push(row.metric.clone());
            }
            summary.insert((row.point.clone(), row.metric.clone()), row);
        }
        let mut distribution: HashMap<_, Vec<&DistributionRow>> = HashMap::new();
        for row in &results.distribution {
            distribution
                .entry((row.point.clone(), row.metric.clone()))
                .or_default()
                .push(row);
        }
        for rows in distribution.values_mut() {
            rows.sort_by_key(|r| r.value);
        }
        Index {
            results,
            points,
            metrics,
            summary,
            distribution,
        }
    }

    fn summary(&self, point: &SweepPoint, metric: &str) -> Option<&'a SummaryRow> {
        self.summary
            .get(&(point.clone(), metric.to_string()))
            .copied()
    }

    fn rows(&self, point: &SweepPoint, metric: &str) -> &[&'a DistributionRow] {
        self.distribution
            .get(&(point.clone(), metric.to_string()))
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
        self.points
            .iter()
            .filter_map(|p| self.summary(p, metric))
            .fold(None, |acc, s| match acc {
                None => Some((s.min, s.max)),
                Some((lo, hi)) => Some((lo.min(s.min), hi.max(s.max))),
            })
    }

    fn choices(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for p in &self.points {
            if !out.contains(&p.choice) {
                out.push(p.choice.clone());
            }
        }
        out
    }

    /// The values of sweep key i, in the order the tables list them.
    fn values(&self, i: usize) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for p in &self.points {
            if !out.contains(&p.params[i]) {
                out.push(p.params[i].clone());
            }
        }
        out
    }
}

/// Builds the page of a results folder.
pub fn build(results: &Results) -> Result<Page, ReportError> {
    let index = Index::new(results);
    let mut constants = Vec::new();
    let mut varying = Vec::new();
    for m in &index.metrics {
        match index.range(m) {
            Some((lo, hi)) if lo == hi => {
                constants.push(format!("{}: always {lo}", labels::metric(m)))
            }
            _ => varying.push(m.clone()),
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
        facts: facts(results, &index),
        warnings: warnings(results),
        constants,
        metrics,
        comparisons: comparisons(&index)?,
        sweep,
        orderings: results.orderings.as_ref().map(orderings),
        equilibrium: results
            .equilibrium
            .as_ref()
            .map(|t| equilibrium(t, results)),
    })
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
        facts.push(("Choices", choices.join(", ")));
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

fn warnings(results: &Results) -> Vec<String> {
    let mut out = Vec::new();
    if !results.run.complete {
        out.push(
            "This run was interrupted: the numbers come from the trials played before it stopped."
                .to_string(),
        );
    }
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

fn id(prefix: &str, text: &str) -> String {
    let slug: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("{prefix}-{slug}")
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
        title: format!("{}: mean and 95% interval", labels::metric(metric)),
        corner: "where".into(),
        columns: vec![
            "mean (95% interval)".into(),
            "lowest".into(),
            "highest".into(),
        ],
        rows: points
            .iter()
            .zip(&names)
            .filter_map(|(p, name)| {
                let s = index.summary(p, metric)?;
                Some(PivotRow {
                    label: name.clone(),
                    cells: vec![
                        format::with_interval(s.mean, s.ci95_low, s.ci95_high),
                        s.min.to_string(),
                        s.max.to_string(),
                    ],
                })
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
    Ok(MetricSection {
        id: id("metric", metric),
        name: labels::metric(metric),
        raw: metric.to_string(),
        summary,
        distribution_chart: charts::distribution(&x_desc, &series(false))?,
        at_least_chart: charts::at_least(&x_desc, &series(true))?,
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
                .map(|v| PivotRow {
                    label: v.to_string(),
                    cells: vec![
                        format::percent(exactly(p, v)),
                        format::percent(at_least(p, v)),
                    ],
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
                .map(|(p, name)| PivotRow {
                    label: name.clone(),
                    cells: (lo..=hi).map(|v| format::percent(cell(p, v))).collect(),
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
    let mut keys: Vec<(Vec<String>, String, String)> = Vec::new();
    for r in &results.compare {
        let key = (r.params.clone(), r.first.clone(), r.second.clone());
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    // A large sweep's comparisons of every point with the first would be a section each; its
    // grids already show the points side by side, and compare.csv keeps the paired rows.
    let points_compared = keys.iter().filter(|k| k.1.contains('=')).count();
    if points_compared > MOST_POINTS_COMPARED {
        keys.retain(|k| !k.1.contains('='));
    }
    keys.iter()
        .map(|(params, first_id, second_id)| {
            let (first, second) = (&labels::side(first_id), &labels::side(second_id));
            let (rows, same): (Vec<_>, Vec<_>) = results
                .compare
                .iter()
                .filter(|r| &r.params == params && &r.first == first_id && &r.second == second_id)
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
                    format!("mean difference, {first} minus {second} (95% interval)"),
                    format!("P({first} higher)"),
                    "P(equal)".into(),
                    format!("P({second} higher)"),
                ],
                rows: rows
                    .iter()
                    .map(|r| PivotRow {
                        label: labels::metric(&r.metric),
                        cells: vec![
                            format::with_interval(r.mean_diff, r.ci95_low, r.ci95_high),
                            format::percent(r.p_first_higher),
                            format::percent(r.p_equal),
                            format::percent(r.p_second_higher),
                        ],
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

/// The labels of a sweep key's values. A unit's size is also read as the models missing at the
/// start, when the tables pin down how many were alive: at every trial's end
/// `alive = alive at the start + restored - lost`, so the means give the start exactly.
fn value_labels(index: &Index<'_>, key: usize) -> Vec<String> {
    let name = &index.results.param_names[key];
    let values = index.values(key);
    let unit = name
        .strip_prefix("unit.")
        .and_then(|r| r.strip_suffix(".size"));
    values
        .iter()
        .map(|v| {
            let plain = labels::value(v);
            let (Some(unit), Ok(size)) = (unit, v.parse::<i64>()) else {
                return plain;
            };
            let starts: Vec<Option<i64>> = index
                .points
                .iter()
                .filter(|p| &p.params[key] == v)
                .map(|p| {
                    let mean = |m: &str| index.summary(p, &format!("{unit}.{m}")).map(|s| s.mean);
                    let start = mean("alive")? - mean("restored")? + mean("lost")?;
                    ((start - start.round()).abs() < 1e-6).then_some(start.round() as i64)
                })
                .collect();
            match starts.first() {
                Some(Some(a)) if starts.iter().all(|s| *s == Some(*a)) && size >= *a => {
                    format!("{} ({} missing)", plain, size - a)
                }
                _ => plain,
            }
        })
        .collect()
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
        let mut groups: Vec<(Vec<String>, String)> = Vec::new();
        for p in &index.points {
            let g = (p.params.get(2..).unwrap_or(&[]).to_vec(), p.choice.clone());
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
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
            .map_or(String::new(), |s| {
                format::with_interval(s.mean, s.ci95_low, s.ci95_high)
            })
    };
    let means = vec![PivotTable {
        id: id("means", metric),
        title: format!("{name}: mean (95% interval)"),
        corner: layout.corner.clone(),
        columns: choices.iter().map(column).collect(),
        rows: row_values
            .iter()
            .zip(row_labels)
            .map(|(v, label)| PivotRow {
                label: label.clone(),
                cells: choices.iter().map(|c| cell(v, c)).collect(),
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
                .map(|(v, label)| PivotRow {
                    label: label.clone(),
                    cells: ks
                        .iter()
                        .map(|&k| {
                            index
                                .at_least(&layout.point_at(v, None, &[], c), metric, k)
                                .map_or(String::new(), format::percent)
                        })
                        .collect(),
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
                .map(|(r, label)| PivotRow {
                    label: label.clone(),
                    cells: col_values
                        .iter()
                        .map(|c| cell(&layout.point_at(r, Some(c), further, choice)))
                        .collect(),
                })
                .collect(),
        };
        means.push(grid(
            format!("{name}: mean (95% interval)"),
            "means".into(),
            &|p| {
                index.summary(p, metric).map_or(String::new(), |s| {
                    format::with_interval(s.mean, s.ci95_low, s.ci95_high)
                })
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

/// `orderings.csv`: per pair of orderings (and per ordering against all the other side's),
/// the trials and A's margin, with its 95% interval where the table gives one (columns
/// `X_ci95_low`/`X_ci95_high` beside `X`, or bare `ci95_low`/`ci95_high` for the margin).
/// Per-card counts stay in the CSV.
fn orderings(table: &TextTable) -> PivotTable {
    let col = |name: &str| table.headers.iter().position(|h| h == name);
    let interval = |h: &str| -> Option<(usize, usize)> {
        let pair = |lo: &str, hi: &str| Some((col(lo)?, col(hi)?));
        pair(&format!("{h}_ci95_low"), &format!("{h}_ci95_high")).or_else(|| {
            (h == "a_margin")
                .then(|| pair("ci95_low", "ci95_high"))
                .flatten()
        })
    };
    let shown: Vec<(usize, Option<(usize, usize)>)> = table
        .headers
        .iter()
        .enumerate()
        .filter(|(_, h)| {
            let h = h.as_str();
            !h.contains("ci95")
                && (matches!(h, "a_ordering" | "b_ordering" | "trials")
                    || h.contains("margin")
                    || h.ends_with(".score"))
        })
        .map(|(i, h)| (i, interval(h)))
        .collect();
    let heading = |h: &str| match h {
        "a_ordering" => "A's ordering".to_string(),
        "b_ordering" => "B's ordering".to_string(),
        "a_margin" => "A's margin".to_string(),
        other => other.replace('_', " "),
    };
    let what = |kind: &str| {
        match kind {
            "pair" => "A's ordering against B's",
            "a_average" => "A's ordering, B's averaged",
            "a_worst" => "A's ordering, B's best reply",
            "b_average" => "B's ordering, A's averaged",
            "b_worst" => "B's ordering, A's best reply",
            other => other,
        }
        .to_string()
    };
    let cell = |r: &[String], i: usize, ci: Option<(usize, usize)>| -> String {
        let text = r.get(i).map_or("", |s| s.as_str());
        let num = |j: usize| r.get(j).and_then(|t| t.parse::<f64>().ok());
        match (text.parse::<f64>(), ci) {
            (Ok(x), Some((lo, hi))) => match (num(lo), num(hi)) {
                (Some(lo), Some(hi)) => format::with_interval(x, lo, hi),
                _ => format::two_decimals(x),
            },
            (Ok(x), None) if table.headers[i] == "trials" => format::thousands(x.max(0.0) as u64),
            (Ok(x), None) => format::two_decimals(x),
            (Err(_), _) if text == "*" => "any (averaged)".into(),
            (Err(_), _) => text.to_string(),
        }
    };
    PivotTable {
        id: "orderings".into(),
        title: "Orderings: A's margin (A's score minus B's)".into(),
        corner: "row".into(),
        columns: shown
            .iter()
            .map(|&(i, ci)| {
                let h = heading(&table.headers[i]);
                if ci.is_some() {
                    format!("{h} (95% interval)")
                } else {
                    h
                }
            })
            .collect(),
        rows: table
            .rows
            .iter()
            .map(|r| PivotRow {
                label: col("row")
                    .and_then(|i| r.get(i))
                    .map_or(String::new(), |k| what(k)),
                cells: shown.iter().map(|&(i, ci)| cell(r, i, ci)).collect(),
            })
            .collect(),
    }
}

/// `equilibrium.csv`: each ordering's probability in the equilibrium mix and the game's value
/// for A with its interval.
fn equilibrium(table: &TextTable, results: &Results) -> PivotTable {
    let col = |name: &str| table.headers.iter().position(|h| h == name);
    let params: Vec<usize> = results.param_names.iter().filter_map(|p| col(p)).collect();
    let get = |r: &Vec<String>, name: &str| {
        col(name)
            .and_then(|i| r.get(i))
            .cloned()
            .unwrap_or_default()
    };
    let mut columns: Vec<String> = results.param_names.iter().map(|k| labels::key(k)).collect();
    columns.extend([
        "ordering".to_string(),
        "probability".to_string(),
        "value for A (95% interval)".to_string(),
    ]);
    PivotTable {
        id: "equilibrium".into(),
        title: "Equilibrium: how often each ordering is played, and the game's value for A".into(),
        corner: "player".into(),
        columns,
        rows: table
            .rows
            .iter()
            .map(|r| {
                let mut cells: Vec<String> = params
                    .iter()
                    .map(|&i| labels::value(r.get(i).map_or("", |s| s.as_str())))
                    .collect();
                let num = |name: &str| get(r, name).parse::<f64>().ok();
                cells.push(get(r, "ordering"));
                cells.push(num("probability").map_or(String::new(), format::percent));
                cells.push(
                    match (num("value"), num("value_ci95_low"), num("value_ci95_high")) {
                        (Some(v), Some(lo), Some(hi)) => format::with_interval(v, lo, hi),
                        (Some(v), _, _) => format::two_decimals(v),
                        _ => String::new(),
                    },
                );
                PivotRow {
                    label: get(r, "player"),
                    cells,
                }
            })
            .collect(),
    }
}
