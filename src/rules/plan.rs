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
use crate::engine::{MetricName, OutcomeTable, Trial};
use crate::scenario::{Command, Scenario, Step};
use rand::Rng;
use std::sync::OnceLock;

/// Per-unit metric names, in the order they are written.
pub const UNIT_METRICS: [&str; 5] = ["alive", "restored", "lost", "damage_taken", "destroyed"];
/// Per-step metric names: uses resolved, uses fizzled, 1 if the command could not be
/// declared, and responses declared in its window.
pub const STEP_METRICS: [&str; 4] = ["resolved", "fizzled", "ineligible", "responses"];

/// Hit tables: a normal attack, and Covering Fire's modified one.
pub const HIT_NORMAL: usize = 0;
pub const HIT_COVERING_FIRE: usize = 1;
/// Save tables: a normal defense test, and one with Defend's bonus.
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
    /// Indexed by `HIT_*`, when the unit has a weapon.
    hits: Vec<Tables>,
    /// Indexed by `SAVE_*`, when the unit has a defense test.
    saves: Vec<Tables>,
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
        let most_attacks = scenario
            .units
            .iter()
            .filter_map(|u| u.weapon.as_ref().map(|w| u.size * w.attacks))
            .max()
            .unwrap_or(0);
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
                hits: u
                    .weapon
                    .iter()
                    .flat_map(|w| {
                        let attacks = u.size * w.attacks;
                        [
                            Tables::new(w.hit.probability(), attacks),
                            Tables::new(
                                w.hit
                                    .with_bonus(options.covering_fire_hit_modifier)
                                    .probability(),
                                attacks,
                            ),
                        ]
                    })
                    .collect(),
                saves: u
                    .defense
                    .iter()
                    .flat_map(|d| {
                        [
                            Tables::new(d.probability(), most_attacks),
                            Tables::new(
                                d.with_bonus(options.defend_bonus).probability(),
                                most_attacks,
                            ),
                        ]
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

    /// The draw of hits among `attacks` attacks of `unit`'s weapon (`kind`: `HIT_*`).
    pub(crate) fn hit_count(&self, unit: usize, kind: usize, attacks: u32) -> &SuccessCount {
        self.units[unit].hits[kind].get(attacks)
    }

    /// The draw of saves among `tests` defense tests of `unit` (`kind`: `SAVE_*`).
    pub(crate) fn save_count(&self, unit: usize, kind: usize, tests: u32) -> &SuccessCount {
        self.units[unit].saves[kind].get(tests)
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

    fn play_step<R: Rng>(
        &self,
        step: &Step,
        world: &mut World,
        rng: &mut R,
    ) -> Result<Resolved, Ineligible> {
        world.start_round(step.round);
        commands::declare(self, world, step, rng)
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

    /// A lone Rally without Call of the Masters is one draw of the success count: list its
    /// outcomes by playing the step once per count, with a scripted word that draws it.
    fn outcome_table(&self) -> Option<OutcomeTable> {
        if self.force_general || self.arms.len() != 1 {
            return None;
        }
        let [step] = self.arms[0].steps.as_slice() else {
            return None;
        };
        let unit = &self.scenario.units[step.unit];
        if step.command != Command::Rally || unit.call_of_the_masters {
            return None;
        }
        let draw = self.resolve_count(step.unit, unit.size - unit.alive());
        let mut world = World::new(self);
        let mut out = vec![0; self.metrics.len()];
        let mut outcomes = Vec::new();
        for k in 0..=draw.trials() {
            let Some(word) = draw.word_for(k) else {
                outcomes.push(None);
                continue;
            };
            let mut rng = Scripted { word, draws: 0 };
            self.play(0, &mut world, &mut rng, &mut out);
            match rng.draws {
                // Not eligible: the trial never draws and always ends the same way.
                0 => {
                    return Some(OutcomeTable {
                        draw: None,
                        outcomes: vec![Some(out)],
                    })
                }
                1 => outcomes.push(Some(out.clone())),
                _ => return None,
            }
        }
        Some(OutcomeTable {
            draw: Some(draw.clone()),
            outcomes,
        })
    }

    fn play<R: Rng>(&self, arm: usize, world: &mut World, rng: &mut R, out: &mut [i64]) {
        let arm = &self.arms[arm];
        world.reset(self, arm.first_round);
        let units = self.scenario.units.len();
        let step_out = &mut out[arm.offset + units * UNIT_METRICS.len()..];
        for (step, slot) in arm
            .steps
            .iter()
            .zip(step_out.chunks_exact_mut(STEP_METRICS.len()))
        {
            let (r, ineligible) = match self.play_step(step, world, rng) {
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

/// A random source that always gives the same word and counts how often it was asked.
struct Scripted {
    word: u64,
    draws: u32,
}

impl rand::TryRng for Scripted {
    type Error = std::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        self.draws += 1;
        Ok((self.word >> 32) as u32)
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.draws += 1;
        Ok(self.word)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        self.draws += 1;
        dst.fill(0);
        Ok(())
    }
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
