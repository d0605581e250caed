//! The chunked parallel runner. It plays a [`Trial`] many times and gathers each metric in an
//! integer histogram; it knows nothing of the rules.
//!
//! Trials are cut into fixed-size chunks; chunk i draws from [`Lanes::new`]`(seed, i)` and
//! rayon spreads chunks over the workers. Histograms merge exactly, so the result depends
//! only on which chunks were played, never on how they were spread: that is what makes the
//! output files byte-identical for any thread count and for shards merged back.

pub mod draws;
pub mod stream;
pub mod tree;

pub use draws::{Draw, Draws, Plain};

use crate::dice::{SuccessCount, AMBIGUOUS};
use crate::stats::{Histogram, Summary};
use rand::Rng;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use stream::{LaneState, Lanes, LANES};
use tree::{LeafCounts, Mode, Tree, Walked};

/// Trials per chunk. Part of the reproducibility contract: changing it changes results.
pub const CHUNK_SIZE: u64 = 1 << 16;

/// When `--precision` is given, the run stops early only after these many chunks (then every
/// doubling), so that where it stops depends on the data alone, not on timing.
const PRECISION_FIRST_CHECK: u64 = 8;

/// What the engine plays: one trial at a time, writing integer metrics.
///
/// A trial may have several arms (alternative choices) played on common random numbers: every
/// arm of a trial gets a fresh copy of the same stream, seeded from one word of the chunk's
/// stream, and `pairs` names the metric pairs whose per-trial differences are gathered.
pub trait Trial: Sync {
    /// Per-worker working memory, reused across trials so the hot path allocates nothing.
    type Scratch: Send;

    /// The metrics each trial writes, in output order; `out` has one slot per entry.
    fn metrics(&self) -> &[MetricName];
    fn arms(&self) -> usize;
    /// Metric index pairs (first, second) whose difference first - second is gathered.
    fn pairs(&self) -> &[(usize, usize)];
    fn scratch(&self) -> Self::Scratch;
    /// Plays arm `arm` of one trial, writing that arm's metrics into their slots of `out`.
    /// Every random decision goes through `draws`.
    fn play<'t, D: Draws<'t>>(
        &'t self,
        arm: usize,
        scratch: &mut Self::Scratch,
        draws: &mut D,
        out: &mut [i64],
    );

    /// Whether the engine may remember trials as paths of draws ([`tree`]). A trial that is
    /// not a pure function of its draws must say no; one that draws raw words is detected.
    fn memoise(&self) -> bool {
        true
    }
}

/// A metric as written in the tables: the arm (choice) it belongs to and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricName {
    pub arm: usize,
    /// The choice's id as written in the tables; empty when there are no choices.
    pub choice: String,
    pub name: String,
}

/// Which part of a run to play: shard `index` of `count` takes a contiguous block of chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// The chunks of this shard: [index * chunks / count, (index + 1) * chunks / count).
    pub fn chunks(self, total_chunks: u64) -> std::ops::Range<u64> {
        let at = |i: u64| ((i as u128 * total_chunks as u128) / self.count as u128) as u64;
        at(self.index)..at(self.index + 1)
    }
}

#[derive(Debug, Clone)]
pub struct RunSpec {
    pub trials: u64,
    pub seed: u64,
    pub threads: usize,
    pub shard: Shard,
    /// Stop once every metric's 95% half-width is below this.
    pub precision: Option<f64>,
}

/// Number of chunks a run of `trials` trials is cut into.
pub fn chunk_count(trials: u64) -> u64 {
    trials.div_ceil(CHUNK_SIZE)
}

/// Histograms gathered by a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Gathered {
    pub metrics: Vec<Histogram>,
    /// One per [`Trial::pairs`] entry: the per-trial differences.
    pub differences: Vec<Histogram>,
    pub trials: u64,
    pub chunks: u64,
}

impl Gathered {
    fn empty(metrics: usize, pairs: usize) -> Gathered {
        Gathered {
            metrics: vec![Histogram::new(); metrics],
            differences: vec![Histogram::new(); pairs],
            trials: 0,
            chunks: 0,
        }
    }

    pub fn merge(&mut self, other: &Gathered) {
        for (a, b) in self.metrics.iter_mut().zip(&other.metrics) {
            a.merge(b);
        }
        for (a, b) in self.differences.iter_mut().zip(&other.differences) {
            a.merge(b);
        }
        self.trials += other.trials;
        self.chunks += other.chunks;
    }
}

/// The result of [`run`]: what was gathered and whether the run went to its planned end.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub gathered: Gathered,
    /// False when `stop` interrupted the run.
    pub complete: bool,
}

/// Live counters shared with whoever watches the run (a progress bar, a Ctrl-C handler).
#[derive(Debug, Default)]
pub struct Monitor {
    pub trials_done: AtomicU64,
    pub stop: AtomicBool,
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("cannot start {threads} worker threads: {problem}")]
    Threads { threads: usize, problem: String },
}

/// Plays the chunks of `spec.shard` (all of them for a whole run), in parallel.
pub fn run<T: Trial>(trial: &T, spec: &RunSpec, monitor: &Monitor) -> Result<Outcome, EngineError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(spec.threads.max(1))
        .build()
        .map_err(|e| EngineError::Threads {
            threads: spec.threads,
            problem: e.to_string(),
        })?;
    let chunks = spec.shard.chunks(chunk_count(spec.trials));
    let mut gathered = Gathered::empty(trial.metrics().len(), trial.pairs().len());
    let mut next = chunks.start;
    let mut checkpoint = chunks.start + PRECISION_FIRST_CHECK;
    while next < chunks.end {
        let end = match spec.precision {
            Some(_) => checkpoint.min(chunks.end),
            None => chunks.end,
        };
        let batch = pool.install(|| play_chunks(trial, spec, next..end, monitor));
        gathered.merge(&batch);
        if monitor.stop.load(Ordering::Relaxed) {
            return Ok(Outcome {
                gathered,
                complete: false,
            });
        }
        next = end;
        if let Some(eps) = spec.precision {
            if precise_enough(&gathered, eps) {
                break;
            }
            checkpoint = chunks.start + 2 * (checkpoint - chunks.start);
        }
    }
    Ok(Outcome {
        gathered,
        complete: true,
    })
}

fn precise_enough(g: &Gathered, eps: f64) -> bool {
    g.metrics
        .iter()
        .all(|h| Summary::from_histogram(h).is_some_and(|s| (s.ci95_high - s.ci95_low) / 2.0 < eps))
}

fn play_chunks<T: Trial>(
    trial: &T,
    spec: &RunSpec,
    chunks: std::ops::Range<u64>,
    monitor: &Monitor,
) -> Gathered {
    let metrics = trial.metrics().len();
    let pairs = trial.pairs().len();
    chunks
        .into_par_iter()
        .fold(
            || (Worker::new(trial), Gathered::empty(metrics, pairs)),
            |(mut worker, mut acc), chunk| {
                if !monitor.stop.load(Ordering::Relaxed) {
                    worker.play_chunk(trial, spec, chunk, &mut acc);
                    let done = chunk_len(spec.trials, chunk);
                    monitor.trials_done.fetch_add(done, Ordering::Relaxed);
                }
                (worker, acc)
            },
        )
        .map(|(_, acc)| acc)
        .reduce(
            || Gathered::empty(metrics, pairs),
            |mut a, b| {
                a.merge(&b);
                a
            },
        )
}

fn chunk_len(trials: u64, chunk: u64) -> u64 {
    CHUNK_SIZE.min(trials - chunk * CHUNK_SIZE)
}

/// Trials played before their metrics are added to the histograms, column by column: a
/// metric that did not change across the batch (common: most metrics of most steps) costs one
/// comparison per trial instead of a histogram update.
const BATCH: usize = 256;

/// Trials of a chunk walked side by side before the engine looks again at what the tree knows.
const SEGMENT: u64 = 4096;

/// One worker's memory, reused across its chunks so the hot path allocates nothing.
struct Worker<'t, T: Trial> {
    scratch: T::Scratch,
    /// One per arm.
    trees: Vec<Tree<'t>>,
    out: Vec<i64>,
    /// Column-major: column j holds metric j for the batch's trials, contiguous so the
    /// "unchanged across the batch" test vectorises.
    columns: Vec<i64>,
    differences: Vec<i64>,
    /// Trials in `columns`.
    filled: usize,
    /// Single-arm trials ended at each leaf of the tree, this chunk.
    leaf_counts: LeafCounts,
    /// Metrics of trials played in full while others walked side by side.
    played: Vec<i64>,
}

impl<'t, T: Trial> Worker<'t, T> {
    fn new(trial: &'t T) -> Self {
        let m = trial.metrics().len();
        Worker {
            scratch: trial.scratch(),
            trees: (0..trial.arms())
                .map(|arm| Tree::new(trial, arm, trial.memoise()))
                .collect(),
            out: vec![0; m],
            columns: vec![0; m * BATCH],
            differences: vec![0; BATCH],
            filled: 0,
            leaf_counts: LeafCounts::default(),
            played: Vec::new(),
        }
    }

    fn play_chunk(&mut self, trial: &'t T, spec: &RunSpec, chunk: u64, acc: &mut Gathered) {
        let mut lanes = Lanes::new(spec.seed, chunk);
        let n = chunk_len(spec.trials, chunk);
        if trial.arms() == 1 {
            self.play_one_arm(trial, &mut lanes, n, acc);
        } else {
            for lane in 0..LANES {
                let mut rng = lanes.state(lane);
                for _ in lane_trials(0, n, lane) {
                    // Every arm replays the same stream: common random numbers.
                    let word = rng.next_u64();
                    for arm in 0..self.trees.len() {
                        let tree = &mut self.trees[arm];
                        let mut arm_rng = stream::trial_stream(word);
                        let walked =
                            tree.walk(trial, &mut self.scratch, &mut arm_rng, &mut self.out);
                        if let Walked::Leaf(leaf) = walked {
                            for (&slot, &v) in tree.slots().iter().zip(tree.row(leaf)) {
                                self.out[slot] = v;
                            }
                        }
                    }
                    self.push_out(trial, acc);
                }
            }
        }
        self.flush(trial, acc);
        acc.trials += n;
        acc.chunks += 1;
    }

    /// One arm: trials that end at a leaf are counted per leaf and expanded at the end.
    fn play_one_arm(&mut self, trial: &'t T, lanes: &mut Lanes, n: u64, acc: &mut Gathered) {
        let mut t = 0;
        while t < n {
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
                    t += 1;
                    continue;
                }
                Mode::Constant(leaf) => {
                    self.leaf_counts.add(leaf, 0, n - t);
                    break;
                }
                Mode::OneDraw { draw, leaves } => {
                    let quota = std::array::from_fn(|j| trials_on_lane(t, n, j));
                    let counts = count_results(draw, lanes, quota);
                    for (&leaf, &c) in leaves.iter().zip(&counts) {
                        if c > 0 {
                            self.leaf_counts.add(leaf, 0, c);
                        }
                    }
                    break;
                }
                Mode::Branching => {
                    let Worker {
                        scratch,
                        trees,
                        out,
                        leaf_counts,
                        played,
                        ..
                    } = self;
                    played.clear();
                    trees[0].play_lanes(trial, scratch, lanes, quota, leaf_counts, out, |o| {
                        played.extend_from_slice(o)
                    });
                    for i in 0..self.played.len() / self.out.len() {
                        let m = self.out.len();
                        self.out.copy_from_slice(&self.played[i * m..(i + 1) * m]);
                        self.push_out(trial, acc);
                    }
                }
                Mode::Played => {
                    // Lane by lane, each lane's trials in order: its state stays in registers.
                    for lane in 0..LANES {
                        let mut rng = lanes.state(lane);
                        for _ in lane_trials(t, end, lane) {
                            self.walk_one(trial, &mut rng, lane, acc);
                        }
                        lanes.restore(lane, rng);
                    }
                }
            }
            t = end;
        }
        let tree = &self.trees[0];
        for (leaf, count) in self.leaf_counts.drain() {
            for (&slot, &v) in tree.slots().iter().zip(tree.row(leaf)) {
                self.out[slot] = v;
            }
            for (h, &v) in acc.metrics.iter_mut().zip(&self.out) {
                h.add_count(v, count);
            }
            for (h, &(a, b)) in acc.differences.iter_mut().zip(trial.pairs()) {
                h.add_count(self.out[a] - self.out[b], count);
            }
        }
    }

    /// One trial of a single-arm chunk, on its own, drawing from lane `lane`.
    fn walk_one(&mut self, trial: &'t T, rng: &mut LaneState, lane: usize, acc: &mut Gathered) {
        match self.trees[0].walk(trial, &mut self.scratch, rng, &mut self.out) {
            Walked::Leaf(leaf) => self.leaf_counts.add(leaf, lane, 1),
            Walked::Played => self.push_out(trial, acc),
        }
    }

    /// Adds `out` as one trial of the column batch.
    fn push_out(&mut self, trial: &T, acc: &mut Gathered) {
        for (j, &v) in self.out.iter().enumerate() {
            self.columns[j * BATCH + self.filled] = v;
        }
        self.filled += 1;
        if self.filled == BATCH {
            self.flush(trial, acc);
        }
    }

    fn flush(&mut self, trial: &T, acc: &mut Gathered) {
        let batch = std::mem::take(&mut self.filled);
        if batch == 0 {
            return;
        }
        for (column, h) in self.columns.chunks_exact(BATCH).zip(&mut acc.metrics) {
            add_column(h, &column[..batch]);
        }
        for (h, &(a, b)) in acc.differences.iter_mut().zip(trial.pairs()) {
            let (first, second) = (&self.columns[a * BATCH..], &self.columns[b * BATCH..]);
            for (d, (x, y)) in self
                .differences
                .iter_mut()
                .zip(first.iter().zip(second))
                .take(batch)
            {
                *d = x - y;
            }
            add_column(h, &self.differences[..batch]);
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
    // One row of counts per lane: consecutive increments of one counter would wait on each
    // other through memory; eight rows let them overlap. Rows of 256 need no bounds checks.
    let mut rows = vec![[0u64; 256]; LANES];
    let mut block = [[0u64; LANES]; 64];
    let mut left = steps;
    while left > 0 {
        let n = (left as usize).min(block.len());
        lanes.fill(&mut block[..n]);
        for words in &block[..n] {
            for (row, &w) in rows.iter_mut().zip(words) {
                let k = match guide[(w >> 56) as usize] {
                    AMBIGUOUS => table.scan(w) as u8,
                    k => k,
                };
                row[k as usize] += 1;
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

    /// A die roll and its double, two arms: arm 1 adds 1, so every difference is -1.
    struct Dice;

    impl Trial for Dice {
        type Scratch = ();
        fn metrics(&self) -> &[MetricName] {
            static NAMES: std::sync::OnceLock<Vec<MetricName>> = std::sync::OnceLock::new();
            NAMES.get_or_init(|| {
                (0..2)
                    .map(|arm| MetricName {
                        arm,
                        choice: format!("arm{arm}"),
                        name: "roll".into(),
                    })
                    .collect()
            })
        }
        fn arms(&self) -> usize {
            2
        }
        fn pairs(&self) -> &[(usize, usize)] {
            &[(0, 1)]
        }
        fn scratch(&self) {}
        fn play<'t, D: Draws<'t>>(
            &'t self,
            arm: usize,
            _: &mut (),
            draws: &mut D,
            out: &mut [i64],
        ) {
            out[arm] = draws.uniform(6) as i64 + 1 + arm as i64;
        }
    }

    fn spec(trials: u64, threads: usize) -> RunSpec {
        RunSpec {
            trials,
            seed: 7,
            threads,
            shard: Shard::WHOLE,
            precision: None,
        }
    }

    #[test]
    fn thread_count_does_not_change_results() {
        let one = run(&Dice, &spec(300_001, 1), &Monitor::default()).unwrap();
        let three = run(&Dice, &spec(300_001, 3), &Monitor::default()).unwrap();
        assert_eq!(one.gathered, three.gathered);
        assert_eq!(one.gathered.trials, 300_001);
        assert_eq!(one.gathered.chunks, chunk_count(300_001));
    }

    #[test]
    fn arms_share_random_numbers() {
        let g = run(&Dice, &spec(10_000, 2), &Monitor::default())
            .unwrap()
            .gathered;
        // Same draw in both arms: the difference is exactly -1 in every trial.
        assert_eq!(
            g.differences[0].iter().collect::<Vec<_>>(),
            vec![(-1, 10_000)]
        );
    }

    #[test]
    fn shards_cover_every_chunk_once() {
        for count in [1, 2, 3, 7, 20] {
            let mut next = 0;
            for index in 0..count {
                let r = Shard { index, count }.chunks(5);
                assert_eq!(r.start, next);
                next = r.end;
            }
            assert_eq!(next, 5);
        }
        let whole = run(&Dice, &spec(400_000, 2), &Monitor::default()).unwrap();
        let mut merged = Gathered::empty(2, 1);
        for index in 0..3 {
            let mut s = spec(400_000, 2);
            s.shard = Shard { index, count: 3 };
            merged.merge(&run(&Dice, &s, &Monitor::default()).unwrap().gathered);
        }
        assert_eq!(merged, whole.gathered);
    }

    #[test]
    fn a_stopped_run_is_marked_incomplete() {
        let monitor = Monitor::default();
        monitor.stop.store(true, Ordering::Relaxed);
        let out = run(&Dice, &spec(1_000_000, 2), &monitor).unwrap();
        assert!(!out.complete);
        assert_eq!(out.gathered.trials, 0);
    }

    #[test]
    fn precision_stops_at_a_deterministic_checkpoint() {
        let mut s = spec(100_000_000, 2);
        s.precision = Some(0.01);
        let a = run(&Dice, &s, &Monitor::default()).unwrap().gathered;
        s.threads = 1;
        let b = run(&Dice, &s, &Monitor::default()).unwrap().gathered;
        assert_eq!(a, b);
        // sd of a die is 1.708: a half-width of 0.01 needs n > (1.96 * 1.708 / 0.01)^2 = 112,000,
        // i.e. 2 chunks; the first checkpoint is 8 chunks.
        assert_eq!(a.chunks, PRECISION_FIRST_CHECK);
    }
}
