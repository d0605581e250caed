//! `[metrics]`: each entry parsed over the metrics of every arm of the scenario (a step list's
//! or an engagement's), refused with its key `metrics.<name>` when it cannot be.

use super::error::Context;
use super::{Game, Scenario, ScenarioError};
use crate::condition::derived::{Derived, DerivedError};
use crate::config::suggest::clip;

/// The derived metrics of each arm of `scenario` (none without `[metrics]`).
pub(super) fn derived(
    ctx: &Context,
    raw: Option<&toml::Table>,
    scenario: &Scenario,
) -> Result<Vec<Derived>, ScenarioError> {
    let Some(raw) = raw.filter(|t| !t.is_empty()) else {
        return Ok(Vec::new());
    };
    let mut entries = Vec::with_capacity(raw.len());
    for (name, value) in raw {
        let key = format!("metrics.{}", clip(name));
        let Some(text) = value.as_str() else {
            return Err(ctx.invalid(
                key,
                format!(
                    "expected the expression as text, such as \"blue.alive - red.alive\", \
                     found {}",
                    crate::config::shown(value)
                ),
            ));
        };
        entries.push((name.clone(), text.to_string()));
    }
    let fail = |arm: String, e: DerivedError| {
        ctx.invalid(
            format!("metrics.{}", clip(&e.name)),
            format!("{arm}{}", e.message),
        )
    };
    if let Game::Cards(game) = &scenario.game {
        // Every arm (pair of orderings) writes the same block of metrics.
        let builtins = crate::cards::plan::metric_names(game);
        return Ok(vec![
            Derived::parse(&entries, &builtins).map_err(|e| fail(String::new(), e))?
        ]);
    }
    let ids = scenario.choice_ids();
    let several = ids.len() > 1;
    scenario
        .builtin_metrics()
        .iter()
        .zip(ids)
        .map(|(builtins, id)| {
            Derived::parse(&entries, builtins).map_err(|e| {
                let arm = if several {
                    format!("in choice `{id}`: ")
                } else {
                    String::new()
                };
                fail(arm, e)
            })
        })
        .collect()
}
