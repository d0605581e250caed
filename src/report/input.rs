//! Reading a results folder: `run.json` with serde, the CSV tables with the `csv` crate, each
//! row checked against the columns its table promises. Sweep parameters are the columns
//! between `choice` (or `scenario`) and `metric`, so any sweep reads the same way.

use super::ReportError;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// `run.json`: how the tables were made. Fields a report does without are optional, so
/// results written by older versions still read.
#[derive(Debug, Clone, Deserialize)]
pub struct RunInfo {
    pub version: String,
    pub scenario: String,
    pub method: String,
    pub seed: u64,
    pub trials_requested: u64,
    #[serde(default)]
    pub scenario_hash: String,
    #[serde(default)]
    pub sweep_points: Option<u64>,
    #[serde(default)]
    pub trials_played: Option<u64>,
    #[serde(default)]
    pub threads: Option<u64>,
    #[serde(default)]
    pub shard: Option<String>,
    #[serde(default)]
    pub wall_seconds: Option<f64>,
    pub complete: bool,
    /// What never acted in any trial (steps, orders, weapons) and why; none when absent.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The metrics the sides' best orders maximise, when the run names them; a report shows
    /// them first.
    #[serde(default)]
    pub objective: Vec<String>,
    /// What a balance search found, when the folder is one.
    #[serde(default)]
    pub balance: Option<crate::output::balance::BalanceAnswer>,
}

/// The sweep point and choice a row of a table belongs to: its sweep parameter values and its
/// choice ("" when none).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SweepPoint {
    pub params: Vec<String>,
    pub choice: String,
}

/// One `summary.csv` row.
#[derive(Debug, Clone)]
pub struct SummaryRow {
    pub point: SweepPoint,
    pub metric: String,
    pub trials: Option<u64>,
    pub mean: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    pub min: i64,
    pub max: i64,
}

/// One `distribution.csv` row.
#[derive(Debug, Clone)]
pub struct DistributionRow {
    pub point: SweepPoint,
    pub metric: String,
    pub value: i64,
    pub probability: f64,
    pub at_least: f64,
}

/// One `compare.csv` row.
#[derive(Debug, Clone)]
pub struct CompareRow {
    pub params: Vec<String>,
    pub metric: String,
    pub first: String,
    pub second: String,
    pub mean_diff: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    pub p_first_higher: f64,
    pub p_equal: f64,
    pub p_second_higher: f64,
}

/// One `rounds.csv` row: a record of an engagement at the end of a round.
#[derive(Debug, Clone)]
pub struct RoundRow {
    pub point: SweepPoint,
    pub round: u32,
    pub metric: String,
    pub mean: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
}

/// A table read as text, for tables whose columns vary (`orderings.csv`, `equilibrium.csv`).
#[derive(Debug, Clone, Default)]
pub struct TextTable {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Everything a report is made from.
#[derive(Debug, Clone)]
pub struct Results {
    pub dir: PathBuf,
    pub run: RunInfo,
    /// Modification time of `run.json`, seconds since the Unix epoch.
    pub written: Option<u64>,
    pub param_names: Vec<String>,
    pub summary: Vec<SummaryRow>,
    pub distribution: Vec<DistributionRow>,
    pub compare: Vec<CompareRow>,
    /// An engagement's records by round; empty when the folder has no `rounds.csv`.
    pub rounds: Vec<RoundRow>,
    pub orderings: Option<TextTable>,
    pub equilibrium: Option<TextTable>,
    /// `balance.csv`, when the folder is a balance search's.
    pub balance: Option<TextTable>,
    /// `matchups.csv` and `ratings.csv`, when the folder is a roster run's.
    pub matchups: Option<TextTable>,
    pub ratings: Option<TextTable>,
}

/// Reads a results folder; `summary.csv`, `distribution.csv` and `run.json` must be there.
pub fn read(dir: &Path) -> Result<Results, ReportError> {
    if !dir.is_dir() {
        return Err(ReportError::NotAFolder(dir.to_path_buf()));
    }
    let run_path = dir.join("run.json");
    let text = read_text(&run_path)?;
    let run: RunInfo = serde_json::from_str(&text).map_err(|e| ReportError::Json {
        file: run_path.clone(),
        line: e.line(),
        column: e.column(),
        problem: e.to_string(),
    })?;
    let written = std::fs::metadata(&run_path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs());

    let summary = Table::open(&dir.join("summary.csv"))?;
    let param_names = summary.params_between("choice", "metric")?;
    let summary_rows = summary.rows(|r| {
        Ok(SummaryRow {
            point: r.point(&param_names)?,
            metric: r.text("metric")?,
            trials: r.optional_number("trials")?,
            mean: r.number("mean")?,
            ci95_low: r.number("ci95_low")?,
            ci95_high: r.number("ci95_high")?,
            min: r.number("min")?,
            max: r.number("max")?,
        })
    })?;

    let distribution = Table::open(&dir.join("distribution.csv"))?;
    distribution.same_params(&param_names, "choice", "metric")?;
    let distribution_rows = distribution.rows(|r| {
        Ok(DistributionRow {
            point: r.point(&param_names)?,
            metric: r.text("metric")?,
            value: r.number("value")?,
            probability: r.number("probability")?,
            at_least: r.number("at_least")?,
        })
    })?;

    let compare_path = dir.join("compare.csv");
    let compare_rows = if compare_path.exists() {
        let compare = Table::open(&compare_path)?;
        compare.same_params(&param_names, "scenario", "metric")?;
        compare.rows(|r| {
            Ok(CompareRow {
                params: r.params(&param_names)?,
                metric: r.text("metric")?,
                first: r.text("first")?,
                second: r.text("second")?,
                mean_diff: r.number("mean_diff")?,
                ci95_low: r.number("ci95_low")?,
                ci95_high: r.number("ci95_high")?,
                p_first_higher: r.number("p_first_higher")?,
                p_equal: r.number("p_equal")?,
                p_second_higher: r.number("p_second_higher")?,
            })
        })?
    } else {
        Vec::new()
    };

    let rounds_path = dir.join("rounds.csv");
    let round_rows = if rounds_path.exists() {
        let rounds = Table::open(&rounds_path)?;
        rounds.same_params(&param_names, "choice", "round")?;
        rounds.rows(|r| {
            Ok(RoundRow {
                point: r.point(&param_names)?,
                round: r.number("round")?,
                metric: r.text("metric")?,
                mean: r.number("mean")?,
                ci95_low: r.number("ci95_low")?,
                ci95_high: r.number("ci95_high")?,
            })
        })?
    } else {
        Vec::new()
    };

    Ok(Results {
        dir: dir.to_path_buf(),
        run,
        written,
        param_names,
        summary: summary_rows,
        distribution: distribution_rows,
        compare: compare_rows,
        rounds: round_rows,
        orderings: text_table(&dir.join("orderings.csv"))?,
        equilibrium: text_table(&dir.join("equilibrium.csv"))?,
        balance: text_table(&dir.join("balance.csv"))?,
        matchups: text_table(&dir.join("matchups.csv"))?,
        ratings: text_table(&dir.join("ratings.csv"))?,
    })
}

fn read_text(path: &Path) -> Result<String, ReportError> {
    std::fs::read_to_string(path).map_err(|source| ReportError::Read {
        file: path.to_path_buf(),
        source,
    })
}

fn text_table(path: &Path) -> Result<Option<TextTable>, ReportError> {
    if !path.exists() {
        return Ok(None);
    }
    let table = Table::open(path)?;
    let rows = table.rows(|r| Ok(r.record.iter().map(str::to_string).collect()))?;
    Ok(Some(TextTable {
        headers: table.headers.clone(),
        rows,
    }))
}

/// A CSV file read whole, with its header, so rows can be looked up by column name.
struct Table {
    file: PathBuf,
    headers: Vec<String>,
    records: Vec<csv::StringRecord>,
}

/// One record of a [`Table`], for typed look-ups that name the file, line and column on error.
struct Row<'a> {
    table: &'a Table,
    record: &'a csv::StringRecord,
}

impl Table {
    fn open(path: &Path) -> Result<Table, ReportError> {
        let text = read_text(path)?;
        let csv_error = |e: csv::Error| {
            let line = e.position().map_or(0, |p| p.line());
            ReportError::Csv {
                file: path.to_path_buf(),
                line,
                column: String::new(),
                problem: e.to_string(),
            }
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(text.as_bytes());
        let headers: Vec<String> = reader
            .headers()
            .map_err(csv_error)?
            .iter()
            .map(str::to_string)
            .collect();
        if headers.len() <= 1 {
            return Err(ReportError::Csv {
                file: path.to_path_buf(),
                line: 1,
                column: String::new(),
                problem: "expected a header line of comma-separated column names".into(),
            });
        }
        let records = reader
            .records()
            .collect::<Result<Vec<_>, _>>()
            .map_err(csv_error)?;
        Ok(Table {
            file: path.to_path_buf(),
            headers,
            records,
        })
    }

    fn position(&self, column: &str) -> Result<usize, ReportError> {
        self.headers
            .iter()
            .position(|h| h == column)
            .ok_or_else(|| ReportError::Csv {
                file: self.file.clone(),
                line: 1,
                column: column.into(),
                problem: format!(
                    "expected a column named `{column}` in the header ({})",
                    self.headers.join(",")
                ),
            })
    }

    /// The sweep parameter names: the columns strictly between `after` and `before`.
    fn params_between(&self, after: &str, before: &str) -> Result<Vec<String>, ReportError> {
        let a = self.position(after)?;
        let b = self.position(before)?;
        if b <= a {
            return Err(ReportError::Csv {
                file: self.file.clone(),
                line: 1,
                column: before.into(),
                problem: format!("expected `{before}` after `{after}`"),
            });
        }
        Ok(self.headers[a + 1..b].to_vec())
    }

    /// Checks that this table has the same sweep parameters as `summary.csv`.
    fn same_params(&self, names: &[String], after: &str, before: &str) -> Result<(), ReportError> {
        let here = self.params_between(after, before)?;
        if here != names {
            return Err(ReportError::Csv {
                file: self.file.clone(),
                line: 1,
                column: String::new(),
                problem: format!(
                    "expected the sweep columns of summary.csv ({}), found ({})",
                    names.join(","),
                    here.join(",")
                ),
            });
        }
        Ok(())
    }

    fn rows<T>(
        &self,
        mut each: impl FnMut(&Row<'_>) -> Result<T, ReportError>,
    ) -> Result<Vec<T>, ReportError> {
        self.records
            .iter()
            .map(|record| {
                each(&Row {
                    table: self,
                    record,
                })
            })
            .collect()
    }
}

impl Row<'_> {
    fn line(&self) -> u64 {
        self.record.position().map_or(0, |p| p.line())
    }

    fn text(&self, column: &str) -> Result<String, ReportError> {
        let i = self.table.position(column)?;
        self.record
            .get(i)
            .map(str::to_string)
            .ok_or_else(|| self.bad(column, "", "a value in this column"))
    }

    fn number<T: std::str::FromStr>(&self, column: &str) -> Result<T, ReportError> {
        let text = self.text(column)?;
        text.trim()
            .parse()
            .map_err(|_| self.bad(column, &text, "a number"))
    }

    fn optional_number<T: std::str::FromStr>(
        &self,
        column: &str,
    ) -> Result<Option<T>, ReportError> {
        let text = self.text(column)?;
        if text.trim().is_empty() {
            return Ok(None);
        }
        self.number(column).map(Some)
    }

    fn params(&self, names: &[String]) -> Result<Vec<String>, ReportError> {
        names.iter().map(|n| self.text(n)).collect()
    }

    fn point(&self, names: &[String]) -> Result<SweepPoint, ReportError> {
        Ok(SweepPoint {
            params: self.params(names)?,
            choice: self.text("choice")?,
        })
    }

    fn bad(&self, column: &str, found: &str, expected: &str) -> ReportError {
        ReportError::Csv {
            file: self.table.file.clone(),
            line: self.line(),
            column: column.into(),
            problem: format!("expected {expected}, found \"{found}\""),
        }
    }
}
