//! How a trial asks for randomness: as named draws from finite tables, not as raw words.
//!
//! A rule that says "count the successes of these tests" or "pick one of n answers" asks for a
//! [`Draw`]; the engine decides how to produce it. Every draw costs exactly one word of the
//! stream, so the plain way ([`Plain`]) and the memoised one ([`super::tree`]) read the
//! stream identically and give identical results. Rules that need raw words (the card game's
//! shuffles) take them from [`Draws::words`]; the engine then plays those trials in full.

use crate::dice::{words_share, SuccessCount};
use rand::Rng;

/// One random decision: which table it is drawn from. Decided by one 64-bit word.
#[derive(Debug, Clone, Copy)]
pub enum Draw<'t> {
    /// The number of successes from a success-count table.
    Count(&'t SuccessCount),
    /// A uniform index below `n` (n >= 1).
    Uniform(u32),
}

impl Draw<'_> {
    /// How many results the draw can give: results are `0..outcomes()`.
    pub fn outcomes(&self) -> usize {
        match self {
            Draw::Count(table) => table.trials() as usize + 1,
            Draw::Uniform(n) => *n as usize,
        }
    }

    /// The result a word draws.
    #[inline]
    pub fn result(&self, word: u64) -> u32 {
        match self {
            Draw::Count(table) => table.count_for(word),
            // The high part of word * n: uniform to within n / 2^64, no division, no loop.
            Draw::Uniform(n) => ((word as u128 * *n as u128) >> 64) as u32,
        }
    }

    /// The words that draw `k`, as an inclusive range (results grow with the word), or
    /// `None` when no word does.
    pub fn words_drawing(&self, k: u32) -> Option<(u64, u64)> {
        match self {
            Draw::Count(table) => table.words_drawing(k),
            Draw::Uniform(n) if k < *n => {
                // Word w draws floor(w * n / 2^64): k from ceil(k 2^64 / n) on.
                let first = |k: u32| ((k as u128) << 64).div_ceil(*n as u128);
                Some((first(k) as u64, (first(k + 1) - 1) as u64))
            }
            Draw::Uniform(_) => None,
        }
    }

    /// What tells draws apart: their table (by address) or their `n`. Draws with one
    /// identity draw alike from every word.
    pub fn identity(&self) -> (bool, usize) {
        match self {
            Draw::Count(table) => (false, std::ptr::from_ref(*table) as usize),
            Draw::Uniform(n) => (true, *n as usize),
        }
    }

    /// The chance that a word draws `k`: the share of all words that do.
    pub fn chance(&self, k: u32) -> f64 {
        match self {
            // Worked out once per table: recording a path asks at every step.
            Draw::Count(table) => table.share(k),
            Draw::Uniform(_) => self.words_drawing(k).map_or(0.0, words_share),
        }
    }

    /// Whether some word draws `k`.
    pub fn can_draw(&self, k: u32) -> bool {
        match self {
            Draw::Count(table) => table.word_for(k).is_some(),
            Draw::Uniform(n) => k < *n,
        }
    }
}

/// The randomness a trial plays with. `'t` is the lifetime of the trial's tables, so a
/// memoising engine can keep the draws it has seen.
pub trait Draws<'t> {
    /// The words behind raw draws.
    type Words: Rng;

    /// Draws `draw` with one word.
    fn draw(&mut self, draw: Draw<'t>) -> u32;

    /// Raw words, for rules that do not draw from tables. A trial that uses them cannot be
    /// memoised and is always played in full.
    fn words(&mut self) -> &mut Self::Words;

    /// Says that the trial is at a state from which the rest of it (every draw it still makes
    /// and every metric it still writes) depends only on the words `key` writes, pushed onto
    /// the vector it is given. Trials that reach the same key go on alike, so a memoising
    /// engine may share what follows ([`super::tree`]). Only an engine that records a new
    /// path calls `key`: the plain way and walks ignore it, so announcing costs nothing there.
    #[inline]
    fn at_state(&mut self, key: impl FnOnce(&mut Vec<u64>)) {
        let _ = key;
    }

    /// Says that the trial has just written its record of round `round` ([`super::Trial`]
    /// rows may hold records of how a trial stood at the end of each round, named with
    /// [`super::MetricName::round`]), and that it stays as written: a memoising engine
    /// counts the record where trials pass this point instead of keeping it in their rows.
    /// A trial need not say it of the records it writes after its last draw.
    #[inline]
    fn at_round(&mut self, round: u32) {
        let _ = round;
    }

    /// The number of successes from `table`.
    #[inline]
    fn count(&mut self, table: &'t SuccessCount) -> u32 {
        self.draw(Draw::Count(table))
    }

    /// A uniform index below `n`.
    #[inline]
    fn uniform(&mut self, n: u32) -> u32 {
        self.draw(Draw::Uniform(n))
    }
}

/// Draws straight from a stream: one word per draw.
pub struct Plain<R>(pub R);

impl<'t, R: Rng> Draws<'t> for Plain<R> {
    type Words = R;

    #[inline]
    fn draw(&mut self, draw: Draw<'t>) -> u32 {
        draw.result(self.0.next_u64())
    }

    fn words(&mut self) -> &mut R {
        &mut self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::Fraction;

    #[test]
    fn uniform_draws_split_the_words_evenly() {
        let d = Draw::Uniform(3);
        assert_eq!(d.result(0), 0);
        assert_eq!(d.result(u64::MAX / 3), 0);
        assert_eq!(d.result(u64::MAX / 3 + 1), 1);
        assert_eq!(d.result(u64::MAX), 2);
        assert!(d.can_draw(2) && !d.can_draw(3));
        assert_eq!(d.outcomes(), 3);
    }

    #[test]
    fn the_words_drawing_a_result_are_exactly_those() {
        let table = SuccessCount::new(5, Fraction::new(1, 3));
        let never = SuccessCount::new(4, Fraction::new(1, 1));
        for d in [
            Draw::Uniform(1),
            Draw::Uniform(3),
            Draw::Uniform(1000),
            Draw::Count(&table),
            Draw::Count(&never),
        ] {
            let mut next = 0u64;
            for k in 0..d.outcomes() as u32 {
                let Some((low, high)) = d.words_drawing(k) else {
                    assert!(!d.can_draw(k));
                    continue;
                };
                // The ranges tile the words in order, and each end draws k.
                assert_eq!(low, next, "{d:?} {k}");
                assert_eq!((d.result(low), d.result(high)), (k, k), "{d:?} {k}");
                if high < u64::MAX {
                    assert_eq!(
                        d.result(high + 1),
                        k + 1 + (k + 1..).take_while(|&j| !d.can_draw(j)).count() as u32
                    );
                    next = high + 1;
                } else {
                    next = 0;
                }
            }
            assert_eq!(next, 0, "{d:?}: the last range ends at the last word");
        }
    }

    #[test]
    fn count_draws_read_their_table() {
        // p = 1: every word draws all 4 successes, and no other count can be drawn.
        let table = SuccessCount::new(4, Fraction::new(1, 1));
        let d = Draw::Count(&table);
        assert_eq!(d.outcomes(), 5);
        assert_eq!(d.result(0), 4);
        assert_eq!(d.result(u64::MAX), 4);
        assert!((0..4).all(|k| !d.can_draw(k)) && d.can_draw(4));
    }
}
