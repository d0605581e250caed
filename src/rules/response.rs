//! The response window of a command declared in a normal activation: each enemy unit, in file
//! order, may answer according to its `response` key. Defend (only the command's target) adds
//! `options.defend.bonus` to its defense tests until the command has resolved; Covering Fire
//! shoots the acting unit at once at `options.covering_fire.hit_modifier`. A unit restricted
//! from a responding command cannot declare it; responses take no command token.

use super::plan::Plan;
use super::shoot::{self, Hit};
use super::world::{Restrictions, World};
use crate::engine::Draws;
use crate::scenario::Response;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Answer {
    Nothing,
    Defend,
    CoveringFire,
}

/// Opens the window of a command declared by `actor` (aimed at unit `target`, if any);
/// returns how many responses were declared.
pub fn window<'p, D: Draws<'p>>(
    plan: &'p Plan,
    world: &mut World,
    actor: usize,
    target: Option<usize>,
    draws: &mut D,
) -> u32 {
    let mut declared = 0;
    for r in 0..plan.scenario().units.len() {
        let unit = &plan.scenario().units[r];
        if unit.side == plan.scenario().units[actor].side
            || unit.response == Response::None
            || world.units[r].alive == 0
        {
            continue;
        }
        let restrictions = world.units[r].restrictions;
        let can_defend = target == Some(r) && !restrictions.intersects(Restrictions::DEFEND);
        let mut can_fire = || {
            unit.weapon.is_some()
                && !restrictions.intersects(Restrictions::SHOOT)
                && shoot::in_range(plan, world, r, actor)
        };
        let answer = match unit.response {
            Response::None => Answer::Nothing,
            Response::Defend if can_defend => Answer::Defend,
            Response::CoveringFire if can_fire() => Answer::CoveringFire,
            Response::Defend | Response::CoveringFire => Answer::Nothing,
            Response::Random => {
                // Uniform over what the unit may legally do, doing nothing included; a draw
                // only when there is a choice.
                let mut options = [Answer::Nothing; 3];
                let mut n = 1;
                if can_defend {
                    options[n] = Answer::Defend;
                    n += 1;
                }
                if can_fire() {
                    options[n] = Answer::CoveringFire;
                    n += 1;
                }
                if n > 1 {
                    options[draws.uniform(n as u32) as usize]
                } else {
                    Answer::Nothing
                }
            }
        };
        match answer {
            Answer::Nothing => {}
            Answer::Defend => {
                let state = &mut world.units[r];
                state.defending = true;
                state.restrictions = state.restrictions.union(Restrictions::DEFEND);
                declared += 1;
            }
            Answer::CoveringFire => {
                shoot::resolve(plan, world, r, actor, Hit::CoveringFire, draws);
                let state = &mut world.units[r];
                state.restrictions = state.restrictions.union(Restrictions::SHOOT);
                declared += 1;
            }
        }
    }
    declared
}
