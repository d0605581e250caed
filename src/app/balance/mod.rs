//! `rollcall balance`: the search of `[balance]` for the candidate value at which a metric's
//! mean meets its target, playing only the candidates and trials the answer needs.
//!
//! Each candidate is compiled on its own and played by trial ranges ([`engine::Ranges`]):
//! trial t of every candidate draws the same numbers (common random numbers, as the points of
//! a sweep), and a candidate grown from 256 to 512 trials holds exactly what 512 trials played
//! at once hold. Which candidate to play next, and to how many trials, is decided by
//! [`search::next`] from the summaries alone, so the answer is the same for any thread count
//! and across a checkpoint.

mod checkpoint;
pub mod search;

use super::*;
use crate::engine::{MetricName, Pool, Ranges};
use crate::output::balance::{balance_csv, BalanceAnswer, BalanceRow, Crossing};
use crate::scenario::Balance;
use crate::stats::Summary;
use search::{Answer, Decider, Next, Side};
use std::ops::Range;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// `rollcall balance` options, already typed.
#[derive(Debug, Clone)]
pub struct BalanceOptions {
    pub file: PathBuf,
    /// The most trials any one candidate is played with (default: the scenario's trials).
    pub trials_max: Option<u64>,
    pub seed: Option<u64>,
    pub threads: usize,
    pub out: Option<PathBuf>,
    pub settings: Vec<Setting>,
    pub quiet: bool,
    pub checkpoint: Option<Duration>,
    pub resume: Option<PathBuf>,
    pub report: bool,
}

/// What a search gave: how it ended, what to print on stdout, and where it wrote.
#[derive(Debug, Clone)]
pub struct Balanced {
    pub status: Status,
    pub lines: Vec<String>,
    pub dir: PathBuf,
    pub answer: Option<BalanceAnswer>,
}

/// One candidate, compiled, with what it has gathered.
pub(super) trait Candidate: Sync {
    fn metrics(&self) -> &[MetricName];
    /// Plays trials `trials`; `None` when stopped first.
    fn play(&self, trials: Range<u64>, monitor: &Monitor) -> Option<Gathered>;
    /// The candidate's tables' layout of what it gathered (one sweep point).
    fn report(&self, set: &ScenarioSet, gathered: Gathered) -> VariantReport;
    /// What `report` laid out, back as gathered histograms; `None` when it does not fit.
    fn gathered(&self, set: &ScenarioSet, report: &VariantReport) -> Option<Gathered>;
}

struct Played<'c, T: Trial> {
    joined: &'c Joined<T>,
    ranges: Ranges<'c, Joined<T>>,
}

impl<T: Trial> Candidate for Played<'_, T> {
    fn metrics(&self) -> &[MetricName] {
        self.joined.metrics()
    }
    fn play(&self, trials: Range<u64>, monitor: &Monitor) -> Option<Gathered> {
        self.ranges.play(trials, monitor)
    }
    fn report(&self, set: &ScenarioSet, gathered: Gathered) -> VariantReport {
        variant_reports(set, self.joined, gathered).remove(0)
    }
    fn gathered(&self, set: &ScenarioSet, report: &VariantReport) -> Option<Gathered> {
        gathered_of(set, self.joined, std::slice::from_ref(report))
    }
}

pub(super) fn candidate<'c>(
    compiled: &'c Compiled,
    seed: u64,
    pool: &'c Pool,
) -> Box<dyn Candidate + 'c> {
    fn boxed<'c, T: Trial>(j: &'c Joined<T>, seed: u64, pool: &'c Pool) -> Box<dyn Candidate + 'c> {
        Box::new(Played {
            joined: j,
            ranges: Ranges::new(j, seed, pool),
        })
    }
    match compiled {
        Compiled::Battle(j) => boxed(j.as_ref(), seed, pool),
        Compiled::Designs(j) => boxed(j.as_ref(), seed, pool),
        Compiled::Cards(j) => boxed(j.as_ref(), seed, pool),
    }
}

/// The index of `[balance] metric` among a candidate's metrics: the name the tables print.
fn metric_index(set: &ScenarioSet, b: &Balance, metrics: &[MetricName]) -> Result<usize, Error> {
    let found: Vec<usize> = (0..metrics.len())
        .filter(|&i| metrics[i].name == b.metric && metrics[i].round.is_none())
        .collect();
    let invalid = |problem: String| {
        Error::Scenario(crate::config::ConfigError::Invalid {
            file: set.file.clone(),
            key: "balance.metric".into(),
            problem,
            place: None,
        })
    };
    match found[..] {
        [i] => Ok(i),
        [] => {
            let names: Vec<&str> = metrics.iter().map(|m| m.name.as_str()).collect();
            Err(invalid(crate::config::suggest::unknown_id(
                "metric", &b.metric, &names,
            )))
        }
        _ => {
            let choices: Vec<&str> = found.iter().map(|&i| metrics[i].choice.as_str()).collect();
            Err(invalid(format!(
                "{} is reported by each choice ({}); a balance search follows one metric: keep one choice in the file",
                crate::config::suggest::quoted(&b.metric),
                choices.join(", ")
            )))
        }
    }
}

/// Checks `[balance] metric` against the metrics a loaded file's first candidate reports (for
/// `rollcall check`).
pub(super) fn check_metric(set: &ScenarioSet, compiled: &Compiled) -> Result<(), Error> {
    let Some(b) = &set.balance else {
        return Ok(());
    };
    let metrics = match compiled {
        Compiled::Battle(j) => &j.metrics()[j.metrics_of(0)],
        Compiled::Designs(j) => &j.metrics()[j.metrics_of(0)],
        Compiled::Cards(j) => &j.metrics()[j.metrics_of(0)],
    };
    metric_index(set, b, metrics).map(drop)
}

/// The file with candidate `k` alone, as `run` would load a file without the others.
fn candidate_set(set: &ScenarioSet, k: usize) -> ScenarioSet {
    ScenarioSet {
        name: set.name.clone(),
        file: set.file.clone(),
        param_names: set.param_names.clone(),
        variants: vec![set.variants[k].clone()],
        hash: set.hash,
        balance: set.balance.clone(),
        roster: None,
    }
}

/// `rollcall balance FILE`.
pub fn balance(opts: &BalanceOptions, log: &mut dyn FnMut(Note<'_>)) -> Result<Balanced, Error> {
    if let (Some(dir), Some(out)) = (&opts.resume, &opts.out) {
        if dir != out {
            return Err(Error::Usage(format!(
                "--resume {} writes the resumed search into that folder; leave out --out or give the same folder",
                dir.display()
            )));
        }
    }
    let mut settings = opts.settings.clone();
    if let Some(s) = opts.seed {
        settings.push(Setting {
            path: vec!["scenario".into(), "seed".into()],
            value: toml::Value::Integer(s.min(i64::MAX as u64) as i64),
        });
    }
    let (set, compiled) = prepare(&opts.file, &settings)?;
    let Some(b) = set.balance.clone() else {
        return Err(Error::Usage(format!(
            "{}: no [balance] section; add one with vary, over, metric and target (docs/balance.md)",
            set.file
        )));
    };
    check_metric(&set, &compiled)?;
    let sets: Vec<ScenarioSet> = (0..set.variants.len())
        .map(|k| candidate_set(&set, k))
        .collect();
    let mut compiled: Vec<Compiled> = sets.iter().map(Compiled::compile).collect();
    for (s, c) in sets.iter().zip(&mut compiled) {
        advise_plans(s, c)?;
    }
    let pool = Pool::new(opts.threads)?;
    let candidates: Vec<Box<dyn Candidate + '_>> = compiled
        .iter()
        .map(|c| candidate(c, set.seed(), &pool))
        .collect();
    let metric = metric_index(&set, &b, candidates[0].metrics())?;
    let search = Search {
        set: &set,
        sets: &sets,
        balance: &b,
        metric,
        trials_max: opts.trials_max.unwrap_or_else(|| set.trials()),
        candidates,
    };
    let dir = match (&opts.resume, &opts.out) {
        (Some(dir), _) | (None, Some(dir)) => dir.clone(),
        (None, None) => Path::new(RESULTS_DIR).join(&set.name).join("balance"),
    };
    search.run(opts, &dir, log)
}

/// A search over one file's candidates.
struct Search<'s> {
    set: &'s ScenarioSet,
    /// One file per candidate.
    sets: &'s [ScenarioSet],
    balance: &'s Balance,
    metric: usize,
    trials_max: u64,
    candidates: Vec<Box<dyn Candidate + 's>>,
}

impl Search<'_> {
    fn summaries(&self, gathered: &[Option<Gathered>]) -> Vec<Option<Summary>> {
        gathered
            .iter()
            .map(|g| {
                g.as_ref()
                    .and_then(|g| Summary::from_histogram(&g.metrics[self.metric]))
            })
            .collect()
    }

    fn run(
        &self,
        opts: &BalanceOptions,
        dir: &Path,
        log: &mut dyn FnMut(Note<'_>),
    ) -> Result<Balanced, Error> {
        let claim = claim(dir)?;
        let checkpoint_path = claim.dir().join(output::CHECKPOINT_FILE);
        let (mut gathered, earlier_wall) = match &opts.resume {
            Some(_) => checkpoint::read(&checkpoint_path, self)?,
            None => (vec![None; self.candidates.len()], 0.0),
        };
        let monitor = Monitor::default();
        let start = Instant::now();
        let total = self.trials_max.saturating_mul(self.candidates.len() as u64);
        let resumed: u64 = gathered.iter().flatten().map(|g| g.trials).sum();
        let mut saved = Instant::now();
        let mut failed = None;
        let answer = crate::progress::watch(
            &monitor,
            total,
            resumed,
            &self.set.name,
            opts.quiet,
            &INTERRUPT,
            || loop {
                let next = search::next(
                    &self.summaries(&gathered),
                    self.balance.target,
                    self.trials_max,
                );
                let (k, to) = match next {
                    Next::Done(answer) => return Some(answer),
                    Next::Play { candidate, to } => (candidate, to),
                };
                let from = gathered[k].as_ref().map_or(0, |g| g.trials);
                let more = self.candidates[k].play(from..to, &monitor)?;
                match &mut gathered[k] {
                    Some(g) => g.merge(&more),
                    none => *none = Some(more),
                }
                if opts
                    .checkpoint
                    .is_some_and(|every| saved.elapsed() >= every)
                {
                    let wall = earlier_wall + start.elapsed().as_secs_f64();
                    let bytes = checkpoint::bytes(self, &gathered, wall);
                    let written = std::fs::create_dir_all(claim.dir())
                        .and_then(|()| output::write_atomic(&checkpoint_path, &bytes));
                    if let Err(e) = written {
                        failed = Some(e);
                        return None;
                    }
                    saved = Instant::now();
                }
            },
        );
        if let Some(e) = failed {
            return Err(Error::Write {
                path: checkpoint_path,
                source: e,
            });
        }
        let wall = earlier_wall + start.elapsed().as_secs_f64();
        let in_full = monitor.played_in_full.load(Ordering::Relaxed);
        self.write(opts, &claim, &gathered, answer, (wall, in_full), log)
    }

    /// Writes the tables of the candidates played, balance.csv and run.json (an interrupted
    /// search also its checkpoint), and says what was found.
    fn write(
        &self,
        opts: &BalanceOptions,
        claim: &output::Claim,
        gathered: &[Option<Gathered>],
        answer: Option<Answer>,
        (wall, in_full): (f64, u64),
        log: &mut dyn FnMut(Note<'_>),
    ) -> Result<Balanced, Error> {
        let seen = self.summaries(gathered);
        let played: u64 = gathered.iter().flatten().map(|g| g.trials).sum();
        let variants = gathered
            .iter()
            .enumerate()
            .filter_map(|(k, g)| {
                let g = g.clone()?;
                Some(self.candidates[k].report(&self.sets[k], g))
            })
            .collect();
        let report = Report {
            scenario: self.set.name.clone(),
            param_names: self.set.param_names.clone(),
            variants,
            both_enumerate: false,
            roster: None,
        };
        let complete = answer.is_some();
        let trials = TrialsPlayed {
            requested: self.trials_max,
            played,
            chunk_size: CHUNK_SIZE,
            threads: opts.threads,
            shard: "0/1".into(),
            complete,
            played_in_full: Some(in_full),
        };
        let made = provenance(self.set, output::MONTE_CARLO);
        let mut meta = RunMeta::new(made, report.variants.len(), Some(trials), wall);
        let mut extra = Vec::new();
        let mut lines = Vec::new();
        match &answer {
            Some(answer) => {
                let told = self.tell(answer, &seen, played);
                lines = told.lines;
                for w in &told.warnings {
                    log(Note::Warning(w));
                }
                meta.balance = Some(told.answer);
            }
            None => {
                extra.push((
                    output::CHECKPOINT_FILE,
                    checkpoint::bytes(self, gathered, wall),
                ));
            }
        }
        let violations = answer.as_ref().map_or(&[][..], |a| &a.violations[..]);
        let rows = self.rows(&seen, answer.as_ref().map(|a| a.closest), violations);
        extra.push((
            "balance.csv",
            balance_csv(&self.set.name, &self.balance.vary, &rows),
        ));
        let dir = write_tables(claim, &report, &meta, extra)?;
        let played_candidates = report.variants.len();
        self.tell_written(opts, &dir, (played_candidates, played, wall, complete), log)?;
        Ok(Balanced {
            status: Status::from_complete(complete),
            lines,
            dir,
            answer: meta.balance,
        })
    }

    /// Says on stderr what was played and where it was written (an interrupted search, how
    /// to resume it), and writes the report when asked.
    fn tell_written(
        &self,
        opts: &BalanceOptions,
        dir: &Path,
        (candidates, played, wall, complete): (usize, u64, f64, bool),
        log: &mut dyn FnMut(Note<'_>),
    ) -> Result<(), Error> {
        let line = format!(
            "{}: balance of {} candidates, {candidates} played, {played} trials in {wall:.2} s{} -> {}",
            self.set.name,
            self.candidates.len(),
            if complete { "" } else { ", interrupted" },
            dir.display()
        );
        if !complete {
            log(Note::Warning(&format!(
                "{line}; resume with: rollcall balance {} --resume {} (and the same --seed, --trials-max and --set)",
                self.set.file,
                dir.display()
            )));
            return Ok(());
        }
        log(Note::Info(&line));
        if opts.report {
            let paths = crate::report::write(dir, None)?;
            log(Note::Info(&format!(
                "{}: report -> {}",
                self.set.name,
                paths[0].display()
            )));
        }
        Ok(())
    }

    fn rows(
        &self,
        seen: &[Option<Summary>],
        closest: Option<usize>,
        violations: &[(usize, usize)],
    ) -> Vec<BalanceRow> {
        let values = &self.balance.values;
        seen.iter()
            .enumerate()
            .filter_map(|(k, s)| {
                let s = s.as_ref()?;
                let contradicts = violations
                    .iter()
                    .filter_map(|&(i, j)| match (i == k, j == k) {
                        (true, _) => Some(values[j].clone()),
                        (_, true) => Some(values[i].clone()),
                        _ => None,
                    })
                    .collect();
                Some(BalanceRow {
                    value: values[k].clone(),
                    trials: s.trials,
                    mean: s.mean,
                    ci95_low: s.ci95_low,
                    ci95_high: s.ci95_high,
                    relative: Decider::new(self.balance.target, self.trials_max)
                        .side(s)
                        .name(),
                    closest: closest == Some(k),
                    contradicts,
                })
            })
            .collect()
    }

    /// The answer for run.json, the lines for stdout and the warnings for stderr.
    fn tell(&self, answer: &Answer, seen: &[Option<Summary>], played: u64) -> Told {
        let b = self.balance;
        let values = &b.values;
        let summary = |k: usize| {
            seen[k]
                .as_ref()
                .expect("the answer names played candidates")
        };
        let shown = |k: usize| {
            let s = summary(k);
            format!(
                "{} = {}: mean {} {} (95%: {} to {}, {} trials)",
                b.vary,
                values[k],
                b.metric,
                crate::format::plain_number(s.mean),
                crate::format::plain_number(s.ci95_low),
                crate::format::plain_number(s.ci95_high),
                s.trials
            )
        };
        let crossing = self.crossing(answer, seen);
        let mut lines = Vec::new();
        let target = crate::format::plain_number(b.target);
        match answer.pair {
            Some((i, j)) => {
                lines.push(format!(
                    "{}: {} reaches {target} between {} = {} and {}",
                    self.set.name, b.metric, b.vary, values[i], values[j]
                ));
                lines.push(format!("  {}", shown(i)));
                lines.push(format!("  {}", shown(j)));
            }
            None if Decider::new(b.target, self.trials_max).side(summary(answer.closest))
                == Side::Undecided =>
            {
                lines.push(format!(
                    "{}: {} cannot be told from {target} at 95% at {}",
                    self.set.name,
                    b.metric,
                    shown(answer.closest)
                ))
            }
            None => lines.push(format!(
                "{}: {} does not reach {target} over the candidates played; nearest: {}",
                self.set.name,
                b.metric,
                shown(answer.closest)
            )),
        }
        if let Some(c) = &crossing {
            lines.push(format!(
                "  crossing: {} = {} (95%: {} to {})",
                b.vary,
                crate::format::two_decimals(c.estimate),
                crate::format::two_decimals(c.ci95_low),
                crate::format::two_decimals(c.ci95_high)
            ));
        }
        lines.push(format!("  closest: {}", shown(answer.closest)));
        let warnings = self.warnings(answer);
        let answer = BalanceAnswer {
            vary: b.vary.clone(),
            metric: b.metric.clone(),
            target: b.target,
            pair: answer
                .pair
                .map(|(i, j)| [values[i].clone(), values[j].clone()]),
            closest: values[answer.closest].clone(),
            crossing,
            decided: answer.undecided_at_max.is_empty(),
            violations: answer
                .violations
                .iter()
                .map(|&(i, j)| [values[i].clone(), values[j].clone()])
                .collect(),
            trials_played: played,
        };
        Told {
            answer,
            lines,
            warnings,
        }
    }
}

impl Search<'_> {
    /// For numeric candidates, where the line through the pair's means meets the target.
    fn crossing(&self, answer: &Answer, seen: &[Option<Summary>]) -> Option<Crossing> {
        let ((i, j), x) = (answer.pair?, self.balance.numbers.as_ref()?);
        let (a, b) = (seen[i].as_ref()?, seen[j].as_ref()?);
        let [estimate, ci95_low, ci95_high] =
            search::crossing((x[i], x[j]), a, b, self.balance.target)?;
        Some(Crossing {
            estimate,
            ci95_low,
            ci95_high,
        })
    }

    /// What makes the answer less than it claims: monotonicity violations and candidates
    /// left undecided by `--trials-max`.
    fn warnings(&self, answer: &Answer) -> Vec<String> {
        let b = self.balance;
        let values = &b.values;
        let target = crate::format::plain_number(b.target);
        let mut warnings = Vec::new();
        for &(i, j) in &answer.violations {
            warnings.push(format!(
                "{}: {} is not monotonic at 95%: {} = {} and {} contradict the order of the end candidates; every candidate was played, read balance.csv",
                self.set.name, b.metric, b.vary, values[i], values[j]
            ));
        }
        for &k in &answer.undecided_at_max {
            warnings.push(format!(
                "{}: {} = {} is still undecided against {target} at --trials-max {} trials; the answer is not certain at 95% (raise --trials-max)",
                self.set.name, b.vary, values[k], self.trials_max
            ));
        }
        warnings
    }
}

struct Told {
    answer: BalanceAnswer,
    lines: Vec<String>,
    warnings: Vec<String>,
}
