//! `[balance]`: the key a balance search varies, its candidate values in order, the metric
//! whose mean is sought and the target. Its candidates become the points of a one-key grid,
//! each validated as a `[sweep]` point is (a failing candidate is named), so `rollcall run`
//! plays every candidate and `rollcall balance` picks which to play.

use super::error::{Context, ScenarioError};
use super::overrides::{self, split_path, Setting, SweepGrid};
use crate::config::suggest::{clip, quoted};

/// A validated `[balance]` section.
#[derive(Debug, Clone, PartialEq)]
pub struct Balance {
    /// The key path as written (`unit.crossbows.size`).
    pub vary: String,
    /// The metric as written; checked against the metrics the scenario reports where its
    /// tables are laid out.
    pub metric: String,
    pub target: f64,
    /// Each candidate as its table cell shows it, in `over` order.
    pub values: Vec<String>,
    /// Each candidate as a number, when every candidate is one (then the crossing is
    /// interpolated).
    pub numbers: Option<Vec<f64>>,
}

/// Reads `[balance]` from the file as overridden, with the grid of its candidates; `None`
/// when the file has none.
pub(super) fn read(
    ctx: &Context,
    root: &toml::Table,
) -> Result<Option<(Balance, SweepGrid)>, ScenarioError> {
    let Some(section) = root.get("balance") else {
        return Ok(None);
    };
    let key = |k: &str| format!("balance.{k}");
    let text = |k: &str| -> Result<String, ScenarioError> {
        match section.get(k) {
            Some(toml::Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            Some(other) => Err(ctx.invalid(
                key(k),
                format!("{} must be a non-empty text", clip(&other.to_string())),
            )),
            None => Err(ctx.invalid(
                key(k),
                "is missing; [balance] needs `vary`, `over` and `metric`",
            )),
        }
    };
    let vary = text("vary")?;
    let metric = text("metric")?;
    let path = split_path(&vary).map_err(|p| ctx.invalid(key("vary"), p))?;
    let over = over(ctx, section)?;
    let target = target(ctx, section)?;
    refuse_sweep_of(ctx, root, &vary, &path)?;
    let points: Vec<Vec<Setting>> = over
        .iter()
        .map(|v| {
            vec![Setting {
                path: path.clone(),
                value: v.clone(),
            }]
        })
        .collect();
    // The key must exist: applied once here, so that a misspelt key is named as `vary`'s.
    overrides::apply(&mut root.clone(), &points[0][0])
        .map_err(|p| ctx.invalid(key("vary"), format!("{}: {p}", quoted(&vary))))?;
    let values: Vec<String> = points.iter().map(|p| p[0].value_text()).collect();
    let numbers = over
        .iter()
        .map(|v| match v {
            toml::Value::Integer(i) => Some(*i as f64),
            toml::Value::Float(f) => Some(*f),
            _ => None,
        })
        .collect();
    let balance = Balance {
        vary: vary.clone(),
        metric,
        target,
        values,
        numbers,
    };
    let grid = SweepGrid {
        names: vec![vary],
        points,
    };
    Ok(Some((balance, grid)))
}

/// `over`: a non-empty list of candidates.
fn over(ctx: &Context, section: &toml::Value) -> Result<Vec<toml::Value>, ScenarioError> {
    match section.get("over") {
        Some(toml::Value::Array(values)) if !values.is_empty() => Ok(values.clone()),
        Some(other) => Err(ctx.invalid(
            "balance.over",
            format!(
                "{} must be a non-empty list of candidate values, in the order the metric's mean is expected to move",
                clip(&other.to_string())
            ),
        )),
        None => Err(ctx.invalid(
            "balance.over",
            "is missing; list the candidate values to search, such as over = [2, 3, 4, 5]",
        )),
    }
}

/// `target`: a finite number, 0 when not given.
fn target(ctx: &Context, section: &toml::Value) -> Result<f64, ScenarioError> {
    match section.get("target") {
        None => Ok(0.0),
        Some(toml::Value::Integer(i)) => Ok(*i as f64),
        Some(toml::Value::Float(f)) if f.is_finite() => Ok(*f),
        Some(other) => Err(ctx.invalid(
            "balance.target",
            format!(
                "{} must be a number (the mean sought)",
                clip(&other.to_string())
            ),
        )),
    }
}

/// A `[sweep]` beside `[balance]`: on the same key its values would fight the candidates'; on
/// another the search would have one answer per sweep point, which `balance.csv` has no place
/// for.
fn refuse_sweep_of(
    ctx: &Context,
    root: &toml::Table,
    vary: &str,
    path: &[String],
) -> Result<(), ScenarioError> {
    let Some(toml::Value::Table(sweep)) = root.get("sweep") else {
        return match root.get("sweep") {
            None => Ok(()),
            Some(_) => Err(ctx.invalid("sweep", "cannot be given with [balance]")),
        };
    };
    let same = sweep
        .keys()
        .find(|k| split_path(k).is_ok_and(|p| super::designs::overlap(&p, path)));
    let Some(swept) = same.or_else(|| sweep.keys().next()) else {
        return Ok(());
    };
    let problem = if same.is_some() {
        format!(
            "[sweep] also sets {}, the key [balance] varies: the search chooses its values from `over`; remove the key from [sweep]",
            quoted(vary)
        )
    } else {
        format!(
            "[sweep] sets {} beside [balance]: a balance search varies one key; run one search per value of {} (a file each, or --set)",
            quoted(swept),
            quoted(swept)
        )
    };
    Err(ctx.invalid(format!("sweep.\"{swept}\""), problem))
}
