//! A trial's state as words ([`World::state_key`]): what a memoising engine needs to know
//! that two trials go on alike ([`crate::engine::Draws::at_state`]).

use super::{Layout, World};

impl World {
    /// Writes everything of the world that the rest of a trial can read: the round, whether
    /// it is pristine, and each unit's counters, restrictions, token, defending and how its
    /// models are known: the starting layout and how many precomputed Rally spots, or every
    /// model's centre and HP in list order (removal may pick by it). The buffers of geometry
    /// queries are not state: they are filled afresh before each use. Two worlds that write
    /// the same words are the same to every rule.
    pub fn state_key(&self, key: &mut Vec<u64>) {
        key.push(u64::from(self.round) << 1 | u64::from(self.pristine));
        for (i, u) in self.units.iter().enumerate() {
            let flags =
                u64::from(u.restrictions.0) | u64::from(u.token) << 8 | u64::from(u.defending) << 9;
            key.extend([
                u64::from(u.alive) | u64::from(u.restored) << 32,
                u64::from(u.lost) | u64::from(u.damage_taken) << 32,
            ]);
            match self.layouts[i] {
                Layout::Initial => key.push(flags),
                Layout::Rallied { first, second } => {
                    key.extend([flags | 1 << 16, u64::from(first) | u64::from(second) << 32]);
                }
                Layout::Materialized => {
                    let models = &self.models[i];
                    key.push(flags | 2 << 16 | (models.len() as u64) << 32);
                    for m in models {
                        key.extend([m.centre.x.to_bits(), m.centre.y.to_bits(), u64::from(m.hp)]);
                    }
                }
            }
        }
    }
}
