//! A player's zones (hand, deck, discard) and the draws that take cards out of them.
//!
//! The deck is shuffled lazily: positions are fixed from the top down, one Fisher-Yates step at
//! a time, only when a draw or a call needs them. The order seen is a uniform permutation,
//! exactly as if the whole deck had been shuffled first, but a game that draws five cards from
//! a deck of forty pays for five steps, not forty. All randomness comes from the `rng` passed
//! in (the engine's stream).

use super::data::{Card, CardIx, Choose, KindSet};
use rand::Rng;

/// A uniform integer in `0..n` (0 when `n` is 0 or 1, drawing nothing), by Lemire's
/// multiply-and-reject method: unbiased, and one 32-bit word almost always.
#[inline]
pub fn below<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    if n <= 1 {
        return 0;
    }
    let mut m = rng.next_u32() as u64 * n as u64;
    if (m as u32) < n {
        let floor = n.wrapping_neg() % n;
        while (m as u32) < floor {
            m = rng.next_u32() as u64 * n as u64;
        }
    }
    (m >> 32) as u32
}

/// `v.remove(i)` for the short vectors of a hand or a deck, without a call into libc's
/// `memmove`, which dominates for a handful of elements. Every card but the last is rewritten,
/// with the card above it from `i` on and with itself below `i`, chosen by a mask: the loop
/// runs as many times whatever `i` is, so the processor predicts its end, where a loop from
/// `i` to the top ends at a random point and is mispredicted once per removal.
#[inline]
pub fn remove_in_order(v: &mut Vec<CardIx>, i: usize) -> CardIx {
    let n = v.len();
    debug_assert!(i < n, "remove_in_order({i}) from {n} cards");
    let Some(&taken) = v.get(i) else {
        return v.pop().unwrap_or_default();
    };
    for k in 0..n - 1 {
        let (here, above) = (v[k], v[k + 1]);
        let shift = CardIx::from(k >= i).wrapping_neg();
        v[k] = (above & shift) | (here & !shift);
    }
    v.pop();
    taken
}

/// A deck: `cards` bottom to top (the top card is the last), of which the top `fixed` are in
/// their final shuffled order; the rest are an unordered pool still to be shuffled.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Deck {
    cards: Vec<CardIx>,
    fixed: usize,
}

impl Deck {
    /// A deck in the order written (top first), not shuffled.
    pub fn reset_ordered(&mut self, top_first: &[CardIx]) {
        self.cards.clear();
        self.cards.extend(top_first.iter().rev());
        self.fixed = self.cards.len();
    }

    /// A deck to be shuffled (lazily, as it is used).
    pub fn reset_shuffled(&mut self, cards: &[CardIx]) {
        self.cards.clear();
        self.cards.extend_from_slice(cards);
        self.fixed = 0;
    }

    pub fn len(&self) -> usize {
        self.cards.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }

    /// Fixes the next position below the fixed top: one Fisher-Yates step.
    fn settle_one<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        if self.fixed >= self.cards.len() {
            return;
        }
        let pos = self.cards.len() - self.fixed - 1;
        let r = below(rng, pos as u32 + 1) as usize;
        self.cards.swap(r, pos);
        self.fixed += 1;
    }

    /// The index in `cards` of the `i`-th card from the top, fixing positions as needed.
    fn at<R: Rng + ?Sized>(&mut self, i: usize, rng: &mut R) -> usize {
        while self.fixed <= i {
            self.settle_one(rng);
        }
        self.cards.len() - 1 - i
    }

    fn remove(&mut self, index: usize) -> CardIx {
        if index >= self.cards.len() - self.fixed {
            self.fixed -= 1;
        }
        remove_in_order(&mut self.cards, index)
    }

    /// Takes the top card; `None` when the deck is empty.
    #[inline]
    pub fn draw<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Option<CardIx> {
        let n = self.cards.len();
        if n == 0 {
            return None;
        }
        if self.fixed == 0 {
            // The Fisher-Yates step that fixes the top card, and take it: card r is drawn and
            // the top card takes its place in the pool (a swap and a pop, one store fewer).
            let r = below(rng, n as u32) as usize;
            let top = self.cards.pop()?;
            return Some(match self.cards.get_mut(r) {
                Some(slot) => std::mem::replace(slot, top),
                None => top,
            });
        }
        self.fixed -= 1;
        self.cards.pop()
    }

    /// Takes a card matching `kinds` as `choose` says; `None` when no card matches.
    pub fn take<R: Rng + ?Sized>(
        &mut self,
        kinds: KindSet,
        choose: Choose,
        cards: &[Card],
        rng: &mut R,
    ) -> Option<CardIx> {
        let matches = |c: CardIx| kinds.contains(cards[c as usize].kind);
        match choose {
            Choose::First => {
                for i in 0..self.cards.len() {
                    let at = self.at(i, rng);
                    if matches(self.cards[at]) {
                        return Some(self.remove(at));
                    }
                }
                None
            }
            // Uniform over the matching cards: their order does not matter, so the pool need
            // not be shuffled.
            Choose::Random => {
                let n = self.cards.iter().filter(|&&c| matches(c)).count();
                if n == 0 {
                    return None;
                }
                let r = below(rng, n as u32) as usize;
                let at = self
                    .cards
                    .iter()
                    .enumerate()
                    .filter(|&(_, &c)| matches(c))
                    .nth(r)
                    .map(|(i, _)| i)?;
                Some(self.remove(at))
            }
            Choose::Best => {
                let mut best: Option<(usize, i64)> = None;
                for i in 0..self.cards.len() {
                    let at = self.at(i, rng);
                    let c = self.cards[at];
                    let v = cards[c as usize].value;
                    if matches(c) && best.is_none_or(|(_, b)| v > b) {
                        best = Some((at, v));
                    }
                }
                best.map(|(at, _)| self.remove(at))
            }
        }
    }

    /// The cards top first, fixing the whole order (for logs and tests).
    pub fn top_first<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Vec<CardIx> {
        let n = self.cards.len();
        if n > 0 {
            self.at(n - 1, rng);
        }
        self.cards.iter().rev().copied().collect()
    }
}

/// Takes a card matching `kinds` from a list zone, as `choose` says. Zone order is the list's
/// order, or its reverse when `newest_first` (the discard pile: most recent on top).
pub fn take_from_list<R: Rng + ?Sized>(
    list: &mut Vec<CardIx>,
    newest_first: bool,
    kinds: KindSet,
    choose: Choose,
    cards: &[Card],
    rng: &mut R,
) -> Option<CardIx> {
    let n = list.len();
    let index = |i: usize| if newest_first { n - 1 - i } else { i };
    let matches = |c: CardIx| kinds.contains(cards[c as usize].kind);
    let at = match choose {
        Choose::First => (0..n).map(index).find(|&i| matches(list[i]))?,
        Choose::Random => {
            let count = list.iter().filter(|&&c| matches(c)).count();
            if count == 0 {
                return None;
            }
            let r = below(rng, count as u32) as usize;
            (0..n).map(index).filter(|&i| matches(list[i])).nth(r)?
        }
        Choose::Best => {
            let mut best: Option<(usize, i64)> = None;
            for i in (0..n).map(index) {
                let v = cards[list[i] as usize].value;
                if matches(list[i]) && best.is_none_or(|(_, b)| v > b) {
                    best = Some((i, v));
                }
            }
            best?.0
        }
    };
    Some(remove_in_order(list, at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream::trial_stream;

    fn card(kind: u8, value: i64) -> Card {
        Card {
            id: format!("c{kind}{value}"),
            name: String::new(),
            kind,
            value,
            effects: vec![],
        }
    }

    #[test]
    fn below_is_uniform_and_in_range() {
        let mut rng = trial_stream(11);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[below(&mut rng, 6) as usize] += 1;
        }
        // 10,000 expected per cell, sd ~ 91: 5 sd.
        assert!(
            counts.iter().all(|&c| (9_550..=10_450).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(below(&mut rng, 0), 0);
        assert_eq!(below(&mut rng, 1), 0);
    }

    #[test]
    fn lazy_shuffle_gives_every_order_equally_often() {
        let mut rng = trial_stream(12);
        let mut counts = std::collections::HashMap::new();
        let mut deck = Deck::default();
        for _ in 0..24_000 {
            deck.reset_shuffled(&[0, 1, 2, 3]);
            let order: Vec<CardIx> = std::iter::from_fn(|| deck.draw(&mut rng)).collect();
            *counts.entry(order).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), 24);
        // 1,000 expected per order, sd ~ 31: 5 sd.
        assert!(
            counts.values().all(|&c| (845..=1_155).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn remove_in_order_is_vec_remove() {
        let mut rng = trial_stream(13);
        for _ in 0..2_000 {
            let n = below(&mut rng, 12) as usize + 1;
            let v: Vec<CardIx> = (0..n).map(|_| below(&mut rng, 40) as CardIx).collect();
            let i = below(&mut rng, n as u32) as usize;
            let (mut fast, mut plain) = (v.clone(), v.clone());
            assert_eq!(
                remove_in_order(&mut fast, i),
                plain.remove(i),
                "{v:?} at {i}"
            );
            assert_eq!(fast, plain, "{v:?} at {i}");
        }
    }

    #[test]
    fn drawing_from_a_shuffled_deck_is_a_fisher_yates_step_and_a_pop() {
        // The plain statement of a draw: fix the top card with one Fisher-Yates step (swap a
        // uniformly chosen card to the top), then take the top.
        let plain_draw = |cards: &mut Vec<CardIx>, rng: &mut crate::engine::stream::Stream| {
            let n = cards.len();
            let r = below(rng, n as u32) as usize;
            cards.swap(r, n - 1);
            cards.pop()
        };
        let mut shape = trial_stream(14);
        for seed in 0..500 {
            let n = below(&mut shape, 20) as usize + 1;
            let cards: Vec<CardIx> = (0..n as CardIx).collect();
            let mut deck = Deck::default();
            deck.reset_shuffled(&cards);
            let (mut fast_rng, mut plain_rng) = (trial_stream(seed), trial_stream(seed));
            let mut plain = cards.clone();
            for _ in 0..n {
                assert_eq!(
                    deck.draw(&mut fast_rng),
                    plain_draw(&mut plain, &mut plain_rng)
                );
            }
            assert_eq!(deck.draw(&mut fast_rng), None);
            assert_eq!(
                fast_rng.next_u64(),
                plain_rng.next_u64(),
                "same words drawn"
            );
        }
    }

    #[test]
    fn ordered_decks_draw_top_first_and_take_by_choice() {
        let cards = [card(0, 1), card(1, 5), card(1, 7), card(0, 7)];
        let mut rng = trial_stream(1);
        let mut deck = Deck::default();
        deck.reset_ordered(&[0, 1, 2, 3]);
        let kind1 = KindSet::of(&[1]);
        assert_eq!(deck.take(kind1, Choose::First, &cards, &mut rng), Some(1));
        // Best by value; ties (2 and 3 both 7) go to the first from the top.
        assert_eq!(
            deck.take(KindSet::ALL, Choose::Best, &cards, &mut rng),
            Some(2)
        );
        assert_eq!(deck.draw(&mut rng), Some(0));
        assert_eq!(deck.take(kind1, Choose::Random, &cards, &mut rng), None);
        assert_eq!(deck.draw(&mut rng), Some(3));
        assert_eq!(deck.draw(&mut rng), None);
        assert!(deck.is_empty());
    }

    #[test]
    fn list_zones_take_in_zone_order() {
        let cards = [card(0, 1), card(1, 5), card(1, 7)];
        let mut rng = trial_stream(1);
        let kind1 = KindSet::of(&[1]);
        let mut hand = vec![0, 1, 2];
        assert_eq!(
            take_from_list(&mut hand, false, kind1, Choose::First, &cards, &mut rng),
            Some(1)
        );
        assert_eq!(hand, vec![0, 2]);
        let mut discard = vec![0, 1, 2];
        assert_eq!(
            take_from_list(
                &mut discard,
                true,
                KindSet::of(&[0, 1]),
                Choose::First,
                &cards,
                &mut rng
            ),
            Some(2)
        );
        assert_eq!(
            take_from_list(
                &mut discard,
                true,
                KindSet::ALL,
                Choose::Best,
                &cards,
                &mut rng
            ),
            Some(1)
        );
        let mut empty: Vec<CardIx> = vec![];
        assert_eq!(
            take_from_list(
                &mut empty,
                false,
                KindSet::ALL,
                Choose::Random,
                &cards,
                &mut rng
            ),
            None
        );
    }
}
