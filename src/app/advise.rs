//! `rollcall advise`: the best option of every `best` order by backward induction, written as
//! advice.csv, with the exact tables of optimal play; and [`advise_plans`], which gives the
//! compiled plans of a file the advice `rollcall run` then plays.

use super::*;
use crate::exact::Advice;
use crate::output::AdviceRow;
use std::time::Instant;

mod rollout;

/// Where `rollcall advise` writes by default, inside the scenario's results folder: apart from
/// a simulation's tables, which its exact tables of optimal play would otherwise replace.
pub const ADVICE_DIR: &str = "advice";

/// What `rollcall advise` did: where it wrote, and a few lines for people.
#[derive(Debug, Clone)]
pub struct Advised {
    pub dir: PathBuf,
    pub summary: Vec<String>,
}

/// One arm of one sweep point, advised.
struct Arm<'a> {
    params: &'a [String],
    choice: String,
    /// The sides' objectives.
    objective: Vec<String>,
    sides: Vec<String>,
    side_of: Vec<usize>,
    units: Vec<String>,
    advice: Advice,
}

/// Works out the advice of every arm of every sweep point of a file whose engagement has
/// `best` orders, and gives it to the plans; returns each arm's advice in order. A file without
/// `best` orders gets none (and an empty list).
fn advise_all<'a>(set: &'a ScenarioSet, compiled: &mut Compiled) -> Result<Vec<Arm<'a>>, Error> {
    let mut arms = Vec::new();
    let Some(points) = compiled.battle_arms_mut() else {
        return Ok(arms);
    };
    for (variant, plans) in set.variants.iter().zip(points) {
        let at = crate::exact::sweep_point(set, &variant.params);
        for plan in plans {
            let Game::Engagement(e) = &plan.scenario().game else {
                continue;
            };
            if !e.has_best() {
                continue;
            }
            let choice = e.choice.clone();
            let at = match choice.as_str() {
                "" => at.clone(),
                id => format!("{at}choice `{id}`, "),
            };
            let advice =
                crate::exact::advice(plan, e, &at).map_err(|source| refused(set, source))?;
            let arm = Arm {
                params: &variant.params,
                choice,
                objective: e.objective.clone(),
                sides: e.sides.clone(),
                side_of: e.side_of.clone(),
                units: plan.scenario().units.iter().map(|u| u.id.clone()).collect(),
                advice,
            };
            plan.set_policy(arm.advice.policy.clone());
            arms.push(arm);
        }
    }
    Ok(arms)
}

/// Gives the plans of a file with `best` orders their advice (what `rollcall run` plays);
/// a refusal is an error (exit 2), naming the order and the states visited.
pub fn advise_plans(set: &ScenarioSet, compiled: &mut Compiled) -> Result<(), Error> {
    advise_all(set, compiled).map(drop)
}

/// Whether some arm of some sweep point has an engagement with `best` orders.
fn has_best(compiled: &Compiled) -> bool {
    compiled.battle_arms().is_some_and(|points| {
        points
            .iter()
            .flat_map(|plans| plans.iter())
            .any(|plan| matches!(&plan.scenario().game, Game::Engagement(e) if e.has_best()))
    })
}

/// `rollcall advise`: advice.csv, plus summary.csv and distribution.csv of optimal play
/// (method `exact`) and run.json; by rollouts (`rollouts`, or the scenario's trials where the
/// exact engine refuses), advice.csv and run.json. Refuses (exit 2) a file with no `best`
/// order.
pub fn advise(opts: &FileOptions, rollouts: Option<u64>) -> Result<Advised, Error> {
    limit_states(opts.max_states)?;
    let (set, mut compiled) = prepare(&opts.file, &opts.settings)?;
    if !has_best(&compiled) {
        return Err(Error::Usage(format!(
            "{}: no `best` order to advise; give a unit in an [engagement] an order such as \
             {{ command = \"best\", among = [\"rally\", \"shoot\"], target = \"nearest\" }}",
            set.file
        )));
    }
    let start = Instant::now();
    if rollouts.is_some() {
        return by_rollouts(opts, &set, &compiled, rollouts, start, None);
    }
    match advise_all(&set, &mut compiled) {
        Ok(arms) => exactly(opts, &set, &compiled, &arms, start),
        Err(Error::Advice { source, .. }) => {
            // Plans some of which hold advice: rollouts play every `best` order by the base policy.
            let fresh = Compiled::compile(&set);
            let why = format!("the exact engine refuses: {source}");
            by_rollouts(opts, &set, &fresh, None, start, Some(why))
        }
        Err(e) => Err(e),
    }
}

/// Where advice goes: `--out`, or the scenario's advice folder.
fn advice_dir(opts: &FileOptions, set: &ScenarioSet) -> PathBuf {
    opts.out
        .clone()
        .unwrap_or_else(|| Path::new(RESULTS_DIR).join(&set.name).join(ADVICE_DIR))
}

/// The exact advice of `arms`, with the tables of optimal play.
fn exactly(
    opts: &FileOptions,
    set: &ScenarioSet,
    compiled: &Compiled,
    arms: &[Arm<'_>],
    start: Instant,
) -> Result<Advised, Error> {
    let report = exact_report(set, Some(compiled)).map_err(|source| refused(set, source))?;
    let wall = start.elapsed().as_secs_f64();
    let mut rows = Vec::new();
    for arm in arms {
        for d in &arm.advice.decisions {
            for o in &d.options {
                rows.push(AdviceRow {
                    params: arm.params.to_vec(),
                    choice: arm.choice.clone(),
                    round: d.round,
                    unit: arm.units[d.unit].clone(),
                    state: d.state.clone(),
                    option: o.command.name().to_string(),
                    value: o.value,
                    best: o.best,
                    method: output::EXACT,
                    trials: None,
                    ci95_low: o.value,
                    ci95_high: o.value,
                });
            }
        }
    }
    let meta = exact_meta(set, wall);
    let advice = output::tables::advice_csv(&set.name, &set.param_names, &rows);
    let dir = advice_dir(opts, set);
    let dir = write_files(&claim(&dir)?, &report, &meta, vec![("advice.csv", advice)])?;
    let states: usize = arms.iter().map(|a| a.advice.states).sum();
    let mut summary: Vec<String> = arms.iter().map(|a| first_decision(set, a)).collect();
    summary.push(format!(
        "{} decision state(s), {states} state(s) visited in {wall:.3} s",
        rows.iter().filter(|r| r.best).count()
    ));
    Ok(Advised { dir, summary })
}

/// Advice by rollouts: every `best` unit's first decision in every arm of every sweep point,
/// `rollouts` continuations per option (default: the point's trials). `why` says why the
/// exact engine was not used, when it refused.
fn by_rollouts(
    opts: &FileOptions,
    set: &ScenarioSet,
    compiled: &Compiled,
    rollouts: Option<u64>,
    start: Instant,
    why: Option<String>,
) -> Result<Advised, Error> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut rows = Vec::new();
    let mut summary: Vec<String> = why.into_iter().collect();
    let points = compiled.battle_arms().unwrap_or_default();
    let mut played = 0;
    for (variant, plans) in set.variants.iter().zip(points) {
        for plan in plans {
            let Game::Engagement(e) = &plan.scenario().game else {
                continue;
            };
            let n = rollouts.unwrap_or(plan.scenario().trials);
            played = played.max(n);
            let state = crate::exact::start_text(plan);
            let at = arm_label(set, variant.params.as_slice(), &e.choice);
            for scored in rollout::score(plan, n, threads)? {
                let unit = &plan.scenario().units[scored.unit].id;
                let objective = &e.objective[e.side_of[scored.unit]];
                rows.extend(rollout::rows(
                    &scored,
                    &variant.params,
                    &e.choice,
                    unit,
                    &state,
                ));
                summary.push(rollout::line(&scored, &at, unit, objective));
            }
        }
    }
    let wall = start.elapsed().as_secs_f64();
    let trials = output::TrialsPlayed {
        requested: played,
        played,
        chunk_size: crate::engine::CHUNK_SIZE,
        threads,
        shard: "0/1".into(),
        complete: true,
        played_in_full: None,
    };
    let meta = RunMeta::new(
        provenance(set, output::ROLLOUT),
        set.variants.len(),
        Some(trials),
        wall,
    );
    let mut json = serde_json::to_vec_pretty(&meta).expect("run.json serialises");
    json.push(b'\n');
    let advice = output::tables::advice_csv(&set.name, &set.param_names, &rows);
    let dir = advice_dir(opts, set);
    let claimed = claim(&dir)?;
    claimed
        .replace(&[("advice.csv", advice), ("run.json", json)])
        .map_err(|source| Error::Write {
            path: dir.clone(),
            source,
        })?;
    summary.push(format!(
        "{} option(s) scored by rollouts in {wall:.3} s",
        rows.len()
    ));
    Ok(Advised {
        dir: claimed.named().to_path_buf(),
        summary,
    })
}

/// "[k=v, choice c] " before a line on one arm (empty without a sweep or choices).
fn arm_label(set: &ScenarioSet, params: &[String], choice: &str) -> String {
    let mut at: Vec<String> = set
        .param_names
        .iter()
        .zip(params)
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if !choice.is_empty() {
        at.push(format!("choice {choice}"));
    }
    if at.is_empty() {
        String::new()
    } else {
        format!("[{}] ", at.join(", "))
    }
}

/// One line on an arm's first decision: each option's value, the best marked, and its gain
/// over the next best.
fn first_decision(set: &ScenarioSet, arm: &Arm<'_>) -> String {
    let at = arm_label(set, arm.params, &arm.choice);
    let Some(d) = arm.advice.decisions.first() else {
        let values: Vec<String> = arm
            .sides
            .iter()
            .zip(&arm.objective)
            .zip(&arm.advice.values)
            .map(|((side, o), v)| format!("{side}: {o} = {v:.4}"))
            .collect();
        return format!("{at}no `best` order is ever reached; {}", values.join(", "));
    };
    let objective = &arm.objective[arm.side_of[d.unit]];
    let options: Vec<String> = d
        .options
        .iter()
        .map(|o| {
            format!(
                "{} {:.4}{}",
                o.command.name(),
                o.value,
                if o.best { " (best)" } else { "" }
            )
        })
        .collect();
    let best = d.options.iter().find(|o| o.best);
    let next = d
        .options
        .iter()
        .filter(|o| !o.best)
        .max_by(|a, b| a.value.total_cmp(&b.value));
    let gain = match (best, next) {
        (Some(b), Some(n)) => format!(
            "; {} gains {:+.4} over {}",
            b.command.name(),
            b.value - n.value,
            n.command.name()
        ),
        _ => "; the only option that can be declared".into(),
    };
    format!(
        "{at}round {} {} ({objective}): {}{gain}",
        d.round,
        arm.units[d.unit],
        options.join(", ")
    )
}
