//! Where models stand in the exact engine's states: a table of layouts, and the geometry
//! questions answered from them.
//!
//! A layout is one unit's models in the order the rules keep them (their centres and HP).
//! Which model a wound goes to and where Rally puts restored models are deterministic given
//! every unit's layout, so a state that carries a layout id per unit has a successor layout
//! for every count of dice outcomes: [`Layouts::wounded`] removes and damages models in the
//! order Shoot picks them, [`Layouts::rallied`] appends the spots Rally's search finds (both
//! borrowed from `crate::rules::layout`, the rules' own deterministic geometry; the dice
//! stay restated in `commands`). Layouts are interned per unit, so equal layouts get equal ids
//! and the states holding them merge; id 0 is the scenario's starting layout.
//!
//! Distances (range, `enemy_within`, Rally's 1" rule, the target rules) are measured between
//! layouts as the rules measure them, closest pair edge to edge, and remembered per pair.

use super::state::State;
use crate::geometry::{closest, Point};
use crate::rules::layout;
use crate::rules::world::Model;
use crate::rules::Plan;
use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// A layout's hash, over each model's centre (as bits) and HP.
fn hash(models: &[Model]) -> u64 {
    let mut h = DefaultHasher::new();
    for m in models {
        (m.centre.x.to_bits(), m.centre.y.to_bits(), m.hp).hash(&mut h);
    }
    h.finish()
}

/// The same models, bit for bit, in the same order.
fn same(a: &[Model], b: &[Model]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(p, q)| {
            p.centre.x.to_bits() == q.centre.x.to_bits()
                && p.centre.y.to_bits() == q.centre.y.to_bits()
                && p.hp == q.hp
        })
}

/// (target, its layout, shooter, its layout).
type Pair = (usize, u32, usize, u32);

pub struct Layouts {
    /// Per unit, its layouts by id.
    tables: Vec<Vec<Rc<[Model]>>>,
    /// Per unit, the ids of its layouts by hash (a layout is stored once, in `tables`).
    ids: Vec<HashMap<u64, Vec<u32>>>,
    radius: Vec<f64>,
    full: Vec<u32>,
    /// Closest edge-to-edge distance between two units' layouts.
    distances: RefCell<HashMap<Pair, f64>>,
    /// The order wounds reach the target's models, per target and shooter layouts.
    orders: HashMap<Pair, Rc<[usize]>>,
    /// `wounded`'s answers, by its arguments.
    wounds: HashMap<(Pair, u32, u32), u32>,
    /// Rally's spots for a unit, by every unit's layout.
    spots: HashMap<(usize, Vec<u32>), Rc<[Point]>>,
}

impl Layouts {
    pub fn new(plan: &Plan) -> Layouts {
        let units = &plan.scenario().units;
        let mut l = Layouts {
            tables: vec![Vec::new(); units.len()],
            ids: vec![HashMap::new(); units.len()],
            radius: units.iter().map(|u| u.radius()).collect(),
            full: units.iter().map(|u| u.hp).collect(),
            distances: RefCell::new(HashMap::new()),
            orders: HashMap::new(),
            wounds: HashMap::new(),
            spots: HashMap::new(),
        };
        for (i, u) in units.iter().enumerate() {
            let start: Vec<Model> = u
                .models
                .iter()
                .map(|&centre| Model { centre, hp: u.hp })
                .collect();
            l.intern(i, start);
        }
        l
    }

    /// The id of `models` as a layout of `unit`, new ids numbered from the table's length.
    fn intern(&mut self, unit: usize, models: Vec<Model>) -> u32 {
        let table = &mut self.tables[unit];
        let bucket = self.ids[unit].entry(hash(&models)).or_default();
        if let Some(&id) = bucket
            .iter()
            .find(|&&id| same(&table[id as usize], &models))
        {
            return id;
        }
        table.push(models.into());
        let id = (table.len() - 1) as u32;
        bucket.push(id);
        id
    }

    fn models(&self, unit: usize, layout: u32) -> &[Model] {
        &self.tables[unit][layout as usize]
    }

    /// Edge-to-edge distance between the closest models of units `a` and `b` in `s`
    /// (infinite when either has none).
    pub fn distance(&self, s: &State, a: usize, b: usize) -> f64 {
        let key = (a, s[a].layout, b, s[b].layout);
        if let Some(&d) = self.distances.borrow().get(&key) {
            return d;
        }
        let (ma, mb) = (self.models(a, key.1), self.models(b, key.3));
        let d = closest(
            ma.iter().map(|m| m.centre),
            self.radius[a],
            mb.iter().map(|m| m.centre),
            self.radius[b],
        );
        self.distances.borrow_mut().insert(key, d);
        d
    }

    /// The layout of `target` after a volley of `shooter` in `s` killed `killed` models and
    /// left `wound` damage on the next one: the first `killed` models in Shoot's order gone,
    /// the rest in their order, the next one `wound` HP down.
    pub fn wounded(
        &mut self,
        s: &State,
        target: usize,
        shooter: usize,
        killed: u32,
        wound: u32,
    ) -> u32 {
        let before = s[target].layout;
        let key = (target, before, shooter, s[shooter].layout);
        if let Some(&id) = self.wounds.get(&(key, killed, wound)) {
            return id;
        }
        let order = match self.orders.get(&key) {
            Some(o) => o.clone(),
            None => {
                let o: Rc<[usize]> = layout::wound_order(
                    self.models(target, before),
                    self.full[target],
                    self.models(shooter, key.3),
                )
                .into();
                self.orders.insert(key, o.clone());
                o
            }
        };
        let mut models = self.models(target, before).to_vec();
        let full = self.full[target];
        if let Some(&next) = order.get(killed as usize) {
            models[next].hp = full - wound;
        }
        let mut gone = vec![false; models.len()];
        for &i in &order[..killed as usize] {
            gone[i] = true;
        }
        let mut gone = gone.into_iter();
        models.retain(|_| !gone.next().unwrap_or(false));
        let id = self.intern(target, models);
        self.wounds.insert((key, killed, wound), id);
        id
    }

    /// Where one use of Rally by `unit` places up to every missing model when the units stand
    /// as `layouts` say; `size` is the unit's size.
    pub fn rally_spots(&mut self, plan: &Plan, layouts: Vec<u32>, unit: usize) -> Rc<[Point]> {
        if let Some(s) = self.spots.get(&(unit, layouts.clone())) {
            return s.clone();
        }
        let models: Vec<&[Model]> = layouts
            .iter()
            .enumerate()
            .map(|(u, &l)| self.models(u, l))
            .collect();
        let missing = plan.scenario().units[unit].size as usize - models[unit].len();
        let spots: Rc<[Point]> =
            layout::rally_spots(plan.scenario(), &models, unit, missing).into();
        self.spots.insert((unit, layouts), spots.clone());
        spots
    }

    /// The layout of `unit` from `layout` with models of full HP added at `spots`.
    pub fn rallied(&mut self, unit: usize, layout: u32, spots: &[Point]) -> u32 {
        if spots.is_empty() {
            return layout;
        }
        let hp = self.full[unit];
        let mut models = self.models(unit, layout).to_vec();
        models.extend(spots.iter().map(|&centre| Model { centre, hp }));
        self.intern(unit, models)
    }
}
