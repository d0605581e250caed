//! The card game of seed 001: card data, resolution order, latency queue, listeners.
//!
//! - [`data`]: card definitions and the validated [`CardGame`] (indices, kind bit masks).
//! - `load`: the `[cards]` section and card-set files -> [`CardGame`]; every check and
//!   message lives there.
//! - [`zones`]: hands, lazily shuffled decks, discard piles, and drawing from them.
//! - [`resolve`]: one turn as a pure function of (game, table, plays, initiative, rng),
//!   reporting [`resolve::Event`]s: the rules themselves.
//! - [`plan`]: the [`CardPlan`] the engine plays (metric layout, arms, one game per trial).
//! - [`orderings`]: enumerated plays, arm labels and `orderings.csv`.
//! - [`margins`]: A's per-trial margin in every arm, as exact sums, and intervals on
//!   averages of arms.
//! - [`matrix_game`]: zero-sum matrix games solved by linear programming.
//! - [`equilibrium`]: `equilibrium.csv`, the game of orderings when both players choose.
//!
//! The rules decisions where the seed is silent are listed in the module
//! documentation of [`resolve`] and in docs/cards.md.

pub mod cost;
pub mod data;
pub mod equilibrium;
mod load;
pub mod margins;
pub mod matrix_game;
pub mod orderings;
pub mod plan;
pub mod resolve;
pub mod zones;

pub use data::{CardGame, CardIx, Choose, Effect, Initiative, KindSet, Plays, Zone};
pub(crate) use load::SECTION as SECTION_KEYS;
pub use plan::{CardPlan, GameLog, TurnLog};
pub use resolve::{Event, Origin};

use crate::config::ConfigError;

/// Validates a scenario's `[cards]` section; `file` is the scenario file's path as the user
/// named it (a card-set path `set = "..."` is relative to its folder).
///
/// Errors ([`ConfigError`], as for the rest of the scenario) name the file (the set file's own
/// path for errors inside it), the key path, the bad value and what is allowed, with the name
/// meant when a key, card id or kind is misspelt; TOML syntax errors in a set file carry its
/// line and column.
/// `options.listeners.persist` is not part of `[cards]`: the caller applies it with
/// [`CardGame::with_listeners_persist`].
///
/// ```
/// use rollcall::cards::{validate, CardPlan};
/// use rollcall::engine::stream::trial_stream;
///
/// // The `[cards]` table of a scenario: B has the initiative and arms Obésité first.
/// let cards: toml::Value = toml::from_str(r#"
///     cards_per_turn = 1
///     initiative = "B"
///     card = [
///         { id = "charge", kind = "action", value = 2 },
///         { id = "obesite", kind = "sort", effects = [{ type = "cancel", kinds = ["action"] }] },
///     ]
///     players.A.plays = [["charge"]]
///     players.B.plays = [["obesite"]]
/// "#).unwrap();
/// let game = validate("inline.toml", &cards).unwrap();
/// let log = CardPlan::compile(&game).play_logged(0, &mut trial_stream(1));
/// assert_eq!(log.lines(), ["B obesite: resolved", "A charge: cancelled by B obesite"]);
/// assert_eq!(log.metric("A.score"), Some(0));
///
/// let bad: toml::Value = toml::from_str(r#"
///     cards_per_turn = 0
///     card = [{ id = "charge", kind = "action" }]
/// "#).unwrap();
/// let e = validate("inline.toml", &bad).unwrap_err().to_string();
/// assert!(e.contains("cards.cards_per_turn") && e.contains("from 1 to 16"), "{e}");
/// ```
pub fn validate(file: &str, cards: &toml::Value) -> Result<CardGame, ConfigError> {
    load::game(file, cards)
}

/// What a run of an enumerating card game writes besides the common tables.
pub struct CardTables {
    /// `orderings.csv`, and `equilibrium.csv` when both players choose among orderings.
    pub files: Vec<(&'static str, Vec<u8>)>,
    /// The report without the score pairs gathered for the margins' intervals: they are not
    /// comparisons of one metric between choices, so `compare.csv` does not list them.
    pub report: crate::output::Report,
}

/// The card tables of a run; `None` for a report that is not an enumerating card game.
pub fn tables(report: &crate::output::Report) -> Option<CardTables> {
    let mut files = vec![("orderings.csv", orderings::orderings_csv(report)?)];
    if let Some(e) = equilibrium::equilibrium_csv(report) {
        files.push(("equilibrium.csv", e));
    }
    let mut report = report.clone();
    for v in &mut report.variants {
        v.comparisons.clear();
    }
    Some(CardTables { files, report })
}

#[cfg(test)]
pub(crate) mod testing {
    //! Games from inline TOML, for the unit tests.
    use super::*;

    /// The `[cards]` table of `text` (a whole scenario's worth of `[cards...]` keys),
    /// validated as if from `configs/test.toml`.
    pub fn game(text: &str) -> Result<CardGame, ConfigError> {
        let value: toml::Table = toml::from_str(text).expect("test TOML parses");
        let file = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/test.toml");
        validate(file, &value["cards"])
    }

    /// The problem text of a validation error.
    pub fn error(text: &str) -> String {
        match game(text) {
            Ok(_) => panic!("expected an error from\n{text}"),
            Err(e) => e.to_string(),
        }
    }
}
