//! Who activates next in an engagement: the one statement of its schedule, followed alike by
//! the simulation ([`super::play`]), the exact engine and the advice.
//!
//! A round opens with its first side ([`FirstSide`]); then the sides take turns, each
//! activating the next of its units (in file order) with a model on the table, a side with none
//! left passing; the round is over once every side in a row has passed. The engagement is over
//! after its last round or, under `until = "destroyed"`, as soon as at most one side has a model
//! on the table: a driver asks [`Schedule::over_before`] before each round and
//! [`Schedule::decided`] after each activation.
//!
//! The schedule is pure: it learns which units have a model on the table from a closure, and it
//! never draws. A first side drawn at random is only named ([`FirstSide::Drawn`]), so the
//! simulation draws it where it always has and the exact engine branches on it.

use crate::scenario::{Engagement, First, Until};

/// An engagement's schedule: each side's units in activation order, which side opens a round,
/// how many rounds there are and when the engagement ends early.
#[derive(Debug, Clone)]
pub struct Schedule {
    /// Per side, its units in file order: the order it activates them.
    side_units: Vec<Vec<usize>>,
    first: First,
    rounds: u32,
    until: Until,
}

/// The side that opens a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstSide {
    /// This side, by index into the engagement's sides.
    Known(usize),
    /// One uniform draw among this many sides (only ever more than one).
    Drawn(u32),
}

impl FirstSide {
    /// Each side that may open the round, with its probability.
    pub fn chances(self) -> Vec<(usize, f64)> {
        match self {
            FirstSide::Known(side) => vec![(side, 1.0)],
            FirstSide::Drawn(sides) => (0..sides as usize)
                .map(|side| (side, 1.0 / f64::from(sides)))
                .collect(),
        }
    }
}

/// Where a round's turns stand. Ordered field by field, so that a driver keeping rounds as
/// data can order them.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Turns {
    /// Sides in a row that had no unit left to activate.
    idle: usize,
    /// The side to move.
    side: usize,
    /// Per side, the place (among its units in file order) of the next unit to consider.
    cursors: Vec<usize>,
}

impl Turns {
    /// Per side, the place (among its units in file order) of the next unit to consider.
    pub fn cursors(&self) -> &[usize] {
        &self.cursors
    }

    /// Units activated or passed over so far this round: every activation raises it.
    pub fn considered(&self) -> usize {
        self.cursors.iter().sum()
    }
}

/// What happens next in a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// `side` activates `unit`.
    Activate { side: usize, unit: usize },
    /// The side to move has no unit left to activate; another side moves.
    Pass,
    /// No side has a unit left to activate: the round is over.
    RoundOver,
}

/// Where an engagement stands between two moves of a driver that keeps it as data: before a
/// round (the end check, then its first side), or in one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    Before,
    In(Turns),
}

impl Schedule {
    pub fn new(engagement: &Engagement) -> Schedule {
        let mut side_units = vec![Vec::new(); engagement.sides.len()];
        for (unit, &side) in engagement.side_of.iter().enumerate() {
            side_units[side].push(unit);
        }
        Schedule {
            side_units,
            first: engagement.first,
            rounds: engagement.rounds,
            until: engagement.until,
        }
    }

    /// How many sides the engagement has.
    pub fn sides(&self) -> usize {
        self.side_units.len()
    }

    /// Whether the engagement is over before round `round` would start: past its last round,
    /// or [`Self::decided`]. `alive(u)`: unit `u` has a model on the table.
    pub fn over_before(&self, round: u32, alive: impl Fn(usize) -> bool) -> bool {
        round > self.rounds || self.decided(alive)
    }

    /// Whether the engagement ends where it stands: under `until = "destroyed"`, at most one
    /// side has a model on the table.
    pub fn decided(&self, alive: impl Fn(usize) -> bool) -> bool {
        self.until == Until::Destroyed && self.standing(alive).nth(1).is_none()
    }

    /// The sides with a model on the table, in order.
    pub fn standing<'s>(
        &'s self,
        alive: impl Fn(usize) -> bool + 's,
    ) -> impl Iterator<Item = usize> + 's {
        (0..self.sides()).filter(move |&side| self.side_units[side].iter().any(|&u| alive(u)))
    }

    /// The one side with a model on the table, if only one has.
    pub fn winner(&self, alive: impl Fn(usize) -> bool) -> Option<usize> {
        let mut standing = self.standing(alive);
        match (standing.next(), standing.next()) {
            (Some(side), None) => Some(side),
            _ => None,
        }
    }

    /// The side that opens round `round`: a draw only when there is a choice.
    pub fn first_side(&self, round: u32) -> FirstSide {
        let sides = self.sides();
        match self.first {
            First::Side(side) => FirstSide::Known(side),
            First::Alternate => FirstSide::Known((round as usize - 1) % sides),
            First::Random if sides > 1 => FirstSide::Drawn(sides as u32),
            First::Random => FirstSide::Known(0),
        }
    }

    /// The turns of a round that `side` opens.
    pub fn open(&self, side: usize) -> Turns {
        let mut turns = Turns::default();
        self.reopen(&mut turns, side);
        turns
    }

    /// As [`Self::open`], reusing `turns`' buffer.
    pub fn reopen(&self, turns: &mut Turns, side: usize) {
        turns.idle = 0;
        turns.side = side;
        turns.cursors.clear();
        turns.cursors.resize(self.sides(), 0);
    }

    /// The next move of the round, `turns` moved past it: the side to move activates its next
    /// unit with a model on the table (`alive(u)`), or passes when it has none left.
    pub fn next(&self, turns: &mut Turns, alive: impl Fn(usize) -> bool) -> Next {
        let side = turns.side;
        let units = &self.side_units[side];
        let mut next = turns.cursors[side];
        while next < units.len() && !alive(units[next]) {
            next += 1;
        }
        turns.side = (side + 1) % self.sides();
        if next < units.len() {
            turns.cursors[side] = next + 1;
            turns.idle = 0;
            return Next::Activate {
                side,
                unit: units[next],
            };
        }
        turns.cursors[side] = next;
        turns.idle += 1;
        if turns.idle < self.sides() {
            Next::Pass
        } else {
            Next::RoundOver
        }
    }

    /// `turns` with every pass taken at once: each side's cursor past its units with no model on
    /// the table, and the side to move the first from `turns`' with a unit left; `None` when
    /// no side has one (the round is over). Two histories that leave the same units to
    /// activate then settle alike.
    pub fn settle(&self, turns: Turns, alive: impl Fn(usize) -> bool) -> Option<Turns> {
        let cursors = self.remaining(&turns.cursors, alive);
        let sides = self.sides();
        let side = (0..sides)
            .map(|k| (turns.side + k) % sides)
            .find(|&side| cursors[side] < self.side_units[side].len())?;
        Some(Turns {
            idle: 0,
            side,
            cursors,
        })
    }

    /// Per side, the place of its next unit still to activate this round: `cursors` moved past
    /// its units with no model on the table (`alive(u)` false), which are skipped whenever
    /// their turn comes and never come back.
    pub fn remaining(&self, cursors: &[usize], alive: impl Fn(usize) -> bool) -> Vec<usize> {
        self.side_units
            .iter()
            .zip(cursors)
            .map(|(units, &c)| {
                let mut c = c.min(units.len());
                while c < units.len() && !alive(units[c]) {
                    c += 1;
                }
                c
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(side_of: &[usize], sides: usize) -> Schedule {
        let mut side_units = vec![Vec::new(); sides];
        for (unit, &side) in side_of.iter().enumerate() {
            side_units[side].push(unit);
        }
        Schedule {
            side_units,
            first: First::Random,
            rounds: 3,
            until: Until::Destroyed,
        }
    }

    /// Every move of a round until it is over.
    fn moves(schedule: &Schedule, side: usize, alive: &[bool]) -> Vec<Next> {
        let mut turns = schedule.open(side);
        let mut moves = Vec::new();
        loop {
            let next = schedule.next(&mut turns, |u| alive[u]);
            moves.push(next);
            if next == Next::RoundOver {
                return moves;
            }
        }
    }

    #[test]
    fn sides_alternate_and_the_round_ends_when_all_have_passed() {
        let schedule = schedule(&[0, 1, 0], 2);
        let activate = |side, unit| Next::Activate { side, unit };
        assert_eq!(
            moves(&schedule, 1, &[true, true, true]),
            [
                activate(1, 1),
                activate(0, 0),
                Next::Pass,
                activate(0, 2),
                Next::Pass,
                Next::RoundOver
            ]
        );
        // A unit with no model on the table is skipped.
        assert_eq!(
            moves(&schedule, 0, &[false, true, true]),
            [activate(0, 2), activate(1, 1), Next::Pass, Next::RoundOver]
        );
    }

    #[test]
    fn settling_takes_every_pass_at_once() {
        let schedule = schedule(&[0, 1, 0, 1], 2);
        let alive = [true, false, true, true];
        let mut turns = schedule.open(0);
        assert_eq!(
            schedule.next(&mut turns, |u| alive[u]),
            Next::Activate { side: 0, unit: 0 }
        );
        // Side 1's first unit is down: its cursor moves past it.
        let settled = schedule.settle(turns, |u| alive[u]).unwrap();
        assert_eq!((settled.side, settled.cursors()), (1, &[1, 1][..]));
        assert_eq!(settled.considered(), 2);
        let over = Turns {
            idle: 0,
            side: 0,
            cursors: vec![2, 2],
        };
        assert_eq!(schedule.settle(over, |u| alive[u]), None);
    }

    #[test]
    fn the_first_side_is_drawn_only_among_several() {
        let mut two = schedule(&[0, 1], 2);
        assert_eq!(two.first_side(1), FirstSide::Drawn(2));
        assert_eq!(FirstSide::Drawn(2).chances(), [(0, 0.5), (1, 0.5)]);
        assert_eq!(schedule(&[0], 1).first_side(1), FirstSide::Known(0));
        two.first = First::Alternate;
        assert_eq!(
            [two.first_side(1), two.first_side(2)],
            [FirstSide::Known(0), FirstSide::Known(1)]
        );
    }

    #[test]
    fn the_engagement_is_over_when_one_side_stands_or_the_rounds_run_out() {
        let schedule = schedule(&[0, 1], 2);
        assert!(!schedule.over_before(3, |_| true));
        assert!(schedule.over_before(4, |_| true));
        assert!(schedule.decided(|u| u == 1));
        assert_eq!(schedule.winner(|u| u == 1), Some(1));
        assert_eq!(schedule.winner(|_| true), None);
    }
}
