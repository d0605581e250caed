//! What an engagement works out before any trial: its schedule (each side's units in
//! activation order), and where each metric of the arm goes. It reads only the scenario, so
//! the plan can hold it without depending on the driver that uses it.

use super::schedule::Schedule;
use crate::metrics::{EngagementMetrics, SideMetrics, UnitMetrics};
use crate::scenario::{Engagement, Unit};

/// An engagement's precomputation.
pub struct Prepared {
    /// Who activates next.
    pub(super) schedule: Schedule,
    /// Per unit and `Command::index`, the slot (from the arm's first metric) counting its
    /// declarations, for the commands that have one.
    pub(super) declared: Vec<[Option<usize>; 3]>,
    /// Slot of the first side's row, and of the engagement's row.
    pub(super) sides_at: usize,
    pub(super) engagement_at: usize,
    /// Slot of round 0's records (`Engagement::round_names`, then each later round's), the
    /// records a round has, and the last round.
    pub(super) rounds_at: usize,
    pub(super) round_len: usize,
    pub(super) rounds: u32,
    /// The slots a trial writes while it plays (before derived metrics and the records): what
    /// its state keys hold of its row.
    pub(super) keyed: usize,
    /// How many metrics the arm has, its round records included.
    pub(super) len: usize,
}

impl Prepared {
    /// `width`: the arm's metrics before its round records (built-in and derived).
    pub fn new(units: &[Unit], engagement: &Engagement, width: usize) -> Prepared {
        let sides_at = units.len() * UnitMetrics::LEN;
        let engagement_at = sides_at + engagement.sides.len() * SideMetrics::LEN;
        let mut slot = engagement_at + EngagementMetrics::LEN;
        let declared = engagement
            .declared_commands()
            .into_iter()
            .map(|commands| {
                let mut slots = [None; 3];
                for c in commands {
                    slots[c.index()] = Some(slot);
                    slot += 1;
                }
                slots
            })
            .collect();
        // The records follow every other metric of the arm, derived ones included.
        let rounds_at = width.max(slot);
        let round_len = engagement.round_names(units).len();
        Prepared {
            schedule: Schedule::new(engagement),
            declared,
            sides_at,
            engagement_at,
            rounds_at,
            round_len,
            rounds: engagement.rounds,
            keyed: slot,
            len: rounds_at + round_len * (engagement.rounds as usize + 1),
        }
    }
}
