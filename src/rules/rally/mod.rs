//! Rally (seed 003): one Resolve test per missing model; each success restores a model within
//! 2" of a model alive when the use began. Doubled by Call of the Masters, use 2 sees the
//! models use 1 restored.
//!
//! [`Prepared`] holds what Rally works out before any trial: the Resolve tables (for a unit
//! that has a Resolve test; only such a unit may Rally), whether an
//! enemy starts within 1", and where Rally from the starting layout places models.

pub(crate) mod prepared;

pub use prepared::Prepared;

use super::placement::{self, Surroundings};
use super::plan::Plan;
use super::world::{Restrictions, World};
use crate::engine::Draws;

/// The restrictions Rally applies, and any of which bars it (seed 003): named one by one, so
/// a new restriction does not join them unasked.
pub const APPLIES: Restrictions = Restrictions::SHOOT
    .union(Restrictions::RUN)
    .union(Restrictions::DEFEND);

/// Whether any model of `unit` is within 1" of an enemy model.
pub fn enemy_within_1(plan: &Plan, world: &mut World, unit: usize) -> bool {
    if world.pristine() && plan.fast_paths() {
        return plan.rally(unit).enemy_within_1_at_start;
    }
    world.enemy_within(plan, unit, 1.0)
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
    if !world.remembered_spots(plan, unit, successes as usize) {
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
    }
    if world.placed.is_empty() {
        return;
    }
    let restored = world.placed.len() as u32;
    world.restore_placed(plan, unit);
    let state = &mut world.units[unit];
    state.alive += restored;
    state.restored += restored;
}
