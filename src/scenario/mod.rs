//! Scenario files: TOML text -> [`raw`] serde structs -> a validated [`Scenario`].
//!
//! Loading happens in two stages so that every check lives in validation (`build` assembles
//! the scenario from `units`, `orders`, `engagement` and the card game's own checks, with the
//! single-value checks of `values`) and the rules and the engine never see a string or a
//! path. `--set` overrides and `[sweep]` grid
//! points are applied to the TOML value tree before validation, so an override is checked
//! exactly like a key written in the file.

mod balance;
mod build;
mod derived;
mod designs;
mod engagement;
mod error;
mod keys;
mod orders;
mod overrides;
pub mod raw;
mod roster;
mod units;
mod values;

pub use balance::Balance;
pub use error::ScenarioError;
pub use overrides::{parse_setting, Setting};
pub use roster::Focus;

use crate::condition::derived::Derived;
use crate::config::limits::{read_text, MAX_FILE_BYTES};
use crate::config::typed;
use crate::dice::{Amount, DiceTest};
use crate::geometry::{Battlefield, Point};
use crate::metrics::{EngagementMetrics, SideMetrics, StepMetrics, UnitMetrics};
use raw::RawFile;
use std::path::Path;

/// The rule options (`[options]`), each with its default.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub rally_chain: bool,
    pub spill: bool,
    pub defend_bonus: i32,
    pub covering_fire_hit_modifier: i32,
    pub masters_retarget: bool,
    pub listeners_persist: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            rally_chain: false,
            spill: false,
            defend_bonus: 1,
            covering_fire_hit_modifier: -1,
            masters_retarget: false,
            listeners_persist: false,
        }
    }
}

/// What a unit does in an enemy command's response window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Response {
    None,
    Defend,
    CoveringFire,
    Random,
}

/// A unit's weapon. Each alive model rolls its own `attacks` per volley; each unsaved hit
/// rolls its own `damage`.
#[derive(Debug, Clone, PartialEq)]
pub struct Weapon {
    pub attacks: Amount,
    pub hit: DiceTest,
    pub damage: Amount,
    pub range: f64,
}

/// A validated unit: everything the rules need, positions included.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    pub id: String,
    pub side: String,
    pub size: u32,
    pub hp: u32,
    /// Base diameter in inches.
    pub base: f64,
    /// The Resolve test Rally rolls; `None` for a unit that never Rallies (validation refuses
    /// a Rally by such a unit: `orders::rally_needs_resolve`).
    pub resolve: Option<DiceTest>,
    pub defense: Option<DiceTest>,
    pub weapon: Option<Weapon>,
    pub call_of_the_masters: bool,
    pub response: Response,
    pub move_distance: Option<f64>,
    /// Centres of the models on the table at the start; its length is `alive`.
    pub models: Vec<Point>,
}

impl Unit {
    pub fn alive(&self) -> u32 {
        self.models.len() as u32
    }

    pub fn radius(&self) -> f64 {
        self.base / 2.0
    }
}

/// The kind of a command, without its arguments: what names it in files and messages, and
/// (in `rules::commands`) the restrictions it applies and is barred by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Rally,
    Shoot,
    Run,
}

impl Command {
    /// Every command a unit may be ordered to take, in the order their metrics are listed.
    pub const ALL: [Command; 3] = [Command::Rally, Command::Shoot, Command::Run];

    /// The command's place in [`Command::ALL`].
    pub const fn index(self) -> usize {
        match self {
            Command::Rally => 0,
            Command::Shoot => 1,
            Command::Run => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Command::Rally => "rally",
            Command::Shoot => "shoot",
            Command::Run => "run",
        }
    }
}

/// The unit a Shoot aims at. All but `Unit` are rules for picking one, applied at
/// declaration among the enemy units that can be shot then (ties: the nearest, then file
/// order); Call of the Masters' use 2 keeps the unit use 1 picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// An enemy unit, by index into [`Scenario::units`].
    Unit(usize),
    /// The one with the smallest model-to-model distance.
    Nearest,
    /// The one with the fewest models on the table.
    Weakest,
    /// The one with the most models on the table.
    Strongest,
}

/// Where a Run goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Heading {
    /// Straight toward a point of the table (stopping there).
    Point(Point),
    /// Straight away from the nearest enemy model, the full move.
    AwayFromNearestEnemy,
}

/// A command with its arguments, as validation built it: each variant carries exactly what its
/// command needs, so the rules match on it and never find an argument missing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Order {
    Rally,
    Shoot { target: Target },
    Run { toward: Heading },
}

impl Order {
    pub fn command(&self) -> Command {
        match self {
            Order::Rally => Command::Rally,
            Order::Shoot { .. } => Command::Shoot,
            Order::Run { .. } => Command::Run,
        }
    }
}

/// One order given to one unit, in one round.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub id: String,
    pub unit: usize,
    pub round: u32,
    pub order: Order,
}

/// A sequence of steps played in every trial. A step-list scenario without `[[choice]]` has
/// one choice with an empty id; each arm of a file with `set` choices ([`Arms::Designs`]) has
/// one choice, named by the choice's id.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub id: String,
    pub steps: Vec<Step>,
}

/// Which side activates first in a round of an engagement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum First {
    /// Always this side, by index into [`Engagement::sides`].
    Side(usize),
    /// Side `(round - 1) mod sides` (the first unit's side in round 1): with two sides they
    /// swap every round.
    Alternate,
    /// One uniform draw among the sides each round.
    Random,
}

/// When an engagement ends (besides after its last round).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// As soon as at most one side has models on the table.
    Destroyed,
    /// Only after every round.
    Rounds,
}

/// One entry of a unit's `orders`: taken when its condition holds (always without one) and its
/// command can be declared.
#[derive(Debug, Clone, PartialEq)]
pub struct GivenOrder {
    pub when: Option<crate::condition::Condition>,
    pub order: Given,
}

/// What an entry of `orders` declares: one order, or (`command = "best"`) whichever of its
/// options the advice picks in the state at hand, among those that can be declared then.
#[derive(Debug, Clone, PartialEq)]
pub enum Given {
    Order(Order),
    /// The options, in the file's `among` order (ties go to the first), one per command.
    Best(Vec<Order>),
}

impl Given {
    /// The orders it may declare.
    pub fn options(&self) -> &[Order] {
        match self {
            Given::Order(o) => std::slice::from_ref(o),
            Given::Best(options) => options,
        }
    }

    /// How files and messages name it: its command, or "best".
    pub fn name(&self) -> &'static str {
        match self {
            Given::Order(o) => o.command().name(),
            Given::Best(_) => "best",
        }
    }
}

/// An `[engagement]`: rounds in which the sides take turns activating their units, each unit
/// taking the first of its orders that applies.
#[derive(Debug, Clone, PartialEq)]
pub struct Engagement {
    /// The id of the choice it plays as, which names its metrics' arm: empty, or in an arm of
    /// a file with `set` choices ([`Arms::Designs`]), the choice's id (as [`Choice::id`] is
    /// for a step list).
    pub choice: String,
    /// At most this many rounds.
    pub rounds: u32,
    pub first: First,
    pub until: Until,
    /// Every side, in order of first appearance among the units: the order sides take turns.
    pub sides: Vec<String>,
    /// Per unit (as in [`Scenario::units`]): its side, by index into `sides`.
    pub side_of: Vec<usize>,
    /// Per side (as in `sides`): the metric its best orders maximise in expectation.
    pub objective: Vec<String>,
    /// Per unit (as in [`Scenario::units`]): its orders, in the order they are tried.
    pub orders: Vec<Vec<GivenOrder>>,
}

impl Engagement {
    /// Some unit has a `best` order: playing it needs advice first.
    pub fn has_best(&self) -> bool {
        self.orders
            .iter()
            .flatten()
            .any(|o| matches!(o.order, Given::Best(_)))
    }

    /// Per unit, the commands some order of it names, in [`Command::ALL`] order: those it has
    /// a `<unit>.declared.<command>` metric for.
    pub fn declared_commands(&self) -> Vec<Vec<Command>> {
        self.orders
            .iter()
            .map(|orders| {
                Command::ALL
                    .into_iter()
                    .filter(|c| {
                        orders
                            .iter()
                            .any(|o| o.order.options().iter().any(|x| x.command() == *c))
                    })
                    .collect()
            })
            .collect()
    }

    /// The metrics of an engagement arm of `units`, in the order a trial writes them: each
    /// unit's row, each side's row (`<side>.won`), `engagement.rounds`, then per unit
    /// `<unit>.declared.<command>` for each command some order of the unit names.
    pub fn metric_names(&self, units: &[Unit]) -> Vec<String> {
        let mut names = Vec::new();
        for u in units {
            for m in UnitMetrics::NAMES {
                names.push(format!("{}.{m}", u.id));
            }
        }
        for side in &self.sides {
            for m in SideMetrics::NAMES {
                names.push(format!("{side}.{m}"));
            }
        }
        for m in EngagementMetrics::NAMES {
            names.push(format!("engagement.{m}"));
        }
        for (u, commands) in units.iter().zip(self.declared_commands()) {
            for c in commands {
                names.push(format!("{}.declared.{}", u.id, c.name()));
            }
        }
        names
    }

    /// The metrics `rounds.csv` records as they stood at the end of each round (round 0:
    /// before the first activation), in the order a trial writes them every round: each
    /// unit's `<unit>.alive`, each side's `<side>.won`, then `engagement.over`.
    pub fn round_names(&self, units: &[Unit]) -> Vec<String> {
        let alive = units.iter().map(|u| format!("{}.alive", u.id));
        let won = self.sides.iter().map(|side| format!("{side}.won"));
        alive
            .chain(won)
            .chain(["engagement.over".to_string()])
            .collect()
    }
}

/// A validated scenario: one point of its sweep grid, with every override applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub trials: u64,
    pub seed: u64,
    pub options: Options,
    pub battlefield: Battlefield,
    pub units: Vec<Unit>,
    pub game: Game,
    /// The `[metrics]` of each arm, in [`Scenario::choice_ids`] order (one per step list, or
    /// the engagement's one; one for every arm of a card game, which all write the same
    /// metrics). Empty when the file has no `[metrics]`.
    pub derived: Vec<Derived>,
}

/// What every trial of a scenario plays. Each kind is matched where it matters (the plan, the
/// exact engine, `explain`, `check`), so a new kind makes the compiler point at each place
/// that must handle it.
#[derive(Debug, Clone, PartialEq)]
pub enum Game {
    /// Step lists, one per choice (at least one), each an arm played from the same start on
    /// the same random numbers.
    Steps(Vec<Choice>),
    /// An `[engagement]`: one arm, in which the units' orders decide what they do.
    Engagement(Engagement),
    /// A `[cards]` game (the scenario has no units).
    Cards(crate::cards::CardGame),
}

impl Scenario {
    /// The ids of the arms a trial of it plays, in order, as its metrics name them: one per
    /// step list, or the engagement's one; none for a card game, whose plan names its own.
    pub fn choice_ids(&self) -> Vec<&str> {
        match &self.game {
            Game::Steps(choices) => choices.iter().map(|c| c.id.as_str()).collect(),
            Game::Engagement(e) => vec![e.choice.as_str()],
            Game::Cards(_) => Vec::new(),
        }
    }

    /// The built-in metrics of each arm, in [`Scenario::choice_ids`] order, as a trial
    /// writes them: a step list's units' rows then its steps' rows, or an engagement's
    /// ([`Engagement::metric_names`]); none for a card game.
    pub fn builtin_metrics(&self) -> Vec<Vec<String>> {
        match &self.game {
            Game::Steps(choices) => choices
                .iter()
                .map(|c| step_metric_names(&self.units, &c.steps))
                .collect(),
            Game::Engagement(e) => vec![e.metric_names(&self.units)],
            Game::Cards(_) => Vec::new(),
        }
    }

    /// The derived metrics of arm `arm`, or none.
    pub fn derived(&self, arm: usize) -> Option<&Derived> {
        self.derived.get(arm).filter(|d| !d.is_empty())
    }
}

/// The metrics of a step list, in the order a trial writes them: each unit's row, then each
/// step's.
pub fn step_metric_names(units: &[Unit], steps: &[Step]) -> Vec<String> {
    let unit_rows = units.iter().flat_map(|u| {
        UnitMetrics::NAMES
            .iter()
            .map(move |m| format!("{}.{m}", u.id))
    });
    let step_rows = steps.iter().flat_map(|s| {
        StepMetrics::NAMES
            .iter()
            .map(move |m| format!("{}.{m}", s.id))
    });
    unit_rows.chain(step_rows).collect()
}

/// One point of a sweep grid: its parameter values (as written) and the scenarios there.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    pub params: Vec<String>,
    pub arms: Arms,
}

/// The scenarios one sweep point plays. An enum rather than a bare list of scenarios: a file
/// with `set` choices is a different run even with one choice (each arm compiled on its own
/// and compared with every other, its choices named by their ids, `check` and `explain`
/// calling them designs), and one list with a flag beside it would let the two disagree.
#[derive(Debug, Clone, PartialEq)]
pub enum Arms {
    /// A file without `set` choices: one scenario, whose arms (if any) are its own choices.
    Single(Box<Scenario>),
    /// A file whose `[[choice]]`s carry `set`: one scenario per choice, in file order (at
    /// least one), each playing one arm named by the choice's id: the file's steps or
    /// engagement, or the choice's own steps, with the choice's overrides applied.
    Designs(Vec<Scenario>),
}

impl Variant {
    /// The scenario there: in a file with `set` choices, the first arm's. The file-level keys
    /// (name, trials, seed) are the same in every arm.
    pub fn scenario(&self) -> &Scenario {
        &self.arms()[0]
    }

    /// The scenarios this point plays, one per arm: the designs, or the one scenario.
    pub fn arms(&self) -> &[Scenario] {
        match &self.arms {
            Arms::Single(scenario) => std::slice::from_ref(scenario.as_ref()),
            Arms::Designs(designs) => designs,
        }
    }
}

/// A loaded scenario file: all its sweep points (one when there is no `[sweep]`).
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioSet {
    pub name: String,
    /// The file as the user named it, for messages.
    pub file: String,
    /// Sweep key paths, in file order; the parameter columns of every table.
    pub param_names: Vec<String>,
    pub variants: Vec<Variant>,
    /// FNV-1a of the effective TOML (after `--set`), to tell runs of different inputs apart.
    pub hash: u64,
    /// `[balance]`, whose candidates are the variants (one each, in `over` order).
    pub balance: Option<Balance>,
    /// `[roster]`: its profiles, whose matchups are the arms of the one variant.
    pub roster: Option<crate::output::roster::Roster>,
}

impl ScenarioSet {
    pub fn trials(&self) -> u64 {
        self.variants[0].scenario().trials
    }

    pub fn seed(&self) -> u64 {
        self.variants[0].scenario().seed
    }
}

/// Reads and validates a scenario file, applying `settings` (`--set`) before validation.
pub fn load(path: &Path, settings: &[Setting]) -> Result<ScenarioSet, ScenarioError> {
    let file = path.display().to_string();
    let text = read_text(path, MAX_FILE_BYTES).map_err(|problem| ScenarioError::Read {
        file: file.clone(),
        problem,
    })?;
    parse(&text, &file, settings)
}

/// Reads a roster file as [`load`] does, but with only the matchups of one profile at another
/// model count ([`Focus`]): a candidate of the profile's fair-points search.
pub fn load_focused(
    path: &Path,
    settings: &[Setting],
    focus: Focus,
) -> Result<ScenarioSet, ScenarioError> {
    let file = path.display().to_string();
    let text = read_text(path, MAX_FILE_BYTES).map_err(|problem| ScenarioError::Read {
        file: file.clone(),
        problem,
    })?;
    parse_focused(&text, &file, settings, Some(focus))
}

/// Validates scenario text; `file` names it in messages.
pub fn parse(text: &str, file: &str, settings: &[Setting]) -> Result<ScenarioSet, ScenarioError> {
    parse_focused(text, file, settings, None)
}

fn parse_focused(
    text: &str,
    file: &str,
    settings: &[Setting],
    focus: Option<Focus>,
) -> Result<ScenarioSet, ScenarioError> {
    keys::check(file, text)?;
    build::unit_headers(
        &error::Context {
            file: file.to_string(),
        },
        text,
    )?;
    let written: toml::Table = toml::from_str(text).map_err(|e| ScenarioError::Syntax {
        file: file.to_string(),
        message: e.to_string(),
    })?;
    // Read from the text as written, so a value of the wrong type is shown at its line.
    let raw: RawFile = typed::from_text(file, text, &written, keys::FILE)?;
    build::sizes(
        &error::Context {
            file: file.to_string(),
        },
        &raw,
    )?;
    let mut value = written.clone();
    for setting in settings {
        overrides::apply(&mut value, setting).map_err(|problem| ScenarioError::Override {
            file: file.to_string(),
            setting: setting.to_string(),
            problem,
        })?;
    }
    let hash = fnv1a(&hashed_bytes(&value, file));
    let ctx = error::Context {
        file: file.to_string(),
    };
    let roster = roster::expand(&ctx, &mut value, focus)?;
    let (balance, grid) = match balance::read(&ctx, &value)? {
        Some((balance, grid)) => (Some(balance), grid),
        None => (
            None,
            overrides::sweep_grid(&value).map_err(|(setting, problem)| {
                ScenarioError::Override {
                    file: file.to_string(),
                    setting,
                    problem,
                }
            })?,
        ),
    };
    // A key set twice would be silently replaced by the later source; refuse it instead.
    let swept: Vec<Vec<String>> = grid.points[0].iter().map(|s| s.path.clone()).collect();
    if let Some((setting, key)) = settings.iter().find_map(|s| {
        swept
            .iter()
            .find(|p| designs::overlap(p, &s.path))
            .map(|p| (s, p))
    }) {
        return Err(ScenarioError::Override {
            file: file.to_string(),
            setting: setting.to_string(),
            problem: format!(
                "[sweep] also sets \"{}\", and each sweep point would replace this value; \
                 remove the key from [sweep] or drop the setting (--seed and --trials set \
                 scenario.seed and scenario.trials)",
                key.join(".")
            ),
        });
    }
    let taken: Vec<Vec<String>> = settings
        .iter()
        .map(|s| s.path.clone())
        .chain(swept)
        .collect();
    let inputs = Inputs {
        ctx: &ctx,
        written: &written,
        value: &value,
        settings,
        taken: &taken,
    };
    let variants = variants(&inputs, &grid.points, balance.is_some())?;
    Ok(ScenarioSet {
        name: variants[0].scenario().name.clone(),
        file: file.to_string(),
        param_names: grid.names,
        variants,
        hash,
        balance,
        roster,
    })
}

/// What every sweep point of a file is built from.
struct Inputs<'a> {
    ctx: &'a error::Context,
    /// The file as written, and with the settings and roster applied.
    written: &'a toml::Table,
    value: &'a toml::Table,
    settings: &'a [Setting],
    /// Key paths set by the settings or the sweep, which a point may not set again.
    taken: &'a [Vec<String>],
}

/// The file's sweep points (or balance candidates, with `balance`), each validated in full;
/// a refusal names the point unless the file fails alike without it.
fn variants(
    i: &Inputs<'_>,
    points: &[Vec<Setting>],
    balance: bool,
) -> Result<Vec<Variant>, ScenarioError> {
    let mut variants = Vec::with_capacity(points.len());
    for point in points {
        let variant = sweep_point(i.ctx, i.written, i.value, i.settings, point, i.taken);
        // A check that fails at a point of a sweep names the point, unless the file fails it
        // alike without the point's settings: then the file is at fault, not the sweep. (A
        // setting that cannot be applied is named as it is.)
        let variant = match variant {
            Err(e @ (ScenarioError::Override { .. } | ScenarioError::Sweep { .. })) => Err(e),
            Err(e) if !point.is_empty() => {
                let alone = sweep_point(i.ctx, i.written, i.value, i.settings, &[], i.taken);
                match alone {
                    Err(same) if same.to_string() == e.to_string() => Err(e),
                    _ => Err(e.at_sweep_point(assignments(point))),
                }
            }
            other => other,
        };
        // A candidate is named as one, not as a sweep point.
        let variant = match (variant, balance) {
            (Err(e), true) => Err(e.at_balance_candidate(assignments(point))),
            (v, _) => v,
        }?;
        if variants.is_empty() {
            metrics_cost(i.ctx, &variant, points.len())?;
        }
        variants.push(variant);
    }
    Ok(variants)
}

/// About the bytes a run holds per metric of every sweep point, whatever its trials: its
/// histograms in a worker's chunk, the run's totals and a checkpoint's, its names and its
/// rows of the tables. Measured (docs/limits.md, "Cost models"): 2,000 steps at 10 sweep
/// points (80,050 metrics) peaked at 321 MB, at 100 points (800,500 metrics) at 2.5 GB.
const BYTES_PER_METRIC: u64 = 4096;

/// Refuses a file whose metrics over all its `points` sweep points (as many as `first`, the
/// first point, has) would not fit the memory budget: a steps x points cost model, checked
/// before the other points are built.
fn metrics_cost(ctx: &error::Context, first: &Variant, points: usize) -> Result<(), ScenarioError> {
    let per_point: usize = first
        .arms()
        .iter()
        .map(|s| match &s.game {
            Game::Steps(choices) => {
                let steps: usize = choices.iter().map(|c| c.steps.len()).sum();
                s.units.len() * UnitMetrics::LEN * choices.len() + steps * StepMetrics::LEN
            }
            Game::Engagement(e) => e.metric_names(&s.units).len(),
            // Bounded per game at load (`cards`).
            Game::Cards(_) => 0,
        })
        .sum();
    let metrics = per_point as u128 * points as u128;
    let bytes = metrics * u128::from(BYTES_PER_METRIC);
    let budget = crate::config::limits::MEMORY_BUDGET;
    if bytes <= u128::from(budget) {
        return Ok(());
    }
    let what = format!(
        "{} metrics ({} sweep point(s) x {} each, at about {BYTES_PER_METRIC} bytes a metric)",
        crate::format::thousands(metrics as u64),
        crate::format::thousands(points as u64),
        crate::format::thousands(per_point as u64),
    );
    let key = "its points and `[[step]]` (each has its metrics, per choice) or `[[unit]]` \
               drive it: sweep fewer points, or split the steps into files";
    Err(ctx.invalid(
        "sweep",
        crate::format::over_budget(&what, bytes, budget, key),
    ))
}

/// One sweep point's variant: `point`'s settings applied to `value` (the file `written` with
/// `settings` applied), then validated.
fn sweep_point(
    ctx: &error::Context,
    written: &toml::Table,
    value: &toml::Table,
    settings: &[Setting],
    point: &[Setting],
    taken: &[Vec<String>],
) -> Result<Variant, ScenarioError> {
    let file = &ctx.file;
    let mut value = value.clone();
    for setting in point {
        overrides::apply(&mut value, setting).map_err(|problem| ScenarioError::Sweep {
            file: file.clone(),
            point: assignments(std::slice::from_ref(setting)),
            problem,
        })?;
    }
    let raw: RawFile = typed::from_tree(&value, keys::FILE)
        .map_err(|problem| override_type_error(file, written, settings, point, problem))?;
    let params = point.iter().map(|s| s.value_text()).collect();
    let arms = if designs::has_sets(&value) {
        Arms::Designs(designs::arms(ctx, &value, &raw, taken)?)
    } else {
        Arms::Single(Box::new(build::scenario(ctx, raw)?))
    };
    Ok(Variant { params, arms })
}

/// Names the setting (`--set` or sweep value) that gave a key a value of the wrong type: the
/// file alone deserialized, so the first setting after which the tree no longer does is the
/// culprit. `problem` is what the tree with every setting applied gave.
fn override_type_error(
    file: &str,
    written: &toml::Table,
    settings: &[Setting],
    point: &[Setting],
    problem: String,
) -> ScenarioError {
    let mut value = written.clone();
    for (i, setting) in settings.iter().chain(point).enumerate() {
        if overrides::apply(&mut value, setting).is_err() {
            break;
        }
        if let Err(problem) = typed::from_tree::<RawFile>(&value, keys::FILE) {
            return if i < settings.len() {
                ScenarioError::Override {
                    file: file.to_string(),
                    setting: setting.to_string(),
                    problem,
                }
            } else {
                ScenarioError::Sweep {
                    file: file.to_string(),
                    point: assignments(std::slice::from_ref(setting)),
                    problem,
                }
            };
        }
    }
    ScenarioError::Syntax {
        file: file.to_string(),
        message: format!("after applying overrides: {problem}"),
    }
}

/// A sweep point as messages name it: `unit.wardens.size = 3, scenario.seed = 2`.
fn assignments(point: &[Setting]) -> String {
    point
        .iter()
        .map(|s| format!("{} = {}", s.path.join("."), s.value))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses a count written as `1000000`, `1_000_000`, `1e6`, `2.5e6`, `1M`, `10k` or `1G`.
pub fn parse_count(text: &str) -> Result<u64, String> {
    let t = text.trim().replace('_', "");
    let (number, scale) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1e3),
        Some('M') => (&t[..t.len() - 1], 1e6),
        Some('G' | 'B') => (&t[..t.len() - 1], 1e9),
        _ => (t.as_str(), 1.0),
    };
    let bad = || {
        format!(
            "{} is not a count; expected a whole number such as 1000000, 1e6 or 1M",
            crate::config::suggest::quoted(text)
        )
    };
    if let (Ok(n), 1.0) = (number.parse::<u64>(), scale) {
        return Ok(n);
    }
    let v: f64 = number.parse().map_err(|_| bad())?;
    let v = v * scale;
    if !v.is_finite() || v < 0.0 || v.fract() != 0.0 || v > u64::MAX as f64 / 2.0 {
        return Err(bad());
    }
    Ok(v as u64)
}

/// What the scenario hash covers: the scenario after `--set`, and the card-set file it names
/// (read as the card loader reads it, relative to the scenario's folder), so shards of runs
/// over different card sets refuse to merge. An unreadable set adds nothing here; the card
/// loader reports it.
fn hashed_bytes(value: &toml::Table, file: &str) -> Vec<u8> {
    let mut bytes = toml::to_string(value).unwrap_or_default().into_bytes();
    let set = value
        .get("cards")
        .and_then(|c| c.get("set"))
        .and_then(|s| s.as_str());
    if let Some(set) = set {
        let folder = Path::new(file).parent().unwrap_or(Path::new(""));
        if let Ok(text) = read_text(&folder.join(set), MAX_FILE_BYTES) {
            bytes.extend_from_slice(b"\n# card set\n");
            bytes.extend_from_slice(text.as_bytes());
        }
    }
    bytes
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_in_every_spelling() {
        assert_eq!(parse_count("1000000"), Ok(1_000_000));
        assert_eq!(parse_count("1_000_000"), Ok(1_000_000));
        assert_eq!(parse_count("1e6"), Ok(1_000_000));
        assert_eq!(parse_count("2.5e6"), Ok(2_500_000));
        assert_eq!(parse_count("1M"), Ok(1_000_000));
        assert_eq!(parse_count("10k"), Ok(10_000));
        assert_eq!(parse_count("1G"), Ok(1_000_000_000));
        assert!(parse_count("1.5").is_err());
        assert!(parse_count("-3").is_err());
        assert!(parse_count("lots").is_err());
        assert!(parse_count("").is_err());
    }

    #[test]
    fn every_command_has_its_place_in_all() {
        for (i, c) in Command::ALL.into_iter().enumerate() {
            assert_eq!(c.index(), i, "{}", c.name());
        }
    }

    #[test]
    fn an_engagement_gets_its_defaults_sides_and_orders() {
        let text = r#"
[scenario]
name = "e"
[engagement]
[[unit]]
id = "a"
side = "red"
size = 2
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=4", range = 24.0 }
models = [[10.0, 10.0], [11.0, 10.0]]
orders = [
  { when = "missing >= 1", command = "rally" },
  { command = "shoot", target = "weakest" },
  { command = "shoot", target = "b" },
]
[[unit]]
id = "b"
side = "blue"
size = 1
resolve = "d6>=4"
models = [[20.0, 10.0]]
[[unit]]
id = "c"
side = "red"
size = 1
resolve = "d6>=4"
models = [[30.0, 10.0]]
"#;
        let set = parse(text, "e.toml", &[]).unwrap();
        let s = set.variants[0].scenario();
        let Game::Engagement(e) = &s.game else {
            panic!("an engagement")
        };
        assert_eq!(
            (e.rounds, e.first, e.until),
            (6, First::Side(0), Until::Destroyed)
        );
        assert_eq!(e.sides, ["red", "blue"]);
        assert_eq!(e.side_of, [0, 1, 0]);
        assert_eq!(e.objective, ["red.won", "blue.won"]);
        let orders: Vec<Order> = e.orders[0].iter().map(|o| o.order.options()[0]).collect();
        assert_eq!(
            orders,
            [
                Order::Rally,
                Order::Shoot {
                    target: Target::Weakest
                },
                Order::Shoot {
                    target: Target::Unit(1)
                },
            ]
        );
        assert_eq!(
            e.orders[0][0].when.as_ref().map(|w| w.to_string()),
            Some("missing >= 1".to_string())
        );
        assert!(e.orders[0][1].when.is_none() && e.orders[1].is_empty());
        // One arm, with an empty id: the engagement plays in it.
        assert_eq!(s.choice_ids(), [""]);
    }

    #[test]
    fn validation_gives_each_order_its_arguments() {
        let text = r#"
[scenario]
name = "orders"
[[unit]]
id = "blue"
side = "blue"
size = 2
resolve = "d6>=4"
move = 3.0
weapon = { attacks = 1, hit = "d6>=4", damage = 1, range = 24.0 }
models = [[10.0, 10.0], [11.0, 10.0]]
[[unit]]
id = "red"
side = "red"
size = 1
resolve = "d6>=4"
models = [[20.0, 10.0]]
[[step]]
unit = "blue"
command = "rally"
[[step]]
unit = "blue"
command = "shoot"
target = "red"
[[step]]
unit = "blue"
command = "run"
toward = [0.0, 5.0]
round = 2
[[step]]
unit = "blue"
command = "run"
round = 3
"#;
        let set = parse(text, "orders.toml", &[]).unwrap();
        let Game::Steps(choices) = &set.variants[0].scenario().game else {
            panic!("step lists")
        };
        let steps = &choices[0].steps;
        let orders: Vec<Order> = steps.iter().map(|s| s.order).collect();
        assert_eq!(
            orders,
            [
                Order::Rally,
                Order::Shoot {
                    target: Target::Unit(1)
                },
                Order::Run {
                    toward: Heading::Point(Point::new(0.0, 5.0))
                },
                Order::Run {
                    toward: Heading::AwayFromNearestEnemy
                },
            ]
        );
        let kinds: Vec<&str> = orders.iter().map(|o| o.command().name()).collect();
        assert_eq!(kinds, ["rally", "shoot", "run", "run"]);
        assert!(steps.iter().all(|s| s.unit == 0));
        assert_eq!(
            steps.iter().map(|s| s.round).collect::<Vec<_>>(),
            [1, 1, 2, 3]
        );
    }
}
