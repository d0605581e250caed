//! The balance search's schedule: from what each candidate has shown so far, which candidate
//! to play next and to how many trials, or the answer. It is a pure function of the
//! candidates' summaries, which are themselves the same for any thread count, so the search
//! takes the same steps however it is run, and a search resumed from a checkpoint takes the
//! steps the uninterrupted one would.
//!
//! The mean is assumed to move monotonically along the candidates. The two end candidates are
//! played first, to learn the direction; then the pair straddling the target is found by
//! bisection, each candidate played from [`FIRST_BATCH`] trials and its trials doubled while
//! its side of the target is undecided at 95% (up to the most allowed per candidate). Once two
//! candidates contradict the direction at 95%, every candidate is played the same way and the
//! answer is read from all of them.
//!
//! A candidate's side is read after each batch, so a plain 95% interval read at every look
//! would call a candidate sitting on the target decided far more often than 5% of the time.
//! [`Decider`] splits the 5% among the looks a candidate can have (Bonferroni), so the chance
//! that any look calls a candidate on the wrong side stays within 5%.

use crate::stats::Summary;
use statrs::distribution::{ContinuousCDF, Normal};

/// Trials a candidate is first played with: enough for an interval to place a candidate far
/// from the target, few enough that such candidates cost little, and small beside what the
/// candidates nearest the target need, so that the search costs a fraction of a sweep.
pub const FIRST_BATCH: u64 = 64;

/// A candidate's side of the target, at 95% confidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Below,
    Above,
    Undecided,
}

/// Reads candidates' sides of `target`, at 95% over all the looks a candidate can have.
#[derive(Debug, Clone, Copy)]
pub struct Decider {
    target: f64,
    /// Standard errors a mean must lie from the target to be decided.
    z: f64,
}

impl Decider {
    /// For a search whose candidates have at most `trials_max` trials each.
    pub fn new(target: f64, trials_max: u64) -> Decider {
        let tail = 0.025 / f64::from(looks(trials_max));
        let z = Normal::new(0.0, 1.0)
            .expect("the standard normal is valid")
            .inverse_cdf(1.0 - tail);
        Decider { target, z }
    }

    pub fn target(&self) -> f64 {
        self.target
    }

    pub fn side(&self, s: &Summary) -> Side {
        let half = self.z * s.std_error;
        if s.mean + half < self.target {
            Side::Below
        } else if s.mean - half > self.target {
            Side::Above
        } else {
            Side::Undecided
        }
    }
}

/// How many times a candidate's side can be read: after its first batch and after each
/// doubling, up to `trials_max`.
pub fn looks(trials_max: u64) -> u32 {
    let mut n = FIRST_BATCH.min(trials_max).max(1);
    let mut looks = 1;
    while n < trials_max {
        n = n.saturating_mul(2).min(trials_max);
        looks += 1;
    }
    looks
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Below => "below",
            Side::Above => "above",
            Side::Undecided => "undecided",
        }
    }
}

/// What the search does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Play candidate `candidate` until it has `to` trials.
    Play {
        candidate: usize,
        to: u64,
    },
    Done(Answer),
}

/// What the search found.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// Adjacent candidates (i, i + 1) whose means straddle the target, the first such pair;
    /// `None` when the played candidates never reach it.
    pub pair: Option<(usize, usize)>,
    /// The played candidate whose mean is nearest the target (the first of equals).
    pub closest: usize,
    /// Pairs of played candidates (i < j) that contradict monotonicity at 95%.
    pub violations: Vec<(usize, usize)>,
    /// Candidates the answer needed decided that stayed undecided at the most trials
    /// allowed.
    pub undecided_at_max: Vec<usize>,
}

/// The search's next step, from each candidate's summary (`None`: not played yet).
pub fn next(seen: &[Option<Summary>], target: f64, trials_max: u64) -> Next {
    let k = seen.len();
    let decider = Decider::new(target, trials_max);
    let side = |i: usize| seen[i].as_ref().map(|s| decider.side(s));
    let trials = |i: usize| seen[i].as_ref().map_or(0, |s| s.trials);
    // A candidate that may still learn its side: not played, or undecided below the most.
    let open = |i: usize| match side(i) {
        None => true,
        Some(Side::Undecided) => trials(i) < trials_max,
        Some(_) => false,
    };
    let grow = |i: usize| Next::Play {
        candidate: i,
        to: match trials(i) {
            0 => FIRST_BATCH.min(trials_max),
            n => n.saturating_mul(2).min(trials_max),
        },
    };
    let violations = violations(seen);
    let every: Vec<usize> = if violations.is_empty() {
        Vec::new()
    } else {
        (0..k).collect()
    };
    if let Some(&i) = every.iter().find(|&&i| open(i)) {
        return grow(i);
    }
    for i in [0, k - 1] {
        if open(i) {
            return grow(i);
        }
    }
    if violations.is_empty() {
        if let Some(i) = bisect(seen, &decider, &open) {
            return grow(i);
        }
    }
    Next::Done(answer(seen, &decider, trials_max, violations))
}

/// The candidate to play next between the last candidate on the first end's side and the
/// first after it on the other end's side, or `None` once they are adjacent, the ends are on
/// one side, or a candidate between them is undecided at the most trials.
fn bisect(
    seen: &[Option<Summary>],
    decider: &Decider,
    open: &dyn Fn(usize) -> bool,
) -> Option<usize> {
    let k = seen.len();
    let side = |i: usize| seen[i].as_ref().map(|s| decider.side(s));
    let (first, last) = (side(0)?, side(k - 1)?);
    if first == Side::Undecided || last == Side::Undecided || first == last {
        return None;
    }
    let a = (0..k).rev().find(|&i| side(i) == Some(first))?;
    let b = (a + 1..k).find(|&i| side(i) == Some(last))?;
    if b - a < 2 {
        return None;
    }
    // A candidate between them already started is finished first; one stuck undecided at
    // the most trials stops the search there.
    let between: Vec<usize> = (a + 1..b).filter(|&i| seen[i].is_some()).collect();
    if let Some(&i) = between.first() {
        return open(i).then_some(i);
    }
    Some(a + (b - a) / 2)
}

/// Played pairs i < j whose 95% intervals do not overlap, in the order opposite to the
/// direction the end candidates show (when their own intervals do not overlap).
pub fn violations(seen: &[Option<Summary>]) -> Vec<(usize, usize)> {
    let k = seen.len();
    let (Some(first), Some(last)) = (&seen[0], &seen[k - 1]) else {
        return Vec::new();
    };
    let rising = if first.ci95_high < last.ci95_low {
        true
    } else if first.ci95_low > last.ci95_high {
        false
    } else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for i in 0..k {
        for j in i + 1..k {
            let (Some(a), Some(b)) = (&seen[i], &seen[j]) else {
                continue;
            };
            let against = if rising {
                a.ci95_low > b.ci95_high
            } else {
                a.ci95_high < b.ci95_low
            };
            if against {
                found.push((i, j));
            }
        }
    }
    found
}

fn answer(
    seen: &[Option<Summary>],
    decider: &Decider,
    trials_max: u64,
    violations: Vec<(usize, usize)>,
) -> Answer {
    let target = decider.target();
    let played: Vec<(usize, &Summary)> = seen
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.as_ref().map(|s| (i, s)))
        .collect();
    let distance = |s: &Summary| (s.mean - target).abs();
    let closest = played
        .iter()
        .fold(None::<(usize, &Summary)>, |best, &(i, s)| match best {
            Some((_, b)) if distance(b) <= distance(s) => best,
            _ => Some((i, s)),
        })
        .map_or(0, |(i, _)| i);
    let straddles = |i: usize| match (&seen[i], &seen[i + 1]) {
        (Some(a), Some(b)) => (a.mean - target) * (b.mean - target) <= 0.0,
        _ => false,
    };
    let pair = (0..seen.len().saturating_sub(1))
        .find(|&i| straddles(i))
        .map(|i| (i, i + 1));
    let needed: Vec<usize> = match pair {
        Some((a, b)) => vec![a, b],
        None => vec![closest],
    };
    let undecided_at_max = needed
        .into_iter()
        .filter(|&i| {
            seen[i]
                .as_ref()
                .is_some_and(|s| decider.side(s) == Side::Undecided && s.trials >= trials_max)
        })
        .collect();
    Answer {
        pair,
        closest,
        violations,
        undecided_at_max,
    }
}

/// The value at which the line through two candidates' (value, mean) points meets the target,
/// with an interval from the lines through their interval ends; `None` when the means are
/// equal.
pub fn crossing(x: (f64, f64), a: &Summary, b: &Summary, target: f64) -> Option<[f64; 3]> {
    let at = |ma: f64, mb: f64| -> Option<f64> {
        (mb != ma).then(|| x.0 + (target - ma) * (x.1 - x.0) / (mb - ma))
    };
    let estimate = at(a.mean, b.mean)?;
    let (lo, hi) = (x.0.min(x.1), x.0.max(x.1));
    let ends = [at(a.ci95_low, b.ci95_low), at(a.ci95_high, b.ci95_high)];
    // An end whose line is flat, or meets the target outside the pair, is the pair's end:
    // both candidates are on opposite sides, so the crossing lies between them.
    let clamp = |v: Option<f64>, side: f64| v.map_or(side, |v| v.clamp(lo, hi));
    let (e0, e1) = (clamp(ends[0], lo), clamp(ends[1], hi));
    Some([estimate, e0.min(e1), e0.max(e1)])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A summary of `n` trials with mean `mean` and 95% half-width `half`.
    fn s(n: u64, mean: f64, half: f64) -> Option<Summary> {
        Some(Summary {
            trials: n,
            mean,
            variance: 0.0,
            std_dev: 0.0,
            std_error: half / 1.96,
            ci95_low: mean - half,
            ci95_high: mean + half,
            min: 0,
            max: 0,
        })
    }

    #[test]
    fn ends_first_then_bisection_then_the_pair() {
        let mut seen = vec![None; 9];
        assert_eq!(
            next(&seen, 2.0, 10_000),
            Next::Play {
                candidate: 0,
                to: FIRST_BATCH
            }
        );
        seen[0] = s(256, 0.0, 0.1);
        assert_eq!(
            next(&seen, 2.0, 10_000),
            Next::Play {
                candidate: 8,
                to: FIRST_BATCH
            }
        );
        seen[8] = s(256, 4.0, 0.1);
        // Between 0 and 8: 4.
        assert_eq!(
            next(&seen, 2.0, 10_000),
            Next::Play {
                candidate: 4,
                to: FIRST_BATCH
            }
        );
        // 4 undecided: doubled.
        seen[4] = s(256, 2.05, 0.1);
        assert_eq!(
            next(&seen, 2.0, 10_000),
            Next::Play {
                candidate: 4,
                to: 512
            }
        );
        seen[4] = s(512, 2.05, 0.03);
        assert_eq!(
            next(&seen, 2.0, 10_000),
            Next::Play {
                candidate: 2,
                to: FIRST_BATCH
            }
        );
        seen[2] = s(256, 1.0, 0.1);
        seen[3] = s(256, 1.5, 0.1);
        let Next::Done(answer) = next(&seen, 2.0, 10_000) else {
            panic!("the pair (3, 4) is decided")
        };
        assert_eq!(answer.pair, Some((3, 4)));
        assert_eq!(answer.closest, 4);
        assert!(answer.violations.is_empty() && answer.undecided_at_max.is_empty());
    }

    #[test]
    fn the_five_percent_is_shared_among_the_looks() {
        // 64, 128, ..., 8192 and then 10,000: nine looks.
        assert_eq!(
            (looks(64), looks(65), looks(128), looks(10_000)),
            (1, 2, 2, 9)
        );
        assert_eq!(looks(10), 1);
        // One look: the plain two-sided 95% point, 1.959964.
        let one = Decider::new(0.0, FIRST_BATCH);
        assert!((one.z - 1.959_964).abs() < 1e-6, "{}", one.z);
        // Nine looks: each at 5% / 9, two-sided, Φ⁻¹(1 - 0.05 / 18) = 2.773 (tables).
        let nine = Decider::new(0.0, 10_000);
        assert!((nine.z - 2.773).abs() < 2e-3, "{}", nine.z);
        // 2.5 standard errors from the target: decided on one look, not on nine.
        let at = s(100, 0.25, 0.1 * 1.96).unwrap();
        assert_eq!(
            (one.side(&at), nine.side(&at)),
            (Side::Above, Side::Undecided)
        );
    }

    #[test]
    fn the_most_trials_stop_a_candidate_that_stays_undecided() {
        let mut seen = vec![s(256, 0.0, 0.1), None, s(256, 4.0, 0.1)];
        seen[1] = s(1000, 2.0, 0.01);
        let Next::Done(answer) = next(&seen, 2.0, 1000) else {
            panic!("nothing left to play")
        };
        assert_eq!(answer.pair, Some((0, 1)));
        assert_eq!(answer.undecided_at_max, vec![1]);
        // Doubling stops at the most.
        seen[1] = s(600, 2.0, 0.01);
        assert_eq!(
            next(&seen, 2.0, 1000),
            Next::Play {
                candidate: 1,
                to: 1000
            }
        );
    }

    #[test]
    fn ends_on_one_side_answer_with_the_nearest() {
        let seen = vec![s(256, 0.0, 0.1), None, None, s(256, 1.0, 0.1)];
        let Next::Done(answer) = next(&seen, 2.0, 10_000) else {
            panic!("the target is beyond both ends")
        };
        assert_eq!((answer.pair, answer.closest), (None, 3));
    }

    #[test]
    fn a_contradiction_plays_every_candidate() {
        // Rising ends, but 1 is above 2 at 95%.
        let seen = vec![
            s(256, 0.0, 0.1),
            s(256, 3.0, 0.1),
            s(256, 1.0, 0.1),
            None,
            s(256, 4.0, 0.1),
        ];
        assert_eq!(violations(&seen), vec![(1, 2)]);
        assert_eq!(
            next(&seen, 2.0, 10_000),
            Next::Play {
                candidate: 3,
                to: FIRST_BATCH
            }
        );
    }

    #[test]
    fn the_crossing_of_a_straight_line_is_where_it_meets_the_target() {
        // Means 1 at x = 2 and 3 at x = 4: the line y = x - 1 meets 2.5 at 3.5.
        let [c, lo, hi] = crossing(
            (2.0, 4.0),
            &s(100, 1.0, 0.5).unwrap(),
            &s(100, 3.0, 0.5).unwrap(),
            2.5,
        )
        .unwrap();
        assert!((c - 3.5).abs() < 1e-12);
        // Lines y = x - 1.5 and y = x - 0.5 meet 2.5 at 4 and 3.
        assert!((lo - 3.0).abs() < 1e-12 && (hi - 4.0).abs() < 1e-12);
    }
}
