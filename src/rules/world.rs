//! The state of one trial: each unit's counters, restrictions and command token, and its
//! models.
//!
//! Positions are materialised lazily. A trial starts "pristine": every unit stands exactly as
//! the scenario placed it, no model added, removed, moved or damaged. While it is, rules may use
//! results precomputed for the starting layout instead of touching geometry, which keeps the
//! common one-step trial free of per-model work. Rules reach models only through
//! [`World::models`] (which lists them first), the placement buffers `gather_bases` fills
//! (likewise), [`World::models_mut`] (which also ends pristineness) and
//! `rallied_from_start` (precomputed Rally placements, also ending it), so no rule can read
//! unlisted models or change them unnoticed.

mod state_key;

use super::placement::{Base, Memo};
use super::plan::Plan;
use crate::geometry::spatial::bounds;
use crate::geometry::{any_within, closest, Point, Reach, EPS};
use crate::metrics::UnitMetrics;

/// Restrictions a command applies to its unit, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Restrictions(u8);

impl Restrictions {
    pub const NONE: Restrictions = Restrictions(0);
    pub const SHOOT: Restrictions = Restrictions(1);
    pub const RUN: Restrictions = Restrictions(2);
    pub const DEFEND: Restrictions = Restrictions(4);

    pub const fn union(self, other: Restrictions) -> Restrictions {
        Restrictions(self.0 | other.0)
    }

    pub fn intersects(self, other: Restrictions) -> bool {
        self.0 & other.0 != 0
    }
}

/// One model on the table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model {
    pub centre: Point,
    pub hp: u32,
}

/// How a unit's models are known: as the scenario placed them, as the starting layout plus
/// precomputed Rally placements, or listed in `models`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    Initial,
    /// The starting models, then the first `first` spots of the unit's precomputed Rally
    /// placements, then the first `second` spots of its precomputed second use after `first`.
    Rallied {
        first: u32,
        second: u32,
    },
    Materialized,
}

#[derive(Debug, Clone)]
pub struct UnitState {
    pub alive: u32,
    pub restored: u32,
    pub lost: u32,
    pub damage_taken: u32,
    pub restrictions: Restrictions,
    pub token: bool,
    /// Declared Defend in the window of the command now resolving.
    pub defending: bool,
}

impl UnitState {
    /// The unit's metrics row, as a trial reports it at its end.
    pub fn metrics(&self) -> UnitMetrics {
        UnitMetrics {
            alive: i64::from(self.alive),
            restored: i64::from(self.restored),
            lost: i64::from(self.lost),
            damage_taken: i64::from(self.damage_taken),
            destroyed: i64::from(self.alive == 0),
        }
    }
}

/// A trial's state; also the engine's per-worker scratch, reused across trials.
#[derive(Debug, Clone)]
pub struct World {
    pub units: Vec<UnitState>,
    pub round: u32,
    /// Every unit stands as the scenario placed it (see the module doc).
    pristine: bool,
    /// How each unit's models are known.
    layouts: Vec<Layout>,
    /// Every layout is `Materialized`: read on every wound, so it answers without a loop.
    listed: bool,
    /// Each unit's models; unit i's are valid only when `layouts[i]` is `Materialized`.
    models: Vec<Vec<Model>>,
    /// Each listed unit's box around its models' centres (`None`: it has none), known when
    /// `boxed[i]`: worked out on first need after the models were listed or changed.
    boxes: Vec<Option<(Point, Point)>>,
    boxed: Vec<bool>,
    /// Reused buffers for geometry queries, so the slow path allocates only while warming up.
    pub(crate) bases: Vec<Base>,
    pub(crate) enemies: Vec<Base>,
    pub(crate) anchors: Vec<Point>,
    pub(crate) placed: Vec<Point>,
    /// The tests of [`World::within`] made so far, by radii and distance (as bits).
    reaches: Vec<([u64; 3], Reach)>,
    /// Rally placements searched before, for layouts that come again: not state (a search
    /// would find the same spots), and kept across trials, as the world is one plan's.
    memo: Memo,
    /// An engagement's round: whose turn it is and, per side, the next unit to consider.
    pub(crate) turns: super::engagement::schedule::Turns,
}

impl World {
    pub fn new(plan: &Plan) -> World {
        let units = &plan.scenario().units;
        World {
            units: units
                .iter()
                .map(|u| UnitState {
                    alive: u.alive(),
                    restored: 0,
                    lost: 0,
                    damage_taken: 0,
                    restrictions: Restrictions::NONE,
                    token: false,
                    defending: false,
                })
                .collect(),
            round: 1,
            pristine: true,
            layouts: vec![Layout::Initial; units.len()],
            listed: false,
            models: units
                .iter()
                .map(|u| Vec::with_capacity(u.size as usize))
                .collect(),
            boxes: vec![None; units.len()],
            boxed: vec![false; units.len()],
            bases: Vec::new(),
            enemies: Vec::new(),
            anchors: Vec::new(),
            placed: Vec::new(),
            memo: Memo::default(),
            reaches: Vec::new(),
            turns: Default::default(),
        }
    }

    /// Back to the scenario's starting state, without freeing any buffer.
    pub fn reset(&mut self, plan: &Plan, round: u32) {
        for (state, unit) in self.units.iter_mut().zip(&plan.scenario().units) {
            state.alive = unit.alive();
            state.restored = 0;
            state.lost = 0;
            state.damage_taken = 0;
            state.restrictions = Restrictions::NONE;
            state.token = false;
            state.defending = false;
        }
        self.layouts.fill(Layout::Initial);
        self.listed = false;
        self.boxed.fill(false);
        self.pristine = true;
        self.round = round;
    }

    /// Tokens and restrictions last until the end of the round.
    pub fn start_round(&mut self, round: u32) {
        if round != self.round {
            for u in &mut self.units {
                u.restrictions = Restrictions::NONE;
                u.token = false;
            }
            self.round = round;
        }
    }

    /// Every unit stands as the scenario placed it: no model added, removed, moved or damaged.
    pub fn pristine(&self) -> bool {
        self.pristine
    }

    /// Every unit's models (indexed by unit), listed first where they were not.
    pub fn models(&mut self, plan: &Plan) -> &[Vec<Model>] {
        self.materialize(plan);
        &self.models
    }

    /// Every unit's models, to change: the trial is no longer pristine. A rule that adds or
    /// removes models keeps the unit's `alive` equal to its number of models.
    pub fn models_mut(&mut self, plan: &Plan) -> &mut [Vec<Model>] {
        self.materialize(plan);
        self.pristine = false;
        self.boxed.fill(false);
        &mut self.models
    }

    /// Every unit's models, to damage or remove only, never to add or move: the trial is no
    /// longer pristine, and each unit's box, still holding its models, is kept (a box larger
    /// than its models decides no differently, see
    /// [`boxes_decide_within`](crate::geometry::boxes_decide_within)).
    pub(crate) fn models_losing(&mut self, plan: &Plan) -> &mut [Vec<Model>] {
        self.materialize(plan);
        self.pristine = false;
        &mut self.models
    }

    /// Adds a model of full HP to `unit` at each spot of `placed`: the trial is no longer
    /// pristine. Only this unit's box changes, grown to hold the spots when known (the
    /// smallest and largest coordinates of all its models, as [`bounds`] would give them, or
    /// a box kept from before losses that holds them all), so the other boxes are kept.
    pub(crate) fn restore_placed(&mut self, plan: &Plan, unit: usize) {
        self.materialize(plan);
        self.pristine = false;
        let hp = plan.scenario().units[unit].hp;
        let models = &mut self.models[unit];
        // A box kept from before the last model fell holds no model that is left.
        let known = self.boxed[unit] && !models.is_empty();
        models.extend(self.placed.iter().map(|&centre| Model { centre, hp }));
        match (self.boxes[unit], bounds(self.placed.iter().copied())) {
            (Some((lo, hi)), Some((plo, phi))) if known => {
                self.boxes[unit] = Some((
                    Point::new(lo.x.min(plo.x), lo.y.min(plo.y)),
                    Point::new(hi.x.max(phi.x), hi.y.max(phi.y)),
                ));
            }
            _ => self.boxed[unit] = false,
        }
    }

    /// A pristine unit's models become its starting models, then the first `first` of its
    /// precomputed Rally spots, then the first `second` of the spots after those: listed only
    /// when a rule asks. The trial is no longer pristine.
    pub(crate) fn rallied_from_start(&mut self, unit: usize, first: u32, second: u32) {
        debug_assert!(self.pristine);
        self.layouts[unit] = Layout::Rallied { first, second };
        self.listed = false;
        self.boxed[unit] = false;
        self.pristine = false;
    }

    #[inline]
    fn materialize(&mut self, plan: &Plan) {
        if !self.listed {
            self.list(plan);
        }
    }

    fn list(&mut self, plan: &Plan) {
        self.listed = true;
        for (i, (layout, models)) in self.layouts.iter_mut().zip(&mut self.models).enumerate() {
            if *layout == Layout::Materialized {
                continue;
            }
            let unit = &plan.scenario().units[i];
            let full = |centre: Point| Model {
                centre,
                hp: unit.hp,
            };
            models.clear();
            models.extend(unit.models.iter().copied().map(full));
            if let Layout::Rallied { first, second } = *layout {
                let spots = plan.rally_spots(i);
                models.extend(spots[..first as usize].iter().copied().map(full));
                if second > 0 {
                    let after = plan.second_rally_spots(i, first as usize);
                    models.extend(after[..second as usize].iter().copied().map(full));
                }
            }
            debug_assert_eq!(models.len(), self.units[i].alive as usize);
            *layout = Layout::Materialized;
            self.boxed[i] = false;
        }
    }

    /// Edge-to-edge distance between the closest models of two units (infinite when either
    /// has none). While the trial is pristine the models stand where the scenario placed
    /// them, so the plan's starting distance is the answer.
    pub fn unit_distance(&mut self, plan: &Plan, a: usize, b: usize) -> f64 {
        if self.pristine && plan.fast_paths() {
            return plan.starting_distance(a, b);
        }
        let (ua, ub) = (&plan.scenario().units[a], &plan.scenario().units[b]);
        let models = self.models(plan);
        closest(
            models[a].iter().map(|m| m.centre),
            ua.radius(),
            models[b].iter().map(|m| m.centre),
            ub.radius(),
        )
    }

    /// Whether the closest models of units `a` and `b` are within `reach` of each other,
    /// edge to edge: `unit_distance(a, b) <= reach + EPS`, the same answer, from the units'
    /// boxes alone whenever they decide it (see
    /// [`boxes_decide_within`](crate::geometry::boxes_decide_within)). Lists the models as
    /// [`World::unit_distance`] does.
    pub fn units_within(&mut self, plan: &Plan, a: usize, b: usize, reach: f64) -> bool {
        if self.pristine && plan.fast_paths() {
            return plan.starting_distance(a, b) <= reach + EPS;
        }
        self.materialize(plan);
        let (ua, ub) = (&plan.scenario().units[a], &plan.scenario().units[b]);
        let (Some(box_a), Some(box_b)) = (self.unit_box(a), self.unit_box(b)) else {
            return false;
        };
        let test = self.within(ua.radius(), ub.radius(), reach);
        if let Some(answer) = test.decide_boxes(box_a, box_b) {
            return answer;
        }
        self.unit_distance(plan, a, b) <= reach + EPS
    }

    /// Whether a model of `unit` is within `inches` of an enemy model, edge to edge: Rally's
    /// 1" rule and the `enemy_within(D)` condition alike. Each enemy unit is first asked of
    /// the units' boxes, and searched model by model only when they do not decide.
    pub fn enemy_within(&mut self, plan: &Plan, unit: usize, inches: f64) -> bool {
        let units = &plan.scenario().units;
        let me = &units[unit];
        self.materialize(plan);
        let Some(my_box) = self.unit_box(unit) else {
            return false;
        };
        (0..units.len()).any(|e| {
            let other = &units[e];
            if other.side == me.side {
                return false;
            }
            let Some(their_box) = self.unit_box(e) else {
                return false;
            };
            let test = self.within(me.radius(), other.radius(), inches);
            test.decide_boxes(my_box, their_box).unwrap_or_else(|| {
                any_within(
                    self.models[unit].iter().map(|m| m.centre),
                    me.radius(),
                    self.models[e].iter().map(|m| m.centre),
                    other.radius(),
                    inches,
                )
            })
        })
    }

    /// The test "within `d`, edge to edge" on bases of radii `ra` and `rb`, made once: its
    /// [`Reach::decide_boxes`] is [`boxes_decide_within`](crate::geometry::boxes_decide_within),
    /// bit for bit (the same expression, without its two square roots whenever the squared
    /// distances are off the boundary).
    fn within(&mut self, ra: f64, rb: f64, d: f64) -> Reach {
        let key = [ra.to_bits(), rb.to_bits(), d.to_bits()];
        if let Some(&(_, test)) = self.reaches.iter().find(|(k, _)| *k == key) {
            return test;
        }
        if self.reaches.len() >= 64 {
            self.reaches.clear();
        }
        let test = Reach::within(ra, rb, d);
        self.reaches.push((key, test));
        test
    }

    /// A box around `unit`'s models, which must be listed (`None` when it has none: a box
    /// kept from before the last model fell must not answer for an empty unit).
    fn unit_box(&mut self, unit: usize) -> Option<(Point, Point)> {
        debug_assert_eq!(self.layouts[unit], Layout::Materialized);
        if self.models[unit].is_empty() {
            return None;
        }
        if !self.boxed[unit] {
            self.boxes[unit] = bounds(self.models[unit].iter().map(|m| m.centre));
            self.boxed[unit] = true;
        }
        self.boxes[unit]
    }

    /// Puts in `placed` the spots of up to `count` models restored around `unit`'s models,
    /// remembered or searched once for every missing model, when its placement depends on
    /// its own models alone: no `chain`, and every other unit too far to bar a candidate.
    /// False, `placed` left empty, when it may depend on more.
    pub(crate) fn remembered_spots(&mut self, plan: &Plan, unit: usize, count: usize) -> bool {
        self.placed.clear();
        let scenario = plan.scenario();
        if scenario.options.rally_chain {
            return false;
        }
        self.materialize(plan);
        let me = &scenario.units[unit];
        let Some(own) = self.unit_box(unit) else {
            return false;
        };
        for (o, other) in scenario.units.iter().enumerate() {
            let Some(theirs) = self.unit_box(o).filter(|_| o != unit) else {
                continue;
            };
            let enemy = other.side != me.side;
            if !self
                .memo
                .bars_none(own, me.radius(), theirs, other.radius(), enemy)
            {
                return false;
            }
        }
        self.anchors.clear();
        self.anchors
            .extend(self.models[unit].iter().map(|m| m.centre));
        let missing = (me.size - self.units[unit].alive) as usize;
        self.memo.place(
            &scenario.battlefield,
            unit,
            &self.anchors,
            me.radius(),
            (count, missing),
            &mut self.placed,
        );
        true
    }

    /// Fills the reusable buffers for placement around `unit`: `bases` (every model),
    /// `enemies` (its enemies' models) and `anchors` (its own models' centres).
    pub(crate) fn gather_bases(&mut self, plan: &Plan, unit: usize) {
        self.materialize(plan);
        self.bases.clear();
        self.enemies.clear();
        let side = &plan.scenario().units[unit].side;
        for (models, u) in self.models.iter().zip(&plan.scenario().units) {
            let base = |m: &Model| Base {
                centre: m.centre,
                radius: u.radius(),
            };
            self.bases.extend(models.iter().map(base));
            if &u.side != side {
                self.enemies.extend(models.iter().map(base));
            }
        }
        self.anchors.clear();
        self.anchors
            .extend(self.models[unit].iter().map(|m| m.centre));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;

    #[test]
    fn reading_models_keeps_the_trial_pristine_and_changing_them_ends_it() {
        let text = r#"
[scenario]
name = "w"
[[unit]]
id = "a"
side = "blue"
size = 3
alive = 2
resolve = "d6>=4"
models = [[10.0, 10.0], [12.0, 10.0]]
[[step]]
unit = "a"
command = "rally"
"#;
        let set = scenario::parse(text, "w.toml", &[]).unwrap();
        let plan = Plan::compile(set.variants[0].scenario());
        let mut world = World::new(&plan);
        assert!(world.pristine());
        let centres: Vec<Point> = world.models(&plan)[0].iter().map(|m| m.centre).collect();
        assert_eq!(centres, [Point::new(10.0, 10.0), Point::new(12.0, 10.0)]);
        assert!(world.pristine());
        world.models_mut(&plan)[0][1].hp = 0;
        assert!(!world.pristine());
        world.reset(&plan, 1);
        assert!(world.pristine());
        // Listed again from the scenario, undamaged.
        assert!(world.models(&plan)[0].iter().all(|m| m.hp == 1));
    }

    /// Units of 0 to 8 models on a half-inch lattice, close enough that the closest pair is
    /// often exactly the reach apart: the answers through the units' boxes against every pair.
    #[test]
    fn unit_boxes_answer_as_every_pair_of_models_does() {
        use crate::geometry::{closest_by_scan, within, EPS};
        use rand::{Rng, SeedableRng};
        let text = r#"
[scenario]
name = "w"
[battlefield]
width = 48.0
height = 48.0
[[unit]]
id = "a"
side = "blue"
size = 8
resolve = "d6>=4"
formation = { kind = "line", x = 2.0, y = 2.0, spacing = 2.0 }
[[unit]]
id = "b"
side = "red"
size = 8
base = 1.5
formation = { kind = "line", x = 2.0, y = 10.0, spacing = 2.0 }
[[unit]]
id = "c"
side = "red"
size = 8
base = 2.0
formation = { kind = "line", x = 2.0, y = 20.0, spacing = 3.0 }
[[step]]
unit = "a"
command = "rally"
"#;
        let set = scenario::parse(text, "w.toml", &[]).unwrap();
        let plan = Plan::compile(set.variants[0].scenario());
        let units = &plan.scenario().units;
        let mut world = World::new(&plan);
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(163);
        let (mut yes, mut no, mut exact) = (0, 0, 0);
        for round in 0..3_000 {
            world.reset(&plan, 1);
            let spread = [2.0, 6.0, 16.0][round % 3];
            for (u, models) in world.models_mut(&plan).iter_mut().enumerate() {
                let keep = (rng.next_u64() % 9) as usize;
                models.truncate(keep);
                for m in models.iter_mut() {
                    let mut c =
                        |o: f64| o + (rng.next_u64() % (spread as u64 * 2 + 1)) as f64 * 0.5;
                    m.centre = Point::new(c(10.0), c(10.0 + 3.0 * u as f64));
                }
            }
            // Then again after models are lost, the boxes kept from before (larger than the
            // models left), and after models are restored, the boxes grown to hold them.
            for phase in 0..3 {
                if phase == 2 {
                    for u in 0..3 {
                        world.placed.clear();
                        for _ in 0..rng.next_u64() % 4 {
                            let mut c = |o: f64| o + (rng.next_u64() % 33) as f64 * 0.5;
                            world
                                .placed
                                .push(Point::new(c(4.0), c(4.0 + 3.0 * u as f64)));
                        }
                        world.units[u].alive += world.placed.len() as u32;
                        world.restore_placed(&plan, u);
                    }
                }
                if phase == 1 {
                    for (u, models) in world.models_losing(&plan).iter_mut().enumerate() {
                        // Unit `b` loses every model every third round.
                        let gone = if u == 1 && round % 3 == 0 {
                            models.len()
                        } else {
                            models.len() / 2
                        };
                        models.drain(..gone);
                    }
                }
                let models: Vec<Vec<Point>> = world
                    .models(&plan)
                    .iter()
                    .map(|ms| ms.iter().map(|m| m.centre).collect())
                    .collect();
                for reach in [0.0, 0.5, 1.0, 2.0, 3.5, 6.0] {
                    for (a, b) in [(0, 1), (1, 0), (0, 2), (1, 2)] {
                        let (ra, rb) = (units[a].radius(), units[b].radius());
                        let d = closest_by_scan(
                            models[a].iter().copied(),
                            ra,
                            models[b].iter().copied(),
                            rb,
                        );
                        let stated = d <= reach + EPS;
                        assert_eq!(
                            world.units_within(&plan, a, b, reach),
                            stated,
                            "round {round}"
                        );
                        exact += usize::from(d == reach);
                        if stated {
                            yes += 1
                        } else {
                            no += 1
                        }
                    }
                    for unit in 0..3 {
                        let me = &units[unit];
                        let stated = (0..3).any(|e| {
                            units[e].side != me.side
                                && models[unit].iter().any(|&p| {
                                    models[e].iter().any(|&q| {
                                        within(p, me.radius(), q, units[e].radius(), reach)
                                    })
                                })
                        });
                        assert_eq!(
                            world.enemy_within(&plan, unit, reach),
                            stated,
                            "round {round}"
                        );
                    }
                }
            }
        }
        assert!(
            yes > 5_000 && no > 5_000 && exact > 100,
            "{yes} {no} {exact}"
        );
    }
}
