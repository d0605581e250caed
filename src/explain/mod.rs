//! `rollcall explain`: a loaded scenario told in plain words, so that a reader can check that
//! the file says what they meant before trusting its numbers.
//!
//! [`describe`] writes the whole text from what validation built (never from the TOML, so it
//! shows defaults and overrides as the rules will use them): the run's facts and sweep, the
//! options, the units, what one trial plays (`battle.rs` for steps and engagements, `cards.rs`
//! for card games), what each metric counts (`metrics.rs`), and which engine applies. It
//! decides nothing and computes only geometry the rules' plan already holds.
//!
//! [`warnings`] says which steps, orders and weapons never act: read off a run's results for
//! `rollcall run`, proven from the scenario alone for `explain`.

mod battle;
mod cards;
mod metrics;
pub mod warnings;

use crate::dice::DiceTest;
use crate::engine::MetricName;
use crate::exact::Refusal;
use crate::format::{percent_one_decimal, thousands};
use crate::rules::Plan;
use crate::scenario::{Arms, Game, Options, Scenario, ScenarioSet};
use std::fmt::Write;

/// What `describe` is told besides the scenario: the metrics one trial of the first sweep
/// point writes (as the engine names them) and the exact engine's verdict on the whole file.
pub struct Facts<'a> {
    pub metrics: &'a [MetricName],
    pub exact: Result<(), &'a Refusal>,
}

/// The text `rollcall explain` prints.
pub fn describe(set: &ScenarioSet, facts: &Facts<'_>) -> String {
    let mut out = String::new();
    let first = &set.variants[0];
    let s = first.scenario();
    let what = match &s.game {
        Game::Cards(_) => "plays the card game below",
        Game::Engagement(_) => "plays the engagement below",
        Game::Steps(_) => "plays the steps below in order",
    };
    let _ = writeln!(out, "Scenario `{}` ({})", set.name, set.file);
    let _ = writeln!(
        out,
        "  {} trials{}, seed {}. Each trial starts from the layout below, {what}, and counts \
         the metrics at its end; every trial is independent of the others.",
        thousands(s.trials),
        if set.variants.len() > 1 {
            " per sweep point"
        } else {
            ""
        },
        thousands(s.seed)
    );
    sweep(&mut out, set);
    out.push('\n');
    options(&mut out, s, "");
    match &s.game {
        Game::Steps(_) | Game::Engagement(_) => {
            let plan = Plan::compile(s);
            battle::layout(&mut out, s, &plan);
            battle::trial(&mut out, s);
            if let Arms::Designs(designs) = &first.arms {
                battle::designs(&mut out, designs);
            }
            battle::commands(&mut out, first.arms());
        }
        Game::Cards(game) => cards::game(&mut out, game),
    }
    metrics::section(&mut out, first.arms(), facts.metrics);
    engines(&mut out, set, facts.exact);
    out
}

fn sweep(out: &mut String, set: &ScenarioSet) {
    if set.param_names.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nSweep: {} points, every combination of the values below (first key outermost), each \
         played on its own with the same seed; each key becomes a column of every table.",
        set.variants.len()
    );
    for (k, name) in set.param_names.iter().enumerate() {
        let mut values: Vec<&str> = Vec::new();
        for v in &set.variants {
            if !values.contains(&v.params[k].as_str()) {
                values.push(&v.params[k]);
            }
        }
        let _ = writeln!(out, "  {name}: {}", values.join(", "));
    }
    let first: Vec<String> = set
        .param_names
        .iter()
        .zip(&set.variants[0].params)
        .map(|(k, v)| format!("{k} = {v}"))
        .collect();
    let _ = writeln!(
        out,
        "  What follows describes the first point ({}).",
        first.join(", ")
    );
}

fn options(out: &mut String, s: &Scenario, indent: &str) {
    let d = Options::default();
    let o = &s.options;
    let mark = |same: bool| if same { "default" } else { "set" };
    let _ = writeln!(out, "{indent}Options in force:");
    if let Game::Cards(_) = s.game {
        let _ = writeln!(
            out,
            "{indent}  listeners.persist = {} ({}): {}",
            o.listeners_persist,
            mark(o.listeners_persist == d.listeners_persist),
            if o.listeners_persist {
                "unused cancel listeners and clone effects last into later turns"
            } else {
                "unused cancel listeners and clone effects expire at the end of the turn"
            }
        );
        return;
    }
    let lines = [
        (
            format!("rally.chain = {}", o.rally_chain),
            o.rally_chain == d.rally_chain,
            if o.rally_chain {
                "models a Rally restores also anchor its later placements (within 2\" of them)"
                    .to_string()
            } else {
                "a Rally places restored models within 2\" of models alive when it began; \
                 restored models do not anchor further placements"
                    .to_string()
            },
        ),
        (
            format!("spill = {}", o.spill),
            o.spill == d.spill,
            if o.spill {
                "damage beyond a model's HP goes on to the next model".to_string()
            } else {
                "damage beyond a model's HP is lost".to_string()
            },
        ),
        (
            format!("defend.bonus = {}", o.defend_bonus),
            o.defend_bonus == d.defend_bonus,
            format!(
                "a Defending target adds {} to its defense tests until the command has resolved",
                o.defend_bonus
            ),
        ),
        (
            format!(
                "covering_fire.hit_modifier = {}",
                o.covering_fire_hit_modifier
            ),
            o.covering_fire_hit_modifier == d.covering_fire_hit_modifier,
            format!(
                "Covering Fire shoots with {:+} to its hit tests",
                o.covering_fire_hit_modifier
            ),
        ),
        (
            format!("masters.retarget = {}", o.masters_retarget),
            o.masters_retarget == d.masters_retarget,
            if o.masters_retarget {
                "Call of the Masters' second Shoot picks the nearest enemy unit it can shoot \
                 when its target is gone"
                    .to_string()
            } else {
                "Call of the Masters' second Shoot fizzles when its target is destroyed or out \
                 of range"
                    .to_string()
            },
        ),
    ];
    for (setting, default, meaning) in lines {
        let _ = writeln!(out, "{indent}  {setting} ({}): {meaning}", mark(default));
    }
}

fn engines(out: &mut String, set: &ScenarioSet, exact: Result<(), &Refusal>) {
    let s = set.variants[0].scenario();
    let points = set.variants.len();
    let _ = writeln!(out, "\nEngines:");
    if matches!(exact, Err(crate::exact::Refusal::Advice(_))) {
        let _ = writeln!(
            out,
            "  Monte Carlo (`rollcall run`) plays `best` orders as `rollcall advise` works them \
             out, which needs the exact engine: it refuses this scenario (the reason below). \
             `rollcall advise` scores each unit's first decision by rollouts instead; fixed \
             orders instead of `best` would let it simulate the engagement."
        );
    } else {
        let _ = writeln!(
            out,
            "  Monte Carlo (`rollcall run`) applies to every scenario: it plays {} trials{}, in \
             chunks whose random numbers depend only on the seed and the chunk, so the tables \
             are the same for any thread count.",
            thousands(s.trials),
            if points > 1 {
                format!(" at each of the {points} sweep points")
            } else {
                String::new()
            }
        );
    }
    match exact {
        Ok(()) => {
            let _ = writeln!(
                out,
                "  Exact (`rollcall exact`): takes this scenario. It computes every metric's \
                 distribution by dynamic programming over the units' states, and `rollcall run \
                 --validate` checks the simulation against it."
            );
        }
        Err(refusal) => {
            let _ = writeln!(
                out,
                "  Exact (`rollcall exact`): refuses this scenario, so `rollcall run --validate` \
                 cannot check it either. The reason: {refusal}."
            );
        }
    }
}

/// A dice test with its chance of success, e.g. `d6>=4 (1/2, 50.0%)`.
pub(crate) fn test_text(test: &DiceTest) -> String {
    let p = test.probability();
    let fraction = p.to_string();
    let percent = percent_one_decimal(p.to_f64());
    if fraction.len() <= 15 && fraction.contains('/') {
        format!("{test} ({fraction}, {percent})")
    } else {
        format!("{test} ({percent})")
    }
}

/// The unit a description is about, by index, for its id.
pub(crate) fn unit_id(s: &Scenario, unit: usize) -> &str {
    &s.units[unit].id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dice_tests_read_with_their_chance() {
        let t = DiceTest::parse("4+").unwrap();
        assert_eq!(test_text(&t), "d6>=4 (1/2, 50.0%)");
    }
}
