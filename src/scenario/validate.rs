//! Every check of a scenario, turning raw structs into the validated [`Scenario`].

use super::error::Context;
use super::raw::*;
use super::{
    Choice, Command, Heading, Options, Order, Response, Scenario, ScenarioError, Step, Target,
    Unit, Weapon,
};
use crate::config::is_identifier;
use crate::config::limits::MAX_NAME;
use crate::config::suggest::{clip, quoted, unknown_id, unknown_value};
use crate::dice::{Amount, DiceTest};
use crate::geometry::spatial;
use crate::geometry::{overlaps, slack, Battlefield, Point, Rect};

type Result<T> = std::result::Result<T, ScenarioError>;

const DEFAULT_TRIALS: u64 = 1_000_000;
const DEFAULT_SIDE: f64 = 48.0;
/// Large enough for any real army, small enough that the exact engine's tables stay small.
const MAX_UNIT_SIZE: i64 = 100_000;

/// The most `[[unit]]`s a scenario may have: Shoot keeps tables per shooter and target.
pub const MAX_UNITS: usize = 256;
/// The most `[[choice]]`s: compare.csv has a row per pair of them.
pub const MAX_CHOICES: usize = 64;
/// The most `[[step]]`s in the file or in one choice.
pub const MAX_STEPS: usize = 10_000;
/// The most attacks one volley may roll: a unit's size times the most attacks one model rolls.
/// Shoot's tables hold one entry per possible count of attacks.
pub const MAX_VOLLEY: u64 = 10_000;

/// Checks the lengths of the file's lists before anything is built per element.
pub(super) fn sizes(ctx: &Context, raw: &RawFile) -> Result<()> {
    let too_many = |key: &str, n: usize, max: usize| {
        ctx.invalid(
            key,
            format!("the file has {n}, more than the most allowed, {max}"),
        )
    };
    if raw.unit.len() > MAX_UNITS {
        return Err(too_many("unit", raw.unit.len(), MAX_UNITS));
    }
    if raw.choice.len() > MAX_CHOICES {
        return Err(too_many("choice", raw.choice.len(), MAX_CHOICES));
    }
    if raw.step.len() > MAX_STEPS {
        return Err(too_many("step", raw.step.len(), MAX_STEPS));
    }
    if let Some(c) = raw.choice.iter().find(|c| c.steps.len() > MAX_STEPS) {
        return Err(too_many(
            &format!("choice.{}.steps", clip(&c.id)),
            c.steps.len(),
            MAX_STEPS,
        ));
    }
    Ok(())
}

pub(super) fn scenario(ctx: &Context, raw: RawFile) -> Result<Scenario> {
    let name = name(ctx, &raw.scenario.name)?;
    let trials = match &raw.scenario.trials {
        None => DEFAULT_TRIALS,
        Some(RawCount::Int(n)) if *n >= 1 => *n as u64,
        Some(RawCount::Int(n)) => {
            return Err(ctx.invalid("scenario.trials", format!("{n} must be at least 1")))
        }
        Some(RawCount::Text(t)) => match super::parse_count(t) {
            Ok(n) if n >= 1 => n,
            Ok(n) => return Err(ctx.invalid("scenario.trials", format!("{n} must be at least 1"))),
            Err(e) => return Err(ctx.invalid("scenario.trials", e)),
        },
    };
    let seed = match raw.scenario.seed {
        None => 1,
        Some(s) if s >= 0 => s as u64,
        Some(s) => {
            return Err(ctx.invalid(
                "scenario.seed",
                format!("{s} must be a whole number from 0 to {}", i64::MAX),
            ))
        }
    };
    let options = options(ctx, &raw.options)?;
    let cards = raw
        .cards
        .as_ref()
        .map(|c| {
            crate::cards::validate(&ctx.file, c)
                .map(|game| game.with_listeners_persist(options.listeners_persist))
        })
        .transpose()?;
    let battlefield = battlefield(ctx, raw.battlefield.as_ref())?;
    let mut units = Vec::with_capacity(raw.unit.len());
    for (i, u) in raw.unit.iter().enumerate() {
        let unit = unit(ctx, u, &battlefield)?;
        if let Some(prev) = raw.unit[..i].iter().find(|p| p.id == u.id) {
            return Err(ctx.invalid(
                format!("unit.{}.id", u.id),
                format!(
                    "id {} is used by two units; ids must be unique",
                    quoted(&prev.id)
                ),
            ));
        }
        units.push(unit);
    }
    no_overlaps(ctx, &units)?;
    let engagement = super::engagement::engagement(ctx, &raw, &units)?;
    let choices = if engagement.is_some() {
        // The engagement plays in the one arm; `set` choices make one scenario per arm
        // (`super::designs`).
        vec![Choice {
            id: String::new(),
            steps: Vec::new(),
        }]
    } else if cards.is_some() {
        if !raw.step.is_empty() || !raw.choice.is_empty() {
            return Err(ctx.invalid(
                "cards",
                "a card-game scenario has no [[step]] or [[choice]]; its plays are in [cards.players.<P>]",
            ));
        }
        Vec::new()
    } else if raw.choice.is_empty() {
        if raw.step.is_empty() {
            return Err(ctx.invalid(
                "step",
                "the scenario has no [[step]], no [[choice]] and no [engagement]; add at least \
                 one step such as { unit = \"<unit id>\", command = \"rally\" }, or an \
                 [engagement] with orders on the units",
            ));
        }
        vec![Choice {
            id: String::new(),
            steps: steps(ctx, "step", &raw.step, &units)?,
        }]
    } else {
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
                steps: steps(ctx, &format!("{key}.steps"), &c.steps, &units)?,
            });
        }
        choices
    };
    Ok(Scenario {
        name,
        trials,
        seed,
        options,
        battlefield,
        units,
        choices,
        cards,
        engagement,
    })
}

/// Checks the id of `choices[i]`: a name, and not the id of an earlier choice.
pub(super) fn choice_id(ctx: &Context, choices: &[RawChoice], i: usize) -> Result<()> {
    let id = &choices[i].id;
    let key = format!("choice.{id}.id");
    if !is_identifier(id) {
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

fn name(ctx: &Context, name: &str) -> Result<String> {
    let ok = is_identifier(&name.replace('.', "_"));
    if !ok || name.starts_with('.') {
        return Err(ctx.invalid(
            "scenario.name",
            format!(
                "{} must be 1 to {MAX_NAME} letters, digits, '_', '-' or '.' (it names the results folder)",
                quoted(name)
            ),
        ));
    }
    Ok(name.to_string())
}

fn options(ctx: &Context, raw: &RawOptions) -> Result<Options> {
    let d = Options::default();
    let modifier = |key: &str, v: Option<i64>, default: i32| -> Result<i32> {
        match v {
            None => Ok(default),
            Some(v) if (-20..=20).contains(&v) => Ok(v as i32),
            Some(v) => Err(ctx.invalid(key, format!("{v} must be between -20 and 20"))),
        }
    };
    Ok(Options {
        rally_chain: raw.rally.chain.unwrap_or(d.rally_chain),
        spill: raw.spill.unwrap_or(d.spill),
        defend_bonus: modifier("options.defend.bonus", raw.defend.bonus, d.defend_bonus)?,
        covering_fire_hit_modifier: modifier(
            "options.covering_fire.hit_modifier",
            raw.covering_fire.hit_modifier,
            d.covering_fire_hit_modifier,
        )?,
        masters_retarget: raw.masters.retarget.unwrap_or(d.masters_retarget),
        listeners_persist: raw.listeners.persist.unwrap_or(d.listeners_persist),
    })
}

fn positive(ctx: &Context, key: &str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(ctx.invalid(key, format!("{v} must be a number greater than 0")))
    }
}

fn finite(ctx: &Context, key: &str, v: f64) -> Result<f64> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(ctx.invalid(key, format!("{v} must be a finite number")))
    }
}

fn battlefield(ctx: &Context, raw: Option<&RawBattlefield>) -> Result<Battlefield> {
    let Some(raw) = raw else {
        return Ok(Battlefield {
            width: DEFAULT_SIDE,
            height: DEFAULT_SIDE,
            terrain: Vec::new(),
        });
    };
    let width = positive(ctx, "battlefield.width", raw.width)?;
    let height = positive(ctx, "battlefield.height", raw.height)?;
    let mut terrain = Vec::new();
    for (i, t) in raw.terrain.iter().enumerate() {
        let key = format!("battlefield.terrain[{i}]");
        terrain.push(Rect {
            x: finite(ctx, &format!("{key}.x"), t.x)?,
            y: finite(ctx, &format!("{key}.y"), t.y)?,
            width: positive(ctx, &format!("{key}.width"), t.width)?,
            height: positive(ctx, &format!("{key}.height"), t.height)?,
        });
    }
    Ok(Battlefield {
        width,
        height,
        terrain,
    })
}

fn dice(ctx: &Context, key: &str, text: &str) -> Result<DiceTest> {
    DiceTest::parse(text).map_err(|mut e| {
        e.text = clip(&e.text);
        ctx.invalid(key, e.to_string())
    })
}

/// Most attacks one model may make in a volley, whether fixed or rolled.
const MAX_ATTACKS: u32 = 1000;
/// Most damage one unsaved hit may deal, whether fixed or rolled.
const MAX_DAMAGE: u32 = 1_000_000;

/// A weapon's attacks or damage: a whole number from `min` to `max`, or dice whose largest
/// result is at most `max` and can reach `min` (a roll below `min`, such as `d3-1` giving 0
/// damage, is allowed: it is a legitimate rules outcome).
fn amount(ctx: &Context, key: &str, raw: &RawAmount, min: u32, max: u32) -> Result<Amount> {
    let parsed = match raw {
        RawAmount::Int(v) => Amount::Fixed(count(ctx, key, *v, min.into(), max.into())?),
        RawAmount::Text(t) => Amount::parse(t).map_err(|mut e| {
            e.text = clip(&e.text);
            ctx.invalid(key, e.to_string())
        })?,
    };
    match parsed {
        Amount::Fixed(n) if n < min || n > max => Err(ctx.invalid(
            key,
            format!("{n} must be a whole number from {min} to {max}"),
        )),
        Amount::Dice { .. } if parsed.max() > max => Err(ctx.invalid(
            key,
            format!(
                "{} can roll up to {}, more than the most allowed, {max}",
                quoted(&parsed.to_string()),
                parsed.max()
            ),
        )),
        Amount::Dice { .. } if parsed.max() < min => Err(ctx.invalid(
            key,
            format!(
                "{} never rolls more than {}; it must be able to reach {min} (results below 0 \
                 count as 0)",
                quoted(&parsed.to_string()),
                parsed.max()
            ),
        )),
        _ => Ok(parsed),
    }
}

/// Refuses a Rally (`key` names the step or order that gives it) by a unit without a
/// `resolve` test. Every place that can make a unit Rally calls this, so the rules can rely
/// on a Rallying unit having its Resolve test.
pub(crate) fn rally_needs_resolve(ctx: &Context, key: &str, unit: &Unit) -> Result<()> {
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

pub(super) fn count(ctx: &Context, key: &str, v: i64, min: i64, max: i64) -> Result<u32> {
    if (min..=max).contains(&v) {
        Ok(v as u32)
    } else {
        Err(ctx.invalid(
            key,
            format!("{v} must be a whole number from {min} to {max}"),
        ))
    }
}

fn unit(ctx: &Context, raw: &RawUnit, field: &Battlefield) -> Result<Unit> {
    if !is_identifier(&raw.id) {
        return Err(ctx.invalid(
            "unit.id",
            format!(
                "{} must be 1 to {MAX_NAME} letters, digits, '_' or '-' (it names metrics such as <id>.alive)",
                quoted(&raw.id)
            ),
        ));
    }
    let key = |k: &str| format!("unit.{}.{k}", raw.id);
    if raw.side.trim().is_empty() {
        return Err(ctx.invalid(key("side"), "\"\" must name a side, e.g. \"blue\""));
    }
    let size = count(ctx, &key("size"), raw.size, 1, MAX_UNIT_SIZE)?;
    let alive = match raw.alive {
        None => size,
        Some(a) if a > size as i64 && a >= 0 => {
            return Err(ctx.invalid(
                key("alive"),
                format!("{a} is more than size = {size}; alive must be from 0 to size"),
            ))
        }
        Some(a) => count(ctx, &key("alive"), a, 0, size as i64)?,
    };
    let hp = count(ctx, &key("hp"), raw.hp.unwrap_or(1), 1, 1_000_000)?;
    let base = positive(ctx, &key("base"), raw.base.unwrap_or(1.0))?;
    if base > field.width || base > field.height {
        return Err(ctx.invalid(
            key("base"),
            format!(
                "{base} is larger than the battlefield ({} x {}); a base must fit on the table",
                field.width, field.height
            ),
        ));
    }
    let resolve = raw
        .resolve
        .as_deref()
        .map(|t| dice(ctx, &key("resolve"), t))
        .transpose()?;
    let defense = raw
        .defense
        .as_deref()
        .map(|t| dice(ctx, &key("defense"), t))
        .transpose()?;
    let weapon = match &raw.weapon {
        None => None,
        Some(w) => Some(Weapon {
            attacks: {
                let attacks = amount(ctx, &key("weapon.attacks"), &w.attacks, 0, MAX_ATTACKS)?;
                let volley = u64::from(size) * u64::from(attacks.max());
                if volley > MAX_VOLLEY {
                    return Err(ctx.invalid(
                        key("weapon.attacks"),
                        format!(
                            "a volley of size = {size} models rolling up to {} attacks each is {volley} attacks, more than the most allowed, {MAX_VOLLEY}",
                            attacks.max()
                        ),
                    ));
                }
                attacks
            },
            hit: dice(ctx, &key("weapon.hit"), &w.hit)?,
            damage: match &w.damage {
                None => Amount::Fixed(1),
                Some(d) => amount(ctx, &key("weapon.damage"), d, 1, MAX_DAMAGE)?,
            },
            range: {
                let r = finite(ctx, &key("weapon.range"), w.range)?;
                if r < 0.0 {
                    return Err(
                        ctx.invalid(key("weapon.range"), format!("{r} must be 0 or more inches"))
                    );
                }
                r
            },
        }),
    };
    let mut call_of_the_masters = false;
    for rule in &raw.rules {
        match rule.as_str() {
            "call_of_the_masters" => call_of_the_masters = true,
            other => {
                return Err(ctx.invalid(
                    key("rules"),
                    unknown_value("rule", other, &["call_of_the_masters"]),
                ))
            }
        }
    }
    let response = match raw.response.as_deref().unwrap_or("none") {
        "none" => Response::None,
        "defend" => Response::Defend,
        "covering_fire" => Response::CoveringFire,
        "random" => Response::Random,
        other => {
            return Err(ctx.invalid(
                key("response"),
                unknown_value(
                    "response",
                    other,
                    &["none", "defend", "covering_fire", "random"],
                ),
            ))
        }
    };
    if response == Response::CoveringFire && weapon.is_none() {
        return Err(ctx.invalid(
            key("response"),
            "\"covering_fire\" needs a weapon; add weapon = { attacks, hit, damage, range }",
        ));
    }
    let move_distance = match raw.move_distance {
        None => None,
        Some(m) if m.is_finite() && m >= 0.0 => Some(m),
        Some(m) => return Err(ctx.invalid(key("move"), format!("{m} must be 0 or more inches"))),
    };
    let models = positions(ctx, raw, alive)?;
    let r = base / 2.0;
    for (i, p) in models.iter().enumerate() {
        let where_ = format!("model {} at ({}, {})", i + 1, p.x, p.y);
        if !field.contains(*p, r) {
            return Err(ctx.invalid(
                key(position_key(raw)),
                format!(
                    "{where_} with a {base}\" base is off the {} x {} battlefield; every base must lie wholly on it",
                    field.width, field.height
                ),
            ));
        }
        if let Some(t) = field.blocking_terrain(*p, r) {
            return Err(ctx.invalid(
                key(position_key(raw)),
                format!(
                    "{where_} overlaps impassable terrain {{ x = {}, y = {}, width = {}, height = {} }}; models must stand outside it",
                    t.x, t.y, t.width, t.height
                ),
            ));
        }
    }
    Ok(Unit {
        id: raw.id.clone(),
        side: raw.side.clone(),
        size,
        hp,
        base,
        resolve,
        defense,
        weapon,
        call_of_the_masters,
        response,
        move_distance,
        models,
    })
}

fn position_key(raw: &RawUnit) -> &'static str {
    if raw.models.is_some() {
        "models"
    } else {
        "formation"
    }
}

/// The centres of the models alive: from an explicit list or laid out by a formation.
fn positions(ctx: &Context, raw: &RawUnit, alive: u32) -> Result<Vec<Point>> {
    let key = |k: &str| format!("unit.{}.{k}", raw.id);
    match (&raw.formation, &raw.models) {
        (Some(_), Some(_)) => Err(ctx.invalid(
            key("models"),
            "both `formation` and `models` are given; use one of them",
        )),
        (None, None) if alive > 0 => Err(ctx.invalid(
            key("formation"),
            format!(
                "{alive} models are alive but none has a position; add formation = {{ kind = \"line\", x, y, spacing }} or models = [[x, y], ...]"
            ),
        )),
        (None, None) => Ok(Vec::new()),
        (None, Some(list)) => {
            if list.len() != alive as usize {
                return Err(ctx.invalid(
                    key("models"),
                    format!(
                        "lists {} positions but alive = {alive}; give one [x, y] per model alive",
                        list.len()
                    ),
                ));
            }
            list.iter()
                .enumerate()
                .map(|(i, xy)| match xy.as_slice() {
                    [x, y] if x.is_finite() && y.is_finite() => Ok(Point::new(*x, *y)),
                    _ => Err(ctx.invalid(
                        format!("unit.{}.models[{i}]", raw.id),
                        format!("{} must be a pair of numbers [x, y]", clip(&format!("{xy:?}"))),
                    )),
                })
                .collect()
        }
        (Some(f), None) => {
            let x = finite(ctx, &key("formation.x"), f.x)?;
            let y = finite(ctx, &key("formation.y"), f.y)?;
            let spacing = f.spacing.unwrap_or(raw.base.unwrap_or(1.0));
            let spacing = positive(ctx, &key("formation.spacing"), spacing)?;
            let columns = match (f.kind.as_str(), f.columns) {
                ("line", None) => u32::MAX,
                ("line", Some(_)) => {
                    return Err(ctx.invalid(
                        key("formation.columns"),
                        "a line has no columns; use kind = \"grid\" for rows of `columns`",
                    ))
                }
                ("grid", Some(c)) => count(ctx, &key("formation.columns"), c, 1, 100_000)?,
                ("grid", None) => {
                    return Err(ctx.invalid(
                        key("formation.columns"),
                        "a grid needs columns = <models per row>",
                    ))
                }
                (other, _) => {
                    return Err(ctx.invalid(
                        key("formation.kind"),
                        unknown_value("formation", other, &["line", "grid"]),
                    ))
                }
            };
            Ok((0..alive)
                .map(|i| {
                    Point::new(
                        x + (i % columns) as f64 * spacing,
                        y + (i / columns) as f64 * spacing,
                    )
                })
                .collect())
        }
    }
}

fn no_overlaps(ctx: &Context, units: &[Unit]) -> Result<()> {
    let models: Vec<(&Unit, usize, Point)> = units
        .iter()
        .flat_map(|u| u.models.iter().enumerate().map(move |(i, p)| (u, i, *p)))
        .collect();
    // The first overlapping pair in file order (the first model of any pair, then the
    // second), found through a grid: two bases overlap only within the widest two radii.
    let widest = units.iter().fold(0.0f64, |m, u| m.max(u.radius()));
    let Some((lo, hi)) = spatial::bounds(models.iter().map(|m| m.2)) else {
        return Ok(());
    };
    let reach = 2.0 * widest + slack(lo, hi, 2.0 * widest);
    let mut grid = spatial::Grid::default();
    grid.reset(lo, hi, reach, models.len());
    for m in &models {
        grid.insert(m.2);
    }
    for (a, (ua, ia, pa)) in models.iter().enumerate() {
        let mut first = None;
        grid.any_near(*pa, reach, |b, pb| {
            let (ub, _, _) = models[b as usize];
            if b as usize > a
                && first.is_none_or(|f| b < f)
                && overlaps(*pa, ua.radius(), pb, ub.radius())
            {
                first = Some(b);
            }
            false
        });
        if let Some(b) = first {
            let (ub, ib, pb) = models[b as usize];
            return Err(ctx.invalid(
                format!("unit.{}", ub.id),
                format!(
                    "model {} of {} at ({}, {}) overlaps model {} of {} at ({}, {}); bases may touch but not overlap",
                    ib + 1, ub.id, pb.x, pb.y, ia + 1, ua.id, pa.x, pa.y
                ),
            ));
        }
    }
    Ok(())
}

pub(super) fn steps(
    ctx: &Context,
    list_key: &str,
    raw: &[RawStep],
    units: &[Unit],
) -> Result<Vec<Step>> {
    let mut steps: Vec<Step> = Vec::with_capacity(raw.len());
    let mut round = 1;
    for (i, s) in raw.iter().enumerate() {
        let id = s.id.clone().unwrap_or_else(|| format!("step{}", i + 1));
        let key = |k: &str| format!("{list_key}.{id}.{k}");
        if !is_identifier(&id) {
            return Err(ctx.invalid(
                format!("{list_key}[{i}].id"),
                format!(
                    "{} must be 1 to {MAX_NAME} letters, digits, '_' or '-'",
                    quoted(&id)
                ),
            ));
        }
        if steps.iter().any(|p| p.id == id) {
            return Err(ctx.invalid(
                key("id"),
                format!(
                    "id {} is used by two steps; ids must be unique",
                    quoted(&id)
                ),
            ));
        }
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
        let step_round = match s.round {
            None => round,
            Some(r) if r >= round as i64 && r <= 1_000_000 => r as u32,
            Some(r) => {
                return Err(ctx.invalid(
                    key("round"),
                    format!(
                        "{r} must be a whole number from {round} (the previous step's round) to 1000000; steps are played in order"
                    ),
                ))
            }
        };
        round = step_round;
        steps.push(Step {
            id,
            unit,
            round: step_round,
            order,
        });
    }
    Ok(steps)
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
    let command = match raw.command {
        "rally" => Command::Rally,
        "shoot" => Command::Shoot,
        "run" => Command::Run,
        "defend" | "covering_fire" => {
            return Err(ctx.invalid(
                key("command"),
                format!(
                    "{} is a responding command, declared in an enemy command's window; set the unit's `response` key instead. {what} take: rally, shoot, run",
                    quoted(raw.command)
                ),
            ))
        }
        other => {
            // Orders may also be `best` (handled before this), steps may not.
            let allowed: &[&str] = if what == ORDERS {
                &["rally", "shoot", "run", "best"]
            } else {
                &["rally", "shoot", "run"]
            };
            return Err(ctx.invalid(
                key("command"),
                unknown_value("command", other, allowed),
            ));
        }
    };
    let unit = raw.unit;
    let unit_ids = || units.iter().map(|u| u.id.as_str()).collect::<Vec<_>>();
    let rule = raw.target.filter(|_| what == ORDERS).and_then(target_rule);
    let mut order = match (raw.target, command, rule) {
        (None, Command::Shoot, _) if what == ORDERS => {
            return Err(ctx.invalid(
                key("target"),
                "shoot needs a target: \"nearest\", \"weakest\", \"strongest\" or an enemy unit id",
            ))
        }
        (None, Command::Shoot, _) => {
            return Err(ctx.invalid(key("target"), "shoot needs a target = \"<enemy unit id>\""))
        }
        (Some(t), Command::Shoot, Some(rule)) => {
            if units.iter().any(|u| u.id == t) {
                return Err(ctx.invalid(
                    key("target"),
                    format!(
                        "{} is both a target rule and a unit id; rename the unit to aim at it",
                        quoted(t)
                    ),
                ));
            }
            Order::Shoot { target: rule }
        }
        (Some(t), Command::Shoot, None) => {
            let Some(ti) = units.iter().position(|u| u.id == t) else {
                if what != ORDERS {
                    return Err(ctx.invalid(key("target"), unknown_id("unit", t, &unit_ids())));
                }
                let mut known = unit_ids();
                known.extend(TARGET_RULES.iter().map(|(n, _)| *n));
                return Err(ctx.invalid(
                    key("target"),
                    format!(
                        "{} (a target is an enemy unit id or one of the rules \"nearest\", \"weakest\", \"strongest\")",
                        unknown_id("target", t, &known)
                    ),
                ));
            };
            if units[ti].side == units[unit].side {
                return Err(ctx.invalid(
                    key("target"),
                    format!(
                        "{} is on {}'s own side {}; a target must be an enemy unit",
                        quoted(t),
                        units[unit].id,
                        quoted(&units[unit].side)
                    ),
                ));
            }
            Order::Shoot {
                target: Target::Unit(ti),
            }
        }
        (Some(t), other, _) => {
            return Err(ctx.invalid(
                key("target"),
                format!(
                    "{}: {} takes no target; remove the key",
                    quoted(t),
                    other.name()
                ),
            ))
        }
        (None, Command::Rally, _) => Order::Rally,
        (None, Command::Run, _) => Order::Run {
            toward: Heading::AwayFromNearestEnemy,
        },
    };
    if command == Command::Rally {
        rally_needs_resolve(ctx, &key("command"), &units[unit])?;
    }
    if command == Command::Shoot && units[unit].weapon.is_none() {
        return Err(ctx.invalid(
            key("command"),
            format!(
                "\"shoot\" needs a weapon but unit \"{}\" has none; add weapon = {{ attacks, hit, damage, range }}",
                units[unit].id
            ),
        ));
    }
    if command == Command::Run && units[unit].move_distance.is_none() {
        return Err(ctx.invalid(
            key("command"),
            format!(
                "\"run\" needs a move distance but unit \"{}\" has none; add move = <inches>",
                units[unit].id
            ),
        ));
    }
    match (raw.toward, &mut order) {
        (None, _) => {}
        (Some(xy), Order::Run { toward }) => match xy {
            [x, y] if x.is_finite() && y.is_finite() => {
                *toward = Heading::Point(Point::new(*x, *y))
            }
            _ => {
                return Err(ctx.invalid(
                    key("toward"),
                    format!(
                        "{} must be a pair of numbers [x, y]",
                        clip(&format!("{xy:?}"))
                    ),
                ))
            }
        },
        (Some(_), other) => {
            return Err(ctx.invalid(
                key("toward"),
                format!("{} has no `toward`; only run does", other.command().name()),
            ))
        }
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    /// Units of random sizes on a half-inch lattice, bases of 1" or 2", so that some touch and
    /// some overlap: the error names the first overlapping pair in file order, as checking
    /// every pair in that order finds it.
    #[test]
    fn the_overlap_named_is_the_first_in_file_order() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(153);
        let mut below = |n: u64| rng.next_u64() % n;
        let mut refused = 0;
        for _ in 0..300 {
            let mut text = String::from(
                "[scenario]\nname = \"o\"\n[battlefield]\nwidth = 48.0\nheight = 48.0\n",
            );
            let mut all = Vec::new();
            for u in 0..1 + below(4) {
                let base = [1.0, 1.0, 2.0][below(3) as usize];
                let n = 1 + below(40);
                let models: Vec<(f64, f64)> = (0..n)
                    .map(|_| ((2 + below(76)) as f64 * 0.5, (2 + below(76)) as f64 * 0.5))
                    .collect();
                let list: Vec<String> = models
                    .iter()
                    .map(|(x, y)| format!("[{x:.1}, {y:.1}]"))
                    .collect();
                text += &format!(
                    "[[unit]]\nid = \"u{u}\"\nside = \"{}\"\nsize = {n}\nbase = {base}\nresolve = \"d6>=4\"\nmodels = [{}]\n",
                    if u % 2 == 0 { "blue" } else { "red" },
                    list.join(", ")
                );
                all.extend(
                    models
                        .iter()
                        .enumerate()
                        .map(|(i, &p)| (u, i, p, base / 2.0)),
                );
            }
            text += "[[step]]\nunit = \"u0\"\ncommand = \"rally\"\n";
            let expected = all.iter().enumerate().find_map(|(a, &(ua, ia, pa, ra))| {
                all[a + 1..].iter().find_map(|&(ub, ib, pb, rb)| {
                    let d = ((pa.0 - pb.0).powi(2) + (pa.1 - pb.1).powi(2)).sqrt();
                    (d < ra + rb - 1e-6).then(|| {
                        format!(
                            "model {} of u{ub} at ({}, {}) overlaps model {} of u{ua}",
                            ib + 1,
                            pb.0,
                            pb.1,
                            ia + 1
                        )
                    })
                })
            });
            match (crate::scenario::parse(&text, "o.toml", &[]), expected) {
                (Ok(_), None) => {}
                (Err(e), Some(says)) => {
                    refused += 1;
                    assert!(
                        e.to_string().contains(&says),
                        "{e}\nexpected: {says}\n{text}"
                    );
                }
                (got, expected) => panic!("{:?} but expected {expected:?}\n{text}", got.err()),
            }
        }
        assert!((30..270).contains(&refused), "{refused} of 300 refused");
    }
}
