//! The commands a user runs (`run`, `exact`, `check`, `merge`), tying scenario, rules,
//! engine, exact engine and output together. The binary only parses flags and reports what this returns.

use crate::cards::CardPlan;
use crate::engine::{self, Gathered, Monitor, RunSpec, Shard, Trial, CHUNK_SIZE};
use crate::exact::{self, Refusal};
use crate::output::{
    self, partial, Comparison, MetricReport, Report, RunMeta, Tables, VariantReport,
};
use crate::rules::{Plan, PlanError};
use crate::scenario::{self, Scenario, ScenarioError, ScenarioSet, Setting};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

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
    #[error("{file}: {source}")]
    Plan { file: String, source: PlanError },
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

/// `rollcall exact` options.
#[derive(Debug, Clone)]
pub struct ExactOptions {
    pub file: PathBuf,
    pub out: Option<PathBuf>,
    pub settings: Vec<Setting>,
}

/// `rollcall run` options, already typed.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub files: Vec<PathBuf>,
    pub trials: Option<u64>,
    pub seed: Option<u64>,
    pub threads: usize,
    pub out: Option<PathBuf>,
    pub settings: Vec<Setting>,
    pub precision: Option<f64>,
    /// Run one shard and write a partial-results file instead of the tables.
    pub shard: Option<Shard>,
    pub quiet: bool,
    /// Also write validation.csv against the exact engine, where it applies.
    pub validate: bool,
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

/// A scenario compiled for the engine: a battle of units and commands, or a card game.
pub enum Compiled {
    Battle(Box<Plan>),
    Cards(Box<CardPlan>),
}

impl Compiled {
    pub fn compile(scenario: &Scenario) -> Result<Compiled, PlanError> {
        match &scenario.cards {
            Some(game) => Ok(Compiled::Cards(Box::new(CardPlan::compile(game)))),
            None => Plan::compile(scenario).map(|p| Compiled::Battle(Box::new(p))),
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
            Compiled::Cards(plan) => go(plan.as_ref(), params, spec, monitor),
        }
    }
}

/// Loads and compiles a file: every check a run would make before playing anything.
pub fn prepare(path: &Path, settings: &[Setting]) -> Result<(ScenarioSet, Vec<Compiled>), Error> {
    let set = scenario::load(path, settings)?;
    let plans = set
        .variants
        .iter()
        .map(|v| Compiled::compile(&v.scenario))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|source| Error::Plan {
            file: set.file.clone(),
            source,
        })?;
    Ok((set, plans))
}

/// `rollcall check`: validates files without running them; returns one line per file.
pub fn check(files: &[PathBuf]) -> Result<Vec<String>, Error> {
    scenario_files(files)?
        .iter()
        .map(|f| {
            let (set, _) = prepare(f, &[])?;
            let s = &set.variants[0].scenario;
            Ok(format!(
                "ok: {} (scenario {}, {} units, {} choice(s), {} sweep point(s))",
                f.display(),
                set.name,
                s.units.len(),
                s.choices.len(),
                set.variants.len()
            ))
        })
        .collect()
}

fn settings_with_flags(opts: &RunOptions) -> Vec<Setting> {
    let mut settings = opts.settings.clone();
    let mut flag = |key: &str, v: u64| {
        settings.push(Setting {
            path: vec!["scenario".into(), key.into()],
            value: toml::Value::Integer(v.min(i64::MAX as u64) as i64),
        })
    };
    if let Some(t) = opts.trials {
        flag("trials", t);
    }
    if let Some(s) = opts.seed {
        flag("seed", s);
    }
    settings
}

/// `rollcall run`: validates every file first, then runs them in turn.
pub fn run(opts: &RunOptions, log: &mut dyn FnMut(Note<'_>)) -> Result<Status, Error> {
    if opts.shard.is_some() && opts.validate {
        return Err(Error::Usage(
            "--validate cannot be combined with --shard: a shard writes no tables; validate the merged run instead".into(),
        ));
    }
    if opts.shard.is_some() && opts.precision.is_some() {
        return Err(Error::Usage(
            "--precision cannot be combined with --shard: where a run stops would depend on the other shards".into(),
        ));
    }
    let settings = settings_with_flags(opts);
    let files = scenario_files(&opts.files)?;
    let prepared = files
        .iter()
        .map(|f| prepare(f, &settings))
        .collect::<Result<Vec<_>, _>>()?;
    let dirs: Vec<PathBuf> = prepared
        .iter()
        .map(|(set, _)| match (&opts.out, prepared.len()) {
            (Some(out), 1) => out.clone(),
            (Some(out), _) => out.join(&set.name),
            (None, _) => Path::new(RESULTS_DIR).join(&set.name),
        })
        .collect();
    for (i, dir) in dirs.iter().enumerate() {
        if let Some(j) = dirs[..i].iter().position(|d| d == dir) {
            return Err(Error::Usage(format!(
                "{} and {} would both write {}; give their scenarios different names",
                files[j].display(),
                files[i].display(),
                dir.display()
            )));
        }
    }
    let mut result = Status::Complete;
    for ((set, plans), dir) in prepared.iter().zip(&dirs) {
        let status = run_one(opts, set, plans, dir, log)?;
        match status {
            Status::Interrupted => return Ok(status),
            Status::ValidationFailed => result = status,
            Status::Complete => {}
        }
    }
    Ok(result)
}

fn run_one(
    opts: &RunOptions,
    set: &ScenarioSet,
    plans: &[Compiled],
    dir: &Path,
    log: &mut dyn FnMut(Note<'_>),
) -> Result<Status, Error> {
    let spec = RunSpec {
        trials: set.trials(),
        seed: set.seed(),
        threads: opts.threads,
        shard: opts.shard.unwrap_or(Shard::WHOLE),
        precision: opts.precision,
    };
    let monitor = Monitor::default();
    let start = Instant::now();
    let total = spec.trials.saturating_mul(plans.len() as u64);
    let (variants, complete, played) =
        crate::progress::watch(&monitor, total, &set.name, opts.quiet, &INTERRUPT, || {
            let mut variants = Vec::new();
            let mut played = 0;
            for (variant, plan) in set.variants.iter().zip(plans) {
                let (report, trials, complete) = plan.play(&variant.params, &spec, &monitor)?;
                played += trials;
                variants.push(report);
                if !complete {
                    return Ok::<_, Error>((variants, false, played));
                }
            }
            Ok((variants, true, played))
        })?;
    let wall = start.elapsed().as_secs_f64();
    let report = Report {
        scenario: set.name.clone(),
        param_names: set.param_names.clone(),
        variants,
    };
    let meta = RunMeta {
        version: env!("CARGO_PKG_VERSION").to_string(),
        scenario: set.name.clone(),
        scenario_hash: format!("{:016x}", set.hash),
        method: "monte_carlo".into(),
        seed: spec.seed,
        trials_requested: spec.trials,
        sweep_points: set.variants.len(),
        trials_played: played,
        chunk_size: CHUNK_SIZE,
        threads: opts.threads,
        shard: format!("{}/{}", spec.shard.index, spec.shard.count),
        wall_seconds: wall,
        trials_per_second: if wall > 0.0 {
            played as f64 / wall
        } else {
            0.0
        },
        complete,
    };
    let (written, to_validate) = match opts.shard {
        Some(shard) => {
            let body = partial::PartBody {
                format: partial::FORMAT.into(),
                version: meta.version.clone(),
                scenario: meta.scenario.clone(),
                scenario_hash: meta.scenario_hash.clone(),
                method: meta.method.clone(),
                seed: meta.seed,
                trials: meta.trials_requested,
                chunk_size: meta.chunk_size,
                shard_index: shard.index,
                shard_count: shard.count,
                complete,
                trials_played: played,
                report,
            };
            let path = dir.join(partial::file_name(shard.index, shard.count));
            std::fs::create_dir_all(dir)
                .and_then(|()| {
                    output::write_atomic(&path, &partial::to_bytes(body, opts.threads, wall))
                })
                .map_err(|source| Error::Write {
                    path: path.clone(),
                    source,
                })?;
            (path, None)
        }
        None => (write_tables(dir, &report, &meta)?, Some(report)),
    };
    log(Note::Info(&format!(
        "{}: {} trials in {:.2} s ({:.1} M trials/s){} -> {}",
        set.name,
        played,
        wall,
        meta.trials_per_second / 1e6,
        if complete { "" } else { ", interrupted" },
        written.display()
    )));
    if !complete {
        return Ok(Status::Interrupted);
    }
    if let Some(report) = to_validate.filter(|_| opts.validate) {
        return validate(set, plans, &report, dir, log);
    }
    Ok(Status::Complete)
}

/// `run --validate`: checks a finished run against the exact engine, where it applies, and
/// writes validation.csv next to the tables.
fn validate(
    set: &ScenarioSet,
    plans: &[Compiled],
    report: &Report,
    dir: &Path,
    log: &mut dyn FnMut(Note<'_>),
) -> Result<Status, Error> {
    let battle: Vec<Option<&Plan>> = plans
        .iter()
        .map(|p| match p {
            Compiled::Battle(plan) => Some(plan.as_ref()),
            Compiled::Cards(_) => None,
        })
        .collect();
    let exact = match exact::report(set, &battle) {
        Ok(exact) => exact,
        Err(refusal) => {
            log(Note::Info(&format!(
                "{}: not validated, the exact engine does not apply: {refusal}",
                set.name
            )));
            return Ok(Status::Complete);
        }
    };
    let rows = exact::validate::compare(&exact, report);
    let path = dir.join("validation.csv");
    output::write_atomic(
        &path,
        &output::tables::validation_csv(&set.name, &set.param_names, &rows),
    )
    .map_err(|source| Error::Write {
        path: path.clone(),
        source,
    })?;
    let failed: Vec<_> = rows.iter().filter(|r| !r.pass).collect();
    for r in &failed {
        let at: Vec<String> = set
            .param_names
            .iter()
            .zip(&r.params)
            .map(|(k, v)| format!("{k}={v}"))
            .chain((!r.choice.is_empty()).then(|| format!("choice {}", r.choice)))
            .collect();
        log(Note::Failure(&format!(
            "{}: validation FAILED for {}{}: exact mean {}, simulated {}, z = {:.2}, chi-square p = {:.3e}",
            set.name,
            r.metric,
            if at.is_empty() {
                String::new()
            } else {
                format!(" ({})", at.join(", "))
            },
            r.exact_mean,
            r.mc_mean,
            r.z,
            r.p_value
        )));
    }
    log(Note::Info(&format!(
        "{}: validated {} metric(s) against the exact engine, {} failed -> {}",
        set.name,
        rows.len(),
        failed.len(),
        path.display()
    )));
    Ok(if failed.is_empty() {
        Status::Complete
    } else {
        Status::ValidationFailed
    })
}

/// `rollcall exact`: the exact distribution of every metric, written as summary.csv and
/// distribution.csv with `method = exact`, plus run.json. Refuses (exit 2) what it cannot
/// compute, naming the step and why.
pub fn exact(opts: &ExactOptions) -> Result<PathBuf, Error> {
    let set = scenario::load(&opts.file, &opts.settings)?;
    let start = Instant::now();
    let report = exact::report(&set, &[]).map_err(|source| Error::Exact {
        file: set.file.clone(),
        source,
    })?;
    let wall = start.elapsed().as_secs_f64();
    let dir = opts
        .out
        .clone()
        .unwrap_or_else(|| Path::new(RESULTS_DIR).join(&set.name));
    let meta = RunMeta {
        version: env!("CARGO_PKG_VERSION").to_string(),
        scenario: set.name.clone(),
        scenario_hash: format!("{:016x}", set.hash),
        method: "exact".into(),
        seed: set.seed(),
        trials_requested: 0,
        sweep_points: set.variants.len(),
        trials_played: 0,
        chunk_size: 0,
        threads: 1,
        shard: "0/1".into(),
        wall_seconds: wall,
        trials_per_second: 0.0,
        complete: true,
    };
    write_files(&dir, &report, &meta, Vec::new())
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

/// `rollcall merge`: checks the parts and writes the tables a single run would have written.
/// Nothing is written unless every check passes.
pub fn merge(parts: &[PathBuf], out: &Path) -> Result<PathBuf, Error> {
    let mut files = Vec::new();
    for p in parts {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| Error::Usage(format!("{}: cannot read folder: {e}", p.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.file_name().is_some_and(|n| {
                        let n = n.to_string_lossy();
                        n.starts_with("shard-") && n.ends_with(".json")
                    })
                })
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(Error::Usage(format!(
                    "{}: no shard-*.json partial-results file in this folder",
                    p.display()
                )));
            }
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    let parts = files
        .into_iter()
        .map(|f| partial::read(&f).map(|part| (f, part)))
        .collect::<Result<Vec<_>, _>>()?;
    let (report, body) = partial::merge(&parts)?;
    let wall: f64 = parts.iter().map(|(_, p)| p.wall_seconds).sum();
    let played: u64 = parts.iter().map(|(_, p)| p.body.trials_played).sum();
    let meta = RunMeta {
        version: body.version.clone(),
        scenario: body.scenario.clone(),
        scenario_hash: body.scenario_hash.clone(),
        method: body.method.clone(),
        seed: body.seed,
        trials_requested: body.trials,
        sweep_points: report.variants.len(),
        trials_played: played,
        chunk_size: body.chunk_size,
        threads: parts.iter().map(|(_, p)| p.threads).sum(),
        shard: format!("merged/{}", body.shard_count),
        wall_seconds: wall,
        trials_per_second: if wall > 0.0 {
            played as f64 / wall
        } else {
            0.0
        },
        complete: true,
    };
    write_tables(out, &report, &meta)
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
