//! A card game told in words: turns, initiative, each player's plays and the cards in play.

use crate::cards::data::PLAYERS;
use crate::cards::{CardGame, Choose, Effect, Initiative, KindSet, Plays};
use crate::format::plural;
use std::fmt::Write;

pub(super) fn game(out: &mut String, game: &CardGame) {
    let initiative = match game.initiative() {
        Initiative::A => "A resolves first every turn",
        Initiative::B => "B resolves first every turn",
        Initiative::Alternate => "the first player alternates, A in turn 1",
        Initiative::Random => "a coin decides who resolves first, afresh each turn",
    };
    let _ = writeln!(
        out,
        "\nOne trial plays a card game of {} of {} a side; {initiative}. Each \
         turn both players lay their cards face down; they resolve alternately from the \
         initiative player (A1, B1, A2, B2, ...). Cards brought in by other cards (called or \
         cloned) wait in a latency queue that resolves, first in first out, once every \
         normally played card has resolved.",
        plural(game.turns().into(), "turn"),
        plural(game.cards_per_turn() as u64, "card")
    );
    let ids = |list: &[u16]| -> String {
        let names: Vec<&str> = list
            .iter()
            .map(|&c| game.cards()[c as usize].id.as_str())
            .collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    let mut held = vec![false; game.cards().len()];
    for (p, name) in PLAYERS.iter().enumerate() {
        let setup = game.player(p);
        let plays = match &setup.plays {
            Plays::Scripted(turns) => {
                let turns: Vec<String> = turns
                    .iter()
                    .enumerate()
                    .map(|(t, cards)| format!("turn {}: {}", t + 1, ids(cards)))
                    .collect();
                format!("plays as scripted ({})", turns.join("; "))
            }
            Plays::Random { hand_size } => format!(
                "each turn draws from its shuffled deck up to {hand_size} cards in hand, then \
                 plays cards chosen and ordered at random"
            ),
            Plays::Enumerate => format!(
                "plays every ordering of {} from its hand, each ordering an arm of the trial \
                 on the same random numbers (orderings.csv compares them)",
                plural(game.cards_per_turn() as u64, "card")
            ),
        };
        let _ = writeln!(
            out,
            "  Player {name} {plays}. Hand: {}; deck: {}; discard: {}.",
            ids(&setup.hand),
            ids(&setup.deck),
            ids(&setup.discard)
        );
        if let Plays::Scripted(turns) = &setup.plays {
            for &c in turns.iter().flatten() {
                held[c as usize] = true;
            }
        }
        for &c in setup.hand.iter().chain(&setup.deck).chain(&setup.discard) {
            held[c as usize] = true;
        }
    }
    let _ = writeln!(out, "Cards in play:");
    for (card, _) in game.cards().iter().zip(&held).filter(|(_, &h)| h) {
        let effects: Vec<String> = card.effects.iter().map(|e| effect(game, e)).collect();
        let _ = writeln!(
            out,
            "  {} \"{}\" ({}, {}): {}.",
            card.id,
            card.name,
            game.kinds()[card.kind as usize],
            if card.value.abs() == 1 {
                format!("{} point", card.value)
            } else {
                format!("{} points", card.value)
            },
            if effects.is_empty() {
                "no effect".to_string()
            } else {
                effects.join("; ")
            }
        );
    }
    let others = held.iter().filter(|&&h| !h).count();
    if others > 0 {
        let _ = writeln!(
            out,
            "  ({others} more card(s) of the set are held by no player and only come into play if called.)"
        );
    }
}

fn kinds(game: &CardGame, set: KindSet) -> String {
    let names: Vec<&str> = game
        .kinds()
        .iter()
        .enumerate()
        .filter(|(i, _)| set.contains(*i as u8))
        .map(|(_, k)| k.as_str())
        .collect();
    if names.len() == game.kinds().len() {
        "any kind".to_string()
    } else {
        format!("kind {}", names.join(" or "))
    }
}

fn effect(game: &CardGame, e: &Effect) -> String {
    match *e {
        Effect::Cancel {
            kinds: k,
            count,
            clones,
        } => format!(
            "arms a listener that cancels the opponent's next {count} card(s) of {} resolving \
             after it this turn{}",
            kinds(game, k),
            if clones { ", with their clones" } else { "" }
        ),
        Effect::Call {
            from,
            kinds: k,
            choose,
        } => {
            let how = match choose {
                Choose::First => "the first in zone order",
                Choose::Random => "one at random",
                Choose::Best => "the highest value",
            };
            format!(
                "calls a card of {} from {} ({how}) into the latency queue",
                kinds(game, k),
                from.name().replace('_', " ")
            )
        }
        Effect::Clone { kinds: k } => format!(
            "its player's next normally played card of {} gets a copy in the latency queue",
            kinds(game, k)
        ),
    }
}
