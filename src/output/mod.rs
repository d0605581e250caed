//! Output files: the CSV tables, the run metadata, and atomic writes of files and of whole
//! results folders. Output lays out what it is given and decides nothing.

mod atomic;
pub mod balance;
pub mod partial;
pub mod roster;
pub mod tables;

pub use atomic::{clear_leftovers, write_atomic, write_atomic_with, Claim};
pub use tables::{
    AdviceRow, Comparison, Distribution, ExactMetric, ExactReport, ExactVariant, MetricReport,
    Report, Tables, ValidationRow, VariantReport,
};

use serde::Serialize;
use std::path::PathBuf;

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
    /// Of the trials this process played, how many had their rules run (a trial of each
    /// sweep point and choice counting once): those on paths of draws not seen before, and
    /// those beyond what the engine's outcome graphs hold. The rest cost a walk. Only a run
    /// knows it; merged and exact tables leave it out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trials_played_in_full: Option<u64>,
    /// What acted in no trial of a run (steps, orders, weapons), with the reason where the
    /// scenario tells it; for merged tables, what acted in no trial of any part; empty for
    /// exact tables, which are not checked.
    pub warnings: Vec<String>,
    /// What a balance search found (`rollcall balance` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub balance: Option<balance::BalanceAnswer>,
}

/// The `method` of tables a simulation played.
pub const MONTE_CARLO: &str = "monte_carlo";
/// The `method` of tables the exact engine computed.
pub const EXACT: &str = "exact";
/// advice.csv's method for options scored by simulated continuations.
pub const ROLLOUT: &str = "rollout";

/// Which tables a run.json describes: the scenario (its name, and the hash of its file as read
/// after `--set`), the rollcall version and the method that made them, and the seed.
#[derive(Debug, Clone)]
pub struct Provenance {
    pub version: String,
    pub scenario: String,
    pub scenario_hash: String,
    pub method: String,
    pub seed: u64,
}

/// How a simulation played its trials (see the fields of [`RunMeta`] of the same names).
#[derive(Debug, Clone)]
pub struct TrialsPlayed {
    pub requested: u64,
    pub played: u64,
    pub chunk_size: u64,
    pub threads: usize,
    pub shard: String,
    pub complete: bool,
    pub played_in_full: Option<u64>,
}

impl RunMeta {
    /// run.json of the tables `made` describes, at `sweep_points` points, made in
    /// `wall_seconds`: played as `trials` says, or computed whole by the exact engine (no
    /// trials, one thread) when `trials` is `None`. The rate is worked out from them.
    pub fn new(
        made: Provenance,
        sweep_points: usize,
        trials: Option<TrialsPlayed>,
        wall_seconds: f64,
    ) -> RunMeta {
        let trials = trials.unwrap_or(TrialsPlayed {
            requested: 0,
            played: 0,
            chunk_size: 0,
            threads: 1,
            shard: "0/1".into(),
            complete: true,
            played_in_full: None,
        });
        RunMeta {
            version: made.version,
            scenario: made.scenario,
            scenario_hash: made.scenario_hash,
            method: made.method,
            seed: made.seed,
            trials_requested: trials.requested,
            sweep_points,
            trials_played: trials.played,
            chunk_size: trials.chunk_size,
            threads: trials.threads,
            shard: trials.shard,
            wall_seconds,
            trials_per_second: if wall_seconds > 0.0 {
                trials.played as f64 / wall_seconds
            } else {
                0.0
            },
            complete: trials.complete,
            trials_played_in_full: trials.played_in_full,
            warnings: Vec::new(),
            balance: None,
        }
    }
}

/// The files a run, `merge`, `exact` or `report` writes into a results folder. Replacing the
/// folder replaces these; anything else in it is kept (see [`Claim::replace`]).
pub const RUN_FILES: &[&str] = &[
    "summary.csv",
    "distribution.csv",
    "compare.csv",
    "rounds.csv",
    "orderings.csv",
    "equilibrium.csv",
    "advice.csv",
    "validation.csv",
    "balance.csv",
    "matchups.csv",
    "ratings.csv",
    "run.json",
    CHECKPOINT_FILE,
    "report.html",
    "report.md",
];

/// A whole run's checkpoint in its results folder (`run --checkpoint`).
pub const CHECKPOINT_FILE: &str = "checkpoint.json";

/// Whether `name` in a results folder belongs to the run that wrote the folder: one of
/// [`RUN_FILES`], or a temporary file of [`write_atomic`] a killed run left.
pub fn is_run_file(name: &str) -> bool {
    RUN_FILES.contains(&name) || (name.starts_with('.') && name.contains(".tmp-"))
}

/// Replaces the claimed results folder with one holding the tables and `run.json` (see
/// [`Claim::replace`]). Everything is laid out in memory first, so a failure to lay out
/// touches no file. `extra` holds further files (name, bytes) laid out by the caller.
pub fn write_run(
    claim: &Claim,
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
    if let Some(rounds) = tables::rounds_csv(report) {
        files.push(("rounds.csv", rounds));
    }
    files.extend(extra);
    let mut json = serde_json::to_vec_pretty(meta).map_err(std::io::Error::other)?;
    json.push(b'\n');
    files.push(("run.json", json));
    claim.replace(&files)?;
    Ok(files
        .iter()
        .map(|(name, _)| claim.dir().join(name))
        .collect())
}
