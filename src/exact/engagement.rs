//! Engagements as a dynamic programme: the driver of `rules::engagement` restated over
//! distributions of [`Config`]s, each the units' [`State`] plus where the engagement stands in
//! its [`Schedule`] (round, activations begun, [`Stage`]) and what its metrics have counted so
//! far (per unit and command, the declarations). A first side drawn at random is a branch per
//! side.
//!
//! Which order a unit takes is a function of the state: counts decide `alive`, `missing`,
//! `size`, `round` and `damaged`; `enemy_within(D)`, `in_range`, the target rules and Rally's
//! 1" rule are measured on the state's layouts through the same `Ctx` the steps use. A `best`
//! order takes the option the advice gives for the [`Moment`] of the activation. Every move of
//! the driver takes a configuration strictly later in (round, activations begun, stage), and
//! the work list is ordered by that first, so a configuration is expanded only once every path
//! into it has been merged.

use super::commands::{Ctx, Followed, Refused};
use super::limit;
use super::state::{add, Dist, State, UnitState, DEFEND, RUN, SHOOT};
use crate::condition::Situation;
use crate::metrics::{EngagementMetrics, SideMetrics};
use crate::rules::engagement::schedule::{Next, Stage, Turns};
use crate::rules::engagement::{Moment, Policy, Schedule, UnitKey};
use crate::scenario::{Engagement, Given};

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

/// One configuration of the engagement. Field order is the expansion order (see the module
/// doc): round first, then activations begun in it, then the stage.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Config {
    round: u32,
    /// Activations begun this round (0 before it).
    begun: u32,
    stage: Stage,
    state: State,
    /// Per unit and `Command::index`, declarations so far.
    declared: Vec<[u32; 3]>,
}

/// An engagement over: the units, the declarations and the rounds begun.
type Ended = (State, Vec<[u32; 3]>, u32);

/// An activation about to be played: the round, the activations begun before it, the round's
/// turns already past it, and the activated unit.
struct Activation {
    round: u32,
    begun: u32,
    turns: Turns,
    unit: usize,
}

/// Whether a unit has a model on the table in `s`, as the schedule asks it.
pub(super) fn alive_in(s: &State) -> impl Fn(usize) -> bool + '_ {
    move |u| s[u].alive > 0
}

/// A new round in `s`: tokens and restrictions last until the end of the round.
pub(super) fn start_round(s: &mut State) {
    for u in s {
        u.restrictions = 0;
        u.token = false;
    }
}

/// Per round (0 to the last) and record ([`Engagement::round_names`]), the pmf of the
/// record's value as it stood at the end of that round.
pub type Rounds = Vec<Vec<Dist<i64>>>;

/// The final distribution of an engagement: per end, its probability; and the distribution
/// of every round's records. `policy` says what `best` orders take; a `best` order it does
/// not cover is refused.
pub fn play(
    ctx: &mut Ctx<'_>,
    e: &Engagement,
    policy: Option<&Policy>,
) -> Result<(Dist<Ended>, Rounds), Why> {
    let records = ctx.plan.scenario().units.len() + e.sides.len() + 1;
    let mut programme = Programme {
        ctx,
        e,
        schedule: Schedule::new(e),
        policy,
        work: Dist::new(),
        ended: Dist::new(),
        rounds: vec![vec![Dist::new(); records]; e.rounds as usize + 1],
    };
    let start = programme.start();
    add(&mut programme.work, start, 1.0);
    let mut expanded = 0;
    while let Some((config, p)) = programme.work.pop_first() {
        expanded += 1;
        let step = if crate::engine::interrupted() {
            Err("interrupted".to_string().into())
        } else if expanded > super::cost::MAX_EXPANSIONS {
            Err(super::cost::expansions_reason().into())
        } else {
            programme.expand(config, p)
        };
        if let Err(why) = step {
            let held = (
                std::mem::take(&mut programme.work),
                std::mem::take(&mut programme.ended),
            );
            super::cost::discard(held);
            return Err(why);
        }
    }
    Ok((programme.ended, programme.rounds))
}

/// The programme under way: what it plays, the configurations still to expand (each with its
/// probability) and the ends reached.
struct Programme<'c, 'a, 'e> {
    ctx: &'c mut Ctx<'a>,
    e: &'e Engagement,
    schedule: Schedule,
    policy: Option<&'e Policy>,
    work: Dist<Config>,
    ended: Dist<Ended>,
    rounds: Rounds,
}

impl Programme<'_, '_, '_> {
    /// Before the first round, every unit as the scenario sets it up.
    fn start(&self) -> Config {
        let units = &self.ctx.plan.scenario().units;
        Config {
            round: 1,
            begun: 0,
            stage: Stage::Before,
            state: units
                .iter()
                .map(|u| UnitState::starting(u.alive()))
                .collect(),
            declared: vec![[0; 3]; units.len()],
        }
    }

    /// Takes `config`, of probability `p`, one move on.
    fn expand(&mut self, config: Config, p: f64) -> Result<(), Why> {
        let Config {
            round,
            begun,
            stage,
            state,
            declared,
        } = config;
        let mut turns = match stage {
            Stage::Before => {
                self.open_round(round, state, declared, p);
                return Ok(());
            }
            Stage::In(turns) => turns,
        };
        let c = match self.schedule.next(&mut turns, alive_in(&state)) {
            Next::Activate { unit, .. } => {
                let at = Activation {
                    round,
                    begun,
                    turns,
                    unit,
                };
                return self.activate(at, state, declared, p);
            }
            Next::Pass => Config {
                round,
                begun,
                stage: Stage::In(turns),
                state,
                declared,
            },
            Next::RoundOver => Config {
                round: round + 1,
                begun: 0,
                stage: Stage::Before,
                state,
                declared,
            },
        };
        add(&mut self.work, c, p);
        Ok(())
    }

    /// Round `round` from `state`: over before it starts, or opened by each side that may
    /// open it.
    fn open_round(&mut self, round: u32, mut state: State, declared: Vec<[u32; 3]>, p: f64) {
        let over = self.schedule.over_before(round, alive_in(&state));
        self.record(round - 1, &state, over, p);
        if over {
            add(&mut self.ended, (state, declared, round - 1), p);
            return;
        }
        start_round(&mut state);
        for (side, q) in self.schedule.first_side(round).chances() {
            let c = Config {
                round,
                begun: 0,
                stage: Stage::In(self.schedule.open(side)),
                state: state.clone(),
                declared: declared.clone(),
            };
            add(&mut self.work, c, p * q);
        }
    }

    /// Plays `at`'s activation from `state`, of probability `p`: each outcome ends the
    /// engagement or goes on to the next move.
    fn activate(
        &mut self,
        at: Activation,
        state: State,
        mut declared: Vec<[u32; 3]>,
        p: f64,
    ) -> Result<(), Why> {
        let unit = at.unit;
        let mut outcomes: Dist<State> = Dist::new();
        match self.choose(at.turns.cursors(), &state, unit, at.round)? {
            Some((i, followed)) => {
                declared[unit][followed.command().index()] += 1;
                self.ctx
                    .declare(&state, unit, followed, &mut |q, s, _| {
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
            if self.schedule.decided(alive_in(&s)) {
                self.record(at.round, &s, true, p * q);
                add(&mut self.ended, (s, declared.clone(), at.round), p * q);
                continue;
            }
            let c = Config {
                round: at.round,
                begun: at.begun + 1,
                stage: Stage::In(at.turns.clone()),
                state: s,
                declared: declared.clone(),
            };
            add(&mut self.work, c, p * q);
        }
        self.within_limit()
    }

    /// Records `s`, of probability `p`, as it stands at the end of round `round`, and, once the
    /// engagement is `over`, at the end of every later round: an ended engagement keeps its
    /// last values.
    fn record(&mut self, round: u32, s: &State, over: bool, p: f64) {
        let winner = self.schedule.winner(alive_in(s));
        let alive = s.iter().map(|u| i64::from(u.alive));
        let won = (0..self.schedule.sides()).map(|side| i64::from(winner == Some(side)));
        let values: Vec<i64> = alive.chain(won).chain([i64::from(over)]).collect();
        let last = if over { self.e.rounds } else { round };
        for records in &mut self.rounds[round as usize..=last as usize] {
            for (pmf, &v) in records.iter_mut().zip(&values) {
                add(pmf, v, p);
            }
        }
    }

    /// Refuses a programme over the state limit ([`limit`]), saying what keeps them apart.
    fn within_limit(&self) -> Result<(), Why> {
        let units = self.ctx.plan.scenario().units.len();
        let held = self.work.len() + self.ended.len();
        if held <= self.ctx.max_states {
            return Ok(());
        }
        let states = self
            .work
            .keys()
            .map(|c| &c.state)
            .chain(self.ended.keys().map(|e| &e.0));
        Err(format!(
            "{}; {}",
            limit::over("the dynamic programme", held, units),
            super::state::breakdown_of_configurations(states)
        )
        .into())
    }

    /// The order `unit` takes from `s`: as [`applicable`], a `best` order taking the option
    /// the policy advises at this moment (`cursors`: each side's next unit to consider, past
    /// this one).
    fn choose(
        &self,
        cursors: &[usize],
        s: &State,
        unit: usize,
        round: u32,
    ) -> Result<Option<(usize, Followed)>, Why> {
        let e = self.e;
        let Some((i, declarable)) = applicable(self.ctx, e, s, unit, round)? else {
            return Ok(None);
        };
        // A plain order, or a `best` one with one option it can declare, needs no advice (play
        // falls back to the first option it can declare, as here).
        if matches!(e.orders[unit][i].order, Given::Order(_)) || declarable.len() == 1 {
            return Ok(Some((i, declarable[0].1)));
        }
        let advised = self
            .policy
            .and_then(|p| p.option(&moment(&self.schedule, cursors, s, unit, round), i))
            .and_then(|k| declarable.iter().find(|(j, _)| *j == k));
        match advised {
            Some(&(_, followed)) => Ok(Some((i, followed))),
            None => Err(Why {
                order: Some((unit, i)),
                reason: "no advice covers this state (`rollcall advise` works it out)".into(),
            }),
        }
    }
}

/// The metrics an engagement's end determines, in [`Engagement::metric_names`] order up to the
/// declaration counts: each unit's row, each side's, then the engagement's (`rounds` begun).
pub(super) fn end_values(schedule: &Schedule, s: &State, rounds: u32, out: &mut Vec<i64>) {
    out.clear();
    for x in s {
        out.extend(super::unit_metrics(x).values());
    }
    let winner = schedule.winner(alive_in(s));
    for side in 0..schedule.sides() {
        out.extend(
            SideMetrics {
                won: i64::from(winner == Some(side)),
            }
            .values(),
        );
    }
    out.extend(
        EngagementMetrics {
            rounds: i64::from(rounds),
        }
        .values(),
    );
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

/// The moment of `unit`'s activation in `s`, as the advice keys it; `cursors` are each side's
/// next unit to consider, already past this one.
pub(super) fn moment(
    schedule: &Schedule,
    cursors: &[usize],
    s: &State,
    unit: usize,
    round: u32,
) -> Moment {
    Moment {
        round,
        unit,
        cursors: schedule.remaining(cursors, alive_in(s)),
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
