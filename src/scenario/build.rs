//! The assembly of a validated [`Scenario`] from the raw file: the file-level keys here, then
//! the units, then what the scenario plays (step lists, an engagement or a card game), each
//! checked in its own file, one way down.

use super::engagement::engagement;
use super::error::Context;
use super::orders::{self, MAX_CHOICES, MAX_STEPS};
use super::raw::*;
use super::units::{self, MAX_UNITS};
use super::values::{finite, positive};
use super::{Game, Options, Scenario, ScenarioError, Unit};
use crate::cards::CardGame;
use crate::config::is_identifier;
use crate::config::limits::MAX_NAME;
use crate::config::suggest::{clip, quoted};
use crate::geometry::{Battlefield, Rect};

type Result<T> = std::result::Result<T, ScenarioError>;

const DEFAULT_TRIALS: u64 = 1_000_000;
const DEFAULT_SIDE: f64 = 48.0;

/// Refuses, before the file is parsed, one with more `[[unit]]` headers than units allowed:
/// a file of the largest size, all units, takes seconds and hundreds of megabytes to parse.
/// Units written otherwise (an inline array) are counted by [`sizes`] after parsing.
pub(super) fn unit_headers(ctx: &Context, text: &str) -> Result<()> {
    let headers = text
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            l.strip_prefix("[[")
                .and_then(|l| l.trim_start().strip_prefix("unit"))
                .is_some_and(|l| l.trim_start().starts_with("]]"))
        })
        .count();
    if headers > MAX_UNITS {
        return Err(ctx.invalid(
            "unit",
            format!(
                "the file has {headers} [[unit]] tables, more than the most allowed, {MAX_UNITS} \
                 (counted before parsing it)"
            ),
        ));
    }
    Ok(())
}

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

/// The scenario of `raw`, every check passed. The checks run in a fixed order (file-level
/// keys, the card game, the battlefield, the units, then what they play), so a file with
/// several faults is always refused for the same one.
pub(super) fn scenario(ctx: &Context, raw: RawFile) -> Result<Scenario> {
    let name = name(ctx, &raw.scenario.name)?;
    let trials = trials(ctx, raw.scenario.trials.as_ref())?;
    let seed = seed(ctx, raw.scenario.seed)?;
    let options = options(ctx, &raw.options)?;
    let cards = raw
        .cards
        .as_ref()
        .map(|c| {
            let game = crate::cards::validate(&ctx.file, c)?
                .with_listeners_persist(options.listeners_persist);
            crate::cards::cost::check(&ctx.file, &game)?;
            Ok::<_, crate::config::ConfigError>(game)
        })
        .transpose()?;
    let battlefield = battlefield(ctx, raw.battlefield.as_ref())?;
    let units = units::units(ctx, &raw.unit, &battlefield)?;
    let game = game(ctx, &raw, &units, cards)?;
    let mut scenario = Scenario {
        name,
        trials,
        seed,
        options,
        battlefield,
        units,
        game,
        derived: Vec::new(),
    };
    scenario.derived = super::derived::derived(ctx, raw.metrics.as_ref(), &scenario)?;
    Ok(scenario)
}

/// What the file plays: its `[engagement]` (which refuses `[cards]` beside it), its card game
/// `cards` (validated already), or its step lists.
fn game(ctx: &Context, raw: &RawFile, units: &[Unit], cards: Option<CardGame>) -> Result<Game> {
    if let Some(engagement) = engagement(ctx, raw, units)? {
        return Ok(Game::Engagement(engagement));
    }
    let Some(cards) = cards else {
        return orders::choices(ctx, raw, units).map(Game::Steps);
    };
    if !raw.step.is_empty() || !raw.choice.is_empty() {
        return Err(ctx.invalid(
            "cards",
            "a card-game scenario has no [[step]] or [[choice]]; its plays are in [cards.players.<P>]",
        ));
    }
    Ok(Game::Cards(cards))
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

/// `scenario.trials`, written as a whole number or as text such as `1e6`.
fn trials(ctx: &Context, raw: Option<&RawCount>) -> Result<u64> {
    match raw {
        None => Ok(DEFAULT_TRIALS),
        Some(RawCount::Int(n)) if *n >= 1 => Ok(*n as u64),
        Some(RawCount::Int(n)) => {
            Err(ctx.invalid("scenario.trials", format!("{n} must be at least 1")))
        }
        Some(RawCount::Text(t)) => match super::parse_count(t) {
            Ok(n) if n >= 1 => Ok(n),
            Ok(n) => Err(ctx.invalid("scenario.trials", format!("{n} must be at least 1"))),
            Err(e) => Err(ctx.invalid("scenario.trials", e)),
        },
    }
}

fn seed(ctx: &Context, raw: Option<i64>) -> Result<u64> {
    match raw {
        None => Ok(1),
        Some(s) if s >= 0 => Ok(s as u64),
        Some(s) => Err(ctx.invalid(
            "scenario.seed",
            format!("{s} must be a whole number from 0 to {}", i64::MAX),
        )),
    }
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
