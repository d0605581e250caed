//! The checks of an `[engagement]` and of the units' `orders`, turning them into an
//! [`Engagement`].

use super::error::Context;
use super::orders::{order, OrderKeys, ORDERS};
use super::raw::{RawFile, RawOrder};
use super::values::count;
use super::{Engagement, First, Given, GivenOrder, Order, ScenarioError, Unit, Until};
use crate::condition::Condition;
use crate::config::suggest::{hint, quoted, quoted_list, unknown_id, unknown_value};

type Result<T> = std::result::Result<T, ScenarioError>;

const DEFAULT_ROUNDS: i64 = 6;
/// Far beyond any game, small enough that a trial always ends quickly.
const MAX_ROUNDS: i64 = 1000;

/// The engagement of a file, if it has one; `units` are the validated units.
pub(super) fn engagement(
    ctx: &Context,
    raw: &RawFile,
    units: &[Unit],
) -> Result<Option<Engagement>> {
    let Some(e) = &raw.engagement else {
        if let Some(u) = raw.unit.iter().find(|u| !u.orders.is_empty()) {
            return Err(ctx.invalid(
                format!("unit.{}.orders", u.id),
                "orders are played only in an [engagement]; add an [engagement] section, or \
                 give the unit [[step]]s instead",
            ));
        }
        return Ok(None);
    };
    alone(ctx, raw, units)?;
    let (sides, side_of) = sides(units);
    let rounds = match e.rounds {
        None => DEFAULT_ROUNDS as u32,
        Some(r) => count(ctx, "engagement.rounds", r, 1, MAX_ROUNDS)?,
    };
    let first = first(ctx, e.first.as_deref(), &sides, &side_of)?;
    let until = match e.until.as_deref().unwrap_or("destroyed") {
        "destroyed" => Until::Destroyed,
        "rounds" => Until::Rounds,
        other => {
            return Err(ctx.invalid(
                "engagement.until",
                unknown_value("ending", other, &["destroyed", "rounds"]),
            ))
        }
    };
    let mut orders = Vec::with_capacity(units.len());
    for (i, u) in raw.unit.iter().enumerate() {
        orders.push(unit_orders(ctx, i, &u.orders, units)?);
    }
    let mut engagement = Engagement {
        choice: String::new(),
        rounds,
        first,
        until,
        sides,
        side_of,
        objective: Vec::new(),
        orders,
    };
    engagement.objective = objective(ctx, raw, units, &engagement)?;
    Ok(Some(engagement))
}

/// Refuses what cannot be played beside an engagement (steps, step-list choices, a card
/// game) and an engagement without units.
fn alone(ctx: &Context, raw: &RawFile, units: &[Unit]) -> Result<()> {
    if !raw.step.is_empty() {
        return Err(ctx.invalid(
            "engagement",
            "a file has [[step]]s or an [engagement], never both: steps play a fixed script, \
             an engagement lets each unit's `orders` decide; remove one of them",
        ));
    }
    if !raw.choice.is_empty() {
        return Err(ctx.invalid(
            "choice",
            "a [[choice]] with `steps` is not supported in an [engagement] yet: there is no \
             step list for it to replace, the units' `orders` decide what they do; give each \
             choice a `set` of overrides instead, e.g. set = { \"unit.<id>.orders\" = [...] }",
        ));
    }
    if raw.cards.is_some() {
        return Err(ctx.invalid(
            "engagement",
            "a card-game scenario has no [engagement]; remove one of [cards] and [engagement]",
        ));
    }
    if units.is_empty() {
        return Err(ctx.invalid(
            "engagement",
            "an engagement needs at least one [[unit]] (with orders, for anything to happen)",
        ));
    }
    Ok(())
}

/// Every side, in order of first appearance among `units`, and per unit its side's index.
fn sides(units: &[Unit]) -> (Vec<String>, Vec<usize>) {
    let mut sides: Vec<String> = Vec::new();
    let side_of: Vec<usize> = units
        .iter()
        .map(|u| match sides.iter().position(|s| *s == u.side) {
            Some(i) => i,
            None => {
                sides.push(u.side.clone());
                sides.len() - 1
            }
        })
        .collect();
    (sides, side_of)
}

/// `engagement.first`: a side's name or a way of choosing one; the first unit's side without
/// it.
fn first(
    ctx: &Context,
    written: Option<&str>,
    sides: &[String],
    side_of: &[usize],
) -> Result<First> {
    let side_names: Vec<&str> = sides.iter().map(String::as_str).collect();
    if let Some(keyword) =
        written.filter(|f| ["alternate", "random"].contains(f) && side_names.contains(f))
    {
        return Err(ctx.invalid(
            "engagement.first",
            format!(
                "{} is both a way of choosing the first side and the name of a side; rename the side",
                quoted(keyword)
            ),
        ));
    }
    Ok(match written {
        None => First::Side(side_of[0]),
        Some("alternate") => First::Alternate,
        Some("random") => First::Random,
        Some(side) => match sides.iter().position(|s| s == side) {
            Some(i) => First::Side(i),
            None => {
                let mut known = vec!["alternate", "random"];
                known.extend(&side_names);
                return Err(ctx.invalid(
                    "engagement.first",
                    format!(
                        "{}{} is not a side of any unit; allowed: \"alternate\", \"random\" or a side: {}",
                        quoted(side),
                        hint(side, &known),
                        quoted_list(&side_names)
                    ),
                ));
            }
        },
    })
}

fn unit_orders(
    ctx: &Context,
    unit: usize,
    raw: &[RawOrder],
    units: &[Unit],
) -> Result<Vec<GivenOrder>> {
    raw.iter()
        .enumerate()
        .map(|(i, o)| {
            let key = |k: &str| format!("unit.{}.orders[{i}].{k}", units[unit].id);
            let when = o
                .when
                .as_deref()
                .map(|text| {
                    Condition::parse(text).map_err(|e| ctx.invalid(key("when"), e.to_string()))
                })
                .transpose()?;
            let order = if o.command == BEST {
                Given::Best(best_options(ctx, &key, unit, o, units)?)
            } else {
                let given = order(
                    ctx,
                    &key,
                    OrderKeys {
                        unit,
                        command: &o.command,
                        target: o.target.as_deref(),
                        toward: o.toward.as_deref(),
                    },
                    units,
                    ORDERS,
                )?;
                if let Some(among) = &o.among {
                    return Err(ctx.invalid(
                        key("among"),
                        format!(
                            "{}: only command = \"best\" chooses among commands; remove the key, or set command = \"best\"",
                            quoted_list(&among.iter().map(String::as_str).collect::<Vec<_>>())
                        ),
                    ));
                }
                Given::Order(given)
            };
            Ok(GivenOrder { when, order })
        })
        .collect()
}

/// The command name of a `best` order.
const BEST: &str = "best";
/// What `among` may list.
const CHOOSABLE: [&str; 3] = ["rally", "shoot", "run"];

/// The options of a `best` order: one order per command of `among`, in its order, each built
/// and checked as a plain order with the entry's `target` (Shoot) or `toward` (Run).
fn best_options(
    ctx: &Context,
    key: &dyn Fn(&str) -> String,
    unit: usize,
    o: &RawOrder,
    units: &[Unit],
) -> Result<Vec<Order>> {
    let Some(among) = &o.among else {
        return Err(ctx.invalid(
            key("among"),
            "best needs the commands to choose among, such as among = [\"rally\", \"shoot\"]; allowed: \"rally\", \"shoot\", \"run\"",
        ));
    };
    if among.is_empty() {
        return Err(ctx.invalid(
            key("among"),
            "[] lists no command; best needs at least one of \"rally\", \"shoot\", \"run\"",
        ));
    }
    for (j, c) in among.iter().enumerate() {
        if !CHOOSABLE.contains(&c.as_str()) {
            return Err(ctx.invalid(
                format!("{}[{j}]", key("among")),
                unknown_value("command", c, &CHOOSABLE),
            ));
        }
        if among[..j].contains(c) {
            return Err(ctx.invalid(
                format!("{}[{j}]", key("among")),
                format!("{} is listed twice; list each command once", quoted(c)),
            ));
        }
    }
    let has = |c: &str| among.iter().any(|x| x == c);
    if let (Some(t), false) = (&o.target, has("shoot")) {
        return Err(ctx.invalid(
            key("target"),
            format!(
                "{}: only shoot takes a target and `among` has no \"shoot\"; remove the key",
                quoted(t)
            ),
        ));
    }
    if let (Some(_), false) = (&o.toward, has("run")) {
        return Err(ctx.invalid(
            key("toward"),
            "only run takes `toward` and `among` has no \"run\"; remove the key",
        ));
    }
    // A plain order's checks, with `command` standing for the option's place in `among`.
    among
        .iter()
        .enumerate()
        .map(|(j, c)| {
            let key = |k: &str| match k {
                "command" => format!("{}[{j}]", key("among")),
                _ => key(k),
            };
            order(
                ctx,
                &key,
                OrderKeys {
                    unit,
                    command: c,
                    target: o.target.as_deref().filter(|_| c == "shoot"),
                    toward: o.toward.as_deref().filter(|_| c == "run"),
                },
                units,
                ORDERS,
            )
        })
        .collect()
}

/// Per side, the metric its best orders maximise: `<side>.won` unless `objective` says.
fn objective(
    ctx: &Context,
    raw: &RawFile,
    units: &[Unit],
    engagement: &Engagement,
) -> Result<Vec<String>> {
    let mut objective: Vec<String> = engagement
        .sides
        .iter()
        .map(|s| format!("{s}.won"))
        .collect();
    let Some(table) = raw.engagement.as_ref().and_then(|e| e.objective.as_ref()) else {
        return Ok(objective);
    };
    let sides: Vec<&str> = engagement.sides.iter().map(String::as_str).collect();
    let metrics = engagement.metric_names(units);
    // A derived metric may be an objective; its own entry is checked with `[metrics]`.
    let derived = raw.metrics.iter().flat_map(|t| t.keys());
    let known: Vec<&str> = metrics.iter().chain(derived).map(String::as_str).collect();
    for (side, value) in table {
        let key = format!("engagement.objective.{side}");
        let Some(i) = sides.iter().position(|s| s == side) else {
            return Err(ctx.invalid(key, unknown_id("side", side, &sides)));
        };
        let Some(metric) = value.as_str() else {
            return Err(ctx.invalid(
                key,
                format!(
                    "{} must be a metric name in quotes, such as \"{side}.won\"",
                    crate::config::shown(value)
                ),
            ));
        };
        if !known.contains(&metric) {
            return Err(ctx.invalid(
                key,
                format!(
                    "{}; it must be a metric this scenario produces",
                    unknown_id("metric", metric, &known)
                ),
            ));
        }
        objective[i] = metric.to_string();
    }
    Ok(objective)
}
