//! Engagements: rounds in which the sides take turns activating one unit each, every unit
//! taking the first of its orders whose condition holds and whose command can be declared.
//!
//! [`Prepared`] is what the plan works out once: each side's units and where each metric of
//! the arm goes; [`play`] plays one engagement into them. A condition is answered by
//! [`Activation`], the [`Situation`] of the activated unit in the trial's [`World`]. Orders
//! are declared through [`commands::declare`], exactly as steps are, so tokens, restrictions,
//! response windows and Call of the Masters behave the same. A `best` order declares the
//! option the plan's [`Policy`] advises at the [`Moment`] of the activation.

pub mod policy;
pub(crate) mod prepared;

pub use policy::{Moment, Policy, UnitKey};
pub use prepared::Prepared;

use super::commands;
use super::plan::Plan;
use super::shoot;
use super::world::Restrictions;
use super::world::World;
use crate::condition::Situation;
use crate::engine::Draws;
use crate::metrics::{EngagementMetrics, SideMetrics, UnitMetrics};
use crate::scenario::{Engagement, First, Given, Until};

/// Plays one engagement from the starting state, writing the arm's metrics into the start of
/// `out` (laid out as [`Engagement::metric_names`] lists them).
pub fn play<'p, D: Draws<'p>>(
    plan: &'p Plan,
    engagement: &'p Engagement,
    prepared: &Prepared,
    world: &mut World,
    draws: &mut D,
    out: &mut [i64],
) {
    let out = &mut out[..prepared.len];
    world.reset(plan, 1);
    out.fill(0);
    let sides = engagement.sides.len();
    let ends = |world: &World| {
        engagement.until == Until::Destroyed && sides_on_table(engagement, world).nth(1).is_none()
    };
    let mut rounds = 0;
    'rounds: for round in 1..=engagement.rounds {
        if ends(world) {
            break;
        }
        world.start_round(round);
        rounds = round;
        let mut turn = match engagement.first {
            First::Side(s) => s,
            First::Alternate => (round as usize - 1) % sides,
            // A draw only when there is a choice.
            First::Random if sides > 1 => draws.uniform(sides as u32) as usize,
            First::Random => 0,
        };
        world.cursors.clear();
        world.cursors.resize(sides, 0);
        // Sides in a row with no unit left to activate; the round ends when all are.
        let mut idle = 0;
        while idle < sides {
            let units = &prepared.side_units[turn];
            let mut next = world.cursors[turn];
            while next < units.len() && world.units[units[next]].alive == 0 {
                next += 1;
            }
            if next < units.len() {
                world.cursors[turn] = next + 1;
                // The rest of the engagement depends on the round, whose turn it is, where
                // each side's cursor stands, the world, and the counts written so far.
                draws.at_state(|key| {
                    key.extend([u64::from(round), turn as u64]);
                    key.extend(world.cursors.iter().map(|&c| c as u64));
                    world.state_key(key);
                    key.extend(out.iter().map(|&v| v as u64));
                });
                activate(plan, engagement, prepared, world, units[next], draws, out);
                idle = 0;
                if ends(world) {
                    break 'rounds;
                }
            } else {
                world.cursors[turn] = next;
                idle += 1;
            }
            turn = (turn + 1) % sides;
        }
    }
    for (state, slot) in world
        .units
        .iter()
        .zip(out[..prepared.sides_at].chunks_exact_mut(UnitMetrics::LEN))
    {
        state.metrics().write(slot);
    }
    let mut standing = sides_on_table(engagement, world);
    let winner = match (standing.next(), standing.next()) {
        (Some(s), None) => Some(s),
        _ => None,
    };
    for (s, slot) in out[prepared.sides_at..prepared.engagement_at]
        .chunks_exact_mut(SideMetrics::LEN)
        .enumerate()
    {
        SideMetrics {
            won: i64::from(winner == Some(s)),
        }
        .write(slot);
    }
    EngagementMetrics {
        rounds: i64::from(rounds),
    }
    .write(&mut out[prepared.engagement_at..prepared.engagement_at + EngagementMetrics::LEN]);
}

/// The sides that have a model on the table, in order.
fn sides_on_table<'a>(
    engagement: &'a Engagement,
    world: &'a World,
) -> impl Iterator<Item = usize> + 'a {
    (0..engagement.sides.len()).filter(move |&s| {
        engagement
            .side_of
            .iter()
            .zip(&world.units)
            .any(|(&side, u)| side == s && u.alive > 0)
    })
}

/// One activation of `unit`: the first of its orders whose condition holds and which can be
/// declared is declared; with none, the unit does nothing.
fn activate<'p, D: Draws<'p>>(
    plan: &'p Plan,
    engagement: &'p Engagement,
    prepared: &Prepared,
    world: &mut World,
    unit: usize,
    draws: &mut D,
    out: &mut [i64],
) {
    for (i, given) in engagement.orders[unit].iter().enumerate() {
        if let Some(when) = &given.when {
            let mut situation = Activation { plan, world, unit };
            if !when.holds(&mut situation) {
                continue;
            }
        }
        let options = given.order.options();
        // The advised option first; the rest, in `among` order, only play without advice.
        let advised = match &given.order {
            Given::Best(_) => plan.policy().and_then(|p| {
                let moment = moment(plan, prepared, world, unit);
                p.option(&moment, i)
            }),
            Given::Order(_) => None,
        };
        for k in advised.into_iter().chain(0..options.len()) {
            let order = options[k];
            if commands::declare(plan, world, unit, order, draws).is_ok() {
                if let Some(slot) = prepared.declared[unit][order.command().index()] {
                    out[slot] += 1;
                }
                return;
            }
        }
    }
}

/// The moment of `unit`'s activation, as the advice keys it (the world's cursors already past
/// the unit).
fn moment(plan: &Plan, prepared: &Prepared, world: &mut World, unit: usize) -> Moment {
    let full: Vec<u32> = plan.scenario().units.iter().map(|u| u.hp).collect();
    // Only models of more than one HP can be left damaged: otherwise no model is looked at.
    let wounds: Vec<u32> = if world.pristine() || full.iter().all(|&hp| hp == 1) {
        vec![0; full.len()]
    } else {
        world
            .models(plan)
            .iter()
            .zip(&full)
            .map(|(models, &hp)| models.iter().find(|m| m.hp < hp).map_or(0, |m| hp - m.hp))
            .collect()
    };
    let units = world
        .units
        .iter()
        .zip(wounds)
        .map(|(u, wound)| UnitKey {
            alive: u.alive,
            restored: u.restored,
            lost: u.lost,
            damage_taken: u.damage_taken,
            wound,
            restricted: [Restrictions::SHOOT, Restrictions::RUN, Restrictions::DEFEND]
                .map(|r| u.restrictions.intersects(r)),
            token: u.token,
        })
        .collect();
    Moment {
        round: world.round,
        unit,
        cursors: policy::still_to_activate(&prepared.side_units, &world.cursors, |u| {
            world.units[u].alive > 0
        }),
        units,
    }
}

/// What a condition sees: the activated unit in the trial's world.
pub struct Activation<'a> {
    pub plan: &'a Plan,
    pub world: &'a mut World,
    pub unit: usize,
}

impl Situation for Activation<'_> {
    fn alive(&mut self) -> u32 {
        self.world.units[self.unit].alive
    }

    fn size(&mut self) -> u32 {
        self.plan.scenario().units[self.unit].size
    }

    fn round(&mut self) -> u32 {
        self.world.round
    }

    fn damaged(&mut self) -> u32 {
        if self.world.pristine() {
            return 0;
        }
        let full = self.plan.scenario().units[self.unit].hp;
        self.world.models(self.plan)[self.unit]
            .iter()
            .find(|m| m.hp < full)
            .map_or(0, |m| full - m.hp)
    }

    fn enemy_within(&mut self, inches: f64) -> bool {
        self.world.enemy_within(self.plan, self.unit, inches)
    }

    fn in_range(&mut self) -> bool {
        let units = &self.plan.scenario().units;
        (0..units.len()).any(|v| {
            units[v].side != units[self.unit].side
                && shoot::target_legal(self.plan, self.world, self.unit, v)
        })
    }
}
