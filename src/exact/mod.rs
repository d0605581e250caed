//! Exact distributions by dynamic programming, the independent truth the Monte Carlo engine
//! is checked against (`rollcall exact`, `rollcall run --validate`).
//!
//! For each choice of each sweep point, [`choice`] walks the steps over a distribution of
//! `State`s (per unit: models alive, restored, lost, damage taken, the damaged
//! model's wound, restrictions, token, layout), merging equal states, and gathers each step's metrics
//! as it goes; at the end every metric's pmf is a marginal of the final distribution. Dice
//! enter only as binomial pmfs of the exact per-test probabilities from
//! [`crate::dice::DiceTest::probability`] and as the pmfs of rolled attacks and damage from
//! [`crate::dice::Amount::probabilities`]; the rules are restated over counts in
//! `commands`, not borrowed from the sampler. From the rules it takes only deterministic
//! geometry: which model a wound goes to and where Rally places models, given every unit's
//! layout (`geometry`).
//!
//! An engagement scenario is played by [`engaged`] instead: the same states and the same
//! commands, driven by `engagement`, which also carries the round, whose turn it is and the
//! declarations counted so far, and picks each activated unit's order as the rules do.
//!
//! An engagement with `best` orders plays them as the advice says: [`advice`] works it out
//! by backward induction over the same states (`advise`), and `engagement` follows it.
//!
//! It refuses, naming the step (or the unit and order) and why, whatever it cannot follow
//! exactly: Run, card games, and state spaces over the limit of [`limit`] (saying how many states
//! it found and the memory they take).

mod advise;
mod binomial;
mod commands;
pub mod cost;
mod engagement;
mod interner;
mod layouts;
pub mod limit;
mod state;
pub mod validate;

use crate::condition::derived::Derived;
use crate::metrics::{StepMetrics, UnitMetrics};
use crate::output::{ExactMetric, ExactReport, ExactVariant};
use crate::rules::engagement::Schedule;
use crate::rules::Plan;
use crate::scenario::{Choice, Engagement, Game, Scenario, ScenarioSet};
use commands::Ctx;
use state::{add, Dist, State, UnitState};
use std::collections::BTreeMap;

pub use advise::{Advice, Decision, OptionValue};
pub use binomial::pmf as binomial_pmf;

/// Why a scenario has no exact distribution. What the user can do instead depends on the
/// command that asked (`exact`, `advise`, `run` with `best` orders, `run --validate`), so the
/// caller says it.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("the exact engine does not play card games (their shuffles and orderings are not dice tests)")]
    Cards,
    #[error("{at}{order}: {reason}")]
    Order {
        /// As for `Step`.
        at: String,
        /// "unit `<id>`, order #N (`<command>` when `<condition>`)", N 1-based as
        /// `--set unit.<id>.orders.#N` counts.
        order: String,
        reason: String,
    },
    #[error("{at}engagement: {reason}")]
    Engagement { at: String, reason: String },
    #[error("{at}step `{step}` ({command}): {reason}")]
    Step {
        /// "choice `x`, " and/or "sweep point k=v, ", or empty.
        at: String,
        step: String,
        command: &'static str,
        reason: String,
    },
    /// Met while working out the advice for `best` orders: without it they cannot be played
    /// at all, where another refusal leaves the scenario to simulation.
    #[error(transparent)]
    Advice(Box<Refusal>),
    /// A derived metric (`[metrics]`) the exact engine cannot compute: its value leaves the
    /// range a derived metric may take on some outcome.
    #[error("{at}key `metrics.{name}` (`{text}`): {reason}")]
    Derived {
        at: String,
        name: String,
        text: String,
        reason: String,
    },
    /// Over a cost model's budget ([`cost`]), said before anything was allocated for it.
    #[error("{at}{reason}")]
    Cost { at: String, reason: String },
    /// Ctrl-C, seen between the states the programme expands.
    #[error("interrupted")]
    Interrupted,
}

/// One metric's exact pmf, named as in the Monte Carlo tables.
pub type Metric = (String, Vec<(i64, f64)>);

/// The exact distributions of every metric of step list `choice` of a compiled scenario, in
/// the order `run` writes them (units' metrics, then steps'). `at` prefixes refusals.
pub fn choice(plan: &Plan, choice: &Choice, at: &str) -> Result<Vec<Metric>, Refusal> {
    let scenario = plan.scenario();
    let at = match choice.id.as_str() {
        "" => at.to_string(),
        id => format!("{at}choice `{id}`, "),
    };
    cost::check(plan).map_err(|reason| Refusal::Cost {
        at: at.clone(),
        reason,
    })?;
    let mut ctx = Ctx::new(plan);
    let limit = ctx.max_states;
    let start: State = scenario
        .units
        .iter()
        .map(|u| UnitState::starting(u.alive()))
        .collect();
    // Beside each state, the values of the step metrics derived metrics read (usually none),
    // so that they are computed from the joint law.
    let arm = choice_index(plan, choice);
    let kept = kept_step_metrics(plan, arm);
    let mut dist: Dist<(State, Vec<i64>)> = Dist::new();
    add(&mut dist, (start, vec![0; kept.len()]), 1.0);
    let mut round = choice.steps.first().map_or(1, |s| s.round);
    let mut step_pmfs = Vec::new();
    for (index, step) in choice.steps.iter().enumerate() {
        let refuse = |reason: String| Refusal::Step {
            at: at.clone(),
            step: step.id.clone(),
            command: step.order.command().name(),
            reason,
        };
        if step.round != round {
            dist = new_round(dist);
            round = step.round;
        }
        let mut next: Dist<(State, Vec<i64>)> = Dist::new();
        let mut metrics: [BTreeMap<i64, f64>; StepMetrics::LEN] = Default::default();
        for ((s, values), p) in &dist {
            if crate::engine::interrupted() {
                return Err(Refusal::Interrupted);
            }
            ctx.step(s, step, &mut |q, s, m| {
                let pq = p * q;
                let mut values = values.clone();
                for (v, &(k, i)) in values.iter_mut().zip(&kept) {
                    if k == index {
                        *v = m.values()[i];
                    }
                }
                add(&mut next, (s, values), pq);
                for (pmf, v) in metrics.iter_mut().zip(m.values()) {
                    add(pmf, v, pq);
                }
            })
            .map_err(refuse)?;
        }
        if next.len() > limit {
            return Err(refuse(format!(
                "after it, {}; {}",
                limit::over("the dynamic programme", next.len(), scenario.units.len()),
                state::breakdown(next.keys().map(|(s, _)| s))
            )));
        }
        dist = next;
        step_pmfs.push(metrics);
    }
    let mut out = Vec::new();
    let derived = derived_of_steps(plan, arm, &kept, &dist, &at)?;
    for (i, u) in scenario.units.iter().enumerate() {
        let mut pmfs: [BTreeMap<i64, f64>; UnitMetrics::LEN] = Default::default();
        for ((s, _), &p) in &dist {
            let row = unit_metrics(&s[i]);
            for (pmf, v) in pmfs.iter_mut().zip(row.values()) {
                add(pmf, v, p);
            }
        }
        for (name, pmf) in UnitMetrics::NAMES.iter().zip(pmfs) {
            out.push((format!("{}.{name}", u.id), normalised(pmf)));
        }
    }
    for (step, pmfs) in choice.steps.iter().zip(step_pmfs) {
        for (name, pmf) in StepMetrics::NAMES.iter().zip(pmfs) {
            out.push((format!("{}.{name}", step.id), normalised(pmf)));
        }
    }
    out.extend(derived);
    Ok(out)
}

/// `dist` at the start of a new round: tokens and restrictions last until the end of the
/// round.
fn new_round<K: Ord>(dist: Dist<(State, K)>) -> Dist<(State, K)> {
    let mut cleared = Dist::new();
    for ((mut s, kept), p) in dist {
        for u in &mut s {
            u.restrictions = 0;
            u.token = false;
        }
        add(&mut cleared, (s, kept), p);
    }
    cleared
}

/// The index of `choice` among the plan's step lists.
fn choice_index(plan: &Plan, choice: &Choice) -> usize {
    match &plan.scenario().game {
        Game::Steps(choices) => choices.iter().position(|c| c.id == choice.id).unwrap_or(0),
        Game::Engagement(_) | Game::Cards(_) => 0,
    }
}

/// The step metrics arm `arm`'s derived metrics read, directly or through each other: (step
/// index, index in [`StepMetrics`]), in row order.
fn kept_step_metrics(plan: &Plan, arm: usize) -> Vec<(usize, usize)> {
    let Some(derived) = plan.scenario().derived(arm) else {
        return Vec::new();
    };
    let units = plan.scenario().units.len() * UnitMetrics::LEN;
    let read: std::collections::BTreeSet<usize> = (0..derived.metrics().count())
        .flat_map(|j| derived.builtin_inputs(j))
        .filter(|&i| i >= units)
        .collect();
    read.into_iter()
        .map(|i| {
            (
                (i - units) / StepMetrics::LEN,
                (i - units) % StepMetrics::LEN,
            )
        })
        .collect()
}

/// The exact pmfs of arm `arm`'s derived metrics, from the joint law of the units' final
/// metrics and the `kept` step metrics in `dist`.
fn derived_of_steps(
    plan: &Plan,
    arm: usize,
    kept: &[(usize, usize)],
    dist: &Dist<(State, Vec<i64>)>,
    at: &str,
) -> Result<Vec<Metric>, Refusal> {
    let Some(derived) = plan.scenario().derived(arm) else {
        return Ok(Vec::new());
    };
    let units = plan.scenario().units.len() * UnitMetrics::LEN;
    let outcomes = dist.iter().map(|((s, values), &p)| {
        let mut row = vec![0; derived.builtins()];
        for (u, slot) in s.iter().zip(row.chunks_exact_mut(UnitMetrics::LEN)) {
            unit_metrics(u).write(slot);
        }
        for (&v, &(k, i)) in values.iter().zip(kept) {
            row[units + k * StepMetrics::LEN + i] = v;
        }
        (row, p)
    });
    derived_pmfs(derived, outcomes, at)
}

/// The exact pmfs of `derived`'s metrics over `outcomes`: each a row of the built-in metrics
/// with its probability (the joint law), the derived values computed on every row.
fn derived_pmfs(
    derived: &Derived,
    outcomes: impl Iterator<Item = (Vec<i64>, f64)>,
    at: &str,
) -> Result<Vec<Metric>, Refusal> {
    let count = derived.metrics().count();
    let mut pmfs: Vec<BTreeMap<i64, f64>> = vec![BTreeMap::new(); count];
    for (mut row, p) in outcomes {
        row.resize(derived.builtins() + count, 0);
        if let Err(j) = derived.evaluate(&mut row) {
            let (name, text) = derived
                .metrics()
                .nth(j)
                .map_or((String::new(), String::new()), |(n, e)| {
                    (n.to_string(), e.text().to_string())
                });
            return Err(Refusal::Derived {
                at: at.to_string(),
                name,
                text,
                reason: format!(
                    "on some outcome its value leaves the range a derived metric may take \
                     (-{max} to {max}), or its arithmetic passes {}",
                    i64::MAX,
                    max = crate::condition::derived::VALUE_MAX
                ),
            });
        }
        for (pmf, &v) in pmfs.iter_mut().zip(&row[derived.builtins()..]) {
            add(pmf, v, p);
        }
    }
    Ok(derived
        .metrics()
        .zip(pmfs)
        .map(|((name, _), pmf)| (name.to_string(), normalised(pmf)))
        .collect())
}

/// The exact distributions of every metric of an engagement scenario, in the order `run`
/// writes them ([`crate::scenario::Engagement::metric_names`]). `at` prefixes refusals.
/// Also returns every round's records (`rounds.csv`): per round, [`Engagement::round_names`]
/// with their pmfs.
pub fn engaged(
    plan: &Plan,
    e: &Engagement,
    at: &str,
) -> Result<(Vec<Metric>, Vec<Vec<Metric>>), Refusal> {
    let scenario = plan.scenario();
    cost::check(plan).map_err(|reason| Refusal::Cost {
        at: at.to_string(),
        reason,
    })?;
    // `best` orders play the plan's advice, worked out here when the caller has none.
    let worked_out;
    let policy = match plan.policy() {
        Some(p) => Some(p),
        None if e.has_best() => {
            worked_out = advice(plan, e, at)?.policy;
            Some(&worked_out)
        }
        None => None,
    };
    let mut ctx = Ctx::new(plan);
    let (ended, rounds) = engagement::play(&mut ctx, e, policy).map_err(|why| {
        if crate::engine::interrupted() {
            return Refusal::Interrupted;
        }
        refusal(plan, e, at, why, "")
    })?;
    let round_names = e.round_names(&scenario.units);
    let rounds = rounds
        .into_iter()
        .map(|records| {
            let pmfs = records.into_iter().map(normalised);
            round_names.iter().cloned().zip(pmfs).collect()
        })
        .collect();
    // Per unit, the commands some order names: they have a `declared` metric.
    let named = e.declared_commands();
    let names = e.metric_names(&scenario.units);
    let mut pmfs: Vec<BTreeMap<i64, f64>> = vec![BTreeMap::new(); names.len()];
    let schedule = Schedule::new(e);
    let mut values = Vec::with_capacity(names.len());
    let mut rows = Vec::new();
    for ((s, declared, rounds), &p) in &ended {
        engagement::end_values(&schedule, s, *rounds, &mut values);
        for (counts, commands) in declared.iter().zip(&named) {
            values.extend(commands.iter().map(|c| i64::from(counts[c.index()])));
        }
        debug_assert_eq!(values.len(), names.len());
        for (pmf, &v) in pmfs.iter_mut().zip(&values) {
            add(pmf, v, p);
        }
        // Every ended state is one joint outcome of all the metrics.
        if scenario.derived(0).is_some() {
            rows.push((values.clone(), p));
        }
    }
    let mut out: Vec<Metric> = names
        .into_iter()
        .zip(pmfs.into_iter().map(normalised))
        .collect();
    if let Some(derived) = scenario.derived(0) {
        out.extend(derived_pmfs(derived, rows.into_iter(), at)?);
    }
    Ok((out, rounds))
}

/// The refusal for `why`, with `more` after the reason.
fn refusal(plan: &Plan, e: &Engagement, at: &str, why: engagement::Why, more: &str) -> Refusal {
    let reason = format!("{}{more}", why.reason);
    match why.order {
        Some((unit, i)) => {
            let given = &e.orders[unit][i];
            let when = given
                .when
                .as_ref()
                .map_or(String::new(), |c| format!(" when `{}`", c.text()));
            Refusal::Order {
                at: at.to_string(),
                order: format!(
                    "unit `{}`, order #{} ({}{when})",
                    plan.scenario().units[unit].id,
                    i + 1,
                    given.order.name()
                ),
                reason,
            }
        }
        None => Refusal::Engagement {
            at: at.to_string(),
            reason,
        },
    }
}

/// The advice for an engagement's `best` orders (backward induction over its exact states):
/// the policy, every decision with its options' values, and the states visited. `at`
/// prefixes refusals, which also say how many states had been visited.
pub fn advice(plan: &Plan, e: &Engagement, at: &str) -> Result<Advice, Refusal> {
    cost::check(plan).map_err(|reason| {
        Refusal::Advice(Box::new(Refusal::Cost {
            at: at.to_string(),
            reason,
        }))
    })?;
    let mut ctx = Ctx::new(plan);
    advise::advise(&mut ctx, e).map_err(|failed| {
        if crate::engine::interrupted() {
            return Refusal::Interrupted;
        }
        let more = format!(
            " (`best` is decided only where the exact engine follows every option; the \
             backward induction had reached {} states)",
            crate::format::thousands(failed.states as u64)
        );
        Refusal::Advice(Box::new(refusal(plan, e, at, failed.why, &more)))
    })
}

/// The state a scenario's file describes, as advice.csv writes states: every unit at its
/// start.
pub fn start_text(plan: &Plan) -> String {
    let ctx = Ctx::new(plan);
    let start: State = plan
        .scenario()
        .units
        .iter()
        .map(|u| UnitState::starting(u.alive()))
        .collect();
    advise::state_text(&ctx, &start)
}

/// A unit's metrics in a final state.
fn unit_metrics(x: &UnitState) -> UnitMetrics {
    UnitMetrics {
        alive: i64::from(x.alive),
        restored: i64::from(x.restored),
        lost: i64::from(x.lost),
        damage_taken: i64::from(x.damage_taken),
        destroyed: i64::from(x.alive == 0),
    }
}

/// The pmf as pairs, divided by its total: rounding over many merged branches leaves the
/// total within 1e-12 of 1, and dividing makes a single-valued metric exactly certain.
fn normalised(pmf: BTreeMap<i64, f64>) -> Vec<(i64, f64)> {
    let total: f64 = pmf.values().sum();
    pmf.into_iter().map(|(v, p)| (v, p / total)).collect()
}

/// Every choice of one compiled sweep point.
pub fn variant(plan: &Plan, params: &[String], at: &str) -> Result<ExactVariant, Refusal> {
    let scenario: &Scenario = plan.scenario();
    let arms = match &scenario.game {
        Game::Cards(_) => return Err(Refusal::Cards),
        Game::Engagement(e) => {
            let (metrics, rounds) = engaged(plan, e, at)?;
            vec![(&e.choice, metrics, rounds)]
        }
        Game::Steps(choices) => choices
            .iter()
            .map(|c| Ok((&c.id, choice(plan, c, at)?, Vec::new())))
            .collect::<Result<_, Refusal>>()?,
    };
    let mut metrics = Vec::new();
    for (id, pmfs, rounds) in arms {
        let records = rounds
            .into_iter()
            .enumerate()
            .flat_map(|(r, records)| records.into_iter().map(move |m| (Some(r as u32), m)));
        for (round, (metric, pmf)) in pmfs.into_iter().map(|m| (None, m)).chain(records) {
            metrics.push(ExactMetric {
                choice: id.clone(),
                metric,
                pmf,
                round,
            });
        }
    }
    Ok(ExactVariant {
        params: params.to_vec(),
        metrics,
    })
}

/// "sweep point k=v, k2=v2, " for refusals (empty without a sweep).
pub fn sweep_point(set: &ScenarioSet, params: &[String]) -> String {
    if params.is_empty() {
        return String::new();
    }
    let pairs: Vec<String> = set
        .param_names
        .iter()
        .zip(params)
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!("sweep point {}, ", pairs.join(" "))
}

/// The exact report of a loaded scenario file; `plans[i]` holds sweep point i's arms compiled
/// (its one plan, or one per design choice) when the caller has them, or `None` to compile
/// here. A point with design arms is computed arm by arm, each arm's scenario on its own, so
/// a refusal names the arm's choice.
pub fn report(set: &ScenarioSet, plans: &[Option<&[Plan]>]) -> Result<ExactReport, Refusal> {
    let mut variants = Vec::with_capacity(set.variants.len());
    for (i, v) in set.variants.iter().enumerate() {
        if let Game::Cards(_) = v.scenario().game {
            return Err(Refusal::Cards);
        }
        let owned;
        let arms = match plans.get(i).copied().flatten() {
            Some(arms) => arms,
            None => {
                owned = v.arms().iter().map(Plan::compile).collect::<Vec<_>>();
                &owned[..]
            }
        };
        let at = sweep_point(set, &v.params);
        let mut metrics = Vec::new();
        for plan in arms {
            metrics.extend(variant(plan, &v.params, &at)?.metrics);
        }
        variants.push(ExactVariant {
            params: v.params.clone(),
            metrics,
        });
    }
    Ok(ExactReport {
        scenario: set.name.clone(),
        param_names: set.param_names.clone(),
        variants,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;

    fn horde(chain: bool, size: u32, spacing: f64) -> String {
        format!(
            r#"
[scenario]
name = "horde"
[options]
rally.chain = {chain}
[[unit]]
id = "horde"
side = "blue"
size = {size}
alive = 4
resolve = "d6>=4"
rules = ["call_of_the_masters"]
formation = {{ kind = "grid", x = 20.0, y = 20.0, spacing = {spacing}, columns = 2 }}
[[step]]
unit = "horde"
command = "rally"
"#
        )
    }

    #[test]
    fn when_the_first_use_finds_room_for_all_the_second_does_too() {
        // The shortcut `rally` takes instead of searching the second use's spots per count.
        for chain in [false, true] {
            for (size, spacing) in [(12, 1.5), (30, 1.0), (60, 3.0)] {
                let set = scenario::parse(&horde(chain, size, spacing), "h.toml", &[]).unwrap();
                let plan = Plan::compile(set.variants[0].scenario());
                let missing = (size - 4) as usize;
                let first = plan.rally_spots(0).to_vec();
                if first.len() < missing {
                    continue;
                }
                for k1 in 0..=missing {
                    let second = plan.second_rally_spots(0, k1);
                    assert!(
                        second.len() >= missing - k1,
                        "chain {chain} size {size} k1 {k1}"
                    );
                    // It retraces the first use's search: the same spots, in order.
                    assert_eq!(&second[..missing - k1], &first[k1..]);
                }
            }
        }
    }

    #[test]
    fn open_field_doubled_rally_is_binomial_of_two_chances() {
        let set = scenario::parse(&horde(false, 60, 3.0), "h.toml", &[]).unwrap();
        let r = report(&set, &[]).unwrap();
        let restored = &r.variants[0].metrics[1];
        assert_eq!(restored.metric, "horde.restored");
        let want = binomial_pmf(56, crate::dice::Fraction::new(3, 4));
        for &(v, p) in &restored.pmf {
            assert!((p - want[v as usize]).abs() < 1e-12);
        }
    }
}
