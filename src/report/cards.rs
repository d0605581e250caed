//! A card game's report, read in the order a player asks: the equilibrium first (how often
//! each player lays each ordering and what the game is worth to A, from `equilibrium.csv`),
//! then the payoff matrix as a heat map (A's mean margin for each pair of orderings, from the
//! pair rows of `orderings.csv`), then the orderings table; with a word when the game has no
//! chance in it and when an equilibrium mix is not the only one.

use super::input::{Results, TextTable};
use super::labels;
use super::table::{PivotRow, PivotTable};
use crate::format;
use serde::Serialize;

/// A card game's sections, ready for a template.
#[derive(Debug, Serialize)]
pub struct CardSection {
    pub equilibrium: Option<PivotTable>,
    /// "No chance in it", "not unique": what the tables alone do not say.
    pub notes: Vec<String>,
    /// One payoff matrix per sweep point.
    pub payoffs: Vec<PivotTable>,
    pub orderings: PivotTable,
}

/// One sweep point's game: A's orderings (rows), B's (columns) and A's mean margin per pair.
struct Game {
    params: Vec<String>,
    a: Vec<String>,
    b: Vec<String>,
    margin: Vec<Vec<Option<f64>>>,
}

/// One sweep point's equilibrium: each player's mix (ordering, probability) and A's value.
struct Mix {
    params: Vec<String>,
    a: Vec<(String, f64)>,
    b: Vec<(String, f64)>,
    value: f64,
    low: f64,
    high: f64,
}

/// The card sections of a results folder, when it holds `orderings.csv`.
pub fn section(results: &Results) -> Option<CardSection> {
    let table = results.orderings.as_ref()?;
    let names = &results.param_names;
    let games = games(table, names);
    let mixes = results
        .equilibrium
        .as_ref()
        .map(|t| mixes(t, names))
        .unwrap_or_default();
    let mut notes = Vec::new();
    if results.summary.iter().all(|s| s.min == s.max) {
        notes.push(
            "This game has no chance in it: every trial of a pair of orderings ends the same \
             (every metric's variance is 0), so one trial per pair gives these same tables."
                .to_string(),
        );
    }
    for mix in &mixes {
        if let Some(game) = games.iter().find(|g| g.params == mix.params) {
            notes.extend(not_unique(game, mix, names));
        }
    }
    Some(CardSection {
        equilibrium: (!mixes.is_empty()).then(|| equilibrium(&mixes, names)),
        notes,
        payoffs: games.iter().map(|g| payoff_matrix(g, names)).collect(),
        orderings: orderings(table),
    })
}

/// How many orderings each player has among a card game's choices (`A:x>y|B:c1>c2`), in
/// the order the players are named; none when the choices are not pairs of orderings.
pub fn orderings_per_player(choices: &[String]) -> Option<Vec<(String, usize)>> {
    let mut players: Vec<(String, Vec<String>)> = Vec::new();
    for choice in choices {
        for part in choice.split('|') {
            let (player, ordering) = part.split_once(':')?;
            match players.iter_mut().find(|(p, _)| p == player) {
                Some((_, seen)) if !seen.iter().any(|o| o == ordering) => {
                    seen.push(ordering.to_string())
                }
                Some(_) => {}
                None => players.push((player.to_string(), vec![ordering.to_string()])),
            }
        }
    }
    (players.len() > 1).then(|| players.into_iter().map(|(p, o)| (p, o.len())).collect())
}

/// The sweep point a row of a card table belongs to, by the run's sweep keys.
fn point_of(table: &TextTable, names: &[String], row: &[String]) -> Vec<String> {
    names
        .iter()
        .map(|n| cell(table, row, n).to_string())
        .collect()
}

fn cell<'a>(table: &TextTable, row: &'a [String], column: &str) -> &'a str {
    table
        .headers
        .iter()
        .position(|h| h == column)
        .and_then(|i| row.get(i))
        .map_or("", |s| s.as_str())
}

/// Words for a sweep point ("cards initiative: A, "), empty when nothing is swept.
fn point_words(names: &[String], params: &[String]) -> String {
    names
        .iter()
        .zip(params)
        .map(|(k, v)| format!("{}: {}, ", labels::key(k), labels::value(v)))
        .collect()
}

/// The pair rows of `orderings.csv`, per sweep point.
fn games(table: &TextTable, names: &[String]) -> Vec<Game> {
    let mut games: Vec<Game> = Vec::new();
    for row in table
        .rows
        .iter()
        .filter(|r| cell(table, r, "row") == "pair")
    {
        let params = point_of(table, names, row);
        let i = match games.iter().position(|g| g.params == params) {
            Some(i) => i,
            None => {
                games.push(Game {
                    params,
                    a: Vec::new(),
                    b: Vec::new(),
                    margin: Vec::new(),
                });
                games.len() - 1
            }
        };
        let game = &mut games[i];
        let (a, b) = (
            cell(table, row, "a_ordering"),
            cell(table, row, "b_ordering"),
        );
        let ai = position_or_push(&mut game.a, a);
        let bi = position_or_push(&mut game.b, b);
        game.margin.resize(game.a.len(), Vec::new());
        let line = &mut game.margin[ai];
        if line.len() <= bi {
            line.resize(bi + 1, None);
        }
        line[bi] = cell(table, row, "a_margin").parse().ok();
    }
    games
}

fn position_or_push(list: &mut Vec<String>, item: &str) -> usize {
    list.iter().position(|x| x == item).unwrap_or_else(|| {
        list.push(item.to_string());
        list.len() - 1
    })
}

impl Game {
    fn at(&self, a: usize, b: usize) -> Option<f64> {
        self.margin.get(a).and_then(|l| l.get(b)).copied().flatten()
    }
}

/// The rows of `equilibrium.csv`, per sweep point.
fn mixes(table: &TextTable, names: &[String]) -> Vec<Mix> {
    let mut mixes: Vec<Mix> = Vec::new();
    for row in &table.rows {
        let params = point_of(table, names, row);
        let num = |c: &str| cell(table, row, c).parse::<f64>().ok();
        let i = match mixes.iter().position(|m| m.params == params) {
            Some(i) => i,
            None => {
                let value = num("value").unwrap_or(f64::NAN);
                mixes.push(Mix {
                    params,
                    a: Vec::new(),
                    b: Vec::new(),
                    value,
                    low: num("value_ci95_low").unwrap_or(value),
                    high: num("value_ci95_high").unwrap_or(value),
                });
                mixes.len() - 1
            }
        };
        let entry = (
            cell(table, row, "ordering").to_string(),
            num("probability").unwrap_or(0.0),
        );
        match cell(table, row, "player") {
            "A" => mixes[i].a.push(entry),
            _ => mixes[i].b.push(entry),
        }
    }
    mixes
}

/// Each player's mix at each sweep point ("x>y 75.0%, y>x 25.0%") and the game's value.
fn equilibrium(mixes: &[Mix], names: &[String]) -> PivotTable {
    let mut columns: Vec<String> = names.iter().map(|k| labels::key(k)).collect();
    // A game without chance has an exact value: no interval to label or show.
    let exact = |m: &Mix| m.low == m.high;
    columns.extend([
        "plays".to_string(),
        if mixes.iter().all(exact) {
            "value for A (exact)".to_string()
        } else {
            "value for A (95% interval)".to_string()
        },
    ]);
    let played = |mix: &[(String, f64)]| -> String {
        let mut shown: Vec<&(String, f64)> = mix.iter().filter(|(_, p)| *p > 0.0).collect();
        shown.sort_by(|x, y| y.1.total_cmp(&x.1));
        match shown.as_slice() {
            [(only, p)] if *p >= 1.0 - 1e-9 => format!("{only} always"),
            _ => shown
                .iter()
                .map(|(o, p)| format!("{o} {}", format::percent(*p)))
                .collect::<Vec<_>>()
                .join(", "),
        }
    };
    let rows = mixes
        .iter()
        .flat_map(|m| {
            let value = format::with_interval(m.value, m.low, m.high);
            [("A", &m.a), ("B", &m.b)].map(|(player, mix)| {
                let mut cells: Vec<String> = m.params.iter().map(|v| labels::value(v)).collect();
                cells.push(played(mix));
                cells.push(value.clone());
                PivotRow::new(player.to_string(), cells)
            })
        })
        .collect();
    PivotTable {
        id: "equilibrium".into(),
        title: "Equilibrium: how often each player lays each ordering, and the game's value for A"
            .into(),
        corner: "player".into(),
        columns,
        rows,
    }
}

/// Orderings outside a player's mix that do as well against the other's mix as the mix itself
/// (reach the game's value, within rounding): then the mix is one optimum among several.
fn not_unique(game: &Game, mix: &Mix, names: &[String]) -> Vec<String> {
    let tolerance = 1e-6 * mix.value.abs().max(1.0);
    let weight = |m: &[(String, f64)], ordering: &str| {
        m.iter()
            .find(|(o, _)| o == ordering)
            .map_or(0.0, |(_, p)| *p)
    };
    // A's payoff of its ordering i against B's mix, and of A's mix against B's ordering j.
    let against_b = |i: usize| -> Option<f64> {
        (0..game.b.len())
            .map(|j| Some(weight(&mix.b, &game.b[j]) * game.at(i, j)?))
            .sum()
    };
    let against_a = |j: usize| -> Option<f64> {
        (0..game.a.len())
            .map(|i| Some(weight(&mix.a, &game.a[i]) * game.at(i, j)?))
            .sum()
    };
    let also =
        |orderings: &[String], mine: &[(String, f64)], payoff: &dyn Fn(usize) -> Option<f64>| {
            orderings
                .iter()
                .enumerate()
                .filter(|(i, o)| {
                    weight(mine, o) == 0.0
                        && payoff(*i).is_some_and(|v| (v - mix.value).abs() <= tolerance)
                })
                .map(|(_, o)| o.clone())
                .collect::<Vec<_>>()
        };
    let at = point_words(names, &mix.params);
    let value = format::two_decimals(mix.value);
    let mut notes = Vec::new();
    for (player, other, found) in [
        ("A", "B", also(&game.a, &mix.a, &against_b)),
        ("B", "A", also(&game.b, &mix.b, &against_a)),
    ] {
        if !found.is_empty() {
            notes.push(format!(
                "{at}{player}'s equilibrium mix is not unique: {}, outside the mix, also \
                 reach{} the game's value ({value}) against {other}'s mix.",
                found.join(", "),
                if found.len() == 1 { "es" } else { "" }
            ));
        }
    }
    notes
}

/// A heat map's colour for a value at `t` between the lowest (0, white) and the highest (1).
pub(super) fn shade(t: f64) -> String {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mix = |full: f64| (255.0 - t * (255.0 - full)).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(107.0), mix(174.0), mix(214.0))
}

/// A sweep point's payoff matrix: A's orderings as rows, B's as columns, A's mean margin in
/// each cell, shaded from the lowest margin (white) to the highest (blue).
fn payoff_matrix(game: &Game, names: &[String]) -> PivotTable {
    let all: Vec<f64> = game.margin.iter().flatten().flatten().copied().collect();
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let at = point_words(names, &game.params);
    let at = at.trim_end_matches(", ");
    let title = if at.is_empty() {
        "Payoff matrix: A's mean margin for each pair of orderings".to_string()
    } else {
        format!("Payoff matrix: A's mean margin for each pair of orderings, {at}")
    };
    PivotTable {
        id: super::table::id("payoffs", &game.params.join("-")),
        title,
        corner: "A \\ B".into(),
        columns: game.b.clone(),
        rows: game
            .a
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let values: Vec<Option<f64>> = (0..game.b.len()).map(|j| game.at(i, j)).collect();
                PivotRow {
                    label: a.clone(),
                    cells: values
                        .iter()
                        .map(|v| v.map_or(String::new(), format::two_decimals))
                        .collect(),
                    shades: values
                        .iter()
                        .map(|v| {
                            v.map_or(String::new(), |v| {
                                shade(if hi > lo { (v - lo) / (hi - lo) } else { 0.5 })
                            })
                        })
                        .collect(),
                }
            })
            .collect(),
    }
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
            .map(|r| {
                PivotRow::new(
                    col("row")
                        .and_then(|i| r.get(i))
                        .map_or(String::new(), |k| what(k)),
                    shown.iter().map(|&(i, ci)| cell(r, i, ci)).collect(),
                )
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_choices_count_each_players_orderings() {
        let choices: Vec<String> = ["x>y", "y>x", "z>y"]
            .iter()
            .flat_map(|a| ["c>d", "d>c"].map(|b| format!("A:{a}|B:{b}")))
            .collect();
        assert_eq!(
            orderings_per_player(&choices),
            Some(vec![("A".to_string(), 3), ("B".to_string(), 2)])
        );
        assert_eq!(orderings_per_player(&["rally".to_string()]), None);
    }

    #[test]
    fn a_heat_map_runs_from_white_to_blue() {
        assert_eq!(shade(0.0), "#ffffff");
        assert_eq!(shade(1.0), "#6baed6");
    }
}
