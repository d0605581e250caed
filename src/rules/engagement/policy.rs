//! The advice a `best` order plays: a lookup from the moment of a decision to the option
//! taken there, worked out before any trial (by `rollcall advise`'s backward induction) and
//! held by the plan, so a trial only looks it up.
//!
//! A [`Moment`] holds what the rest of the engagement depends on when a unit is activated:
//! the round, the unit, which units of each side are still to activate this round, and every
//! unit's counts, restrictions and token. Who is still to activate is kept canonical
//! ([`super::Schedule::remaining`]): a unit with no model on the table is skipped whenever its
//! turn comes, and none ever comes back, so a side's cursor is moved past such units at once.
//! Two histories that leave the same moment then share one entry, however they got there.

use std::collections::HashMap;

/// One unit at a moment of decision.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnitKey {
    pub alive: u32,
    pub restored: u32,
    pub lost: u32,
    pub damage_taken: u32,
    /// Damage on the unit's one damaged model (0: none is damaged).
    pub wound: u32,
    /// Restricted from Shoot, Run and Defend, in that order.
    pub restricted: [bool; 3],
    pub token: bool,
}

/// The moment `unit` is activated in `round`: see the module doc.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Moment {
    pub round: u32,
    pub unit: usize,
    /// Per side, the place (in its units in file order) of its next unit still to activate
    /// this round, past the activated unit and past units with no model on the table.
    pub cursors: Vec<usize>,
    pub units: Vec<UnitKey>,
}

/// What a `best` order takes at each moment of decision: the index of the unit's order and
/// of the option in its `among` list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Policy {
    choices: HashMap<Moment, (usize, usize)>,
}

impl Policy {
    pub fn insert(&mut self, moment: Moment, order: usize, option: usize) {
        self.choices.insert(moment, (order, option));
    }

    /// The option advised for order `order` at `moment`, if the advice reached it.
    pub fn option(&self, moment: &Moment, order: usize) -> Option<usize> {
        self.choices
            .get(moment)
            .filter(|(o, _)| *o == order)
            .map(|&(_, option)| option)
    }

    /// How many moments of decision it covers.
    pub fn len(&self) -> usize {
        self.choices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.choices.is_empty()
    }
}
