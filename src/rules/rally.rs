//! Rally (seed 003): one Resolve test per missing model; each success restores a model within
//! 2" of a model alive when the use began. Doubled by Call of the Masters, use 2 sees the
//! models use 1 restored.

use super::geometry::within;
use super::placement::{self, Surroundings};
use super::plan::Plan;
use super::world::{Layout, Model, World};
use crate::engine::Draws;

/// Whether any model of `unit` is within 1" of an enemy model.
pub fn enemy_within_1(plan: &Plan, world: &mut World, unit: usize) -> bool {
    if world.pristine && plan.fast_paths() {
        return plan.enemy_within_1_at_start(unit);
    }
    world.materialize(plan);
    world.gather_bases(plan, unit);
    let r = plan.scenario().units[unit].radius();
    world.units[unit].models.iter().any(|m| {
        world
            .enemies
            .iter()
            .any(|e| within(m.centre, r, e.centre, e.radius, 1.0))
    })
}

/// Resolves `uses` uses of Rally.
pub fn resolve<'p, D: Draws<'p>>(
    plan: &'p Plan,
    world: &mut World,
    unit: usize,
    uses: u32,
    draws: &mut D,
) {
    if world.pristine && plan.fast_paths() {
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
    let size = plan.scenario().units[unit].size;
    let start = world.units[unit].alive;
    let spots = plan.rally_spots(unit);
    let successes = draws.count(plan.resolve_count(unit, size - start));
    let first = successes.min(spots.first().len() as u32);
    let mut second = 0;
    if uses == 2 {
        let successes = draws.count(plan.resolve_count(unit, size - start - first));
        let after = plan.second_rally_spots(unit, first as usize);
        second = successes.min(after.len() as u32);
    }
    let restored = first + second;
    if restored > 0 {
        let state = &mut world.units[unit];
        state.alive += restored;
        state.restored += restored;
        state.layout = Layout::Rallied { first, second };
        world.pristine = false;
    }
}

/// One use of Rally on any layout.
fn one_use<'p, D: Draws<'p>>(plan: &'p Plan, world: &mut World, unit: usize, draws: &mut D) {
    let u = &plan.scenario().units[unit];
    let missing = u.size - world.units[unit].alive;
    let successes = draws.count(plan.resolve_count(unit, missing));
    if successes == 0 {
        return;
    }
    world.materialize(plan);
    world.gather_bases(plan, unit);
    let World {
        units,
        bases,
        enemies,
        anchors,
        placed,
        ..
    } = world;
    anchors.clear();
    anchors.extend(units[unit].models.iter().map(|m| m.centre));
    let around = Surroundings {
        field: &plan.scenario().battlefield,
        bases,
        enemies,
    };
    let chain = plan.scenario().options.rally_chain;
    placement::place_into(
        &around,
        anchors,
        u.radius(),
        successes as usize,
        chain,
        placed,
    );
    if placed.is_empty() {
        return;
    }
    let state = &mut units[unit];
    state
        .models
        .extend(placed.iter().map(|&centre| Model { centre, hp: u.hp }));
    state.alive += placed.len() as u32;
    state.restored += placed.len() as u32;
    world.pristine = false;
}
