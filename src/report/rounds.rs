//! An engagement's records by round (`rounds.csv`) as curves: per unit, its models alive at
//! the end of each round; per side, the chance it had won by then. One line per sweep point
//! and choice, each with its table of means for the Markdown report.

use super::charts::{self, Estimate};
use super::input::{Results, RoundRow, SweepPoint};
use super::labels;
use super::table::{id, PivotRow, PivotTable};
use super::ReportError;
use crate::format;
use serde::Serialize;
use std::collections::HashMap;

/// One record drawn by round: its table and chart.
#[derive(Debug, Clone, Serialize)]
pub struct RoundChart {
    pub id: String,
    pub title: String,
    pub table: PivotTable,
    pub chart: String,
}

/// What a record of rounds.csv is drawn as, by its name: `None` for those not drawn
/// (`engagement.over`, whose chance is the sides' won added up, plus the draws at the last
/// round).
fn drawn(metric: &str) -> Option<(String, &'static str, bool)> {
    let (subject, field) = metric.rsplit_once('.')?;
    match field {
        "alive" => Some((
            format!("{} alive by round", labels::metric(subject)),
            "models alive",
            false,
        )),
        "won" if subject != "engagement" => Some((
            format!("P({} won by round r)", labels::metric(subject)),
            "P(won by then)",
            true,
        )),
        _ => None,
    }
}

/// The charts of the records by round, when the folder has them and they fit one chart each
/// (at most [`charts::MAX_LINES`] sweep points and choices); `name` names a point in a legend.
pub fn section(
    results: &Results,
    exact: bool,
    name: impl Fn(&SweepPoint) -> String,
) -> Result<Vec<RoundChart>, ReportError> {
    let mut points: Vec<&SweepPoint> = Vec::new();
    let mut metrics: Vec<&str> = Vec::new();
    let mut rounds = std::collections::BTreeSet::new();
    for row in &results.rounds {
        if !points.contains(&&row.point) {
            points.push(&row.point);
        }
        if !metrics.contains(&row.metric.as_str()) {
            metrics.push(&row.metric);
        }
        rounds.insert(row.round);
    }
    if points.len() > charts::MAX_LINES {
        return Ok(Vec::new());
    }
    let names: Vec<String> = points.iter().map(|p| name(p)).collect();
    // Each row by (point, metric, round), the first of equals: looked up once per point of
    // every curve, so a long engagement's rows are not scanned for each.
    let mut by_key: HashMap<(usize, &str, u32), &RoundRow> = HashMap::new();
    for row in &results.rounds {
        if let Some(at) = points.iter().position(|p| *p == &row.point) {
            by_key.entry((at, &row.metric, row.round)).or_insert(row);
        }
    }
    let find =
        |point: usize, metric: &str, round: u32| by_key.get(&(point, metric, round)).copied();
    let mut out = Vec::new();
    for metric in metrics {
        let Some((title, y_desc, share)) = drawn(metric) else {
            continue;
        };
        let title = if exact {
            format!("{title} (exact)")
        } else {
            title
        };
        let lines: Vec<(String, Vec<Option<Estimate>>)> = (0..points.len())
            .zip(&names)
            .map(|(p, n)| {
                let estimates = rounds.iter().map(|&r| {
                    find(p, metric, r).map(|row| Estimate {
                        mean: row.mean,
                        low: row.ci95_low,
                        high: row.ci95_high,
                    })
                });
                (n.clone(), estimates.collect())
            })
            .collect();
        let x_labels: Vec<String> = rounds.iter().map(u32::to_string).collect();
        let chart = charts::sweep_means(&title, "round", y_desc, &x_labels, &lines)?;
        let cell = |e: &Option<Estimate>| match e {
            None => String::new(),
            Some(e) if share => format::percent_with_interval(e.mean, e.low, e.high),
            Some(e) => format::with_interval(e.mean, e.low, e.high),
        };
        let rows = x_labels
            .iter()
            .enumerate()
            .map(|(i, r)| PivotRow::new(r.clone(), lines.iter().map(|l| cell(&l.1[i])).collect()))
            .collect();
        let table = PivotTable {
            id: id("rounds-table", metric),
            title: title.clone(),
            corner: "round".into(),
            columns: names.clone(),
            rows,
        };
        out.push(RoundChart {
            id: id("rounds", metric),
            title,
            table,
            chart,
        });
    }
    Ok(out)
}
