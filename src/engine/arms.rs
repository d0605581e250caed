//! Trials of several arms, counted by where each arm ended: per arm its leaf, and per pair of
//! arms compared the pair of leaves. Most trials of most arms end at leaves, so a trial costs
//! a walk and a count per arm and a count per pair of arms, instead of a histogram update per
//! metric and per pair of metrics; the counts become histograms once per chunk.

use super::tree::{LeafCounts, Tree};
use super::{Gathered, Trial};
use std::collections::HashMap;

/// An arm played in full: its metrics are in the player's row, not at a leaf.
pub(crate) const PLAYED: u32 = u32::MAX;

/// Cells of a pair of arms' counts kept as a table; pairs of trees with more leaves than this
/// allows go to a map.
const TABLE_CELLS: usize = 1 << 16;

/// Trials counted by the pair of leaves two arms ended at.
#[derive(Default)]
struct PairCounts {
    /// `cells[a * width + b]`: trials ending at leaf a of the first arm and b of the second.
    cells: Vec<u64>,
    width: usize,
    /// Pairs outside the table.
    beyond: HashMap<(u32, u32), u64>,
}

impl PairCounts {
    #[inline]
    fn add(&mut self, a: u32, b: u32) {
        let (i, j) = (a as usize, b as usize);
        match self.cells.get_mut(i * self.width + j) {
            Some(cell) if j < self.width => *cell += 1,
            _ => self.add_beyond(a, b),
        }
    }

    /// Widens the table to hold (a, b), or counts the pair in the map when the table would
    /// grow past [`TABLE_CELLS`].
    #[cold]
    fn add_beyond(&mut self, a: u32, b: u32) {
        let rows = (self.cells.len() / self.width.max(1)).max(a as usize + 1);
        let width = self.width.max(b as usize + 1);
        let (rows, width) = (rows.next_power_of_two(), width.next_power_of_two());
        if rows * width > TABLE_CELLS {
            *self.beyond.entry((a, b)).or_insert(0) += 1;
            return;
        }
        let mut cells = vec![0; rows * width];
        for (i, row) in self.cells.chunks_exact(self.width.max(1)).enumerate() {
            cells[i * width..i * width + row.len()].copy_from_slice(row);
        }
        self.cells = cells;
        self.width = width;
        self.cells[a as usize * width + b as usize] += 1;
    }

    /// Each pair of leaves with its count, leaving every count at zero.
    fn drain(&mut self) -> impl Iterator<Item = ((u32, u32), u64)> + '_ {
        let width = self.width.max(1);
        let table = self.cells.iter_mut().enumerate().filter_map(move |(i, c)| {
            let n = std::mem::take(c);
            (n > 0).then_some((((i / width) as u32, (i % width) as u32), n))
        });
        table.chain(self.beyond.drain())
    }
}

pub(crate) struct Arms {
    /// Where each arm of the trial being played ended: a leaf or [`PLAYED`].
    pub(crate) ended: Vec<u32>,
    /// The arms in no pair, whose trials are counted by leaf alone (an arm in a pair has
    /// its leaves counted there).
    alone: Vec<usize>,
    leaves: Vec<LeafCounts>,
    /// The pairs of arms whose metrics are compared, with their trials counted by pair of
    /// leaves.
    arm_pairs: Vec<(usize, usize)>,
    joint: Vec<PairCounts>,
    /// Per pair of metrics ([`Trial::pairs`]): its pair of arms, and where each of the two
    /// metrics sits in its arm's leaf rows.
    pairs: Vec<(usize, usize, usize)>,
}

impl Arms {
    pub(crate) fn new<T: Trial>(trial: &T) -> Arms {
        let arms = trial.arms();
        let metrics = trial.metrics();
        // A metric's place in its arm's row: rows list an arm's metrics in metric order.
        let place = |i: usize| {
            metrics[..i]
                .iter()
                .filter(|m| m.arm == metrics[i].arm)
                .count()
        };
        let mut arm_pairs: Vec<(usize, usize)> = Vec::new();
        let pairs = trial
            .pairs()
            .iter()
            .map(|&(a, b)| {
                let arms = (metrics[a].arm, metrics[b].arm);
                let q = arm_pairs
                    .iter()
                    .position(|&p| p == arms)
                    .unwrap_or_else(|| {
                        arm_pairs.push(arms);
                        arm_pairs.len() - 1
                    });
                (q, place(a), place(b))
            })
            .collect();
        let alone = (0..arms)
            .filter(|&arm| !arm_pairs.iter().any(|&(a, b)| a == arm || b == arm))
            .collect();
        Arms {
            ended: vec![PLAYED; arms],
            alone,
            leaves: (0..arms).map(|_| LeafCounts::default()).collect(),
            joint: arm_pairs.iter().map(|_| PairCounts::default()).collect(),
            arm_pairs,
            pairs,
        }
    }

    /// Counts the trial whose arms all ended at the leaves in `ended`.
    #[inline]
    pub(crate) fn count(&mut self, lane: usize) {
        for &arm in &self.alone {
            self.leaves[arm].add(self.ended[arm], lane, 1);
        }
        for (joint, &(a, b)) in self.joint.iter_mut().zip(&self.arm_pairs) {
            joint.add(self.ended[a], self.ended[b]);
        }
    }

    /// Adds the trials counted to `acc`'s histograms and forgets them.
    pub(crate) fn drain_into(&mut self, trees: &[Tree<'_>], acc: &mut Gathered) {
        // An arm's leaves are counted once: by the first pair it is in, else alone.
        for (q, joint) in self.joint.iter_mut().enumerate() {
            let (a, b) = self.arm_pairs[q];
            let compared: Vec<(usize, usize, usize)> = (self.pairs.iter().enumerate())
                .filter(|(_, p)| p.0 == q)
                .map(|(i, &(_, at_a, at_b))| (i, at_a, at_b))
                .collect();
            let first_pair_of =
                |arm: usize| self.arm_pairs.iter().position(|p| p.0 == arm || p.1 == arm);
            let (count_a, count_b) = (
                first_pair_of(a) == Some(q),
                first_pair_of(b) == Some(q) && a != b,
            );
            for ((la, lb), n) in joint.drain() {
                if count_a {
                    self.leaves[a].add(la, 0, n);
                }
                if count_b {
                    self.leaves[b].add(lb, 0, n);
                }
                let (row_a, row_b) = (trees[a].row(la), trees[b].row(lb));
                for &(i, at_a, at_b) in &compared {
                    acc.differences[i].add_count(row_a[at_a] - row_b[at_b], n);
                }
            }
        }
        for (tree, counts) in trees.iter().zip(&mut self.leaves) {
            for (leaf, n) in counts.drain() {
                for (&slot, &v) in tree.slots().iter().zip(tree.row(leaf)) {
                    acc.metrics[slot].add_count(v, n);
                }
            }
        }
    }
}
