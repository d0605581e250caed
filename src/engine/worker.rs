//! One worker's side of a run: playing a chunk's trials through the outcome trees, on the
//! chunk's lanes, into integer histograms.

use super::arms::{Arms, NOT_HERE};

use super::stream::{LaneState, Lanes, LANES};
use super::tree::{Mode, Player, Tree, Walked};
use super::{chunk_len, Draw, Gathered, LaneAt, RunSpec, Trial};
use crate::dice::{SuccessCount, AMBIGUOUS};
use crate::stats::Histogram;
use rand::Rng;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// Trials played before their paired differences are added to the histograms, column by
/// column: a difference that did not change across the batch costs one comparison per trial
/// instead of a histogram update.
const BATCH: usize = 256;

/// Values from 0 to `SMALL - 1` of a metric are counted in the metric's row of a table for the
/// chunk, folded into its histogram at the chunk's end: most metrics of a trial played in full
/// are small counts (cards played, models restored), and an increment in a table that stays in
/// the first-level cache is cheaper than a histogram update or a column store. Other values go
/// to the histogram at once. Histograms are canonical, so the order of counting changes nothing.
const SMALL: usize = 16;

/// Trials of a chunk walked side by side before the engine looks again at what the tree knows:
/// a part of a chunk. Each segment costs a setup (the tree's checks, the walk's buffers and
/// counts handed over), so segments are long; whole chunks were timed no faster, and would
/// leave a tree that has just seen its last new path walking the rest of the chunk.
const SEGMENT: u64 = 16384;

/// One worker's memory, reused across its chunks so the hot path allocates nothing.
pub(crate) struct Worker<'t, T: Trial> {
    /// Plays trials in full for the trees, and keeps where single-arm trials ended this
    /// chunk: leaves counted, rows of trials played in full while others walked side by side.
    player: Player<'t, T>,
    /// One per arm.
    trees: Vec<Tree<'t>>,
    /// Where rows of trials played in full are counted.
    gathering: Gathering,
    /// Trials of several arms.
    arms: Arms,
}

impl<'t, T: Trial> Worker<'t, T> {
    pub(crate) fn new(trial: &'t T) -> Self {
        Worker {
            player: Player::new(trial),
            trees: Tree::every_arm(trial, trial.memoise()),
            gathering: Gathering::default(),
            arms: Arms::new(trial),
        }
    }

    /// A new worker whose trees start as `other`'s are: it need not play in full again the
    /// paths `other` has learned. Trees decide only what a trial costs, never what it gives.
    pub(crate) fn learned_from(trial: &'t T, other: &Worker<'t, T>) -> Self {
        Worker {
            trees: other.trees.clone(),
            ..Worker::new(trial)
        }
    }

    /// Plays lanes `piece` of chunk `chunk` (all of them, or for a trial of several arms,
    /// whose lanes are played one after another, some of them: see [`pieces`](super::pieces))
    /// into `acc`, from where `from` says each lane stands (a chunk begun earlier) or from its
    /// start. Ends [`ChunkEnd::Stopped`] when `stop` was raised before the piece ended: `acc`
    /// then holds part of a chunk and this worker is spent, both to be dropped. Ends
    /// [`ChunkEnd::Paused`] when `pause` was raised, once it has played a trial: `acc` then
    /// holds the trials played, between two trials of each lane, and the chunk can go on from
    /// where it says. `acc.chunks` counts the chunk only when the piece is the whole chunk.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn play_chunk(
        &mut self,
        trial: &'t T,
        spec: &RunSpec,
        chunk: u64,
        piece: Range<usize>,
        from: Option<&[LaneAt; LANES]>,
        acc: &mut Gathered,
        signals: Signals<'_>,
    ) -> ChunkEnd {
        let mut lanes = Lanes::new(spec.seed, chunk);
        let mut done = [0; LANES];
        for (lane, at) in from.into_iter().flatten().enumerate() {
            lanes.restore(lane, LaneState(at.state));
            done[lane] = at.trials;
        }
        let before: u64 = done.iter().sum();
        let n = chunk_len(spec.trials, chunk);
        let halt = if trial.arms() == 1 {
            debug_assert_eq!(piece, 0..LANES, "one arm's lanes walk side by side");
            self.play_one_arm(trial, &mut lanes, n, &mut done, acc, signals)
        } else {
            self.play_arms(
                trial,
                &mut lanes,
                0..n,
                piece.clone(),
                &mut done,
                acc,
                signals,
            )
        };
        // A trial that saw Ctrl-C stopped midway ([`super::interrupted`]): its chunk goes.
        if halt == Some(Halt::Stopped) || super::interrupted() {
            return ChunkEnd::Stopped;
        }
        self.gathering.flush(trial.pairs(), acc);
        self.arms.drain_into(&mut self.trees, acc);
        if halt.is_none() {
            for lane in piece.clone() {
                done[lane] = trials_on_lane(0, n, lane);
            }
        }
        acc.trials += done.iter().sum::<u64>() - before;
        let at = Box::new(std::array::from_fn(|lane| LaneAt {
            trials: done[lane],
            state: lanes.state(lane).0,
        }));
        match halt {
            Some(_) => ChunkEnd::Paused(at),
            None if piece == (0..LANES) => {
                acc.chunks += 1;
                ChunkEnd::Whole
            }
            None => ChunkEnd::PieceWhole(at),
        }
    }

    /// Plays trials `trials` of chunk `chunk` (numbered within the chunk) into `acc` as a
    /// trial of several arms is played, even when it has one: each trial's arms replay the
    /// stream seeded from its own word of the chunk's lanes, so a trial's result does not
    /// depend on which other trials, or which other trials of the range, are played (see
    /// [`super::range`]). Returns false when stopped: `acc` then holds part of the range, to be
    /// dropped as a stopped chunk is.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn play_part(
        &mut self,
        trial: &'t T,
        seed: u64,
        chunk: u64,
        trials: Range<u64>,
        piece: Range<usize>,
        acc: &mut Gathered,
        stop: &AtomicBool,
    ) -> bool {
        let mut lanes = Lanes::new(seed, chunk);
        // The words of the trials before the range, one each, are skipped on every lane.
        for lane in 0..LANES {
            let mut rng = lanes.state(lane);
            for _ in 0..trials_on_lane(0, trials.start, lane) {
                rng.next_u64();
            }
            lanes.restore(lane, rng);
        }
        let n: u64 = (piece.clone())
            .map(|lane| trials_on_lane(trials.start, trials.end, lane))
            .sum();
        let mut done = [0; LANES];
        let never = AtomicBool::new(false);
        let signals = Signals {
            stop,
            pause: &never,
        };
        if self
            .play_arms(trial, &mut lanes, trials, piece, &mut done, acc, signals)
            .is_some()
            // As in `play_chunk`: a trial cut short by Ctrl-C drops the part.
            || super::interrupted()
        {
            return false;
        }
        self.gathering.flush(trial.pairs(), acc);
        self.arms.drain_into(&mut self.trees, acc);
        acc.trials += n;
        true
    }

    /// Several arms: trial t draws one word from lane t mod 16 and every arm replays the
    /// stream seeded from it ([`stream::trial_stream`]): common random numbers. A trial whose
    /// arms all end at leaves is counted by its leaves, per arm and per pair of arms compared,
    /// and expanded at the end of the chunk; one with an arm played in full goes to the
    /// gathering as a row. Lane after lane of `piece`, from the trials `done` on each.
    #[allow(clippy::too_many_arguments)]
    fn play_arms(
        &mut self,
        trial: &'t T,
        lanes: &mut Lanes,
        trials: Range<u64>,
        piece: Range<usize>,
        done: &mut [u64; LANES],
        acc: &mut Gathered,
        signals: Signals<'_>,
    ) -> Option<Halt> {
        let m = self.player.out.len();
        let mut moved = false;
        for (lane, done) in done
            .iter_mut()
            .enumerate()
            .take(piece.end)
            .skip(piece.start)
        {
            let mut rng = lanes.state(lane);
            let total = trials_on_lane(trials.start, trials.end, lane);
            while *done < total {
                if let Some(halt) = signals.halt(moved) {
                    lanes.restore(lane, rng);
                    return Some(halt);
                }
                // A block of the lane's trials, arm after arm: an arm's tree and counts stay
                // in cache while it walks the block, however many arms there are.
                let len = self.arms.draw_block(&mut rng, total - *done, &self.trees);
                for (arm, tree) in self.trees.iter_mut().enumerate() {
                    self.arms.walk_arm(arm, tree, &mut self.player, len);
                }
                for t in 0..len {
                    if let Some(row) = self.arms.row_of(t, m, &self.trees) {
                        self.gathering.add(row, trial.pairs(), acc);
                    }
                }
                self.arms.count_block(len, lane);
                *done += len as u64;
                moved = true;
            }
            lanes.restore(lane, rng);
        }
        None
    }

    /// One arm: trials that end at a leaf are counted per leaf and expanded at the end (or
    /// where the chunk pauses).
    fn play_one_arm(
        &mut self,
        trial: &'t T,
        lanes: &mut Lanes,
        n: u64,
        done: &mut [u64; LANES],
        acc: &mut Gathered,
        signals: Signals<'_>,
    ) -> Option<Halt> {
        let halt = self.play_one_arm_trials(trial, lanes, n, done, acc, signals);
        if halt == Some(Halt::Stopped) {
            return halt;
        }
        let tree = &mut self.trees[0];
        tree.drain_rounds(acc);
        let Player { out, ended, .. } = &mut self.player;
        for (leaf, count) in ended.leaves.drain() {
            for (&slot, &v) in tree.slots().iter().zip(tree.row(leaf)) {
                out[slot] = v;
                acc.metrics[slot].add_count(v, count);
            }
            tree.add_rounds(leaf, count, acc);
            for (h, &(a, b)) in acc.differences.iter_mut().zip(trial.pairs()) {
                h.add_count(out[a] - out[b], count);
            }
        }
        halt
    }

    /// The trials of [`play_one_arm`](Self::play_one_arm), from those `done` on each lane;
    /// `done` says where the lanes stand when it pauses.
    fn play_one_arm_trials(
        &mut self,
        trial: &'t T,
        lanes: &mut Lanes,
        n: u64,
        done: &mut [u64; LANES],
        acc: &mut Gathered,
        signals: Signals<'_>,
    ) -> Option<Halt> {
        let mut t = common_start(done);
        let mut moved = false;
        if let Some(halt) = self.catch_up(trial, lanes, t, done, acc, signals, &mut moved) {
            return Some(halt);
        }
        while t < n {
            if let Some(halt) = signals.halt(moved) {
                *done = std::array::from_fn(|j| trials_on_lane(0, t, j));
                return Some(halt);
            }
            // Trials side by side go a segment at a time, so that a tree that has just seen
            // its last new path switches to counting results within the chunk.
            let end = n.min(t + SEGMENT);
            let quota: [u64; LANES] = std::array::from_fn(|j| trials_on_lane(t, end, j));
            let tree = &mut self.trees[0];
            match tree.mode() {
                // Until the first trial is remembered, nothing is known about the others.
                Mode::Unknown => {
                    let lane = lane_of(t);
                    let mut rng = lanes.state(lane);
                    self.walk_one(trial, &mut rng, lane, acc);
                    lanes.restore(lane, rng);
                    (t, moved) = (t + 1, true);
                    continue;
                }
                Mode::Constant(leaf) => {
                    self.player.ended.leaves.add(leaf, 0, n - t);
                    break;
                }
                Mode::OneDraw { draw, leaves } => {
                    let quota = std::array::from_fn(|j| trials_on_lane(t, n, j));
                    let counts = count_results(draw, lanes, quota);
                    for (&leaf, &c) in leaves.iter().zip(&counts) {
                        if c > 0 {
                            self.player.ended.leaves.add(leaf, 0, c);
                        }
                    }
                    break;
                }
                Mode::Branching => {
                    self.player.ended.played.clear();
                    self.trees[0].play_lanes(&mut self.player, lanes, quota);
                    let played = std::mem::take(&mut self.player.ended.played);
                    for row in played.chunks_exact(self.player.out.len().max(1)) {
                        self.gathering.add(row, trial.pairs(), acc);
                    }
                    self.player.ended.played = played;
                    moved = true;
                }
                Mode::Played => {
                    let halt =
                        self.play_in_full(trial, lanes, t..end, done, acc, signals, &mut moved);
                    if halt.is_some() {
                        return halt;
                    }
                }
            }
            t = end;
        }
        None
    }

    /// Brings each lane to trial `t` of the chunk, where the furthest stands: a chunk paused
    /// among trials played in full, lane after lane, has lanes that stand apart.
    #[allow(clippy::too_many_arguments)]
    fn catch_up(
        &mut self,
        trial: &'t T,
        lanes: &mut Lanes,
        t: u64,
        done: &mut [u64; LANES],
        acc: &mut Gathered,
        signals: Signals<'_>,
        moved: &mut bool,
    ) -> Option<Halt> {
        for (lane, done) in done.iter_mut().enumerate() {
            let mut rng = lanes.state(lane);
            while *done < trials_on_lane(0, t, lane) {
                if let Some(halt) = signals.halt(*moved) {
                    lanes.restore(lane, rng);
                    return Some(halt);
                }
                self.walk_one(trial, &mut rng, lane, acc);
                (*done, *moved) = (*done + 1, true);
            }
            lanes.restore(lane, rng);
        }
        None
    }

    /// Plays trials `trials` of the chunk in full, lane by lane, each lane's trials in order
    /// (its state stays in registers); `done` says where the lanes stand when it pauses.
    #[allow(clippy::too_many_arguments)]
    fn play_in_full(
        &mut self,
        trial: &'t T,
        lanes: &mut Lanes,
        trials: Range<u64>,
        done: &mut [u64; LANES],
        acc: &mut Gathered,
        signals: Signals<'_>,
        moved: &mut bool,
    ) -> Option<Halt> {
        let (t, end) = (trials.start, trials.end);
        for lane in 0..LANES {
            let mut rng = lanes.state(lane);
            for next in lane_trials(t, end, lane) {
                if let Some(halt) = signals.halt(*moved) {
                    lanes.restore(lane, rng);
                    *done = std::array::from_fn(|j| {
                        let at = match j.cmp(&lane) {
                            std::cmp::Ordering::Less => end,
                            std::cmp::Ordering::Equal => next,
                            std::cmp::Ordering::Greater => t,
                        };
                        trials_on_lane(0, at, j)
                    });
                    return Some(halt);
                }
                self.walk_one(trial, &mut rng, lane, acc);
                *moved = true;
            }
            lanes.restore(lane, rng);
        }
        None
    }

    /// Trials whose rules ran since last asked, every arm's ([`Tree::take_played`]).
    pub(crate) fn take_played(&mut self) -> u64 {
        self.trees.iter_mut().map(Tree::take_played).sum()
    }

    /// One trial of a single-arm chunk, on its own, drawing from lane `lane`.
    fn walk_one(&mut self, trial: &'t T, rng: &mut LaneState, lane: usize, acc: &mut Gathered) {
        match self.trees[0].walk(&mut self.player, rng) {
            Walked::Leaf(leaf) => self.player.ended.leaves.add(leaf, lane, 1),
            Walked::Played => self.gathering.add(&self.player.out, trial.pairs(), acc),
        }
    }
}

/// How a chunk ended ([`Worker::play_chunk`]).
#[derive(Debug)]
pub(crate) enum ChunkEnd {
    Whole,
    /// A piece of the chunk played all its lanes' trials: where each lane stands (the
    /// others as they were given).
    PieceWhole(Box<[LaneAt; LANES]>),
    /// Paused: where each lane stands.
    Paused(Box<[LaneAt; LANES]>),
    Stopped,
}

/// Why a chunk's play halted before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Halt {
    Stopped,
    Paused,
}

/// The requests a chunk's play looks at between trials: to stop (drop the chunk) and to
/// pause (keep what it played, for a checkpoint).
#[derive(Clone, Copy)]
pub(crate) struct Signals<'a> {
    pub stop: &'a AtomicBool,
    pub pause: &'a AtomicBool,
}

impl Signals<'_> {
    /// Whether to halt now; a pause only once the chunk has `moved` (played a trial since it
    /// started or resumed), so that a chunk paused again and again still gets on.
    #[inline]
    fn halt(self, moved: bool) -> Option<Halt> {
        if self.stop.load(Ordering::Relaxed) {
            Some(Halt::Stopped)
        } else if moved && self.pause.load(Ordering::Relaxed) {
            Some(Halt::Paused)
        } else {
            None
        }
    }
}

/// The first trial of a chunk from which every lane has played all its trials before and
/// none after, when each lane `j` has played its first `done[j]`: where the furthest lane
/// stands.
fn common_start(done: &[u64; LANES]) -> u64 {
    (0..LANES)
        .filter(|&j| done[j] > 0)
        .map(|j| LANES as u64 * (done[j] - 1) + j as u64 + 1)
        .max()
        .unwrap_or(0)
}

/// The rows of a chunk's trials played in full, being counted: metrics in a table of small
/// values (see [`SMALL`]), paired differences in a column batch.
#[derive(Default)]
struct Gathering {
    /// `small[j * SMALL + v]`: the chunk's trials whose metric j was v. Taken when a trial is
    /// first played in full: a sweep of many points has many metrics, and may never need it.
    small: Vec<u32>,
    /// Column-major: column i holds pair i's differences for the batch's trials, contiguous
    /// so the "unchanged across the batch" test vectorises.
    differences: Vec<i64>,
    /// Trials in `differences`.
    filled: usize,
}

impl Gathering {
    /// Counts one trial's row of metrics.
    #[inline]
    fn add(&mut self, row: &[i64], pairs: &[(usize, usize)], acc: &mut Gathered) {
        if self.small.len() != row.len() * SMALL {
            self.small = vec![0; row.len() * SMALL];
        }
        // A negative value has no cell. The common case, every value small, is
        // tested at once (no value has a bit at or above SMALL's: SMALL is a power of two),
        // so that the counting loop has no branch.
        const _: () = assert!(SMALL.is_power_of_two());
        if row.iter().fold(0, |bits, &v| bits | v as u64) < SMALL as u64 {
            for (counts, &v) in self.small.chunks_exact_mut(SMALL).zip(row) {
                counts[v as usize % SMALL] += 1;
            }
        } else {
            for ((counts, h), &v) in self
                .small
                .chunks_exact_mut(SMALL)
                .zip(&mut acc.metrics)
                .zip(row)
            {
                match usize::try_from(v).ok().and_then(|i| counts.get_mut(i)) {
                    Some(c) => *c += 1,
                    None if v == NOT_HERE => {}
                    None => h.add(v),
                }
            }
        }
        if pairs.is_empty() {
            return;
        }
        if self.differences.len() != pairs.len() * BATCH {
            self.differences = vec![0; pairs.len() * BATCH];
        }
        for (column, &(a, b)) in self.differences.chunks_exact_mut(BATCH).zip(pairs) {
            column[self.filled] = row[a] - row[b];
        }
        self.filled += 1;
        if self.filled == BATCH {
            self.flush_differences(acc);
        }
    }

    /// Adds everything counted to `acc`.
    fn flush(&mut self, pairs: &[(usize, usize)], acc: &mut Gathered) {
        for (counts, h) in self.small.chunks_exact_mut(SMALL).zip(&mut acc.metrics) {
            for (v, c) in counts.iter_mut().enumerate() {
                h.add_count(v as i64, u64::from(std::mem::take(c)));
            }
        }
        if !pairs.is_empty() {
            self.flush_differences(acc);
        }
    }

    fn flush_differences(&mut self, acc: &mut Gathered) {
        let batch = std::mem::take(&mut self.filled);
        if batch == 0 {
            return;
        }
        for (column, h) in self
            .differences
            .chunks_exact(BATCH)
            .zip(&mut acc.differences)
        {
            add_column(h, &column[..batch]);
        }
    }
}

/// The lane trial `t` of a chunk draws from.
fn lane_of(t: u64) -> usize {
    (t % LANES as u64) as usize
}

/// The trials of `from..to` that draw from lane `lane`, in order.
fn lane_trials(from: u64, to: u64, lane: usize) -> impl Iterator<Item = u64> {
    let first = from + (lane as u64 + LANES as u64 - from % LANES as u64) % LANES as u64;
    (first..to).step_by(LANES)
}

/// How many of trials `from..to` of a chunk draw from lane `lane`.
fn trials_on_lane(from: u64, to: u64, lane: usize) -> u64 {
    let before = |x: u64| (x + (LANES - 1 - lane) as u64) / LANES as u64;
    before(to) - before(from)
}

/// The hot loop of one-draw trials: `quota[j]` draws on each lane j, counted by result.
fn count_results(draw: Draw<'_>, lanes: &mut Lanes, quota: [u64; LANES]) -> Vec<u64> {
    let mut counts = vec![0u64; draw.outcomes()];
    let together = quota.iter().copied().min().unwrap_or(0);
    match draw {
        Draw::Count(table) if table.guide().is_some() => {
            count_guided(table, lanes, together, &mut counts)
        }
        _ => {
            for _ in 0..together {
                for w in lanes.next_all() {
                    counts[draw.result(w) as usize] += 1;
                }
            }
        }
    }
    for (j, &q) in quota.iter().enumerate() {
        for _ in together..q {
            counts[draw.result(lanes.next(j)) as usize] += 1;
        }
    }
    counts
}

/// `steps` draws on every lane from a table with a top-byte guide, added to `counts`.
fn count_guided(table: &SuccessCount, lanes: &mut Lanes, steps: u64, counts: &mut [u64]) {
    let Some(guide) = table.guide() else {
        return;
    };
    // A row of counts per lane of each half of the lanes: consecutive increments of one
    // counter would wait on each other through memory; separate rows let them overlap. The
    // halves keep the inner loop short enough for the compiler to unroll (one loop over all
    // the lanes was not, and measured slower). Rows of 256 need no bounds checks.
    const ROWS: usize = 8;
    let mut rows = vec![[0u64; 256]; ROWS];
    let mut block = [[0u64; LANES]; 32];
    let mut left = steps;
    while left > 0 {
        let n = (left as usize).min(block.len());
        lanes.fill(&mut block[..n]);
        for words in &block[..n] {
            for some in words.chunks_exact(ROWS) {
                for (row, &w) in rows.iter_mut().zip(some) {
                    let k = match guide[(w >> 56) as usize] {
                        AMBIGUOUS => table.scan(w) as u8,
                        k => k,
                    };
                    row[k as usize] += 1;
                }
            }
        }
        left -= n as u64;
    }
    for (k, c) in counts.iter_mut().enumerate().take(256) {
        *c += rows.iter().map(|row| row[k]).sum::<u64>();
    }
}

fn add_column(h: &mut Histogram, values: &[i64]) {
    let Some(&first) = values.first() else { return };
    if values.iter().all(|&v| v == first) {
        h.add_count(first, values.len() as u64);
    } else {
        for &v in values {
            h.add(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream::trial_stream;
    use rand::Rng;

    /// The gathering against its plain statement: every metric and every paired difference
    /// of every row added to its histogram one by one. Rows mix small counts, values at and
    /// past the table's edge, negatives and large values, in rows of only small values and
    /// rows with some others, over chunks of several lengths (a flush after each).
    #[test]
    fn gathering_adds_what_adding_each_value_adds() {
        let mut rng = trial_stream(19);
        let value = |rng: &mut crate::engine::stream::Stream| -> i64 {
            match rng.next_u32() % 8 {
                0 => -((rng.next_u32() % 3) as i64) - 1,
                1 => SMALL as i64 - 1 + (rng.next_u32() % 3) as i64,
                2 => 1_000 + (rng.next_u32() % 50) as i64,
                _ => (rng.next_u32() % 4) as i64,
            }
        };
        for case in 0..20 {
            let m = 1 + (rng.next_u32() % 12) as usize;
            let pairs: Vec<(usize, usize)> = (0..case % 4)
                .map(|_| ((rng.next_u32() as usize) % m, (rng.next_u32() as usize) % m))
                .collect();
            let mut acc = Gathered::empty(m, pairs.len());
            let mut plain = Gathered::empty(m, pairs.len());
            let mut gathering = Gathering::default();
            for chunk in 0..3 {
                let rows = [1, BATCH, 3 * BATCH + 17][chunk] + case;
                for _ in 0..rows {
                    // Every other row of small values only, so both ways of counting run.
                    let small_only = rng.next_u32() & 1 == 0;
                    let row: Vec<i64> = (0..m)
                        .map(|_| {
                            if small_only {
                                (rng.next_u32() % SMALL as u32) as i64
                            } else {
                                value(&mut rng)
                            }
                        })
                        .collect();
                    gathering.add(&row, &pairs, &mut acc);
                    for (h, &v) in plain.metrics.iter_mut().zip(&row) {
                        h.add(v);
                    }
                    for (h, &(a, b)) in plain.differences.iter_mut().zip(&pairs) {
                        h.add(row[a] - row[b]);
                    }
                }
                gathering.flush(&pairs, &mut acc);
                assert_eq!(acc, plain, "case {case}, chunk {chunk}");
            }
        }
    }
}
