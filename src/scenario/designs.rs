//! `[[choice]]`s with `set`: design arms. Each choice is validated as a scenario of its own,
//! the file's tree with the choice's overrides applied (exactly as `--set` applies them), and
//! the arms are played on the same random numbers and compared in `compare.csv`.
//!
//! A choice with `set` plays its own `steps` if it has any, otherwise the file's `[[step]]`
//! list or `[engagement]`. A file without any `set` keeps choices as step lists of one
//! scenario (`build::scenario`).

use super::error::Context;
use super::keys::FILE;
use super::overrides::{self, split_path, Setting};
use super::raw::RawFile;
use super::{build, orders};
use super::{Game, Scenario, ScenarioError};
use crate::config::suggest::clip_line;
use crate::config::typed;

type Result<T> = std::result::Result<T, ScenarioError>;

/// Top-level tables a choice may not set: the arms share their name, trial count and seed
/// (their trials are paired), and one arm cannot hold choices or a sweep of its own.
const SHARED: [(&str, &str); 3] = [
    (
        "scenario",
        "the arms share the scenario's name, trials and seed, so that their trials are paired",
    ),
    ("choice", "a choice cannot change the choices"),
    (
        "sweep",
        "a choice cannot change the sweep; sweep the key instead",
    ),
];

/// Whether the tree has a `[[choice]]` with `set`, which makes every choice an arm of its own.
pub(super) fn has_sets(value: &toml::Table) -> bool {
    value
        .get("choice")
        .and_then(toml::Value::as_array)
        .is_some_and(|cs| cs.iter().any(|c| c.get("set").is_some()))
}

/// Every choice of `value` (one sweep point's tree, `--set` applied) as a validated scenario
/// with one choice named by its id. `raw` is `value` deserialized; `taken` are the key paths
/// that `--set`, the flags and the sweep already set, which a choice may not set again.
pub(super) fn arms(
    ctx: &Context,
    value: &toml::Table,
    raw: &RawFile,
    taken: &[Vec<String>],
) -> Result<Vec<Scenario>> {
    let written = value
        .get("choice")
        .and_then(toml::Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut arms = Vec::with_capacity(raw.choice.len());
    for (i, c) in raw.choice.iter().enumerate() {
        orders::choice_id(ctx, &raw.choice, i)?;
        let mut tree = value.clone();
        tree.remove("choice");
        if !c.steps.is_empty() {
            // Kept as a choice, so that messages name its steps as `choice.<id>.steps...`.
            let mut own = written[i].clone();
            if let Some(t) = own.as_table_mut() {
                t.remove("set");
            }
            tree.insert("choice".into(), toml::Value::Array(vec![own]));
        } else if raw.step.is_empty() && raw.engagement.is_none() && raw.cards.is_none() {
            return Err(ctx.invalid(
                format!("choice.{}.steps", c.id),
                "a choice without `steps` plays the file's [[step]] list (or its [engagement]), \
                 and the file has none; add [[step]]s, or give the choice its own `steps`",
            ));
        }
        let sets = settings(ctx, &c.id, c.set.as_ref(), taken)?;
        for (name, setting) in &sets {
            overrides::apply(&mut tree, setting).map_err(|problem| ScenarioError::Override {
                file: ctx.file.clone(),
                setting: name.clone(),
                problem,
            })?;
            if let Err(problem) = typed::from_tree::<RawFile>(&tree, FILE) {
                return Err(ScenarioError::Override {
                    file: ctx.file.clone(),
                    setting: name.clone(),
                    problem,
                });
            }
        }
        let arm_raw: RawFile =
            typed::from_tree(&tree, FILE).map_err(|problem| ScenarioError::Syntax {
                file: ctx.file.clone(),
                message: format!("choice `{}`: {problem}", c.id),
            })?;
        let mut scenario =
            build::scenario(ctx, arm_raw).map_err(|e| in_choice(e, &c.id, c.set.as_ref()))?;
        match &mut scenario.game {
            Game::Steps(choices) => choices
                .iter_mut()
                .for_each(|choice| choice.id = c.id.clone()),
            Game::Engagement(engagement) => engagement.choice = c.id.clone(),
            Game::Cards(_) => {
                return Err(ctx.invalid(
                    "cards",
                    "a card-game scenario has no [[step]] or [[choice]]; its plays are in \
                     [cards.players.<P>]",
                ))
            }
        }
        arms.push(scenario);
    }
    Ok(arms)
}

/// A choice's `set` as settings, each with the name messages give it
/// (`choice.<id>.set."<key path>" = <value>`).
fn settings(
    ctx: &Context,
    id: &str,
    set: Option<&toml::Table>,
    taken: &[Vec<String>],
) -> Result<Vec<(String, Setting)>> {
    let mut out = Vec::new();
    for (key, value) in set.into_iter().flatten() {
        let name = format!("choice.{id}.set.\"{key}\" = {value}");
        let refuse = |problem: String| ScenarioError::Override {
            file: ctx.file.clone(),
            setting: name.clone(),
            problem,
        };
        let path = split_path(key).map_err(refuse)?;
        if let Some((top, why)) = SHARED.iter().find(|(top, _)| path[0] == *top) {
            return Err(refuse(format!("a choice may not set `{top}` keys: {why}")));
        }
        if let Some(t) = taken.iter().find(|t| overlap(t, &path)) {
            return Err(refuse(format!(
                "`{}` is also set by --set, --seed, --trials or [sweep]; the choice would \
                 silently replace it in this arm. Set it in one place",
                t.join(".")
            )));
        }
        out.push((
            name,
            Setting {
                path,
                value: value.clone(),
            },
        ));
    }
    Ok(out)
}

/// Whether one key path lies within the other (or they are equal): setting both would let one
/// silently replace the other.
pub(super) fn overlap(a: &[String], b: &[String]) -> bool {
    let n = a.len().min(b.len());
    a[..n] == b[..n]
}

/// Names the choice in a validation error of its arm: a key the choice set is named as
/// `choice.<id>.set."<key path>"`; any other key is left as it is, the problem saying which
/// arm it was found in.
fn in_choice(error: ScenarioError, id: &str, set: Option<&toml::Table>) -> ScenarioError {
    let ScenarioError::Invalid {
        file,
        key,
        problem,
        place,
    } = error
    else {
        return error;
    };
    let by_set = set.into_iter().flatten().map(|(k, _)| k).find(|k| {
        key == **k || key.starts_with(&format!("{k}.")) || key.starts_with(&format!("{k}["))
    });
    match by_set {
        Some(k) => ScenarioError::Invalid {
            file,
            key: clip_line(&format!("choice.{id}.set.\"{k}\"{}", &key[k.len()..])),
            problem,
            place: None,
        },
        None => ScenarioError::Invalid {
            file,
            key,
            problem: format!("in choice `{id}`: {problem}"),
            place,
        },
    }
}
