//! The chunked parallel runner. It plays a [`Trial`] many times and gathers each metric in an
//! integer histogram; it knows nothing of the rules.
//!
//! Trials are cut into fixed-size chunks; chunk i draws from
//! [`stream::Lanes::new`]`(seed, i)` and rayon spreads chunks over the workers. Histograms
//! merge exactly, so the result depends only on which chunks were played, never on how they
//! were spread: that is what makes the output files byte-identical for any thread count and
//! for shards merged back.

mod arms;
#[cfg(target_arch = "x86_64")]
mod cpu;
pub mod draws;
pub mod joined;
pub mod stream;
pub mod tree;
mod worker;

pub use draws::{Draw, Draws, Plain};
pub use joined::{Joined, PairOf, Pairing};

use crate::stats::{Histogram, Summary};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use worker::Worker;

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
