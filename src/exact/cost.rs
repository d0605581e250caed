//! What the exact engine would hold, estimated before it holds it: the one home of its cost
//! model (docs/limits.md, "Cost models").
//!
//! Two things grow with the input rather than with the dice: the states of the dynamic
//! programme, each a row per unit, so a state of many units is large; and the layouts a
//! Rally lays down, one per count of models restored, each listing every model of the unit,
//! so one Rally of a unit with thousands missing lists millions of models. The first is held
//! to [`state_limit`], the most states of that many units that fit the memory budget; the
//! second is estimated per unit from the scenario alone by [`check`] before the programme
//! starts, and refused over the budget.

use super::state::UnitState;
use crate::config::limits::MEMORY_BUDGET;
use crate::rules::world::Model;
use crate::rules::Plan;
use crate::scenario::{Command, Game, Order};

/// Bytes per held state beyond its units' rows: the row vector's header and allocation, the
/// map's node and the probability.
const STATE_OVERHEAD: u64 = 256;
/// Bytes per unit of a held state: its row, and in an engagement its declared counts.
const STATE_PER_UNIT: u64 = (std::mem::size_of::<UnitState>() + 20) as u64;
/// Bytes per layout beyond its models: its shared allocation's header, its id and hash entry.
const LAYOUT_OVERHEAD: u128 = 64;

/// The most configurations an engagement's programme (or the backward induction) may expand:
/// a bound on time. The states held stay under [`state_limit`], but an engagement that cannot
/// end (units out of reach of each other over a thousand rounds, say) expands the same few
/// states round after round, in time growing faster than the rounds.
pub const MAX_EXPANSIONS: u64 = 10_000_000;

/// The refusal past [`MAX_EXPANSIONS`].
pub fn expansions_reason() -> String {
    format!(
        "the dynamic programme expanded {} configurations, the most it may (a bound on its \
         time); `[engagement] rounds` drives it: an engagement that goes on round after round \
         is expanded again each round; give fewer rounds",
        crate::format::thousands(MAX_EXPANSIONS)
    )
}

/// About the bytes one state of a programme over `units` units holds.
pub fn state_bytes(units: usize) -> u64 {
    STATE_OVERHEAD + STATE_PER_UNIT * units as u64
}

/// The most distinct states a programme over `units` units may hold: `max_states`, or fewer
/// when that many would not fit the memory budget. Two generations are held at once (the
/// states before a step and after it; an engagement's configurations to expand and those
/// ended), hence half the budget each.
pub fn state_limit(units: usize, max_states: usize) -> usize {
    let fit = MEMORY_BUDGET / 2 / state_bytes(units);
    max_states.min(usize::try_from(fit).unwrap_or(usize::MAX))
}

/// What a refusal at the state limit adds when the budget, not `max_states`, set it.
pub fn state_limit_reason(units: usize, max_states: usize) -> String {
    if state_limit(units, max_states) >= max_states {
        return String::new();
    }
    format!(
        " (set by memory: with {units} units a state takes about {} bytes, and two \
         generations of states may take at most {}; `[[unit]]` count drives it)",
        state_bytes(units),
        crate::format::bytes(u128::from(MEMORY_BUDGET)),
    )
}

/// Refuses, before any state is made, a scenario whose Rally layouts would not fit the memory
/// budget: the estimate, the budget and the unit and key that drive it.
pub fn check(plan: &Plan) -> Result<(), String> {
    let scenario = plan.scenario();
    let armed_enemy = |u: usize| {
        let side = &scenario.units[u].side;
        scenario
            .units
            .iter()
            .any(|e| &e.side != side && e.weapon.is_some())
    };
    for (u, unit) in scenario.units.iter().enumerate() {
        if !rallies(plan, u) {
            continue;
        }
        // A unit no enemy can shoot rallies from its starting count at the fewest.
        let fewest = if armed_enemy(u) {
            1
        } else {
            unit.alive().max(1)
        };
        let bytes = rally_bytes(unit.size, fewest, unit.call_of_the_masters);
        if bytes > u128::from(MEMORY_BUDGET) {
            let what = format!(
                "the exact engine's layouts for a Rally of unit `{}` (size {}, from {} alive{})",
                unit.id,
                unit.size,
                fewest,
                if unit.call_of_the_masters {
                    ", doubled by Call of the Masters"
                } else {
                    ""
                }
            );
            let key = format!(
                "`unit.{}.size` drives it: a layout per count of models restored, each listing \
                 every model, grows as the square of the models missing{}",
                unit.id,
                if unit.call_of_the_masters {
                    " (as the cube, doubled)"
                } else {
                    ""
                }
            );
            return Err(crate::format::over_budget(
                &what,
                bytes,
                MEMORY_BUDGET,
                &key,
            ));
        }
    }
    Ok(())
}

/// Whether some step or order (a `best` option included) can have unit `u` Rally.
fn rallies(plan: &Plan, u: usize) -> bool {
    match &plan.scenario().game {
        Game::Cards(_) => false,
        Game::Steps(choices) => choices
            .iter()
            .flat_map(|c| &c.steps)
            .any(|s| s.unit == u && s.order.command() == Command::Rally),
        Game::Engagement(e) => e.orders[u]
            .iter()
            .flat_map(|o| o.order.options())
            .any(|o| matches!(o, Order::Rally)),
    }
}

/// The bytes of the layouts one Rally lays down for a unit of `size` models from `alive`
/// alive: a layout per count k restored, of `alive + k` models; doubled, a layout per pair
/// of counts (k1, k2), of `alive + k1 + k2` models. Exact sums, in 128 bits.
fn rally_bytes(size: u32, alive: u32, doubled: bool) -> u128 {
    let (a, m) = (u128::from(alive), u128::from(size.saturating_sub(alive)));
    let model = std::mem::size_of::<Model>() as u128;
    let (layouts, models) = if doubled {
        // Pairs with k1 + k2 = t, for t = 0..=m: t + 1 of them, each of a + t models.
        let layouts = (m + 1) * (m + 2) / 2;
        let models = (0..=m).map(|t| (t + 1) * (a + t)).sum::<u128>();
        (layouts, models)
    } else {
        // Sum of a + k for k = 0..=m.
        ((m + 1), (m + 1) * a + m * (m + 1) / 2)
    };
    layouts * LAYOUT_OVERHEAD + models * model
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rally_layouts_are_summed_by_hand() {
        let model = std::mem::size_of::<Model>() as u128;
        // Size 3 from 1 alive: layouts of 1, 2 and 3 models.
        assert_eq!(rally_bytes(3, 1, false), 3 * LAYOUT_OVERHEAD + 6 * model);
        // Doubled: (k1, k2) with k1 + k2 <= 2: (0,0) of 1 model, (1,0) (0,1) of 2, (2,0)
        // (1,1) (0,2) of 3: 6 layouts, 1 + 4 + 9 = 14 models.
        assert_eq!(rally_bytes(3, 1, true), 6 * LAYOUT_OVERHEAD + 14 * model);
        // Nothing missing: the one layout.
        assert_eq!(rally_bytes(5, 5, false), LAYOUT_OVERHEAD + 5 * model);
    }

    #[test]
    fn the_state_limit_follows_the_units_only_past_the_budget() {
        assert_eq!(state_limit(2, 250_000), 250_000);
        assert!(state_limit(256, 250_000) < 250_000);
        let limit = state_limit(256, 250_000) as u64;
        assert!(limit * state_bytes(256) <= MEMORY_BUDGET / 2);
        assert!((limit + 1) * state_bytes(256) > MEMORY_BUDGET / 2);
        assert_eq!(state_limit_reason(2, 250_000), "");
        assert!(state_limit_reason(256, 250_000).contains("256 units"));
    }
}
