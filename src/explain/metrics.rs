//! What each metric of a trial counts, in words, from the names the engine gives them.

use crate::cards::data::{CARD_METRICS, CARD_METRIC_MEANINGS, PLAYERS};
use crate::engine::MetricName;
use crate::metrics::{
    meaning as said_of, EngagementMetrics, SideMetrics, StepMetrics, UnitMetrics,
};
use crate::scenario::{Command, Game, Scenario, Step};
use std::fmt::Write;

/// The metrics section: every metric one trial writes, once, with what it counts and, when
/// the trial has several choices, which choices report it.
pub(super) fn section(out: &mut String, arms: &[Scenario], all_metrics: &[MetricName]) {
    let metrics: Vec<&MetricName> = all_metrics.iter().filter(|m| m.round.is_none()).collect();
    let mut names: Vec<(&str, Vec<&str>)> = Vec::new();
    for m in &metrics {
        match names.iter_mut().find(|(n, _)| *n == m.name) {
            Some((_, choices)) => choices.push(&m.choice),
            None => names.push((&m.name, vec![&m.choice])),
        }
    }
    let all: Vec<&str> = {
        let mut all: Vec<&str> = Vec::new();
        for m in &metrics {
            if !all.contains(&m.choice.as_str()) {
                all.push(&m.choice);
            }
        }
        all
    };
    let _ = writeln!(
        out,
        "\nMetrics, each a whole number per trial (summary.csv gives its mean, variance and 95% \
         interval; distribution.csv the probability of each value and of at least it){}:",
        match all.len() {
            0 | 1 => String::new(),
            n if n > 6 => format!(", reported for each of the {n} choices"),
            _ => format!(", reported for each choice ({})", all.join(", ")),
        }
    );
    for (name, choices) in &names {
        let s = arms
            .iter()
            .find(|a| a.choice_ids().iter().any(|id| choices.contains(id)))
            .unwrap_or(&arms[0]);
        let meaning =
            meaning(s, choices, name).unwrap_or_else(|| "see docs/outputs.md".to_string());
        let only = if choices.len() < all.len() && all.len() > 1 {
            format!(" (only in {})", choices.join(", "))
        } else {
            String::new()
        };
        let _ = writeln!(out, "  {name}: {meaning}{only}");
    }
    rounds(out, all_metrics);
}

/// The records of rounds.csv, when the trial writes them: what they are and for which rounds.
fn rounds(out: &mut String, metrics: &[MetricName]) {
    let Some(last) = metrics.iter().filter_map(|m| m.round).max() else {
        return;
    };
    let mut records: Vec<&str> = Vec::new();
    for m in metrics.iter().filter(|m| m.round == Some(0)) {
        if !records.contains(&m.name.as_str()) {
            records.push(&m.name);
        }
    }
    let _ = writeln!(
        out,
        "\nBy round (rounds.csv gives each mean and 95% interval): {} as they stand at the end of \
         each round from 0 (before the first activation) to {last}; a side's won is 1 once it has \
         won, engagement.over once the engagement has ended (always at round {last}), and an \
         engagement that ended keeps its last values.",
        records.join(", ")
    );
}

/// What metric `name` of scenario `s` counts, if `s` makes it; `choices` are the choices
/// that report it (their steps are the ones it can be about).
pub(crate) fn meaning(s: &Scenario, choices: &[&str], name: &str) -> Option<String> {
    let derived = s.derived.iter().flat_map(|d| d.metrics());
    if let Some((_, e)) = derived.into_iter().find(|(n, _)| *n == name) {
        return Some(format!(
            "derived ([metrics]): `{e}` in each trial, from its values (a truth counts 1, \
             else 0)"
        ));
    }
    let (step_lists, engagement) = match &s.game {
        Game::Steps(step_lists) => (&step_lists[..], None),
        Game::Engagement(e) => (&[][..], Some(e)),
        Game::Cards(game) => {
            for player in PLAYERS {
                if name == format!("{player}.score") {
                    return Some(format!(
                        "points {player} scored: the sum of the values of {player}'s cards that \
                         resolved, clones included"
                    ));
                }
                for card in game.cards() {
                    for (metric, meaning) in CARD_METRICS.iter().zip(CARD_METRIC_MEANINGS) {
                        if name == format!("{player}.{}.{metric}", card.id) {
                            return Some(said_of(meaning, &format!("{player}'s {}", card.name)));
                        }
                    }
                }
            }
            return None;
        }
    };
    for u in &s.units {
        for (metric, meaning) in UnitMetrics::NAMES.iter().zip(UnitMetrics::MEANINGS) {
            if name == format!("{}.{metric}", u.id) {
                return Some(said_of(meaning, &u.id));
            }
        }
    }
    let steps: Vec<&Step> = step_lists
        .iter()
        .filter(|c| choices.contains(&c.id.as_str()))
        .flat_map(|c| &c.steps)
        .collect();
    for (metric, meaning) in StepMetrics::NAMES.iter().zip(StepMetrics::MEANINGS) {
        let same: Vec<&&Step> = steps
            .iter()
            .filter(|st| name == format!("{}.{metric}", st.id))
            .collect();
        let Some(step) = same.first() else {
            continue;
        };
        let command = if same.iter().all(|st| st.order == step.order) {
            step.order.command().name()
        } else {
            "command"
        };
        let what = format!("{}'s {command}", step.id);
        // Two readings sharper than the row's own: a doubled command resolves up to twice,
        // and a Rally's only way to fizzle is its unit being wiped out first.
        let doubled = s.units[step.unit].call_of_the_masters;
        return Some(match *metric {
            "resolved" if doubled => format!(
                "uses of {what} that resolved (up to 2: Call of the Masters doubles it)"
            ),
            "fizzled" if step.order.command() == Command::Rally => format!(
                "uses of {what} that did nothing because the unit was wiped out first (by Covering Fire)"
            ),
            _ => said_of(meaning, &what),
        });
    }
    let e = engagement?;
    for (metric, meaning) in EngagementMetrics::NAMES
        .iter()
        .zip(EngagementMetrics::MEANINGS)
    {
        if name == format!("engagement.{metric}") {
            return Some(said_of(meaning, "engagement"));
        }
    }
    for side in &e.sides {
        for (metric, meaning) in SideMetrics::NAMES.iter().zip(SideMetrics::MEANINGS) {
            if name == format!("{side}.{metric}") {
                return Some(said_of(meaning, side));
            }
        }
    }
    for (u, commands) in s.units.iter().zip(e.declared_commands()) {
        for c in commands {
            if name == format!("{}.declared.{}", u.id, c.name()) {
                return Some(format!(
                    "activations in which {} declared {}{}",
                    u.id,
                    c.name(),
                    if c == Command::Rally {
                        " (an order's Rally, whether or not any model came back)"
                    } else {
                        ""
                    }
                ));
            }
        }
    }
    None
}
