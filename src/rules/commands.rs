//! Declaring a command in a unit's normal activation, as a state transition: check that it may
//! be declared, open the response window, resolve its use (twice under Call of the Masters),
//! then apply token and restrictions once. A refused command hands back why and changes
//! nothing.
//!
//! The world is changed in place rather than returned anew: a trial plays millions of times
//! per second and must not allocate.

use super::plan::Plan;
use super::world::{Restrictions, World};
use super::{movement, rally, response, shoot};
use crate::engine::Draws;
use crate::scenario::{Command, Step};
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
    /// The target is destroyed or out of range.
    NoLegalTarget,
}

impl fmt::Display for Ineligible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ineligible::NoModelAlive => "the unit has no model alive",
            Ineligible::AlreadyCommanded => "the unit already took a command this round",
            Ineligible::Restricted => "the unit has a restriction that bars this command",
            Ineligible::EnemyWithin1 => "a model of the unit is within 1\" of an enemy model",
            Ineligible::NoLegalTarget => "the target is destroyed or out of range",
        })
    }
}

/// A declared command: how many uses resolved, how many fizzled (did nothing because the
/// target, or the acting unit itself, was gone), and how many responses it drew.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Resolved {
    pub uses: u32,
    pub fizzled: u32,
    pub responses: u32,
}

/// The restrictions a command applies to its unit when it ends.
pub fn applies(command: Command) -> Restrictions {
    match command {
        Command::Rally => Restrictions::ALL,
        Command::Shoot => Restrictions::SHOOT,
        Command::Run => Restrictions::RUN,
    }
}

/// The restrictions that bar declaring a command: the one it applies (Rally: any of its
/// three, seed 003).
pub fn barred_by(command: Command) -> Restrictions {
    applies(command)
}

/// Declares and resolves `step` in the acting unit's normal activation.
pub fn declare<'p, D: Draws<'p>>(
    plan: &'p Plan,
    world: &mut World,
    step: &Step,
    draws: &mut D,
) -> Result<Resolved, Ineligible> {
    let actor = step.unit;
    let state = &world.units[actor];
    if state.alive == 0 {
        return Err(Ineligible::NoModelAlive);
    }
    if state.token {
        return Err(Ineligible::AlreadyCommanded);
    }
    if state.restrictions.intersects(barred_by(step.command)) {
        return Err(Ineligible::Restricted);
    }
    match step.command {
        Command::Rally if rally::enemy_within_1(plan, world, actor) => {
            return Err(Ineligible::EnemyWithin1)
        }
        Command::Shoot if !shoot::target_legal(plan, world, actor, step.target) => {
            return Err(Ineligible::NoLegalTarget)
        }
        _ => {}
    }
    // Call of the Masters: two uses of one command, never for a responding command.
    let uses = if plan.scenario().units[actor].call_of_the_masters {
        2
    } else {
        1
    };
    // Only use 1 opens a response window; what is declared there lasts through use 2.
    let responses = response::window(plan, world, step, draws);
    let mut outcome = Resolved {
        uses: 0,
        fizzled: 0,
        responses,
    };
    if world.units[actor].alive == 0 {
        // Wiped out by Covering Fire before resolving: the command does nothing.
        outcome.fizzled = uses;
    } else {
        match step.command {
            Command::Rally => {
                rally::resolve(plan, world, actor, uses, draws);
                outcome.uses = uses;
            }
            Command::Run => {
                for _ in 0..uses {
                    movement::run(plan, world, actor, step.toward);
                }
                outcome.uses = uses;
            }
            Command::Shoot => {
                let mut target = step.target.expect("validated: shoot has a target");
                for use_ in 0..uses {
                    if use_ > 0 && !shoot::target_legal(plan, world, actor, Some(target)) {
                        match shoot::retarget(plan, world, actor) {
                            Some(t) if plan.scenario().options.masters_retarget => target = t,
                            _ => {
                                outcome.fizzled += 1;
                                continue;
                            }
                        }
                    }
                    shoot::resolve(plan, world, actor, target, 0, draws);
                    outcome.uses += 1;
                }
            }
        }
    }
    // Token and restrictions once, after the last use; responses end with the command.
    let state = &mut world.units[actor];
    state.token = true;
    state.restrictions = state.restrictions.union(applies(step.command));
    for u in &mut world.units {
        u.defending = false;
    }
    Ok(outcome)
}
