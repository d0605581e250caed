//! Engagements as a dynamic programme: the driver of `rules::engagement` restated over
//! distributions of [`Config`]s, each the units' [`State`] plus where the engagement stands
//! (round, whose turn, per side the next unit to consider, how many sides in a row had none
//! left) and what its metrics have counted so far (per unit and command, the declarations).
//!
//! Which order a unit takes is a function of the state: counts decide `alive`, `missing`,
//! `size`, `round` and `damaged`; `enemy_within(D)`, `in_range`, the target rules and Rally's
//! 1" rule are measured on the state's layouts through the same `Ctx` the steps use. A `best` order takes the option the
//! advice gives for the [`Moment`] of the activation. Every move of the driver takes a
//! configuration strictly later in (round, stage, activations begun, idle sides), and the
//! work list is ordered by that first, so a configuration is expanded only once every path
//! into it has been merged.

use super::commands::{Ctx, Followed, Refused};
use super::state::{add, Dist, State, UnitState, DEFEND, RUN, SHOOT};
use super::MAX_STATES;
use crate::condition::Situation;
use crate::rules::engagement::policy::still_to_activate;
use crate::rules::engagement::{Moment, Policy, UnitKey};
use crate::scenario::{Engagement, First, Given, Until};

/// Why an engagement cannot be computed exactly, with the unit and the index of its order
/// when one is to blame.
pub struct Why {
    pub order: Option<(usize, usize)>,
    pub reason: Refused,
}

impl From<Refused> for Why {
    fn from(reason: Refused) -> Why {
        Why {
            order: None,
            reason,
        }
    }
}

/// Where the engagement stands in a round.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    /// Before round `round`: the `until` check, then the first side.
    Before,
    /// In round `round`: `begun` activations so far, `idle` sides in a row with no unit
    /// left, `turn` the side to move, `cursors` per side the next unit to consider.
    In {
        begun: u32,
        idle: usize,
        turn: usize,
        cursors: Vec<usize>,
    },
}

/// One configuration of the engagement. Field order is the expansion order (see the module
/// doc): round first, then stage.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Config {
    round: u32,
    stage: Stage,
    state: State,
    /// Per unit and `Command::index`, declarations so far.
    declared: Vec<[u32; 3]>,
}

/// An engagement over: the units, the declarations and the rounds begun.
type Ended = (State, Vec<[u32; 3]>, u32);

/// The final distribution of an engagement: per end, its probability.
/// `policy` says what `best` orders take; a `best` order it does not cover is refused.
pub fn play(
    ctx: &mut Ctx<'_>,
    e: &Engagement,
    policy: Option<&Policy>,
) -> Result<Dist<Ended>, Why> {
    let scenario = ctx.plan.scenario();
    let sides = e.sides.len();
    let mut side_units = vec![Vec::new(); sides];
    for (u, &side) in e.side_of.iter().enumerate() {
        side_units[side].push(u);
    }
    let ends = |s: &State| {
        e.until == Until::Destroyed && on_table(e, s).into_iter().filter(|&t| t).count() <= 1
    };
    let start = Config {
        round: 1,
        stage: Stage::Before,
        state: scenario
            .units
            .iter()
            .map(|u| UnitState::starting(u.alive()))
            .collect(),
        declared: vec![[0; 3]; scenario.units.len()],
    };
    let mut work: Dist<Config> = Dist::new();
    add(&mut work, start, 1.0);
    let mut ended: Dist<Ended> = Dist::new();
    while let Some((c, p)) = work.pop_first() {
        let Config {
            round,
            stage,
            mut state,
            mut declared,
        } = c;
        match stage {
            Stage::Before => {
                if round > e.rounds || ends(&state) {
                    add(&mut ended, (state, declared, round - 1), p);
                    continue;
                }
                // Tokens and restrictions last until the end of the round.
                for u in &mut state {
                    u.restrictions = 0;
                    u.token = false;
                }
                let firsts: Vec<(usize, f64)> = match e.first {
                    First::Side(side) => vec![(side, 1.0)],
                    First::Alternate => vec![((round as usize - 1) % sides, 1.0)],
                    First::Random => (0..sides).map(|side| (side, 1.0 / sides as f64)).collect(),
                };
                for (turn, q) in firsts {
                    let c = Config {
                        round,
                        stage: Stage::In {
                            begun: 0,
                            idle: 0,
                            turn,
                            cursors: vec![0; sides],
                        },
                        state: state.clone(),
                        declared: declared.clone(),
                    };
                    add(&mut work, c, p * q);
                }
            }
            Stage::In {
                begun,
                idle,
                turn,
                mut cursors,
            } => {
                let units = &side_units[turn];
                let mut next = cursors[turn];
                while next < units.len() && state[units[next]].alive == 0 {
                    next += 1;
                }
                let later = (turn + 1) % sides;
                if next >= units.len() {
                    cursors[turn] = next;
                    let stage = if idle + 1 < sides {
                        Stage::In {
                            begun,
                            idle: idle + 1,
                            turn: later,
                            cursors,
                        }
                    } else {
                        // No side has a unit left: the round is over.
                        add(
                            &mut work,
                            Config {
                                round: round + 1,
                                stage: Stage::Before,
                                state,
                                declared,
                            },
                            p,
                        );
                        continue;
                    };
                    add(
                        &mut work,
                        Config {
                            round,
                            stage,
                            state,
                            declared,
                        },
                        p,
                    );
                    continue;
                }
                cursors[turn] = next + 1;
                let unit = units[next];
                let mut outcomes: Dist<State> = Dist::new();
                match choose(ctx, e, policy, &side_units, &cursors, &state, unit, round)? {
                    Some((i, followed)) => {
                        declared[unit][followed.command().index()] += 1;
                        ctx.declare(&state, unit, followed, &mut |q, s, _| {
                            add(&mut outcomes, s, q)
                        })
                        .map_err(|reason| Why {
                            order: Some((unit, i)),
                            reason,
                        })?;
                    }
                    None => add(&mut outcomes, state, 1.0),
                }
                for (s, q) in outcomes {
                    if ends(&s) {
                        add(&mut ended, (s, declared.clone(), round), p * q);
                        continue;
                    }
                    let c = Config {
                        round,
                        stage: Stage::In {
                            begun: begun + 1,
                            idle: 0,
                            turn: later,
                            cursors: cursors.clone(),
                        },
                        state: s,
                        declared: declared.clone(),
                    };
                    add(&mut work, c, p * q);
                }
                if work.len() + ended.len() > MAX_STATES {
                    return Err(format!(
                        "the dynamic programme holds {} distinct configurations, over the limit \
                         of {MAX_STATES}; {}",
                        work.len() + ended.len(),
                        super::state::breakdown_of_configurations(
                            work.keys()
                                .map(|c| &c.state)
                                .chain(ended.keys().map(|e| &e.0))
                        )
                    )
                    .into());
                }
            }
        }
    }
    Ok(ended)
}

/// An order that applies: its index among the unit's orders, and the options that can be
/// declared, by their index in the order's options, each with what it aims at.
pub(super) type Applicable = (usize, Vec<(usize, Followed)>);

/// The order `unit` takes from `s` in round `round`: the first whose condition holds and
/// of which some option can be declared, by its index, with those options (by their index in
/// the order's options, each with what it aims at: one for a plain order); `None` when none
/// applies.
pub(super) fn applicable(
    ctx: &Ctx<'_>,
    e: &Engagement,
    s: &State,
    unit: usize,
    round: u32,
) -> Result<Option<Applicable>, Why> {
    for (i, given) in e.orders[unit].iter().enumerate() {
        let refuse = |reason: Refused| Why {
            order: Some((unit, i)),
            reason,
        };
        if let Some(when) = &given.when {
            let mut situation = Exact {
                ctx,
                s,
                unit,
                round,
            };
            if !when.holds(&mut situation) {
                continue;
            }
        }
        let mut declarable = Vec::new();
        for (k, &order) in given.order.options().iter().enumerate() {
            if let Some(followed) = ctx.eligible(s, unit, order).map_err(refuse)? {
                declarable.push((k, followed));
            }
        }
        if !declarable.is_empty() {
            return Ok(Some((i, declarable)));
        }
    }
    Ok(None)
}

/// The order `unit` takes from `s`: as [`applicable`], a `best` order taking the option
/// `policy` advises at this moment (`cursors`: each side's next unit to consider, past this
/// one).
#[allow(clippy::too_many_arguments)]
fn choose(
    ctx: &Ctx<'_>,
    e: &Engagement,
    policy: Option<&Policy>,
    side_units: &[Vec<usize>],
    cursors: &[usize],
    s: &State,
    unit: usize,
    round: u32,
) -> Result<Option<(usize, Followed)>, Why> {
    let Some((i, declarable)) = applicable(ctx, e, s, unit, round)? else {
        return Ok(None);
    };
    // A plain order, or a `best` one with one option it can declare, needs no advice (play
    // falls back to the first option it can declare, as here).
    if matches!(e.orders[unit][i].order, Given::Order(_)) || declarable.len() == 1 {
        return Ok(Some((i, declarable[0].1)));
    }
    let advised = policy
        .and_then(|p| p.option(&moment(side_units, cursors, s, unit, round), i))
        .and_then(|k| declarable.iter().find(|(j, _)| *j == k));
    match advised {
        Some(&(_, followed)) => Ok(Some((i, followed))),
        None => Err(Why {
            order: Some((unit, i)),
            reason: "no advice covers this state (`rollcall advise` works it out)".into(),
        }),
    }
}

/// The moment of `unit`'s activation in `s`, as the advice keys it; `cursors` are each side's
/// next unit to consider, already past this one.
pub(super) fn moment(
    side_units: &[Vec<usize>],
    cursors: &[usize],
    s: &State,
    unit: usize,
    round: u32,
) -> Moment {
    Moment {
        round,
        unit,
        cursors: still_to_activate(side_units, cursors, |u| s[u].alive > 0),
        units: s
            .iter()
            .map(|u| UnitKey {
                alive: u.alive,
                restored: u.restored,
                lost: u.lost,
                damage_taken: u.damage_taken,
                wound: u.wound,
                restricted: [SHOOT, RUN, DEFEND].map(|bit| u.restrictions & bit != 0),
                token: u.token,
            })
            .collect(),
    }
}

/// What a condition sees in the programme: the activated unit in one state, its geometric
/// questions answered from the state's layouts.
struct Exact<'c, 'a> {
    ctx: &'c Ctx<'a>,
    s: &'c State,
    unit: usize,
    round: u32,
}

impl Situation for Exact<'_, '_> {
    fn alive(&mut self) -> u32 {
        self.s[self.unit].alive
    }

    fn size(&mut self) -> u32 {
        self.ctx.plan.scenario().units[self.unit].size
    }

    fn round(&mut self) -> u32 {
        self.round
    }

    fn damaged(&mut self) -> u32 {
        self.s[self.unit].wound
    }

    fn enemy_within(&mut self, inches: f64) -> bool {
        self.ctx.enemy_within(self.s, self.unit, inches)
    }

    fn in_range(&mut self) -> bool {
        self.ctx.enemy_in_range(self.s, self.unit)
    }
}

/// Per side, whether it has a model on the table.
pub(super) fn on_table(e: &Engagement, s: &State) -> Vec<bool> {
    (0..e.sides.len())
        .map(|side| (0..s.len()).any(|u| e.side_of[u] == side && s[u].alive > 0))
        .collect()
}
