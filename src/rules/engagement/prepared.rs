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
    /// How many metrics the arm has.
    pub(super) len: usize,
}

impl Prepared {
    pub fn new(units: &[Unit], engagement: &Engagement) -> Prepared {
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
        Prepared {
            schedule: Schedule::new(engagement),
            declared,
            sides_at,
            engagement_at,
            len: slot,
        }
    }
}
