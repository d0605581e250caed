//! Rally (seed 003): one Resolve test per missing model; each success restores a model within
//! 2" of a model alive when the use began. Doubled by Call of the Masters, use 2 sees the
//! models use 1 restored.
//!
//! [`Prepared`] holds what Rally works out before any trial: the Resolve tables (for a unit
//! that has a Resolve test; only such a unit may Rally), whether an
//! enemy starts within 1", and where Rally from the starting layout places models.

use super::geometry::{within, Point};
use super::placement::{self, Base, Surroundings};
use super::plan::Plan;
use super::tables::CountTables;
use super::world::{Model, Restrictions, World};
use crate::engine::Draws;
use crate::scenario::Scenario;
use std::sync::OnceLock;

/// The restrictions Rally applies, and any of which bars it (seed 003): named one by one, so
/// a new restriction does not join them unasked.
pub const APPLIES: Restrictions = Restrictions::SHOOT
    .union(Restrictions::RUN)
    .union(Restrictions::DEFEND);

/// Rally's precomputation for one unit.
pub struct Prepared {
    unit: usize,
    /// `None` for a unit without a Resolve test, which validation never lets Rally.
    resolve: Option<CountTables>,
    enemy_within_1_at_start: bool,
    /// Placements from the starting layout, searched on first need.
    first: OnceLock<Vec<Point>>,
    /// Indexed by how many models the first use restored: the second use's spots.
    second: Vec<OnceLock<Vec<Point>>>,
}

impl Prepared {
    pub fn new(scenario: &Scenario, unit: usize) -> Prepared {
        let u = &scenario.units[unit];
        let missing = (u.size - u.alive()) as usize;
        Prepared {
            unit,
            resolve: u
                .resolve
                .as_ref()
                .map(|r| CountTables::new(r.probability(), u.size)),
            enemy_within_1_at_start: enemy_within_1_at_start(scenario, unit),
            first: OnceLock::new(),
            second: (0..=missing).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Where a Rally from the starting layout puts up to every missing model.
    pub fn first(&self, scenario: &Scenario) -> &[Point] {
        self.first.get_or_init(|| spots(scenario, self.unit, &[]))
    }

    /// The second use's spots after the first restored `restored_first` models from the
    /// starting layout.
    pub fn second(&self, scenario: &Scenario, restored_first: usize) -> &[Point] {
        self.second[restored_first].get_or_init(|| {
            let placed = &self.first(scenario)[..restored_first];
            spots(scenario, self.unit, placed)
        })
    }
}

/// Whether any model of `unit` is within 1" of an enemy model.
pub fn enemy_within_1(plan: &Plan, world: &mut World, unit: usize) -> bool {
    if world.pristine() && plan.fast_paths() {
        return plan.rally(unit).enemy_within_1_at_start;
    }
    world.gather_bases(plan, unit);
    let r = plan.scenario().units[unit].radius();
    world.anchors.iter().any(|&m| {
        world
            .enemies
            .iter()
            .any(|e| within(m, r, e.centre, e.radius, 1.0))
    })
}

/// Resolves `uses` uses of Rally. A unit without a Resolve test (which validation never lets
/// Rally) restores nothing and draws nothing.
pub fn resolve<'p, D: Draws<'p>>(
    plan: &'p Plan,
    world: &mut World,
    unit: usize,
    uses: u32,
    draws: &mut D,
) {
    if world.pristine() && plan.fast_paths() {
        from_start(plan, world, unit, uses, draws);
    } else {
        for _ in 0..uses {
            one_use(plan, world, unit, draws);
        }
    }
}

/// The fast path: from the starting layout, placements are the precomputed spots, so a use is
/// one draw and a `min`. Draws exactly what [`one_use`] draws.
fn from_start<'p, D: Draws<'p>>(
    plan: &'p Plan,
    world: &mut World,
    unit: usize,
    uses: u32,
    draws: &mut D,
) {
    let prepared = plan.rally(unit);
    let Some(resolve) = &prepared.resolve else {
        return;
    };
    let size = plan.scenario().units[unit].size;
    let start = world.units[unit].alive;
    let successes = draws.count(resolve.get(size - start));
    let first = successes.min(prepared.first(plan.scenario()).len() as u32);
    let mut second = 0;
    if uses == 2 {
        let successes = draws.count(resolve.get(size - start - first));
        let after = prepared.second(plan.scenario(), first as usize);
        second = successes.min(after.len() as u32);
    }
    let restored = first + second;
    if restored > 0 {
        let state = &mut world.units[unit];
        state.alive += restored;
        state.restored += restored;
        world.rallied_from_start(unit, first, second);
    }
}

/// One use of Rally on any layout.
fn one_use<'p, D: Draws<'p>>(plan: &'p Plan, world: &mut World, unit: usize, draws: &mut D) {
    let u = &plan.scenario().units[unit];
    let Some(resolve) = &plan.rally(unit).resolve else {
        return;
    };
    let missing = u.size - world.units[unit].alive;
    let successes = draws.count(resolve.get(missing));
    if successes == 0 {
        return;
    }
    world.gather_bases(plan, unit);
    let around = Surroundings {
        field: &plan.scenario().battlefield,
        bases: &world.bases,
        enemies: &world.enemies,
    };
    let chain = plan.scenario().options.rally_chain;
    placement::place_into(
        &around,
        &mut world.anchors,
        u.radius(),
        successes as usize,
        chain,
        &mut world.placed,
    );
    if world.placed.is_empty() {
        return;
    }
    let restored = world.placed.len() as u32;
    // Taken out and put back so the buffer outlives the borrow of the models, unallocated.
    let placed = std::mem::take(&mut world.placed);
    world.models_mut(plan)[unit].extend(placed.iter().map(|&centre| Model { centre, hp: u.hp }));
    world.placed = placed;
    let state = &mut world.units[unit];
    state.alive += restored;
    state.restored += restored;
}

/// Every model's base at the start, and those of `unit`'s enemies.
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

/// Where a Rally use puts its models when the unit has its starting models plus `placed`.
fn spots(scenario: &Scenario, unit: usize, placed: &[Point]) -> Vec<Point> {
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
