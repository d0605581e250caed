//! Card definitions and the validated card game.
//!
//! A [`CardGame`] is what `load` makes of a scenario's `[cards]` section: the cards (from a set
//! file and/or inline), the kinds they use, and each player's setup. Everything is resolved to
//! small indices here ([`CardIx`], kind numbers in a [`KindSet`] bit mask), so the hot path
//! compares integers and never looks at a string.

/// A card's index in [`CardGame::cards`].
pub type CardIx = u16;

/// The two players, in metric and table order. Player 0 is `A`, player 1 is `B`.
pub const PLAYERS: [&str; 2] = ["A", "B"];

/// Kinds are bits of a `u64`: at most this many distinct kinds in one game.
pub const MAX_KINDS: usize = 64;

/// A set of card kinds (bit k set: kind k is in the set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KindSet(u64);

impl KindSet {
    /// Every kind: what an effect without `kinds` matches.
    pub const ALL: KindSet = KindSet(u64::MAX);

    /// The set of the given kind numbers (each below [`MAX_KINDS`]).
    pub fn of(kinds: &[u8]) -> KindSet {
        KindSet(
            kinds
                .iter()
                .fold(0, |m, &k| m | 1u64.checked_shl(k as u32).unwrap_or(0)),
        )
    }

    #[inline]
    pub fn contains(self, kind: u8) -> bool {
        self.0 & 1u64.checked_shl(kind as u32).unwrap_or(0) != 0
    }
}

/// Where a `call` effect looks. `Opponent*` zones are the other player's; the called card is
/// then controlled (and counted, and scored) by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zone {
    Hand,
    Deck,
    Discard,
    OpponentHand,
    OpponentDeck,
    OpponentDiscard,
}

impl Zone {
    /// Every zone with its name in files.
    pub const ALL: [(Zone, &'static str); 6] = [
        (Zone::Hand, "hand"),
        (Zone::Deck, "deck"),
        (Zone::Discard, "discard"),
        (Zone::OpponentHand, "opponent_hand"),
        (Zone::OpponentDeck, "opponent_deck"),
        (Zone::OpponentDiscard, "opponent_discard"),
    ];

    pub fn name(self) -> &'static str {
        Zone::ALL
            .iter()
            .find(|(z, _)| *z == self)
            .map_or("?", |(_, n)| n)
    }

    pub fn is_opponent(self) -> bool {
        matches!(
            self,
            Zone::OpponentHand | Zone::OpponentDeck | Zone::OpponentDiscard
        )
    }
}

/// How a `call` picks among the matching cards of its zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choose {
    /// The first matching card in zone order (hand: as dealt or listed; deck: from the top;
    /// discard: most recently discarded first).
    First,
    /// A uniformly random matching card.
    Random,
    /// The matching card of highest `value`; ties go to the first in zone order.
    Best,
}

impl Choose {
    pub const ALL: [(Choose, &'static str); 3] = [
        (Choose::First, "first"),
        (Choose::Random, "random"),
        (Choose::Best, "best"),
    ];
}

/// What a card does when it resolves (a cancelled card does none of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Arms a listener that cancels the opponent's next `count` cards of `kinds`.
    Cancel {
        kinds: KindSet,
        count: u32,
        clones: bool,
    },
    /// Brings one matching card from `from` into the latency queue.
    Call {
        from: Zone,
        kinds: KindSet,
        choose: Choose,
    },
    /// The same player's next normally played card of `kinds` gets a copy in the latency queue
    /// when it comes to resolve.
    Clone { kinds: KindSet },
}

/// One card definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Card {
    /// Letters, digits, `_` or `-`: it names metrics such as `A.<id>.resolved`.
    pub id: String,
    pub name: String,
    /// Index into [`CardGame::kinds`].
    pub kind: u8,
    /// Points scored when it resolves.
    pub value: i64,
    pub effects: Vec<Effect>,
}

/// Who resolves first in a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Initiative {
    A,
    B,
    /// A in turn 1, B in turn 2, and so on.
    Alternate,
    /// A fair coin, drawn afresh at the start of every turn.
    Random,
}

/// How a player picks the cards it plays.
#[derive(Debug, Clone, PartialEq)]
pub enum Plays {
    /// Card ids per turn, in slot order.
    Scripted(Vec<Vec<CardIx>>),
    /// Each turn: draw from the shuffled deck until the hand holds `hand_size` cards (or the
    /// deck is empty), then play `cards_per_turn` of them, chosen and ordered at random.
    Random { hand_size: usize },
    /// Every ordering of `cards_per_turn` cards from the hand is an arm of the trial.
    Enumerate,
}

/// One player's zones at the start of a game and how it plays.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerSetup {
    pub plays: Plays,
    /// In zone order.
    pub hand: Vec<CardIx>,
    /// Top first. Shuffled at the start of every game when plays are random, else kept as
    /// written.
    pub deck: Vec<CardIx>,
    /// Most recent first.
    pub discard: Vec<CardIx>,
}

impl PlayerSetup {
    /// Every card id this player's setup names, possibly repeated.
    fn mentioned(&self) -> impl Iterator<Item = CardIx> + '_ {
        let scripted: &[Vec<CardIx>] = match &self.plays {
            Plays::Scripted(turns) => turns,
            _ => &[],
        };
        scripted
            .iter()
            .flatten()
            .chain(&self.hand)
            .chain(&self.deck)
            .chain(&self.discard)
            .copied()
    }
}

/// A validated `[cards]` section.
#[derive(Debug, Clone, PartialEq)]
pub struct CardGame {
    pub(crate) cards: Vec<Card>,
    pub(crate) kinds: Vec<String>,
    pub(crate) cards_per_turn: usize,
    pub(crate) turns: u32,
    pub(crate) initiative: Initiative,
    pub(crate) players: [PlayerSetup; 2],
    pub(crate) listeners_persist: bool,
    /// Some card calls from a discard pile: only then are discards kept (nothing else can
    /// observe them).
    pub(crate) reads_discard: bool,
}

impl CardGame {
    /// `options.listeners.persist`: unused listeners (and clone effects) survive the end of
    /// the turn instead of expiring.
    pub fn with_listeners_persist(mut self, persist: bool) -> Self {
        self.listeners_persist = persist;
        self
    }

    pub fn listeners_persist(&self) -> bool {
        self.listeners_persist
    }

    pub fn cards(&self) -> &[Card] {
        &self.cards
    }

    pub fn kinds(&self) -> &[String] {
        &self.kinds
    }

    pub fn card_index(&self, id: &str) -> Option<CardIx> {
        self.cards
            .iter()
            .position(|c| c.id == id)
            .map(|i| i as CardIx)
    }

    pub fn card(&self, id: &str) -> Option<&Card> {
        self.cards.iter().find(|c| c.id == id)
    }

    pub fn cards_per_turn(&self) -> usize {
        self.cards_per_turn
    }

    pub fn turns(&self) -> u32 {
        self.turns
    }

    pub fn initiative(&self) -> Initiative {
        self.initiative
    }

    /// Whether a game never makes a random choice: no shuffled deck or random plays, no drawn
    /// initiative, no card in play that calls at random (cards of the set that no zone or
    /// script names never come into play). Its trials are then all alike.
    pub fn is_deterministic(&self) -> bool {
        self.initiative != Initiative::Random
            && self
                .players
                .iter()
                .all(|s| !matches!(s.plays, Plays::Random { .. }))
            && self
                .players
                .iter()
                .flat_map(PlayerSetup::mentioned)
                .all(|c| {
                    self.cards[c as usize].effects.iter().all(|e| {
                        !matches!(
                            e,
                            Effect::Call {
                                choose: Choose::Random,
                                ..
                            }
                        )
                    })
                })
    }

    pub fn player(&self, p: usize) -> &PlayerSetup {
        &self.players[p.min(1)]
    }

    /// The cards player `p` can ever hold, in game order: those its own setup names, plus
    /// the opponent's when some card of the game calls from an opponent's zone (a called card
    /// is the caller's). Clones copy the player's own cards, so they add none.
    fn holdable(&self, p: usize) -> Vec<bool> {
        let p = p.min(1);
        let mut named = vec![false; self.cards.len()];
        for c in self.players[p].mentioned() {
            named[c as usize] = true;
        }
        let steals = self.players.iter().flat_map(|s| s.mentioned()).any(|c| {
            self.cards[c as usize]
                .effects
                .iter()
                .any(|e| matches!(e, Effect::Call { from, .. } if from.is_opponent()))
        });
        if steals {
            for c in self.players[1 - p].mentioned() {
                named[c as usize] = true;
            }
        }
        named
    }

    /// Player `p`'s card metrics: for each card it can bring into play, in game order, which
    /// of [`CARD_METRICS`] can ever be non-zero. A metric that cannot (`called` for a card no
    /// effect of `p` could call, `cancelled` for a kind no opponent card cancels, ...) is left
    /// out of the tables rather than written as a column of zeros; `resolved` is always kept.
    /// The test `tests/integration/cards.rs` checks over many random games that no counted
    /// event ever falls outside this layout.
    pub fn card_metrics(&self, p: usize) -> Vec<(CardIx, [bool; 5])> {
        let p = p.min(1);
        let setup = &self.players[p];
        let mut playable = vec![false; self.cards.len()];
        let sources: Vec<CardIx> = match &setup.plays {
            Plays::Scripted(turns) => turns.iter().flatten().copied().collect(),
            Plays::Enumerate => setup.hand.clone(),
            Plays::Random { .. } => setup.hand.iter().chain(&setup.deck).copied().collect(),
        };
        for c in sources {
            playable[c as usize] = true;
        }
        let own = self.holdable(p);
        let theirs = self.holdable(1 - p);
        // The kinds each effect type of a holder's cards reaches.
        let reach = |holds: &[bool], pick: fn(&Effect) -> Option<KindSet>| -> KindSet {
            let mut mask = 0u64;
            for (c, _) in holds.iter().enumerate().filter(|(_, &h)| h) {
                for e in &self.cards[c].effects {
                    if let Some(k) = pick(e) {
                        mask |= k.0;
                    }
                }
            }
            KindSet(mask)
        };
        let calls = reach(&own, |e| match e {
            Effect::Call { kinds, .. } => Some(*kinds),
            _ => None,
        });
        let clones = reach(&own, |e| match e {
            Effect::Clone { kinds } => Some(*kinds),
            _ => None,
        });
        let cancels = reach(&theirs, |e| match e {
            Effect::Cancel { kinds, .. } => Some(*kinds),
            _ => None,
        });
        (0..self.cards.len())
            .filter_map(|c| {
                let kind = self.cards[c].kind;
                let played = playable[c];
                let called = own[c] && calls.contains(kind);
                if !(played || called) {
                    return None;
                }
                let cloned = played && clones.contains(kind);
                let cancelled = cancels.contains(kind);
                Some((c as CardIx, [played, true, cancelled, called, cloned]))
            })
            .collect()
    }

    /// Metrics per arm: `<P>.score` and the card metrics of both players.
    pub fn metrics_per_arm(&self) -> usize {
        (0..2)
            .map(|p| {
                1 + self
                    .card_metrics(p)
                    .iter()
                    .map(|(_, m)| m.iter().filter(|&&b| b).count())
                    .sum::<usize>()
            })
            .sum()
    }
}

/// The metrics of one card, in output order: `<P>.<id>.<metric>`.
pub const CARD_METRICS: [&str; 5] = ["played", "resolved", "cancelled", "called", "cloned"];

/// What each of [`CARD_METRICS`] counts, in the same order; `{}` stands for the player's card
/// ("A's Fireball"), as `crate::metrics::meaning` fills it in.
pub const CARD_METRIC_MEANINGS: [&str; CARD_METRICS.len()] = [
    "times {} was played normally (face down)",
    "times {} resolved, clones and called copies included",
    "times {} was cancelled by an opponent's listener",
    "times {} was called into the latency queue by another card",
    "copies of {} a clone effect made",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_sets_hold_their_kinds_only() {
        let s = KindSet::of(&[0, 3, 63]);
        assert!(s.contains(0) && s.contains(3) && s.contains(63));
        assert!(!s.contains(1) && !s.contains(62));
        assert!(KindSet::ALL.contains(17));
        // Out of range never panics and is never a member.
        assert!(!KindSet::of(&[200]).contains(200));
    }

    #[test]
    fn zone_names_round_trip() {
        for (z, n) in Zone::ALL {
            assert_eq!(z.name(), n);
        }
        assert!(Zone::OpponentDeck.is_opponent() && !Zone::Deck.is_opponent());
    }
}
