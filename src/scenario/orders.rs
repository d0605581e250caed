//! The checks of what units are told to do: `[[step]]` lists and `[[choice]]`s of them, and
//! the orders that steps and an engagement's `orders` give alike.

use super::error::Context;
use super::raw::{RawChoice, RawFile, RawStep};
use super::{Choice, Command, Heading, Order, ScenarioError, Step, Target, Unit};
use crate::config::is_identifier;
use crate::config::limits::MAX_NAME;
use crate::config::suggest::{clip, quoted, unknown_id, unknown_value};
use crate::geometry::Point;

type Result<T> = std::result::Result<T, ScenarioError>;

/// The most `[[choice]]`s: compare.csv has a row per pair of them.
pub const MAX_CHOICES: usize = 64;
/// The most `[[step]]`s in the file or in one choice.
pub const MAX_STEPS: usize = 10_000;

/// The step lists of a file without an engagement or a card game: its `[[step]]` list as one
/// choice with an empty id, or one choice per `[[choice]]`.
pub(super) fn choices(ctx: &Context, raw: &RawFile, units: &[Unit]) -> Result<Vec<Choice>> {
    if raw.choice.is_empty() {
        if raw.step.is_empty() {
            return Err(ctx.invalid(
                "step",
                "the scenario has no [[step]], no [[choice]] and no [engagement]; add at least \
                 one step such as { unit = \"<unit id>\", command = \"rally\" }, or an \
                 [engagement] with orders on the units",
            ));
        }
        return Ok(vec![Choice {
            id: String::new(),
            steps: steps(ctx, "step", &raw.step, units)?,
        }]);
    }
    let mut choices: Vec<Choice> = Vec::new();
    for (i, c) in raw.choice.iter().enumerate() {
        choice_id(ctx, &raw.choice, i)?;
        let key = format!("choice.{}", c.id);
        if c.steps.is_empty() {
            return Err(ctx.invalid(
                format!("{key}.steps"),
                "a choice needs at least one step, or a `set` of overrides to play the \
                 file's [[step]] list with",
            ));
        }
        choices.push(Choice {
            id: c.id.clone(),
            steps: steps(ctx, &format!("{key}.steps"), &c.steps, units)?,
        });
    }
    Ok(choices)
}

/// Checks the id of `choices[i]`: a name, and not the id of an earlier choice.
pub(super) fn choice_id(ctx: &Context, choices: &[RawChoice], i: usize) -> Result<()> {
    let id = &choices[i].id;
    let key = format!("choice.{id}.id");
    // A roster's matchups are named `i v j` after two profile ids.
    let matchup = id
        .split_once(" v ")
        .is_some_and(|(a, b)| is_identifier(a) && is_identifier(b));
    if !is_identifier(id) && !matchup {
        return Err(ctx.invalid(
            key,
            format!(
                "{} must be 1 to {MAX_NAME} letters, digits, '_' or '-'",
                quoted(id)
            ),
        ));
    }
    if choices[..i].iter().any(|p| p.id == *id) {
        return Err(ctx.invalid(
            key,
            format!(
                "id {} is used by two choices; ids must be unique",
                quoted(id)
            ),
        ));
    }
    Ok(())
}

/// A step list, `list_key` naming it in messages (`step`, `choice.<id>.steps`).
fn steps(ctx: &Context, list_key: &str, raw: &[RawStep], units: &[Unit]) -> Result<Vec<Step>> {
    let mut steps: Vec<Step> = Vec::with_capacity(raw.len());
    let mut round = 1;
    for (i, s) in raw.iter().enumerate() {
        let id = step_id(ctx, list_key, i, s, &steps)?;
        let key = |k: &str| format!("{list_key}.{id}.{k}");
        let unit_ids = || units.iter().map(|u| u.id.as_str()).collect::<Vec<_>>();
        let Some(unit) = units.iter().position(|u| u.id == s.unit) else {
            return Err(ctx.invalid(key("unit"), unknown_id("unit", &s.unit, &unit_ids())));
        };
        let order = order(
            ctx,
            &key,
            OrderKeys {
                unit,
                command: &s.command,
                target: s.target.as_deref(),
                toward: s.toward.as_deref(),
            },
            units,
            "Steps",
        )?;
        round = step_round(ctx, &key, s.round, round)?;
        steps.push(Step {
            id,
            unit,
            round,
            order,
        });
    }
    Ok(steps)
}

/// The id of step `i` of a list (`step<i+1>` unless it names one), unique among `before`.
fn step_id(
    ctx: &Context,
    list_key: &str,
    i: usize,
    s: &RawStep,
    before: &[Step],
) -> Result<String> {
    let id = s.id.clone().unwrap_or_else(|| format!("step{}", i + 1));
    if !is_identifier(&id) {
        return Err(ctx.invalid(
            format!("{list_key}[{i}].id"),
            format!(
                "{} must be 1 to {MAX_NAME} letters, digits, '_' or '-'",
                quoted(&id)
            ),
        ));
    }
    if before.iter().any(|p| p.id == id) {
        return Err(ctx.invalid(
            format!("{list_key}.{id}.id"),
            format!(
                "id {} is used by two steps; ids must be unique",
                quoted(&id)
            ),
        ));
    }
    Ok(id)
}

/// A step's round: the previous step's unless it says, never earlier, since steps play in
/// order.
fn step_round(
    ctx: &Context,
    key: &dyn Fn(&str) -> String,
    written: Option<i64>,
    previous: u32,
) -> Result<u32> {
    match written {
        None => Ok(previous),
        Some(r) if r >= previous as i64 && r <= 1_000_000 => Ok(r as u32),
        Some(r) => Err(ctx.invalid(
            key("round"),
            format!(
                "{r} must be a whole number from {previous} (the previous step's round) to 1000000; steps are played in order"
            ),
        )),
    }
}

/// What the keys of a step or an order say, before checking.
pub(super) struct OrderKeys<'r> {
    /// The acting unit, by index.
    pub unit: usize,
    pub command: &'r str,
    pub target: Option<&'r str>,
    pub toward: Option<&'r [f64]>,
}

/// `what` of [`order`] for a unit's `orders`, which may also aim by a rule.
pub(super) const ORDERS: &str = "Orders";

/// The target rules an order may name instead of a unit.
const TARGET_RULES: [(&str, Target); 3] = [
    ("nearest", Target::Nearest),
    ("weakest", Target::Weakest),
    ("strongest", Target::Strongest),
];

fn target_rule(text: &str) -> Option<Target> {
    TARGET_RULES
        .iter()
        .find(|(n, _)| *n == text)
        .map(|&(_, t)| t)
}

/// Builds the order that a step's or an order's keys give (`key` names them in messages;
/// `what`, "Steps" or [`ORDERS`], names the list in messages, and orders may aim by a rule).
pub(super) fn order(
    ctx: &Context,
    key: &dyn Fn(&str) -> String,
    raw: OrderKeys<'_>,
    units: &[Unit],
    what: &str,
) -> Result<Order> {
    let command = command(ctx, key, raw.command, what)?;
    let order = aimed(ctx, key, &raw, command, units, what)?;
    able(ctx, key, command, &units[raw.unit])?;
    headed(ctx, key, raw.toward, order)
}

/// The command a step or an order names: one a unit may be ordered to take.
fn command(ctx: &Context, key: &dyn Fn(&str) -> String, name: &str, what: &str) -> Result<Command> {
    match name {
        "rally" => Ok(Command::Rally),
        "shoot" => Ok(Command::Shoot),
        "run" => Ok(Command::Run),
        "defend" | "covering_fire" => Err(ctx.invalid(
            key("command"),
            format!(
                "{} is a responding command, declared in an enemy command's window; set the unit's `response` key instead. {what} take: rally, shoot, run",
                quoted(name)
            ),
        )),
        other => {
            // Orders may also be `best` (handled before this), steps may not.
            let allowed: &[&str] = if what == ORDERS {
                &["rally", "shoot", "run", "best"]
            } else {
                &["rally", "shoot", "run"]
            };
            Err(ctx.invalid(
                key("command"),
                unknown_value("command", other, allowed),
            ))
        }
    }
}

/// The order of `command` with its `target`: Shoot needs one, the others take none (Run
/// heads away from the nearest enemy until [`headed`] reads `toward`).
fn aimed(
    ctx: &Context,
    key: &dyn Fn(&str) -> String,
    raw: &OrderKeys<'_>,
    command: Command,
    units: &[Unit],
    what: &str,
) -> Result<Order> {
    match (raw.target, command) {
        (None, Command::Shoot) if what == ORDERS => Err(ctx.invalid(
            key("target"),
            "shoot needs a target: \"nearest\", \"weakest\", \"strongest\" or an enemy unit id",
        )),
        (None, Command::Shoot) => {
            Err(ctx.invalid(key("target"), "shoot needs a target = \"<enemy unit id>\""))
        }
        (Some(t), Command::Shoot) => shot_at(ctx, key, t, raw.unit, units, what),
        (Some(t), other) => Err(ctx.invalid(
            key("target"),
            format!(
                "{}: {} takes no target; remove the key",
                quoted(t),
                other.name()
            ),
        )),
        (None, Command::Rally) => Ok(Order::Rally),
        (None, Command::Run) => Ok(Order::Run {
            toward: Heading::AwayFromNearestEnemy,
        }),
    }
}

/// A Shoot by `unit` at `target`: an enemy unit's id, or in [`ORDERS`] a target rule.
fn shot_at(
    ctx: &Context,
    key: &dyn Fn(&str) -> String,
    target: &str,
    unit: usize,
    units: &[Unit],
    what: &str,
) -> Result<Order> {
    let unit_ids = || units.iter().map(|u| u.id.as_str()).collect::<Vec<_>>();
    if let Some(rule) = Some(target)
        .filter(|_| what == ORDERS)
        .and_then(target_rule)
    {
        if units.iter().any(|u| u.id == target) {
            return Err(ctx.invalid(
                key("target"),
                format!(
                    "{} is both a target rule and a unit id; rename the unit to aim at it",
                    quoted(target)
                ),
            ));
        }
        return Ok(Order::Shoot { target: rule });
    }
    let Some(ti) = units.iter().position(|u| u.id == target) else {
        if what != ORDERS {
            return Err(ctx.invalid(key("target"), unknown_id("unit", target, &unit_ids())));
        }
        let mut known = unit_ids();
        known.extend(TARGET_RULES.iter().map(|(n, _)| *n));
        return Err(ctx.invalid(
            key("target"),
            format!(
                "{} (a target is an enemy unit id or one of the rules \"nearest\", \"weakest\", \"strongest\")",
                unknown_id("target", target, &known)
            ),
        ));
    };
    if units[ti].side == units[unit].side {
        return Err(ctx.invalid(
            key("target"),
            format!(
                "{} is on {}'s own side {}; a target must be an enemy unit",
                quoted(target),
                units[unit].id,
                quoted(&units[unit].side)
            ),
        ));
    }
    Ok(Order::Shoot {
        target: Target::Unit(ti),
    })
}

/// Refuses `command` for a unit without what it needs: a Resolve test, a weapon, a move.
fn able(ctx: &Context, key: &dyn Fn(&str) -> String, command: Command, unit: &Unit) -> Result<()> {
    match command {
        Command::Rally => rally_needs_resolve(ctx, &key("command"), unit),
        Command::Shoot if unit.weapon.is_none() => Err(ctx.invalid(
            key("command"),
            format!(
                "\"shoot\" needs a weapon but unit \"{}\" has none; add weapon = {{ attacks, hit, damage, range }}",
                unit.id
            ),
        )),
        Command::Run if unit.move_distance.is_none() => Err(ctx.invalid(
            key("command"),
            format!(
                "\"run\" needs a move distance but unit \"{}\" has none; add move = <inches>",
                unit.id
            ),
        )),
        Command::Shoot | Command::Run => Ok(()),
    }
}

/// Refuses a Rally (`key` names the step or order that gives it) by a unit without a
/// `resolve` test. Every place that can make a unit Rally calls this, so the rules can rely
/// on a Rallying unit having its Resolve test.
pub(super) fn rally_needs_resolve(ctx: &Context, key: &str, unit: &Unit) -> Result<()> {
    if unit.resolve.is_some() {
        return Ok(());
    }
    Err(ctx.invalid(
        key,
        format!(
            "\"rally\" needs a Resolve test but unit \"{}\" has none; add resolve = \"d6>=4\" \
             (or \"4+\", any dice test) to unit.{}",
            unit.id, unit.id
        ),
    ))
}

/// `order` with its `toward` point, which only Run takes.
fn headed(
    ctx: &Context,
    key: &dyn Fn(&str) -> String,
    toward: Option<&[f64]>,
    order: Order,
) -> Result<Order> {
    match (toward, order) {
        (None, order) => Ok(order),
        (Some(xy), Order::Run { .. }) => match xy {
            [x, y] if x.is_finite() && y.is_finite() => Ok(Order::Run {
                toward: Heading::Point(Point::new(*x, *y)),
            }),
            _ => Err(ctx.invalid(
                key("toward"),
                format!(
                    "{} must be a pair of numbers [x, y]",
                    clip(&format!("{xy:?}"))
                ),
            )),
        },
        (Some(_), other) => Err(ctx.invalid(
            key("toward"),
            format!("{} has no `toward`; only run does", other.command().name()),
        )),
    }
}
