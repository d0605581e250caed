//! Arms counted by the words their trials draw. An arm whose tree is known to at most two
//! draws ends at a leaf that is a step function of the trial's first two words: results grow
//! with the word ([`Draw::words_drawing`]). Cutting the first word at every such arm's
//! first-draw steps and the second word at their second-draw steps makes a grid of cells in
//! each of which every such arm ends at one leaf. A trial then costs one cell lookup and one
//! count however many arms there are, and once per chunk (or when the grid is redrawn) the
//! cells' counts become each arm's leaf counts and each compared pair's joint counts, a row
//! of cells at a time with prefix sums, so that cost grows with the cells and the steps, not
//! with the trials.
//!
//! A [`Shape`] is what an arm's tree knows of its first two draws; parts it does not know
//! yet (results not seen, or paths longer than two draws) make their cells unknown, and a
//! trial in an unknown cell is walked arm by arm as before.

use super::{Compared, LeafCounts};
use crate::engine::tree::{Next, Tree};
use crate::engine::Draw;
#[cfg(test)]
use std::sync::atomic::{AtomicU64, Ordering};

/// Trials counted by cell, over the whole test binary: the tests' sign that the grid was used.
#[cfg(test)]
pub(super) static COUNTED: AtomicU64 = AtomicU64::new(0);

/// The leaf of a part the tree does not know.
const UNKNOWN: u32 = u32::MAX;

/// Cells of a grid at most: beyond, the arms are walked trial by trial.
const MAX_CELLS: usize = 1 << 20;

/// Where an arm ends, by its trial's first two words, as far as its tree knows.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Shape {
    /// In word order: part i holds the first words from its `from` up to the next part's.
    parts: Vec<Part>,
    /// The chance that a trial is in a part not known.
    pub(super) unknown: f64,
}

#[derive(Debug, Clone, PartialEq)]
struct Part {
    from: u64,
    /// Where trials of this part end, by their second word: `(from, leaf)` steps in word
    /// order, the leaf [`UNKNOWN`] where the tree does not know. One step with `from` 0
    /// when the second word does not matter.
    steps: Vec<(u64, u32)>,
}

/// The inclusive ranges of words drawing each result of `draw` that some word draws, in
/// word order (they tile the words).
fn ranges(draw: Draw<'_>) -> impl Iterator<Item = (u64, u64)> + '_ {
    (0..draw.outcomes() as u32).filter_map(move |k| draw.words_drawing(k))
}

/// The chance that a word falls in `low..=high`.
fn chance((low, high): (u64, u64)) -> f64 {
    ((high - low) as f64 + 1.0) / 2f64.powi(64)
}

impl Shape {
    /// The shape of `tree`'s first two draws, or `None` while its root is not known.
    pub(super) fn of(tree: &Tree<'_>) -> Option<Shape> {
        let root = match tree.after(&[]) {
            Next::Unknown => return None,
            Next::Leaf(leaf) => {
                return Some(Shape {
                    parts: vec![Part {
                        from: 0,
                        steps: vec![(0, leaf)],
                    }],
                    unknown: 0.0,
                })
            }
            Next::Branch(branch) => tree.draw_at(branch),
        };
        let mut parts: Vec<Part> = Vec::new();
        let mut unknown = 0.0;
        for first in ranges(root) {
            let mut steps: Vec<(u64, u32)> = Vec::new();
            let mut step = |from: u64, leaf: u32| {
                if steps.last().is_none_or(|&(_, l)| l != leaf) {
                    steps.push((from, leaf));
                }
            };
            match tree.after(&[first.0]) {
                Next::Leaf(leaf) => step(0, leaf),
                Next::Unknown => {
                    unknown += chance(first);
                    step(0, UNKNOWN);
                }
                Next::Branch(branch) => {
                    for then in ranges(tree.draw_at(branch)) {
                        let leaf = match tree.after(&[first.0, then.0]) {
                            Next::Leaf(leaf) => leaf,
                            _ => {
                                unknown += chance(first) * chance(then);
                                UNKNOWN
                            }
                        };
                        step(then.0, leaf);
                    }
                }
            }
            if parts.last().is_none_or(|p| p.steps != steps) {
                parts.push(Part {
                    from: first.0,
                    steps,
                });
            }
        }
        Some(Shape { parts, unknown })
    }
}

/// An arm's parts on a grid: per part its first row and its steps as `(first column, leaf)`.
struct OnGrid {
    parts: Vec<(u32, Vec<(u32, u32)>)>,
}

impl OnGrid {
    /// The steps of the part holding row `row`, from part `at` on.
    fn advance(&self, at: &mut usize, row: u32) -> &[(u32, u32)] {
        while self.parts.get(*at + 1).is_some_and(|p| p.0 <= row) {
            *at += 1;
        }
        &self.parts[*at].1
    }
}

/// The grid of cells of some arms, with the trials counted in each cell.
pub(super) struct CellGrid {
    /// Cuts of the first word: row r holds the words from `rows[r - 1]` (0 for the first
    /// row) up to before `rows[r]`.
    rows: Vec<u64>,
    /// Cuts of the second word, likewise for columns.
    cols: Vec<u64>,
    /// Per cell, whether every arm on the grid knows its leaf there.
    known: Vec<bool>,
    /// Per arm, its parts on the grid (`None` for arms not on it).
    arms: Vec<Option<OnGrid>>,
    counts: Vec<u32>,
}

impl CellGrid {
    /// The grid of the arms with a shape in `shapes` (indexed by arm), or `None` when it
    /// would have too many cells.
    pub(super) fn new(shapes: &[Option<Shape>]) -> Option<CellGrid> {
        let cuts = |of: &dyn Fn(&Shape) -> Vec<u64>| {
            let mut cuts: Vec<u64> = shapes.iter().flatten().flat_map(of).collect();
            cuts.retain(|&c| c > 0);
            cuts.sort_unstable();
            cuts.dedup();
            cuts
        };
        let rows = cuts(&|s| s.parts.iter().map(|p| p.from).collect());
        let cols = cuts(&|s| {
            let steps = s.parts.iter().flat_map(|p| &p.steps);
            steps.map(|&(from, _)| from).collect()
        });
        let width = cols.len() + 1;
        let cells = (rows.len() + 1).checked_mul(width)?;
        if cells > MAX_CELLS {
            return None;
        }
        let at = |cuts: &[u64], w: u64| cuts.partition_point(|&c| c <= w) as u32;
        let mut known = vec![true; cells];
        let arms: Vec<Option<OnGrid>> = shapes
            .iter()
            .map(|shape| {
                let parts = shape.as_ref()?.parts.iter().map(|p| {
                    let steps = p.steps.iter().map(|&(from, leaf)| (at(&cols, from), leaf));
                    (at(&rows, p.from), steps.collect())
                });
                Some(OnGrid {
                    parts: parts.collect(),
                })
            })
            .collect();
        for arm in arms.iter().flatten() {
            for (i, (row, steps)) in arm.parts.iter().enumerate() {
                let end_row = arm
                    .parts
                    .get(i + 1)
                    .map_or(rows.len() + 1, |p| p.0 as usize);
                for (j, &(col, leaf)) in steps.iter().enumerate() {
                    if leaf == UNKNOWN {
                        let end_col = steps.get(j + 1).map_or(width, |s| s.0 as usize);
                        for r in *row as usize..end_row {
                            known[r * width + col as usize..r * width + end_col].fill(false);
                        }
                    }
                }
            }
        }
        Some(CellGrid {
            rows,
            cols,
            known,
            arms,
            counts: vec![0; cells],
        })
    }

    /// Whether arm `arm` is on the grid.
    #[inline]
    pub(super) fn has(&self, arm: usize) -> bool {
        self.arms.get(arm).is_some_and(Option::is_some)
    }

    /// The cell of a trial whose first words are `words`, when every arm on the grid knows
    /// its leaf there.
    #[inline]
    pub(super) fn cell(&self, words: &[u64]) -> Option<u32> {
        let row = self.rows.partition_point(|&c| c <= words[0]);
        let col = match self.cols.is_empty() {
            true => 0,
            false => self.cols.partition_point(|&c| c <= words[1]),
        };
        let cell = row * (self.cols.len() + 1) + col;
        self.known[cell].then_some(cell as u32)
    }

    #[inline]
    pub(super) fn count(&mut self, cell: u32) {
        self.counts[cell as usize] += 1;
    }

    /// The leaf arm `arm` (on the grid) ends at in known cell `cell`.
    pub(super) fn leaf(&self, arm: usize, cell: u32) -> u32 {
        let width = self.cols.len() as u32 + 1;
        let (row, col) = (cell / width, cell % width);
        let Some(on) = &self.arms[arm] else {
            return UNKNOWN;
        };
        let part = on.parts.partition_point(|p| p.0 <= row) - 1;
        let steps = &on.parts[part].1;
        steps[steps.partition_point(|s| s.0 <= col) - 1].1
    }

    /// Adds the trials counted to the leaf counts of the arms in `alone` that are on the
    /// grid, and to the joint counts of the pairs in `compared` on it; forgets them.
    pub(super) fn drain(
        &mut self,
        alone: &[usize],
        leaves: &mut [LeafCounts],
        compared: &mut [Compared],
    ) {
        let width = self.cols.len() + 1;
        let mut prefix = vec![0u64; width + 1];
        let mut at = vec![0usize; self.arms.len()];
        let on = |arm: usize| self.arms[arm].as_ref();
        for (r, row) in self.counts.chunks_exact_mut(width).enumerate() {
            if row.iter().all(|&n| n == 0) {
                continue;
            }
            for (c, n) in row.iter_mut().enumerate() {
                prefix[c + 1] = prefix[c] + u64::from(std::mem::take(n));
            }
            #[cfg(test)]
            COUNTED.fetch_add(prefix[width], Ordering::Relaxed);
            let count = |from: u32, to: u32| prefix[to as usize] - prefix[from as usize];
            let r = r as u32;
            for &arm in alone {
                let Some(grid) = on(arm) else { continue };
                let steps = grid.advance(&mut at[arm], r);
                for (j, &(col, leaf)) in steps.iter().enumerate() {
                    let end = steps.get(j + 1).map_or(width as u32, |s| s.0);
                    let n = count(col, end);
                    if n > 0 {
                        debug_assert_ne!(leaf, UNKNOWN, "a known cell's leaf is known");
                        leaves[arm].add(leaf, 0, n);
                    }
                }
            }
            for c in compared.iter_mut() {
                let (a, b) = c.arms;
                let (Some(grid_a), Some(grid_b)) = (on(a), on(b)) else {
                    continue;
                };
                let steps_a = grid_a.advance(&mut at[a], r);
                let steps_b = grid_b.advance(&mut at[b], r);
                // The two step functions merged: each stretch between a step of either.
                let (mut i, mut j, mut col) = (0, 0, 0u32);
                while (col as usize) < width {
                    let end_a = steps_a.get(i + 1).map_or(width as u32, |s| s.0);
                    let end_b = steps_b.get(j + 1).map_or(width as u32, |s| s.0);
                    let end = end_a.min(end_b);
                    let n = count(col, end);
                    if n > 0 {
                        let (la, lb) = (steps_a[i].1, steps_b[j].1);
                        debug_assert!(la != UNKNOWN && lb != UNKNOWN, "known cells");
                        c.counts.add(la, lb, n);
                    }
                    i += usize::from(end == end_a);
                    j += usize::from(end == end_b);
                    col = end;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::arms::tests::steps;
    use crate::engine::stream::trial_stream;
    use crate::engine::tree::{Player, Walked};
    use crate::engine::Pairing;
    use rand::Rng;

    #[test]
    fn a_known_cell_gives_the_leaf_the_tree_walks_to() {
        // Trees of random arms, grown by some trials; on the grid of their shapes, every word
        // pair in a known cell names the leaf a walk of each arm's tree ends at, and a pair
        // in an unknown cell has some arm whose tree does not know it within two words.
        let mut known_cells = 0;
        for case in 0..40 {
            let trial = steps(case, true, 1 + case as usize % 7, Pairing::AgainstFirst);
            let mut player = Player::new(&trial);
            let mut trees: Vec<Tree<'_>> = Tree::every_arm(&trial, true);
            let mut rng = trial_stream(case);
            let grown = [0, 1, 30, 3000][case as usize % 4];
            for _ in 0..grown {
                let word = rng.next_u64();
                for tree in &mut trees {
                    tree.walk(&mut player, &mut trial_stream(word));
                }
            }
            let shapes: Vec<Option<Shape>> = trees.iter().map(Shape::of).collect();
            let Some(grid) = CellGrid::new(&shapes) else {
                assert!(shapes.iter().all(Option::is_none), "case {case}");
                continue;
            };
            for _ in 0..2000 {
                let mut stream = trial_stream(rng.next_u64());
                let words: Vec<u64> = (0..4).map(|_| stream.next_u64()).collect();
                match grid.cell(&words) {
                    Some(cell) => {
                        known_cells += 1;
                        for (arm, tree) in trees.iter().enumerate() {
                            if shapes[arm].is_some() {
                                assert_eq!(
                                    Some(grid.leaf(arm, cell)),
                                    tree.leaf_for(&words[..2]),
                                    "case {case} arm {arm}"
                                );
                            }
                        }
                    }
                    None => assert!(
                        trees
                            .iter()
                            .zip(&shapes)
                            .any(|(tree, shape)| shape.is_some()
                                && tree.leaf_for(&words[..2]).is_none()),
                        "case {case}: an unknown cell"
                    ),
                }
            }
            // The walks agree too: what a tree walks to from those words is the grid's leaf.
            let mut stream = trial_stream(case + 1);
            let words: Vec<u64> = (0..4).map(|_| stream.next_u64()).collect();
            if let Some(cell) = grid.cell(&words) {
                for (arm, tree) in trees.iter_mut().enumerate() {
                    if shapes[arm].is_some() {
                        let walked = tree.walk(&mut player, &mut trial_stream(case + 1));
                        assert_eq!(walked, Walked::Leaf(grid.leaf(arm, cell)));
                    }
                }
            }
        }
        assert!(
            known_cells > 10_000,
            "known cells were checked: {known_cells}"
        );
    }
}
