//! Shoot: every alive model makes its attacks; each hit forces one defense test; each failed
//! test deals the weapon's damage to one model of the target, a damaged model first, else
//! the one nearest the shooter. Damage beyond a model's HP is lost unless `options.spill`.
//!
//! Failed defense tests are one draw of a success count (one random word): a hit whose test
//! fails is a success of probability p_hit * (1 - p_save), so hits need not be drawn apart.
//! [`Prepared`] holds those tables per target, [`Hit`] and [`Save`] kind; `volley.rs` picks
//! the models the wounds go to.
//!
//! Attacks and damage given as dice are rolled die by die, one uniform draw per die: first
//! each alive model's attacks (their sum is the volley's attacks), then, per unsaved hit, its
//! damage, until the target has no model left. Fixed numbers draw nothing, so a weapon
//! without dice draws exactly its one success count per volley.

pub(crate) mod prepared;
mod volley;

pub use prepared::{Hit, Prepared, Save};

use super::outcome::Ineligible;
use super::plan::Plan;
use super::world::World;
use crate::dice::Amount;
use crate::engine::Draws;
use crate::geometry::EPS;
use crate::scenario::Target;
use volley::Volley;

/// The unit `target` names or picks, when `shooter` can shoot it now.
pub fn aim(
    plan: &Plan,
    world: &mut World,
    shooter: usize,
    target: Target,
) -> Result<usize, Ineligible> {
    match target {
        Target::Unit(t) if target_legal(plan, world, shooter, t) => Ok(t),
        Target::Unit(_) => Err(Ineligible::NoLegalTarget),
        Target::Nearest | Target::Weakest | Target::Strongest => {
            pick(plan, world, shooter, target).ok_or(Ineligible::NoLegalTarget)
        }
    }
}

/// The enemy unit a target rule picks among those `shooter` can shoot now: the nearest, or
/// the one with the fewest (`Weakest`) or most (`Strongest`) models on the table, ties to
/// the nearest, then to the first in file order. A distance is measured only when two units
/// tie on the rank, so a lone legal target costs none.
fn pick(plan: &Plan, world: &mut World, shooter: usize, rule: Target) -> Option<usize> {
    let side = &plan.scenario().units[shooter].side;
    // The best so far: its rank, its distance once measured, and its index.
    let mut best: Option<(u32, Option<f64>, usize)> = None;
    for (i, u) in plan.scenario().units.iter().enumerate() {
        if &u.side == side || !target_legal(plan, world, shooter, i) {
            continue;
        }
        let alive = world.units[i].alive;
        let rank = match rule {
            Target::Weakest => alive,
            Target::Strongest => u32::MAX - alive,
            Target::Nearest | Target::Unit(_) => 0,
        };
        best = match best {
            Some((r, b, j)) if rank == r => {
                let b = b.unwrap_or_else(|| world.unit_distance(plan, shooter, j));
                let d = world.unit_distance(plan, shooter, i);
                Some(if d < b - EPS {
                    (rank, Some(d), i)
                } else {
                    (r, Some(b), j)
                })
            }
            Some((r, b, j)) if rank > r => Some((r, b, j)),
            _ => Some((rank, None, i)),
        };
    }
    best.map(|(_, _, i)| i)
}

/// Whether `target` can be shot by `shooter` now: it has models and is in range.
pub fn target_legal(plan: &Plan, world: &mut World, shooter: usize, target: usize) -> bool {
    world.units[target].alive > 0 && in_range(plan, world, shooter, target)
}

/// Whether some model of `unit` is within its weapon's range of some model of `other`.
pub fn in_range(plan: &Plan, world: &mut World, unit: usize, other: usize) -> bool {
    let Some(prepared) = plan.shoot(unit) else {
        return false;
    };
    world.units_within(plan, unit, other, prepared.range)
}

/// With `options.masters.retarget`: the nearest enemy unit that can be shot (ties: the first
/// in file order), as the `nearest` target rule picks it.
pub fn retarget(plan: &Plan, world: &mut World, shooter: usize) -> Option<usize> {
    pick(plan, world, shooter, Target::Nearest)
}

/// One use of Shoot (or one Covering Fire volley, `hit` naming how it hits). An unarmed
/// shooter does nothing; no rule lets one shoot ([`in_range`] is false for it).
pub fn resolve<'p, D: Draws<'p>>(
    plan: &'p Plan,
    world: &mut World,
    shooter: usize,
    target: usize,
    hit: Hit,
    draws: &mut D,
) {
    let Some(prepared) = plan.shoot(shooter) else {
        return;
    };
    let alive = world.units[shooter].alive;
    let attacks = match prepared.attacks.fixed() {
        Some(each) => alive * each,
        None => (0..alive).map(|_| roll(&prepared.attacks, draws)).sum(),
    };
    let save = if world.units[target].defending {
        Save::Defending
    } else {
        Save::Normal
    };
    let unsaved = draws.count(prepared.wound_count(target, hit, save, attacks));
    if unsaved == 0 {
        return;
    }
    let mut volley = Volley::new(shooter, target);
    for _ in 0..unsaved {
        let damage = roll(&prepared.damage, draws);
        if !volley.wound(plan, world, damage) {
            break;
        }
    }
    volley.finish(plan, world);
}

/// One roll of `amount`: a fixed number draws nothing; dice draw one uniform face per die.
fn roll<'p, D: Draws<'p>>(amount: &Amount, draws: &mut D) -> u32 {
    match *amount {
        Amount::Fixed(n) => n,
        Amount::Dice { count, sides, .. } => {
            let faces = (0..count).map(|_| draws.uniform(sides) + 1).sum();
            amount.value(faces)
        }
    }
}
