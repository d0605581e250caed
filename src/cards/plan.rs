//! The card game compiled for the engine: metric layout, arms, and one game per trial.
//!
//! A trial is one game of `turns` turns. Its metrics, per player, are `<P>.score` then, for
//! each card the player can bring into play, `<P>.<id>.played`, `.resolved`, `.cancelled`,
//! `.called`, `.cloned` (counts over the whole game; those that can never be non-zero are left
//! out, see [`CardGame::card_metrics`]). An enumerating scenario has one arm per pair of
//! orderings, each with that block of metrics, and asks the engine for the per-trial
//! differences of its score metrics ([`margins::pairs`]), from which the margins' intervals
//! come.
//!
//! Random draws happen in a fixed order (initiative, then A's plays, then B's, then the
//! resolution's own draws), all from the engine's stream, so the results depend only on
//! (seed, chunk) and arms share their random numbers as far as their plays allow.

use super::data::{CardGame, CardIx, Initiative, Plays, CARD_METRICS, PLAYERS};
use super::margins;
use super::orderings::{self, Ordering};
use super::resolve::{describe, resolve_turn, Event, Sink, Table};
use super::zones::{below, remove_in_order};
use crate::condition::derived::Derived;
use crate::engine::{Draws, MetricName, Trial};
use rand::Rng;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

const NO_SLOT: u32 = u32::MAX;

/// A card game compiled for play.
pub struct CardPlan {
    game: CardGame,
    metrics: Vec<MetricName>,
    /// Metrics per arm.
    per_arm: usize,
    /// `cells[p * cards + c]`: where player p's events with card c are counted.
    cells: Vec<CardCells>,
    /// The orderings of each enumerating player (empty for the others).
    orderings: [Vec<Ordering>; 2],
    /// Number of B's orderings (1 if B does not enumerate): arm = ia * b_count + ib.
    b_count: usize,
    arms: usize,
    /// Score metric pairs whose per-trial differences give the margins' covariances.
    pairs: Vec<(usize, usize)>,
    /// The `[metrics]`, computed after the built-in metrics of each arm's block.
    derived: Option<Derived>,
    /// The lowest index (in file order) of a derived metric that overflowed in some trial, or
    /// `usize::MAX` (see `rules::Plan::overflowed`).
    overflow: AtomicUsize,
}

/// Per-worker memory: the table and the cards played this turn.
pub struct Scratch {
    table: Table,
    played: [Vec<CardIx>; 2],
}

/// An arm's block of metrics: the names in order, per player and card the slot of each of
/// its [`CARD_METRICS`] (or `NO_SLOT`), and each player's score slot.
struct Layout {
    names: Vec<String>,
    slots: Vec<[u32; CARD_METRICS.len()]>,
    score_slots: [usize; 2],
}

fn layout(game: &CardGame) -> Layout {
    let n = game.cards.len();
    let mut slots = vec![[NO_SLOT; CARD_METRICS.len()]; 2 * n];
    let mut names = Vec::new();
    let mut score_slots = [0; 2];
    for (p, player) in PLAYERS.iter().enumerate() {
        score_slots[p] = names.len();
        names.push(format!("{player}.score"));
        for (c, kept) in game.card_metrics(p) {
            let id = &game.cards[c as usize].id;
            for (m, metric) in CARD_METRICS.iter().enumerate().filter(|&(m, _)| kept[m]) {
                slots[p * n + c as usize][m] = names.len() as u32;
                names.push(format!("{player}.{id}.{metric}"));
            }
        }
    }
    Layout {
        names,
        slots,
        score_slots,
    }
}

/// The built-in metrics of every arm of `game`, in the order a trial writes them.
pub fn metric_names(game: &CardGame) -> Vec<String> {
    layout(game).names
}

impl CardPlan {
    pub fn compile(game: &CardGame) -> CardPlan {
        let game = game.clone();
        let n = game.cards.len();
        let Layout {
            names,
            slots,
            score_slots,
        } = layout(&game);
        let orderings: [Vec<Ordering>; 2] = std::array::from_fn(|p| match game.players[p].plays {
            Plays::Enumerate => orderings::enumerate(&game.players[p].hand, game.cards_per_turn),
            _ => Vec::new(),
        });
        let count = |p: usize| orderings[p].len().max(1);
        let arms = count(0) * count(1);
        let labels: Vec<String> = if orderings.iter().all(Vec::is_empty) {
            vec![String::new()]
        } else {
            let side = |p: usize| -> Vec<String> {
                let ids = |cs: &[CardIx]| -> String {
                    let ids: Vec<&str> = cs
                        .iter()
                        .map(|&c| game.cards[c as usize].id.as_str())
                        .collect();
                    orderings::ordering_label(&ids)
                };
                match &game.players[p].plays {
                    Plays::Enumerate => orderings[p].iter().map(|o| ids(&o.played)).collect(),
                    Plays::Scripted(turns) => {
                        vec![turns.iter().map(|t| ids(t)).collect::<Vec<_>>().join("/")]
                    }
                    Plays::Random { .. } => vec!["random".into()],
                }
            };
            let (a, b) = (side(0), side(1));
            a.iter()
                .flat_map(|la| b.iter().map(move |lb| orderings::arm_label(la, lb)))
                .collect()
        };
        let per_arm = names.len();
        let cells = slots
            .iter()
            .enumerate()
            .map(|(pc, metric)| CardCells {
                metric: metric.map(|s| if s == NO_SLOT { per_arm as u32 } else { s }),
                score: score_slots[pc / n.max(1)] as u32,
                value: game.cards[pc % n.max(1)].value,
            })
            .collect();
        let pairs = if orderings.iter().all(Vec::is_empty) {
            Vec::new()
        } else {
            let scores: Vec<(usize, usize)> = (0..arms)
                .map(|arm| {
                    (
                        arm * per_arm + score_slots[0],
                        arm * per_arm + score_slots[1],
                    )
                })
                .collect();
            margins::pairs(&scores)
        };
        let metrics = labels
            .iter()
            .enumerate()
            .flat_map(|(arm, label)| {
                names.iter().map(move |name| MetricName {
                    arm,
                    choice: label.clone(),
                    name: name.clone(),
                    round: None,
                })
            })
            .collect();
        CardPlan {
            b_count: count(1),
            game,
            metrics,
            per_arm,
            cells,
            orderings,
            arms,
            pairs,
            derived: None,
            overflow: AtomicUsize::new(usize::MAX),
        }
    }

    /// The plan with `derived` metrics after each arm's built-in ones (which they read).
    pub fn with_derived(mut self, derived: Option<&Derived>) -> CardPlan {
        let Some(derived) = derived.filter(|d| !d.is_empty()) else {
            return self;
        };
        let builtins = self.per_arm;
        let width = builtins + derived.metrics().count();
        let arm_of = |i: usize| i / builtins;
        let mut metrics = Vec::with_capacity(self.arms * width);
        for arm in 0..self.arms {
            let block = &self.metrics[arm * builtins..(arm + 1) * builtins];
            let choice = block[0].choice.clone();
            metrics.extend(block.iter().cloned());
            metrics.extend(derived.metrics().map(|(name, _)| MetricName {
                arm,
                choice: choice.clone(),
                name: name.to_string(),
                round: None,
            }));
        }
        let moved = |i: usize| arm_of(i) * width + i % builtins;
        self.pairs = self
            .pairs
            .iter()
            .map(|&(a, b)| (moved(a), moved(b)))
            .collect();
        self.metrics = metrics;
        self.per_arm = width;
        self.derived = Some(derived.clone());
        self
    }

    /// The name and expression of the first derived metric (in file order) whose arithmetic
    /// overflowed in a trial played so far.
    pub fn overflowed(&self) -> Option<(String, String)> {
        let j = self.overflow.load(AtomicOrdering::Relaxed);
        let (name, e) = self.derived.as_ref()?.metrics().nth(j)?;
        Some((name.to_string(), e.text().to_string()))
    }

    pub fn game(&self) -> &CardGame {
        &self.game
    }

    /// Metrics per arm (`metrics().len() / arms()`).
    pub fn metrics_per_arm(&self) -> usize {
        self.per_arm
    }

    /// Plays one game of arm `arm`, reporting every event to `sink` turn by turn.
    fn play_game<R: Rng + ?Sized, S: Sink + Turns>(
        &self,
        arm: usize,
        scratch: &mut Scratch,
        rng: &mut R,
        sink: &mut S,
    ) {
        let game = &self.game;
        let chosen = [arm / self.b_count, arm % self.b_count];
        let table = &mut scratch.table;
        table.clear_state();
        for (p, side) in table.sides.iter_mut().enumerate() {
            let setup = &game.players[p];
            side.hand.clear();
            let hand = match (&setup.plays, self.orderings[p].get(chosen[p])) {
                (Plays::Enumerate, Some(o)) => &o.rest,
                _ => &setup.hand,
            };
            if !hand.is_empty() {
                side.hand.extend_from_slice(hand);
            }
            match setup.plays {
                Plays::Random { .. } => side.deck.reset_shuffled(&setup.deck),
                _ => side.deck.reset_ordered(&setup.deck),
            }
            side.discard.clear();
            if !setup.discard.is_empty() {
                side.discard.extend(setup.discard.iter().rev());
            }
        }
        for turn in 0..game.turns {
            // Ctrl-C: the engine drops this chunk, so a game cut short is never counted.
            if crate::engine::interrupted() {
                return;
            }
            let first = match game.initiative {
                Initiative::A => 0,
                Initiative::B => 1,
                Initiative::Alternate => (turn % 2) as usize,
                Initiative::Random => below(rng, 2) as usize,
            };
            for (p, played) in scratch.played.iter_mut().enumerate() {
                played.clear();
                let side = &mut table.sides[p];
                match &game.players[p].plays {
                    Plays::Scripted(turns) => {
                        if let Some(cards) = turns.get(turn as usize) {
                            played.extend_from_slice(cards);
                        }
                    }
                    Plays::Enumerate => {
                        if turn == 0 {
                            if let Some(o) = self.orderings[p].get(chosen[p]) {
                                played.extend_from_slice(&o.played);
                            }
                        }
                    }
                    Plays::Random { hand_size } => {
                        while side.hand.len() < *hand_size {
                            match side.deck.draw(rng) {
                                Some(c) => side.hand.push(c),
                                None => break,
                            }
                        }
                        for _ in 0..game.cards_per_turn.min(side.hand.len()) {
                            let i = below(rng, side.hand.len() as u32) as usize;
                            played.push(remove_in_order(&mut side.hand, i));
                        }
                    }
                }
            }
            sink.turn(turn, first);
            let [a, b] = &scratch.played;
            resolve_turn(game, table, [a.as_slice(), b.as_slice()], first, rng, sink);
        }
    }

    /// Plays one game of arm `arm` and returns everything that happened, turn by turn, with
    /// the metrics it wrote: what tests and curious users read. `rng` is consumed exactly as
    /// [`Trial::play`] consumes it, so the same stream gives the same game.
    pub fn play_logged<R: Rng + ?Sized>(&self, arm: usize, rng: &mut R) -> GameLog {
        let mut scratch = self.scratch();
        let mut log = GameLog::default();
        self.play_game(arm, &mut scratch, rng, &mut log);
        let block = arm.min(self.arms - 1) * self.per_arm;
        let mut row = vec![0; self.per_arm];
        let builtins = self
            .derived
            .as_ref()
            .map_or(self.per_arm, Derived::builtins);
        let mut counter = self.counter(&mut row[..builtins]);
        for e in log.turns.iter().flat_map(|t| &t.events) {
            counter.event(*e);
        }
        if let Some(derived) = &self.derived {
            // An overflow leaves the slot at 0 here; a run refuses it.
            let _ = derived.evaluate(&mut row);
        }
        log.metrics = self.metrics[block..block + self.per_arm]
            .iter()
            .zip(&row)
            .map(|(m, &v)| (m.name.clone(), v))
            .collect();
        for t in &mut log.turns {
            t.lines = t
                .events
                .iter()
                .filter_map(|e| describe(&self.game, e))
                .collect();
        }
        log
    }
}

impl CardPlan {
    /// A counter into `block` (an arm's `per_arm` cells), zeroed.
    fn counter<'a>(&'a self, block: &'a mut [i64]) -> Counter<'a> {
        block.fill(0);
        Counter {
            out: block,
            cells: &self.cells,
            cards: self.game.cards.len(),
        }
    }
}

/// Learns where turns begin (the log sink records it; the counter ignores it).
trait Turns {
    fn turn(&mut self, _turn: u32, _first: usize) {}
}

/// What one game did (see [`CardPlan::play_logged`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GameLog {
    pub turns: Vec<TurnLog>,
    /// Every metric of the arm with its value in this game, in `metrics()` order.
    pub metrics: Vec<(String, i64)>,
}

impl GameLog {
    /// The value of metric `name` (`None` if there is no such metric).
    pub fn metric(&self, name: &str) -> Option<i64> {
        self.metrics.iter().find(|(n, _)| n == name).map(|m| m.1)
    }

    /// Every turn's lines, one after the other.
    pub fn lines(&self) -> Vec<String> {
        self.turns.iter().flat_map(|t| t.lines.clone()).collect()
    }
}

/// One turn: who had the initiative, the events, and one readable line per event (normally
/// played cards' reveals have no line of their own: their outcome line says it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnLog {
    pub turn: u32,
    /// `"A"` or `"B"`.
    pub first: &'static str,
    pub events: Vec<Event>,
    pub lines: Vec<String>,
}

impl Sink for GameLog {
    fn event(&mut self, e: Event) {
        if let Some(t) = self.turns.last_mut() {
            t.events.push(e);
        }
    }
}

impl Turns for GameLog {
    fn turn(&mut self, turn: u32, first: usize) {
        self.turns.push(TurnLog {
            turn: turn + 1,
            first: PLAYERS[first.min(1)],
            ..TurnLog::default()
        });
    }
}

/// Where one player's events with one card are counted in an arm's block: a cell per metric
/// of [`CARD_METRICS`] (`per_arm`, past the block, for a metric that can never be non-zero,
/// so it is not counted), and the player's score cell with the points the card scores.
#[derive(Debug, Clone, Copy)]
struct CardCells {
    metric: [u32; CARD_METRICS.len()],
    score: u32,
    value: i64,
}

/// Counts events into an arm's block of metrics.
struct Counter<'a> {
    out: &'a mut [i64],
    cells: &'a [CardCells],
    cards: usize,
}

impl Counter<'_> {
    #[inline(always)]
    fn cells(&self, player: u8, card: CardIx) -> Option<&CardCells> {
        self.cells.get(player as usize * self.cards + card as usize)
    }

    #[inline(always)]
    fn add(&mut self, cell: u32, n: i64) {
        if let Some(v) = self.out.get_mut(cell as usize) {
            *v += n;
        }
    }

    #[inline(always)]
    fn bump(&mut self, player: u8, card: CardIx, metric: usize) {
        if let Some(&cells) = self.cells(player, card) {
            self.add(cells.metric[metric], 1);
        }
    }
}

impl Sink for Counter<'_> {
    #[inline(always)]
    fn event(&mut self, e: Event) {
        match e {
            Event::Played { player, card, .. } => self.bump(player, card, 0),
            Event::Resolved { player, card, .. } => {
                if let Some(&cells) = self.cells(player, card) {
                    self.add(cells.metric[1], 1);
                    self.add(cells.score, cells.value);
                }
            }
            Event::Cancelled { player, card, .. } => self.bump(player, card, 2),
            Event::Called { player, card, .. } => self.bump(player, card, 3),
            Event::Cloned { player, card, .. } => self.bump(player, card, 4),
        }
    }
}

impl Turns for Counter<'_> {}

impl Trial for CardPlan {
    type Scratch = Scratch;

    fn metrics(&self) -> &[MetricName] {
        &self.metrics
    }

    fn arms(&self) -> usize {
        self.arms
    }

    fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }

    fn scratch(&self) -> Scratch {
        Scratch {
            table: Table::new(),
            played: [
                Vec::with_capacity(self.game.cards_per_turn),
                Vec::with_capacity(self.game.cards_per_turn),
            ],
        }
    }

    /// Shuffles and random choices draw raw words, which the engine cannot remember, so only
    /// a game without any (scripted or enumerated plays, a fixed or alternating initiative,
    /// no call choosing at random) is memoised: its every trial is then one path without
    /// draws, played once per worker and counted for every other trial.
    fn memoise(&self) -> bool {
        self.game.is_deterministic()
    }

    fn play<'t, D: Draws<'t>>(
        &'t self,
        arm: usize,
        scratch: &mut Scratch,
        draws: &mut D,
        out: &mut [i64],
    ) {
        let start = arm * self.per_arm;
        let Some(block) = out.get_mut(start..start + self.per_arm) else {
            return;
        };
        let builtins = self
            .derived
            .as_ref()
            .map_or(self.per_arm, Derived::builtins);
        let mut counter = self.counter(&mut block[..builtins]);
        self.play_game(arm, scratch, &mut LazyWords(draws), &mut counter);
        if let Some(derived) = &self.derived {
            if let Err(j) = derived.evaluate(block) {
                self.overflow.fetch_min(j, AtomicOrdering::Relaxed);
            }
        }
    }
}

/// The engine's raw words, asked for only when a random choice is made: a game that makes
/// none never asks, so the engine may remember it ([`Draws::words`] marks a trial that asks
/// as one to play in full).
struct LazyWords<'a, D>(&'a mut D);

impl<'t, D: Draws<'t>> rand::TryRng for LazyWords<'_, D> {
    type Error = std::convert::Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.0.words().next_u32())
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.0.words().next_u64())
    }

    #[inline]
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        self.0.words().fill_bytes(dst);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::testing::game;
    use crate::engine::stream::trial_stream;
    use crate::engine::Plain;

    const SET: &str = r#"
[cards]
cards_per_turn = 2
[[cards.card]]
id = "stop"
kind = "sort"
effects = [{ type = "cancel", kinds = ["action"] }]
[[cards.card]]
id = "caller"
kind = "objet"
effects = [{ type = "call", from = "hand", kinds = ["action"] }]
[[cards.card]]
id = "hit"
kind = "action"
value = 2
[[cards.card]]
id = "unused"
kind = "action"
"#;

    fn names(plan: &CardPlan) -> Vec<String> {
        plan.metrics()
            .iter()
            .filter(|m| m.arm == 0)
            .map(|m| m.name.clone())
            .collect()
    }

    #[test]
    fn metrics_that_can_never_be_non_zero_are_left_out() {
        let g = game(&format!(
            "{SET}[cards.players.A]\nplays = [[\"caller\", \"hit\"]]\nhand = [\"hit\"]\n[cards.players.B]\nplays = [[\"stop\"]]\n"
        ))
        .unwrap();
        let plan = CardPlan::compile(&g);
        assert_eq!(
            names(&plan),
            [
                "A.score",
                // caller is an objet: no cancel reaches it; no clone effect exists.
                "A.caller.played",
                "A.caller.resolved",
                "A.hit.played",
                "A.hit.resolved",
                "A.hit.cancelled",
                "A.hit.called",
                "B.score",
                "B.stop.played",
                "B.stop.resolved",
            ]
        );
        assert_eq!(plan.metrics_per_arm(), g.metrics_per_arm());
        assert_eq!((plan.arms(), plan.metrics()[0].choice.as_str()), (1, ""));
        let log = plan.play_logged(0, &mut trial_stream(1));
        assert_eq!(log.metric("A.score"), Some(2));
        assert_eq!(log.metric("A.hit.cancelled"), Some(1));
    }

    #[test]
    fn enumerated_orderings_are_arms_with_readable_labels() {
        let g = game(&format!(
            "{SET}[cards.players.A]\nplays = \"enumerate\"\nhand = [\"caller\", \"hit\", \"hit\"]\n[cards.players.B]\nplays = [[\"stop\"]]\n"
        ))
        .unwrap();
        let plan = CardPlan::compile(&g);
        let labels: Vec<&str> = plan
            .metrics()
            .iter()
            .filter(|m| m.name == "A.score")
            .map(|m| m.choice.as_str())
            .collect();
        assert_eq!(
            labels,
            [
                "A:caller>hit|B:stop",
                "A:hit>caller|B:stop",
                "A:hit>hit|B:stop",
            ]
        );
        assert_eq!(plan.arms(), 3);
        assert_eq!(plan.metrics().len(), 3 * plan.metrics_per_arm());
        // Arm 0 (caller then hit) keeps the other hit in hand for the caller: A1 caller
        // calls it, B1 stop arms, A2 hit is cancelled, the called hit (appeared before stop
        // was armed) resolves.
        let log = plan.play_logged(0, &mut trial_stream(1));
        assert_eq!(
            log.lines(),
            [
                "A caller: resolved",
                "A hit: called by A caller from hand",
                "B stop: resolved",
                "A hit: cancelled by B stop",
                "A hit (called): resolved",
            ]
        );
        // Each arm writes its own block only.
        let mut out = vec![-1; plan.metrics().len()];
        let mut scratch = plan.scratch();
        plan.play(1, &mut scratch, &mut Plain(trial_stream(1)), &mut out);
        let m = plan.metrics_per_arm();
        assert!(out[..m].iter().all(|&v| v == -1) && out[2 * m..].iter().all(|&v| v == -1));
        assert!(out[m..2 * m].iter().all(|&v| v >= 0));
    }
}
