//! `[[profile]]` and `[roster]`: unit designs with a points cost, played every one against
//! every other. The file's engagement is the template: the two `slots` units take each
//! profile's `unit` keys, and `size` and `alive` follow the budget. The ordered pairs become
//! `[[choice]]`s with `set` named `i v j` (i in the first slot, j in the second), so they are
//! validated and played on common random numbers exactly as written choices are.

use super::error::{Context, ScenarioError};
use super::keys;
use crate::config::is_identifier;
use crate::config::suggest::{clip, quoted, unknown_id};
use crate::output::roster::{matchup_id, Profile, Roster};

type Result<T> = std::result::Result<T, ScenarioError>;

/// Profiles at most: a roster of n plays n * n matchups, each a choice of its own.
pub const MAX_PROFILES: usize = 16;

/// Unit keys a profile may not give: the template keeps its id, side, formation and orders,
/// and the budget sets the models.
const KEPT: [(&str, &str); 7] = [
    ("id", "the slot keeps its id"),
    ("side", "the slot keeps its side"),
    ("formation", "the slot keeps its formation"),
    ("orders", "the slot keeps its orders"),
    (
        "size",
        "size follows the budget: budget / points, rounded down",
    ),
    (
        "alive",
        "alive follows the budget: budget / points, rounded down",
    ),
    ("missing", "every model of a profile starts alive"),
];

/// Top-level tables a roster file may not have, and why.
const REFUSED: [(&str, &str); 3] = [
    (
        "choice",
        "a roster's choices are its matchups `i v j`; play other designs in a file of their own",
    ),
    (
        "sweep",
        "a roster plays one budget; run a copy of the file per budget (--set roster.budget=N)",
    ),
    (
        "balance",
        "a roster plays every matchup; balance a pair in a file of its own",
    ),
];

/// One profile at a model count of its own against the rest of the field at the budget: a
/// candidate of the profile's fair-points search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Focus {
    /// The profile's index, in file order.
    pub profile: usize,
    pub models: u64,
}

/// Reads `[roster]` and `[[profile]]` from `root` (the file as overridden) and writes the
/// matchups into it as `[[choice]]`s; `None` when the file has neither. With a `focus`, the
/// matchups are the focused profile's against every other, in both seats (`i v j`, then
/// `j v i`, for each j in file order), the focused profile at its model count.
pub(super) fn expand(
    ctx: &Context,
    root: &mut toml::Table,
    focus: Option<Focus>,
) -> Result<Option<Roster>> {
    if !root.contains_key("roster") && !root.contains_key("profile") {
        return Ok(None);
    }
    let Some(section) = root.get("roster") else {
        return Err(ctx.invalid(
            "profile",
            "profiles are played by a [roster] with `budget` and `slots`; add one",
        ));
    };
    for (top, why) in REFUSED {
        if root.contains_key(top) {
            return Err(ctx.invalid(top, format!("cannot be used with [roster]: {why}")));
        }
    }
    if !root.contains_key("engagement") {
        return Err(ctx.invalid(
            "roster",
            "a roster's slots are units of the file's [engagement]; add one",
        ));
    }
    let budget = budget(ctx, section.get("budget"))?;
    let slots = slots(ctx, root, section.get("slots"))?;
    let mut profiles = profiles(ctx, root, budget, &slots.0)?;
    let pairs: Vec<(usize, usize)> = match focus {
        None => (0..profiles.len())
            .flat_map(|a| (0..profiles.len()).map(move |b| (a, b)))
            .collect(),
        Some(f) => {
            profiles[f.profile].0.models = f.models;
            (0..profiles.len())
                .filter(|&j| j != f.profile)
                .flat_map(|j| [(f.profile, j), (j, f.profile)])
                .collect()
        }
    };
    let choices = pairs
        .into_iter()
        .map(|(a, b)| {
            let ((a, a_unit), (b, b_unit)) = (&profiles[a], &profiles[b]);
            let mut set = toml::Table::new();
            fill(&mut set, &slots.0[0], a, a_unit);
            fill(&mut set, &slots.0[1], b, b_unit);
            let mut choice = toml::Table::new();
            choice.insert("id".into(), matchup_id(&a.id, &b.id).into());
            choice.insert("set".into(), set.into());
            toml::Value::Table(choice)
        })
        .collect();
    root.insert("choice".into(), toml::Value::Array(choices));
    Ok(Some(Roster {
        budget,
        profiles: profiles.into_iter().map(|(p, _)| p).collect(),
        first_won: format!("{}.won", slots.1[0]),
        second_won: format!("{}.won", slots.1[1]),
    }))
}

/// The settings that make `slot` play `profile`: its unit keys, then its models.
fn fill(set: &mut toml::Table, slot: &str, profile: &Profile, unit: &toml::Table) {
    for (k, v) in unit {
        set.insert(format!("unit.{slot}.{k}"), v.clone());
    }
    let models = i64::try_from(profile.models).unwrap_or(i64::MAX);
    set.insert(format!("unit.{slot}.size"), models.into());
    set.insert(format!("unit.{slot}.alive"), models.into());
}

fn budget(ctx: &Context, value: Option<&toml::Value>) -> Result<u64> {
    match value {
        Some(toml::Value::Integer(b)) if *b >= 1 => Ok(*b as u64),
        Some(v) => Err(ctx.invalid(
            "roster.budget",
            format!(
                "{} must be a whole number of points of at least 1",
                clip(&v.to_string())
            ),
        )),
        None => Err(ctx.invalid(
            "roster.budget",
            "is missing; [roster] needs `budget` (points per side) and `slots`",
        )),
    }
}

/// The two slot unit ids and their sides.
fn slots(
    ctx: &Context,
    root: &toml::Table,
    value: Option<&toml::Value>,
) -> Result<([String; 2], [String; 2])> {
    let key = "roster.slots";
    let ids: Vec<&str> = match value {
        Some(toml::Value::Array(a)) => a.iter().filter_map(toml::Value::as_str).collect(),
        _ => Vec::new(),
    };
    let count = value.and_then(toml::Value::as_array).map_or(0, Vec::len);
    if ids.len() != 2 || count != 2 {
        let shown = value.map_or("nothing".into(), |v| clip(&v.to_string()));
        return Err(ctx.invalid(
            key,
            format!("{shown} must be two unit ids in quotes, such as [\"blue\", \"red\"]"),
        ));
    }
    let units: Vec<(&str, &str)> = root
        .get("unit")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|u| {
            let id = u.get("id")?.as_str()?;
            Some((
                id,
                u.get("side").and_then(toml::Value::as_str).unwrap_or(""),
            ))
        })
        .collect();
    let known: Vec<&str> = units.iter().map(|u| u.0).collect();
    let mut sides = Vec::new();
    for id in &ids {
        let Some(unit) = units.iter().find(|u| u.0 == *id) else {
            return Err(ctx.invalid(
                key,
                format!(
                    "{}; a slot must be a unit of the engagement",
                    unknown_id("unit", id, &known)
                ),
            ));
        };
        sides.push(unit.1.to_string());
    }
    if sides[0] == sides[1] {
        return Err(ctx.invalid(
            key,
            format!(
                "units {} and {} are both on side {}; the slots must face each other",
                quoted(ids[0]),
                quoted(ids[1]),
                quoted(&sides[0])
            ),
        ));
    }
    Ok((
        [ids[0].to_string(), ids[1].to_string()],
        [sides[0].clone(), sides[1].clone()],
    ))
}

/// Every profile with its unit table, checked.
fn profiles(
    ctx: &Context,
    root: &toml::Table,
    budget: u64,
    slots: &[String; 2],
) -> Result<Vec<(Profile, toml::Table)>> {
    let written = root
        .get("profile")
        .and_then(toml::Value::as_array)
        .cloned()
        .unwrap_or_default();
    if written.len() < 2 || written.len() > MAX_PROFILES {
        return Err(ctx.invalid(
            "profile",
            format!(
                "the roster has {} profiles; it needs 2 to {MAX_PROFILES}",
                written.len()
            ),
        ));
    }
    let mut out: Vec<(Profile, toml::Table)> = Vec::with_capacity(written.len());
    for p in &written {
        let id = p.get("id").and_then(toml::Value::as_str).unwrap_or("");
        if !is_identifier(id) {
            return Err(ctx.invalid(
                "profile.id",
                format!("{} must be 1 to 64 letters, digits, '_' or '-'", quoted(id)),
            ));
        }
        let key = |k: &str| format!("profile.{id}.{k}");
        if out.iter().any(|(q, _)| q.id == id) {
            return Err(ctx.invalid(
                key("id"),
                format!(
                    "id {} is used by two profiles; ids must be unique",
                    quoted(id)
                ),
            ));
        }
        let points = points(ctx, &key("points"), p.get("points"), budget)?;
        let unit = unit_table(ctx, id, p.get("unit"), slots)?;
        let profile = Profile {
            id: id.to_string(),
            points,
            models: budget / points,
            fair: None,
        };
        out.push((profile, unit));
    }
    Ok(out)
}

/// A profile's points per model: a whole number from 1 to the budget.
fn points(ctx: &Context, key: &str, value: Option<&toml::Value>, budget: u64) -> Result<u64> {
    match value {
        Some(toml::Value::Integer(n)) if *n >= 1 && n.unsigned_abs() <= budget => {
            Ok(n.unsigned_abs())
        }
        Some(v) => Err(ctx.invalid(
            key,
            format!(
                "{} must be a whole number of points per model from 1 to the budget, {budget}",
                clip(&v.to_string())
            ),
        )),
        None => Err(ctx.invalid(key, "is missing: points per model")),
    }
}

/// A profile's `unit` table, each key one a slot's unit may take.
fn unit_table(
    ctx: &Context,
    id: &str,
    value: Option<&toml::Value>,
    slots: &[String; 2],
) -> Result<toml::Table> {
    let table = match value {
        None => return Ok(toml::Table::new()),
        Some(toml::Value::Table(t)) => t.clone(),
        Some(v) => {
            return Err(ctx.invalid(
                format!("profile.{id}.unit"),
                format!(
                    "{} must be a table of unit keys, such as {{ resolve = \"4+\" }}",
                    clip(&v.to_string())
                ),
            ))
        }
    };
    for k in table.keys() {
        let key = format!("profile.{id}.unit.{k}");
        if let Some((_, why)) = KEPT.iter().find(|(kept, _)| kept == k) {
            return Err(ctx.invalid(key, format!("a profile may not set `{k}`: {why}")));
        }
        let path = ["unit", slots[0].as_str(), k].map(String::from).to_vec();
        keys::check_setting(&path).map_err(|problem| ctx.invalid(key, problem))?;
    }
    Ok(table)
}
