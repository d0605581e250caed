//! Steps through graphs too large for their guides to stay in cache.
//!
//! A guide answers a step with one load, but it is 2 KB a branch: the duels' graphs of three
//! arms, thousands of branches each, held about 18 MB of guides a worker (when 4,096 branches
//! of each had one), and their walks waited on the last-level cache or on memory at every
//! step. Here a branch is 8 bytes (where its
//! children start and which of the tree's distinct draws it makes) and each distinct draw has
//! a table of its result by a word's top byte. A step is three loads (the branch, the table,
//! the child), but the branches and children of such a graph fit in the second-level cache
//! and the tables, a few per tree, in the first.

use super::{Cursor, Draw, Entry, LEAF};
use std::collections::HashMap;

/// A table entry for a top byte whose words draw more than one result.
const MIXED: u8 = u8::MAX;

/// A branch as a step reads it: the child of result k is `children[first + k]`, and `draw`
/// names the branch's draw among the tree's distinct ones.
#[derive(Debug, Clone, Copy)]
struct Hop {
    first: u32,
    draw: u32,
}

/// Every branch of a tree as a [`Hop`], in branch order, and the tables of its draws.
#[derive(Clone, Default)]
pub(super) struct Hops<'t> {
    hops: Vec<Hop>,
    /// The distinct draws, by their table or their `n`, and 256 results each in `results`.
    draws: Vec<Draw<'t>>,
    codes: HashMap<(bool, usize), u32>,
    results: Vec<u8>,
}

impl<'t> Hops<'t> {
    /// Adds the next branch: it makes `draw`, and its children start at `first`.
    pub(super) fn push(&mut self, draw: Draw<'t>, first: u32) {
        let key = draw.identity();
        let Hops {
            draws,
            codes,
            results,
            ..
        } = self;
        let code = *codes.entry(key).or_insert_with(|| {
            draws.push(draw);
            results.extend((0..=u8::MAX).map(|byte| {
                // Results grow with the word: a byte's words all draw one result when its
                // first and last do.
                let low = u64::from(byte) << 56;
                let k = draw.result(low);
                match k == draw.result(low | ((1 << 56) - 1)) {
                    true => u8::try_from(k).unwrap_or(MIXED),
                    false => MIXED,
                }
            }));
            draws.len() as u32 - 1
        });
        self.hops.push(Hop { first, draw: code });
    }

    /// The hops read-only, with the tree's `children`, for a walk of many trials.
    #[inline]
    pub(super) fn steps<'a>(&'a self, children: &'a [Entry]) -> Steps<'a, 't> {
        Steps {
            hops: &self.hops,
            results: &self.results,
            draws: &self.draws,
            children,
        }
    }

    /// The child of branch `branch` that word `w` draws, among the tree's `children`.
    #[cfg(test)]
    fn child(&self, branch: Entry, w: u64, children: &[Entry]) -> Entry {
        self.steps(children).child(branch, w)
    }
}

/// What a step reads, as slices a walk keeps in registers: reached through the tree, they
/// were reloaded from memory at every step, since the walk's counting of passes writes
/// memory the compiler could not tell apart from the tree's.
#[derive(Clone, Copy)]
pub(crate) struct Steps<'a, 't> {
    hops: &'a [Hop],
    results: &'a [u8],
    draws: &'a [Draw<'t>],
    children: &'a [Entry],
}

impl Steps<'_, '_> {
    /// The child of branch `branch` that word `w` draws.
    #[inline(always)]
    pub(super) fn child(self, branch: Entry, w: u64) -> Entry {
        let hop = self.hops[branch as usize];
        let k = match self.results[(hop.draw as usize) << 8 | (w >> 56) as usize] {
            MIXED => self.mixed(hop.draw, w),
            k => u32::from(k),
        };
        self.children[hop.first as usize + k as usize]
    }

    /// The result of a word whose top byte does not decide it (a few bytes in 256).
    #[cold]
    #[inline(never)]
    fn mixed(self, draw: u32, w: u64) -> u32 {
        self.draws[draw as usize].result(w)
    }

    /// Where drawing word `w` at `at` leads; a place that is not a branch stays where it is
    /// ([`Tree::advance`](super::Tree::advance)). The tree's first branch must exist.
    #[inline(always)]
    pub(crate) fn advance(self, at: Cursor, w: u64) -> Cursor {
        let e = at.0;
        let open = e < LEAF;
        // A place that is not a branch steps from the first branch, and keeps where it is:
        // whether it is open is never branched on.
        let next = self.child(Entry::from(open) * e, w);
        Cursor(std::hint::select_unpredictable(open, next, e))
    }

    /// Asks for branch `at`'s hop, so that the steps of many walks overlap.
    #[inline(always)]
    pub(crate) fn prefetch(self, at: Cursor) {
        #[cfg(target_arch = "x86_64")]
        if let Some(hop) = self.hops.get(at.0 as usize) {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: a prefetch reads nothing and cannot fault; the address is a hop's all
            // the same.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(hop).cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = at;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::{Fraction, SuccessCount};
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Every step agrees with the draw's own result, on random words and on words at and
    /// either side of every byte boundary and every result's ends.
    #[test]
    fn hops_step_where_the_draws_results_lead() {
        let tables: Vec<SuccessCount> = [(1, 1, 2), (5, 1, 2), (3, 1, 6), (12, 2, 3)]
            .map(|(n, num, den)| SuccessCount::new(n, Fraction::new(num, den)))
            .into();
        let mut draws: Vec<Draw<'_>> = tables.iter().map(Draw::Count).collect();
        draws.extend([1, 2, 3, 6, 7, 255, 256, 1000].map(Draw::Uniform));
        let mut hops = Hops::default();
        let mut children = Vec::new();
        // Each draw twice, so that branches share a table.
        for draw in draws.iter().chain(&draws) {
            let first = children.len() as Entry;
            hops.push(*draw, first);
            children.extend((0..draw.outcomes() as Entry).map(|k| 1000 * first + k));
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for (b, draw) in draws.iter().chain(&draws).enumerate() {
            let first = hops.hops[b].first as usize;
            let mut words: Vec<u64> = (0..2000).map(|_| rng.next_u64()).collect();
            for byte in 0..=255u64 {
                let low = byte << 56;
                words.extend([low, low.wrapping_sub(1), low + 1]);
            }
            for k in 0..draw.outcomes() as u32 {
                if let Some((low, high)) = draw.words_drawing(k) {
                    words.extend([low, high, low.wrapping_sub(1), high.wrapping_add(1)]);
                }
            }
            for w in words {
                let expected = children[first + draw.result(w) as usize];
                assert_eq!(
                    hops.child(b as Entry, w, &children),
                    expected,
                    "{draw:?}, {w:#x}"
                );
            }
        }
    }
}
