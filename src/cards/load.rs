//! `[cards]` TOML -> a validated [`CardGame`]: every check of the card game lives here.
//!
//! The section arrives as a `toml::Value` (the scenario loader has already applied `--set`
//! overrides to it), so it is walked by hand rather than deserialized: that way every error
//! names the exact key path (`cards.players.A.plays[0][1]`, `card.obesite.effects[0].kinds`),
//! the bad value and what is allowed. A card-set file is read and parsed here too; its
//! syntax errors and misspelt keys carry the line and column, its other errors name the set
//! file and the card's key.

use super::data::*;
use super::orderings;
use crate::config::keys::{check_text, names};
use crate::config::limits::{read_text, MAX_FILE_BYTES, MAX_NAME};
use crate::config::suggest::{hint, quoted, unknown_id, unknown_value};
use crate::config::{
    array, boolean, integer, is_identifier, known_keys, one_of, shown, string, table, At,
    ConfigError, Key, Shape,
};
use std::collections::HashMap;
use std::path::Path;
use toml::Value;

type Result<T> = std::result::Result<T, ConfigError>;

const MAX_CARDS_PER_TURN: i64 = 16;
const MAX_TURNS: i64 = 1_000;
const MAX_HAND: usize = 64;
const MAX_ZONE: usize = 4_096;
const MAX_COUNT: i64 = 1_000;
const MAX_VALUE: i64 = 1_000_000;
const MAX_CARDS: usize = 4_096;
/// Arms of an enumerating scenario (pairs of orderings).
pub const MAX_ARMS: usize = 4_096;
/// Arms when both players enumerate: the game's interval needs every pair of arms.
pub const MAX_GAME_ARMS: usize = super::margins::MAX_COVARIANCE_ARMS;
/// Metrics over all arms: the engine keeps a 256-trial column of each per worker.
pub const MAX_METRICS: usize = 32_768;

/// The keys of a card, in a set file's `[[card]]` or a scenario's `[[cards.card]]`. An
/// effect's keys depend on its type and are checked as it is read.
const CARD: &[Key] = &[
    ("id", Shape::Value),
    ("name", Shape::Value),
    ("kind", Shape::Value),
    ("value", Shape::Value),
    ("effects", Shape::Value),
    ("note", Shape::Value),
];

/// A card-set file.
const SET_FILE: &[Key] = &[("card", Shape::ById(CARD, None))];

/// The keys of a scenario's `[cards]` section. The scenario loader checks its text against
/// them (so a misspelt key gets its line); reading checks them again, for keys that came
/// from `--set`. Players are left to the reading, which speaks of them as players.
pub(crate) const SECTION: &[Key] = &[
    ("set", Shape::Value),
    ("card", Shape::ById(CARD, None)),
    ("cards_per_turn", Shape::Value),
    ("turns", Shape::Value),
    ("initiative", Shape::Value),
    ("players", Shape::Any),
];

/// A card as written, before its effects' kinds are checked against the whole game.
#[derive(Debug, Clone)]
struct Draft {
    at: At,
    id: String,
    name: String,
    kind: String,
    value: i64,
    effects: Vec<DraftEffect>,
}

#[derive(Debug, Clone)]
enum DraftEffect {
    Cancel {
        kinds: Vec<(String, At)>,
        count: u32,
        clones: bool,
    },
    Call {
        from: Zone,
        kinds: Option<Vec<(String, At)>>,
        choose: Choose,
    },
    Clone {
        kinds: Option<Vec<(String, At)>>,
    },
}

fn kind_list(at: &At, v: &Value) -> Result<Vec<(String, At)>> {
    let what = "a list of card kinds such as [\"action\", \"theurgie\"]";
    let items = array(at, v, what)?;
    if items.is_empty() {
        return Err(at.err(
            "the list is empty; name at least one kind, or leave `kinds` out to match every kind (call and clone only)",
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let at = at.index(i);
            let s = string(&at, k, "a card kind such as \"action\"")?;
            Ok((s.to_string(), at))
        })
        .collect()
}

fn effect(at: &At, v: &Value) -> Result<DraftEffect> {
    let t = table(
        at,
        v,
        "an effect table such as { type = \"cancel\", kinds = [\"action\"] }",
    )?;
    let Some(ty) = t.get("type") else {
        return Err(at.err("the effect has no `type`; allowed: \"cancel\", \"call\", \"clone\""));
    };
    let ty = string(&at.child("type"), ty, "\"cancel\", \"call\" or \"clone\"")?;
    let get = |k: &str| t.get(k).map(|v| (at.child(k), v));
    match ty {
        "cancel" => {
            known_keys(at, t, &["type", "kinds", "count", "clones"])?;
            let Some((kat, kv)) = get("kinds") else {
                return Err(at
                    .child("kinds")
                    .err("a cancel effect needs kinds = [...], the kinds of card it cancels"));
            };
            Ok(DraftEffect::Cancel {
                kinds: kind_list(&kat, kv)?,
                count: match get("count") {
                    None => 1,
                    Some((a, v)) => integer(&a, v, 1, MAX_COUNT)? as u32,
                },
                clones: match get("clones") {
                    None => false,
                    Some((a, v)) => boolean(&a, v)?,
                },
            })
        }
        "call" => {
            known_keys(at, t, &["type", "from", "kinds", "choose"])?;
            let Some((fat, fv)) = get("from") else {
                let zones: Vec<&str> = Zone::ALL.iter().map(|(_, n)| *n).collect();
                return Err(at.child("from").err(format!(
                    "a call effect needs from = <zone>; zones: {}",
                    zones.join(", ")
                )));
            };
            Ok(DraftEffect::Call {
                from: one_of(&fat, fv, "zone", &Zone::ALL)?,
                kinds: get("kinds").map(|(a, v)| kind_list(&a, v)).transpose()?,
                choose: match get("choose") {
                    None => Choose::First,
                    Some((a, v)) => one_of(&a, v, "choice", &Choose::ALL)?,
                },
            })
        }
        "clone" => {
            known_keys(at, t, &["type", "kinds", "which"])?;
            if let Some((a, v)) = get("which") {
                one_of(&a, v, "value", &[((), "next")])?;
            }
            Ok(DraftEffect::Clone {
                kinds: get("kinds").map(|(a, v)| kind_list(&a, v)).transpose()?,
            })
        }
        other => Err(at.child("type").err(unknown_value(
            "effect type",
            other,
            &["cancel", "call", "clone"],
        ))),
    }
}

/// The `[[card]]` entries of a set file or the `[[cards.card]]` entries of a scenario.
fn drafts(at: &At, v: &Value) -> Result<Vec<Draft>> {
    let items = array(at, v, "a list of card tables ([[card]] entries)")?;
    let mut out: Vec<Draft> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at_i = at.index(i);
        let t = table(&at_i, item, "a card table with id, kind and effects")?;
        let Some(id) = t.get("id") else {
            return Err(at_i.err("the card has no `id`; add id = \"<letters, digits, _ or ->\""));
        };
        let id = string(&at_i.child("id"), id, "a card id such as \"campement\"")?;
        if !is_identifier(id) {
            return Err(at_i.child("id").err(format!(
                "{} must be 1 to {MAX_NAME} letters, digits, '_' or '-' (it names metrics such as A.<id>.resolved)",
                quoted(id)
            )));
        }
        // Keys by id from here on, as `--set` addresses them.
        let card_at = at.child(id);
        known_keys(&card_at, t, &names(CARD))?;
        if let Some(prev) = out.iter().find(|d| d.id == id) {
            return Err(card_at.child("id").err(format!(
                "id {} is used by two cards here ({} and {}); ids must be unique",
                quoted(id),
                prev.at.key,
                at_i.key
            )));
        }
        let name = match t.get("name") {
            None => id.to_string(),
            Some(v) => string(&card_at.child("name"), v, "the card's name as text")?.to_string(),
        };
        let Some(kind) = t.get("kind") else {
            return Err(card_at.child("kind").err(
                "the card has no `kind`; add kind = \"action\" (or theurgie, sort, objet, ...)",
            ));
        };
        let kind = string(
            &card_at.child("kind"),
            kind,
            "a card kind such as \"action\"",
        )?;
        if kind.trim().is_empty() || kind.trim() != kind {
            return Err(card_at.child("kind").err(format!(
                "{} must be a non-empty name without surrounding spaces, such as \"action\"",
                quoted(kind)
            )));
        }
        let value = match t.get("value") {
            None => 0,
            Some(v) => integer(&card_at.child("value"), v, -MAX_VALUE, MAX_VALUE)?,
        };
        if let Some(v) = t.get("note") {
            string(&card_at.child("note"), v, "text")?;
        }
        let mut effects = Vec::new();
        if let Some(v) = t.get("effects") {
            let eat = card_at.child("effects");
            let list = array(
                &eat,
                v,
                "a list of effects such as [{ type = \"cancel\", kinds = [\"action\"] }]",
            )?;
            for (j, e) in list.iter().enumerate() {
                effects.push(effect(&eat.index(j), e)?);
            }
        }
        out.push(Draft {
            at: card_at,
            id: id.to_string(),
            name,
            kind: kind.to_string(),
            value,
            effects,
        });
    }
    Ok(out)
}

/// Reads a card-set file named by `cards.set`, relative to the scenario file's folder.
fn set_file(scenario: &At, v: &Value) -> Result<Vec<Draft>> {
    let at = scenario.child("set");
    let name = string(
        &at,
        v,
        "the path of a card-set file such as \"cards/seed-set.toml\"",
    )?;
    let path = Path::new(&scenario.file)
        .parent()
        .unwrap_or(Path::new(""))
        .join(name);
    let shown_path = path.display().to_string();
    let text = read_text(&path, MAX_FILE_BYTES).map_err(|e| {
        at.err(format!(
            "cannot read the card set {} at {shown_path}: {e}; the path is relative to the scenario file's folder",
            quoted(name)
        ))
    })?;
    check_text(&shown_path, &text, SET_FILE)?;
    let root: toml::Table = toml::from_str(&text).map_err(|e| ConfigError::Syntax {
        file: shown_path.clone(),
        message: e.to_string(),
    })?;
    let file = At::root(&shown_path);
    known_keys(&file, &root, &names(SET_FILE))?;
    match root.get("card") {
        None => Err(file
            .child("card")
            .err("the set defines no card; add [[card]] entries with id, kind and effects")),
        Some(v) => drafts(&file.child("card"), v),
    }
}

/// Cards from the set file, then inline ones; an inline card whose id is in the set replaces
/// it in place (so a scenario can adjust one card of a shared set).
fn merge(set: Vec<Draft>, inline: Vec<Draft>) -> Vec<Draft> {
    let mut cards = set;
    for d in inline {
        match cards.iter_mut().find(|c| c.id == d.id) {
            Some(slot) => *slot = d,
            None => cards.push(d),
        }
    }
    cards
}

fn kind_set(kinds: &[String], list: &Option<Vec<(String, At)>>) -> Result<KindSet> {
    let Some(list) = list else {
        return Ok(KindSet::ALL);
    };
    let mut found = Vec::with_capacity(list.len());
    for (k, at) in list {
        match kinds.iter().position(|known| known == k) {
            Some(i) => found.push(i as u8),
            None => {
                let known: Vec<&str> = kinds.iter().map(String::as_str).collect();
                return Err(at.err(format!(
                    "{} (an effect's kinds must be kinds of cards in this game)",
                    unknown_id("kind", k, &known)
                )));
            }
        }
    }
    Ok(KindSet::of(&found))
}

fn finish_cards(drafts: Vec<Draft>, root: &At) -> Result<(Vec<Card>, Vec<String>)> {
    if drafts.is_empty() {
        return Err(root.err(
            "no card is defined; add set = \"cards/seed-set.toml\" or [[cards.card]] entries",
        ));
    }
    if drafts.len() > MAX_CARDS {
        return Err(root.err(format!(
            "{} cards are defined; at most {MAX_CARDS} are allowed",
            drafts.len()
        )));
    }
    let mut kinds: Vec<String> = Vec::new();
    for d in &drafts {
        if !kinds.contains(&d.kind) {
            if kinds.len() == MAX_KINDS {
                return Err(d.at.child("kind").err(format!(
                    "{} would be kind number {}; a game may use at most {MAX_KINDS} kinds",
                    quoted(&d.kind),
                    MAX_KINDS + 1
                )));
            }
            kinds.push(d.kind.clone());
        }
    }
    let mut cards = Vec::with_capacity(drafts.len());
    for d in drafts {
        let mut effects = Vec::with_capacity(d.effects.len());
        for e in &d.effects {
            effects.push(match e {
                DraftEffect::Cancel {
                    kinds: ks,
                    count,
                    clones,
                } => Effect::Cancel {
                    kinds: kind_set(&kinds, &Some(ks.clone()))?,
                    count: *count,
                    clones: *clones,
                },
                DraftEffect::Call {
                    from,
                    kinds: ks,
                    choose,
                } => Effect::Call {
                    from: *from,
                    kinds: kind_set(&kinds, ks)?,
                    choose: *choose,
                },
                DraftEffect::Clone { kinds: ks } => Effect::Clone {
                    kinds: kind_set(&kinds, ks)?,
                },
            });
        }
        cards.push(Card {
            kind: kinds.iter().position(|k| *k == d.kind).unwrap_or(0) as u8,
            id: d.id,
            name: d.name,
            value: d.value,
            effects,
        });
    }
    Ok((cards, kinds))
}

/// Card ids to indices, with messages that list the known ids.
struct Ids<'c> {
    index: HashMap<&'c str, CardIx>,
    known: Vec<&'c str>,
}

impl<'c> Ids<'c> {
    fn new(cards: &'c [Card]) -> Self {
        Ids {
            index: cards
                .iter()
                .enumerate()
                .map(|(i, c)| (c.id.as_str(), i as CardIx))
                .collect(),
            known: cards.iter().map(|c| c.id.as_str()).collect(),
        }
    }

    fn card(&self, at: &At, v: &Value) -> Result<CardIx> {
        let id = string(at, v, "a card id such as \"campement\"")?;
        self.index
            .get(id)
            .copied()
            .ok_or_else(|| at.err(unknown_id("card", id, &self.known)))
    }

    fn list(&self, at: &At, v: &Value, max: usize) -> Result<Vec<CardIx>> {
        let items = array(
            at,
            v,
            "a list of card ids such as [\"campement\", \"banniere\"]",
        )?;
        if items.len() > max {
            return Err(at.err(format!(
                "{} cards; at most {max} are allowed here",
                items.len()
            )));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, c)| self.card(&at.index(i), c))
            .collect()
    }
}

fn player(at: &At, v: &Value, ids: &Ids, cards_per_turn: usize, turns: u32) -> Result<PlayerSetup> {
    let t = table(
        at,
        v,
        "a player table with plays = [[...]] | \"random\" | \"enumerate\"",
    )?;
    known_keys(at, t, &["plays", "hand", "deck", "discard", "hand_size"])?;
    let zone = |k: &str, max: usize| -> Result<Vec<CardIx>> {
        match t.get(k) {
            None => Ok(Vec::new()),
            Some(v) => ids.list(&at.child(k), v, max),
        }
    };
    let hand = zone("hand", MAX_HAND)?;
    let deck = zone("deck", MAX_ZONE)?;
    let discard = zone("discard", MAX_ZONE)?;
    let pat = at.child("plays");
    let Some(pv) = t.get("plays") else {
        return Err(pat.err(
            "missing; give the cards per turn (plays = [[\"campement\", \"banniere\"]]), \"random\" or \"enumerate\"",
        ));
    };
    let plays = match pv {
        Value::String(s) if s == "random" => {
            let hat = at.child("hand_size");
            let Some(hv) = t.get("hand_size") else {
                return Err(hat.err(format!(
                    "plays = \"random\" needs hand_size = <cards drawn into the hand>, from 1 to {MAX_HAND}"
                )));
            };
            let hand_size = integer(&hat, hv, 1, MAX_HAND as i64)? as usize;
            if deck.is_empty() {
                return Err(at
                    .child("deck")
                    .err("plays = \"random\" draws from a deck; add deck = [\"<card id>\", ...]"));
            }
            Plays::Random { hand_size }
        }
        Value::String(s) if s == "enumerate" => {
            if hand.is_empty() {
                return Err(at.child("hand").err(
                    "plays = \"enumerate\" plays every ordering of cards from the hand; add hand = [\"<card id>\", ...]",
                ));
            }
            if turns != 1 {
                let k = cards_per_turn
                    .saturating_mul(turns as usize)
                    .min(hand.len());
                let plans = orderings::count(&hand, k);
                return Err(pat.err(format!(
                    "\"enumerate\" compares the orderings of a single turn, but turns = {turns}: planning every turn ahead would need {plans} orderings of {k} cards from this hand of {} (at most {MAX_ARMS} pairs of orderings are played), and would ignore what each turn reveals; set turns = 1",
                    hand.len()
                )));
            }
            Plays::Enumerate
        }
        Value::String(s) => {
            return Err(pat.err(format!(
            "unknown value {}{}; allowed: a list of card ids per turn, \"random\" or \"enumerate\"",
            quoted(s),
            hint(s, &["random", "enumerate"])
        )))
        }
        Value::Array(list) => {
            if list.len() != turns as usize {
                return Err(pat.err(format!(
                    "{} turn(s) of plays but turns = {turns}; give one list of card ids per turn",
                    list.len()
                )));
            }
            let mut per_turn = Vec::with_capacity(list.len());
            for (i, turn) in list.iter().enumerate() {
                let tat = pat.index(i);
                let cards = ids.list(&tat, turn, MAX_CARDS_PER_TURN as usize)?;
                if cards.len() > cards_per_turn {
                    return Err(tat.err(format!(
                        "{} cards but cards_per_turn = {cards_per_turn}; play at most {cards_per_turn} per turn",
                        cards.len()
                    )));
                }
                per_turn.push(cards);
            }
            Plays::Scripted(per_turn)
        }
        other => {
            return Err(pat.err(format!(
                "expected a list of card ids per turn, \"random\" or \"enumerate\", found {}",
                shown(other)
            )))
        }
    };
    if !matches!(plays, Plays::Random { .. }) && t.contains_key("hand_size") {
        return Err(at
            .child("hand_size")
            .err("hand_size only applies with plays = \"random\"; remove it"));
    }
    Ok(PlayerSetup {
        plays,
        hand,
        deck,
        discard,
    })
}

/// Validates a scenario's `[cards]` section (see [`super::validate`]).
pub fn game(file: &str, cards: &Value) -> Result<CardGame> {
    let root = At::root(file).child("cards");
    let t = table(&root, cards, "a [cards] table")?;
    known_keys(&root, t, &names(SECTION))?;
    let from_set = match t.get("set") {
        None => Vec::new(),
        Some(v) => set_file(&root, v)?,
    };
    let inline = match t.get("card") {
        None => Vec::new(),
        Some(v) => drafts(&root.child("card"), v)?,
    };
    let (cards, kinds) = finish_cards(merge(from_set, inline), &root)?;
    let cpt_at = root.child("cards_per_turn");
    let cards_per_turn = match t.get("cards_per_turn") {
        None => {
            return Err(cpt_at.err(format!(
                "missing; add cards_per_turn = <cards each player plays per turn>, from 1 to {MAX_CARDS_PER_TURN}"
            )))
        }
        Some(v) => integer(&cpt_at, v, 1, MAX_CARDS_PER_TURN)? as usize,
    };
    let turns = match t.get("turns") {
        None => 1,
        Some(v) => integer(&root.child("turns"), v, 1, MAX_TURNS)? as u32,
    };
    let initiative = match t.get("initiative") {
        None => Initiative::A,
        Some(v) => one_of(
            &root.child("initiative"),
            v,
            "initiative",
            &[
                (Initiative::A, "A"),
                (Initiative::B, "B"),
                (Initiative::Alternate, "alternate"),
                (Initiative::Random, "random"),
            ],
        )?,
    };
    let pat = root.child("players");
    let Some(pv) = t.get("players") else {
        return Err(
            pat.err("missing; add [cards.players.A] and [cards.players.B], each with plays = ...")
        );
    };
    let pt = table(&pat, pv, "a table with the players A and B")?;
    if let Some(k) = pt.keys().find(|k| !PLAYERS.contains(&k.as_str())) {
        return Err(pat.child(k).err(format!(
            "unknown player {}; the players are A and B",
            quoted(k)
        )));
    }
    let ids = Ids::new(&cards);
    let mut setups = Vec::with_capacity(2);
    for name in PLAYERS {
        let at = pat.child(name);
        let Some(v) = pt.get(name) else {
            return Err(at.err(format!(
                "missing; add [cards.players.{name}] with plays = [[...]], \"random\" or \"enumerate\""
            )));
        };
        setups.push(player(&at, v, &ids, cards_per_turn, turns)?);
    }
    let b = setups.pop();
    let a = setups.pop();
    let (Some(a), Some(b)) = (a, b) else {
        return Err(pat.err("both players A and B are needed"));
    };
    let reads_discard = cards.iter().flat_map(|c| &c.effects).any(|e| {
        matches!(
            e,
            Effect::Call {
                from: Zone::Discard | Zone::OpponentDiscard,
                ..
            }
        )
    });
    let game = CardGame {
        reads_discard,
        cards,
        kinds,
        cards_per_turn,
        turns,
        initiative,
        players: [a, b],
        listeners_persist: false,
    };
    check_size(&game, &pat)?;
    Ok(game)
}

/// A count that may have saturated at `usize::MAX`, as a person reads it.
fn saturated_count(n: usize) -> String {
    match n {
        usize::MAX => format!("more than {}", crate::format::thousands(u64::MAX - 1)),
        n => n.to_string(),
    }
}

/// Enumerating scenarios multiply arms: refuse those too large to tabulate.
fn check_size(game: &CardGame, at: &At) -> Result<()> {
    let mut arms: usize = 1;
    let mut counts = Vec::new();
    for (name, setup) in PLAYERS.iter().zip(&game.players) {
        if setup.plays == Plays::Enumerate {
            let n = orderings::count(&setup.hand, game.cards_per_turn);
            counts.push(n);
            arms = arms.saturating_mul(n);
            if arms > MAX_ARMS {
                return Err(at.child(name).child("hand").err(format!(
                    "enumerating {name}'s orderings of {} cards from a hand of {} gives {} pairs of orderings; at most {MAX_ARMS} are allowed; shorten the hand",
                    game.cards_per_turn,
                    setup.hand.len(),
                    saturated_count(arms),
                )));
            }
        }
    }
    if counts.len() == 2 && arms > MAX_GAME_ARMS {
        return Err(at.err(format!(
            "both players enumerate: {} x {} = {arms} pairs of orderings; a game of orderings (equilibrium.csv) allows at most {MAX_GAME_ARMS}, because the interval on its value needs the covariance of every pair; shorten a hand",
            counts[0], counts[1]
        )));
    }
    let per_arm = game.metrics_per_arm();
    if arms.saturating_mul(per_arm) > MAX_METRICS {
        return Err(at.err(format!(
            "{arms} pairs of orderings x {per_arm} metrics = {} metrics; at most {MAX_METRICS} are allowed; enumerate fewer cards",
            arms * per_arm
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::testing::{error, game};

    const PLAYERS_OK: &str = r#"
[cards.players.A]
plays = [["x"]]
[cards.players.B]
plays = [[]]
"#;

    fn with(cards: &str) -> String {
        format!("[cards]\ncards_per_turn = 1\n{cards}\n{PLAYERS_OK}")
    }

    #[test]
    fn defaults_fill_what_is_left_out() {
        let g = game(&with(
            "[[cards.card]]\nid = \"x\"\nkind = \"sort\"\neffects = [{ type = \"cancel\", kinds = [\"sort\"] }, { type = \"call\", from = \"deck\" }, { type = \"clone\" }]",
        ))
        .unwrap();
        let x = g.card("x").unwrap();
        assert_eq!((x.name.as_str(), x.value), ("x", 0));
        assert_eq!(
            x.effects,
            [
                Effect::Cancel {
                    kinds: KindSet::of(&[0]),
                    count: 1,
                    clones: false
                },
                Effect::Call {
                    from: Zone::Deck,
                    kinds: KindSet::ALL,
                    choose: Choose::First
                },
                Effect::Clone {
                    kinds: KindSet::ALL
                },
            ]
        );
        assert_eq!((g.turns(), g.initiative()), (1, Initiative::A));
        assert!(!g.listeners_persist());
        assert!(g.clone().with_listeners_persist(true).listeners_persist());
    }

    #[test]
    fn an_inline_card_replaces_the_set_card_of_the_same_id_in_place() {
        let text = r#"
[cards]
set = "cards/seed-set.toml"
cards_per_turn = 1
[[cards.card]]
id = "obesite"
name = "Obésité (house rule)"
kind = "sort"
effects = [{ type = "cancel", kinds = ["action"], count = 3 }]
[[cards.card]]
id = "extra"
kind = "relique"
[cards.players.A]
plays = [["obesite"]]
[cards.players.B]
plays = [["extra"]]
"#;
        let g = game(text).unwrap();
        let set_only = game(&text.replace("id = \"obesite\"", "id = \"obesite2\"")).unwrap();
        // Same position as in the set, new effect; new cards and kinds go last.
        assert_eq!(g.card_index("obesite"), set_only.card_index("obesite"));
        assert_eq!(g.card("obesite").unwrap().name, "Obésité (house rule)");
        assert!(matches!(
            g.card("obesite").unwrap().effects[0],
            Effect::Cancel { count: 3, .. }
        ));
        assert_eq!(g.cards().last().unwrap().id, "extra");
        assert_eq!(g.kinds().last().unwrap(), "relique");
    }

    #[test]
    fn every_message_names_the_key_the_value_and_what_is_allowed() {
        let e = error(&with(
            "[[cards.card]]\nid = \"x\"\nkind = \"sort\"\neffects = [{ type = \"cancel\", kinds = [] }]",
        ));
        assert!(
            e.contains("cards.card.x.effects[0].kinds") && e.contains("empty"),
            "{e}"
        );
        let e = error(&with(
            "[[cards.card]]\nid = \"x\"\nkind = \"sort\"\neffects = [{ type = \"clone\", which = \"previous\" }]",
        ));
        assert!(
            e.contains("effects[0].which") && e.contains("\"previous\"") && e.contains("\"next\""),
            "{e}"
        );
        let e = error(&with(
            "[[cards.card]]\nid = \"x\"\nkind = \"sort\"\neffects = [{ type = \"call\", from = \"hand\", choose = \"worst\" }]",
        ));
        assert!(
            e.contains("effects[0].choose") && e.contains("\"first\", \"random\", \"best\""),
            "{e}"
        );
        let e = error(&with(
            "[[cards.card]]\nid = \"x\"\nkind = \"sort\"\neffects = [{ kinds = [\"sort\"] }]",
        ));
        assert!(e.contains("effects[0]") && e.contains("no `type`"), "{e}");
        let e = error(&with("[[cards.card]]\nid = \"x\"\nkind = \" sort\""));
        assert!(
            e.contains("cards.card.x.kind") && e.contains("\" sort\""),
            "{e}"
        );
        let e = error(&with(
            "[[cards.card]]\nid = \"x\"\nkind = \"sort\"\nvalue = 1.5",
        ));
        assert!(
            e.contains("cards.card.x.value") && e.contains("the number 1.5"),
            "{e}"
        );
        let e = error("[cards]\ncards_per_turn = 1\n[cards.players.A]\nplays = [[]]\n[cards.players.B]\nplays = [[]]\n");
        assert!(
            e.contains("key `cards`") && e.contains("no card is defined"),
            "{e}"
        );
        let e = error(&format!(
            "[cards]\ncards_per_turn = 1\n[[cards.card]]\nid = \"x\"\nkind = \"k\"\n{}",
            PLAYERS_OK.replace("plays = [[]]", "plays = \"random\"\nhand_size = 3")
        ));
        assert!(
            e.contains("cards.players.B.deck") && e.contains("draws from a deck"),
            "{e}"
        );
    }

    #[test]
    fn a_game_may_use_at_most_64_kinds() {
        let cards: String = (0..65)
            .map(|i| format!("[[cards.card]]\nid = \"c{i}\"\nkind = \"k{i}\"\n"))
            .collect();
        let e = error(&with(&cards).replace("[[\"x\"]]", "[[\"c0\"]]"));
        assert!(
            e.contains("cards.card.c64.kind") && e.contains("at most 64 kinds"),
            "{e}"
        );
    }

    #[test]
    fn enumerating_too_many_orderings_is_refused() {
        let hand: Vec<String> = (0..12).map(|_| "\"x\"".to_string()).collect();
        // Twelve copies of one card: a single ordering, fine.
        let text = format!(
            "[cards]\ncards_per_turn = 3\n[[cards.card]]\nid = \"x\"\nkind = \"k\"\n[cards.players.A]\nplays = \"enumerate\"\nhand = [{}]\n[cards.players.B]\nplays = [[]]\n",
            hand.join(", ")
        );
        assert!(game(&text).is_ok());
        let cards: String = (0..12)
            .map(|i| format!("[[cards.card]]\nid = \"c{i}\"\nkind = \"k\"\n"))
            .collect();
        let ids: Vec<String> = (0..12).map(|i| format!("\"c{i}\"")).collect();
        let text = format!(
            "[cards]\ncards_per_turn = 4\n{cards}[cards.players.A]\nplays = \"enumerate\"\nhand = [{ids}]\n[cards.players.B]\nplays = \"enumerate\"\nhand = [{ids}]\n",
            ids = ids.join(", ")
        );
        let e = error(&text);
        assert!(
            e.contains("cards.players.A.hand") && e.contains("4096"),
            "{e}"
        );
        // 64 cards, 16 a turn: 64! / 48! orderings, past 2^64, said as such.
        let cards: String = (0..64)
            .map(|i| format!("[[cards.card]]\nid = \"c{i}\"\nkind = \"k\"\n"))
            .collect();
        let ids: Vec<String> = (0..64).map(|i| format!("\"c{i}\"")).collect();
        let text = format!(
            "[cards]\ncards_per_turn = 16\n{cards}[cards.players.A]\nplays = \"enumerate\"\nhand = [{}]\n[cards.players.B]\nplays = [[]]\n",
            ids.join(", ")
        );
        let e = error(&text);
        assert!(
            e.contains("more than 18,446,744,073,709,551,614 pairs"),
            "{e}"
        );
    }
}
