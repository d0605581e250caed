//! A scenario compiled for play: precomputed tables, metric layout, and the [`Trial`] the
//! engine runs.
//!
//! Everything that does not depend on the dice is worked out once here or lazily on first use
//! (behind `OnceLock`, which every worker thread shares and which always computes the same
//! value, so laziness cannot change results).

use super::commands::{self, Ineligible, Resolved};
use super::geometry::{within, Point};
use super::placement::{self, Base, Surroundings};
use super::world::World;
use crate::dice::Fraction;
use crate::dice::SuccessCount;
use crate::engine::{Draws, MetricName, Trial};
use crate::scenario::{Command, Scenario, Step, Unit};
use std::sync::OnceLock;

/// Per-unit metric names, in the order they are written.
pub const UNIT_METRICS: [&str; 5] = ["alive", "restored", "lost", "damage_taken", "destroyed"];
/// Per-step metric names: uses resolved, uses fizzled, 1 if the command could not be
/// declared, and responses declared in its window.
pub const STEP_METRICS: [&str; 4] = ["resolved", "fizzled", "ineligible", "responses"];

/// How an attack is made: a normal attack, or Covering Fire's modified one.
pub const HIT_NORMAL: usize = 0;
pub const HIT_COVERING_FIRE: usize = 1;
/// How its defense test is taken: normally, or with Defend's bonus.
pub const SAVE_NORMAL: usize = 0;
pub const SAVE_DEFENDING: usize = 1;

/// Success-count tables for one test, by number of tests, built on first use.
struct Tables {
    p: Fraction,
    by_count: Vec<OnceLock<SuccessCount>>,
}

impl Tables {
    fn new(p: Fraction, max_count: u32) -> Tables {
        Tables {
            p,
            by_count: (0..=max_count).map(|_| OnceLock::new()).collect(),
        }
    }

    fn get(&self, count: u32) -> &SuccessCount {
        self.by_count[count as usize].get_or_init(|| SuccessCount::new(count, self.p))
    }
}

/// Precomputed Rally placements from the starting layout (see [`World`]).
pub struct RallySpots {
    first: Vec<Point>,
    /// Indexed by how many models the first use restored: the second use's spots.
    second: Vec<OnceLock<Vec<Point>>>,
    unit: usize,
}

impl RallySpots {
    pub fn first(&self) -> &[Point] {
        &self.first
    }

    pub fn second_computed(&self, restored_first: usize) -> Option<&[Point]> {
        self.second[restored_first].get().map(Vec::as_slice)
    }

    pub fn second(&self, restored_first: usize) -> &[Point] {
        self.second_computed(restored_first)
            .expect("second-use spots are computed before any layout refers to them")
    }
}

struct UnitPlan {
    resolve: Tables,
    /// When the unit has a weapon: the count of failed defense tests its attacks cause,
    /// indexed by [`wound_index`].
    wounds: Vec<Tables>,
    enemy_within_1_at_start: bool,
    rally: Option<RallySpots>,
}

struct Arm {
    steps: Vec<Step>,
    first_round: u32,
    /// Index of this arm's first metric in the trial's output.
    offset: usize,
}

pub struct Plan {
    scenario: Scenario,
    units: Vec<UnitPlan>,
    arms: Vec<Arm>,
    metrics: Vec<MetricName>,
    pairs: Vec<(usize, usize)>,
    /// When set, every step takes the general path: used by tests to check the fast path.
    force_general: bool,
}

impl Plan {
    /// Every validated scenario compiles: validation is where refusals live.
    pub fn compile(scenario: &Scenario) -> Plan {
        let options = &scenario.options;
        let rallying = |u: usize| {
            scenario
                .choices
                .iter()
                .flat_map(|c| &c.steps)
                .any(|s| s.unit == u && s.command == Command::Rally)
        };
        let units = scenario
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| UnitPlan {
                resolve: Tables::new(u.resolve.probability(), u.size),
                wounds: u
                    .weapon
                    .iter()
                    .flat_map(|w| {
                        let attacks = u.size * w.attacks;
                        let hit = [
                            w.hit.probability(),
                            w.hit
                                .with_bonus(options.covering_fire_hit_modifier)
                                .probability(),
                        ];
                        hit.into_iter().flat_map(move |hit| {
                            scenario.units.iter().flat_map(move |target| {
                                [0, options.defend_bonus].map(|bonus| {
                                    Tables::new(wound_probability(hit, target, bonus), attacks)
                                })
                            })
                        })
                    })
                    .collect(),
                enemy_within_1_at_start: enemy_within_1_at_start(scenario, i),
                rally: rallying(i).then(|| {
                    let first = starting_spots(scenario, i);
                    RallySpots {
                        second: (0..=first.len()).map(|_| OnceLock::new()).collect(),
                        first,
                        unit: i,
                    }
                }),
            })
            .collect();
        let mut metrics = Vec::new();
        let mut arms = Vec::new();
        for (arm, choice) in scenario.choices.iter().enumerate() {
            arms.push(Arm {
                steps: choice.steps.clone(),
                first_round: choice.steps.first().map_or(1, |s| s.round),
                offset: metrics.len(),
            });
            for u in &scenario.units {
                for m in UNIT_METRICS {
                    metrics.push(MetricName {
                        arm,
                        choice: choice.id.clone(),
                        name: format!("{}.{m}", u.id),
                    });
                }
            }
            for s in &choice.steps {
                for m in STEP_METRICS {
                    metrics.push(MetricName {
                        arm,
                        choice: choice.id.clone(),
                        name: format!("{}.{m}", s.id),
                    });
                }
            }
        }
        let mut pairs = Vec::new();
        for a in 0..arms.len() {
            for b in a + 1..arms.len() {
                for (i, m) in metrics.iter().enumerate().filter(|(_, m)| m.arm == a) {
                    if let Some(j) = metrics.iter().position(|n| n.arm == b && n.name == m.name) {
                        pairs.push((i, j));
                    }
                }
            }
        }
        Plan {
            scenario: scenario.clone(),
            units,
            arms,
            metrics,
            pairs,
            force_general: false,
        }
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

    /// The draw of successes among `tests` Resolve tests of unit `unit`.
    pub(crate) fn resolve_count(&self, unit: usize, tests: u32) -> &SuccessCount {
        self.units[unit].resolve.get(tests)
    }

    /// The draw of failed defense tests (unsaved hits) among `attacks` attacks of
    /// `shooter`'s weapon at `target` (`hit`: `HIT_*`, `save`: `SAVE_*`).
    pub(crate) fn wound_count(
        &self,
        shooter: usize,
        hit: usize,
        target: usize,
        save: usize,
        attacks: u32,
    ) -> &SuccessCount {
        let units = self.units.len();
        self.units[shooter].wounds[(hit * units + target) * 2 + save].get(attacks)
    }

    pub(crate) fn enemy_within_1_at_start(&self, unit: usize) -> bool {
        self.units[unit].enemy_within_1_at_start
    }

    /// Precomputed Rally spots of a unit that some step rallies.
    pub(crate) fn rally_spots(&self, unit: usize) -> &RallySpots {
        self.units[unit]
            .rally
            .as_ref()
            .expect("every unit a step rallies has precomputed spots")
    }

    /// The second use's spots after the first use restored `restored_first` models from the
    /// starting layout, computed on first need.
    pub(crate) fn second_rally_spots(&self, unit: usize, restored_first: usize) -> &[Point] {
        let spots = self.rally_spots(unit);
        spots.second[restored_first].get_or_init(|| {
            let placed = &spots.first[..restored_first];
            second_spots(&self.scenario, spots.unit, placed)
        })
    }

    fn play_step<'t, D: Draws<'t>>(
        &'t self,
        step: &'t Step,
        world: &mut World,
        draws: &mut D,
    ) -> Result<Resolved, Ineligible> {
        world.start_round(step.round);
        commands::declare(self, world, step, draws)
    }
}

impl Trial for Plan {
    type Scratch = World;

    fn metrics(&self) -> &[MetricName] {
        &self.metrics
    }

    fn arms(&self) -> usize {
        self.arms.len()
    }

    fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }

    fn scratch(&self) -> World {
        World::new(self)
    }

    /// The general path (`force_general_path`) plays every trial in full.
    fn memoise(&self) -> bool {
        !self.force_general
    }

    fn play<'t, D: Draws<'t>>(
        &'t self,
        arm: usize,
        world: &mut World,
        draws: &mut D,
        out: &mut [i64],
    ) {
        let arm = &self.arms[arm];
        world.reset(self, arm.first_round);
        let units = self.scenario.units.len();
        let step_out = &mut out[arm.offset + units * UNIT_METRICS.len()..];
        for (step, slot) in arm
            .steps
            .iter()
            .zip(step_out.chunks_exact_mut(STEP_METRICS.len()))
        {
            let (r, ineligible) = match self.play_step(step, world, draws) {
                Ok(r) => (r, 0),
                Err(_) => (Resolved::default(), 1),
            };
            slot[0] = r.uses as i64;
            slot[1] = r.fizzled as i64;
            slot[2] = ineligible;
            slot[3] = r.responses as i64;
        }
        let unit_out = &mut out[arm.offset..arm.offset + units * UNIT_METRICS.len()];
        for (u, slot) in world
            .units
            .iter()
            .zip(unit_out.chunks_exact_mut(UNIT_METRICS.len()))
        {
            slot[0] = u.alive as i64;
            slot[1] = u.restored as i64;
            slot[2] = u.lost as i64;
            slot[3] = u.damage_taken as i64;
            slot[4] = (u.alive == 0) as i64;
        }
    }
}

/// The chance that one attack hits and its defense test (taken with `bonus`) fails. Hits are
/// Binomial(attacks, p_hit) and failed tests Binomial(hits, 1 - p_save) given the hits, so
/// failed tests are Binomial(attacks, p_hit * (1 - p_save)): one draw instead of two.
fn wound_probability(hit: Fraction, target: &Unit, bonus: i32) -> Fraction {
    let Some(defense) = &target.defense else {
        return hit;
    };
    let fail = defense.with_bonus(bonus).probability().one_minus();
    hit.checked_mul(fail).unwrap_or_else(|| {
        // Only dice with more than 2^64 outcomes on both tests get here; the sampler works in
        // f64 anyway, so the product rounded to 2^-120 draws the same.
        const SCALE: f64 = (1u128 << 120) as f64;
        Fraction::new((hit.to_f64() * fail.to_f64() * SCALE) as u128, 1 << 120)
    })
}

fn starting_bases(scenario: &Scenario, unit: usize) -> (Vec<Base>, Vec<Base>) {
    let side = &scenario.units[unit].side;
    let mut all = Vec::new();
    let mut enemies = Vec::new();
    for u in &scenario.units {
        for &centre in &u.models {
            let b = Base {
                centre,
                radius: u.radius(),
            };
            all.push(b);
            if &u.side != side {
                enemies.push(b);
            }
        }
    }
    (all, enemies)
}

fn enemy_within_1_at_start(scenario: &Scenario, unit: usize) -> bool {
    let u = &scenario.units[unit];
    let (_, enemies) = starting_bases(scenario, unit);
    u.models.iter().any(|&p| {
        enemies
            .iter()
            .any(|e| within(p, u.radius(), e.centre, e.radius, 1.0))
    })
}

/// Where a Rally from the starting layout puts up to every missing model.
fn starting_spots(scenario: &Scenario, unit: usize) -> Vec<Point> {
    second_spots(scenario, unit, &[])
}

/// Where a Rally use puts its models when the unit has its starting models plus `placed`.
fn second_spots(scenario: &Scenario, unit: usize, placed: &[Point]) -> Vec<Point> {
    let u = &scenario.units[unit];
    let (mut bases, enemies) = starting_bases(scenario, unit);
    bases.extend(placed.iter().map(|&centre| Base {
        centre,
        radius: u.radius(),
    }));
    let anchors: Vec<Point> = u.models.iter().chain(placed).copied().collect();
    let missing = u.size as usize - anchors.len();
    let around = Surroundings {
        field: &scenario.battlefield,
        bases: &bases,
        enemies: &enemies,
    };
    placement::place(
        &around,
        &anchors,
        u.radius(),
        missing,
        scenario.options.rally_chain,
    )
}
