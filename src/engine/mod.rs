//! The chunked parallel runner. It plays a [`Trial`] many times and gathers each metric in an
//! integer histogram; it knows nothing of the rules.
//!
//! Trials are cut into fixed-size chunks; chunk i draws from
//! [`stream::Lanes::new`]`(seed, i)` and rayon spreads chunks over the workers. Histograms
//! merge exactly, so the result depends only on which chunks were played, never on how they
//! were spread: that is what makes the output files byte-identical for any thread count and
//! for shards merged back, and what lets a run stop between batches of chunks and resume
//! later from a [`Progress`] (what was gathered, and from which chunks) with the same result.

mod arms;
#[cfg(target_arch = "x86_64")]
mod cpu;
pub mod draws;
pub mod joined;
pub mod range;
pub mod stream;
pub mod tree;
mod worker;

pub use draws::{Draw, Draws, Plain};
pub use joined::{Joined, PairOf, Pairing};
pub use range::{Pool, Ranges};

use crate::stats::{Histogram, Summary};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use worker::Worker;

/// Trials per chunk. Part of the reproducibility contract: changing it changes results.
pub const CHUNK_SIZE: u64 = 1 << 16;

/// A run of at least this many chunks per thread plays its first chunk alone and starts its
/// other workers from the trees it grew ([`resume`]).
const SEED_CHUNKS: u64 = 32;

/// When `--precision` is given, the run stops early only after these many chunks (then every
/// doubling), so that where it stops depends on the data alone, not on timing.
const PRECISION_FIRST_CHECK: u64 = 8;

/// Set by the Ctrl-C handler (the binary's, for the process). A run sees it through
/// [`Monitor::stop`]; what cannot see a monitor reads it through [`interrupted`]: a trial
/// between its steps, rounds or turns, so that one long trial does not hold a run past
/// Ctrl-C, and the exact engine between the states it expands. A worker whose trial saw it
/// drops its chunk, so only whole chunks of whole trials are ever counted.
pub static INTERRUPT: AtomicBool = AtomicBool::new(false);

/// Whether Ctrl-C was pressed: one relaxed load, cheap enough for every step of a trial.
#[inline]
pub fn interrupted() -> bool {
    INTERRUPT.load(Ordering::Relaxed)
}

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
    /// Set on a record of the metric as it stood at the end of this round (`rounds.csv`):
    /// gathered like any metric, but never paired, summarised or weighed by `--precision`.
    pub round: Option<u32>,
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
    /// The chunks `gathered` holds.
    pub done: ChunkSet,
    /// The chunks `gathered` holds the first trials of.
    pub begun: Vec<Begun>,
    /// False when `stop` interrupted the run.
    pub complete: bool,
}

/// Live counters shared with whoever watches the run (a progress bar, a Ctrl-C handler).
#[derive(Debug, Default)]
pub struct Monitor {
    pub trials_done: AtomicU64,
    pub stop: AtomicBool,
    /// Of the trials done, those whose rules ran: paths not seen before and trials beyond
    /// what the outcome graphs hold ([`tree`]). Depends on how chunks met workers, so it is
    /// reported, never part of the results.
    pub played_in_full: AtomicU64,
    /// Raised by whoever wants a checkpoint now: the chunks being played pause between two
    /// trials and are kept as [`Begun`], `between` is called, then the flag is lowered and
    /// play goes on where it paused.
    pub pause: AtomicBool,
}

/// A chunk begun and not finished: where each of its lanes stands. Each lane's trials draw
/// from the lane's stream in order and nothing else, so a chunk's trials are those of its
/// lanes whatever the order the lanes were played in: a chunk played part by part, from
/// where each lane stood, gives what it gives played at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Begun {
    pub chunk: u64,
    pub lanes: [LaneAt; stream::LANES],
}

/// Where a lane of a chunk stands: its trials played, and its stream's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LaneAt {
    pub trials: u64,
    pub state: [u64; 4],
}

impl Begun {
    /// The trials played of the chunk.
    pub fn trials(&self) -> u64 {
        self.lanes.iter().map(|l| l.trials).sum()
    }

    /// Checks that `self` is a chunk of a run of `trials` trials in `chunks`, with no lane
    /// past its trials; says what is wrong.
    pub fn check(&self, trials: u64, chunks: &Range<u64>) -> Result<(), String> {
        if !chunks.contains(&self.chunk) {
            return Err(format!(
                "chunk {} begun, outside this run's {}..{}",
                self.chunk, chunks.start, chunks.end
            ));
        }
        let n = chunk_len(trials, self.chunk);
        for (j, lane) in self.lanes.iter().enumerate() {
            let most = n / stream::LANES as u64 + u64::from((j as u64) < n % stream::LANES as u64);
            if lane.trials > most {
                return Err(format!(
                    "lane {j} of chunk {} played {} trials of its {most}",
                    self.chunk, lane.trials
                ));
            }
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("cannot start {threads} worker threads: {problem}")]
    Threads { threads: usize, problem: String },
}

/// Chunks played, as sorted, disjoint, non-empty ranges: what a checkpoint records, so that a
/// resumed run plays exactly the chunks an uninterrupted run would have played and no other.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChunkSet {
    ranges: Vec<Range<u64>>,
}

impl ChunkSet {
    /// The set of `ranges`, which must be sorted, disjoint and non-empty (as [`ChunkSet::ranges`]
    /// lists them).
    pub fn from_ranges(ranges: Vec<Range<u64>>) -> Result<ChunkSet, String> {
        for (i, r) in ranges.iter().enumerate() {
            if r.start >= r.end {
                return Err(format!("chunk range {}..{} is empty", r.start, r.end));
            }
            if i > 0 && ranges[i - 1].end >= r.start {
                return Err(format!(
                    "chunk ranges {}..{} and {}..{} are out of order or touch",
                    ranges[i - 1].start,
                    ranges[i - 1].end,
                    r.start,
                    r.end
                ));
            }
        }
        Ok(ChunkSet { ranges })
    }

    pub fn ranges(&self) -> &[Range<u64>] {
        &self.ranges
    }

    /// Number of chunks in the set.
    pub fn len(&self) -> u64 {
        self.ranges.iter().map(|r| r.end - r.start).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Adds chunk `chunk`.
    pub fn insert(&mut self, chunk: u64) {
        let at = self.ranges.partition_point(|r| r.end < chunk);
        match self.ranges.get_mut(at) {
            Some(r) if r.contains(&chunk) => {}
            Some(r) if r.end == chunk => {
                r.end += 1;
                if self
                    .ranges
                    .get(at + 1)
                    .is_some_and(|next| next.start == chunk + 1)
                {
                    let next = self.ranges.remove(at + 1);
                    self.ranges[at].end = next.end;
                }
            }
            Some(r) if r.start == chunk + 1 => r.start = chunk,
            _ => self.ranges.insert(at, chunk..chunk + 1),
        }
    }

    /// The first run of chunks of `within` not in the set.
    pub fn first_missing(&self, within: Range<u64>) -> Option<Range<u64>> {
        let mut start = within.start;
        for r in &self.ranges {
            if r.end <= start {
                continue;
            }
            if r.start > start {
                break;
            }
            start = r.end;
        }
        (start < within.end).then(|| {
            let end = self
                .ranges
                .iter()
                .find(|r| r.start > start)
                .map_or(within.end, |r| r.start.min(within.end));
            start..end
        })
    }
}

/// What a run has gathered so far and from which chunks: where a resumed run starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub gathered: Gathered,
    pub done: ChunkSet,
    /// Chunks begun and not finished, by chunk, none in `done`: `gathered` holds their
    /// trials played.
    pub begun: Vec<Begun>,
}

impl Progress {
    /// Nothing played yet.
    pub fn start<T: Trial>(trial: &T) -> Progress {
        Progress {
            gathered: Gathered::empty(trial.metrics().len(), trial.pairs().len()),
            done: ChunkSet::default(),
            begun: Vec::new(),
        }
    }

    /// Adds what a batch of chunks gathered: `played` whole (perhaps begun before), `paused`
    /// begun.
    fn add(&mut self, gathered: &Gathered, played: Vec<u64>, paused: Vec<Begun>) {
        self.gathered.merge(gathered);
        for chunk in played {
            self.done.insert(chunk);
            self.begun.retain(|b| b.chunk != chunk);
        }
        for b in paused {
            match self.begun.binary_search_by_key(&b.chunk, |x| x.chunk) {
                Ok(i) => self.begun[i] = b,
                Err(i) => self.begun.insert(i, b),
            }
        }
    }
}

/// Plays the chunks of `spec.shard` (all of them for a whole run), in parallel.
pub fn run<T: Trial>(trial: &T, spec: &RunSpec, monitor: &Monitor) -> Result<Outcome, EngineError> {
    resume(trial, spec, monitor, Progress::start(trial), &mut |_| {})
}

/// Plays the chunks of `spec.shard` that `progress` does not hold yet, adding them to it, and
/// calls `between` with the progress after every batch of chunks (the moments a checkpoint can
/// be taken). The result is the one [`run`] gives when `progress` came from the same
/// `trial` and `spec`.
///
/// Chunks are played in batches of about a second or less, so that `monitor.stop` is seen
/// within a batch however many chunks are left; a chunk that sees it midway is dropped (only
/// whole chunks count). With `--precision`, the check happens only once every chunk below a
/// fixed count has been played, so where the run stops does not depend on how it was cut.
pub fn resume<T: Trial>(
    trial: &T,
    spec: &RunSpec,
    monitor: &Monitor,
    mut progress: Progress,
    between: &mut dyn FnMut(&Progress),
) -> Result<Outcome, EngineError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(spec.threads.max(1))
        .build()
        .map_err(|e| EngineError::Threads {
            threads: spec.threads,
            problem: e.to_string(),
        })?;
    let chunks = spec.shard.chunks(chunk_count(spec.trials));
    let workers = Workers::new(spec.threads);
    let split = pieces(trial.arms() > 1, chunks.end - chunks.start, spec.threads);
    monitor
        .trials_done
        .fetch_add(progress.gathered.trials, Ordering::Relaxed);
    // When the run has enough chunks, the first batch is one chunk: the worker that plays it
    // learns the paths most trials take, and the others start from its trees instead of
    // each playing them in full (at 2 threads, configs/run-duel.toml played 27,801 trials in
    // full against 18,781 at one thread, and took half as much CPU time again). The others
    // wait meanwhile: with fewer chunks that wait is too long a part of the run
    // (configs/exchange-rally.toml at 2e5 trials, 4 chunks, took half as long again).
    let seed_first = chunks.end - chunks.start >= SEED_CHUNKS * spec.threads.max(1) as u64;
    let mut batch_len = match seed_first {
        true => 1,
        false => spec.threads.max(1) as u64,
    };
    let mut seeded = !seed_first;
    let mut precision_check = chunks.start + PRECISION_FIRST_CHECK;
    let mut complete = true;
    loop {
        let end = match spec.precision {
            Some(_) => precision_check.min(chunks.end),
            None => chunks.end,
        };
        while let Some(missing) = progress.done.first_missing(chunks.start..end) {
            let batch = missing.start..missing.end.min(missing.start + batch_len);
            let started = Instant::now();
            let (gathered, played, paused) = pool.install(|| {
                play_chunks(
                    trial,
                    spec,
                    batch.clone(),
                    &split,
                    &progress.begun,
                    monitor,
                    &workers,
                )
            });
            progress.add(&gathered, played, paused);
            if monitor.stop.load(Ordering::Relaxed) {
                complete =
                    progress.done.first_missing(chunks.start..end).is_none() && end == chunks.end;
                break;
            }
            if !seeded {
                workers.seed(trial);
                seeded = true;
            }
            between(&progress);
            // Lowered once the checkpoint is written: a pause asked for meanwhile is the one
            // just served.
            monitor.pause.store(false, Ordering::Relaxed);
            batch_len = next_batch_len(batch_len, started.elapsed(), spec.threads);
        }
        if monitor.stop.load(Ordering::Relaxed) && !complete {
            break;
        }
        if end == chunks.end {
            break;
        }
        if let Some(eps) = spec.precision {
            if precise_enough(trial.metrics(), &progress.gathered, eps) {
                break;
            }
        }
        precision_check = chunks.start + 2 * (precision_check - chunks.start);
    }
    Ok(Outcome {
        gathered: progress.gathered,
        done: progress.done,
        begun: progress.begun,
        complete,
    })
}

/// Grows batches while they take well under a second, shrinks them past one: long enough
/// that the threads rarely wait for each other at a batch's end, short enough that a stop
/// request and a checkpoint wait little.
fn next_batch_len(len: u64, took: Duration, threads: usize) -> u64 {
    const MAX_BATCH: u64 = 1 << 16;
    if took < Duration::from_millis(250) {
        (len * 2).min(MAX_BATCH)
    } else if took > Duration::from_secs(1) {
        (len / 2).max(threads.max(1) as u64)
    } else {
        len
    }
}

fn precise_enough(names: &[MetricName], g: &Gathered, eps: f64) -> bool {
    g.metrics
        .iter()
        .zip(names)
        .filter(|(_, m)| m.round.is_none())
        .all(|(h, _)| {
            Summary::from_histogram(h).is_some_and(|s| (s.ci95_high - s.ci95_low) / 2.0 < eps)
        })
}

/// Workers kept from one batch to the next, one slot per pool thread: a worker's trees
/// remember the paths they have seen, and a fresh worker in every batch would learn them
/// again.
struct Workers<'t, T: Trial> {
    slots: Vec<Mutex<Option<Worker<'t, T>>>>,
}

impl<'t, T: Trial> Workers<'t, T> {
    fn new(threads: usize) -> Self {
        Workers {
            slots: (0..threads.max(1)).map(|_| Mutex::new(None)).collect(),
        }
    }

    fn slot(&self) -> Option<std::sync::MutexGuard<'_, Option<Worker<'t, T>>>> {
        let slot = self.slots.get(rayon::current_thread_index()?)?;
        slot.lock().ok()
    }

    /// This thread's kept worker, or a new one.
    fn take(&self, trial: &'t T) -> Worker<'t, T> {
        self.slot()
            .and_then(|mut w| w.take())
            .unwrap_or_else(|| Worker::new(trial))
    }

    /// Gives every thread that keeps no worker one that starts with the trees of a kept one.
    fn seed(&self, trial: &'t T) {
        let kept = self.slots.iter().find_map(|slot| {
            let slot = slot.lock().ok()?;
            let worker = slot.as_ref()?;
            Some(Worker::learned_from(trial, worker))
        });
        let Some(kept) = kept else {
            return;
        };
        for slot in &self.slots {
            if let Ok(mut slot) = slot.lock() {
                if slot.is_none() {
                    *slot = Some(Worker::learned_from(trial, &kept));
                }
            }
        }
    }

    /// Keeps `worker` for this thread's next batch, unless it already keeps one.
    fn keep(&self, worker: Worker<'t, T>) {
        if let Some(mut slot) = self.slot() {
            slot.get_or_insert(worker);
        }
    }
}

/// Plays `chunks` in parallel, each in the pieces of lanes `split`, until `monitor.stop` (or
/// until `monitor.pause`), each begun one from where `begun` says; returns what they gathered (whole chunks and chunks paused),
/// which chunks ended whole and where the paused ones stand.
fn play_chunks<'t, T: Trial>(
    trial: &'t T,
    spec: &RunSpec,
    chunks: Range<u64>,
    split: &[Range<usize>],
    begun: &[Begun],
    monitor: &Monitor,
    workers: &Workers<'t, T>,
) -> (Gathered, Vec<u64>, Vec<Begun>) {
    let (metrics, pairs) = (trial.metrics().len(), trial.pairs().len());
    let signals = worker::Signals {
        stop: &monitor.stop,
        pause: &monitor.pause,
    };
    let work: Vec<(u64, Range<usize>)> = (chunks.clone())
        .flat_map(|chunk| split.iter().map(move |lanes| (chunk, lanes.clone())))
        .collect();
    let played = work
        .into_par_iter()
        .fold(
            || (workers.take(trial), Batch::new(metrics, pairs)),
            |(mut worker, mut batch), (chunk, lanes)| {
                if monitor.stop.load(Ordering::Relaxed) || monitor.pause.load(Ordering::Relaxed) {
                    return (worker, batch);
                }
                let from = begun
                    .binary_search_by_key(&chunk, |b| b.chunk)
                    .ok()
                    .map(|i| &begun[i].lanes);
                // A chunk is gathered apart, so that one cut short can be dropped whole.
                let mut one = Gathered::empty(metrics, pairs);
                let end =
                    worker.play_chunk(trial, spec, chunk, lanes.clone(), from, &mut one, signals);
                if let worker::ChunkEnd::Stopped = end {
                    worker = Worker::new(trial);
                } else {
                    monitor.trials_done.fetch_add(one.trials, Ordering::Relaxed);
                    let full = worker.take_played();
                    monitor.played_in_full.fetch_add(full, Ordering::Relaxed);
                }
                batch.add(chunk, lanes, end, one);
                (worker, batch)
            },
        )
        .map(|(worker, batch)| {
            workers.keep(worker);
            batch
        })
        .reduce(|| Batch::new(metrics, pairs), Batch::merge);
    played.assemble()
}

/// The pieces of lanes each chunk of a run (or range) of `chunks` chunks is played in. A trial
/// of several arms plays its lanes one after another (`lanes_apart`; one arm's walk side by
/// side), so when there are fewer chunks than threads (a roster of matchups at 20,000 trials,
/// a search's few hundred trials), its chunks are cut into groups of lanes that the threads
/// share. Each lane's trials draw from that lane alone, and histograms add up whatever the
/// order, so the pieces gather what the chunk gathers.
fn pieces(lanes_apart: bool, chunks: u64, threads: usize) -> Vec<Range<usize>> {
    let n = match lanes_apart {
        false => 1,
        true => (threads as u64)
            .div_ceil(chunks.max(1))
            .min(stream::LANES as u64) as usize,
    };
    (0..n)
        .map(|k| k * stream::LANES / n..(k + 1) * stream::LANES / n)
        .collect()
}

/// What a batch of chunks gathered: whole chunks and paused ones merged as they come, pieces
/// of chunks kept apart until the chunk's other pieces are in.
struct Batch {
    gathered: Gathered,
    played: Vec<u64>,
    paused: Vec<Begun>,
    pieces: Vec<Piece>,
}

/// A piece of a chunk played: its chunk, lanes, how it ended and what it gathered.
type Piece = (u64, Range<usize>, worker::ChunkEnd, Gathered);

impl Batch {
    fn new(metrics: usize, pairs: usize) -> Batch {
        Batch {
            gathered: Gathered::empty(metrics, pairs),
            played: Vec::new(),
            paused: Vec::new(),
            pieces: Vec::new(),
        }
    }

    fn add(&mut self, chunk: u64, lanes: Range<usize>, end: worker::ChunkEnd, one: Gathered) {
        if lanes != (0..stream::LANES) {
            self.pieces.push((chunk, lanes, end, one));
            return;
        }
        match end {
            worker::ChunkEnd::Whole => self.played.push(chunk),
            worker::ChunkEnd::Paused(lanes) => self.paused.push(Begun {
                chunk,
                lanes: *lanes,
            }),
            _ => return,
        }
        self.gathered.merge(&one);
    }

    fn merge(mut self, other: Batch) -> Batch {
        self.gathered.merge(&other.gathered);
        self.played.extend(other.played);
        self.paused.extend(other.paused);
        self.pieces.extend(other.pieces);
        self
    }

    /// Puts each chunk's pieces together: dropped if any was stopped, whole if all of them
    /// were played whole, else begun, each lane where its piece left it (a piece not played,
    /// for a pause came first, leaves its lanes as they were given, as every piece reports
    /// them).
    fn assemble(mut self) -> (Gathered, Vec<u64>, Vec<Begun>) {
        self.pieces.sort_by_key(|p| (p.0, p.1.start));
        for same in self.pieces.chunk_by(|a, b| a.0 == b.0) {
            let mut lanes = None;
            let mut whole = same.iter().map(|p| p.1.len()).sum::<usize>() == stream::LANES;
            for (_, piece, end, _) in same {
                let at = match end {
                    worker::ChunkEnd::PieceWhole(at) => at,
                    worker::ChunkEnd::Paused(at) => {
                        whole = false;
                        at
                    }
                    _ => {
                        lanes = None;
                        break;
                    }
                };
                let lanes = lanes.get_or_insert(**at);
                lanes[piece.clone()].copy_from_slice(&at[piece.clone()]);
            }
            // A piece stopped: the chunk goes.
            let Some(lanes) = lanes else { continue };
            for (_, _, _, one) in same {
                self.gathered.merge(one);
            }
            let chunk = same[0].0;
            match whole {
                true => {
                    self.gathered.chunks += 1;
                    self.played.push(chunk);
                }
                false => self.paused.push(Begun { chunk, lanes }),
            }
        }
        (self.gathered, self.played, self.paused)
    }
}

pub(crate) fn chunk_len(trials: u64, chunk: u64) -> u64 {
    CHUNK_SIZE.min(trials - chunk * CHUNK_SIZE)
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
                        round: None,
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

    /// A die roll played in full every trial (no memo), which raises `stop` once it has
    /// played `stop_after` trials: a user's Ctrl-C in the middle of a chunk.
    struct Stopper<'a> {
        stop: &'a AtomicBool,
        stop_after: u64,
        played: AtomicU64,
    }

    impl Trial for Stopper<'_> {
        type Scratch = ();
        fn metrics(&self) -> &[MetricName] {
            &Dice.metrics()[..1]
        }
        fn arms(&self) -> usize {
            1
        }
        fn pairs(&self) -> &[(usize, usize)] {
            &[]
        }
        fn scratch(&self) {}
        fn play<'t, D: Draws<'t>>(&'t self, _: usize, _: &mut (), draws: &mut D, out: &mut [i64]) {
            if self.played.fetch_add(1, Ordering::Relaxed) + 1 == self.stop_after {
                self.stop.store(true, Ordering::Relaxed);
            }
            out[0] = draws.uniform(6) as i64 + 1;
        }
        fn memoise(&self) -> bool {
            false
        }
    }

    fn stopper(monitor: &Monitor, stop_after: u64) -> Stopper<'_> {
        Stopper {
            stop: &monitor.stop,
            stop_after,
            played: AtomicU64::new(0),
        }
    }

    #[test]
    fn a_stop_inside_a_chunk_keeps_only_whole_chunks() {
        let monitor = Monitor::default();
        // A run that would take hours: it must end soon after the stop, mid-chunk.
        let trial = stopper(&monitor, CHUNK_SIZE + CHUNK_SIZE / 2);
        let out = run(&trial, &spec(1 << 50, 2), &monitor).unwrap();
        assert!(!out.complete);
        let g = &out.gathered;
        assert_eq!(g.trials, g.chunks * CHUNK_SIZE, "whole chunks only");
        assert_eq!(g.metrics[0].total(), g.trials);
        assert_eq!(out.done.len(), g.chunks);
        // Each of the 2 threads stops within the chunk it is playing: fewer trials than
        // were played count, and the chunk that raised the stop is not among them.
        assert!(g.trials < trial.played.load(Ordering::Relaxed));
    }

    #[test]
    fn a_resumed_run_gathers_what_an_uninterrupted_one_does() {
        let trials = 20 * CHUNK_SIZE + 123;
        let whole = run(
            &stopper(&Monitor::default(), 0),
            &spec(trials, 2),
            &Monitor::default(),
        )
        .unwrap();
        let first = Monitor::default();
        let cut = run(
            &stopper(&first, 7 * CHUNK_SIZE + 5),
            &spec(trials, 2),
            &first,
        )
        .unwrap();
        assert!(!cut.complete && cut.gathered.chunks > 0 && cut.gathered.chunks < 21);
        let progress = Progress {
            gathered: cut.gathered,
            done: cut.done,
            begun: cut.begun,
        };
        let mut seen = Vec::new();
        let resumed = resume(
            &stopper(&Monitor::default(), 0),
            &spec(trials, 1),
            &Monitor::default(),
            progress,
            &mut |p| seen.push(p.done.len()),
        )
        .unwrap();
        assert!(resumed.complete);
        assert_eq!(resumed.gathered, whole.gathered);
        assert_eq!(resumed.done.first_missing(0..21), None);
        assert_eq!((resumed.done.len(), resumed.done.ranges().len()), (21, 1));
        assert!(seen.windows(2).all(|w| w[0] < w[1]) && seen.last() == Some(&21));
    }

    /// A trial of `arms` arms (each a die roll, arm a adding a), played in full or through
    /// the trees, that raises `pause` at each of its `pauses` (counted in trials played, every
    /// arm's): a checkpoint wanted inside a chunk.
    struct Pauser<'a> {
        pause: &'a AtomicBool,
        pauses: Vec<u64>,
        played: AtomicU64,
        arms: usize,
        memoise: bool,
    }

    impl Trial for Pauser<'_> {
        type Scratch = ();
        fn metrics(&self) -> &[MetricName] {
            &Dice.metrics()[..self.arms]
        }
        fn arms(&self) -> usize {
            self.arms
        }
        fn pairs(&self) -> &[(usize, usize)] {
            if self.arms == 2 {
                &[(0, 1)]
            } else {
                &[]
            }
        }
        fn scratch(&self) {}
        fn play<'t, D: Draws<'t>>(
            &'t self,
            arm: usize,
            _: &mut (),
            draws: &mut D,
            out: &mut [i64],
        ) {
            let n = self.played.fetch_add(1, Ordering::Relaxed) + 1;
            if self.pauses.contains(&n) {
                self.pause.store(true, Ordering::Relaxed);
            }
            // Two draws, the second only on a six: paths of different lengths.
            let first = draws.uniform(6) as i64 + 1;
            let extra = if first == 6 {
                draws.uniform(6) as i64
            } else {
                0
            };
            out[arm] = first + extra + arm as i64;
        }
        fn memoise(&self) -> bool {
            self.memoise
        }
    }

    #[test]
    fn a_chunk_paused_and_resumed_lane_by_lane_gathers_what_it_gathers_whole() {
        let trials = 2 * CHUNK_SIZE + 999;
        for (arms, memoise) in [(1, false), (1, true), (2, false), (2, true)] {
            let pauser = |pause, pauses| pauser(pause, pauses, arms, memoise);
            let quiet = Monitor::default();
            let whole = run(&pauser(&quiet.pause, Vec::new()), &spec(trials, 1), &quiet).unwrap();
            assert!(whole.complete && whole.begun.is_empty());
            // Pauses early in the first chunk (among lanes), in the middle and near its end.
            let monitor = Monitor::default();
            let trial = pauser(&monitor.pause, vec![1, 7, 20_001, 40_003, 65_000]);
            let (all, saved) = play_saving_pauses(&trial, &spec(trials, 1), &monitor);
            assert_eq!(
                all.gathered, whole.gathered,
                "{arms} arm(s), memo {memoise}"
            );
            // Remembered trials play in full only on paths not seen before (11 here): the
            // pauses after them land in the first segments.
            let least = if memoise { 1 } else { 3 };
            assert!(
                saved.len() >= least,
                "{arms} arm(s), memo {memoise}: {} pauses",
                saved.len()
            );
            for p in saved {
                let begun = p.begun[0].trials();
                assert!(begun > 0 && begun < CHUNK_SIZE);
                assert_eq!(
                    p.gathered.metrics[0].total(),
                    p.done.len() * CHUNK_SIZE + begun
                );
                // Resumed from each pause, on two threads: the same histograms.
                let fresh = pauser(&quiet.pause, Vec::new());
                let resumed = resume(
                    &fresh,
                    &spec(trials, 2),
                    &Monitor::default(),
                    p,
                    &mut |_| {},
                )
                .unwrap();
                assert!(resumed.complete && resumed.begun.is_empty());
                assert_eq!(
                    resumed.gathered, whole.gathered,
                    "{arms} arm(s), memo {memoise}"
                );
            }
        }
    }

    #[test]
    fn pieces_cover_a_chunks_lanes_once() {
        for (apart, chunks, threads, n) in [
            (false, 1, 8, 1),
            (true, 1, 1, 1),
            (true, 1, 2, 2),
            (true, 2, 3, 2),
            (true, 1, 3, 3),
            (true, 1, 40, stream::LANES),
            (true, 9, 2, 1),
        ] {
            let p = pieces(apart, chunks, threads);
            assert_eq!(p.len(), n, "{apart} {chunks} {threads}");
            let lanes: Vec<usize> = p.iter().flat_map(Range::clone).collect();
            assert_eq!(lanes, (0..stream::LANES).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_run_of_few_chunks_cut_into_pieces_gathers_what_one_thread_does() {
        for trials in [1_000, CHUNK_SIZE + 77] {
            let one = run(&Dice, &spec(trials, 1), &Monitor::default()).unwrap();
            let quiet = AtomicBool::new(false);
            let full = pauser(&quiet, Vec::new(), 2, false);
            let full_one = run(&full, &spec(trials, 1), &Monitor::default()).unwrap();
            for threads in [2, 3, 5, 40] {
                let cut = run(&Dice, &spec(trials, threads), &Monitor::default()).unwrap();
                assert_eq!(
                    cut.gathered, one.gathered,
                    "{trials} trials, {threads} threads"
                );
                assert_eq!(cut.done, one.done);
                let cut = run(&full, &spec(trials, threads), &Monitor::default()).unwrap();
                assert_eq!(
                    cut.gathered, full_one.gathered,
                    "{trials} trials, {threads}"
                );
            }
        }
    }

    #[test]
    fn a_chunk_paused_in_pieces_resumes_to_what_it_gathers_whole() {
        let trials = CHUNK_SIZE / 2 + 5;
        for memoise in [false, true] {
            let quiet = Monitor::default();
            let whole = run(
                &pauser(&quiet.pause, Vec::new(), 2, memoise),
                &spec(trials, 1),
                &quiet,
            )
            .unwrap();
            let monitor = Monitor::default();
            let trial = pauser(&monitor.pause, vec![3, 9_001, 30_000], 2, memoise);
            // Four threads: the chunk is played in four pieces of four lanes.
            let (all, saved) = play_saving_pauses(&trial, &spec(trials, 4), &monitor);
            assert_eq!(all.gathered, whole.gathered, "memo {memoise}");
            assert!(!saved.is_empty(), "memo {memoise}: no pause");
            for p in saved {
                let begun = p.begun[0].trials();
                assert!(begun > 0 && begun < trials);
                assert_eq!(p.gathered.metrics[0].total(), begun);
                for threads in [1, 3] {
                    let fresh = pauser(&quiet.pause, Vec::new(), 2, memoise);
                    let resumed = resume(
                        &fresh,
                        &spec(trials, threads),
                        &quiet,
                        p.clone(),
                        &mut |_| {},
                    )
                    .unwrap();
                    assert!(resumed.complete && resumed.begun.is_empty());
                    assert_eq!(
                        resumed.gathered, whole.gathered,
                        "memo {memoise}, {threads}"
                    );
                }
            }
        }
    }

    /// Plays `trial` to its end, keeping the progress at each pause that left a chunk begun.
    fn play_saving_pauses(
        trial: &Pauser<'_>,
        spec: &RunSpec,
        monitor: &Monitor,
    ) -> (Outcome, Vec<Progress>) {
        let mut saved = Vec::new();
        let all = resume(trial, spec, monitor, Progress::start(trial), &mut |p| {
            if !p.begun.is_empty() {
                saved.push(p.clone());
            }
        })
        .unwrap();
        (all, saved)
    }

    fn pauser(pause: &AtomicBool, pauses: Vec<u64>, arms: usize, memoise: bool) -> Pauser<'_> {
        Pauser {
            pause,
            pauses,
            played: AtomicU64::new(0),
            arms,
            memoise,
        }
    }

    #[test]
    fn chunk_sets_keep_ranges_merged_whatever_the_order() {
        let mut set = ChunkSet::default();
        // A fixed permutation of 0..40 minus {10, 25..28}: multiplication by 7 mod 41.
        for i in 1..=40u64 {
            let c = (i * 7) % 41 - 1;
            if c != 10 && !(25..28).contains(&c) {
                set.insert(c);
                set.insert(c);
            }
        }
        assert_eq!(set.ranges(), &[0..10, 11..25, 28..40]);
        assert_eq!(set.len(), 36);
        assert_eq!(set.first_missing(0..40), Some(10..11));
        assert_eq!(set.first_missing(11..40), Some(25..28));
        assert_eq!(set.first_missing(12..26), Some(25..26));
        assert_eq!(set.first_missing(28..40), None);
        assert_eq!(set.first_missing(30..45), Some(40..45));
        assert_eq!(ChunkSet::from_ranges(set.ranges().to_vec()), Ok(set));
        assert!(ChunkSet::from_ranges(vec![0..3, 3..5]).is_err());
        assert!(ChunkSet::from_ranges(vec![4..6, 0..2]).is_err());
        assert!(ChunkSet::from_ranges(vec![0..1, 2..2]).is_err());
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
