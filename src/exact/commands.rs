//! One step of the dynamic programme: a command declared from one state, expanded into every
//! state it can lead to with its probability and the step's metrics.
//!
//! This restates the rules (docs/rules.md, "Choices where the rules are silent") over unit
//! counts instead of models: eligibility (with the target rules' pick, [`Ctx::eligible`]), the
//! response window (Defend, Covering Fire, random answers), Rally (doubled by Call of the
//! Masters, each use capped at the spots its placement finds), Shoot with per-model HP,
//! damage and spill, use 2 fizzling or retargeting, and token and restrictions applied once
//! ([`Ctx::declare`]). A step is the two in turn ([`Ctx::step`]); an engagement asks
//! eligibility order by order. Dice enter only as binomial pmfs of exact per-test
//! probabilities, and as the pmfs of rolled attacks and damage (`Amount::probabilities`):
//! rolled attacks are convolved over the shooting models, rolled damage is dealt hit by hit.
//! Which models the outcomes remove or restore, and so every later distance, comes from the
//! layouts each state carries (`geometry`).

use super::binomial::Pmfs;
use super::layouts::Layouts;
use super::state::{add, Dist, State, UnitState, DEFEND, RALLY, RUN, SHOOT};
use crate::dice::{Amount, Fraction};
use crate::geometry::Point;
use crate::geometry::EPS;
use crate::metrics::StepMetrics;
use crate::rules::Plan;
use crate::scenario::{Command, Order, Response, Scenario, Step, Target};
use std::collections::HashMap;
use std::rc::Rc;

/// Why a step cannot be computed exactly (the caller names the step).
pub type Refused = String;

/// What one dynamic programme shares across its steps.
pub struct Ctx<'a> {
    pub plan: &'a Plan,
    pub layouts: Layouts,
    pmfs: Pmfs,
    unsaved: HashMap<(u32, Fraction, Option<Fraction>), Rc<[f64]>>,
    /// Unsaved hits when each of `alive` models rolls its attacks, by (alive, attacks, hit,
    /// save).
    rolled: HashMap<RolledKey, Rc<[f64]>>,
    /// The state limit for this scenario's units, read once: it reads `/proc/meminfo`, too
    /// slow to ask at every step of a programme.
    pub max_states: usize,
}

/// Models rolling attacks, their attacks, the hit and the save probability.
type RolledKey = (u32, Amount, Fraction, Option<Fraction>);

/// A branch of the response window: the state, whether the target Defends, and how many
/// responses were declared.
type Window = (State, bool, u32);

/// A branch of a Shoot: the state, the current target, and uses fizzled so far.
type Volley = (State, usize, u32);

/// A declarable order the programme follows, with the unit a Shoot aims at.
#[derive(Clone, Copy)]
pub enum Followed {
    Rally,
    Shoot(usize),
}

impl Followed {
    pub fn command(self) -> Command {
        match self {
            Followed::Rally => Command::Rally,
            Followed::Shoot(_) => Command::Shoot,
        }
    }
}

/// The restriction bits a command applies, which are also the ones that bar it (the exact
/// engine's own table, kept apart from the rules').
fn restrictions(command: Command) -> u8 {
    match command {
        Command::Rally => RALLY,
        Command::Shoot => SHOOT,
        Command::Run => RUN,
    }
}

/// A step's metrics from its counts.
fn metrics(resolved: i64, fizzled: i64, ineligible: i64, responses: i64) -> StepMetrics {
    StepMetrics {
        resolved,
        fizzled,
        ineligible,
        responses,
    }
}

impl<'a> Ctx<'a> {
    pub fn new(plan: &'a Plan) -> Ctx<'a> {
        Ctx {
            plan,
            layouts: Layouts::new(plan),
            pmfs: Pmfs::default(),
            unsaved: HashMap::new(),
            rolled: HashMap::new(),
            max_states: super::limit::max_states_for(plan.scenario().units.len()),
        }
    }

    fn scenario(&self) -> &'a Scenario {
        self.plan.scenario()
    }

    /// Some model of `a` within `d` of some model of `b`, edge to edge.
    fn within(&self, s: &State, a: usize, b: usize, d: f64) -> bool {
        s[a].alive > 0 && s[b].alive > 0 && self.layouts.distance(s, a, b) <= d + EPS
    }

    /// Some model of `target` within the range of `shooter`'s weapon (never, unarmed).
    fn in_range(&self, s: &State, shooter: usize, target: usize) -> bool {
        self.scenario().units[shooter]
            .weapon
            .as_ref()
            .is_some_and(|w| self.within(s, shooter, target, w.range))
    }

    fn target_legal(&self, s: &State, shooter: usize, target: usize) -> bool {
        s[target].alive > 0 && self.in_range(s, shooter, target)
    }

    /// Some model of an enemy of `unit` within `d` of some model of it.
    pub fn enemy_within(&self, s: &State, unit: usize, d: f64) -> bool {
        let units = &self.scenario().units;
        (0..units.len()).any(|e| units[e].side != units[unit].side && self.within(s, unit, e, d))
    }

    /// Some enemy unit can be shot by `unit` (models on the table, in range).
    pub fn enemy_in_range(&self, s: &State, unit: usize) -> bool {
        let units = &self.scenario().units;
        (0..units.len()).any(|e| units[e].side != units[unit].side && self.target_legal(s, unit, e))
    }

    /// The enemy unit `rule` picks among those `shooter` can shoot: the nearest
    /// (`Target::Nearest`, and Call of the Masters' retargeting), the one with the fewest
    /// (`Weakest`) or most (`Strongest`) models, ties to the nearest (by more than the rules'
    /// slack), then to the first in file order.
    fn pick(&self, s: &State, shooter: usize, rule: Target) -> Option<usize> {
        let units = &self.scenario().units;
        // (rank, distance, unit) of the best so far.
        let mut best: Option<(u32, f64, usize)> = None;
        for t in (0..units.len()).filter(|&t| units[t].side != units[shooter].side) {
            if !self.target_legal(s, shooter, t) {
                continue;
            }
            let alive = s[t].alive;
            let rank = match rule {
                Target::Weakest => alive,
                Target::Strongest => u32::MAX - alive,
                Target::Nearest | Target::Unit(_) => 0,
            };
            let d = self.layouts.distance(s, shooter, t);
            let better = match best {
                None => true,
                Some((r, b, _)) => rank < r || (rank == r && d < b - EPS),
            };
            if better {
                best = Some((rank, d, t));
            }
        }
        best.map(|(_, _, t)| t)
    }

    /// Distribution of unsaved hits from `attacks` attacks hitting with `hit`, each hit
    /// saved with `save` when there is a defense test.
    fn unsaved(&mut self, attacks: u32, hit: Fraction, save: Option<Fraction>) -> Rc<[f64]> {
        if let Some(v) = self.unsaved.get(&(attacks, hit, save)) {
            return v.clone();
        }
        let hits = self.pmfs.get(attacks, hit);
        let mut out = vec![0.0; attacks as usize + 1];
        for (h, &ph) in hits.iter().enumerate() {
            match save {
                None => out[h] += ph,
                Some(p) => {
                    let saves = self.pmfs.get(h as u32, p);
                    for (k, &ps) in saves.iter().enumerate() {
                        out[h - k] += ph * ps;
                    }
                }
            }
        }
        let out: Rc<[f64]> = out.into();
        self.unsaved.insert((attacks, hit, save), out.clone());
        out
    }

    /// One volley of `shooter` at `target`: every state it leads to, with its probability.
    fn volley(
        &mut self,
        s: &State,
        shooter: usize,
        target: usize,
        hit_bonus: i32,
        defending: bool,
    ) -> Vec<(f64, State)> {
        let units = &self.scenario().units;
        let Some(weapon) = &units[shooter].weapon else {
            // As in the rules: an unarmed unit is never in range, so never gets here.
            return vec![(1.0, s.clone())];
        };
        let hit = weapon.hit.with_bonus(hit_bonus).probability();
        let bonus = if defending {
            self.scenario().options.defend_bonus
        } else {
            0
        };
        let save = units[target]
            .defense
            .as_ref()
            .map(|d| d.with_bonus(bonus).probability());
        let (hp, damage, spill) = (
            units[target].hp,
            &weapon.damage,
            self.scenario().options.spill,
        );
        let alive = s[shooter].alive;
        let pmf = match weapon.attacks.fixed() {
            Some(each) => self.unsaved(alive * each, hit, save),
            None => self.rolled_unsaved(alive, &weapon.attacks, hit, save),
        };
        if let Some(damage) = damage.fixed() {
            let mut out = Vec::with_capacity(pmf.len());
            for (u, &p) in pmf.iter().enumerate().filter(|&(_, &p)| p > 0.0) {
                let mut t = s[target].clone();
                wound(&mut t, hp, damage, spill, u as u32);
                out.push((p, self.hit(s, shooter, target, t)));
            }
            return out;
        }
        // Rolled damage: the target's distribution after each number of unsaved hits, one hit
        // (of every possible damage) at a time, weighted by the chance of that many.
        let per_hit = damage.probabilities();
        let last = pmf.iter().rposition(|&p| p > 0.0).unwrap_or(0);
        let mut after: Dist<UnitState> = Dist::new();
        add(&mut after, s[target].clone(), 1.0);
        let mut out: Dist<UnitState> = Dist::new();
        for (u, &p) in pmf.iter().enumerate().take(last + 1) {
            if u > 0 {
                let mut next = Dist::new();
                for (t, q) in after {
                    for (d, &r) in per_hit.iter().enumerate() {
                        let mut t = t.clone();
                        wound(&mut t, hp, d as u32, spill, 1);
                        add(&mut next, t, q * r);
                    }
                }
                after = next;
            }
            for (t, &q) in &after {
                add(&mut out, t.clone(), p * q);
            }
        }
        out.into_iter()
            .map(|(t, p)| (p, self.hit(s, shooter, target, t)))
            .collect()
    }

    /// `s` with `target` as `t` after a volley of `shooter`, its layout following the
    /// counts: the models killed gone, the wound on the next one.
    fn hit(&mut self, s: &State, shooter: usize, target: usize, mut t: UnitState) -> State {
        let killed = t.lost - s[target].lost;
        if killed > 0 || t.wound != s[target].wound {
            t.layout = self.layouts.wounded(s, target, shooter, killed, t.wound);
        }
        let mut next = s.clone();
        next[target] = t;
        next
    }

    /// Distribution of unsaved hits when each of `alive` models rolls `attacks`. The volley's
    /// attacks A are a sum of independent rolls, and P(u) = sum_A P(A) P(u | A attacks);
    /// since each attack is judged on its own, that is also the convolution of `alive` copies
    /// of one model's unsaved hits, sum_a P(a) P(u | a attacks), which is how it is computed:
    /// the work grows with the models times the attacks, not with the attacks cubed.
    fn rolled_unsaved(
        &mut self,
        alive: u32,
        attacks: &Amount,
        hit: Fraction,
        save: Option<Fraction>,
    ) -> Rc<[f64]> {
        let key = (alive, attacks.clone(), hit, save);
        if let Some(v) = self.rolled.get(&key) {
            return v.clone();
        }
        let mut one_model = vec![0.0; attacks.max() as usize + 1];
        for (a, &pa) in attacks.probabilities().iter().enumerate() {
            if pa > 0.0 {
                let given = self.unsaved(a as u32, hit, save);
                for (u, &pu) in given.iter().enumerate() {
                    one_model[u] += pa * pu;
                }
            }
        }
        let mut total = vec![1.0];
        for _ in 0..alive {
            let mut next = vec![0.0; total.len() + one_model.len() - 1];
            for (i, &a) in total.iter().enumerate() {
                for (j, &b) in one_model.iter().enumerate() {
                    next[i + j] += a * b;
                }
            }
            total = next;
        }
        let out: Rc<[f64]> = total.into();
        self.rolled.insert(key, out.clone());
        out
    }

    /// The response window from `s` of a command declared by `actor` (aimed at unit
    /// `target`, if any), before its first use.
    fn window(&mut self, s: &State, actor: usize, target: Option<usize>) -> Dist<Window> {
        let units = &self.scenario().units;
        let mut branches: Dist<Window> = Dist::new();
        add(&mut branches, (s.clone(), false, 0), 1.0);
        for r in 0..units.len() {
            let unit = &units[r];
            if unit.side == units[actor].side || unit.response == Response::None {
                continue;
            }
            let mut next: Dist<Window> = Dist::new();
            for ((s, defending, responses), p) in branches {
                if s[r].alive == 0 {
                    add(&mut next, (s, defending, responses), p);
                    continue;
                }
                let can_defend = target == Some(r) && s[r].restrictions & DEFEND == 0;
                let can_fire = || {
                    unit.weapon.is_some()
                        && s[r].restrictions & SHOOT == 0
                        && self.in_range(&s, r, actor)
                };
                // Each answer it may give, with its probability.
                let answers: Vec<(Answer, f64)> = match unit.response {
                    Response::None => vec![(Answer::Nothing, 1.0)],
                    Response::Defend if can_defend => vec![(Answer::Defend, 1.0)],
                    Response::Defend => vec![(Answer::Nothing, 1.0)],
                    Response::CoveringFire if can_fire() => vec![(Answer::Fire, 1.0)],
                    Response::CoveringFire => vec![(Answer::Nothing, 1.0)],
                    Response::Random => {
                        let mut legal = vec![Answer::Nothing];
                        if can_defend {
                            legal.push(Answer::Defend);
                        }
                        if can_fire() {
                            legal.push(Answer::Fire);
                        }
                        let share = 1.0 / legal.len() as f64;
                        legal.into_iter().map(|a| (a, share)).collect()
                    }
                };
                for (answer, q) in answers {
                    match answer {
                        Answer::Nothing => add(&mut next, (s.clone(), defending, responses), p * q),
                        Answer::Defend => {
                            let mut s = s.clone();
                            s[r].restrictions |= DEFEND;
                            add(&mut next, (s, true, responses + 1), p * q);
                        }
                        Answer::Fire => {
                            let bonus = self.scenario().options.covering_fire_hit_modifier;
                            for (pv, mut s) in self.volley(&s, r, actor, bonus, false) {
                                s[r].restrictions |= SHOOT;
                                add(&mut next, (s, defending, responses + 1), p * q * pv);
                            }
                        }
                    }
                }
            }
            branches = next;
        }
        branches
    }

    /// Rally by `uses` uses: every (models restored, the unit's layout after) it can lead to,
    /// with its probability. A use restores one model per Resolve success, up to the spots
    /// its placement finds around the models alive when it began.
    fn rally(&mut self, s: &State, unit: usize, uses: u32) -> Result<Dist<(u32, u32)>, Refused> {
        let u = &self.scenario().units[unit];
        let mut out = Dist::new();
        if s[unit].alive == u.size {
            // Nothing to restore, so nothing to place.
            add(&mut out, (0, s[unit].layout), 1.0);
            return Ok(out);
        }
        let Some(resolve) = &u.resolve else {
            // Validation refuses a Rally by a unit without a Resolve test.
            return Err(format!("`{}` has no `resolve` test to Rally with", u.id));
        };
        let p = resolve.probability();
        let missing = u.size - s[unit].alive;
        let layouts: Vec<u32> = s.iter().map(|x| x.layout).collect();
        // From the starting layout the plan has searched the spots already.
        let pristine = layouts.iter().all(|&l| l == 0);
        let first: Rc<[Point]> = if pristine {
            self.plan.rally_spots(unit).into()
        } else {
            self.layouts.rally_spots(self.plan, layouts.clone(), unit)
        };
        let room = first.len() as u32;
        // By the number restored (each use caps at the spots it found).
        let capped = |pmf: &[f64], room: u32| {
            let mut by = vec![0.0; pmf.len()];
            for (k, &pk) in pmf.iter().enumerate() {
                by[(k as u32).min(room) as usize] += pk;
            }
            by
        };
        let after_first = capped(&self.pmfs.get(missing, p), room);
        if uses == 2 && pristine && room >= missing {
            // When the first use found a spot for every missing model, the second one does
            // too: its greedy search retraces the first's, skipping the spots now taken
            // (docs/exact.md, "Call of the Masters' Rally, and why it is fast"). So the layout
            // depends only on how many came back in all: the first that many spots.
            let mut total = vec![0.0; missing as usize + 1];
            for (k1, &p1) in after_first.iter().enumerate().filter(|&(_, &p)| p > 0.0) {
                let pmf = self.pmfs.get(missing - k1 as u32, p);
                for (t, &p2) in total[k1..].iter_mut().zip(pmf.iter()) {
                    *t += p1 * p2;
                }
            }
            for (r, &q) in total.iter().enumerate().filter(|&(_, &q)| q > 0.0) {
                let l = self.layouts.rallied(unit, s[unit].layout, &first[..r]);
                add(&mut out, (r as u32, l), q);
            }
            return Ok(out);
        }
        for (k1, &p1) in after_first.iter().enumerate().filter(|&(_, &p)| p > 0.0) {
            let l1 = self.layouts.rallied(unit, s[unit].layout, &first[..k1]);
            if uses == 1 {
                add(&mut out, (k1 as u32, l1), p1);
                continue;
            }
            let left = missing - k1 as u32;
            let second: Rc<[Point]> = if pristine {
                self.plan.second_rally_spots(unit, k1).into()
            } else {
                let mut after = layouts.clone();
                after[unit] = l1;
                self.layouts.rally_spots(self.plan, after, unit)
            };
            let after_second = capped(&self.pmfs.get(left, p), second.len() as u32);
            for (k2, &p2) in after_second.iter().enumerate().filter(|&(_, &p)| p > 0.0) {
                let l2 = self.layouts.rallied(unit, l1, &second[..k2]);
                add(&mut out, ((k1 + k2) as u32, l2), p1 * p2);
            }
        }
        Ok(out)
    }

    /// Whether `actor` can declare `order` from `s` (the rules' eligibility: a model alive,
    /// no token, no barring restriction, Rally's 1" rule, a target in range, a target rule's
    /// pick); `None` when it cannot.
    pub fn eligible(
        &self,
        s: &State,
        actor: usize,
        order: Order,
    ) -> Result<Option<Followed>, Refused> {
        let barred = restrictions(order.command());
        let a = &s[actor];
        if a.alive == 0 || a.token || a.restrictions & barred != 0 {
            return Ok(None);
        }
        match order {
            Order::Rally => Ok((!self.enemy_within(s, actor, 1.0)).then_some(Followed::Rally)),
            Order::Shoot {
                target: Target::Unit(t),
            } => Ok(self.target_legal(s, actor, t).then_some(Followed::Shoot(t))),
            Order::Shoot { target: rule } => Ok(self.pick(s, actor, rule).map(Followed::Shoot)),
            Order::Run { .. } => Err("Run moves units, and the exact engine follows no movement \
                                      (every later distance would change)"
                .into()),
        }
    }

    /// Declares `step` from `s`; calls `emit(probability, next state, step metrics)` for every
    /// outcome (probabilities relative to `s`).
    pub fn step(
        &mut self,
        s: &State,
        step: &Step,
        emit: &mut dyn FnMut(f64, State, StepMetrics),
    ) -> Result<(), Refused> {
        match self.eligible(s, step.unit, step.order)? {
            Some(followed) => self.declare(s, step.unit, followed, emit),
            None => {
                emit(1.0, s.clone(), metrics(0, 0, 1, 0));
                Ok(())
            }
        }
    }

    /// Resolves an order `actor` can declare (see [`Ctx::eligible`]): its response window,
    /// its uses, then token and restrictions; calls `emit` as [`Ctx::step`] does.
    pub fn declare(
        &mut self,
        s: &State,
        actor: usize,
        followed: Followed,
        emit: &mut dyn FnMut(f64, State, StepMetrics),
    ) -> Result<(), Refused> {
        let scenario = self.scenario();
        let applies = restrictions(followed.command());
        let target = match followed {
            Followed::Rally => None,
            Followed::Shoot(t) => Some(t),
        };
        let uses = if scenario.units[actor].call_of_the_masters {
            2
        } else {
            1
        };
        let finish = |mut s: State| {
            s[actor].token = true;
            s[actor].restrictions |= applies;
            s
        };
        for ((s, defending, responses), p) in self.window(s, actor, target) {
            if s[actor].alive == 0 {
                // Wiped out by Covering Fire: every use fizzles.
                emit(
                    p,
                    finish(s),
                    metrics(0, i64::from(uses), 0, i64::from(responses)),
                );
                continue;
            }
            let responses = i64::from(responses);
            match followed {
                Followed::Rally => {
                    for ((r, layout), q) in self.rally(&s, actor, uses)? {
                        let mut next = s.clone();
                        next[actor].alive += r;
                        next[actor].restored += r;
                        next[actor].layout = layout;
                        emit(
                            p * q,
                            finish(next),
                            metrics(i64::from(uses), 0, 0, responses),
                        );
                    }
                }
                Followed::Shoot(declared) => {
                    let mut volleys: Dist<Volley> = Dist::new();
                    add(&mut volleys, (s, declared, 0), 1.0);
                    for use_ in 0..uses {
                        let mut next: Dist<Volley> = Dist::new();
                        for ((s, mut target, fizzled), q) in volleys {
                            if use_ > 0 && !self.target_legal(&s, actor, target) {
                                let retarget = if scenario.options.masters_retarget {
                                    self.pick(&s, actor, Target::Nearest)
                                } else {
                                    None
                                };
                                match retarget {
                                    Some(t) => target = t,
                                    None => {
                                        add(&mut next, (s, target, fizzled + 1), q);
                                        continue;
                                    }
                                }
                            }
                            let defends = defending && target == declared;
                            for (pv, s) in self.volley(&s, actor, target, 0, defends) {
                                add(&mut next, (s, target, fizzled), q * pv);
                            }
                        }
                        volleys = next;
                    }
                    for ((s, _, fizzled), q) in volleys {
                        let fizzled = i64::from(fizzled);
                        let resolved = i64::from(uses) - fizzled;
                        emit(p * q, finish(s), metrics(resolved, fizzled, 0, responses));
                    }
                }
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Answer {
    Nothing,
    Defend,
    Fire,
}

/// Deals `unsaved` failed tests of `damage` each to a unit of `hp`-HP models: a damaged model
/// first, else a fresh one; damage beyond a model's HP is lost unless `spill`; stops when the
/// unit has no model left.
pub fn wound(u: &mut UnitState, hp: u32, damage: u32, spill: bool, unsaved: u32) {
    for _ in 0..unsaved {
        if u.alive == 0 {
            return;
        }
        let mut remaining = damage;
        while remaining > 0 && u.alive > 0 {
            let taken = remaining.min(hp - u.wound);
            u.wound += taken;
            remaining -= taken;
            u.damage_taken += taken;
            if u.wound == hp {
                u.wound = 0;
                u.alive -= 1;
                u.lost += 1;
            }
            if !spill {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wounds_go_to_the_damaged_model_and_spill_only_when_asked() {
        // 2 models of 3 HP, 2 damage per failed test (tests/integration/commands.rs, by hand).
        for (hits, no_spill, spill) in [
            (1, (2, 0), (2, 0)),
            (2, (3, 1), (4, 1)),
            (3, (5, 1), (6, 2)),
        ] {
            let mut u = UnitState::starting(2);
            wound(&mut u, 3, 2, false, hits);
            assert_eq!((u.damage_taken, u.lost), no_spill, "{hits} hits, no spill");
            let mut u = UnitState::starting(2);
            wound(&mut u, 3, 2, true, hits);
            assert_eq!((u.damage_taken, u.lost), spill, "{hits} hits, spill");
        }
    }
}
