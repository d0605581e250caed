//! A scenario compiled for play: the scenario, each unit's precomputation for the commands it
//! may take (defined beside each command, in `rally/prepared.rs` and `shoot/prepared.rs`), an
//! engagement's (`engagement/prepared.rs`) with the advice its `best` orders play
//! (`engagement/policy.rs`, set after compiling), and the metric layout the engine gathers. The
//! precomputations read only the scenario, so the plan depends on them and not on the rules
//! that use it; the driver that plays the plan is [`super::trial`].
//!
//! Everything that does not depend on the dice is worked out once here or lazily on first use
//! (behind `OnceLock`, which every worker thread shares and which always computes the same
//! value, so laziness cannot change results).

use super::engagement::{policy, prepared};
use super::rally::prepared as rally;
use super::shoot::prepared as shoot;
use crate::engine::MetricName;
use crate::geometry::{closest, Point};
use crate::scenario::{Engagement, Game, Scenario, Step};
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

struct UnitPlan {
    rally: rally::Prepared,
    /// Present when the unit has a weapon.
    shoot: Option<shoot::Prepared>,
}

/// One choice's steps and where its metrics go.
pub(super) struct Arm {
    pub(super) steps: Vec<Step>,
    pub(super) first_round: u32,
    /// Index of this arm's first metric in the trial's output.
    pub(super) offset: usize,
    /// How many metrics the arm writes, derived ones included.
    pub(super) width: usize,
}

pub struct Plan {
    scenario: Scenario,
    units: Vec<UnitPlan>,
    pub(super) arms: Vec<Arm>,
    pub(super) metrics: Vec<MetricName>,
    pub(super) pairs: Vec<(usize, usize)>,
    /// An engagement scenario's precomputation.
    engagement: Option<prepared::Prepared>,
    /// Edge-to-edge distance between the closest starting models of units a and b, at
    /// `a * units + b`.
    starting_distances: Vec<f64>,
    /// When set, every step takes the general path: used by tests to check the fast path.
    force_general: bool,
    /// What an engagement's `best` orders play, once advised.
    policy: Option<policy::Policy>,
    /// The lowest index (in file order) of a derived metric whose arithmetic overflowed in
    /// some trial, or `usize::MAX`. The lowest, so the answer does not depend on which worker
    /// met which trial first.
    overflow: AtomicUsize,
}

/// The metric pairs `compare.csv` reports: for every two arms a < b, each metric of arm a with
/// the metric of arm b of the same name, where b has one. A metric only one arm has (a step of
/// one choice, a unit one design adds) is not compared.
fn pairs_by_name(metrics: &[MetricName], arms: usize) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for a in 0..arms {
        for b in a + 1..arms {
            for (i, m) in metrics
                .iter()
                .enumerate()
                .filter(|(_, m)| m.arm == a && m.round.is_none())
            {
                if let Some(j) = metrics.iter().position(|n| n.arm == b && n.name == m.name) {
                    pairs.push((i, j));
                }
            }
        }
    }
    pairs
}

/// The records of an engagement arm for `rounds.csv`: every round's [`Engagement::round_names`],
/// round 0 to the last.
fn round_metrics<'e>(
    e: &'e Engagement,
    units: &'e [crate::scenario::Unit],
    arm: usize,
) -> impl Iterator<Item = MetricName> + 'e {
    let names = e.round_names(units);
    (0..=e.rounds).flat_map(move |round| {
        names.clone().into_iter().map(move |name| MetricName {
            arm,
            choice: e.choice.clone(),
            name,
            round: Some(round),
        })
    })
}

impl Plan {
    /// Every validated scenario compiles: validation is where refusals live.
    pub fn compile(scenario: &Scenario) -> Plan {
        let units = (0..scenario.units.len())
            .map(|i| UnitPlan {
                rally: rally::Prepared::new(scenario, i),
                shoot: shoot::Prepared::new(scenario, i),
            })
            .collect();
        let mut metrics = Vec::new();
        let mut arms = Vec::new();
        // Per arm: its steps (none in an engagement); the ids and the names of its metrics
        // come from the scenario, derived metrics after the built-in ones.
        let steps: Vec<&[Step]> = match &scenario.game {
            Game::Steps(choices) => choices.iter().map(|c| &c.steps[..]).collect(),
            Game::Engagement(_) => vec![&[]],
            Game::Cards(_) => Vec::new(),
        };
        let played = scenario.choice_ids().into_iter().zip(steps);
        for (arm, ((id, steps), names)) in played.zip(scenario.builtin_metrics()).enumerate() {
            let derived = scenario.derived(arm).into_iter().flat_map(|d| d.metrics());
            let names: Vec<String> = names
                .into_iter()
                .chain(derived.map(|(name, _)| name.to_string()))
                .collect();
            arms.push(Arm {
                steps: steps.to_vec(),
                first_round: steps.first().map_or(1, |s| s.round),
                offset: metrics.len(),
                width: names.len(),
            });
            metrics.extend(names.into_iter().map(|name| MetricName {
                arm,
                choice: id.to_string(),
                name,
                round: None,
            }));
            if let Game::Engagement(e) = &scenario.game {
                metrics.extend(round_metrics(e, &scenario.units, arm));
            }
        }
        let pairs = pairs_by_name(&metrics, arms.len());
        // An engagement's round records follow its arm's metrics, derived ones included.
        let width = arms.first().map_or(0, |a| a.width);
        Plan {
            scenario: scenario.clone(),
            units,
            arms,
            metrics,
            pairs,
            engagement: match &scenario.game {
                Game::Engagement(e) => Some(prepared::Prepared::new(&scenario.units, e, width)),
                Game::Steps(_) | Game::Cards(_) => None,
            },
            starting_distances: scenario
                .units
                .iter()
                .flat_map(|a| {
                    scenario.units.iter().map(move |b| {
                        closest(
                            a.models.iter().copied(),
                            a.radius(),
                            b.models.iter().copied(),
                            b.radius(),
                        )
                    })
                })
                .collect(),
            force_general: false,
            policy: None,
            overflow: AtomicUsize::new(usize::MAX),
        }
    }

    /// Computes arm `arm`'s derived metrics in its row of `out`, whose built-in metrics are
    /// written; an overflow is remembered for [`Plan::overflowed`] (the value is then left
    /// as it was, and the run is refused).
    pub(super) fn derive(&self, arm: usize, out: &mut [i64]) {
        let Some(derived) = self.scenario.derived(arm) else {
            return;
        };
        let a = &self.arms[arm];
        if let Err(j) = derived.evaluate(&mut out[a.offset..a.offset + a.width]) {
            self.overflow.fetch_min(j, AtomicOrdering::Relaxed);
        }
    }

    /// The name and expression of the first derived metric (in file order) whose arithmetic
    /// overflowed in a trial played so far.
    pub fn overflowed(&self) -> Option<(String, String)> {
        let j = self.overflow.load(AtomicOrdering::Relaxed);
        let derived = self.scenario.derived.first()?;
        let (name, e) = derived.metrics().nth(j)?;
        Some((name.to_string(), e.text().to_string()))
    }

    /// Gives the engagement's `best` orders the advice to play.
    pub fn set_policy(&mut self, policy: policy::Policy) {
        self.policy = Some(policy);
    }

    /// The advice `best` orders play, once set; without it a `best` order declares the first
    /// of its options that can be declared.
    pub fn policy(&self) -> Option<&policy::Policy> {
        self.policy.as_ref()
    }

    /// Edge-to-edge distance between the closest models of units `a` and `b` as the scenario
    /// placed them.
    pub(crate) fn starting_distance(&self, a: usize, b: usize) -> f64 {
        self.starting_distances[a * self.scenario.units.len() + b]
    }

    /// Disables the precomputed fast paths (for tests that check them against the general
    /// path).
    pub fn force_general_path(mut self) -> Plan {
        self.force_general = true;
        self
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub(crate) fn fast_paths(&self) -> bool {
        !self.force_general
    }

    /// The engagement an engagement scenario plays, with its precomputation.
    pub(crate) fn engagement(&self) -> Option<(&Engagement, &prepared::Prepared)> {
        match &self.scenario.game {
            Game::Engagement(e) => Some(e).zip(self.engagement.as_ref()),
            Game::Steps(_) | Game::Cards(_) => None,
        }
    }

    /// What Rally precomputed for `unit`.
    pub(crate) fn rally(&self, unit: usize) -> &rally::Prepared {
        &self.units[unit].rally
    }

    /// What Shoot precomputed for `unit`; `None` when it has no weapon.
    pub(crate) fn shoot(&self, unit: usize) -> Option<&shoot::Prepared> {
        self.units[unit].shoot.as_ref()
    }

    /// Where a Rally from the starting layout puts up to every missing model of `unit`,
    /// searched on first need.
    pub fn rally_spots(&self, unit: usize) -> &[Point] {
        self.rally(unit).first(&self.scenario)
    }

    /// The second use's spots after the first use restored `restored_first` models of `unit`
    /// from the starting layout, searched on first need.
    pub fn second_rally_spots(&self, unit: usize, restored_first: usize) -> &[Point] {
        self.rally(unit).second(&self.scenario, restored_first)
    }
}
