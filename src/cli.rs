//! Command-line flags, parsed by clap into the typed options of [`crate::app`].
//! No rules here: only spelling, ranges and defaults of flags.

use crate::app::{BalanceOptions, FileOptions, RunOptions};
use crate::config::suggest::quoted;
use crate::engine::Shard;
use crate::output::partial::MAX_SHARDS;
use crate::scenario::{parse_count, parse_setting, Setting};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "rollcall",
    version,
    about = "Monte Carlo statistics for tabletop game rules: Rally, Call of the Masters, and more"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: CommandLine,
}

#[derive(Debug, Subcommand)]
pub enum CommandLine {
    /// Run scenarios and write summary.csv, distribution.csv (compare.csv) and run.json.
    /// With no FILE, runs every configs/*.toml.
    Run(RunArgs),
    /// Compute the exact distribution of every metric by dynamic programming (dice-only
    /// scenarios with a small enough state space) and write summary.csv and distribution.csv
    /// with method = exact.
    #[command(mut_arg("out", |out| out.help(
        "Output folder (default: results/SCENARIO/exact/, apart from a simulation's tables)"
    )))]
    Exact(FileArgs),
    /// Work out the best option of every `best` order by backward induction over the exact
    /// states of the engagement, and write advice.csv with summary.csv and distribution.csv
    /// of optimal play (method = exact).
    /// With --rollouts N (and wherever the exact engine refuses), score each option of every
    /// `best` unit's first decision by N simulated continuations on common random numbers.
    Advise(AdviseArgs),
    /// Search `[balance]`'s candidates for the value at which the metric's mean meets the
    /// target, playing only the candidates and trials the answer needs; write balance.csv
    /// with the tables of the candidates played.
    Balance(BalanceArgs),
    /// Merge the partial results of a sharded run into the tables a single run writes.
    Merge {
        /// Partial-results files, or folders holding them (shard-*.json).
        #[arg(required = true)]
        parts: Vec<PathBuf>,
        /// Output folder for the merged tables.
        #[arg(long)]
        out: PathBuf,
    },
    /// Write report.html (self-contained, charts inline) and report.md from results folders.
    Report {
        /// Results folders written by run, exact or merge.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Output folder (default: each results folder; with several, DIR/FOLDER-NAME/).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Validate scenario files without running them.
    Check {
        /// Scenario files (default: every configs/*.toml).
        files: Vec<PathBuf>,
        /// Override any key before validation, as `run --set` does.
        #[arg(long = "set", value_name = "KEY=VALUE", value_parser = setting)]
        settings: Vec<Setting>,
    },
    /// Say in plain words what one trial of a scenario does: units, where they stand, options,
    /// steps or orders, what each metric counts, and whether the exact engine takes it.
    Explain {
        /// Scenario file.
        file: PathBuf,
        /// Override any key before validation, as `run --set` does.
        #[arg(long = "set", value_name = "KEY=VALUE", value_parser = setting)]
        settings: Vec<Setting>,
    },
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Scenario files (default: every configs/*.toml).
    pub files: Vec<PathBuf>,
    /// Trials per sweep point: 1000000, 1e6 or 1M (overrides scenario.trials).
    #[arg(long, allow_negative_numbers = true, value_parser = trials)]
    pub trials: Option<u64>,
    /// Seed of the random streams (overrides scenario.seed).
    #[arg(long, allow_negative_numbers = true, value_parser = seed)]
    pub seed: Option<u64>,
    /// Worker threads (default: every core). Results do not depend on it.
    #[arg(long, allow_negative_numbers = true, value_parser = threads)]
    pub threads: Option<u64>,
    /// Output folder (default: results/SCENARIO/; with several files, DIR/SCENARIO/).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Override any key before validation, e.g. --set unit.wardens.alive=4 (quote values with
    /// shell characters: --set 'unit.wardens.resolve=d6>=3').
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = setting)]
    pub settings: Vec<Setting>,
    /// Stop once every mean's 95% half-width is below EPS (checked at fixed chunk counts).
    #[arg(long, value_name = "EPS", value_parser = precision)]
    pub precision: Option<f64>,
    /// Run only shard I of N (0-based) and write a partial-results file (DIR/shard-I-of-N.json)
    /// for `rollcall merge` instead of the tables.
    #[arg(long, value_name = "I/N", value_parser = shard)]
    pub shard: Option<Shard>,
    /// No progress bar and no summary line (warnings, such as a run --validate could not
    /// check, and validation failures are still printed).
    #[arg(long)]
    pub quiet: bool,
    /// Where the exact engine applies, also write validation.csv (exact vs simulated mean,
    /// z-score, chi-square p-value per metric); exit 1 if any metric fails.
    #[arg(long)]
    pub validate: bool,
    /// Save progress into the results folder (DIR/checkpoint.json; a shard's beside its part)
    /// at most every SECONDS, so that `--resume DIR` can finish a run that was killed.
    #[arg(long, value_name = "SECONDS", value_parser = checkpoint)]
    pub checkpoint: Option<std::time::Duration>,
    /// Continue the run whose checkpoint is in DIR and write its tables there, the same bytes
    /// an uninterrupted run writes. Give the scenario file and flags of the interrupted run.
    #[arg(long, value_name = "DIR")]
    pub resume: Option<PathBuf>,
    /// Also write report.html and report.md next to the tables.
    #[arg(long)]
    pub report: bool,
    /// The most states the exact engine may hold (for `best` orders and --validate); default:
    /// what half the memory available holds, at least 4,000,000.
    #[arg(long, value_name = "N", value_parser = max_states)]
    pub max_states: Option<u64>,
}

#[derive(Debug, clap::Args)]
pub struct BalanceArgs {
    /// Scenario file with a `[balance]` section.
    pub file: PathBuf,
    /// The most trials any one candidate is played with: 1000000, 1e6 or 1M (default: the
    /// scenario's trials).
    #[arg(long, allow_negative_numbers = true, value_parser = trials)]
    pub trials_max: Option<u64>,
    /// Seed of the random streams (overrides scenario.seed).
    #[arg(long, allow_negative_numbers = true, value_parser = seed)]
    pub seed: Option<u64>,
    /// Worker threads (default: every core). Results do not depend on it.
    #[arg(long, allow_negative_numbers = true, value_parser = threads)]
    pub threads: Option<u64>,
    /// Output folder (default: results/SCENARIO/balance/).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Override any key before validation, as `run --set` does.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = setting)]
    pub settings: Vec<Setting>,
    /// No progress bar and no summary line on stderr (the answer is still printed).
    #[arg(long)]
    pub quiet: bool,
    /// Save the search's progress (DIR/checkpoint.json) at most every SECONDS.
    #[arg(long, value_name = "SECONDS", value_parser = checkpoint)]
    pub checkpoint: Option<std::time::Duration>,
    /// Continue the search whose checkpoint is in DIR, with the same file and flags.
    #[arg(long, value_name = "DIR")]
    pub resume: Option<PathBuf>,
    /// Also write report.html and report.md next to the tables.
    #[arg(long)]
    pub report: bool,
}

impl BalanceArgs {
    pub fn into_options(self) -> BalanceOptions {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        BalanceOptions {
            file: self.file,
            trials_max: self.trials_max,
            seed: self.seed,
            threads: self.threads.map_or(cores, |t| t as usize),
            out: self.out,
            settings: self.settings,
            quiet: self.quiet,
            checkpoint: self.checkpoint,
            resume: self.resume,
            report: self.report,
        }
    }
}

/// The flags of a command on one scenario file (`exact`, `advise`). Each command says in its
/// own words where `--out` writes by default.
#[derive(Debug, clap::Args)]
pub struct FileArgs {
    /// Scenario file.
    pub file: PathBuf,
    /// Output folder (default: a folder of the command's own inside results/SCENARIO/).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Override any key before validation, e.g. --set unit.wardens.alive=4.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = setting)]
    pub settings: Vec<Setting>,
    /// The most states the exact engine may hold; default: what half the memory available
    /// holds, at least 4,000,000.
    #[arg(long, value_name = "N", value_parser = max_states)]
    pub max_states: Option<u64>,
}

impl FileArgs {
    pub fn into_options(self) -> FileOptions {
        FileOptions {
            file: self.file,
            out: self.out,
            settings: self.settings,
            max_states: self.max_states,
        }
    }
}

/// `rollcall advise`: a file's flags, and how many rollouts score each first decision.
#[derive(Debug, clap::Args)]
#[command(mut_arg("out", |out| out.help(
    "Output folder (default: results/SCENARIO/advice/, apart from a simulation's tables)"
)))]
pub struct AdviseArgs {
    #[command(flatten)]
    pub file: FileArgs,
    /// Score each option of every `best` unit's first decision by N simulated continuations
    /// (1000000, 1e6 or 1M) instead of the exact engine (used anyway where it refuses, with
    /// the scenario's trials).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = rollouts)]
    pub rollouts: Option<u64>,
}

impl AdviseArgs {
    /// The file's options and the rollouts asked for.
    pub fn into_options(self) -> (FileOptions, Option<u64>) {
        (self.file.into_options(), self.rollouts)
    }
}

impl RunArgs {
    pub fn into_options(self) -> RunOptions {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        RunOptions {
            files: self.files,
            trials: self.trials,
            seed: self.seed,
            threads: self.threads.map_or(cores, |t| t as usize),
            out: self.out,
            settings: self.settings,
            precision: self.precision,
            shard: self.shard,
            quiet: self.quiet,
            check_against_exact: self.validate,
            checkpoint: self.checkpoint,
            resume: self.resume,
            report: self.report,
            max_states: self.max_states,
        }
    }
}

/// The same range as `scenario.trials` in a file (a TOML integer), so the count is recorded
/// as given.
fn trials(text: &str) -> Result<u64, String> {
    match parse_count(text)? {
        0 => Err("0 trials: give at least 1".into()),
        n if n > i64::MAX as u64 => Err(format!(
            "{n} trials is more than the most allowed, {}",
            i64::MAX
        )),
        n => Ok(n),
    }
}

/// At least one state; whether memory holds them is checked when a command starts.
fn max_states(text: &str) -> Result<u64, String> {
    match parse_count(text)? {
        0 => Err(
            "0 states: the exact engine needs at least 1; leave the flag out for the \
                  default (what half the memory available holds)"
                .into(),
        ),
        n => Ok(n),
    }
}

/// At least one rollout per option.
fn rollouts(text: &str) -> Result<u64, String> {
    match parse_count(text)? {
        0 => Err("0 rollouts: give at least 1, e.g. 100000".into()),
        n if n > i64::MAX as u64 => Err(format!(
            "{n} rollouts is more than the most allowed, {}",
            i64::MAX
        )),
        n => Ok(n),
    }
}

fn threads(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(t) if (1..=4096).contains(&t) => Ok(t),
        _ => Err(format!(
            "{} must be a whole number from 1 to 4096",
            quoted(text)
        )),
    }
}

/// The same range as `scenario.seed` in a file (a TOML integer), so no seed is clamped.
fn seed(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(s) if s <= i64::MAX as u64 => Ok(s),
        _ => Err(format!(
            "{} must be a whole number from 0 to {}",
            quoted(text),
            i64::MAX
        )),
    }
}

fn setting(text: &str) -> Result<Setting, String> {
    parse_setting(text)
}

fn precision(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!(
            "{} must be a number greater than 0, e.g. 0.001",
            quoted(text)
        )),
    }
}

fn checkpoint(text: &str) -> Result<std::time::Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=1e9).contains(&v) => {
            Ok(std::time::Duration::from_secs_f64(v))
        }
        _ => Err(format!(
            "\"{text}\" must be a number of seconds from 0 to 1e9, e.g. 600"
        )),
    }
}

fn shard(text: &str) -> Result<Shard, String> {
    let bad = || {
        format!(
            "{} must be I/N with 0 <= I < N <= {MAX_SHARDS}, e.g. 0/4",
            quoted(text)
        )
    };
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let index: u64 = i.trim().parse().map_err(|_| bad())?;
    let count: u64 = n.trim().parse().map_err(|_| bad())?;
    if count == 0 || count > MAX_SHARDS || index >= count {
        return Err(bad());
    }
    Ok(Shard { index, count })
}
