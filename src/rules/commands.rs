//! Declaring an order in a unit's normal activation, as a state transition: check that it may
//! be declared, open the response window, resolve its use (twice under Call of the Masters),
//! then apply token and restrictions once. A refused order hands back why and changes
//! nothing.
//!
//! The world is changed in place rather than returned anew: a trial plays millions of times
//! per second and must not allocate.

use super::plan::Plan;
use super::shoot::Hit;
use super::world::{Restrictions, World};
use super::{rally, response, run, shoot};
use crate::engine::Draws;
use crate::scenario::{Command, Heading, Order};

pub use super::outcome::{Ineligible, Resolved};

impl Command {
    /// The restrictions the command applies to its unit when it ends.
    pub const fn applies(self) -> Restrictions {
        match self {
            Command::Rally => rally::APPLIES,
            Command::Shoot => Restrictions::SHOOT,
            Command::Run => Restrictions::RUN,
        }
    }

    /// The restrictions that bar declaring the command: the ones it applies (Rally: any of
    /// its three, seed 003).
    pub const fn barred_by(self) -> Restrictions {
        self.applies()
    }
}

/// An order with its arguments settled at declaration: the unit a Shoot aims at.
#[derive(Clone, Copy)]
enum Aimed {
    Rally,
    Shoot(usize),
    Run(Heading),
}

/// Declares and resolves `order` in the normal activation of unit `actor` (a step's, or an
/// engagement's). A target rule ([`crate::scenario::Target::Nearest`], ...) is settled here,
/// once.
pub fn declare<'p, D: Draws<'p>>(
    plan: &'p Plan,
    world: &mut World,
    actor: usize,
    order: Order,
    draws: &mut D,
) -> Result<Resolved, Ineligible> {
    let command = order.command();
    let state = &world.units[actor];
    if state.alive == 0 {
        return Err(Ineligible::NoModelAlive);
    }
    if state.token {
        return Err(Ineligible::AlreadyCommanded);
    }
    if state.restrictions.intersects(command.barred_by()) {
        return Err(Ineligible::Restricted);
    }
    let aimed = match order {
        Order::Rally if rally::enemy_within_1(plan, world, actor) => {
            return Err(Ineligible::EnemyWithin1)
        }
        Order::Rally => Aimed::Rally,
        Order::Shoot { target } => Aimed::Shoot(shoot::aim(plan, world, actor, target)?),
        Order::Run { toward } => Aimed::Run(toward),
    };
    // Defend answers only for the unit the order aims at.
    let target = match aimed {
        Aimed::Shoot(t) => Some(t),
        Aimed::Rally | Aimed::Run(_) => None,
    };
    // Call of the Masters: two uses of one command, never for a responding command.
    let uses = if plan.scenario().units[actor].call_of_the_masters {
        2
    } else {
        1
    };
    // Only use 1 opens a response window; what is declared there lasts through use 2.
    let responses = response::window(plan, world, actor, target, draws);
    let mut outcome = Resolved {
        uses: 0,
        fizzled: 0,
        responses,
    };
    if world.units[actor].alive == 0 {
        // Wiped out by Covering Fire before resolving: the command does nothing.
        outcome.fizzled = uses;
    } else {
        match aimed {
            Aimed::Rally => {
                rally::resolve(plan, world, actor, uses, draws);
                outcome.uses = uses;
            }
            Aimed::Run(toward) => {
                for _ in 0..uses {
                    run::resolve(plan, world, actor, toward);
                }
                outcome.uses = uses;
            }
            Aimed::Shoot(mut target) => {
                for use_ in 0..uses {
                    if use_ > 0 && !shoot::target_legal(plan, world, actor, target) {
                        match shoot::retarget(plan, world, actor) {
                            Some(t) if plan.scenario().options.masters_retarget => target = t,
                            _ => {
                                outcome.fizzled += 1;
                                continue;
                            }
                        }
                    }
                    shoot::resolve(plan, world, actor, target, Hit::Normal, draws);
                    outcome.uses += 1;
                }
            }
        }
    }
    // Token and restrictions once, after the last use; responses end with the command.
    let state = &mut world.units[actor];
    state.token = true;
    state.restrictions = state.restrictions.union(command.applies());
    for u in &mut world.units {
        u.defending = false;
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_command_applies_and_is_barred_by_its_own_restrictions() {
        // Seed 003: Rally applies Shoot, Run and Defend restrictions, and any of them bars it;
        // Shoot and Run apply and are barred by their own only.
        let all = [Restrictions::SHOOT, Restrictions::RUN, Restrictions::DEFEND];
        for r in all {
            assert!(Command::Rally.applies().intersects(r));
            assert!(Command::Rally.barred_by().intersects(r));
        }
        for (command, own) in [
            (Command::Shoot, Restrictions::SHOOT),
            (Command::Run, Restrictions::RUN),
        ] {
            for r in all {
                assert_eq!(command.applies().intersects(r), r == own);
                assert_eq!(command.barred_by().intersects(r), r == own);
            }
        }
    }
}
