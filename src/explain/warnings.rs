//! What never happens: the steps, orders and weapons of a scenario that act in no trial, with
//! the reason where the scenario itself tells it.
//!
//! A run reads it off its results ([`after_run`]): a step whose `resolved` is 0 in every
//! trial, an order whose unit's `declared.<command>` is. `explain` has no results and says
//! only what the scenario alone proves ([`before_run`]). The reasons are facts of the file,
//! each conservative (said only when it holds in every trial):
//!
//! - a unit with no model on the table takes no command;
//! - a unit takes one command a round, so a later step of it in the same round is refused
//!   its token;
//! - a weapon never reaches a target whose closest models start beyond its range when
//!   neither unit can come nearer: only Run moves models, and only Rally puts models back
//!   (nearer, possibly); losing models never shortens the closest distance;
//! - an order's condition that holds in no state its unit can be in (every round, every count
//!   of models, every damage, and every answer to its questions about the table).

use crate::condition::{Condition, Situation};
use crate::format::inches;
use crate::geometry::{closest, EPS};
use crate::output::VariantReport;
use crate::rules::world::Restrictions;
use crate::scenario::{
    Command, Engagement, Game, GivenOrder, Order, Response, Scenario, ScenarioSet, Step, Target,
};
use crate::stats::Histogram;
use std::collections::HashMap;

/// A warning as `run` and `explain` print it on stderr (run.json holds `warning` alone).
pub fn line(scenario: &str, warning: &str) -> String {
    format!("warning: {scenario}: {warning}")
}

/// What the scenario alone proves never acts, for `explain`.
pub fn before_run(set: &ScenarioSet) -> Vec<String> {
    gather(set, None)
}

/// What acted in no trial of a run (`points`: the report of each sweep point, in the order of
/// `set.variants`), with the reason where the scenario tells it.
pub fn after_run(set: &ScenarioSet, points: &[VariantReport]) -> Vec<String> {
    gather(set, Some(points))
}

/// Every sweep point's warnings; one that holds at several points is said once, naming the
/// points unless it holds at all of them.
fn gather(set: &ScenarioSet, points: Option<&[VariantReport]>) -> Vec<String> {
    let params: Vec<Vec<String>> = set.variants.iter().map(|v| v.params.clone()).collect();
    name_points(gather_at(set, points), &set.param_names, &params)
}

/// What never acted in a run, with the sweep points (indices) where: what a shard's part
/// keeps, so that `merge` can say what acted in no shard ([`name_points`] words it).
pub fn after_run_at(set: &ScenarioSet, points: &[VariantReport]) -> Vec<(String, Vec<usize>)> {
    gather_at(set, Some(points))
}

/// Every sweep point's warnings, each with the points where it holds.
fn gather_at(set: &ScenarioSet, points: Option<&[VariantReport]>) -> Vec<(String, Vec<usize>)> {
    let mut found: Vec<(String, Vec<usize>)> = Vec::new();
    for (p, variant) in set.variants.iter().enumerate() {
        let seen = match points {
            Some(reports) => match reports.get(p) {
                Some(report) => Some(Seen::new(report)),
                None => continue,
            },
            None => None,
        };
        let arms = variant.arms();
        for arm in arms {
            for warning in arm_warnings(arm, seen.as_ref()) {
                match found.iter_mut().find(|(w, _)| *w == warning) {
                    Some((_, at)) => at.push(p),
                    None => found.push((warning, vec![p])),
                }
            }
        }
    }
    found
}

/// The warnings as run.json and stderr say them: one that holds at some sweep points only
/// names them (`params[p]` being point p's values of the keys `param_names`).
pub fn name_points(
    found: Vec<(String, Vec<usize>)>,
    param_names: &[String],
    params: &[Vec<String>],
) -> Vec<String> {
    let all = params.len();
    found
        .into_iter()
        .map(|(warning, at)| {
            if at.len() == all || param_names.is_empty() {
                return warning;
            }
            let named: Vec<String> = at
                .iter()
                .take(3)
                .map(|&p| {
                    let empty = Vec::new();
                    let values = param_names.iter().zip(params.get(p).unwrap_or(&empty));
                    let pairs: Vec<String> = values.map(|(k, v)| format!("{k}={v}")).collect();
                    pairs.join(", ")
                })
                .collect();
            let more = match at.len() {
                n if n > 3 => format!(" and {} more", n - 3),
                _ => String::new(),
            };
            format!(
                "{warning} (at sweep point{} {}{more})",
                if at.len() == 1 { "" } else { "s" },
                named.join("; ")
            )
        })
        .collect()
}

/// The histograms a run gathered at one sweep point, by choice and metric name.
struct Seen<'a> {
    metrics: HashMap<(&'a str, &'a str), &'a Histogram>,
}

impl<'a> Seen<'a> {
    fn new(report: &'a VariantReport) -> Seen<'a> {
        let metrics = report
            .metrics
            .iter()
            .filter(|m| m.round.is_none())
            .map(|m| ((m.choice.as_str(), m.metric.as_str()), &m.histogram))
            .collect();
        Seen { metrics }
    }

    /// The smallest and largest value of a metric over the trials; `None` without trials.
    fn range(&self, choice: &str, metric: &str) -> Option<(i64, i64)> {
        let h = self.metrics.get(&(choice, metric))?;
        Some((h.min()?, h.max()?))
    }
}

/// What one arm plays: a choice's steps or an engagement's orders.
#[derive(Clone, Copy)]
enum Play<'a> {
    Steps(&'a [Step]),
    Orders(&'a Engagement),
}

impl Play<'_> {
    /// Whether `unit` may ever stand nearer an enemy than at the start: it Runs, or Rallies
    /// (restored models are placed around the survivors).
    fn may_come_nearer(self, unit: usize) -> bool {
        let brings = |o: &Order| matches!(o.command(), Command::Run | Command::Rally);
        match self {
            Play::Steps(steps) => steps.iter().any(|st| st.unit == unit && brings(&st.order)),
            Play::Orders(e) => e.orders[unit]
                .iter()
                .any(|o| o.order.options().iter().any(brings)),
        }
    }
}

impl Play<'_> {
    /// Whether some model may move or leave the table: a Run or a Shoot by any unit, or a
    /// Covering Fire a unit may give.
    fn moves_or_removes(self, s: &Scenario) -> bool {
        let shifts = |o: &Order| matches!(o.command(), Command::Run | Command::Shoot);
        let by_command = match self {
            Play::Steps(steps) => steps.iter().any(|st| shifts(&st.order)),
            Play::Orders(e) => e
                .orders
                .iter()
                .flatten()
                .any(|o| o.order.options().iter().any(shifts)),
        };
        let covering_fire = s.units.iter().any(|u| {
            u.weapon.is_some() && matches!(u.response, Response::CoveringFire | Response::Random)
        });
        by_command || covering_fire
    }
}

/// Why `unit` can never Rally for an enemy within 1", if the scenario proves it: one starts
/// there, and no model ever moves or leaves the table (models put back only come nearer).
fn enemy_stays_within_1(s: &Scenario, play: Play<'_>, unit: usize) -> Option<String> {
    if play.moves_or_removes(s) {
        return None;
    }
    let u = &s.units[unit];
    let (d, near) = (0..s.units.len())
        .filter(|&e| s.units[e].side != u.side && !s.units[e].models.is_empty())
        .map(|e| (distance(s, unit, e), e))
        .min_by(|a, b| a.0.total_cmp(&b.0))?;
    (d <= 1.0 + EPS).then(|| {
        format!(
            "`{}` stands {} from `{}` at the start, within 1\", and no model ever moves or \
             leaves the table (no Run, Shoot or Covering Fire)",
            s.units[near].id,
            inches(d),
            u.id
        )
    })
}

fn arm_warnings(s: &Scenario, seen: Option<&Seen<'_>>) -> Vec<String> {
    let mut out = Vec::new();
    match &s.game {
        Game::Steps(choices) => {
            for c in choices {
                let play = Play::Steps(&c.steps);
                for i in 0..c.steps.len() {
                    out.extend(step_warning(s, &c.id, &c.steps, i, seen));
                }
                out.extend(weapon_warnings(s, play, &c.id));
            }
        }
        Game::Engagement(e) => {
            for (unit, orders) in e.orders.iter().enumerate() {
                for i in 0..orders.len() {
                    out.extend(order_warning(s, e, unit, i, seen));
                }
            }
            out.extend(weapon_warnings(s, Play::Orders(e), &e.choice));
        }
        Game::Cards(_) => {}
    }
    out
}

/// `, choice `id`` when the arm has an id.
fn in_choice(choice: &str) -> String {
    match choice {
        "" => String::new(),
        id => format!(", choice `{id}`"),
    }
}

/// The name of a step's metric (a field of [`crate::metrics::StepMetrics`]).
fn step_metric(step: &Step, field: &str) -> String {
    debug_assert!(crate::metrics::StepMetrics::NAMES.contains(&field));
    format!("{}.{field}", step.id)
}

/// The warning of step `i` of `steps`: from the run's results when there are some, else only
/// when the scenario proves it can never be declared.
fn step_warning(
    s: &Scenario,
    choice: &str,
    steps: &[Step],
    i: usize,
    seen: Option<&Seen<'_>>,
) -> Option<String> {
    let step = &steps[i];
    let subject = format!(
        "step `{}` ({} by `{}`, round {}{})",
        step.id,
        step.order.command().name(),
        s.units[step.unit].id,
        step.round,
        in_choice(choice)
    );
    let play = Play::Steps(steps);
    let Some(seen) = seen else {
        // Without results an earlier step is taken to be declared unless the file proves it
        // never is.
        let declared = |j: usize| step_refusal(s, play, steps, j, &|_| true).is_none();
        let reason = step_refusal(s, play, steps, i, &declared)?;
        return Some(format!("{subject} can never be declared: {reason}"));
    };
    let (_, resolved) = seen.range(choice, &step_metric(step, "resolved"))?;
    if resolved > 0 {
        return None;
    }
    let ineligible = |j: usize| seen.range(choice, &step_metric(&steps[j], "ineligible"));
    let what = match ineligible(i)? {
        (1, _) => {
            let always = |j: usize| ineligible(j).is_some_and(|(_, max)| max == 0);
            let reason = step_refusal(s, play, steps, i, &always);
            format!(
                "it could not be declared in any{}",
                reason.map_or(String::new(), |r| format!(": {r}"))
            )
        }
        (_, 0) => "it was declared in every trial and did nothing each time: its target, or \
                   the acting unit, was gone"
            .to_string(),
        _ => "it could not be declared in some trials and did nothing in the others: its \
              target, or the acting unit, was gone"
            .to_string(),
    };
    Some(format!("{subject} never acted in any trial: {what}"))
}

/// Why step `i` can never be declared, if the scenario proves it. `declared(j)` says whether
/// an earlier step `j` is declared in every trial, which is what makes its token bar a later
/// step of its unit in its round.
fn step_refusal(
    s: &Scenario,
    play: Play<'_>,
    steps: &[Step],
    i: usize,
    declared: &dyn Fn(usize) -> bool,
) -> Option<String> {
    let step = &steps[i];
    let unit = &s.units[step.unit];
    if unit.models.is_empty() {
        return Some(no_model(&unit.id));
    }
    let earlier =
        (0..i).find(|&j| steps[j].unit == step.unit && steps[j].round == step.round && declared(j));
    if let Some(j) = earlier {
        return Some(format!(
            "`{}` takes one command a round, and its step `{}` ({}) comes first in round {}",
            unit.id,
            steps[j].id,
            steps[j].order.command().name(),
            step.round
        ));
    }
    if let Some(reason) = defended_earlier(s, steps, i, declared) {
        return Some(reason);
    }
    match step.order {
        Order::Shoot { target } => never_in_range(s, play, step.unit, target),
        Order::Rally => enemy_stays_within_1(s, play, step.unit),
        Order::Run { .. } => None,
    }
}

/// Why step `i` is barred by the Defend restriction, if an enemy's Shoot declared earlier in
/// its round (`declared(j)`: in every trial) aims at its unit, which answers with Defend: the
/// unit then holds the restriction, given now or already held.
fn defended_earlier(
    s: &Scenario,
    steps: &[Step],
    i: usize,
    declared: &dyn Fn(usize) -> bool,
) -> Option<String> {
    let step = &steps[i];
    let unit = &s.units[step.unit];
    let command = step.order.command();
    if unit.response != Response::Defend || !command.barred_by().intersects(Restrictions::DEFEND) {
        return None;
    }
    let j = (0..i).find(|&j| {
        let shot_at = steps[j].order
            == (Order::Shoot {
                target: Target::Unit(step.unit),
            });
        steps[j].round == step.round
            && shot_at
            && s.units[steps[j].unit].side != unit.side
            && declared(j)
    })?;
    Some(format!(
        "`{}` Defends in the response window of step `{}` (shoot by `{}`) earlier in round {}, \
         and the Defend restriction bars {}",
        unit.id,
        steps[j].id,
        s.units[steps[j].unit].id,
        step.round,
        command.name()
    ))
}

fn no_model(unit: &str) -> String {
    format!("`{unit}` has no model on the table, and a unit with none takes no command")
}

/// The warning of order `i` of `unit`: never declared in any trial of the run (its unit's
/// `declared.<command>` is 0 in every trial for each command it may declare), or, with or
/// without results, never taken by what the scenario proves.
fn order_warning(
    s: &Scenario,
    e: &Engagement,
    unit: usize,
    i: usize,
    seen: Option<&Seen<'_>>,
) -> Option<String> {
    let given = &e.orders[unit][i];
    let id = &s.units[unit].id;
    let subject = format!(
        "order #{} of `{id}` ({}{}{})",
        i + 1,
        given.order.name(),
        given
            .when
            .as_ref()
            .map_or(String::new(), |w| format!(", when `{}`", w.text())),
        in_choice(&e.choice)
    );
    let reason = order_refusal(s, e, unit, given);
    let Some(seen) = seen else {
        return reason.map(|r| format!("{subject} can never be taken: {r}"));
    };
    let declared: Vec<String> = given
        .order
        .options()
        .iter()
        .map(|o| format!("{id}.declared.{}", o.command().name()))
        .collect();
    let counts: Option<Vec<i64>> = declared
        .iter()
        .map(|m| seen.range(&e.choice, m).map(|(_, max)| max))
        .collect();
    let never = counts?.iter().all(|&max| max == 0);
    // Another order of the unit may declare the same command: its count then cannot clear
    // this one, but a reason the scenario proves still holds.
    let shared = e.orders[unit].iter().enumerate().any(|(j, other)| {
        j != i
            && other.order.options().iter().any(|o| {
                given
                    .order
                    .options()
                    .iter()
                    .any(|x| x.command() == o.command())
            })
    });
    match (never, reason) {
        (true, Some(r)) => Some(format!("{subject} was never taken in any trial: {r}")),
        (true, None) => Some(format!(
            "{subject} was never taken in any trial: {} 0 in every trial",
            match &declared[..] {
                [one] => format!("`{one}` is"),
                many => format!(
                    "{} are",
                    many.iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        )),
        (false, Some(r)) if shared => Some(format!("{subject} can never be taken: {r}")),
        (false, _) => None,
    }
}

/// Why an order can never be taken, if the scenario proves it.
fn order_refusal(s: &Scenario, e: &Engagement, unit: usize, given: &GivenOrder) -> Option<String> {
    let u = &s.units[unit];
    if u.models.is_empty() {
        return Some(no_model(&u.id));
    }
    if let Some(when) = &given.when {
        if can_hold(when, u.size, u.hp, e.rounds) == Some(false) {
            let damage = if u.hp > 1 { ", with any damage" } else { "" };
            return Some(format!(
                "its condition `{}` holds in no round from 1 to {} with 1 to {} models of \
                 `{}` on the table{damage}",
                when.text(),
                e.rounds,
                u.size,
                u.id
            ));
        }
    }
    // Every option must be refused.
    let play = Play::Orders(e);
    let mut reasons = given.order.options().iter().map(|o| match *o {
        Order::Shoot { target } => never_in_range(s, play, unit, target),
        Order::Rally => enemy_stays_within_1(s, play, unit),
        Order::Run { .. } => None,
    });
    let first = reasons.next()??;
    reasons.all(|r| r.is_some()).then_some(first)
}

/// Why `shooter` can never shoot `target` (a unit or a rule picking one), if the scenario
/// proves it: every enemy it could aim at has no model, or starts beyond the weapon's range
/// with neither unit able to come nearer.
fn never_in_range(s: &Scenario, play: Play<'_>, shooter: usize, target: Target) -> Option<String> {
    let u = &s.units[shooter];
    let range = u.weapon.as_ref()?.range;
    let candidates: Vec<usize> = match target {
        Target::Unit(t) => vec![t],
        Target::Nearest | Target::Weakest | Target::Strongest => (0..s.units.len())
            .filter(|&t| s.units[t].side != u.side)
            .collect(),
    };
    // The enemies with a model, each with its distance at the start; every one must stay
    // out of reach.
    let mut reachable_ones = Vec::new();
    for &t in &candidates {
        let e = &s.units[t];
        if e.models.is_empty() {
            continue;
        }
        if play.may_come_nearer(shooter) || play.may_come_nearer(t) {
            return None;
        }
        let d = distance(s, shooter, t);
        if d <= range + EPS {
            return None;
        }
        reachable_ones.push((d, t));
    }
    let nearest = reachable_ones
        .iter()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .copied();
    let mover = match target {
        Target::Unit(_) => "neither unit",
        _ => "none of them",
    };
    Some(match (target, nearest) {
        (Target::Unit(t), None) => format!("`{}` has no model on the table", s.units[t].id),
        (_, None) => "no enemy unit has a model on the table".to_string(),
        (Target::Unit(t), Some((d, _))) => format!(
            "`{}` is {} from `{}` at the start, beyond its weapon's range of {}, and {mover} \
             can come nearer (no Run or Rally)",
            s.units[t].id,
            inches(d),
            u.id,
            inches(range)
        ),
        (_, Some((d, t))) => format!(
            "no enemy unit is ever within range of the weapon of `{}` ({}): the nearest, `{}`, \
             is {} away at the start, and {mover} can come nearer (no Run or Rally)",
            u.id,
            inches(range),
            s.units[t].id,
            inches(d)
        ),
    })
}

/// The closest edge-to-edge distance between two units' models at the start.
fn distance(s: &Scenario, a: usize, b: usize) -> f64 {
    let (a, b) = (&s.units[a], &s.units[b]);
    closest(
        a.models.iter().copied(),
        a.radius(),
        b.models.iter().copied(),
        b.radius(),
    )
}

/// The weapons that answer with Covering Fire but can never reach an acting enemy. (A weapon
/// that shoots by steps or orders is warned of there.)
fn weapon_warnings(s: &Scenario, play: Play<'_>, choice: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, u) in s.units.iter().enumerate() {
        let answers = matches!(u.response, Response::CoveringFire | Response::Random);
        if !answers || u.weapon.is_none() || u.models.is_empty() {
            continue;
        }
        if let Some(reason) = never_in_range(s, play, i, Target::Nearest) {
            out.push(format!(
                "the weapon of `{}`{} never gives Covering Fire: {reason}",
                u.id,
                match choice {
                    "" => String::new(),
                    id => format!(" (choice `{id}`)"),
                }
            ));
        }
    }
    out
}

/// The most states of a unit (rounds x models x damage) [`can_hold`] tries.
const MOST_STATES: u64 = 20_000;
/// The most questions about the table a condition may ask for [`can_hold`] to answer them
/// every way.
const MOST_QUESTIONS: u32 = 8;

/// Whether `when` holds in some state a unit of `size` models of `hp` HP can be in at an
/// activation of an engagement of `rounds` rounds, its questions about the table answered
/// every way; `None` when there are too many states or questions to try.
fn can_hold(when: &Condition, size: u32, hp: u32, rounds: u32) -> Option<bool> {
    let states = u64::from(rounds) * u64::from(size) * u64::from(hp.max(1));
    if states > MOST_STATES {
        return None;
    }
    for round in 1..=rounds {
        for alive in 1..=size {
            for damaged in 0..hp.max(1) {
                let mut state = Supposed {
                    alive,
                    size,
                    round,
                    damaged,
                    answers: 0,
                    asked: 0,
                };
                // Answer the questions every way: widen until no evaluation asks more.
                let mut width = 0;
                loop {
                    let mut most = 0;
                    for answers in 0..1u32 << width {
                        state.answers = answers;
                        state.asked = 0;
                        if when.holds(&mut state) {
                            return Some(true);
                        }
                        most = most.max(state.asked);
                    }
                    if most <= width {
                        break;
                    }
                    if most > MOST_QUESTIONS {
                        return None;
                    }
                    width = most;
                }
            }
        }
    }
    Some(false)
}

/// A state supposed for [`can_hold`]: counts as given, and the answer to the k-th question
/// about the table the k-th bit of `answers`.
struct Supposed {
    alive: u32,
    size: u32,
    round: u32,
    damaged: u32,
    answers: u32,
    asked: u32,
}

impl Supposed {
    fn answer(&mut self) -> bool {
        let yes = self.asked < 32 && self.answers >> self.asked & 1 == 1;
        self.asked += 1;
        yes
    }
}

impl Situation for Supposed {
    fn alive(&mut self) -> u32 {
        self.alive
    }

    fn size(&mut self) -> u32 {
        self.size
    }

    fn round(&mut self) -> u32 {
        self.round
    }

    fn damaged(&mut self) -> u32 {
        self.damaged
    }

    fn enemy_within(&mut self, _inches: f64) -> bool {
        self.answer()
    }

    fn in_range(&mut self) -> bool {
        self.answer()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(text: &str, size: u32, hp: u32, rounds: u32) -> Option<bool> {
        can_hold(&Condition::parse(text).unwrap(), size, hp, rounds)
    }

    #[test]
    fn conditions_are_tried_in_every_state_a_unit_can_be_in() {
        // Six rounds: round 7 never comes; round 6 does.
        assert_eq!(holds("round > 6", 5, 1, 6), Some(false));
        assert_eq!(holds("round >= 6", 5, 1, 6), Some(true));
        // An activated unit has at least one model, at most its size.
        assert_eq!(holds("alive == 0", 5, 1, 6), Some(false));
        assert_eq!(holds("missing >= 5", 5, 1, 6), Some(false));
        assert_eq!(holds("missing >= 4", 5, 1, 6), Some(true));
        // One HP a model: no model is ever left damaged.
        assert_eq!(holds("damaged >= 1", 5, 1, 6), Some(false));
        assert_eq!(holds("damaged >= 2", 5, 3, 6), Some(true));
        assert_eq!(holds("damaged >= 3", 5, 3, 6), Some(false));
        // Questions about the table may be answered either way, each on its own.
        assert_eq!(
            holds("in_range and not enemy_within(1)", 5, 1, 6),
            Some(true)
        );
        assert_eq!(holds("not in_range and round > 6", 5, 1, 6), Some(false));
        // Too many states to try: no verdict.
        assert_eq!(holds("round > 6", 10_000, 10, 6), None);
    }

    #[test]
    fn step_metrics_are_named_by_their_fields() {
        for field in ["resolved", "ineligible"] {
            assert!(crate::metrics::StepMetrics::NAMES.contains(&field));
        }
    }
}
