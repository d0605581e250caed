//! The commands a user runs (`run`, `exact`, `advise`, `check`, `merge`), tying scenario, rules,
//! engine, exact engine and output together. The binary only parses flags and reports what this returns.

use crate::cards::CardPlan;
use crate::engine::{
    self, Begun, ChunkSet, Gathered, Joined, Monitor, PairOf, Pairing, RunSpec, Shard, Trial,
    CHUNK_SIZE,
};
use crate::exact::Refusal;
use crate::output::ExactReport;
use crate::output::{
    self, partial, Comparison, MetricReport, Provenance, Report, RunMeta, Tables, TrialsPlayed,
    VariantReport,
};
use crate::rules::{Designs, Plan};
use crate::scenario::{self, Arms, Game, ScenarioError, ScenarioSet, Setting};
use std::path::{Path, PathBuf};

mod advise;
mod balance;
mod exact;
mod explain;
mod fair;
mod merge;
mod report;
mod run;

pub use advise::{advise, advise_plans, Advised};
pub use balance::{balance, search as balance_search, BalanceOptions, Balanced};
pub use exact::exact;
pub use explain::{explain, Explained};
pub use merge::merge;
pub use report::report;
pub use run::{run, RunOptions};

/// Set by the Ctrl-C handler; a run stops at the next chunk boundary, a trial under way and
/// the exact engine at their next step.
pub use crate::engine::INTERRUPT;

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
    #[error("{file}: no exact distribution: {source}; `rollcall run` simulates it")]
    Exact { file: String, source: Refusal },
    /// From `advise`, and from `run` and `exact`, which play the advice: none of them can
    /// play `best` orders without it.
    #[error(
        "{file}: cannot advise `best` orders: {source}; `best` orders are played as `rollcall \
         advise` works them out, which needs the exact engine: `rollcall advise {file} \
         --rollouts N` scores the options of each unit's first decision by simulation instead; \
         to simulate this engagement, give the unit fixed orders instead (one command each, \
         with `when` conditions)"
    )]
    Advice { file: String, source: Refusal },
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
    /// A derived metric's arithmetic left `i64` in some trial: its value would be wrong, so
    /// nothing is written.
    #[error(
        "{file}: key `metrics.{name}`: `{text}` left the range a derived metric may take \
         (-{max} to {max}, or its arithmetic passed {big}) in some trial, so its value cannot \
         be counted; nothing was written. Scale it down (for instance compare instead of \
         multiplying) so that it stays within that range",
        max = crate::condition::derived::VALUE_MAX,
        big = i64::MAX
    )]
    Overflow {
        file: String,
        name: String,
        text: String,
    },
    /// Ctrl-C while the exact engine worked (for `run`'s `best` orders or `--validate`).
    #[error("{file}: interrupted while the exact engine worked; nothing was written")]
    Interrupted { file: String },
}

impl Error {
    /// Every error is the user's to fix (bad input or an unwritable place): status 2; Ctrl-C
    /// exits as interrupted runs do, 130.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Interrupted { .. } => 130,
            _ => 2,
        }
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

/// A line for the user: `Info` (progress, summaries; hidden by `--quiet`), `Warning` (what
/// the user asked for was not done, e.g. `--validate` where the exact engine does not apply;
/// always shown) or `Failure` (a validation failure, always shown).
#[derive(Debug, Clone, Copy)]
pub enum Note<'a> {
    Info(&'a str),
    Warning(&'a str),
    Failure(&'a str),
}

/// The options of a command on one scenario file (`exact`, `advise`): the file, the folder to
/// write (default: the command's own inside the scenario's results folder) and the `--set`
/// overrides.
#[derive(Debug, Clone)]
pub struct FileOptions {
    pub file: PathBuf,
    pub out: Option<PathBuf>,
    pub settings: Vec<Setting>,
    /// `--max-states`: the exact engine's state limit (`None`: by the memory available).
    pub max_states: Option<u64>,
}

/// Sets the exact engine's state limit from `--max-states` before any state is held.
fn limit_states(max_states: Option<u64>) -> Result<(), Error> {
    crate::exact::limit::set(max_states).map_err(Error::Usage)
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

/// A scenario file compiled for the engine: its sweep points joined as arms of one trial, so
/// that every point plays on the same random numbers and is compared with the first. A point
/// is a battle of units and commands, design arms (one battle per `set` choice), or a card
/// game.
pub enum Compiled {
    Battle(Box<Joined<Plan>>),
    Designs(Box<Joined<Designs>>),
    Cards(Box<Joined<CardPlan>>),
}

impl Compiled {
    pub fn compile(set: &ScenarioSet) -> Compiled {
        fn join<T: Trial>(parts: Vec<T>) -> Box<Joined<T>> {
            Box::new(Joined::new(parts, Pairing::AgainstFirst))
        }
        let first = &set.variants[0];
        match (&first.scenario().game, &first.arms) {
            (Game::Cards(_), _) => Compiled::Cards(join(
                set.variants
                    .iter()
                    .map(|v| match &v.scenario().game {
                        Game::Cards(game) => {
                            Some(CardPlan::compile(game).with_derived(v.scenario().derived(0)))
                        }
                        Game::Steps(_) | Game::Engagement(_) => None,
                    })
                    .collect::<Option<_>>()
                    .expect("a sweep does not add or remove [cards]"),
            )),
            (Game::Steps(_) | Game::Engagement(_), Arms::Single(_)) => Compiled::Battle(join(
                set.variants
                    .iter()
                    .map(|v| Plan::compile(v.scenario()))
                    .collect(),
            )),
            (Game::Steps(_) | Game::Engagement(_), Arms::Designs(_)) => Compiled::Designs(join(
                set.variants
                    .iter()
                    .map(|v| match set.roster {
                        // A roster's results are its matchups, not their differences.
                        Some(_) => Designs::compile_apart(v.arms()),
                        None => Designs::compile(v.arms()),
                    })
                    .collect(),
            )),
        }
    }

    /// Plays every sweep point from `from` (nothing played, or a checkpoint's reports and the
    /// chunks they hold), calling `between` with a way to lay out the reports so far and the
    /// chunks they hold after every batch of chunks.
    fn play(
        &self,
        set: &ScenarioSet,
        spec: &RunSpec,
        monitor: &Monitor,
        from: Option<(&[VariantReport], ChunkSet, Vec<Begun>)>,
        between: &mut Between<'_>,
    ) -> Result<Played, Error> {
        fn go<T: Trial>(
            joined: &Joined<T>,
            set: &ScenarioSet,
            spec: &RunSpec,
            monitor: &Monitor,
            from: Option<(&[VariantReport], ChunkSet, Vec<Begun>)>,
            between: &mut Between<'_>,
        ) -> Result<Played, Error> {
            let progress = match from {
                None => engine::Progress::start(joined),
                Some((reports, done, begun)) => {
                    run::progress_of(set, joined, spec, reports, done, begun)?
                }
            };
            let outcome = engine::resume(joined, spec, monitor, progress, &mut |p| {
                between(
                    &|| variant_reports(set, joined, p.gathered.clone()),
                    &p.done,
                    &p.begun,
                )
            })?;
            Ok(Played {
                trials: outcome.gathered.trials,
                reports: variant_reports(set, joined, outcome.gathered),
                complete: outcome.complete,
                done: outcome.done,
                begun: outcome.begun,
            })
        }
        let played = match self {
            Compiled::Battle(j) => go(j.as_ref(), set, spec, monitor, from, between),
            Compiled::Designs(j) => go(j.as_ref(), set, spec, monitor, from, between),
            Compiled::Cards(j) => go(j.as_ref(), set, spec, monitor, from, between),
        }?;
        let battles = self.battle_arms().into_iter().flatten().flatten();
        let mut overflowed: Vec<(String, String)> = battles.filter_map(Plan::overflowed).collect();
        if let Compiled::Cards(j) = self {
            overflowed.extend(j.parts().iter().filter_map(CardPlan::overflowed));
        }
        if let Some((name, text)) = overflowed.into_iter().min() {
            return Err(Error::Overflow {
                file: set.file.clone(),
                name,
                text,
            });
        }
        Ok(played)
    }

    /// The plans of each sweep point's arms, for the exact engine; `None` for card games.
    fn battle_arms(&self) -> Option<Vec<&[Plan]>> {
        match self {
            Compiled::Battle(j) => Some(j.parts().iter().map(std::slice::from_ref).collect()),
            Compiled::Designs(j) => Some(j.parts().iter().map(|d| d.plans()).collect()),
            Compiled::Cards(_) => None,
        }
    }

    /// [`battle_arms`](Self::battle_arms), to give the plans their advice.
    fn battle_arms_mut(&mut self) -> Option<Vec<&mut [Plan]>> {
        match self {
            Compiled::Battle(j) => {
                Some(j.parts_mut().iter_mut().map(std::slice::from_mut).collect())
            }
            Compiled::Designs(j) => Some(j.parts_mut().iter_mut().map(|d| d.plans_mut()).collect()),
            Compiled::Cards(_) => None,
        }
    }
}

/// Called between batches of chunks with a way to lay out the sweep points' reports so far
/// and the chunks they hold, whole and begun (to save a checkpoint).
type Between<'a> = dyn FnMut(&dyn Fn() -> Vec<VariantReport>, &ChunkSet, &[Begun]) + 'a;

/// What playing a file's sweep points gave: their reports, the trials played, whether the run
/// completed, and the chunks the reports hold.
struct Played {
    reports: Vec<VariantReport>,
    trials: u64,
    complete: bool,
    done: ChunkSet,
    begun: Vec<Begun>,
}

/// Loads and compiles a file: every check a run would make before playing anything.
pub fn prepare(path: &Path, settings: &[Setting]) -> Result<(ScenarioSet, Compiled), Error> {
    let set = scenario::load(path, settings)?;
    let compiled = Compiled::compile(&set);
    Ok((set, compiled))
}

/// `rollcall check`: validates files (after `settings`, as `run --set` applies them)
/// without running them, with every check `run` makes before its first trial (the cost
/// models, and the advice for `best` orders); returns one line per file.
pub fn check(files: &[PathBuf], settings: &[Setting]) -> Result<Vec<String>, Error> {
    scenario_files(files)?
        .iter()
        .map(|f| {
            let (set, mut compiled) = prepare(f, settings)?;
            balance::check_metric(&set, &compiled)?;
            advise_plans(&set, &mut compiled)?;
            let v = &set.variants[0];
            let s = v.scenario();
            let what = match (&s.game, &v.arms) {
                (Game::Cards(game), _) => format!(
                    "card game of {} cards, {} turn(s) of {} card(s) a side",
                    game.cards().len(),
                    game.turns(),
                    game.cards_per_turn()
                ),
                (Game::Steps(_) | Game::Engagement(_), Arms::Designs(designs)) => format!(
                    "{} unit(s), {} design choice(s)",
                    s.units.len(),
                    designs.len()
                ),
                (Game::Steps(_) | Game::Engagement(_), Arms::Single(_)) => format!(
                    "{} unit(s), {} choice(s)",
                    s.units.len(),
                    s.choice_ids().len()
                ),
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

/// The exact report of a loaded file, from its plans when the caller has compiled them.
fn exact_report(set: &ScenarioSet, compiled: Option<&Compiled>) -> Result<ExactReport, Refusal> {
    let arms: Vec<Option<&[Plan]>> = compiled
        .and_then(Compiled::battle_arms)
        .map_or_else(Vec::new, |arms| arms.into_iter().map(Some).collect());
    crate::exact::report(set, &arms)
}

/// The error for the exact engine's refusal of `set`: a refusal met while advising `best`
/// orders leaves them unplayable, which no command can do without; any other leaves the
/// scenario to simulation.
fn refused(set: &ScenarioSet, source: Refusal) -> Error {
    let file = set.file.clone();
    if crate::engine::interrupted() {
        return Error::Interrupted { file };
    }
    match source {
        Refusal::Advice(source) => Error::Advice {
            file,
            source: *source,
        },
        source => Error::Exact { file, source },
    }
}

/// Writes a simulated run's tables (plus a card game's orderings.csv and equilibrium.csv),
/// `extra` files and run.json, replacing the claimed folder (so no table of an earlier run
/// stays beside them); returns the folder.
fn write_tables(
    claim: &output::Claim,
    report: &Report,
    meta: &RunMeta,
    mut extra: Vec<(&str, Vec<u8>)>,
) -> Result<PathBuf, Error> {
    if let Some(bytes) = output::roster::matchups_csv(report) {
        extra.push(("matchups.csv", bytes));
    }
    if let Some(bytes) = output::roster::ratings_csv(report) {
        extra.push(("ratings.csv", bytes));
    }
    match crate::cards::tables(report) {
        Some(cards) => {
            extra.extend(cards.files);
            write_files(claim, &cards.report, meta, extra)
        }
        None => write_files(claim, report, meta, extra),
    }
}

/// Writes the tables of any report, `extra` files and run.json, replacing the claimed folder;
/// returns the folder.
fn write_files(
    claim: &output::Claim,
    report: &impl Tables,
    meta: &RunMeta,
    extra: Vec<(&str, Vec<u8>)>,
) -> Result<PathBuf, Error> {
    output::write_run(claim, report, meta, extra).map_err(|source| Error::Write {
        path: claim.named().to_path_buf(),
        source,
    })?;
    Ok(claim.named().to_path_buf())
}

/// run.json of tables the exact engine computed for `set` in `wall` seconds.
fn exact_meta(set: &ScenarioSet, wall: f64) -> RunMeta {
    RunMeta::new(
        provenance(set, output::EXACT),
        set.variants.len(),
        None,
        wall,
    )
}

/// What made the tables of `set` by `method`: this version of rollcall, on the file as read.
fn provenance(set: &ScenarioSet, method: &str) -> Provenance {
    Provenance {
        version: env!("CARGO_PKG_VERSION").to_string(),
        scenario: set.name.clone(),
        scenario_hash: format!("{:016x}", set.hash),
        method: method.into(),
        seed: set.seed(),
    }
}

/// Claims a results folder for a run (see [`output::Claim`]); a folder another run holds is
/// refused.
fn claim(dir: &Path) -> Result<output::Claim, Error> {
    output::Claim::acquire(dir).map_err(|source| Error::Write {
        path: dir.to_path_buf(),
        source,
    })
}

/// One report per sweep point from a joined run: each point's metrics, its own comparisons
/// (choices), and its comparisons with the first point.
fn variant_reports<T: Trial>(
    set: &ScenarioSet,
    joined: &Joined<T>,
    gathered: Gathered,
) -> Vec<VariantReport> {
    let names = joined.metrics();
    let mut reports: Vec<VariantReport> = set
        .variants
        .iter()
        .map(|v| VariantReport {
            params: v.params.clone(),
            metrics: Vec::new(),
            comparisons: Vec::new(),
        })
        .collect();
    let mut histograms = gathered.metrics.into_iter();
    for (p, report) in reports.iter_mut().enumerate() {
        report.metrics = names[joined.metrics_of(p)]
            .iter()
            .zip(histograms.by_ref())
            .map(|(m, histogram)| MetricReport {
                choice: m.choice.clone(),
                metric: m.name.clone(),
                histogram,
                round: m.round,
            })
            .collect();
    }
    // A point against another is named by the sweep keys where the two differ.
    let at = |p: usize, other: usize, choice: &str| {
        let (here, there) = (&set.variants[p].params, &set.variants[other].params);
        let keys = set.param_names.iter().zip(here.iter().zip(there));
        let point: Vec<String> = keys
            .filter(|(_, (a, b))| a != b)
            .map(|(k, (v, _))| format!("{k}={v}"))
            .collect();
        match choice {
            "" => point.join("; "),
            c => format!("{c} @ {}", point.join("; ")),
        }
    };
    let pairs = joined.pairs().iter().zip(joined.pair_of());
    for ((&(a, b), of), differences) in pairs.zip(gathered.differences) {
        let (part, first, second) = match *of {
            PairOf::Within { part } => (part, names[a].choice.clone(), names[b].choice.clone()),
            PairOf::Across { part, against } => (
                part,
                at(part, against, &names[a].choice),
                at(against, part, &names[b].choice),
            ),
        };
        reports[part].comparisons.push(Comparison {
            metric: names[a].name.clone(),
            first,
            second,
            differences,
        });
    }
    reports
}

/// The joined run's histograms laid out in `reports` (what [`variant_reports`] wrote, say in a
/// checkpoint), or `None` when `reports` lists other metrics or comparisons than this file's.
fn gathered_of<T: Trial>(
    set: &ScenarioSet,
    joined: &Joined<T>,
    reports: &[VariantReport],
) -> Option<Gathered> {
    let empty = Gathered {
        metrics: vec![Default::default(); joined.metrics().len()],
        differences: vec![Default::default(); joined.pairs().len()],
        trials: 0,
        chunks: 0,
    };
    let layout = variant_reports(set, joined, empty);
    let same =
        layout.len() == reports.len() && layout.iter().zip(reports).all(|(l, r)| l.same_layout(r));
    if !same {
        return None;
    }
    // Each point's comparisons are the joined pairs of that point, in the joined order.
    let mut next = vec![0; reports.len()];
    let differences = joined
        .pair_of()
        .iter()
        .map(|of| {
            let (PairOf::Within { part } | PairOf::Across { part, .. }) = *of;
            next[part] += 1;
            reports[part].comparisons[next[part] - 1]
                .differences
                .clone()
        })
        .collect();
    Some(Gathered {
        metrics: reports
            .iter()
            .flat_map(|r| r.metrics.iter().map(|m| m.histogram.clone()))
            .collect(),
        differences,
        trials: 0,
        chunks: 0,
    })
}
