//! rounds.csv: every round's records of a shoot-out against a Markov chain over model counts
//! worked out here, round by round (the exact engine to 1e-9, the simulation within 5 standard
//! errors); an early end carried forward; round 0 as the scenario sets it up; the file the
//! same for any thread count and for shards merged.

use crate::common;

use common::shootout::shootout;
use common::{binomial_pmf, gather, ok, plan};
use rollcall::engine::{self, Joined, Monitor, Pairing, RunSpec, Shard, Trial};
use rollcall::output::ExactReport;
use rollcall::rules::Plan;
use rollcall::scenario;
use std::collections::BTreeMap;
use std::path::Path;

const TOLERANCE: f64 = 1e-9;

/// Blue alive, red alive, over: a shoot-out where it stands at the end of a round.
type Standing = (u32, u32, bool);

/// Per round 0..=rounds, the law of where the shoot-out stands at the round's end, by the
/// chain: a round begins while both sides have models; blue goes first with chance
/// `blue_first`; each volley kills min(Binomial(its models, p), enemy models), and a side
/// left without models ends it there. An ended shoot-out stands where it ended; after the last
/// round every shoot-out has ended.
fn laws(
    b0: u32,
    r0: u32,
    pb: f64,
    pr: f64,
    rounds: u32,
    blue_first: f64,
) -> Vec<BTreeMap<Standing, f64>> {
    let mut laws = vec![BTreeMap::from([((b0, r0, false), 1.0)])];
    for round in 1..=rounds {
        let mut next: BTreeMap<Standing, f64> = BTreeMap::new();
        for (&(b, r, over), &p) in &laws[round as usize - 1] {
            if over {
                *next.entry((b, r, true)).or_default() += p;
                continue;
            }
            for (blue_leads, q) in [(true, blue_first), (false, 1.0 - blue_first)] {
                let mut states = vec![((b, r), p * q)];
                for turn in 0..2 {
                    let blue_shoots = (turn == 0) == blue_leads;
                    let mut after = Vec::new();
                    for ((b, r), p) in states {
                        let (shooters, chance) = if blue_shoots { (b, pb) } else { (r, pr) };
                        for (k, q) in binomial_pmf(shooters, chance) {
                            let k = k as u32;
                            let hit = if blue_shoots {
                                (b, r.saturating_sub(k))
                            } else {
                                (b.saturating_sub(k), r)
                            };
                            after.push((hit, p * q));
                        }
                    }
                    states = Vec::new();
                    for ((b, r), p) in after {
                        if b == 0 || r == 0 {
                            *next.entry((b, r, true)).or_default() += p;
                        } else {
                            states.push(((b, r), p));
                        }
                    }
                }
                for ((b, r), p) in states {
                    *next.entry((b, r, round == rounds)).or_default() += p;
                }
            }
        }
        laws.push(next);
    }
    laws
}

/// A record's value where the shoot-out stands.
fn reading(metric: &str, (b, r, over): Standing) -> f64 {
    let value = match metric {
        "blue.alive" => b,
        "red.alive" => r,
        "blue.won" => u32::from(b > 0 && r == 0),
        "red.won" => u32::from(r > 0 && b == 0),
        "engagement.over" => u32::from(over),
        _ => panic!("no record {metric}"),
    };
    f64::from(value)
}

const RECORDS: [&str; 5] = [
    "blue.alive",
    "red.alive",
    "blue.won",
    "red.won",
    "engagement.over",
];

/// The mean and variance of a record at the end of a round, by the chain.
fn moments(law: &BTreeMap<Standing, f64>, metric: &str) -> (f64, f64) {
    let mean: f64 = law.iter().map(|(&s, &p)| p * reading(metric, s)).sum();
    let square: f64 = law
        .iter()
        .map(|(&s, &p)| p * reading(metric, s).powi(2))
        .sum();
    (mean, square - mean * mean)
}

fn exact_of(text: &str) -> ExactReport {
    let set = scenario::parse(text, "test.toml", &[]).expect("test scenario is valid");
    rollcall::exact::report(&set, &[]).expect("the exact engine applies")
}

/// The exact mean of `metric` at the end of `round`.
fn exact_mean(report: &ExactReport, round: u32, metric: &str) -> f64 {
    let m = report.variants[0]
        .metrics
        .iter()
        .find(|m| m.round == Some(round) && m.metric == metric)
        .unwrap_or_else(|| panic!("no record {metric} of round {round}"));
    m.pmf.iter().map(|&(v, p)| v as f64 * p).sum()
}

#[test]
fn exact_rounds_are_the_chain_round_by_round() {
    // Blue 3 models hitting on 4+, red 2 hitting on 3+, 4 rounds; blue first, red first, a coin.
    for (first, blue_first) in [("blue", 1.0), ("red", 0.0), ("random", 0.5)] {
        let report = exact_of(&shootout(3, 2, "d6>=4", "d6>=3", first, 4));
        let laws = laws(3, 2, 0.5, 2.0 / 3.0, 4, blue_first);
        let records = report.variants[0]
            .metrics
            .iter()
            .filter(|m| m.round.is_some());
        assert_eq!(
            records.count(),
            5 * RECORDS.len(),
            "rounds 0 to 4, five records each"
        );
        for (round, law) in laws.iter().enumerate() {
            let total: f64 = law.values().sum();
            assert!((total - 1.0).abs() < 1e-12, "the chain loses mass: {total}");
            for metric in RECORDS {
                let got = exact_mean(&report, round as u32, metric);
                let (want, _) = moments(law, metric);
                assert!(
                    (got - want).abs() <= TOLERANCE,
                    "first {first}, round {round}, {metric}: exact {got}, chain {want}"
                );
            }
        }
    }
}

#[test]
fn round_zero_is_the_start_and_the_last_round_is_the_end() {
    let text = shootout(3, 2, "d6>=4", "d6>=3", "blue", 4);
    let report = exact_of(&text);
    for (metric, start) in [("blue.alive", 3.0), ("red.alive", 2.0), ("blue.won", 0.0)] {
        assert_eq!(exact_mean(&report, 0, metric), start, "{metric}");
    }
    assert_eq!(exact_mean(&report, 0, "engagement.over"), 0.0);
    assert_eq!(exact_mean(&report, 4, "engagement.over"), 1.0);
    // The last round's records are the end's metrics.
    for metric in ["blue.alive", "red.alive", "blue.won", "red.won"] {
        let end = report.variants[0]
            .metrics
            .iter()
            .find(|m| m.round.is_none() && m.metric == metric)
            .expect("the end's metric");
        let mean: f64 = end.pmf.iter().map(|&(v, p)| v as f64 * p).sum();
        assert!(
            (exact_mean(&report, 4, metric) - mean).abs() <= TOLERANCE,
            "{metric}"
        );
    }
}

#[test]
fn simulated_rounds_are_the_chain_within_five_standard_errors() {
    let text = shootout(3, 2, "d6>=4", "d6>=3", "random", 4);
    let laws = laws(3, 2, 0.5, 2.0 / 3.0, 4, 0.5);
    let trials = 400_000;
    for general in [false, true] {
        let plan = plan(&text, general);
        let g = gather(&plan, trials, 2027, 2);
        for (m, h) in plan.metrics().iter().zip(&g.metrics) {
            let Some(round) = m.round else { continue };
            let (mean, variance) = moments(&laws[round as usize], &m.name);
            let got = h.sums().sum as f64 / trials as f64;
            let sigma = (variance.max(0.0) / trials as f64).sqrt();
            assert!(
                (got - mean).abs() <= 5.0 * sigma + 1e-9,
                "general {general}, round {round}, {}: simulated {got}, chain {mean} (sigma {sigma})",
                m.name
            );
        }
    }
}

#[test]
fn an_early_end_carries_its_last_values_forward() {
    // Blue's one model always hits and shoots first: red's one model is gone in round 1.
    let text = shootout(1, 1, "d6>=1", "d6>=3", "blue", 5);
    let plan = plan(&text, false);
    let g = gather(&plan, 70_000, 3, 1);
    let report = exact_of(&text);
    for (m, h) in plan.metrics().iter().zip(&g.metrics) {
        let Some(round) = m.round else { continue };
        let want = match (round, m.name.as_str()) {
            (0, "blue.alive" | "red.alive") => 1,
            (0, _) => 0,
            (_, "blue.alive" | "blue.won" | "engagement.over") => 1,
            (_, _) => 0,
        };
        let what = format!("round {round}, {}", m.name);
        assert_eq!(common::constant(h, &what), want, "{what}");
        assert_eq!(
            exact_mean(&report, round, &m.name),
            want as f64,
            "exact {what}"
        );
    }
}

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

fn run(file: &Path, out: &Path, extra: &[&str]) {
    let mut args = vec![
        "run",
        s(file),
        "--trials",
        "200000",
        "--seed",
        "5",
        "--quiet",
    ];
    args.extend(extra);
    args.extend(["--out", s(out)]);
    ok(&args);
}

fn rounds_csv(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join("rounds.csv")).expect("rounds.csv")
}

#[test]
fn rounds_csv_is_the_same_for_any_thread_count_and_for_shards_merged() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    // A sweep, so the file has its parameter column and one block per point.
    let text = format!(
        "{}\n[sweep]\n\"unit.red.size\" = [2, 3]\n",
        shootout(3, 2, "d6>=4", "d6>=3", "random", 3)
    );
    let file = tmp.path().join("shootout.toml");
    std::fs::write(&file, text).expect("the scenario is written");
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    run(&file, &one, &["--threads", "1"]);
    run(&file, &two, &["--threads", "2"]);
    let (one, two) = (rounds_csv(&one), rounds_csv(&two));
    assert!(one == two, "rounds.csv differs between 1 and 2 threads");
    let text = String::from_utf8(one.clone()).expect("UTF-8");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("scenario,choice,unit.red.size,round,metric,mean,ci95_low,ci95_high")
    );
    // 2 points x rounds 0 to 3 x 5 records.
    assert_eq!(lines.count(), 2 * 4 * 5);
    let parts = tmp.path().join("parts");
    for i in 0..3 {
        let shard = format!("{i}/3");
        run(&file, &parts, &["--shard", &shard]);
    }
    let merged = tmp.path().join("merged");
    ok(&["merge", s(&parts), "--out", s(&merged)]);
    let merged = rounds_csv(&merged);
    assert!(
        merged == one,
        "merged shards' rounds.csv differs from one run's"
    );
}

#[test]
fn exact_rounds_csv_collapses_the_interval_onto_the_mean() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let file = tmp.path().join("shootout.toml");
    std::fs::write(&file, shootout(3, 2, "d6>=4", "d6>=3", "blue", 2)).expect("written");
    let out = tmp.path().join("exact");
    ok(&["exact", s(&file), "--out", s(&out)]);
    let rows = common::csv_rows(&out.join("rounds.csv"));
    assert_eq!(rows.len(), 3 * 5);
    for row in rows {
        assert_eq!(row["mean"], row["ci95_low"]);
        assert_eq!(row["mean"], row["ci95_high"]);
    }
}

/// Every sweep point of `text`, joined as the run joins them; the general path (every trial
/// played in full) when `general`.
fn joined(text: &str, general: bool) -> Joined<Plan> {
    let set = scenario::parse(text, "test.toml", &[]).expect("test scenario is valid");
    let parts = (set.variants.iter())
        .map(|v| Plan::compile(v.scenario()))
        .map(|p| if general { p.force_general_path() } else { p })
        .collect();
    Joined::new(parts, Pairing::AgainstFirst)
}

/// The same scenario with its records counted where walks pass (memoised) and read from
/// rows of trials played in full (the general path): the same histograms, to the count.
fn counted_as_played(text: &str, trials: u64) {
    let (counted, played) = (joined(text, false), joined(text, true));
    assert!(counted.memoise() && !played.memoise());
    assert!(counted.metrics().iter().any(|m| m.round.is_some()));
    for threads in [1, 2] {
        let spec = RunSpec {
            trials,
            seed: 11,
            threads,
            shard: Shard::WHOLE,
            precision: None,
        };
        let gather = |t: &Joined<Plan>| {
            let run = engine::run(t, &spec, &Monitor::default()).expect("engine runs");
            run.gathered
        };
        let (a, b) = (gather(&counted), gather(&played));
        for (m, h) in counted.metrics().iter().zip(&a.metrics) {
            assert_eq!(
                h.total(),
                trials,
                "{} of round {:?} counts every trial",
                m.name,
                m.round
            );
        }
        for ((m, x), y) in counted.metrics().iter().zip(&a.metrics).zip(&b.metrics) {
            assert!(
                x == y,
                "{} of round {:?}, {threads} threads",
                m.name,
                m.round
            );
        }
        assert_eq!(a, b, "{threads} threads");
    }
}

#[test]
fn records_counted_where_walks_pass_are_those_of_trials_played_in_full() {
    // One arm (trials side by side), joined states reached by different rounds: a shoot-out
    // of several rounds where losses come in any order.
    counted_as_played(&shootout(4, 3, "d6>=4", "d6>=3", "random", 5), 150_000);
    // Arms walked by blocks: sweep points, then choices. Round 1 ends within the draws every
    // arm shares, and blocks end part-way through a walk side by side.
    let swept = format!(
        "{}\n[sweep]\n\"unit.red.size\" = [2, 3]\n",
        shootout(3, 2, "d6>=4", "d6>=3", "random", 3)
    );
    counted_as_played(&swept, 200_003);
    let chosen = format!(
        "{}\n[[choice]]\nid = \"near\"\nset = {{}}\n[[choice]]\nid = \"far\"\nset = {{ \"unit.red.size\" = 3 }}\n",
        shootout(3, 3, "d6>=4", "d6>=3", "red", 4)
    );
    counted_as_played(&chosen, 100_000);
}
