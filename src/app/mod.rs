//! The commands a user runs (`run`, `exact`, `check`, `merge`), tying scenario, rules,
//! engine, exact engine and output together. The binary only parses flags and reports what this returns.

use crate::cards::CardPlan;
use crate::engine::{self, Gathered, Monitor, RunSpec, Shard, Trial, CHUNK_SIZE};
use crate::exact::Refusal;
use crate::output::ExactReport;
use crate::output::{
    self, partial, Comparison, MetricReport, Report, RunMeta, Tables, VariantReport,
};
use crate::rules::{Designs, Plan};
use crate::scenario::{self, Scenario, ScenarioError, ScenarioSet, Setting, Variant};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

mod exact;
mod merge;
mod report;
mod run;

pub use exact::{exact, ExactOptions};
pub use merge::merge;
pub use report::report;
pub use run::{run, RunOptions};

/// Set by the Ctrl-C handler; a run stops at the next chunk boundary.
pub static INTERRUPT: AtomicBool = AtomicBool::new(false);

/// Where a bare `rollcall run` looks for scenarios.
pub const CONFIG_DIR: &str = "configs";
/// Where results go unless `--out` says otherwise: `results/<scenario>/`.
pub const RESULTS_DIR: &str = "results";

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error("{0}")]
    Usage(String),
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Engine(#[from] engine::EngineError),
    #[error(transparent)]
    Merge(#[from] output::partial::MergeError),
    #[error("{file}: no exact distribution: {source}")]
    Exact { file: String, source: Refusal },
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
}

impl Error {
    /// Every error is the user's to fix (bad input or an unwritable place): status 2.
    pub fn exit_code(&self) -> i32 {
        2
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Complete,
    /// Stopped by Ctrl-C; what was gathered was written, marked incomplete.
    Interrupted,
    /// `--validate`: some metric's simulation disagrees with its exact distribution.
    ValidationFailed,
}

impl Status {
    pub fn exit_code(self) -> i32 {
        match self {
            Status::Complete => 0,
            Status::ValidationFailed => 1,
            Status::Interrupted => 130,
        }
    }
}

/// A line for the user: `Info` (progress, summaries; hidden by `--quiet`) or `Failure` (a
/// validation failure, always shown).
#[derive(Debug, Clone, Copy)]
pub enum Note<'a> {
    Info(&'a str),
    Failure(&'a str),
}

/// The scenario files a command works on: those named, or every `configs/*.toml`.
pub fn scenario_files(files: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    if !files.is_empty() {
        return Ok(files.to_vec());
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(CONFIG_DIR)
        .map_err(|e| {
            Error::Usage(format!(
                "no scenario file given and cannot read {CONFIG_DIR}/: {e}; run from the project folder or name files: rollcall run FILE..."
            ))
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml") && p.is_file())
        .collect();
    found.sort();
    if found.is_empty() {
        return Err(Error::Usage(format!(
            "no scenario file given and {CONFIG_DIR}/ has no .toml file"
        )));
    }
    Ok(found)
}

/// A sweep point compiled for the engine: a battle of units and commands, design arms (one
/// battle per `set` choice, on the same random numbers), or a card game.
pub enum Compiled {
    Battle(Box<Plan>),
    Designs(Box<Designs>),
    Cards(Box<CardPlan>),
}

impl Compiled {
    pub fn compile(scenario: &Scenario) -> Compiled {
        match &scenario.cards {
            Some(game) => Compiled::Cards(Box::new(CardPlan::compile(game))),
            None => Compiled::Battle(Box::new(Plan::compile(scenario))),
        }
    }

    /// Compiles a sweep point: its design arms when it has them, else its scenario.
    pub fn compile_variant(variant: &Variant) -> Compiled {
        if variant.designs.is_empty() {
            Compiled::compile(&variant.scenario)
        } else {
            Compiled::Designs(Box::new(Designs::compile(&variant.designs)))
        }
    }

    /// Plays this sweep point: its report, the trials played, and whether it completed.
    fn play(
        &self,
        params: &[String],
        spec: &RunSpec,
        monitor: &Monitor,
    ) -> Result<(VariantReport, u64, bool), Error> {
        fn go<T: Trial>(
            trial: &T,
            params: &[String],
            spec: &RunSpec,
            monitor: &Monitor,
        ) -> Result<(VariantReport, u64, bool), Error> {
            let outcome = engine::run(trial, spec, monitor)?;
            let played = outcome.gathered.trials;
            let report = variant_report(params, trial, outcome.gathered);
            Ok((report, played, outcome.complete))
        }
        match self {
            Compiled::Battle(plan) => go(plan.as_ref(), params, spec, monitor),
            Compiled::Designs(designs) => go(designs.as_ref(), params, spec, monitor),
            Compiled::Cards(plan) => go(plan.as_ref(), params, spec, monitor),
        }
    }
}

/// Loads and compiles a file: every check a run would make before playing anything.
pub fn prepare(path: &Path, settings: &[Setting]) -> Result<(ScenarioSet, Vec<Compiled>), Error> {
    let set = scenario::load(path, settings)?;
    let plans = set.variants.iter().map(Compiled::compile_variant).collect();
    Ok((set, plans))
}

/// `rollcall check`: validates files without running them; returns one line per file.
pub fn check(files: &[PathBuf]) -> Result<Vec<String>, Error> {
    scenario_files(files)?
        .iter()
        .map(|f| {
            let (set, _) = prepare(f, &[])?;
            let v = &set.variants[0];
            let s = &v.scenario;
            let what = match &s.cards {
                Some(game) => format!(
                    "card game of {} cards, {} turn(s) of {} card(s) a side",
                    game.cards().len(),
                    game.turns(),
                    game.cards_per_turn()
                ),
                None if !v.designs.is_empty() => format!(
                    "{} unit(s), {} design choice(s)",
                    s.units.len(),
                    v.designs.len()
                ),
                None => format!("{} unit(s), {} choice(s)", s.units.len(), s.choices.len()),
            };
            Ok(format!(
                "ok: {} (scenario {}, {what}, {} sweep point(s))",
                f.display(),
                set.name,
                set.variants.len()
            ))
        })
        .collect()
}

/// The exact report of a loaded file, from the plans already compiled where the caller has
/// them (`plans[i]` is sweep point i).
fn exact_report(set: &ScenarioSet, plans: &[Compiled]) -> Result<ExactReport, Refusal> {
    let arms: Vec<Option<&[Plan]>> = plans
        .iter()
        .map(|p| match p {
            Compiled::Battle(plan) => Some(std::slice::from_ref(plan.as_ref())),
            Compiled::Designs(designs) => Some(designs.plans()),
            Compiled::Cards(_) => None,
        })
        .collect();
    crate::exact::report(set, &arms)
}

/// Writes a simulated run's tables (plus a card game's orderings.csv) and run.json; returns
/// the folder.
fn write_tables(dir: &Path, report: &Report, meta: &RunMeta) -> Result<PathBuf, Error> {
    let extra: Vec<(&str, Vec<u8>)> = crate::cards::orderings_csv(report)
        .map(|t| ("orderings.csv", t))
        .into_iter()
        .collect();
    write_files(dir, report, meta, extra)
}

/// Writes the tables of any report, `extra` tables and run.json; returns the folder.
fn write_files(
    dir: &Path,
    report: &impl Tables,
    meta: &RunMeta,
    extra: Vec<(&str, Vec<u8>)>,
) -> Result<PathBuf, Error> {
    output::write_run(dir, report, meta, extra).map_err(|source| Error::Write {
        path: dir.to_path_buf(),
        source,
    })?;
    Ok(dir.to_path_buf())
}

fn variant_report<T: Trial>(params: &[String], trial: &T, gathered: Gathered) -> VariantReport {
    let names = trial.metrics();
    let metrics = names
        .iter()
        .zip(gathered.metrics)
        .map(|(m, histogram)| MetricReport {
            choice: m.choice.clone(),
            metric: m.name.clone(),
            histogram,
        })
        .collect();
    let comparisons = trial
        .pairs()
        .iter()
        .zip(gathered.differences)
        .map(|(&(a, b), differences)| Comparison {
            metric: names[a].name.clone(),
            first: names[a].choice.clone(),
            second: names[b].choice.clone(),
            differences,
        })
        .collect();
    VariantReport {
        params: params.to_vec(),
        metrics,
        comparisons,
    }
}
