//! What the exact engine would hold, estimated before it holds it: the one home of its cost
//! model (docs/limits.md, "Cost models").
//!
//! Two things grow with the input rather than with the dice: the states of the dynamic
//! programme, each a row per unit, so a state of many units is large; and the layouts a
//! Rally lays down, one per count of models restored, each listing every model of the unit,
//! so one Rally of a unit with thousands missing lists millions of models. The first is held
//! to [`super::limit::max_states_for`], the most states of that many units that fit the memory
//! available; the second is estimated per unit from the scenario alone by [`check`] before the programme
//! starts, and refused over the budget.

use crate::config::limits::MEMORY_BUDGET;
use crate::rules::world::Model;
use crate::rules::Plan;
use crate::scenario::{Command, Game, Order};

/// Bytes per layout beyond its models: its shared allocation's header, its id and hash entry.
const LAYOUT_OVERHEAD: u128 = 64;

/// The most configurations an engagement's programme (or the backward induction) may expand:
/// a bound on time, a count so that whether a scenario is answered does not depend on the
/// machine. The states held stay under [`super::limit::max_states_for`], but an engagement
/// that can go on (units that Rally back what they lose, over a thousand rounds) carries
/// counters that grow round after round, so its configurations grow with the rounds and its
/// time as their cube. Expansions run at a few hundred thousand a second: the largest shipped
/// answer, the induction of `configs/advise-long-duel.toml`, expands 397,552, and a refusal
/// comes in a few seconds (10,000,000 took 30 to 55 s, and gigabytes).
pub const MAX_EXPANSIONS: u64 = 1_000_000;

/// The refusal past [`MAX_EXPANSIONS`].
pub fn expansions_reason() -> String {
    format!(
        "the dynamic programme expanded {} configurations, the most it may (a bound on its \
         time); `[engagement] rounds` drives it: an engagement that goes on round after round \
         is expanded again each round; give fewer rounds",
        crate::format::thousands(MAX_EXPANSIONS)
    )
}

/// Frees what a programme that gave up (refused, or stopped by Ctrl-C) held, on a thread of
/// its own: millions of states take seconds to free, and the answer does not wait for them
/// (nor does a process that then ends). Where no thread can be started, it is freed here.
pub fn discard<T: Send + 'static>(held: T) {
    let _ = std::thread::Builder::new()
        .name("discard".into())
        .spawn(move || drop(held));
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
}
