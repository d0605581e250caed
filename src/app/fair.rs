//! The fair points of a roster's profiles (`fair_points` in ratings.csv): for each profile, the
//! balance search of `rollcall balance` ([`search::next`]) over its model count, 1 to
//! [`MOST_TIMES`] times its models at the budget, with the rest of the field at the budget.
//! A count is a candidate whose metric is the profile's score against the field (won 1, draw
//! 1/2, over every other profile and both seats), played by trial ranges on common random
//! numbers: each count's trial t draws what every other count's trial t draws.
//!
//! The search is a function of the file, seed and trials alone, so it gives the same answer
//! for any thread count; shard I of N searches every N-th profile from the I-th, and `merge`
//! takes each profile's answer from the part whose shard searched it.

use super::balance::{candidate, search, Candidate};
use super::*;
use crate::engine::{MetricName, Pool};
use crate::output::roster::{fair_points, field_score, matchup_id, Fair, Outcome, Roster};
use crate::scenario::Focus;
use crate::stats::Summary;
use rayon::prelude::*;
use search::Next;
use std::cell::OnceCell;
use std::time::Instant;

/// The score sought: even with the field.
const EVEN: f64 = 0.5;
/// Model counts searched: 1 to this many times the models at the budget (at least 2).
pub const MOST_TIMES: u64 = 2;

/// What the searches need from the run.
pub(super) struct FairRun<'a> {
    pub file: &'a Path,
    /// The run's `--set`, `--seed` and `--trials`, as the file was loaded with.
    pub settings: &'a [Setting],
    pub set: &'a ScenarioSet,
    pub threads: usize,
    pub shard: Shard,
    pub quiet: bool,
}

/// The profiles shard `shard` searches: every `count`-th from its index, so each profile is
/// searched by one shard and the shards share the work.
fn searched_by(shard: Shard, profiles: usize) -> Vec<usize> {
    (0..profiles)
        .filter(|&i| i as u64 % shard.count == shard.index)
        .collect()
}

/// Searches the fair points of the profiles this run (or shard) owns into `roster`; `false`
/// when Ctrl-C stopped it first (the profiles not finished are left without an answer).
pub(super) fn fill(
    run: &FairRun<'_>,
    roster: &mut Roster,
    log: &mut dyn FnMut(Note<'_>),
) -> Result<bool, Error> {
    let owned = searched_by(run.shard, roster.profiles.len());
    let trials_max = run.set.trials();
    let most: Vec<u64> = owned.iter().map(|&i| most(&roster.profiles[i])).collect();
    let total = most.iter().map(|&m| m.saturating_mul(trials_max)).sum();
    let pool = Pool::new(run.threads)?;
    let monitor = Monitor::default();
    let label = format!("{} fair points", run.set.name);
    let start = Instant::now();
    // The profiles' searches are independent, each a function of the file alone: they run
    // side by side (a search of fewer trials than a chunk plays on one thread) and are told
    // in profile order.
    let roster_now: &Roster = roster;
    let found = crate::progress::watch(&monitor, total, 0, &label, run.quiet, &INTERRUPT, || {
        let each: Vec<Result<Option<Fair>, Error>> = pool.install(|| {
            owned
                .par_iter()
                .map(|&i| one(run, roster_now, i, &pool, &monitor))
                .collect()
        });
        let mut found = Vec::new();
        for (&i, fair) in owned.iter().zip(each) {
            match fair? {
                Some(fair) => found.push((i, fair)),
                None => return Ok(None),
            }
        }
        Ok::<_, Error>(Some(found))
    })?;
    let Some(found) = found else {
        log(Note::Warning(&format!(
            "{}: the search for fair points was interrupted: every trial of the matchups was played, and the fair_points column is left empty until the run is resumed (the search starts again)",
            run.set.name
        )));
        return Ok(false);
    };
    let seconds = start.elapsed().as_secs_f64();
    tell_cost(run, &found, seconds, log);
    for (i, fair) in found {
        tell(run, roster, i, &fair, log);
        roster.profiles[i].fair = Some(fair);
    }
    Ok(true)
}

/// Says on stderr what the searches cost: their trials, against a sweep of every model count
/// they could play at the run's trials.
fn tell_cost(
    run: &FairRun<'_>,
    found: &[(usize, Fair)],
    seconds: f64,
    log: &mut dyn FnMut(Note<'_>),
) {
    if found.is_empty() {
        return;
    }
    let trials_max = run.set.trials();
    let played: u64 = found.iter().map(|(_, f)| f.trials).sum();
    let sweep: u64 = found
        .iter()
        .map(|(_, f)| f.most.saturating_mul(trials_max))
        .sum();
    log(Note::Info(&format!(
        "{}: fair points of {} searched in {seconds:.2} s: {} trials ({} of a sweep of every model count at {} trials)",
        run.set.name,
        crate::format::plural(found.len() as u64, "profile"),
        crate::format::thousands(played),
        crate::format::percent_one_decimal(played as f64 / sweep.max(1) as f64),
        crate::format::thousands(trials_max)
    )));
}

/// The most models a profile's search plays: [`MOST_TIMES`] its models at the budget, at
/// least 2.
fn most(p: &crate::output::roster::Profile) -> u64 {
    p.models.saturating_mul(MOST_TIMES).max(2)
}

/// The most model counts, up to `wanted`, that the file loads with: more models may not fit
/// (a formation off the battlefield), and a count that does not fit means every larger one
/// does not. `models`, the count at the budget, is known to load (the run played it).
fn fitting(models: usize, wanted: usize, loads: impl Fn(usize) -> bool) -> usize {
    if loads(wanted - 1) {
        return wanted;
    }
    // Counts (indices) up to `fits` load, from `fails` on they do not.
    let (mut fits, mut fails) = (models.max(1) - 1, wanted - 1);
    while fails - fits > 1 {
        let mid = fits + (fails - fits) / 2;
        if loads(mid) {
            fits = mid;
        } else {
            fails = mid;
        }
    }
    fits + 1
}

/// One model count of a profile, loaded and compiled as `run` would load the file.
struct Count {
    compiled: Compiled,
}

/// Profile `i`'s search; `None` when stopped first.
fn one(
    run: &FairRun<'_>,
    roster: &Roster,
    i: usize,
    pool: &Pool,
    monitor: &Monitor,
) -> Result<Option<Fair>, Error> {
    let wanted = most(&roster.profiles[i]) as usize;
    let counts: Vec<OnceCell<Count>> = (0..wanted).map(|_| OnceCell::new()).collect();
    let count = |k: usize| -> Result<&Count, Error> {
        if let Some(c) = counts[k].get() {
            return Ok(c);
        }
        let c = load(run, i, k as u64 + 1)?;
        Ok(counts[k].get_or_init(|| c))
    };
    let most = fitting(roster.profiles[i].models as usize, wanted, |k| {
        count(k).is_ok()
    });
    let players: Vec<OnceCell<Box<dyn Candidate + '_>>> =
        (0..most).map(|_| OnceCell::new()).collect();
    let player = |k: usize| -> Result<&Box<dyn Candidate + '_>, Error> {
        if players[k].get().is_none() {
            let _ = players[k].set(candidate(&count(k)?.compiled, run.set.seed(), pool));
        }
        Ok(players[k].get().expect("just set"))
    };
    let trials_max = run.set.trials();
    let mut gathered: Vec<Option<Gathered>> = vec![None; most];
    let mut seen: Vec<Option<Summary>> = vec![None; most];
    let answer = loop {
        let (k, to) = match search::next(&seen, EVEN, trials_max) {
            Next::Done(answer) => break answer,
            Next::Play { candidate, to } => (candidate, to),
        };
        let player = player(k)?;
        let from = gathered[k].as_ref().map_or(0, |g| g.trials);
        let Some(more) = player.play(from..to, monitor) else {
            return Ok(None);
        };
        let g = match &mut gathered[k] {
            Some(g) => {
                g.merge(&more);
                g
            }
            none => none.insert(more),
        };
        seen[k] = score(roster, i, player.metrics(), g);
    };
    let decider = search::Decider::new(EVEN, trials_max);
    Ok(Some(fair_of(&answer, &seen, &gathered, &decider)))
}

/// What a finished search found, from its answer and each count's score and trials.
fn fair_of(
    answer: &search::Answer,
    seen: &[Option<Summary>],
    gathered: &[Option<Gathered>],
    decider: &search::Decider,
) -> Fair {
    let summary = |k: usize| seen[k].as_ref().expect("the answer names played counts");
    let crossing = match answer.pair {
        Some((a, b)) => {
            let x = (a as f64 + 1.0, b as f64 + 1.0);
            search::crossing(x, summary(a), summary(b), EVEN)
        }
        None => undecided_crossing(seen, answer.closest, decider),
    };
    Fair {
        most: seen.len() as u64,
        crossing,
        closest: answer.closest as u64 + 1,
        closest_score: summary(answer.closest).mean,
        decided: answer.undecided_at_max.is_empty() && answer.violations.is_empty(),
        trials: gathered.iter().flatten().map(|g| g.trials).sum(),
        counts: gathered.iter().flatten().count() as u64,
    }
}

/// Where the search stopped at a count it could not tell from 1/2 at the most trials, before
/// playing both of its neighbours: that count, between the nearest counts played on either
/// side that were decided below and above 1/2 (the ends of the search when none was).
fn undecided_crossing(
    seen: &[Option<Summary>],
    closest: usize,
    decider: &search::Decider,
) -> Option<[f64; 3]> {
    let side = |k: usize| seen[k].as_ref().map(|s| decider.side(s));
    if side(closest) != Some(search::Side::Undecided) {
        return None;
    }
    let below = (0..closest)
        .rev()
        .find(|&k| side(k) == Some(search::Side::Below));
    let above = (closest + 1..seen.len()).find(|&k| side(k) == Some(search::Side::Above));
    let at = |k: usize| k as f64 + 1.0;
    Some([
        at(closest),
        below.map_or(1.0, at),
        above.map_or(seen.len() as f64, at),
    ])
}

/// The file with profile `i` at `models` models against the rest of the field, compiled (with
/// the advice its `best` orders play, as `run` works it out).
fn load(run: &FairRun<'_>, i: usize, models: u64) -> Result<Count, Error> {
    let focus = Focus { profile: i, models };
    let set = scenario::load_focused(run.file, run.settings, focus)?;
    if set.hash != run.set.hash {
        return Err(Error::Usage(format!(
            "{}: the file changed during the run; its fair points were not searched: run it again",
            run.set.file
        )));
    }
    let mut compiled = Compiled::compile(&set);
    advise_plans(&set, &mut compiled)?;
    Ok(Count { compiled })
}

/// Profile `i`'s score against the field, from what one of its model counts gathered, as a
/// summary for the search: the mean over its matchups in both seats, with the interval
/// ratings.csv gives a score.
fn score(roster: &Roster, i: usize, names: &[MetricName], g: &Gathered) -> Option<Summary> {
    let outcome = |a: &str, b: &str| -> Option<Outcome> {
        let choice = matchup_id(a, b);
        let ones = |metric: &str| {
            let k = names
                .iter()
                .position(|m| m.choice == choice && m.name == metric)?;
            let h = &g.metrics[k];
            Some(
                h.iter()
                    .filter(|&(v, _)| v == 1)
                    .map(|(_, c)| c)
                    .sum::<u64>(),
            )
        };
        Some(Outcome {
            trials: g.trials,
            first_won: ones(&roster.first_won)?,
            second_won: ones(&roster.second_won)?,
        })
    };
    let me = &roster.profiles[i].id;
    let mut scores = Vec::new();
    for other in roster.profiles.iter().filter(|p| &p.id != me) {
        let (first, second) = (outcome(me, &other.id)?, outcome(&other.id, me)?);
        let (m1, e1) = first.score(false);
        let (m2, e2) = second.score(true);
        scores.extend([(m1, e1, g.trials), (m2, e2, g.trials)]);
    }
    let (mean, error, half) = field_score(&scores);
    Some(Summary {
        trials: g.trials,
        mean,
        variance: error * error * g.trials as f64,
        std_dev: error * (g.trials as f64).sqrt(),
        std_error: error,
        ci95_low: mean - half,
        ci95_high: mean + half,
        min: 0,
        max: 1,
    })
}

/// Says on stderr what profile `i`'s search found, and warns when `fair_points` is empty or
/// rests on counts the search could not decide.
fn tell(run: &FairRun<'_>, roster: &Roster, i: usize, fair: &Fair, log: &mut dyn FnMut(Note<'_>)) {
    let (name, p) = (&run.set.name, &roster.profiles[i]);
    let capped = if fair.most < most(p) {
        format!("; {} models do not fit the file", fair.most + 1)
    } else {
        String::new()
    };
    let cost = format!(
        "{} of the model counts 1 to {} played{capped}, {} trials of {} matchups each",
        fair.counts,
        fair.most,
        crate::format::thousands(fair.trials),
        2 * (roster.profiles.len() - 1)
    );
    let closest = format!(
        "nearest: {} models, score {}",
        fair.closest,
        crate::format::plain_number(fair.closest_score)
    );
    match (fair.crossing, fair_points(roster.budget, fair)) {
        (Some([_, low, high]), Some(points)) => log(Note::Info(&format!(
            "{name}: fair points of {}: {} a model (95%: {} to {}; {} now), {cost}",
            p.id,
            crate::format::two_decimals(points),
            crate::format::two_decimals(roster.budget as f64 / high),
            crate::format::two_decimals(roster.budget as f64 / low),
            p.points
        ))),
        _ => {
            let beyond = if fair.closest_score > EVEN {
                format!(
                    "scores above 1/2 even at 1 model: worth more than the budget, {}, a model",
                    roster.budget
                )
            } else {
                format!(
                    "scores below 1/2 even at {} models: worth less than {} a model",
                    fair.most,
                    crate::format::two_decimals(roster.budget as f64 / fair.most as f64)
                )
            };
            log(Note::Warning(&format!(
                "{name}: profile {} {beyond} ({closest}); its fair_points is left empty ({cost})",
                p.id
            )))
        }
    }
    if !fair.decided {
        log(Note::Warning(&format!(
            "{name}: the fair points of {} are not certain at 95%: a model count stayed undecided against 1/2 at {} trials, or the score did not rise steadily with the models ({closest}); raise --trials",
            p.id,
            run.set.trials()
        )));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_profile_is_searched_by_one_shard() {
        let whole = searched_by(Shard::WHOLE, 5);
        assert_eq!(whole, vec![0, 1, 2, 3, 4]);
        let mut all: Vec<usize> = (0..3)
            .flat_map(|index| searched_by(Shard { index, count: 3 }, 5))
            .collect();
        all.sort();
        assert_eq!(all, whole);
        assert_eq!(searched_by(Shard { index: 1, count: 3 }, 5), vec![1, 4]);
        assert!(searched_by(Shard { index: 6, count: 7 }, 5).is_empty());
    }

    /// A summary of `n` trials with mean `mean` and 95% half-width `half`.
    fn s(mean: f64, half: f64) -> Option<Summary> {
        Some(Summary {
            trials: 256,
            mean,
            variance: 0.0,
            std_dev: 0.0,
            std_error: half / 1.96,
            ci95_low: mean - half,
            ci95_high: mean + half,
            min: 0,
            max: 1,
        })
    }

    #[test]
    fn a_count_undecided_at_the_most_trials_is_the_crossing_between_decided_neighbours() {
        // Counts 1, 3, 5, 8 played: 1 and 3 below 1/2, 5 undecided, 8 above (one look each,
        // so a side is a plain 95% interval's).
        let one_look = search::Decider::new(EVEN, search::FIRST_BATCH);
        let mut seen = vec![None; 8];
        seen[0] = s(0.1, 0.05);
        seen[2] = s(0.3, 0.05);
        seen[4] = s(0.499, 0.01);
        seen[7] = s(0.9, 0.05);
        assert_eq!(
            undecided_crossing(&seen, 4, &one_look),
            Some([5.0, 3.0, 8.0])
        );
        // A decided nearest count is no crossing; nothing decided beside one: the ends.
        assert_eq!(undecided_crossing(&seen, 2, &one_look), None);
        let alone = vec![None, s(0.5, 0.1), None];
        assert_eq!(
            undecided_crossing(&alone, 1, &one_look),
            Some([2.0, 1.0, 3.0])
        );
    }

    #[test]
    fn the_most_counts_that_load_are_found_by_bisection() {
        // Indices below 23 load (24 models and more do not fit).
        let loads = |k: usize| k < 23;
        assert_eq!(fitting(20, 40, loads), 23);
        assert_eq!(fitting(20, 23, loads), 23);
        assert_eq!(fitting(20, 21, loads), 21);
        assert_eq!(fitting(1, 2, |k| k < 1), 1);
        assert_eq!(fitting(3, 6, |k| k < 3), 3);
    }
}
