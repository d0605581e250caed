//! Output files: the CSV tables, the run metadata, and atomic writes. Output lays out what it
//! is given and decides nothing.

mod atomic;
pub mod partial;
pub mod tables;

pub use atomic::write_atomic;
pub use tables::{
    AdviceRow, Comparison, Distribution, ExactMetric, ExactReport, ExactVariant, MetricReport,
    Report, Tables, ValidationRow, VariantReport,
};

use serde::Serialize;
use std::path::{Path, PathBuf};

/// `run.json`: how the tables were made.
#[derive(Debug, Clone, Serialize)]
pub struct RunMeta {
    pub version: String,
    pub scenario: String,
    pub scenario_hash: String,
    pub method: String,
    pub seed: u64,
    /// Trials asked for at each sweep point.
    pub trials_requested: u64,
    pub sweep_points: usize,
    /// Trials played (each plays every sweep point and every choice); less than requested
    /// when the run was interrupted or stopped early by `--precision`.
    pub trials_played: u64,
    pub chunk_size: u64,
    pub threads: usize,
    pub shard: String,
    pub wall_seconds: f64,
    pub trials_per_second: f64,
    pub complete: bool,
}

/// Writes the tables and `run.json` into `dir` (created if needed), each file atomically.
/// Everything is laid out in memory first, so a failure to lay out touches no file.
/// `extra` holds further tables (name, bytes) laid out by the caller.
pub fn write_run(
    dir: &Path,
    report: &impl Tables,
    meta: &RunMeta,
    extra: Vec<(&str, Vec<u8>)>,
) -> std::io::Result<Vec<PathBuf>> {
    let mut files = vec![
        ("summary.csv", tables::summary_csv(report)),
        ("distribution.csv", tables::distribution_csv(report)),
    ];
    if let Some(compare) = report.compare_table() {
        files.push(("compare.csv", compare));
    }
    files.extend(extra);
    let mut json = serde_json::to_vec_pretty(meta).map_err(std::io::Error::other)?;
    json.push(b'\n');
    files.push(("run.json", json));
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for (name, bytes) in files {
        let path = dir.join(name);
        write_atomic(&path, &bytes)?;
        written.push(path);
    }
    Ok(written)
}
