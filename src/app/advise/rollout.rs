//! Advice by rollouts: where the exact engine refuses (or `--rollouts N` asks), each unit with
//! `best` orders has every option of its first decision scored by N simulated continuations on
//! common random numbers, later `best` orders playing the base policy (the first option that
//! can be declared). The values are means with 95% intervals; the best option is compared
//! with the runner-up by the paired interval of their difference.

use crate::engine::{self, Monitor, RunSpec, Shard};
use crate::output::AdviceRow;
use crate::rules::engagement::rollout::Rollouts;
use crate::rules::Plan;
use crate::scenario::{Command, Engagement, Game, Given};
use crate::stats::{t_critical_95, Summary};

/// 95% two-sided normal quantile, for the rollouts a difference needs (a planning figure,
/// where Student's t of an unknown count has no place).
const Z95: f64 = crate::stats::Z_975;

/// One option scored: its command and the summary of its continuations' objective.
pub(super) struct Scored {
    pub command: Command,
    pub value: Summary,
    pub best: bool,
}

/// One unit's first decision scored by rollouts.
pub(super) struct UnitRollouts {
    pub unit: usize,
    pub options: Vec<Scored>,
    /// Best minus runner-up, trial by trial (`None` with a single option).
    pub difference: Option<Summary>,
}

impl UnitRollouts {
    /// Whether the best option beats the runner-up at 95%: the paired interval of their
    /// difference lies above 0.
    pub fn settled(&self) -> Option<bool> {
        self.difference.as_ref().map(|d| d.ci95_low > 0.0)
    }

    /// About how many rollouts would settle it at the difference and paired variance seen:
    /// the fewest n, more than were played, whose 95% interval (Student's t, as the tables
    /// give it) is narrower than the difference; `None` when no difference was seen.
    pub fn needed(&self) -> Option<u64> {
        let d = self.difference.as_ref()?;
        if d.mean <= 0.0 {
            return None;
        }
        let wide = |n: u64| t_critical_95(n - 1) * d.std_dev / (n as f64).sqrt() >= d.mean;
        // The normal approximation first, then up by sixteenths until Student's t agrees.
        let mut n = ((Z95 * d.std_dev / d.mean).powi(2).ceil() as u64).max(d.trials + 1);
        while wide(n) {
            n += n.div_ceil(16);
        }
        Some(n)
    }
}

/// The options scored at `unit`'s first decision: those of its first `best` order.
fn first_options(e: &Engagement, unit: usize) -> Option<Vec<Command>> {
    e.orders[unit].iter().find_map(|o| match &o.order {
        Given::Best(options) => Some(options.iter().map(|o| o.command()).collect()),
        Given::Order(_) => None,
    })
}

/// Scores every `best` unit of an engagement plan (played without advice) by `rollouts`
/// continuations per option from `seed` on `threads` workers.
pub(super) fn score(
    plan: &Plan,
    rollouts: u64,
    threads: usize,
) -> Result<Vec<UnitRollouts>, super::Error> {
    let Game::Engagement(e) = &plan.scenario().game else {
        return Ok(Vec::new());
    };
    let names = e.metric_names(&plan.scenario().units);
    let spec = RunSpec {
        trials: rollouts,
        seed: plan.scenario().seed,
        threads,
        shard: Shard::WHOLE,
        precision: None,
    };
    let mut scored = Vec::new();
    for unit in 0..e.orders.len() {
        let Some(options) = first_options(e, unit) else {
            continue;
        };
        let objective = &e.objective[e.side_of[unit]];
        let Some(slot) = names.iter().position(|n| n == objective) else {
            return Err(super::Error::Usage(format!(
                "{}: rollouts score `{objective}`, which is not a metric a trial of the \
                 engagement writes",
                plan.scenario().name
            )));
        };
        let Some(trial) = Rollouts::new(plan, unit, options.clone(), slot) else {
            continue;
        };
        let outcome = engine::run(&trial, &spec, &Monitor::default())?;
        scored.push(summarise(unit, &options, &outcome.gathered));
    }
    Ok(scored)
}

/// Each option's summary, the best (highest mean, ties to the first) marked, and the paired
/// difference of the best and the runner-up.
fn summarise(unit: usize, options: &[Command], gathered: &engine::Gathered) -> UnitRollouts {
    let values: Vec<Summary> = gathered
        .metrics
        .iter()
        .map(|h| Summary::from_histogram(h).expect("at least one rollout"))
        .collect();
    let rank = |skip: Option<usize>| {
        (0..values.len())
            .filter(|&k| Some(k) != skip)
            .fold(None, |top: Option<usize>, k| match top {
                Some(t) if values[t].mean >= values[k].mean => Some(t),
                _ => Some(k),
            })
    };
    let best = rank(None).unwrap_or(0);
    let difference = rank(Some(best)).map(|runner| {
        let n = options.len();
        let (a, b) = (best.min(runner), best.max(runner));
        // Pairs are listed (0,1), (0,2), ..., (1,2), ...: pair (a, b) is at this index.
        let pair = a * n - a * (a + 1) / 2 + (b - a - 1);
        let mut h = gathered.differences[pair].clone();
        if best > runner {
            h = negated(&h);
        }
        Summary::from_histogram(&h).expect("at least one rollout")
    });
    UnitRollouts {
        unit,
        options: options
            .iter()
            .zip(values)
            .enumerate()
            .map(|(k, (&command, value))| Scored {
                command,
                value,
                best: k == best,
            })
            .collect(),
        difference,
    }
}

/// The histogram of -x.
fn negated(h: &crate::stats::Histogram) -> crate::stats::Histogram {
    let mut out = crate::stats::Histogram::new();
    for (v, c) in h.iter() {
        out.add_count(-v, c);
    }
    out
}

/// advice.csv's rows for a unit's rollouts: round 1 and the state the file describes.
pub(super) fn rows(
    scored: &UnitRollouts,
    params: &[String],
    choice: &str,
    unit: &str,
    state: &str,
) -> Vec<AdviceRow> {
    scored
        .options
        .iter()
        .map(|o| AdviceRow {
            params: params.to_vec(),
            choice: choice.to_string(),
            round: 1,
            unit: unit.to_string(),
            state: state.to_string(),
            option: o.command.name().to_string(),
            value: o.value.mean,
            best: o.best,
            method: crate::output::ROLLOUT,
            trials: Some(o.value.trials),
            ci95_low: o.value.ci95_low,
            ci95_high: o.value.ci95_high,
        })
        .collect()
}

/// A line for people on a unit's rollouts: each option's value with its interval, and
/// whether the best beats the runner-up at 95% or how many rollouts would tell.
pub(super) fn line(scored: &UnitRollouts, at: &str, unit: &str, objective: &str) -> String {
    let options: Vec<String> = scored
        .options
        .iter()
        .map(|o| {
            format!(
                "{} {:.4} [{:.4}, {:.4}]{}",
                o.command.name(),
                o.value.mean,
                o.value.ci95_low,
                o.value.ci95_high,
                if o.best { " (best)" } else { "" }
            )
        })
        .collect();
    let trials = scored.options.first().map_or(0, |o| o.value.trials);
    let verdict = match (&scored.difference, scored.settled()) {
        (Some(d), Some(true)) => format!(
            "; {} beats the runner-up at 95% (paired difference {:+.4} [{:+.4}, {:+.4}])",
            best_name(scored),
            d.mean,
            d.ci95_low,
            d.ci95_high
        ),
        (Some(d), _) => format!(
            "; not settled at 95%: the paired difference of the best and the runner-up is \
             {:+.4} [{:+.4}, {:+.4}]; {}",
            d.mean,
            d.ci95_low,
            d.ci95_high,
            match scored.needed() {
                Some(n) => format!(
                    "about {} rollouts would settle it",
                    crate::format::thousands(n)
                ),
                None => "no count of rollouts settles a difference of 0".into(),
            }
        ),
        _ => "; the only option".into(),
    };
    format!(
        "{at}first decision of {unit} ({objective}, {} rollouts): {}{verdict}",
        crate::format::thousands(trials),
        options.join(", ")
    )
}

fn best_name(scored: &UnitRollouts) -> &'static str {
    scored
        .options
        .iter()
        .find(|o| o.best)
        .map_or("", |o| o.command.name())
}
