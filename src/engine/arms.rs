//! Trials of several arms, counted by where each arm ended: per arm its leaf, and per pair of
//! arms compared the pair of leaves. Most trials of most arms end at leaves, so a trial costs
//! a walk and a count per arm and a count per pair of arms, instead of a histogram update per
//! metric and per pair of metrics; the counts become histograms once per chunk.
//!
//! Arms whose trees are known to two draws are not walked at all: trials are counted by the
//! cell of their first words on a grid where each such arm's leaf is fixed ([`cells`]).

mod cells;
mod walk;

use super::stream::{self, LaneState, Stream};
use super::tree::{LeafCounts, Next, Player, Tree, Walked};
use super::{Gathered, Trial};
use cells::{CellGrid, Shape};
use rand::Rng;
use std::collections::HashMap;
use walk::Longer;

/// An arm played in full: its metrics are in the player's row, not at a leaf.
pub(crate) const PLAYED: u32 = u32::MAX;

/// A round record a trial's row does not hold: the arm ended at a leaf, and its records are
/// counted from the leaf and where the walk passed ([`Tree::add_rounds`]). The gathering
/// skips it; no metric is this low (values never wrap).
pub(crate) const NOT_HERE: i64 = i64::MIN;

/// Words of a trial drawn once for every arm to walk by; an arm whose path is longer walks on
/// its own stream.
const SHARED_WORDS: usize = 4;

/// Metric values a block may hold for trials with an arm played in full: bounds the block of
/// a trial with very many metrics (a sweep of many points).
const BLOCK_VALUES: usize = 1 << 16;

/// Cells of a pair of arms' counts kept as a table; pairs of trees with more leaves than this
/// allows go to a map.
const TABLE_CELLS: usize = 1 << 16;

/// The chance of a trial landing where the grid's arms do not all know their leaf, at most,
/// when choosing arms for the grid: such trials are walked arm by arm.
const UNKNOWN_MASS: f64 = 1.0 / 64.0;

/// Trials a worker draws before it first looks for arms to count on the grid.
const FIRST_LOOK: u64 = 256;

/// A block's trial that is not in a known cell of the grid.
const WALKED: u32 = u32::MAX;

/// Trials of a block an arm walks side by side: their lookups overlap instead of each
/// waiting on the one before.
const SIDE: usize = 16;

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
    fn add(&mut self, a: u32, b: u32, n: u64) {
        let (i, j) = (a as usize, b as usize);
        match self.cells.get_mut(i * self.width + j) {
            Some(cell) if j < self.width => *cell += n,
            _ => self.add_beyond(a, b, n),
        }
    }

    /// Widens the table to hold (a, b), or counts the pair in the map when the table would
    /// grow past [`TABLE_CELLS`].
    #[cold]
    fn add_beyond(&mut self, a: u32, b: u32, n: u64) {
        let rows = (self.cells.len() / self.width.max(1)).max(a as usize + 1);
        let width = self.width.max(b as usize + 1);
        let (rows, width) = (rows.next_power_of_two(), width.next_power_of_two());
        if rows * width > TABLE_CELLS {
            *self.beyond.entry((a, b)).or_insert(0) += n;
            return;
        }
        let mut cells = vec![0; rows * width];
        for (i, row) in self.cells.chunks_exact(self.width.max(1)).enumerate() {
            cells[i * width..i * width + row.len()].copy_from_slice(row);
        }
        self.cells = cells;
        self.width = width;
        self.cells[a as usize * width + b as usize] += n;
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
    /// Trials in a block.
    block: usize,
    /// Each trial of the block's stream, the first words it draws, and its stream past them.
    streams: Vec<Stream>,
    words: Vec<[u64; SHARED_WORDS]>,
    after: Vec<Stream>,
    /// The trials an arm's tree does not know the path of, walked alone.
    alone_walks: Vec<u32>,
    /// The trials of the block an arm walks past the shared words, and those of its trials
    /// its tree does not know, each with where the walk met it: its group, the step past
    /// the shared words (0 within them) and its place in the group.
    longer: Longer,
    unknown: Vec<(u32, u32, u32, u32)>,
    /// `ended[arm * block + t]`: where arm `arm` of the block's trial t ended, a leaf or
    /// [`PLAYED`].
    ended: Vec<u32>,
    /// Per trial of the block, whether an arm was played in full, and then its metric row.
    played: Vec<bool>,
    rows: Vec<i64>,
    /// The arms in no pair, whose trials are counted by leaf alone (an arm in a pair has
    /// its leaves counted there).
    alone: Vec<usize>,
    leaves: Vec<LeafCounts>,
    /// Per arm, trials that ended at a leaf in a row with another arm played in full: only
    /// their round records are counted from the leaf.
    round_leaves: Vec<LeafCounts>,
    /// The pairs of arms whose metrics are compared.
    compared: Vec<Compared>,
    /// The grid some arms are counted on instead of walked, with the shapes it was drawn
    /// from (indexed by arm, `None` for arms not on it).
    grid: Option<CellGrid>,
    shapes: Vec<Option<Shape>>,
    /// Per trial of the block, its cell on the grid or [`WALKED`]; the trials walked.
    cell_of: Vec<u32>,
    walked: Vec<u32>,
    /// `0..block`: the trials of an arm walked in every trial.
    every: Vec<u32>,
    /// Trials drawn, and how many are drawn when the grid is next looked at, if a tree was
    /// walked since (only walks grow trees): each look costs a walk of every arm's first
    /// draws, so looks come at trials doubling.
    drawn: u64,
    look_at: u64,
    grown: bool,
}

/// A pair of arms whose metrics are compared, with its trials counted by pair of leaves.
struct Compared {
    arms: (usize, usize),
    counts: PairCounts,
    /// Its pairs of metrics: the index into [`Trial::pairs`], and where each of the two
    /// metrics sits in its arm's leaf rows.
    metrics: Vec<(usize, usize, usize)>,
    /// Whether its counts also give the first and the second arm's leaves: each arm's are
    /// taken once, from the first pair it is in.
    gives_leaves: (bool, bool),
}

impl Arms {
    pub(crate) fn new<T: Trial>(trial: &T) -> Arms {
        let arms = trial.arms();
        let metrics = trial.metrics();
        // A metric's place in its arm's row: rows list an arm's metrics in metric order.
        let mut in_arm = vec![0; arms];
        let place: Vec<usize> = metrics
            .iter()
            .map(|m| {
                in_arm[m.arm] += 1;
                in_arm[m.arm] - 1
            })
            .collect();
        // Worked out with maps and flags, not searches: a sweep of many points has many
        // pairs of arms.
        let mut compared: Vec<Compared> = Vec::new();
        let mut pair_of: HashMap<(usize, usize), usize> = HashMap::new();
        let mut seen = vec![false; arms];
        for (i, &(a, b)) in trial.pairs().iter().enumerate() {
            let arms = (metrics[a].arm, metrics[b].arm);
            let q = *pair_of.entry(arms).or_insert_with(|| {
                let gives_leaves = (!seen[arms.0], !seen[arms.1] && arms.0 != arms.1);
                (seen[arms.0], seen[arms.1]) = (true, true);
                compared.push(Compared {
                    arms,
                    counts: PairCounts::default(),
                    metrics: Vec::new(),
                    gives_leaves,
                });
                compared.len() - 1
            });
            compared[q].metrics.push((i, place[a], place[b]));
        }
        let alone = (0..arms).filter(|&arm| !seen[arm]).collect();
        let block = (BLOCK_VALUES / metrics.len().max(1)).clamp(16, 256);
        Arms {
            block,
            streams: Vec::with_capacity(block),
            after: Vec::with_capacity(block),
            words: vec![[0; SHARED_WORDS]; block],
            alone_walks: Vec::with_capacity(block),
            longer: Longer::default(),
            unknown: Vec::with_capacity(block),
            ended: vec![PLAYED; arms * block],
            played: vec![false; block],
            rows: Vec::new(),
            alone,
            leaves: (0..arms).map(|_| LeafCounts::default()).collect(),
            round_leaves: (0..arms).map(|_| LeafCounts::default()).collect(),
            compared,
            grid: None,
            shapes: vec![None; arms],
            cell_of: vec![WALKED; block],
            walked: Vec::with_capacity(block),
            every: (0..block as u32).collect(),
            drawn: 0,
            look_at: FIRST_LOOK,
            grown: true,
        }
    }

    /// Redraws the grid when the trees know more than when it was drawn: the arms on it are
    /// those known to two draws, fewest unknown first while the chance of an unknown cell
    /// stays small.
    fn regrid(&mut self, trees: &[Tree<'_>]) {
        // Arms with round records count them where their walks pass: never on the grid.
        let shapes: Vec<Option<Shape>> = (trees.iter())
            .map(|t| Shape::of(t).filter(|_| !t.has_rounds()))
            .collect();
        let mut known: Vec<usize> = (0..shapes.len())
            .filter(|&arm| shapes[arm].is_some())
            .collect();
        known.sort_by(|&a, &b| {
            let mass = |arm: usize| shapes[arm].as_ref().map_or(1.0, |s| s.unknown);
            mass(a).total_cmp(&mass(b))
        });
        let mut on = vec![false; shapes.len()];
        let mut mass = 0.0;
        for arm in known {
            let unknown = shapes[arm].as_ref().map_or(1.0, |s| s.unknown);
            if mass + unknown > UNKNOWN_MASS {
                break;
            }
            mass += unknown;
            on[arm] = true;
        }
        let shapes: Vec<Option<Shape>> = shapes
            .into_iter()
            .zip(&on)
            .map(|(shape, &on)| shape.filter(|_| on))
            .collect();
        if shapes == self.shapes {
            return;
        }
        if let Some(grid) = &mut self.grid {
            grid.drain(&self.alone, &mut self.leaves, &mut self.compared);
        }
        self.grid = match shapes.iter().any(Option::is_some) {
            true => CellGrid::new(&shapes),
            false => None,
        };
        self.shapes = match self.grid {
            Some(_) => shapes,
            None => vec![None; shapes.len()],
        };
    }

    /// Whether arm `arm` is counted on the grid, walked only in its unknown cells.
    #[inline]
    fn on_grid(&self, arm: usize) -> bool {
        self.grid.as_ref().is_some_and(|g| g.has(arm))
    }

    /// How many of the block's `len` trials arm `arm` walks; [`walked`](Self::walked) names
    /// them.
    #[inline]
    pub(crate) fn walks(&self, arm: usize, len: usize) -> usize {
        match self.on_grid(arm) {
            true => self.walked.len(),
            false => len,
        }
    }

    /// The `i`th trial of the block that arm `arm` walks.
    #[inline]
    pub(crate) fn walked(&self, arm: usize, i: usize) -> usize {
        match self.on_grid(arm) {
            true => self.walked[i] as usize,
            false => i,
        }
    }

    /// Draws the next block of a lane's trials, at most `left`: each trial's word from the
    /// lane seeds the stream all its arms replay. Returns the trials in the block. The grid
    /// is redrawn first when `trees` may know more (often at first, then less and less).
    pub(crate) fn draw_block(
        &mut self,
        lane: &mut LaneState,
        left: u64,
        trees: &[Tree<'_>],
    ) -> usize {
        if self.grown && self.drawn >= self.look_at {
            self.grown = false;
            self.look_at = self.drawn * 2;
            self.regrid(trees);
        }
        let len = left.min(self.block as u64) as usize;
        self.drawn += len as u64;
        self.streams.clear();
        self.after.clear();
        for words in &mut self.words[..len] {
            let stream = stream::trial_stream(lane.next_u64());
            let mut next = stream.clone();
            words.fill_with(|| next.next_u64());
            self.streams.push(stream);
            self.after.push(next);
        }
        self.played[..len].fill(false);
        self.walked.clear();
        match &self.grid {
            Some(grid) => {
                for (t, words) in self.words[..len].iter().enumerate() {
                    let cell = grid.cell(words).unwrap_or(WALKED);
                    self.cell_of[t] = cell;
                    if cell == WALKED {
                        self.walked.push(t as u32);
                    }
                }
            }
            None => self.cell_of[..len].fill(WALKED),
        }
        len
    }

    /// Walks arm `arm`'s trials of the block (the first `len`, but for those counted on the
    /// grid) through its tree: side by side as far as the tree knows their paths, then each
    /// trial it does not know on its own, played in full and remembered.
    pub(crate) fn walk_arm<'t, T: Trial>(
        &mut self,
        arm: usize,
        tree: &mut Tree<'t>,
        player: &mut Player<'t, T>,
        len: usize,
    ) {
        let n = self.walks(arm, len);
        let ended = arm * self.block;
        self.alone_walks.clear();
        let root = tree.start();
        match root.next() {
            Next::Leaf(leaf) => {
                for i in 0..n {
                    let t = self.walked(arm, i);
                    self.ended[ended + t] = leaf;
                }
            }
            Next::Unknown => {
                for i in 0..n {
                    let t = self.walked(arm, i) as u32;
                    self.alone_walks.push(t);
                }
            }
            Next::Branch(_) => self.walk_side_by_side(arm, tree, n),
        }
        if self.alone_walks.is_empty() {
            return;
        }
        // Only walks grow trees: the grid may be redrawn.
        self.grown = true;
        let m = player.out.len();
        for k in 0..self.alone_walks.len() {
            let t = self.alone_walks[k] as usize;
            self.ended[ended + t] = match tree.walk(player, &mut self.streams[t].clone()) {
                Walked::Leaf(leaf) => leaf,
                Walked::Played => {
                    let row = self.played_row(t, m);
                    for &slot in tree.slots().iter().chain(tree.round_slots()) {
                        row[slot] = player.out[slot];
                    }
                    PLAYED
                }
            };
        }
    }

    /// Takes back the passes trial `t` counted on its walk (if its arm records rounds): it is to be
    /// walked again from its start and played in full, and counted then.
    fn unpass(&self, tree: &mut Tree<'_>, t: u32) {
        let mut words = self.streams[t as usize].clone();
        tree.unpass(std::iter::from_fn(|| Some(words.next_u64())));
    }

    /// The metric row of trial `t`, which has an arm played in full (`m` metrics).
    fn played_row(&mut self, t: usize, m: usize) -> &mut [i64] {
        if self.rows.len() < self.block * m {
            self.rows.resize(self.block * m, 0);
        }
        self.played[t] = true;
        &mut self.rows[t * m..(t + 1) * m]
    }

    /// Trial `t`'s whole metric row when an arm of it was played in full (the arms that ended
    /// at leaves filled in from `trees`), else `None`: it is counted by its leaves.
    pub(crate) fn row_of(&mut self, t: usize, m: usize, trees: &[Tree<'_>]) -> Option<&[i64]> {
        if !self.played[t] {
            return None;
        }
        let row = &mut self.rows[t * m..(t + 1) * m];
        for (arm, tree) in trees.iter().enumerate() {
            let leaf = match (&self.grid, self.cell_of[t]) {
                (Some(grid), cell) if cell != WALKED && grid.has(arm) => grid.leaf(arm, cell),
                _ => self.ended[arm * self.block + t],
            };
            if leaf != PLAYED {
                for (&slot, &v) in tree.slots().iter().zip(tree.row(leaf)) {
                    row[slot] = v;
                }
                for &slot in tree.round_slots() {
                    row[slot] = NOT_HERE;
                }
                if tree.has_rounds() {
                    self.round_leaves[arm].add(leaf, 0, 1);
                }
            }
        }
        Some(row)
    }

    /// Counts the block's first `len` trials whose arms all ended at leaves: by cell, for
    /// the arms on the grid and trials in known cells, else by leaf.
    pub(crate) fn count_block(&mut self, len: usize, lane: usize) {
        let block = self.block;
        let Arms {
            played,
            ended,
            alone,
            leaves,
            compared,
            grid,
            cell_of,
            walked,
            every,
            ..
        } = self;
        // The trials an arm counts by leaf: those it walked.
        let trials = |arm: usize| -> &[u32] {
            match grid.as_ref().is_some_and(|g| g.has(arm)) {
                true => walked,
                false => &every[..len],
            }
        };
        for &arm in alone.iter() {
            let ended = &ended[arm * block..arm * block + len];
            for &t in trials(arm) {
                if !played[t as usize] {
                    leaves[arm].add(ended[t as usize], lane, 1);
                }
            }
        }
        for c in compared.iter_mut() {
            let (a, b) = c.arms;
            let (ended_a, ended_b) = (&ended[a * block..], &ended[b * block..]);
            let on = |arm: usize| grid.as_ref().filter(|g| g.has(arm));
            match (on(a), on(b)) {
                // Both arms on the grid: their known cells are counted there.
                (Some(_), Some(_)) | (None, None) => {
                    for &t in trials(a) {
                        let t = t as usize;
                        if !played[t] {
                            c.counts.add(ended_a[t], ended_b[t], 1);
                        }
                    }
                }
                // One arm on the grid: each trial counted here, that arm's leaf read from
                // its cell where it did not walk.
                (grid_a, grid_b) => {
                    let leaf = |g: Option<&CellGrid>, arm: usize, ended: &[u32], t: usize| match g {
                        Some(g) if cell_of[t] != WALKED => g.leaf(arm, cell_of[t]),
                        _ => ended[t],
                    };
                    for t in (0..len).filter(|&t| !played[t]) {
                        let (la, lb) = (leaf(grid_a, a, ended_a, t), leaf(grid_b, b, ended_b, t));
                        c.counts.add(la, lb, 1);
                    }
                }
            }
        }
        if let Some(grid) = grid {
            for (t, &cell) in cell_of[..len].iter().enumerate() {
                if cell != WALKED && !played[t] {
                    grid.count(cell);
                }
            }
        }
    }

    /// Adds the trials counted to `acc`'s histograms and forgets them.
    pub(crate) fn drain_into(&mut self, trees: &mut [Tree<'_>], acc: &mut Gathered) {
        if let Some(grid) = &mut self.grid {
            grid.drain(&self.alone, &mut self.leaves, &mut self.compared);
        }
        for c in &mut self.compared {
            let (a, b) = c.arms;
            for ((la, lb), n) in c.counts.drain() {
                if c.gives_leaves.0 {
                    self.leaves[a].add(la, 0, n);
                }
                if c.gives_leaves.1 {
                    self.leaves[b].add(lb, 0, n);
                }
                let (row_a, row_b) = (trees[a].row(la), trees[b].row(lb));
                for &(i, at_a, at_b) in &c.metrics {
                    acc.differences[i].add_count(row_a[at_a] - row_b[at_b], n);
                }
            }
        }
        for (tree, counts) in trees.iter().zip(&mut self.leaves) {
            for (leaf, n) in counts.drain() {
                for (&slot, &v) in tree.slots().iter().zip(tree.row(leaf)) {
                    acc.metrics[slot].add_count(v, n);
                }
                tree.add_rounds(leaf, n, acc);
            }
        }
        for (tree, counts) in trees.iter_mut().zip(&mut self.round_leaves) {
            for (leaf, n) in counts.drain() {
                tree.add_rounds(leaf, n, acc);
            }
            tree.drain_rounds(acc);
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::cells::COUNTED;
    use super::{Arms, SHARED_WORDS, SIDE};
    use crate::dice::{Fraction, SuccessCount};
    use crate::engine::stream::{trial_stream, LaneState};
    use crate::engine::tree::{Next, Player, Tree};
    use crate::engine::{run, Draws, Joined, MetricName, Monitor, Pairing, RunSpec, Shard, Trial};
    use std::sync::atomic::Ordering;

    /// An arm of random shape, mostly one or two draws: a first count from a table of
    /// several dice (some with rare results, unseen for a while), on most results a second
    /// draw chosen by the first result, now and then a third, now and then a raw word; or
    /// no draw at all.
    pub(crate) struct Step {
        names: Vec<MetricName>,
        memoise: bool,
        first: SuccessCount,
        /// Second draws, by the first result: counts, then picks of these sizes.
        second: Vec<SuccessCount>,
        picks: Vec<u32>,
        /// Out of 8: on how many first results a second draw follows; and the chances, per
        /// 64 second results, of a third draw and of a raw word.
        on: u32,
        third: u32,
        raw: u32,
        fixed: bool,
    }

    impl Step {
        fn new(case: u64, memoise: bool) -> Step {
            let mut rng = trial_stream(case);
            let mut below = move |n: u64| rand::Rng::next_u64(&mut rng) % n;
            let table = |below: &mut dyn FnMut(u64) -> u64| {
                let den: u32 = [2, 3, 6, 36, 97][below(5) as usize];
                let num = [1, 1, 2, 5, 35][below(5) as usize].min(den - 1);
                SuccessCount::new(1 + below(9) as u32, Fraction::new(num.into(), den.into()))
            };
            let first = table(&mut below);
            let second = (0..below(3)).map(|_| table(&mut below)).collect();
            let picks = (0..below(2) + 1)
                .map(|_| [1, 2, 5, 97][below(4) as usize])
                .collect();
            Step {
                names: ["value", "depth"]
                    .map(|name| MetricName {
                        arm: 0,
                        choice: String::new(),
                        name: name.into(),
                        round: None,
                    })
                    .to_vec(),
                memoise,
                first,
                second,
                picks,
                on: [0, 3, 8, 8][below(4) as usize],
                third: [0, 0, 0, 0, 1, 8][below(6) as usize],
                raw: [0, 0, 0, 0, 0, 1][below(6) as usize],
                fixed: below(9) == 0,
            }
        }
    }

    impl Trial for Step {
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
            self.memoise
        }
        fn play<'t, D: Draws<'t>>(&'t self, _: usize, _: &mut (), draws: &mut D, out: &mut [i64]) {
            if self.fixed {
                out.copy_from_slice(&[3, 0]);
                return;
            }
            let k = draws.count(&self.first);
            let (mut value, mut depth) = (i64::from(k), 0);
            if (k * 5 + 1) % 8 < self.on {
                let choice = k as usize % (self.second.len() + self.picks.len());
                let j = match self.second.get(choice) {
                    Some(table) => draws.count(table),
                    None => draws.uniform(self.picks[choice - self.second.len()]),
                };
                // Results that add alike end alike: leaves shared by several paths.
                value += i64::from(j);
                depth = 1;
                if (j * 13 + k) % 64 < self.third {
                    value += i64::from(draws.uniform(3));
                    depth = 2;
                } else if (j * 7 + 3) % 64 < self.raw {
                    value += (rand::Rng::next_u64(draws.words()) % 3) as i64;
                    depth = 3;
                }
            }
            out.copy_from_slice(&[value, depth]);
        }
    }

    /// `parts` random arms joined.
    pub(crate) fn steps(case: u64, memoise: bool, parts: usize, pairing: Pairing) -> Joined<Step> {
        let parts = (0..parts as u64)
            .map(|i| Step::new(case * 1000 + i, memoise))
            .collect();
        Joined::new(parts, pairing)
    }

    #[test]
    fn arms_counted_on_the_grid_give_what_arms_played_in_full_give() {
        // Every arm played in full (no trees, no grid) is the truth; trees, leaf counts and
        // the grid of cells must give the same histograms and paired differences.
        let before = COUNTED.load(Ordering::Relaxed);
        let mut trials_all = 0;
        for case in 0..12 {
            let pairing = [Pairing::AgainstFirst, Pairing::Every][case as usize % 2];
            let parts = [2, 3, 5, 9, 17, 40][case as usize % 6];
            let trials = 150_000 + 37 * case;
            let gather = |memoise: bool| {
                let spec = RunSpec {
                    trials,
                    seed: 7 + case,
                    threads: 2,
                    shard: Shard::WHOLE,
                    precision: None,
                };
                let trial = steps(case, memoise, parts, pairing);
                run(&trial, &spec, &Monitor::default()).unwrap().gathered
            };
            let counted = gather(true);
            let played = gather(false);
            assert_eq!(counted.metrics[0].total(), trials, "case {case}");
            assert_eq!(counted.differences[0].total(), trials, "case {case}");
            assert_eq!(counted, played, "case {case}, {parts} arms, {pairing:?}");
            trials_all += trials;
        }
        // Most trials were counted by cell: the grid was used, not only the walks.
        let counted = COUNTED.load(Ordering::Relaxed) - before;
        assert!(
            counted > trials_all / 4,
            "{counted} of {trials_all} trials counted on the grid"
        );
    }

    /// An arm of coin flips until a head, at most `most` of them: paths of every length
    /// from one draw to well past the shared words.
    struct Flips {
        names: Vec<MetricName>,
        most: u32,
    }

    impl Trial for Flips {
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
            while tails < self.most && draws.uniform(8) != 0 {
                tails += 1;
            }
            out[0] = i64::from(tails);
        }
    }

    /// The side-by-side walk of a block, trial by trial as first written: group by group
    /// of `SIDE` trials, each trial stepped on its words in turn; trials the tree does not
    /// know taken group by group, within a group first those met within the shared words,
    /// then step by step past them, each step's in trial order. Returns each trial's leaf
    /// (`None` for those the tree does not know) and the unknown trials in that order.
    fn walk_group_by_group(arms: &Arms, tree: &Tree<'_>, n: usize) -> (Vec<Option<u32>>, Vec<u32>) {
        // Each trial: where its walk ends, and after how many words past the shared ones.
        let ends: Vec<(Next, usize)> = (0..n)
            .map(|t| {
                let mut at = tree.start();
                let mut stream = arms.streams[t].clone();
                let mut past = 0;
                for drawn in 0.. {
                    if !at.open() {
                        break;
                    }
                    let w = rand::Rng::next_u64(&mut stream);
                    assert!(drawn >= SHARED_WORDS || w == arms.words[t][drawn]);
                    at = tree.advance(at, w);
                    past = (drawn + 1).saturating_sub(SHARED_WORDS);
                }
                (at.next(), past)
            })
            .collect();
        let mut unknown = Vec::new();
        for group in (0..n).step_by(SIDE).map(|from| from..(from + SIDE).min(n)) {
            let longest = group.clone().map(|t| ends[t].1).max().unwrap_or(0);
            for step in 0..=longest {
                for t in group.clone() {
                    if ends[t] == (Next::Unknown, step) {
                        unknown.push(t as u32);
                    }
                }
            }
        }
        let leaves = ends
            .iter()
            .map(|&(next, _)| match next {
                Next::Leaf(leaf) => Some(leaf),
                _ => None,
            })
            .collect();
        (leaves, unknown)
    }

    #[test]
    fn the_block_walks_together_as_group_by_group() {
        let mut compared = (0, 0);
        for case in 0..6u64 {
            let trial = Flips {
                names: vec![MetricName {
                    arm: 0,
                    choice: String::new(),
                    name: "tails".into(),
                    round: None,
                }],
                most: [3, 6, 9, 14, 20, 40][case as usize],
            };
            let mut tree = Tree::new(&trial, 0, true);
            let mut player = Player::new(&trial);
            let mut arms = Arms::new(&trial);
            let mut lane = LaneState([case + 1, 7, 11, 13]);
            for _ in 0..40 {
                let len = arms.draw_block(&mut lane, 1 << 20, std::slice::from_ref(&tree));
                if tree.start().open() && !arms.on_grid(0) {
                    let (leaves, unknown) = walk_group_by_group(&arms, &tree, len);
                    arms.alone_walks.clear();
                    arms.walk_side_by_side(0, &mut tree, len);
                    assert_eq!(arms.alone_walks, unknown, "case {case}");
                    for (t, leaf) in leaves.iter().enumerate() {
                        if let Some(leaf) = *leaf {
                            assert_eq!(arms.ended[t], leaf, "case {case}, trial {t}");
                        }
                    }
                    compared.0 += unknown.len();
                    compared.1 += leaves.iter().flatten().count();
                }
                arms.walk_arm(0, &mut tree, &mut player, len);
            }
        }
        // Both kinds met, unknown ones mostly while the trees learn.
        assert!(compared.0 > 100 && compared.1 > 10_000, "{compared:?}");
    }
}
