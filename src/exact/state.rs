//! The state the dynamic programme runs over: per unit, what the rules need next and what the
//! metrics report at the end. Equal states merge, so the programme's size is the number of
//! distinct reachable states, not the number of dice paths.
//!
//! Where the models stand is part of the state, as a layout id per unit (see `geometry`, which
//! interns layouts so that equal layouts get equal ids and states with them merge).

use std::collections::BTreeMap;

/// Restriction bits (the exact engine keeps its own table of which command applies which).
pub const SHOOT: u8 = 1;
pub const RUN: u8 = 2;
pub const DEFEND: u8 = 4;
/// What Rally applies, and any of which bars it: each named, so a new bit does not join.
pub const RALLY: u8 = SHOOT | RUN | DEFEND;

/// One unit within one state. Ordered field by field, so maps of states iterate in a fixed
/// order and the output does not depend on hashing.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnitState {
    pub alive: u32,
    pub restored: u32,
    pub lost: u32,
    pub damage_taken: u32,
    /// Damage on the one damaged model (0: none is damaged). Damage always goes to a damaged
    /// model first, so at most one is ever damaged.
    pub wound: u32,
    pub restrictions: u8,
    pub token: bool,
    /// Which models stand where, with what HP: an id in the programme's layout table, 0 for
    /// the scenario's starting layout.
    pub layout: u32,
}

impl UnitState {
    /// A unit before anything happened to it: `alive` models, no counters, no restriction.
    pub fn starting(alive: u32) -> UnitState {
        UnitState {
            alive,
            restored: 0,
            lost: 0,
            damage_taken: 0,
            wound: 0,
            restrictions: 0,
            token: false,
            layout: 0,
        }
    }
}

pub type State = Vec<UnitState>;

/// A distribution over keys, merged by key, iterated in key order.
pub type Dist<K> = BTreeMap<K, f64>;

/// Adds `p` to `key`'s probability; impossible branches (`p == 0`) are not kept, so geometry
/// is never asked about a state the dice cannot reach.
pub fn add<K: Ord>(dist: &mut Dist<K>, key: K, p: f64) {
    if p > 0.0 {
        *dist.entry(key).or_insert(0.0) += p;
    }
}
