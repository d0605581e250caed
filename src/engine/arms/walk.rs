//! The walk of an arm's trials through its tree, side by side: first every trial on the
//! block's shared words, a group of [`SIDE`] at a time, then the trials whose paths are longer
//! all together, each on its own stream.
//!
//! The walk steps through the tree's [`Steps`] and counts passes through its [`Passes`], held
//! apart from the tree, so that the slices a step reads stay in registers. Where a trial's
//! walk ends does not depend on the order trials are stepped in, nor do the passes counted
//! (counts add up in any order); the order the tree is to learn unknown paths in is the key
//! each unknown trial is given, sorted once the walk is over.

use super::{Arms, SHARED_WORDS, SIDE};
use crate::engine::stream::Stream;
use crate::engine::tree::{Cursor, Next, Steps, Tree};
use rand::Rng;

/// The trials walked past the shared words, each in its slot: where it stands, its stream
/// and the word it draws next, and who it is (its place in the block, its group and place
/// in the group). `live` names the slots of trials still walking.
#[derive(Default)]
pub(super) struct Longer {
    at: Vec<Cursor>,
    streams: Vec<Stream>,
    words: Vec<u64>,
    who: Vec<(u32, u32, u32)>,
    live: Vec<u32>,
    gone: Vec<u32>,
}

impl Longer {
    fn clear(&mut self) {
        self.at.clear();
        self.streams.clear();
        self.who.clear();
    }

    fn push(&mut self, at: Cursor, stream: Stream, who: (u32, u32, u32)) {
        self.at.push(at);
        self.streams.push(stream);
        self.who.push(who);
    }
}

impl Arms {
    /// Walks arm `arm`'s `n` trials of the block from the root, a branch: every trial takes
    /// a step on each shared word while any of its group of `SIDE` still draws, then the
    /// block's trials whose paths are longer go on together, each on its stream past the
    /// shared words. Trials the tree does not know are left in `alone_walks` in the order
    /// of walking the groups one after another, so that the tree learns paths in that order.
    pub(super) fn walk_side_by_side(&mut self, arm: usize, tree: &mut Tree<'_>, n: usize) {
        let (root, nowhere) = (tree.start(), tree.nowhere());
        self.longer.clear();
        self.unknown.clear();
        // Compiled apart: an arm without records steps without counting.
        match tree.walk_parts() {
            (steps, Some(mut passes)) => {
                let mut pass = |at: Cursor| passes.pass(at);
                self.walk_groups(arm, n, (root, nowhere), steps, &mut pass);
                self.walk_longer(arm, steps, &mut pass);
            }
            (steps, None) => {
                self.walk_groups(arm, n, (root, nowhere), steps, &mut |_| {});
                self.walk_longer(arm, steps, &mut |_| {});
            }
        }
        // Passes are counts: those of trials to be played in full are taken back here, once
        // the walk is over, as well as where it met them.
        for k in 0..self.unknown.len() {
            let t = self.unknown[k].3;
            self.unpass(tree, t);
        }
        self.unknown.sort_unstable();
        self.alone_walks.extend(self.unknown.iter().map(|u| u.3));
    }

    /// Steps each group of `SIDE` trials over the shared words, from `places.0` (the root);
    /// trials that go on past them are left in `longer`.
    fn walk_groups(
        &mut self,
        arm: usize,
        n: usize,
        places: (Cursor, Cursor),
        steps: Steps<'_, '_>,
        pass: &mut impl FnMut(Cursor),
    ) {
        let (root, nowhere) = places;
        let ended = arm * self.block;
        let on_grid = self.on_grid(arm);
        for (group, from) in (0..n).step_by(SIDE).enumerate() {
            let side = (n - from).min(SIDE);
            // Trials past the last of the block's repeat it; only the first `side` count.
            let trial: [usize; SIDE] = std::array::from_fn(|i| {
                let i = from + i.min(side - 1);
                match on_grid {
                    true => self.walked[i] as usize,
                    false => i,
                }
            });
            // Those that ended stay where they are.
            let words: [[u64; SHARED_WORDS]; SIDE] = std::array::from_fn(|i| self.words[trial[i]]);
            // The repeats past `side` stand nowhere: they pass nothing.
            let mut at: [_; SIDE] = std::array::from_fn(|i| match i < side {
                true => root,
                false => nowhere,
            });
            for depth in 0..SHARED_WORDS {
                for (place, words) in at.iter_mut().zip(&words) {
                    *place = steps.advance(*place, words[depth]);
                }
                // Counted once every trial has stepped: the count of one pass waits on the
                // step before, and the steps, free of it, overlap.
                let mut open = false;
                for &place in &at {
                    pass(place);
                    open |= place.open();
                }
                if !open {
                    break;
                }
            }
            for (i, &here) in at.iter().enumerate().take(side) {
                let t = trial[i] as u32;
                match here.next() {
                    Next::Branch(_) => {
                        let stream = self.after[t as usize].clone();
                        self.longer.push(here, stream, (t, group as u32, i as u32));
                    }
                    Next::Leaf(leaf) => self.ended[ended + t as usize] = leaf,
                    Next::Unknown => self.unknown.push((group as u32, 0, i as u32, t)),
                }
            }
        }
    }

    /// Steps the trials in `longer` together until each has ended.
    fn walk_longer(&mut self, arm: usize, steps: Steps<'_, '_>, pass: &mut impl FnMut(Cursor)) {
        let ended = arm * self.block;
        let Longer {
            at,
            streams,
            words,
            who,
            live,
            gone,
        } = &mut self.longer;
        let len = at.len();
        live.clear();
        live.extend(0..len as u32);
        words.resize(len, 0);
        gone.resize(len, 0);
        let mut step = 0;
        while !live.is_empty() {
            step += 1;
            // Every trial's next lookup is asked for before any is waited on, and no branch
            // on where one ended comes between them (such a branch, mispredicted as often as
            // trials end, would hold the lookups after it until its own came back).
            for &j in live.iter() {
                let j = j as usize;
                words[j] = streams[j].next_u64();
                steps.prefetch(at[j]);
            }
            for &j in live.iter() {
                let j = j as usize;
                at[j] = steps.advance(at[j], words[j]);
            }
            // The slots still walking are kept in order, those that ended listed apart: no
            // branch on each trial. The passes are counted here, apart from the steps.
            let (mut kept, mut out) = (0, 0);
            for k in 0..live.len() {
                let j = live[k];
                pass(at[j as usize]);
                let open = at[j as usize].open();
                live[kept] = j;
                gone[out] = j;
                kept += usize::from(open);
                out += usize::from(!open);
            }
            live.truncate(kept);
            for &j in &gone[..out] {
                let (t, group, place) = who[j as usize];
                match at[j as usize].next() {
                    Next::Leaf(leaf) => self.ended[ended + t as usize] = leaf,
                    Next::Unknown => self.unknown.push((group, step, place, t)),
                    Next::Branch(_) => unreachable!("a trial that ended stands at no branch"),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Arms, SHARED_WORDS, SIDE};
    use crate::engine::stream::LaneState;
    use crate::engine::tree::{Next, Player, Tree};
    use crate::engine::{Draws, Gathered, MetricName, Trial};
    use rand::Rng;

    /// Coin flips, a round each, until a head or `most` rounds: the tails at the end and,
    /// as round records, the tails at each round's start (carried forward once it stops).
    /// Paths of every length from one draw to well past the shared words, each branch
    /// marked with its round's record.
    struct Rounds {
        names: Vec<MetricName>,
        most: usize,
    }

    impl Rounds {
        fn new(most: usize) -> Rounds {
            let name = |round| MetricName {
                arm: 0,
                choice: String::new(),
                name: "tails".into(),
                round,
            };
            let mut names = vec![name(None)];
            names.extend((0..=most as u32).map(|r| name(Some(r))));
            Rounds { names, most }
        }
    }

    impl Trial for Rounds {
        type Scratch = ();
        fn metrics(&self) -> &[MetricName] {
            &self.names
        }
        fn arms(&self) -> usize {
            1
        }
        fn pairs(&self) -> &[(usize, usize)] {
            &[]
        }
        fn scratch(&self) {}
        fn memoise(&self) -> bool {
            true
        }
        fn play<'t, D: Draws<'t>>(&'t self, _: usize, _: &mut (), draws: &mut D, out: &mut [i64]) {
            let mut tails = 0;
            for round in 0..self.most {
                out[1 + round] = tails;
                draws.at_round(round as u32);
                if draws.uniform(3) == 0 {
                    out[2 + round..].fill(tails);
                    out[0] = tails;
                    return;
                }
                tails += 1;
            }
            out[1 + self.most] = tails;
            out[0] = tails;
        }
    }

    #[test]
    fn the_walk_ends_and_counts_the_passes_of_each_trial_as_if_walked_alone() {
        let mut compared = (0, 0);
        for (case, most) in [2, 5, 9, 16].into_iter().enumerate() {
            let trial = Rounds::new(most);
            let m = trial.metrics().len();
            let mut tree = Tree::new(&trial, 0, true);
            let mut player = Player::new(&trial);
            let mut arms = Arms::new(&trial);
            let mut lane = LaneState([case as u64 + 3, 5, 7, 11]);
            let mut leaves = Vec::new();
            for _ in 0..40 {
                let len = arms.draw_block(&mut lane, 1 << 20, std::slice::from_ref(&tree));
                if tree.start().open() {
                    // The truth: each trial walked alone on its stream, a pass counted at
                    // each step, and its passes taken back where the tree does not know
                    // its path.
                    // Unknown trials are taken by their group of `SIDE`, then by the words
                    // they drew past the shared ones, then in order.
                    let mut alone = tree.clone();
                    let mut unknown = Vec::new();
                    for t in 0..len {
                        let mut at = alone.start();
                        let mut words = arms.streams[t].clone();
                        let mut drawn: usize = 0;
                        while at.open() {
                            at = alone.advance(at, words.next_u64());
                            alone.pass(at);
                            drawn += 1;
                        }
                        match at.next() {
                            Next::Leaf(leaf) => leaves.push((t, leaf)),
                            _ => {
                                let mut words = arms.streams[t].clone();
                                alone.unpass(std::iter::from_fn(|| Some(words.next_u64())));
                                let past = drawn.saturating_sub(SHARED_WORDS);
                                unknown.push((t / SIDE, past, t as u32));
                            }
                        }
                    }
                    unknown.sort_unstable();
                    let unknown: Vec<u32> = unknown.into_iter().map(|u| u.2).collect();
                    arms.alone_walks.clear();
                    arms.walk_side_by_side(0, &mut tree, len);
                    assert_eq!(arms.alone_walks, unknown, "case {case}");
                    for (t, leaf) in leaves.drain(..) {
                        assert_eq!(arms.ended[t], leaf, "case {case}, trial {t}");
                    }
                    let (mut got, mut truth) = (Gathered::empty(m, 0), Gathered::empty(m, 0));
                    tree.drain_rounds(&mut got);
                    alone.drain_rounds(&mut truth);
                    assert_eq!(got, truth, "case {case}");
                    compared.0 += truth.metrics.iter().map(|h| h.total()).sum::<u64>();
                    compared.1 += unknown.len();
                }
                // Walked again, and grown: its passes are drained with the next block's.
                arms.walk_arm(0, &mut tree, &mut player, len);
            }
        }
        // Passes were counted (those of rounds past the first: the root's marks are counted
        // at leaves), and trials met unknown, while the trees learn.
        assert!(compared.0 > 50_000 && compared.1 > 500, "{compared:?}");
    }
}
