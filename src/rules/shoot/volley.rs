//! Which models one volley's wounds go to: a damaged model first (the first in order), else
//! the one nearest the shooter (to the shooter's closest model; ties: the first in order).
//!
//! Stated per wound, that rule measures every target model against every shooter model each
//! time. But the shooter does not move during its volley and the target only loses models,
//! so each model's distance is worked out once (through a k-d tree over the shooter), the
//! undamaged models wait by (distance, place in order), sorted when few, else in a heap, and
//! the dead leave the
//! target's list in one pass when the volley ends: a volley costs about one pass over the
//! target plus a logarithm per wound, and picks the very models the per-wound rule picks.

use crate::geometry::spatial::Nearest;
use crate::geometry::Point;
use crate::rules::plan::Plan;
use crate::rules::world::{Model, World};
use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One volley's wounds to one target.
pub(super) struct Volley {
    shooter: usize,
    target: usize,
    /// Set once a wound has touched the target's models.
    started: bool,
    /// Whether `waiting` holds the undamaged models.
    ranked: bool,
    /// Undamaged models not yet wounded, nearest first: the bits of the squared distance,
    /// which order non-negative floats as the floats do, then the place in order, packed in
    /// one number (its order theirs: one comparison without a branch, where a pair's took
    /// two that were hard to predict). A few are sorted, nearest last, and taken from the
    /// end; many go in `heap`. The keys differ (by place), so both give them up in the same
    /// order.
    waiting: Vec<Reverse<u128>>,
    heap: BinaryHeap<Reverse<u128>>,
    /// Places in order of the damaged models still alive, ascending.
    damaged: Vec<u32>,
    /// Models killed, still in the target's list (with no HP) until [`Volley::finish`].
    killed: usize,
}

/// Up to this many shooting models, each target model is measured against every one of them
/// (the tree's answer, bit for bit: the smallest of the same squared distances), which beats
/// building the tree.
const SCAN: usize = 16;

/// Up to this many undamaged models wait sorted rather than in a heap.
const SORTED: usize = 32;

#[derive(Default)]
struct Scratch {
    nearest: Nearest,
    waiting: Vec<Reverse<u128>>,
    heap: Vec<Reverse<u128>>,
    damaged: Vec<u32>,
}

thread_local! {
    /// Per thread, so volleys allocate only while warming up.
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

impl Volley {
    pub(super) fn new(shooter: usize, target: usize) -> Volley {
        let (waiting, mut heap, damaged) = SCRATCH.with_borrow_mut(|s| {
            (
                std::mem::take(&mut s.waiting),
                std::mem::take(&mut s.heap),
                std::mem::take(&mut s.damaged),
            )
        });
        heap.clear();
        Volley {
            shooter,
            target,
            started: false,
            ranked: false,
            waiting,
            heap: BinaryHeap::from(heap),
            damaged,
            killed: 0,
        }
    }

    /// Deals one failed test's damage; false once the target has no model left.
    pub(super) fn wound(&mut self, plan: &Plan, world: &mut World, damage: u32) -> bool {
        let (shooter, target) = (self.shooter, self.target);
        let spill = plan.scenario().options.spill;
        let full = plan.scenario().units[target].hp;
        let mut remaining = damage;
        while remaining > 0 {
            let models = world.models_losing(plan);
            if !self.started {
                self.started = true;
                self.damaged.clear();
                self.damaged.extend(
                    (0..models[target].len() as u32)
                        .filter(|&i| models[target][i as usize].hp < full),
                );
            }
            let Some(i) = self.victim(models, shooter, target, full) else {
                return false;
            };
            let model = &mut models[target][i as usize];
            let was_full = model.hp == full;
            let taken = remaining.min(model.hp);
            model.hp -= taken;
            remaining -= taken;
            let killed = model.hp == 0;
            if killed {
                self.killed += 1;
                if let Ok(at) = self.damaged.binary_search(&i) {
                    self.damaged.remove(at);
                }
            } else if was_full && taken > 0 {
                if let Err(at) = self.damaged.binary_search(&i) {
                    self.damaged.insert(at, i);
                }
            }
            let state = &mut world.units[target];
            state.damage_taken += taken;
            if killed {
                state.alive -= 1;
                state.lost += 1;
            }
            if !spill {
                break;
            }
        }
        world.units[target].alive > 0
    }

    /// The model the next wound goes to: the first damaged one, else the nearest undamaged.
    fn victim(
        &mut self,
        models: &[Vec<Model>],
        shooter: usize,
        target: usize,
        full: u32,
    ) -> Option<u32> {
        if let Some(&i) = self.damaged.first() {
            return Some(i);
        }
        if !self.ranked {
            self.ranked = true;
            let waiting = &mut self.waiting;
            waiting.clear();
            let shooters = &models[shooter];
            let undamaged = models[target]
                .iter()
                .enumerate()
                .filter(|(_, m)| m.hp == full);
            if let Some(shooters) = Columns::new(shooters) {
                waiting.extend(undamaged.map(|(i, m)| {
                    let d = shooters.nearest_squared(m.centre);
                    Reverse(u128::from(d.to_bits()) << 32 | i as u128)
                }));
            } else {
                SCRATCH.with_borrow_mut(|s| {
                    s.nearest.rebuild(shooters.iter().map(|m| m.centre));
                    waiting.extend(undamaged.map(|(i, m)| {
                        let d = s.nearest.distance_squared(m.centre);
                        Reverse(u128::from(d.to_bits()) << 32 | i as u128)
                    }));
                });
            }
            if waiting.len() <= SORTED {
                // Ascending in `Reverse`: the nearest last.
                waiting.sort_unstable();
            } else {
                let mut heap = std::mem::take(&mut self.heap).into_vec();
                heap.clear();
                heap.append(waiting);
                self.heap = BinaryHeap::from(heap);
            }
        }
        // Models wounded since they were ranked are dead (no damaged one is left).
        while let Some(Reverse(key)) = self.waiting.pop().or_else(|| self.heap.pop()) {
            let i = key as u32;
            if models[target][i as usize].hp == full {
                return Some(i);
            }
        }
        None
    }

    /// Takes the dead out of the target's list, keeping the order of the living.
    pub(super) fn finish(self, plan: &Plan, world: &mut World) {
        if self.killed > 0 {
            world.models_losing(plan)[self.target].retain(|m| m.hp > 0);
        }
        let (waiting, heap, damaged) = (self.waiting, self.heap.into_vec(), self.damaged);
        SCRATCH.with_borrow_mut(|s| {
            s.waiting = waiting;
            s.heap = heap;
            s.damaged = damaged;
        });
    }
}

/// Up to [`SCAN`] shooters' centres as a column of x and one of y, padded with copies of the
/// first to a multiple of four: a target model's distances to four of them are then worked
/// out side by side in vector registers.
struct Columns {
    xs: [f64; SCAN],
    ys: [f64; SCAN],
    len: usize,
}

impl Columns {
    /// `None` for no shooter or more than [`SCAN`].
    fn new(shooters: &[Model]) -> Option<Columns> {
        let first = shooters.first().filter(|_| shooters.len() <= SCAN)?.centre;
        let mut c = Columns {
            xs: [first.x; SCAN],
            ys: [first.y; SCAN],
            len: shooters.len().next_multiple_of(4),
        };
        for (k, s) in shooters.iter().enumerate() {
            (c.xs[k], c.ys[k]) = (s.centre.x, s.centre.y);
        }
        Some(c)
    }

    /// The smallest squared distance from `p` to a shooter's centre, kept as four running
    /// minima so that each comparison does not wait on the one before; each distance as
    /// [`Point::distance_squared`] works it out. No squared distance is NaN, so the smallest
    /// is the same number in any order, and a copy of the first changes nothing: what a fold
    /// in order gives, bit for bit.
    fn nearest_squared(&self, p: Point) -> f64 {
        let mut least = [f64::INFINITY; 4];
        for (xs, ys) in self.xs[..self.len]
            .chunks_exact(4)
            .zip(self.ys[..self.len].chunks_exact(4))
        {
            for k in 0..4 {
                let (dx, dy) = (p.x - xs[k], p.y - ys[k]);
                let d = dx * dx + dy * dy;
                least[k] = if d < least[k] { d } else { least[k] };
            }
        }
        let low = |a: f64, b: f64| if b < a { b } else { a };
        low(low(least[0], least[1]), low(least[2], least[3]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::world::Model;
    use crate::scenario;
    use rand::{Rng, SeedableRng};

    /// One failed test's damage as first written: the victim searched afresh per wound and
    /// each dead model taken out of the list at once. The oracle.
    fn wound_as_stated(
        plan: &Plan,
        world: &mut World,
        shooter: usize,
        target: usize,
        damage: u32,
    ) -> bool {
        let spill = plan.scenario().options.spill;
        let mut remaining = damage;
        while remaining > 0 {
            let models = world.models_mut(plan);
            let Some(i) = victim_as_stated(plan, models, shooter, target) else {
                return false;
            };
            let model = &mut models[target][i];
            let taken = remaining.min(model.hp);
            model.hp -= taken;
            remaining -= taken;
            let killed = model.hp == 0;
            if killed {
                models[target].remove(i);
            }
            let state = &mut world.units[target];
            state.damage_taken += taken;
            if killed {
                state.alive -= 1;
                state.lost += 1;
            }
            if !spill {
                break;
            }
        }
        world.units[target].alive > 0
    }

    fn victim_as_stated(
        plan: &Plan,
        models: &[Vec<Model>],
        shooter: usize,
        target: usize,
    ) -> Option<usize> {
        let full = plan.scenario().units[target].hp;
        let targets = &models[target];
        if let Some(i) = targets.iter().position(|m| m.hp < full) {
            return Some(i);
        }
        let mut best: Option<(f64, usize)> = None;
        for (i, m) in targets.iter().enumerate() {
            let d = models[shooter]
                .iter()
                .map(|s| m.centre.distance_squared(s.centre))
                .fold(f64::INFINITY, f64::min);
            if best.is_none_or(|(b, _)| d < b) {
                best = Some((d, i));
            }
        }
        best.map(|(_, i)| i)
    }

    /// A shooter and a target on distinct points of a 1" lattice (so that distances tie
    /// often), some of the target's models anywhere in their cell; HP 1 to 3, spill or not.
    fn scenario_text(rng: &mut impl Rng) -> String {
        let mut below = |n: u64| rng.next_u64() % n;
        let mut cells: Vec<u64> = (0..900).collect();
        let mut take = |n: u64, below: &mut dyn FnMut(u64) -> u64| -> Vec<String> {
            (0..n)
                .map(|_| {
                    let c = cells.swap_remove(below(cells.len() as u64) as usize);
                    let jitter = if below(3) == 0 { 0.5 } else { 0.0 };
                    format!(
                        "[{}.0, {:.1}]",
                        1 + c % 30,
                        (1 + c / 30) as f64 * 2.0 + jitter
                    )
                })
                .collect()
        };
        let shooters = 1 + below(30);
        // Half of them few enough to be sorted rather than kept in a heap.
        let most = [32, 300][below(2) as usize];
        let targets = 1 + below(most);
        let s = take(shooters, &mut below).join(", ");
        let t = take(targets, &mut below).join(", ");
        format!(
            r#"
[scenario]
name = "v"
[options]
spill = {spill}
[battlefield]
width = 40.0
height = 70.0
[[unit]]
id = "s"
side = "red"
size = {shooters}
weapon = {{ attacks = 1, hit = "d6>=2", damage = 1, range = 100.0 }}
models = [{s}]
[[unit]]
id = "t"
side = "blue"
size = {targets}
hp = {hp}
models = [{t}]
[[step]]
unit = "s"
command = "shoot"
target = "t"
"#,
            spill = below(2) == 0,
            hp = 1 + below(3),
        )
    }

    #[test]
    fn volleys_wound_the_models_the_rule_per_wound_picks() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(152);
        let mut wounds = 0;
        for round in 0..600 {
            let text = scenario_text(&mut rng);
            let set = scenario::parse(&text, "v.toml", &[]).unwrap();
            let plan = Plan::compile(set.variants[0].scenario());
            let mut fast = World::new(&plan);
            let mut stated = fast.clone();
            // Volleys of 0 to 40 wounds of 0 to 4 damage until a unit is gone, mostly at the
            // target, at times back at the shooter.
            for volley in 0.. {
                let n = rng.next_u64() % 41;
                let damages: Vec<u32> = (0..n).map(|_| (rng.next_u64() % 5) as u32).collect();
                let (s, t) = if volley % 3 == 2 { (1, 0) } else { (0, 1) };
                let mut v = Volley::new(s, t);
                for &d in &damages {
                    wounds += 1;
                    let more = v.wound(&plan, &mut fast, d);
                    assert_eq!(more, wound_as_stated(&plan, &mut stated, s, t, d));
                    if !more {
                        break;
                    }
                }
                v.finish(&plan, &mut fast);
                let counts = |u: &crate::rules::world::UnitState| (u.alive, u.lost, u.damage_taken);
                for u in [0, 1] {
                    let (f, s) = (&fast.units[u], &stated.units[u]);
                    assert_eq!(counts(f), counts(s), "round {round}, volley {volley}");
                    assert_eq!(
                        fast.models(&plan)[u],
                        stated.models(&plan)[u],
                        "round {round}, volley {volley}:\n{text}"
                    );
                }
                assert_eq!(fast.pristine(), stated.pristine());
                if fast.units[0].alive == 0 || fast.units[1].alive == 0 {
                    break;
                }
            }
        }
        assert!(wounds > 20_000, "{wounds}");
    }

    /// Shooters on a half-inch lattice (so that distances tie) or anywhere, 1 to 16 of them:
    /// four running minima over the columns give the fold in order's number, bit for bit.
    #[test]
    fn the_nearest_shooter_is_the_fold_in_order() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(171);
        for round in 0..5_000 {
            let lattice = round % 2 == 0;
            let mut c = || match lattice {
                true => (rng.next_u64() % 40) as f64 * 0.5 - 3.0,
                false => (rng.next_u64() % (1 << 20)) as f64 / (1 << 20) as f64 * 20.0,
            };
            let p = Point::new(c(), c());
            let shooters: Vec<Model> = (0..1 + round % SCAN)
                .map(|_| Model {
                    centre: Point::new(c(), c()),
                    hp: 1,
                })
                .collect();
            let folded = shooters
                .iter()
                .map(|s| p.distance_squared(s.centre))
                .fold(f64::INFINITY, f64::min);
            assert_eq!(
                Columns::new(&shooters)
                    .unwrap()
                    .nearest_squared(p)
                    .to_bits(),
                folded.to_bits(),
                "round {round}"
            );
        }
    }
}
