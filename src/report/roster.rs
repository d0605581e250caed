//! A roster run's section: the matchup matrix as a heat map (`matchups.csv`) and each
//! profile's score and rating with intervals (`ratings.csv`).

use super::input::{Results, TextTable};
use super::table::{PivotRow, PivotTable};
use crate::format;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct RosterSection {
    pub matrix: PivotTable,
    pub ratings: PivotTable,
}

pub fn section(results: &Results) -> Option<RosterSection> {
    let matchups = results.matchups.as_ref()?;
    let ratings = results.ratings.as_ref()?;
    Some(RosterSection {
        matrix: matrix(matchups)?,
        ratings: rating_table(ratings),
    })
}

fn column(table: &TextTable, name: &str) -> Option<usize> {
    table.headers.iter().position(|h| h == name)
}

fn number(row: &[String], i: Option<usize>) -> f64 {
    i.and_then(|i| row.get(i))
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(f64::NAN)
}

/// The first slot's profiles as rows, the second's as columns, the share of trials the
/// first slot won in each cell, shaded from 0 (white) to 1 (blue).
fn matrix(table: &TextTable) -> Option<PivotTable> {
    let [first, second, won, low, high] = [
        "first",
        "second",
        "first_won",
        "first_won_ci95_low",
        "first_won_ci95_high",
    ]
    .map(|n| column(table, n));
    let (first, second) = (first?, second?);
    let mut ids: Vec<String> = Vec::new();
    for r in &table.rows {
        if !ids.contains(&r[first]) {
            ids.push(r[first].clone());
        }
    }
    let cell = |a: &str, b: &str| table.rows.iter().find(|r| r[first] == a && r[second] == b);
    let rows = ids
        .iter()
        .map(|a| {
            let found: Vec<Option<&Vec<String>>> = ids.iter().map(|b| cell(a, b)).collect();
            PivotRow {
                label: a.clone(),
                cells: found
                    .iter()
                    .map(|r| {
                        r.map_or(String::new(), |r| {
                            format::percent_with_interval(
                                number(r, won),
                                number(r, low),
                                number(r, high),
                            )
                        })
                    })
                    .collect(),
                shades: found
                    .iter()
                    .map(|r| r.map_or(String::new(), |r| super::cards::shade(number(r, won))))
                    .collect(),
            }
        })
        .collect();
    Some(PivotTable {
        id: "roster-matchups".into(),
        title: "Matchups: how often the first slot's profile (row) beats the second's (column)"
            .into(),
        corner: "first \\ second".into(),
        columns: ids,
        rows,
    })
}

fn rating_table(table: &TextTable) -> PivotTable {
    let [profile, points, models, score, low, high, rating, fair] = [
        "profile",
        "points",
        "models",
        "score",
        "score_ci95_low",
        "score_ci95_high",
        "rating",
        "fair_points",
    ]
    .map(|n| column(table, n));
    let text =
        |r: &[String], i: Option<usize>| i.and_then(|i| r.get(i)).cloned().unwrap_or_default();
    let rows = table
        .rows
        .iter()
        .map(|r| {
            let shown = |i| {
                let v = number(r, i);
                if v.is_finite() {
                    format::two_decimals(v)
                } else {
                    String::new()
                }
            };
            PivotRow::new(
                text(r, profile),
                vec![
                    text(r, points),
                    text(r, models),
                    format::percent_with_interval(
                        number(r, score),
                        number(r, low),
                        number(r, high),
                    ),
                    shown(rating),
                    shown(fair),
                ],
            )
        })
        .collect();
    PivotTable {
        id: "roster-ratings".into(),
        title: "Ratings: score against the field (wins, half of draws) and Bradley-Terry rating"
            .into(),
        corner: "profile".into(),
        columns: ["points", "models", "score", "rating", "fair points"]
            .map(String::from)
            .to_vec(),
        rows,
    }
}
