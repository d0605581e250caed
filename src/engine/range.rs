//! Playing a range of trial numbers instead of whole chunks: what a search plays when it adds
//! trials a few hundred at a time to the candidates it is unsure of.
//!
//! Trials are numbered as a run numbers them (trial t is trial t mod [`CHUNK_SIZE`] of chunk
//! t / [`CHUNK_SIZE`]) and played as the arms of a joined trial are, even a trial of one
//! arm: trial t's arms replay the stream seeded from trial t's one word of its chunk's lanes.
//! So trial t gives the same result whatever range it is played in, and every trial that
//! plays trial t draws the same numbers, as the points of a sweep do: playing trials 0..n of
//! one candidate and n..2n later gathers exactly what playing 0..2n at once gathers, and a
//! candidate played alone gathers what the same point of a sweep gathers.

use super::{EngineError, Gathered, Monitor, Trial, Workers, CHUNK_SIZE};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::Ordering;

/// Worker threads that several [`Ranges`] share.
pub struct Pool {
    pool: rayon::ThreadPool,
    threads: usize,
}

impl Pool {
    pub fn new(threads: usize) -> Result<Pool, EngineError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .map_err(|e| EngineError::Threads {
                threads,
                problem: e.to_string(),
            })?;
        Ok(Pool { pool, threads })
    }

    /// Runs `work` on the pool's threads, so that its parallel iterators (and the ranges it
    /// plays) share them.
    pub fn install<R: Send>(&self, work: impl FnOnce() -> R + Send) -> R {
        self.pool.install(work)
    }
}

/// One trial's player of trial ranges, keeping its workers (with what their trees have
/// learnt) from one range to the next.
pub struct Ranges<'t, T: Trial> {
    trial: &'t T,
    seed: u64,
    pool: &'t Pool,
    workers: Workers<'t, T>,
}

impl<'t, T: Trial> Ranges<'t, T> {
    pub fn new(trial: &'t T, seed: u64, pool: &'t Pool) -> Ranges<'t, T> {
        Ranges {
            trial,
            seed,
            pool,
            workers: Workers::new(pool.threads),
        }
    }

    /// Plays trials `trials`, in parallel by chunk; `None` when `monitor.stop` was raised
    /// before they were all played (a part of a range is never kept).
    pub fn play(&self, trials: Range<u64>, monitor: &Monitor) -> Option<Gathered> {
        let parts = parts(trials);
        // Parts are played as trials of several arms are, lane after lane: they can be cut.
        let split = super::pieces(true, parts.len() as u64, self.pool.threads);
        let parts: Vec<_> = (parts.into_iter())
            .flat_map(|(chunk, part)| split.iter().map(move |l| (chunk, part.clone(), l.clone())))
            .collect();
        let (metrics, pairs) = (self.trial.metrics().len(), self.trial.pairs().len());
        let (gathered, whole) = self.pool.pool.install(|| {
            parts
                .into_par_iter()
                .fold(
                    || {
                        let worker = self.workers.take(self.trial);
                        (worker, Gathered::empty(metrics, pairs), true)
                    },
                    |(mut worker, mut acc, whole), (chunk, part, lanes)| {
                        let before = acc.trials;
                        let played = whole
                            && worker.play_part(
                                self.trial,
                                self.seed,
                                chunk,
                                part,
                                lanes,
                                &mut acc,
                                &monitor.stop,
                            );
                        if played {
                            let n = acc.trials - before;
                            monitor.trials_done.fetch_add(n, Ordering::Relaxed);
                            let full = worker.take_played();
                            monitor.played_in_full.fetch_add(full, Ordering::Relaxed);
                        }
                        (worker, acc, played)
                    },
                )
                .map(|(worker, acc, whole)| {
                    if whole {
                        self.workers.keep(worker);
                    }
                    (acc, whole)
                })
                .reduce(
                    || (Gathered::empty(metrics, pairs), true),
                    |(mut a, wa), (b, wb)| {
                        a.merge(&b);
                        (a, wa && wb)
                    },
                )
        });
        whole.then_some(gathered)
    }
}

/// `trials` cut at chunk boundaries: (chunk, trials of that chunk, numbered within it).
fn parts(trials: Range<u64>) -> Vec<(u64, Range<u64>)> {
    let mut parts = Vec::new();
    let mut t = trials.start;
    while t < trials.end {
        let chunk = t / CHUNK_SIZE;
        let end = trials.end.min((chunk + 1) * CHUNK_SIZE);
        parts.push((chunk, t - chunk * CHUNK_SIZE..end - chunk * CHUNK_SIZE));
        t = end;
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{run, MetricName, RunSpec, Shard};
    use crate::engine::{Draws, Joined, Pairing};

    /// Two dice, the second only in arm 1: a trial of two arms whose first arm is also a
    /// trial of its own.
    struct Die {
        arm: usize,
        names: Vec<MetricName>,
    }

    impl Die {
        fn new(arm: usize) -> Die {
            let names = vec![MetricName {
                arm: 0,
                choice: String::new(),
                name: format!("roll{arm}"),
                round: None,
            }];
            Die { arm, names }
        }
    }

    impl Trial for Die {
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
        fn play<'t, D: Draws<'t>>(&'t self, _: usize, _: &mut (), d: &mut D, out: &mut [i64]) {
            let first = d.uniform(6) as i64;
            out[0] = if self.arm == 1 {
                first + d.uniform(6) as i64
            } else {
                first
            };
        }
    }

    fn spec(trials: u64, threads: usize) -> RunSpec {
        RunSpec {
            trials,
            seed: 11,
            threads,
            shard: Shard::WHOLE,
            precision: None,
        }
    }

    #[test]
    fn ranges_cut_anywhere_gather_what_the_joined_run_gathers() {
        let trials = CHUNK_SIZE + 1000;
        let joined = Joined::new(vec![Die::new(0), Die::new(1)], Pairing::AgainstFirst);
        let whole = run(&joined, &spec(trials, 2), &Monitor::default())
            .unwrap()
            .gathered;
        for arm in 0..2 {
            let alone = Joined::new(vec![Die::new(arm)], Pairing::AgainstFirst);
            for threads in [1, 2] {
                let pool = Pool::new(threads).unwrap();
                let ranges = Ranges::new(&alone, 11, &pool);
                let mut got = Gathered::empty(1, 0);
                // Cuts inside a lane's block, at odd places and across the chunk's end.
                for cut in [0..37, 37..300, 300..CHUNK_SIZE - 5, CHUNK_SIZE - 5..trials] {
                    got.merge(&ranges.play(cut, &Monitor::default()).unwrap());
                }
                assert_eq!(got.metrics[0], whole.metrics[arm], "arm {arm}");
                assert_eq!(got.trials, trials);
            }
        }
    }

    #[test]
    fn a_stopped_range_gives_nothing() {
        let alone = Joined::new(vec![Die::new(0)], Pairing::AgainstFirst);
        let monitor = Monitor::default();
        monitor.stop.store(true, Ordering::Relaxed);
        let pool = Pool::new(2).unwrap();
        let ranges = Ranges::new(&alone, 11, &pool);
        assert!(ranges.play(0..1000, &monitor).is_none());
    }

    #[test]
    fn parts_cut_at_chunk_boundaries() {
        let c = CHUNK_SIZE;
        assert_eq!(parts(5..9), vec![(0, 5..9)]);
        assert_eq!(
            parts(c - 2..2 * c + 3),
            vec![(0, c - 2..c), (1, 0..c), (2, 0..3)]
        );
        assert!(parts(7..7).is_empty());
    }
}
