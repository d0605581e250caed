//! The tables of a report, as both formats lay them out: a pivot of text cells with a corner
//! label, column headings and labelled rows.

use serde::Serialize;

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

/// One row of a [`PivotTable`]: its label and its cells, one per column, with each cell's
/// background colour where the table is a heat map (none otherwise).
#[derive(Debug, Clone, Serialize)]
pub struct PivotRow {
    pub label: String,
    pub cells: Vec<String>,
    pub shades: Vec<String>,
}

impl PivotRow {
    pub fn new(label: String, cells: Vec<String>) -> PivotRow {
        PivotRow {
            label,
            cells,
            shades: Vec::new(),
        }
    }
}

/// An HTML id for a table or section: `prefix-` and the text with anything but letters and
/// digits as `-`.
pub fn id(prefix: &str, text: &str) -> String {
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
