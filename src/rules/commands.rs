//! Commands as state transitions: each takes the world and a random stream and either
//! resolves (reporting how many uses resolved) or hands back why it could not be declared.
//!
//! They change the world in place rather than returning a new one: a trial plays millions of
//! times per second and must not allocate. A refused command changes nothing.

use super::geometry::within;
use super::placement::{self, Surroundings};
use super::plan::Plan;
use super::world::{Layout, Model, Restrictions, World};
use rand::Rng;
use std::fmt;

/// Why a command could not be declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ineligible {
    NoModelAlive,
    /// The unit already has a command token this round.
    AlreadyCommanded,
    /// The unit has a restriction that bars this command.
    Restricted,
    EnemyWithin1,
}

impl fmt::Display for Ineligible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ineligible::NoModelAlive => "the unit has no model alive",
            Ineligible::AlreadyCommanded => "the unit already took a command this round",
            Ineligible::Restricted => "the unit has a restriction this command applies",
            Ineligible::EnemyWithin1 => "a model of the unit is within 1\" of an enemy model",
        })
    }
}

/// A command that resolved: how many uses resolved and how many fizzled (Call of the Masters
/// gives two uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    pub uses: u32,
    pub fizzled: u32,
}

/// Rally applies these when it ends, and any of them already on the unit bars it.
const RALLY_RESTRICTIONS: Restrictions = Restrictions::SHOOT
    .union(Restrictions::RUN)
    .union(Restrictions::DEFEND);

/// Rally (seed 003), doubled by Call of the Masters (seed 000): one Resolve test per missing
/// model, each success restoring a model within 2" of a model alive when the use began.
pub fn rally<R: Rng>(
    plan: &Plan,
    world: &mut World,
    unit: usize,
    rng: &mut R,
) -> Result<Resolved, Ineligible> {
    let state = &world.units[unit];
    if state.alive == 0 {
        return Err(Ineligible::NoModelAlive);
    }
    if state.token {
        return Err(Ineligible::AlreadyCommanded);
    }
    if state.restrictions.intersects(RALLY_RESTRICTIONS) {
        return Err(Ineligible::Restricted);
    }
    if enemy_within_1(plan, world, unit) {
        return Err(Ineligible::EnemyWithin1);
    }
    let uses = if plan.scenario().units[unit].call_of_the_masters {
        2
    } else {
        1
    };
    if world.pristine && plan.fast_paths() {
        rally_from_start(plan, world, unit, uses, rng);
    } else {
        for _ in 0..uses {
            rally_use(plan, world, unit, rng);
        }
    }
    // Call of the Masters: token and restrictions once, after the last use.
    let state = &mut world.units[unit];
    state.token = true;
    state.restrictions = state.restrictions.union(RALLY_RESTRICTIONS);
    Ok(Resolved { uses, fizzled: 0 })
}

fn enemy_within_1(plan: &Plan, world: &mut World, unit: usize) -> bool {
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

/// The fast path: from the starting layout, placements are the precomputed spots, so a use is
/// one draw and a `min`. Draws exactly what [`rally_use`] draws.
fn rally_from_start<R: Rng>(plan: &Plan, world: &mut World, unit: usize, uses: u32, rng: &mut R) {
    let size = plan.scenario().units[unit].size;
    let start = world.units[unit].alive;
    let spots = plan.rally_spots(unit);
    let successes = plan.resolve_count(unit, size - start).sample(rng);
    let first = successes.min(spots.first().len() as u32);
    let mut second = 0;
    if uses == 2 {
        let successes = plan.resolve_count(unit, size - start - first).sample(rng);
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
fn rally_use<R: Rng>(plan: &Plan, world: &mut World, unit: usize, rng: &mut R) {
    let u = &plan.scenario().units[unit];
    let missing = u.size - world.units[unit].alive;
    let successes = plan.resolve_count(unit, missing).sample(rng);
    if successes == 0 {
        return;
    }
    world.materialize(plan);
    world.gather_bases(plan, unit);
    let anchors: Vec<_> = world.units[unit].models.iter().map(|m| m.centre).collect();
    let around = Surroundings {
        field: &plan.scenario().battlefield,
        bases: &world.bases,
        enemies: &world.enemies,
    };
    let placed = placement::place(
        &around,
        &anchors,
        u.radius(),
        successes as usize,
        plan.scenario().options.rally_chain,
    );
    if placed.is_empty() {
        return;
    }
    let state = &mut world.units[unit];
    state
        .models
        .extend(placed.iter().map(|&centre| Model { centre, hp: u.hp }));
    state.alive += placed.len() as u32;
    state.restored += placed.len() as u32;
    world.pristine = false;
}
