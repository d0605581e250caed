//! The state of one trial: each unit's models, counters, restrictions and command token.
//!
//! Positions are materialised lazily. A trial starts "pristine" (every unit as the scenario
//! placed it) and stays so until a model is added or removed; while pristine, rules may use
//! results precomputed for the starting layout instead of touching geometry, which keeps the
//! common one-step trial free of per-model work.

use super::geometry::{edge_distance, Point};
use super::placement::Base;
use super::plan::Plan;

/// Restrictions a command applies to its unit, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Restrictions(u8);

impl Restrictions {
    pub const NONE: Restrictions = Restrictions(0);
    pub const SHOOT: Restrictions = Restrictions(1);
    pub const RUN: Restrictions = Restrictions(2);
    pub const DEFEND: Restrictions = Restrictions(4);

    pub const ALL: Restrictions = Restrictions(7);

    pub const fn union(self, other: Restrictions) -> Restrictions {
        Restrictions(self.0 | other.0)
    }

    pub fn intersects(self, other: Restrictions) -> bool {
        self.0 & other.0 != 0
    }
}

/// One model on the table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model {
    pub centre: Point,
    pub hp: u32,
}

/// How a unit's models are known: as the scenario placed them, as the starting layout plus
/// precomputed Rally placements, or listed in `models`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    Initial,
    /// The starting models, then the first `first` spots of the unit's precomputed Rally
    /// placements, then the first `second` spots of its precomputed second use after `first`.
    Rallied {
        first: u32,
        second: u32,
    },
    Materialized,
}

#[derive(Debug, Clone)]
pub struct UnitState {
    pub alive: u32,
    pub restored: u32,
    pub lost: u32,
    pub damage_taken: u32,
    pub restrictions: Restrictions,
    pub token: bool,
    /// Declared Defend in the window of the command now resolving.
    pub defending: bool,
    pub(crate) layout: Layout,
    /// Valid only when `layout` is `Materialized`.
    pub(crate) models: Vec<Model>,
}

/// A trial's state; also the engine's per-worker scratch, reused across trials.
#[derive(Debug, Clone)]
pub struct World {
    pub units: Vec<UnitState>,
    /// No model has been added or removed since the start of the trial.
    pub pristine: bool,
    pub round: u32,
    /// Reused buffers for geometry queries, so the slow path allocates only while warming up.
    pub(crate) bases: Vec<Base>,
    pub(crate) enemies: Vec<Base>,
    pub(crate) anchors: Vec<Point>,
    pub(crate) placed: Vec<Point>,
}

impl World {
    pub fn new(plan: &Plan) -> World {
        let units = plan
            .scenario()
            .units
            .iter()
            .map(|u| UnitState {
                alive: u.alive(),
                restored: 0,
                lost: 0,
                damage_taken: 0,
                restrictions: Restrictions::NONE,
                token: false,
                defending: false,
                layout: Layout::Initial,
                models: Vec::with_capacity(u.size as usize),
            })
            .collect();
        World {
            units,
            pristine: true,
            round: 1,
            bases: Vec::new(),
            enemies: Vec::new(),
            anchors: Vec::new(),
            placed: Vec::new(),
        }
    }

    /// Back to the scenario's starting state, without freeing any buffer.
    pub fn reset(&mut self, plan: &Plan, round: u32) {
        for (state, unit) in self.units.iter_mut().zip(&plan.scenario().units) {
            state.alive = unit.alive();
            state.restored = 0;
            state.lost = 0;
            state.damage_taken = 0;
            state.restrictions = Restrictions::NONE;
            state.token = false;
            state.defending = false;
            state.layout = Layout::Initial;
        }
        self.pristine = true;
        self.round = round;
    }

    /// Tokens and restrictions last until the end of the round.
    pub fn start_round(&mut self, round: u32) {
        if round != self.round {
            for u in &mut self.units {
                u.restrictions = Restrictions::NONE;
                u.token = false;
            }
            self.round = round;
        }
    }

    /// Lists every unit's models explicitly, so geometry can be read and changed.
    pub fn materialize(&mut self, plan: &Plan) {
        for (i, state) in self.units.iter_mut().enumerate() {
            if state.layout == Layout::Materialized {
                continue;
            }
            let unit = &plan.scenario().units[i];
            let full = |centre: Point| Model {
                centre,
                hp: unit.hp,
            };
            state.models.clear();
            state.models.extend(unit.models.iter().copied().map(full));
            if let Layout::Rallied { first, second } = state.layout {
                let spots = plan.rally_spots(i);
                state
                    .models
                    .extend(spots.first()[..first as usize].iter().copied().map(full));
                if second > 0 {
                    let after = spots.second(first as usize);
                    state
                        .models
                        .extend(after[..second as usize].iter().copied().map(full));
                }
            }
            debug_assert_eq!(state.models.len(), state.alive as usize);
            state.layout = Layout::Materialized;
        }
    }

    /// Edge-to-edge distance between the closest models of two units (infinite when either
    /// has none). The world must be materialised.
    pub fn unit_distance(&self, plan: &Plan, a: usize, b: usize) -> f64 {
        let (ua, ub) = (&plan.scenario().units[a], &plan.scenario().units[b]);
        let mut best = f64::INFINITY;
        for ma in &self.units[a].models {
            for mb in &self.units[b].models {
                best = best.min(edge_distance(
                    ma.centre,
                    ua.radius(),
                    mb.centre,
                    ub.radius(),
                ));
            }
        }
        best
    }

    /// Fills the reusable base buffers: all bases, and those of `unit`'s enemies.
    /// The world must be materialised.
    pub(crate) fn gather_bases(&mut self, plan: &Plan, unit: usize) {
        self.bases.clear();
        self.enemies.clear();
        let side = &plan.scenario().units[unit].side;
        for (state, u) in self.units.iter().zip(&plan.scenario().units) {
            for m in &state.models {
                let b = Base {
                    centre: m.centre,
                    radius: u.radius(),
                };
                self.bases.push(b);
                if &u.side != side {
                    self.enemies.push(b);
                }
            }
        }
    }
}
