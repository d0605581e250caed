//! Engagements: rounds in which the sides take turns activating one unit each, every unit
//! taking the first of its orders whose condition holds and whose command can be declared.
//!
//! [`Prepared`] is what the plan works out once: the [`Schedule`] (who activates next) and
//! where each metric of the arm goes; [`play`] plays one engagement into them. A condition is
//! answered by [`Activation`], the [`Situation`] of the activated unit in the trial's
//! [`World`]. Orders are declared through [`commands::declare`], exactly as steps are, so
//! tokens, restrictions, response windows and Call of the Masters behave the same. A `best`
//! order declares the option the plan's [`Policy`] advises at the [`Moment`] of the
//! activation.

pub mod policy;
pub(crate) mod prepared;
pub mod rollout;
pub mod schedule;

pub use policy::{Moment, Policy, UnitKey};
pub use prepared::Prepared;
pub use schedule::Schedule;

use super::commands;
use super::plan::Plan;
use super::shoot;
use super::world::Restrictions;
use super::world::{UnitState, World};
use crate::condition::Situation;
use crate::engine::Draws;
use crate::metrics::{EngagementMetrics, SideMetrics, UnitMetrics};
use crate::scenario::{Command, Engagement, Given};
use schedule::{FirstSide, Next};

/// A rollout's first decision, not yet taken: the first time one of `unit`'s `best` orders
/// applies, it declares `command` when it can (and the first option it can otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Forced {
    pub unit: usize,
    pub command: Command,
}

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
    play_forcing(plan, engagement, prepared, world, draws, out, &mut None);
}

/// [`play`], with `forced` taken at its unit's first `best` decision (then cleared).
pub fn play_forcing<'p, D: Draws<'p>>(
    plan: &'p Plan,
    engagement: &'p Engagement,
    prepared: &Prepared,
    world: &mut World,
    draws: &mut D,
    out: &mut [i64],
    forced: &mut Option<Forced>,
) {
    let out = &mut out[..prepared.len];
    world.reset(plan, 1);
    out.fill(0);
    let mut round = 1;
    let rounds = loop {
        let over = prepared.schedule.over_before(round, on_table(&world.units));
        write_rounds(prepared, world, round - 1, over, out);
        if over {
            break round - 1;
        }
        draws.at_round(round - 1);
        world.start_round(round);
        if play_round(plan, engagement, prepared, world, draws, out, forced) == Played::Decided {
            write_rounds(prepared, world, round, true, out);
            break round;
        }
        round += 1;
    };
    write_ends(prepared, world, rounds, out);
}

/// Records the world as it stands at the end of round `round` (0: before the first), and,
/// once the engagement is `over`, for every later round too: an ended engagement keeps its
/// last values.
fn write_rounds(prepared: &Prepared, world: &World, round: u32, over: bool, out: &mut [i64]) {
    let len = prepared.round_len;
    let at = prepared.rounds_at + round as usize * len;
    let row = &mut out[at..at + len];
    let (alive, rest) = row.split_at_mut(world.units.len());
    for (slot, unit) in alive.iter_mut().zip(&world.units) {
        *slot = i64::from(unit.alive);
    }
    let (won, over_slot) = rest.split_at_mut(rest.len() - 1);
    let winner = prepared.schedule.winner(on_table(&world.units));
    for (side, slot) in won.iter_mut().enumerate() {
        *slot = i64::from(winner == Some(side));
    }
    over_slot[0] = i64::from(over);
    if over {
        let end = prepared.rounds_at + (prepared.rounds as usize + 1) * len;
        for later in (at + len..end).step_by(len) {
            out.copy_within(at..at + len, later);
        }
    }
}

/// Whether a unit has a model on the table, as the schedule asks it.
fn on_table(units: &[UnitState]) -> impl Fn(usize) -> bool + '_ {
    move |u| units[u].alive > 0
}

/// How a round ended.
#[derive(PartialEq)]
enum Played {
    /// Every side passed.
    Through,
    /// An activation decided the engagement.
    Decided,
}

/// Plays the world's round: the first side (drawn when the schedule says so), then every
/// activation in the schedule's order.
fn play_round<'p, D: Draws<'p>>(
    plan: &'p Plan,
    engagement: &'p Engagement,
    prepared: &Prepared,
    world: &mut World,
    draws: &mut D,
    out: &mut [i64],
    forced: &mut Option<Forced>,
) -> Played {
    let schedule = &prepared.schedule;
    let first = match schedule.first_side(world.round) {
        FirstSide::Known(side) => side,
        FirstSide::Drawn(sides) => draws.uniform(sides) as usize,
    };
    schedule.reopen(&mut world.turns, first);
    loop {
        match schedule.next(&mut world.turns, on_table(&world.units)) {
            Next::Activate { side, unit } => {
                // Ctrl-C: the engine drops this chunk, so a trial cut short is never counted.
                if crate::engine::interrupted() {
                    return Played::Decided;
                }
                // The rest of the engagement depends on the round, whose turn it is, where
                // each side's cursor stands, the world, and the counts written so far.
                draws.at_state(|key| {
                    key.extend([u64::from(world.round), side as u64]);
                    key.extend(world.turns.cursors().iter().map(|&c| c as u64));
                    world.state_key(key);
                    // Not the rounds' records: the engine counts them where trials pass, so
                    // trials that reach a state by different rounds still go on as one.
                    key.extend(out[..prepared.keyed].iter().map(|&v| v as u64));
                });
                let at = At { unit, forced };
                activate(plan, engagement, prepared, world, at, draws, out);
                if schedule.decided(on_table(&world.units)) {
                    return Played::Decided;
                }
            }
            Next::Pass => {}
            Next::RoundOver => return Played::Through,
        }
    }
}

/// Writes what the engagement's end determines: each unit's row, each side's (won), and the
/// engagement's (`rounds` begun).
fn write_ends(prepared: &Prepared, world: &World, rounds: u32, out: &mut [i64]) {
    for (state, slot) in world
        .units
        .iter()
        .zip(out[..prepared.sides_at].chunks_exact_mut(UnitMetrics::LEN))
    {
        state.metrics().write(slot);
    }
    let winner = prepared.schedule.winner(on_table(&world.units));
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

/// The unit activated, and a rollout's first decision still to take.
struct At<'f> {
    unit: usize,
    forced: &'f mut Option<Forced>,
}

/// One activation of `unit`: the first of its orders whose condition holds and which can be
/// declared is declared; with none, the unit does nothing.
fn activate<'p, D: Draws<'p>>(
    plan: &'p Plan,
    engagement: &'p Engagement,
    prepared: &Prepared,
    world: &mut World,
    at: At<'_>,
    draws: &mut D,
    out: &mut [i64],
) {
    let unit = at.unit;
    for (i, given) in engagement.orders[unit].iter().enumerate() {
        if let Some(when) = &given.when {
            let mut situation = Activation { plan, world, unit };
            if !when.holds(&mut situation) {
                continue;
            }
        }
        let options = given.order.options();
        // The advised option first; the rest, in `among` order, only play without advice.
        let forcing = match (&given.order, *at.forced) {
            (Given::Best(_), Some(f)) if f.unit == unit => Some(f.command),
            _ => None,
        };
        let advised = match (&given.order, forcing) {
            (Given::Best(_), Some(c)) => options.iter().position(|o| o.command() == c),
            (Given::Best(_), None) => plan.policy().and_then(|p| {
                let moment = moment(plan, prepared, world, unit);
                p.option(&moment, i)
            }),
            (Given::Order(_), _) => None,
        };
        for k in advised.into_iter().chain(0..options.len()) {
            let order = options[k];
            if commands::declare(plan, world, unit, order, draws).is_ok() {
                if forcing.is_some() {
                    *at.forced = None;
                }
                if let Some(slot) = prepared.declared[unit][order.command().index()] {
                    out[slot] += 1;
                }
                return;
            }
        }
    }
}

/// The moment of `unit`'s activation, as the advice keys it (the world's turns already past
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
        cursors: prepared
            .schedule
            .remaining(world.turns.cursors(), on_table(&world.units)),
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
