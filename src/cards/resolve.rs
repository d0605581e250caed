//! One turn of the card game (seed 001): resolution order, the latency queue and listeners.
//!
//! [`resolve_turn`] is a pure function of the game, the [`Table`] (zones and live listeners,
//! carried from turn to turn), the cards played, the initiative and the rng; it reports what
//! happens as [`Event`]s to a [`Sink`]. The engine's sink counts metrics; the test sink keeps a
//! readable log. Both are generic parameters, so the hot path has no dynamic dispatch.
//!
//! The rules, as state transitions:
//!
//! 1. Normally played cards come to resolve alternately, initiative player first: A1, B1, A2,
//!    B2, ... (a player with fewer cards simply has no card in the later slots). A normally
//!    played card *appears* when it comes to resolve.
//! 2. When a normally played card comes to resolve, each unused clone effect of its player
//!    whose kinds match fires (it is spent): a copy appears at the back of the latency queue.
//!    This happens before the card is checked for cancellation, so a clone appears whether or
//!    not its original is then cancelled.
//! 3. The card is then checked against the opponent's cancel listeners, oldest first. A
//!    listener with uses left and a matching kind cancels it if the card is normally played
//!    (any listener armed before it resolves), or, for a called or cloned card, only if the
//!    listener was armed *after* the card appeared (seed: a called card suffers no effect from
//!    cards that activated before its appearance). One use is spent; with `clones = true` the
//!    card's clones (those that appeared in step 2) are cancelled with it. A cancelled card
//!    does nothing.
//! 4. Otherwise it resolves: it scores its `value`, then its effects run in order: `cancel`
//!    arms a listener, `call` takes a card from a zone into the back of the latency queue
//!    (nothing when no card matches or the zone is empty), `clone` arms a clone effect.
//! 5. When every normally played card has come to resolve, the queue resolves first in,
//!    first out (steps 3 and 4); cards appearing meanwhile join its back. It always drains:
//!    calls take cards out of finite zones and clones copy only normally played cards.
//! 6. End of turn: played and called cards go to their controller's discard pile in order of
//!    appearance (clones vanish); unused listeners and clone effects expire, unless
//!    `options.listeners.persist` keeps them.
//!
//! Listeners only ever hit the opponent's cards: every cancelling card the seed names
//! (Obésité, Blasphème, Bouclier magique, Amélioration) counters what the other player plays.

use super::data::{CardGame, CardIx, Effect, KindSet, Zone, PLAYERS};
use super::zones::{take_from_list, Deck};
use rand::Rng;

/// How a card came into play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Played face down from the hand (or the script) this turn.
    Played,
    /// Brought in by a `call` effect.
    Called,
    /// A copy made by a `clone` effect.
    Clone,
}

/// What happens during a turn. `instance` numbers the cards in play this turn (from 0, in
/// order of appearance), so a test can follow one card from appearance to outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A normally played card comes to resolve (it appears).
    Played {
        instance: u32,
        player: u8,
        card: CardIx,
    },
    /// A card is called into the latency queue by the resolving card `by`.
    Called {
        instance: u32,
        player: u8,
        card: CardIx,
        by: CardIx,
        from: Zone,
    },
    /// A copy of a normally played card enters the latency queue, made by the clone effect of
    /// card `by`.
    Cloned {
        instance: u32,
        player: u8,
        card: CardIx,
        by: CardIx,
    },
    Resolved {
        instance: u32,
        player: u8,
        card: CardIx,
        origin: Origin,
    },
    /// Cancelled by the listener of card `by`, belonging to `by_player`.
    Cancelled {
        instance: u32,
        player: u8,
        card: CardIx,
        origin: Origin,
        by_player: u8,
        by: CardIx,
    },
}

/// Receives the events of a turn.
pub trait Sink {
    fn event(&mut self, e: Event);
}

/// Discards every event.
impl Sink for () {
    #[inline]
    fn event(&mut self, _: Event) {}
}

/// Keeps every event.
impl Sink for Vec<Event> {
    fn event(&mut self, e: Event) {
        self.push(e);
    }
}

/// A player's zones during a game.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Side {
    /// In zone order.
    pub hand: Vec<CardIx>,
    pub deck: Deck,
    /// Oldest first (zone order is newest first).
    pub discard: Vec<CardIx>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Instance {
    card: CardIx,
    player: u8,
    origin: Origin,
    /// Clock time of its appearance (normally played: when it comes to resolve).
    appeared: u64,
    done: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Listener {
    player: u8,
    source: CardIx,
    kinds: KindSet,
    remaining: u32,
    clones: bool,
    armed: u64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct CloneEffect {
    player: u8,
    source: CardIx,
    kinds: KindSet,
    used: bool,
}

/// The state of one game between turns (zones, live listeners and clone effects, the clock)
/// and the working memory of a turn. Reused from game to game: resetting clears, so the hot
/// path allocates nothing once the vectors have grown.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub sides: [Side; 2],
    listeners: Vec<Listener>,
    clone_effects: Vec<CloneEffect>,
    /// Orders appearances and arming; never reset within a game, so persisting listeners
    /// compare correctly across turns.
    clock: u64,
    instances: Vec<Instance>,
    queue: Vec<u32>,
}

impl Table {
    pub fn new() -> Table {
        Table::default()
    }

    /// Empties everything but the zones, which the caller fills.
    pub fn clear_state(&mut self) {
        self.listeners.clear();
        self.clone_effects.clear();
        self.clock = 0;
        self.instances.clear();
        self.queue.clear();
    }

    #[inline]
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    #[inline]
    fn appear(&mut self, card: CardIx, player: u8, origin: Origin) -> u32 {
        let appeared = self.tick();
        self.instances.push(Instance {
            card,
            player,
            origin,
            appeared,
            done: false,
        });
        (self.instances.len() - 1) as u32
    }
}

/// Resolves one turn: `plays[p]` are player p's normally played cards in slot order, `first`
/// (0 = A, 1 = B) has the initiative.
#[inline]
pub fn resolve_turn<R: Rng + ?Sized, S: Sink>(
    game: &CardGame,
    table: &mut Table,
    plays: [&[CardIx]; 2],
    first: usize,
    rng: &mut R,
    sink: &mut S,
) {
    let first = first.min(1);
    table.instances.clear();
    table.queue.clear();
    let slots = plays[0].len().max(plays[1].len());
    for i in 0..slots {
        for p in [first, 1 - first] {
            if let Some(&card) = plays[p].get(i) {
                let x = table.appear(card, p as u8, Origin::Played);
                come_to_resolve(game, table, x, rng, sink);
            }
        }
    }
    let mut head = 0;
    while let Some(&x) = table.queue.get(head) {
        // A turn may hold many clones (see `cost`): Ctrl-C ends it, and the engine drops the
        // chunk of the game cut short.
        if crate::engine::interrupted() {
            return;
        }
        head += 1;
        if !table.instances[x as usize].done {
            come_to_resolve(game, table, x, rng, sink);
        }
    }
    end_turn(game, table);
}

#[inline(always)]
fn come_to_resolve<R: Rng + ?Sized, S: Sink>(
    game: &CardGame,
    t: &mut Table,
    x: u32,
    rng: &mut R,
    sink: &mut S,
) {
    let inst = t.instances[x as usize];
    let card = &game.cards[inst.card as usize];
    let player = inst.player;
    // Step 2: clones appear as their original comes to resolve.
    let first_clone = t.instances.len();
    if inst.origin == Origin::Played {
        sink.event(Event::Played {
            instance: x,
            player,
            card: inst.card,
        });
        for w in 0..t.clone_effects.len() {
            let effect = t.clone_effects[w];
            if !effect.used && effect.player == player && effect.kinds.contains(card.kind) {
                t.clone_effects[w].used = true;
                let c = t.appear(inst.card, player, Origin::Clone);
                t.queue.push(c);
                sink.event(Event::Cloned {
                    instance: c,
                    player,
                    card: inst.card,
                    by: effect.source,
                });
            }
        }
    }
    // Step 3: the opponent's listeners.
    let hit = t.listeners.iter().position(|l| {
        l.remaining > 0
            && l.player != player
            && l.kinds.contains(card.kind)
            && (inst.origin == Origin::Played || l.armed > inst.appeared)
    });
    t.instances[x as usize].done = true;
    if let Some(l) = hit {
        let listener = &mut t.listeners[l];
        listener.remaining -= 1;
        let (by_player, by, clones) = (listener.player, listener.source, listener.clones);
        sink.event(Event::Cancelled {
            instance: x,
            player,
            card: inst.card,
            origin: inst.origin,
            by_player,
            by,
        });
        if clones {
            for c in first_clone..t.instances.len() {
                let clone = &mut t.instances[c];
                if !clone.done {
                    clone.done = true;
                    sink.event(Event::Cancelled {
                        instance: c as u32,
                        player,
                        card: clone.card,
                        origin: Origin::Clone,
                        by_player,
                        by,
                    });
                }
            }
        }
        return;
    }
    // Step 4: it resolves.
    sink.event(Event::Resolved {
        instance: x,
        player,
        card: inst.card,
        origin: inst.origin,
    });
    if !card.effects.is_empty() {
        run_effects(game, t, inst.card, player, rng, sink);
    }
}

/// The effects of a resolving card, in order. Inlined like the rest of a turn: under
/// callgrind the calls' register saves were about 8% of a turn's instructions.
#[inline(always)]
fn run_effects<R: Rng + ?Sized, S: Sink>(
    game: &CardGame,
    t: &mut Table,
    source: CardIx,
    player: u8,
    rng: &mut R,
    sink: &mut S,
) {
    for effect in &game.cards[source as usize].effects {
        match *effect {
            Effect::Cancel {
                kinds,
                count,
                clones,
            } => {
                let armed = t.tick();
                t.listeners.push(Listener {
                    player,
                    source,
                    kinds,
                    remaining: count,
                    clones,
                    armed,
                });
            }
            Effect::Call {
                from,
                kinds,
                choose,
            } => {
                let p = player as usize;
                let side = &mut t.sides[if from.is_opponent() { 1 - p } else { p }];
                let taken = match from {
                    Zone::Hand | Zone::OpponentHand => {
                        take_from_list(&mut side.hand, false, kinds, choose, &game.cards, rng)
                    }
                    Zone::Discard | Zone::OpponentDiscard => {
                        take_from_list(&mut side.discard, true, kinds, choose, &game.cards, rng)
                    }
                    Zone::Deck | Zone::OpponentDeck => {
                        side.deck.take(kinds, choose, &game.cards, rng)
                    }
                };
                if let Some(called) = taken {
                    let c = t.appear(called, player, Origin::Called);
                    t.queue.push(c);
                    sink.event(Event::Called {
                        instance: c,
                        player,
                        card: called,
                        by: source,
                        from,
                    });
                }
            }
            Effect::Clone { kinds } => {
                t.clone_effects.push(CloneEffect {
                    player,
                    source,
                    kinds,
                    used: false,
                });
            }
        }
    }
}

#[inline(always)]
fn end_turn(game: &CardGame, t: &mut Table) {
    // Nothing reads a discard pile unless some card calls from one.
    if game.reads_discard {
        for inst in &t.instances {
            if inst.origin != Origin::Clone {
                t.sides[inst.player as usize].discard.push(inst.card);
            }
        }
    }
    if game.listeners_persist {
        t.listeners.retain(|l| l.remaining > 0);
        t.clone_effects.retain(|w| !w.used);
    } else {
        t.listeners.clear();
        t.clone_effects.clear();
    }
}

/// One line of a log, e.g. `A rituel (called): cancelled by B blaspheme`.
pub fn describe(game: &CardGame, e: &Event) -> Option<String> {
    let id = |c: CardIx| game.cards.get(c as usize).map_or("?", |c| c.id.as_str());
    let who = |p: u8| PLAYERS.get(p as usize).copied().unwrap_or("?");
    let tag = |o: Origin| match o {
        Origin::Played => "",
        Origin::Called => " (called)",
        Origin::Clone => " (clone)",
    };
    Some(match *e {
        Event::Played { .. } => return None,
        Event::Called {
            player,
            card,
            by,
            from,
            ..
        } => format!(
            "{} {}: called by {} {} from {}",
            who(player),
            id(card),
            who(player),
            id(by),
            from.name()
        ),
        Event::Cloned {
            player, card, by, ..
        } => format!(
            "{} {}: cloned by {} {}",
            who(player),
            id(card),
            who(player),
            id(by)
        ),
        Event::Resolved {
            player,
            card,
            origin,
            ..
        } => format!("{} {}{}: resolved", who(player), id(card), tag(origin)),
        Event::Cancelled {
            player,
            card,
            origin,
            by_player,
            by,
            ..
        } => format!(
            "{} {}{}: cancelled by {} {}",
            who(player),
            id(card),
            tag(origin),
            who(by_player),
            id(by)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::testing::game;
    use crate::engine::stream::trial_stream;

    /// Live (unused, unexpired) cancel listeners.
    fn live_listeners(table: &Table) -> usize {
        table.listeners.iter().filter(|l| l.remaining > 0).count()
    }

    /// Live (unused, unexpired) clone effects.
    fn live_clone_effects(table: &Table) -> usize {
        table.clone_effects.iter().filter(|w| !w.used).count()
    }

    /// Inline cards: `stop` cancels two actions, `caller` calls an action from the hand,
    /// `hit` is a plain action, `twin` clones the next action, `wall` cancels an action and
    /// its clones, `digger` calls from the discard pile (so discards are kept).
    const CARDS: &str = r#"
[cards]
cards_per_turn = 3
[[cards.card]]
id = "stop"
kind = "sort"
effects = [{ type = "cancel", kinds = ["action"], count = 2 }]
[[cards.card]]
id = "wall"
kind = "sort"
effects = [{ type = "cancel", kinds = ["action"], clones = true }]
[[cards.card]]
id = "caller"
kind = "objet"
effects = [{ type = "call", from = "hand", kinds = ["action"] }]
[[cards.card]]
id = "twin"
kind = "objet"
effects = [{ type = "clone", kinds = ["action"] }]
[[cards.card]]
id = "hit"
kind = "action"
value = 1
[[cards.card]]
id = "digger"
kind = "objet"
effects = [{ type = "call", from = "discard" }]
[cards.players.A]
plays = [[]]
[cards.players.B]
plays = [[]]
"#;

    fn turn(a: &[&str], b: &[&str], a_hand: &[&str], first: usize) -> (Vec<String>, Table) {
        let g = game(CARDS).unwrap();
        let ix = |ids: &[&str]| -> Vec<CardIx> {
            ids.iter().map(|id| g.card_index(id).unwrap()).collect()
        };
        let mut table = Table::new();
        table.sides[0].hand = ix(a_hand);
        let mut events: Vec<Event> = Vec::new();
        let (a, b) = (ix(a), ix(b));
        resolve_turn(
            &g,
            &mut table,
            [&a, &b],
            first,
            &mut trial_stream(1),
            &mut events,
        );
        let lines = events.iter().filter_map(|e| describe(&g, e)).collect();
        (lines, table)
    }

    #[test]
    fn played_cards_meet_earlier_listeners_queued_cards_only_later_ones() {
        let (lines, table) = turn(&["caller", "hit"], &["stop"], &["hit"], 1);
        assert_eq!(
            lines,
            [
                "B stop: resolved",
                "A caller: resolved",
                "A hit: called by A caller from hand",
                // Normally played after stop was armed: cancelled.
                "A hit: cancelled by B stop",
                // Called after stop was armed: immune to it, although it has a use left.
                "A hit (called): resolved",
            ]
        );
        // The unused listener expired with the turn; both hits went to the discard.
        assert_eq!(live_listeners(&table), 0);
        assert_eq!(table.sides[0].discard.len(), 3);
        assert!(table.sides[0].hand.is_empty());
    }

    #[test]
    fn listeners_never_hit_their_own_players_cards_and_spend_their_count() {
        let (lines, _) = turn(&["stop", "hit"], &["hit", "hit", "hit"], &[], 0);
        assert_eq!(
            lines,
            [
                "A stop: resolved",
                "B hit: cancelled by A stop",
                "A hit: resolved",
                "B hit: cancelled by A stop",
                "B hit: resolved",
            ]
        );
    }

    #[test]
    fn clones_fall_with_their_original_only_when_the_effect_says_so() {
        let (lines, _) = turn(&["twin", "hit"], &["wall"], &[], 0);
        assert_eq!(
            lines,
            [
                "A twin: resolved",
                "B wall: resolved",
                "A hit: cloned by A twin",
                "A hit: cancelled by B wall",
                "A hit (clone): cancelled by B wall",
            ]
        );
        let (lines, _) = turn(&["twin", "hit"], &["stop"], &[], 0);
        assert_eq!(lines[3], "A hit: cancelled by B stop");
        // Armed before the clone appeared: the clone is immune although stop has a use left.
        assert_eq!(lines[4], "A hit (clone): resolved");
    }

    #[test]
    fn a_clone_effect_copies_one_card_and_only_a_normally_played_one() {
        let (lines, table) = turn(&["twin", "caller", "hit"], &[], &["hit"], 0);
        assert_eq!(
            lines,
            [
                "A twin: resolved",
                "A caller: resolved",
                "A hit: called by A caller from hand",
                "A hit: cloned by A twin",
                "A hit: resolved",
                "A hit (called): resolved",
                "A hit (clone): resolved",
            ]
        );
        assert_eq!(live_clone_effects(&table), 0);
    }
}
