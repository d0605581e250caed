//! A balance search's section: the answer in words and the candidates played
//! (`balance.csv`), from what `run.json` and the table say.

use super::input::Results;
use super::table::{PivotRow, PivotTable};
use crate::format;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct BalanceSection {
    /// The answer, a sentence a line.
    pub answer: Vec<String>,
    pub candidates: PivotTable,
}

pub fn section(results: &Results) -> Option<BalanceSection> {
    let answer = results.run.balance.as_ref()?;
    let table = results.balance.as_ref()?;
    let column = |name: &str| table.headers.iter().position(|h| h == name);
    let [value, trials, mean, low, high, relative, closest, contradicts] = [
        "value",
        "trials",
        "mean",
        "ci95_low",
        "ci95_high",
        "relative",
        "closest",
        "contradicts",
    ]
    .map(column);
    let number = |row: &[String], i: Option<usize>| {
        i.and_then(|i| row.get(i))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(f64::NAN)
    };
    let text =
        |row: &[String], i: Option<usize>| i.and_then(|i| row.get(i)).cloned().unwrap_or_default();
    let rows = table
        .rows
        .iter()
        .map(|r| {
            let cells = vec![
                format::thousands(number(r, trials) as u64),
                format::with_interval(number(r, mean), number(r, low), number(r, high)),
                text(r, relative),
                if text(r, closest) == "1" {
                    "closest".into()
                } else {
                    String::new()
                },
                text(r, contradicts).replace(';', ", "),
            ];
            PivotRow::new(text(r, value), cells)
        })
        .collect();
    let target = format::plain_number(answer.target);
    let mut lines = vec![match &answer.pair {
        Some([a, b]) => format!(
            "{} reaches {target} between {} = {a} and {b}.",
            answer.metric, answer.vary
        ),
        None => format!(
            "{} does not reach {target} over the candidates played; the nearest is {} = {}.",
            answer.metric, answer.vary, answer.closest
        ),
    }];
    if let Some(c) = &answer.crossing {
        lines.push(format!(
            "Crossing: {} = {} (95%: {} to {}), interpolated between the pair.",
            answer.vary,
            format::two_decimals(c.estimate),
            format::two_decimals(c.ci95_low),
            format::two_decimals(c.ci95_high)
        ));
    }
    if !answer.decided {
        lines.push("--trials-max stopped the search before the answer was certain at 95%.".into());
    }
    for [a, b] in &answer.violations {
        lines.push(format!(
            "Not monotonic: {} = {a} and {b} contradict the order of the end candidates at 95%.",
            answer.vary
        ));
    }
    lines.push(format!(
        "{} trials over {} candidates played.",
        format::thousands(answer.trials_played),
        table.rows.len()
    ));
    Some(BalanceSection {
        answer: lines,
        candidates: PivotTable {
            id: "balance-candidates".into(),
            title: format!("Candidates played ({})", answer.vary),
            corner: answer.vary.clone(),
            columns: ["trials", "mean (95%)", "against target", "", "contradicts"]
                .map(String::from)
                .to_vec(),
            rows,
        },
    })
}
