//! What one game can bring into play, bounded before any game is played (docs/limits.md,
//! "Cost models").
//!
//! Cards in play multiply only through clones: a clone effect fires once, making one copy,
//! but the copy, resolving, arms the card's own clone effects again. With
//! `options.listeners.persist = true` those survive into the next turn, so a card with two
//! clone effects of its own kind doubles its copies every turn, and listeners armed by every
//! card in play pile up. [`check`] follows, turn by turn, a worst case of what a turn holds
//! (every live clone effect fires, every call finds a card, no listener is ever used up) and
//! refuses a game whose cards in play, live clone effects or live listeners could pass
//! [`MAX_IN_PLAY`] in some turn, naming the turn, the count and the keys that drive it.

use super::data::{CardGame, Effect, Plays};
use crate::config::At;
use crate::config::ConfigError;

/// The most cards in play in one turn (played, called and cloned), and the most live clone
/// effects or listeners, a game may reach in the worst case: a turn then holds tens of
/// megabytes per worker, and resolving one card scans at most this many listeners.
pub const MAX_IN_PLAY: u128 = 1 << 20;

/// The most looks at live listeners and clone effects one game may take in the worst case:
/// each card that resolves looks at every live listener for one that cancels it, and each
/// normally played card at every live clone effect. Within [`MAX_IN_PLAY`] a turn, persisting
/// listeners still pile up turn after turn, so a game's looks grow as the fourth power of its
/// turns: 400 turns of a card with a clone and a cancel effect took 22 s. At about 2 x 10^9
/// looks a second, this bound holds one game to about half a second.
pub const MAX_LOOKS: u128 = 1 << 30;

/// The worst case of one turn.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Turn {
    /// Cards in play: played, called, cloned.
    in_play: u128,
    /// Clone effects live during the turn.
    clone_effects: u128,
    /// Listeners live during the turn.
    listeners: u128,
}

/// Refuses (as a `[cards]` error of `file`) a game that could bring more than [`MAX_IN_PLAY`]
/// cards, clone effects or listeners into one turn.
pub fn check(file: &str, game: &CardGame) -> Result<(), ConfigError> {
    let mut carried = Turn::default();
    let mut looks: u128 = 0;
    for turn in 1..=game.turns {
        let now = worst_turn(game, carried, turn);
        looks = looks.saturating_add(looks_in(game, now));
        if looks > MAX_LOOKS {
            return Err(too_long(file, game, turn, looks));
        }
        let over = [
            (now.in_play, "cards in play"),
            (now.clone_effects, "live clone effects"),
            (now.listeners, "live listeners"),
        ]
        .into_iter()
        .find(|&(n, _)| n > MAX_IN_PLAY);
        if let Some((n, what)) = over {
            return Err(refusal(file, game, turn, n, what));
        }
        carried = if game.listeners_persist {
            now
        } else {
            Turn::default()
        };
    }
    Ok(())
}

/// The worst case of turn `turn` (from 1), given what the turns before left live.
fn worst_turn(game: &CardGame, carried: Turn, turn: u32) -> Turn {
    let most = |f: fn(&Effect) -> bool| {
        let per_card = game
            .cards
            .iter()
            .map(|c| c.effects.iter().filter(|e| f(e)).count());
        per_card.max().unwrap_or(0) as u128
    };
    let clones = most(|e| matches!(e, Effect::Clone { .. }));
    let cancels = most(|e| matches!(e, Effect::Cancel { .. }));
    let calls = most(|e| matches!(e, Effect::Call { .. }));
    let played = played_per_turn(game);
    // A call takes a card out of a zone; discards grow by the cards played each turn.
    let called = if calls == 0 {
        0
    } else {
        zone_cards(game) + u128::from(turn - 1) * played
    };
    // Clone effects armed by this turn's played cards can fire on later ones the same turn.
    let effects = carried.clone_effects + played * clones;
    // Each live clone effect fires at most once: a copy each.
    let in_play = played + called + effects;
    Turn {
        in_play,
        // Fired effects are spent; every card that resolves arms its own again.
        clone_effects: in_play.saturating_mul(clones),
        listeners: carried.listeners + in_play.saturating_mul(cancels),
    }
}

/// The looks of a turn at its worst: every card in play at every live listener, every
/// normally played card at every live clone effect.
fn looks_in(game: &CardGame, now: Turn) -> u128 {
    let played = played_per_turn(game);
    now.in_play
        .saturating_mul(now.listeners)
        .saturating_add(played.saturating_mul(now.clone_effects))
}

/// The most cards both players play normally in one turn.
fn played_per_turn(game: &CardGame) -> u128 {
    game.players
        .iter()
        .map(|p| match &p.plays {
            Plays::Scripted(turns) => turns.iter().map(Vec::len).max().unwrap_or(0),
            Plays::Enumerate | Plays::Random { .. } => game.cards_per_turn,
        })
        .sum::<usize>() as u128
}

/// Every card in a zone at the start of a game: what calls can take.
fn zone_cards(game: &CardGame) -> u128 {
    game.players
        .iter()
        .map(|p| p.hand.len() + p.deck.len() + p.discard.len())
        .sum::<usize>() as u128
}

fn refusal(file: &str, game: &CardGame, turn: u32, n: u128, what: &str) -> ConfigError {
    let count = if n == u128::MAX {
        "more than 10^38".to_string()
    } else {
        crate::format::thousands(u64::try_from(n).unwrap_or(u64::MAX))
    };
    let why = if game.listeners_persist {
        "options.listeners.persist = true keeps clone effects and listeners from turn to turn, \
         and a clone arms its card's clone effects again"
    } else {
        "cards and their clone effects within one turn"
    };
    At::root(file).child("cards").child("turns").err(format!(
        "in the worst case turn {turn} of {} could hold {count} {what} ({why}); at most {} \
         are allowed in a turn, so that one game fits in memory; play fewer turns, or give \
         fewer clone or cancel effects to the cards",
        game.turns,
        crate::format::thousands(MAX_IN_PLAY as u64),
    ))
}

fn too_long(file: &str, game: &CardGame, turn: u32, looks: u128) -> ConfigError {
    let count = crate::format::thousands(u64::try_from(looks).unwrap_or(u64::MAX));
    let why = if game.listeners_persist {
        "options.listeners.persist = true keeps them from turn to turn, so they pile up"
    } else {
        "every card called or cloned in a turn looks at them"
    };
    At::root(file).child("cards").child("turns").err(format!(
        "in the worst case one game of {} turns would have its cards look at live listeners \
         and clone effects {count} times by turn {turn} ({why}); at most {} are allowed, \
         about half a second a game; play fewer turns, or give fewer clone or cancel effects \
         to the cards",
        game.turns,
        crate::format::thousands(MAX_LOOKS as u64),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::testing::game;

    fn twins(effects: &str, persist: bool, turns: u32) -> CardGame {
        let plays = vec!["[\"twin\"]"; turns as usize].join(", ");
        game(&format!(
            r#"
[cards]
cards_per_turn = 1
turns = {turns}
card = [{{ id = "twin", kind = "sort", effects = [{effects}] }}]
players.A.plays = [{plays}]
players.B.plays = [{plays}]
"#
        ))
        .unwrap()
        .with_listeners_persist(persist)
    }

    const CLONE: &str = r#"{ type = "clone", kinds = ["sort"] }"#;

    #[test]
    fn two_clone_effects_that_persist_double_every_turn() {
        let g = twins(&format!("{CLONE}, {CLONE}"), true, 60);
        // Turn 1: 2 played, each arming 2 clone effects (4 fire on turn 2, well within).
        // E(t+1) = (2 + E(t) + 2 * 2) * 2: 12, 36, 84, ... doubles, past 2^20 by turn 20.
        let e = check("f.toml", &g).unwrap_err().to_string();
        assert!(e.contains("cards.turns") && e.contains("1,048,576"), "{e}");
        assert!(e.contains("listeners.persist"), "{e}");
        // Without persist they expire every turn.
        check("f.toml", &twins(&format!("{CLONE}, {CLONE}"), false, 60)).unwrap();
    }

    #[test]
    fn persisting_listeners_are_bounded_by_the_looks_they_cost() {
        let effects = format!(r#"{CLONE}, {{ type = "cancel", kinds = ["sort"] }}"#);
        // By hand, 2 cards played a turn, 1 clone and 1 cancel effect each, none used up:
        // turn t holds 4t cards and 4t clone effects, and 2t(t + 1) listeners (4 + 8 + ...
        // + 4t); it looks 4t * 2t(t + 1) + 2 * 4t times. Summed to T: 8 (T(T+1)/2)^2 +
        // 8 T(T+1)(2T+1)/6 + 8 T(T+1)/2; at 151 turns 1,062,953,024, at 152 1,091,233,536,
        // the first past 2^30 = 1,073,741,824.
        let total = |t: u128| {
            8 * (t * (t + 1) / 2).pow(2) + 8 * t * (t + 1) * (2 * t + 1) / 6 + 4 * t * (t + 1)
        };
        assert_eq!(total(151), 1_062_953_024);
        assert_eq!(total(152), 1_091_233_536);
        check("f.toml", &twins(&effects, true, 151)).unwrap();
        let e = check("f.toml", &twins(&effects, true, 1000))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("cards.turns") && e.contains("1,091,233,536 times by turn 152"),
            "{e}"
        );
        // Without persist they expire every turn: 4 cards look at 4 listeners and 2 played
        // cards at 4 clone effects, 24 looks a turn.
        check("f.toml", &twins(&effects, false, 1000)).unwrap();
    }

    #[test]
    fn one_clone_effect_grows_by_a_constant_each_turn() {
        // E(t+1) = 2 + E(t) + 2: 4t after t turns, 4,000 after 1,000: allowed.
        check("f.toml", &twins(CLONE, true, 1000)).unwrap();
        let t = worst_turn(&twins(CLONE, true, 3), Turn::default(), 1);
        assert_eq!(
            t,
            Turn {
                in_play: 4,
                clone_effects: 4,
                listeners: 0
            }
        );
    }
}
