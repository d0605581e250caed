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

/// The words one unit takes packed ([`pack`]).
pub const UNIT_WORDS: usize = 7;

/// Appends `s`'s units as words, field by field in their order, restrictions and token in one
/// word: equal states give equal words, and the words of states of as many units compare as
/// the states do.
pub fn pack(s: &[UnitState], out: &mut Vec<u32>) {
    for u in s {
        out.extend([
            u.alive,
            u.restored,
            u.lost,
            u.damage_taken,
            u.wound,
            u32::from(u.restrictions) << 1 | u32::from(u.token),
            u.layout,
        ]);
    }
}

/// The state [`pack`] wrote as `words`.
pub fn unpack(words: &[u32]) -> State {
    words
        .chunks_exact(UNIT_WORDS)
        .map(|w| UnitState {
            alive: w[0],
            restored: w[1],
            lost: w[2],
            damage_taken: w[3],
            wound: w[4],
            restrictions: (w[5] >> 1) as u8,
            token: w[5] & 1 == 1,
            layout: w[6],
        })
        .collect()
}

/// [`breakdown`] for an engagement's configurations, which also differ by round, turn,
/// cursors and what was declared: first how many distinct states they hold, so that a user
/// sees when those, not the states, keep histories apart.
pub fn breakdown_of_configurations<'a>(states: impl Iterator<Item = &'a State> + Clone) -> String {
    let distinct = states
        .clone()
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    format!(
        "they hold {distinct} distinct states: {}",
        breakdown(states)
    )
}

/// Why a programme grew: how many of `states` stay distinct once the reported totals
/// (restored, lost, damage taken), or where models stand, or both, are left out. Said in a
/// refusal, it tells a user whether the dice or the geometry keep histories apart.
pub fn breakdown<'a>(states: impl Iterator<Item = &'a State> + Clone) -> String {
    fn distinct<'a, K: Ord>(
        states: impl Iterator<Item = &'a State>,
        key: impl Fn(&UnitState) -> K,
    ) -> usize {
        states
            .map(|s| s.iter().map(&key).collect::<Vec<K>>())
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    }
    let dice = |u: &UnitState| (u.alive, u.wound, u.restrictions, u.token);
    let without_totals = distinct(states.clone(), |u| (dice(u), u.layout));
    let without_layouts = distinct(states.clone(), |u| {
        (dice(u), u.restored, u.lost, u.damage_taken)
    });
    let without_either = distinct(states, dice);
    format!(
        "{without_totals} without the reported totals restored, lost and damage taken, \
         {without_layouts} without where models stand, {without_either} without either"
    )
}

/// A distribution over keys, merged by key, iterated in key order.
pub type Dist<K> = BTreeMap<K, f64>;

/// Adds `p` to `key`'s probability; impossible branches (`p == 0`) are not kept, so geometry
/// is never asked about a state the dice cannot reach.
pub fn add<K: Ord>(dist: &mut Dist<K>, key: K, p: f64) {
    if p > 0.0 {
        *dist.entry(key).or_insert(0.0) += p;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_state_unpacks_to_itself() {
        let s = vec![
            UnitState {
                alive: 7,
                restored: 1,
                lost: 4,
                damage_taken: 9,
                wound: 2,
                restrictions: RALLY,
                token: true,
                layout: 12,
            },
            UnitState::starting(3),
        ];
        let mut words = Vec::new();
        pack(&s, &mut words);
        assert_eq!(words.len(), 2 * UNIT_WORDS);
        assert_eq!(unpack(&words), s);
    }

    #[test]
    fn the_breakdown_counts_what_keeps_states_apart() {
        let unit = |alive, restored, layout| UnitState {
            alive,
            restored,
            lost: 10 - alive + restored,
            damage_taken: 10 - alive + restored,
            layout,
            ..UnitState::starting(alive)
        };
        // Two units, four states. By hand: with totals and layouts all four differ; without
        // totals the first two merge (same alive and layout), so 3; without layouts the first
        // and third merge (same alive and restored), so 3; without either, alive (5, 5, 5, 4)
        // beside the second unit's 10: 2.
        let states: Vec<State> = vec![
            vec![unit(5, 0, 1), unit(10, 0, 0)],
            vec![unit(5, 2, 1), unit(10, 0, 0)],
            vec![unit(5, 0, 2), unit(10, 0, 0)],
            vec![unit(4, 0, 3), unit(10, 0, 0)],
        ];
        assert_eq!(
            breakdown(states.iter()),
            "3 without the reported totals restored, lost and damage taken, 3 without where \
             models stand, 2 without either"
        );
        // Configurations that repeat a state (the first, twice) count it once.
        assert_eq!(
            breakdown_of_configurations(states.iter().chain(&states[..1])),
            "they hold 4 distinct states: 3 without the reported totals restored, lost and \
             damage taken, 3 without where models stand, 2 without either"
        );
    }
}
