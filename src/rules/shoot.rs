//! Shoot: every alive model makes its attacks; each hit forces one defense test; each failed
//! test deals the weapon's damage to one model of the target, a damaged model first, else
//! the one nearest the shooter. Damage beyond a model's HP is lost unless `options.spill`.
//!
//! Failed defense tests are one draw of a success count (one random word): a hit whose test
//! fails is a success of probability p_hit * (1 - p_save), so hits need not be drawn apart.

use super::geometry::EPS;
use super::plan::{Plan, SAVE_DEFENDING, SAVE_NORMAL};
use super::world::World;
use crate::engine::Draws;

/// Whether `target` can be shot by `shooter` now: it has models and is in range.
pub fn target_legal(plan: &Plan, world: &mut World, shooter: usize, target: Option<usize>) -> bool {
    match target {
        Some(t) => world.units[t].alive > 0 && in_range(plan, world, shooter, t),
        None => false,
    }
}

/// Whether some model of `unit` is within its weapon's range of some model of `other`.
pub fn in_range(plan: &Plan, world: &mut World, unit: usize, other: usize) -> bool {
    let Some(weapon) = &plan.scenario().units[unit].weapon else {
        return false;
    };
    world.materialize(plan);
    world.unit_distance(plan, unit, other) <= weapon.range + EPS
}

/// With `options.masters.retarget`: the nearest enemy unit that can be shot (ties: the first
/// in file order).
pub fn retarget(plan: &Plan, world: &mut World, shooter: usize) -> Option<usize> {
    let side = &plan.scenario().units[shooter].side;
    let mut best: Option<(f64, usize)> = None;
    for (i, u) in plan.scenario().units.iter().enumerate() {
        if &u.side == side || !target_legal(plan, world, shooter, Some(i)) {
            continue;
        }
        let d = world.unit_distance(plan, shooter, i);
        if best.is_none_or(|(b, _)| d < b - EPS) {
            best = Some((d, i));
        }
    }
    best.map(|(_, i)| i)
}

/// One use of Shoot (or one Covering Fire volley, `hit_kind` naming its hit modifier).
pub fn resolve<'p, D: Draws<'p>>(
    plan: &'p Plan,
    world: &mut World,
    shooter: usize,
    target: usize,
    hit_kind: usize,
    draws: &mut D,
) {
    let weapon = plan.scenario().units[shooter]
        .weapon
        .as_ref()
        .expect("validated: a shooting unit has a weapon");
    let attacks = world.units[shooter].alive * weapon.attacks;
    let save = if world.units[target].defending {
        SAVE_DEFENDING
    } else {
        SAVE_NORMAL
    };
    let unsaved = draws.count(plan.wound_count(shooter, hit_kind, target, save, attacks));
    for _ in 0..unsaved {
        if !wound(plan, world, shooter, target, weapon.damage) {
            break;
        }
    }
}

/// Deals one failed test's damage; false once the target has no model left.
fn wound(plan: &Plan, world: &mut World, shooter: usize, target: usize, damage: u32) -> bool {
    world.materialize(plan);
    world.pristine = false;
    let spill = plan.scenario().options.spill;
    let mut remaining = damage;
    while remaining > 0 {
        let Some(i) = victim(plan, world, shooter, target) else {
            return false;
        };
        let state = &mut world.units[target];
        let model = &mut state.models[i];
        let taken = remaining.min(model.hp);
        model.hp -= taken;
        remaining -= taken;
        state.damage_taken += taken;
        if model.hp == 0 {
            state.models.remove(i);
            state.alive -= 1;
            state.lost += 1;
        }
        if !spill {
            break;
        }
    }
    world.units[target].alive > 0
}

/// The model a wound goes to: a damaged model first, else the one nearest the shooter (to the
/// shooter's closest model; ties: the first in order). Bases within a unit are all alike, so
/// the nearest by edge distance is the nearest by centre distance, and squares will do.
fn victim(plan: &Plan, world: &World, shooter: usize, target: usize) -> Option<usize> {
    let full = plan.scenario().units[target].hp;
    let models = &world.units[target].models;
    if let Some(i) = models.iter().position(|m| m.hp < full) {
        return Some(i);
    }
    let shooters = &world.units[shooter].models;
    let mut best: Option<(f64, usize)> = None;
    for (i, m) in models.iter().enumerate() {
        let d = shooters
            .iter()
            .map(|s| m.centre.distance_squared(s.centre))
            .fold(f64::INFINITY, f64::min);
        if best.is_none_or(|(b, _)| d < b) {
            best = Some((d, i));
        }
    }
    best.map(|(_, i)| i)
}
