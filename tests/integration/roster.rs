//! Rosters: every profile against every other. The matchups of a shoot-out roster against
//! the Markov chain over model counts (common/shootout.rs), each profile's score against the
//! same chain, byte-identity across threads and for shards merged, and bad input.

use crate::common;

use common::shootout::{chain, shootout};
use common::{csv_rows, rollcall};
use std::path::Path;

/// (id, points, hit as a dice test, hit chance): at a budget of 6, 3, 2 and 6 models.
const PROFILES: [(&str, u64, &str, f64); 3] = [
    ("pike", 2, "d6>=4", 0.5),
    ("bow", 3, "d6>=3", 2.0 / 3.0),
    ("mob", 1, "d6>=6", 1.0 / 6.0),
];
const BUDGET: u64 = 6;
const ROUNDS: u32 = 3;
const TRIALS: u64 = 40_000;

/// The shoot-out (blue first in every round) with the profiles in its two units.
fn roster_file() -> String {
    let mut text = shootout(3, 3, "d6>=4", "d6>=4", "blue", ROUNDS);
    text.push_str(&format!(
        "[roster]\nbudget = {BUDGET}\nslots = [\"blue\", \"red\"]\n"
    ));
    for (id, points, hit, _) in PROFILES {
        text.push_str(&format!(
            "[[profile]]\nid = \"{id}\"\npoints = {points}\n\
             unit = {{ weapon = {{ attacks = 1, hit = \"{hit}\", damage = 1, range = 48.0 }} }}\n"
        ));
    }
    text
}

/// Runs `rollcall run FILE` with `extra` into `out`, from `dir`.
fn run(dir: &Path, file: &Path, out: &str, extra: &[&str]) {
    let (f, o) = (file.to_str().unwrap(), dir.join(out));
    let mut args = vec!["run", f, "--quiet", "--out", o.to_str().unwrap()];
    args.extend_from_slice(extra);
    let done = rollcall(&args);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
}

/// (first won, second won, draw) of profile a (blue, first) against b (red), by the chain.
fn law(a: usize, b: usize) -> (f64, f64, f64) {
    let models = |i: usize| (BUDGET / PROFILES[i].1) as u32;
    law_at(a, models(a), b, models(b))
}

/// As [`law`], with `ma` models of profile a and `mb` of b.
fn law_at(a: usize, ma: u32, b: usize, mb: u32) -> (f64, f64, f64) {
    let ends = chain(ma, mb, PROFILES[a].3, PROFILES[b].3, ROUNDS, |_| 1.0);
    let mut out = (0.0, 0.0, 0.0);
    for ((blue, red, ..), p) in ends {
        match (blue > 0, red > 0) {
            (true, false) => out.0 += p,
            (false, true) => out.1 += p,
            _ => out.2 += p,
        }
    }
    out
}

fn number(row: &std::collections::HashMap<String, String>, key: &str) -> f64 {
    row[key].parse().unwrap()
}

#[test]
fn matchups_and_scores_follow_the_markov_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let file = dir.join("roster.toml");
    std::fs::write(&file, roster_file()).unwrap();
    let trials = TRIALS.to_string();
    run(
        dir,
        &file,
        "out",
        &["--trials", &trials, "--seed", "41", "--report"],
    );
    let report = std::fs::read_to_string(dir.join("out/report.md")).unwrap();
    assert!(
        report.contains("## Roster") && report.contains("| pike | 2 | 3 |"),
        "{report}"
    );
    let html = std::fs::read_to_string(dir.join("out/report.html")).unwrap();
    assert!(html.contains("id=\"roster-matchups\"") && html.contains("style=\"background:#"));
    let rows = csv_rows(&dir.join("out/matchups.csv"));
    assert_eq!(rows.len(), 9);
    let n = TRIALS as f64;
    let index = |id: &str| PROFILES.iter().position(|p| p.0 == id).unwrap();
    for row in &rows {
        let (a, b) = (index(&row["first"]), index(&row["second"]));
        assert_eq!(row["trials"], trials);
        let (won, lost, drawn) = law(a, b);
        for (column, p) in [("first_won", won), ("second_won", lost), ("draw", drawn)] {
            let sigma = (p * (1.0 - p) / n).sqrt().max(1.0 / n);
            let got = number(row, column);
            assert!(
                (got - p).abs() <= 5.0 * sigma,
                "{} v {}: {column} {got}, chain {p} (sigma {sigma})",
                row["first"],
                row["second"]
            );
        }
        let (low, high) = (
            number(row, "first_won_ci95_low"),
            number(row, "first_won_ci95_high"),
        );
        assert!(low <= number(row, "first_won") && number(row, "first_won") <= high);
    }
    // Each profile's score: the mean over the other profiles, both seats, of won + draw / 2.
    // Its standard error is at most the mean of the matchups' (whatever their correlation).
    let ratings = csv_rows(&dir.join("out/ratings.csv"));
    assert_eq!(ratings.len(), 3);
    for row in &ratings {
        let i = index(&row["profile"]);
        assert_eq!(row["models"], (BUDGET / PROFILES[i].1).to_string());
        let mut parts = Vec::new();
        for j in (0..3).filter(|&j| j != i) {
            let (w, _, d) = law(i, j);
            let (_, w2, d2) = law(j, i);
            parts.push((w + d / 2.0, w + d / 4.0));
            parts.push((w2 + d2 / 2.0, w2 + d2 / 4.0));
        }
        let k = parts.len() as f64;
        let score = parts.iter().map(|p| p.0).sum::<f64>() / k;
        let sigma = parts
            .iter()
            .map(|(m, sq)| ((sq - m * m) / n).sqrt())
            .sum::<f64>()
            / k;
        let got = number(row, "score");
        assert!(
            (got - score).abs() <= 5.0 * sigma,
            "{}: score {got}, chain {score} (sigma {sigma})",
            row["profile"]
        );
        assert!(number(row, "score_ci95_low") < got && got < number(row, "score_ci95_high"));
        assert!(number(row, "rating").is_finite());
    }
    // The strongest profile by the chain has the highest rating.
    let score_of = |i: usize| {
        (0..3)
            .filter(|&j| j != i)
            .map(|j| law(i, j).0 + law(j, i).1)
            .sum::<f64>()
    };
    let best = (0..3)
        .max_by(|&a, &b| score_of(a).total_cmp(&score_of(b)))
        .unwrap();
    let top = ratings
        .iter()
        .max_by(|a, b| number(a, "rating").total_cmp(&number(b, "rating")))
        .unwrap();
    assert_eq!(top["profile"], PROFILES[best].0);
}

/// Profile i's score against the field at `m` models (the others at the budget), by the
/// chain, and a bound on the standard deviation of one trial's score: the mean of its
/// matchups' (at least the standard deviation of their mean, whatever their correlation).
fn field_law(i: usize, m: u32) -> (f64, f64) {
    let models = |j: usize| (BUDGET / PROFILES[j].1) as u32;
    let mut parts = Vec::new();
    for j in (0..PROFILES.len()).filter(|&j| j != i) {
        let (w, _, d) = law_at(i, m, j, models(j));
        let (_, w2, d2) = law_at(j, models(j), i, m);
        for (won, drawn) in [(w, d), (w2, d2)] {
            let mean = won + drawn / 2.0;
            parts.push((mean, (won + drawn / 4.0 - mean * mean).max(0.0).sqrt()));
        }
    }
    let k = parts.len() as f64;
    (
        parts.iter().map(|p| p.0).sum::<f64>() / k,
        parts.iter().map(|p| p.1).sum::<f64>() / k,
    )
}

/// The model counts at which a search's line through two adjacent counts can meet 1/2 when
/// every count's score is within `band[m]` of the chain's `law[m]` (index m - 1): over each
/// adjacent pair whose bands allow the scores to straddle 1/2, the crossing's extremes are at
/// the corners of the straddling region (it moves monotonically with each score).
fn crossing_range(law: &[f64], band: &[f64]) -> Option<(f64, f64)> {
    let mut range: Option<(f64, f64)> = None;
    for a in 0..law.len() - 1 {
        let (lo_a, hi_a) = (law[a] - band[a], law[a] + band[a]);
        let (lo_b, hi_b) = (law[a + 1] - band[a + 1], law[a + 1] + band[a + 1]);
        let xs = [lo_a, hi_a, 0.5].map(|x| x.clamp(lo_a, hi_a));
        let ys = [lo_b, hi_b, 0.5].map(|y| y.clamp(lo_b, hi_b));
        for x in xs {
            for y in ys {
                if (x - 0.5) * (y - 0.5) <= 0.0 && x != y {
                    let at = (a + 1) as f64 + (0.5 - x) / (y - x);
                    range = Some(range.map_or((at, at), |(l, h)| (l.min(at), h.max(at))));
                }
            }
        }
    }
    range
}

/// fair_points: the balance search over each profile's model count (1 to twice its models)
/// finds where its score against the field crosses 1/2. Each count the search plays gets at
/// least 64 trials (the search's first batch), so its score is within 5 standard errors of 64
/// trials of the chain's
/// (the standard deviation bounded as above); the crossing, and budget / crossing, then lie
/// in the range those bands allow.
#[test]
fn fair_points_follow_the_markov_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let file = dir.join("roster.toml");
    std::fs::write(&file, roster_file()).unwrap();
    run(dir, &file, "out", &["--trials", "40000", "--seed", "43"]);
    let least = 64.0f64;
    for row in csv_rows(&dir.join("out/ratings.csv")) {
        let i = PROFILES.iter().position(|p| p.0 == row["profile"]).unwrap();
        let most = 2 * (BUDGET / PROFILES[i].1) as u32;
        let (law, band): (Vec<f64>, Vec<f64>) = (1..=most)
            .map(|m| {
                let (score, sd) = field_law(i, m);
                (score, 5.0 * sd / least.sqrt())
            })
            .unzip();
        // The chain's scores rise with the models and cross 1/2 inside the counts searched,
        // beyond the bands at the ends: a crossing must be found.
        assert!(law.windows(2).all(|w| w[0] < w[1]), "{law:?}");
        assert!(law[0] + band[0] < 0.5 && law[most as usize - 1] - band[most as usize - 1] > 0.5);
        let (low, high) = crossing_range(&law, &band).unwrap();
        let got = number(&row, "fair_points");
        let (from, to) = (BUDGET as f64 / high, BUDGET as f64 / low);
        assert!(
            from <= got && got <= to,
            "{}: fair_points {got}, the chain allows {from} to {to} (scores {law:?})",
            row["profile"]
        );
    }
}

/// A profile whose score stays below 1/2 at every count searched (the mob at 6 points: one
/// model at the budget, two at most, each hitting on a 6) has no fair points: the column is
/// empty and stderr says why.
#[test]
fn a_score_that_never_reaches_one_half_leaves_fair_points_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("roster.toml");
    std::fs::write(&file, edited("points = 1\n", "points = 6\n")).unwrap();
    let out_dir = tmp.path().join("out");
    let done = rollcall(&[
        "run",
        file.to_str().unwrap(),
        "--trials",
        "4000",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{err}");
    // The mob at 6 points is index 2 with 1 model at the budget: at most 2 are searched.
    let mob = 2;
    let models = |j: usize| {
        let points = if j == mob { 6 } else { PROFILES[j].1 };
        (BUDGET / points) as u32
    };
    for m in 1..=2u32 {
        let mut parts = Vec::new();
        for j in [0, 1] {
            let (w, _, d) = law_at(mob, m, j, models(j));
            let (_, w2, d2) = law_at(j, models(j), mob, m);
            for (won, drawn) in [(w, d), (w2, d2)] {
                let mean = won + drawn / 2.0;
                parts.push((mean, (won + drawn / 4.0 - mean * mean).max(0.0).sqrt()));
            }
        }
        let score = parts.iter().map(|p| p.0).sum::<f64>() / 4.0;
        let sd = parts.iter().map(|p| p.1).sum::<f64>() / 4.0;
        assert!(score + 5.0 * sd / 64f64.sqrt() < 0.5, "{m} models: {score}");
    }
    let rows = csv_rows(&out_dir.join("ratings.csv"));
    let row = rows.iter().find(|r| r["profile"] == "mob").unwrap();
    assert_eq!(row["fair_points"], "");
    assert!(
        err.contains("profile mob scores below 1/2 even at 2 models")
            && err.contains("fair_points is left empty"),
        "{err}"
    );
}

#[test]
fn threads_and_merged_shards_give_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let file = dir.join("roster.toml");
    std::fs::write(&file, roster_file()).unwrap();
    let common = ["--trials", "150000", "--seed", "7"];
    run(
        dir,
        &file,
        "one",
        &[&common[..], &["--threads", "1"]].concat(),
    );
    run(
        dir,
        &file,
        "two",
        &[&common[..], &["--threads", "2"]].concat(),
    );
    for shard in ["0/2", "1/2"] {
        run(
            dir,
            &file,
            "parts",
            &[&common[..], &["--shard", shard]].concat(),
        );
    }
    let merged = dir.join("merged");
    let parts = dir.join("parts");
    let out = rollcall(&[
        "merge",
        parts.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The matchups are not compared with each other: their table is matchups.csv.
    assert!(!dir.join("one/compare.csv").exists());
    for name in [
        "matchups.csv",
        "ratings.csv",
        "summary.csv",
        "distribution.csv",
    ] {
        let one = std::fs::read(dir.join("one").join(name)).unwrap();
        assert_eq!(
            one,
            std::fs::read(dir.join("two").join(name)).unwrap(),
            "{name}"
        );
        assert_eq!(one, std::fs::read(merged.join(name)).unwrap(), "{name}");
    }
}

/// The roster file with `from` replaced by `to`, which must change it.
fn edited(from: &str, to: &str) -> String {
    let text = roster_file();
    assert!(text.contains(from), "{from}");
    text.replacen(from, to, 1)
}

#[test]
fn bad_rosters_are_refused_with_the_key_and_value() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.toml");
    let cases: Vec<(String, &[&str])> = vec![
        (
            edited(
                "slots = [\"blue\", \"red\"]",
                "slots = [\"blue\", \"reed\"]",
            ),
            &[
                "roster.slots",
                "unknown unit \"reed\"",
                "did you mean \"red\"",
                "engagement",
            ],
        ),
        (
            edited("slots = [\"blue\", \"red\"]", "slots = [\"blue\"]"),
            &["roster.slots", "two unit ids"],
        ),
        (
            edited("budget = 6", "budget = 0"),
            &["roster.budget", "0", "at least 1"],
        ),
        (
            edited("points = 3", "points = 7"),
            &["profile.bow.points", "7", "the budget, 6"],
        ),
        (
            edited("id = \"mob\"", "id = \"pike\""),
            &["profile.pike.id", "used by two profiles"],
        ),
        (
            edited("unit = { weapon", "unit = { resolv = \"4+\", weapon"),
            &["profile.pike.unit.resolv", "did you mean \"resolve\""],
        ),
        (
            edited("unit = { weapon", "unit = { size = 4, weapon"),
            &["profile.pike.unit.size", "follows the budget"],
        ),
        (
            edited("[roster]", "[roster]\nbugdet = 5"),
            &["bugdet", "did you mean \"budget\""],
        ),
        (
            format!("{}[sweep]\n\"scenario.seed\" = [1, 2]\n", roster_file()),
            &["sweep", "cannot be used with [roster]"],
        ),
        (
            format!("{}[[choice]]\nid = \"x\"\n", roster_file()),
            &["choice", "cannot be used with [roster]"],
        ),
        (
            roster_file().replace("[roster]\nbudget = 6\nslots = [\"blue\", \"red\"]\n", ""),
            &["profile", "[roster]"],
        ),
    ];
    for (text, parts) in cases {
        std::fs::write(&file, &text).unwrap();
        let out = rollcall(&["run", file.to_str().unwrap(), "--quiet"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{parts:?}: {err}");
        assert!(err.contains("bad.toml"), "{err}");
        for part in parts {
            assert!(err.contains(part), "missing {part:?} in: {err}");
        }
    }
}

#[test]
fn ratings_csv_recovers_chosen_bradley_terry_strengths() {
    use rollcall::output::roster::{ratings_csv, Profile, Roster};
    use rollcall::output::{MetricReport, Report, VariantReport};
    use rollcall::stats::Histogram;
    // Strengths 1, 2 and 4: i beats j (draws counting half) with chance s_i / (s_i + s_j);
    // a tenth of every matchup is drawn, and the matchups hold the expected counts.
    let strengths = [1.0f64, 2.0, 4.0];
    let ids = ["a", "b", "c"];
    let n = 1_000_000u64;
    let drawn = n / 10;
    let mut metrics = Vec::new();
    for (i, a) in ids.iter().enumerate() {
        for (j, b) in ids.iter().enumerate() {
            let p = strengths[i] / (strengths[i] + strengths[j]);
            let first = (p * n as f64).round() as u64 - drawn / 2;
            let second = n - first - drawn;
            for (metric, won) in [("blue.won", first), ("red.won", second)] {
                let mut h = Histogram::new();
                h.add_count(1, won);
                h.add_count(0, n - won);
                metrics.push(MetricReport {
                    choice: format!("{a} v {b}"),
                    metric: metric.into(),
                    histogram: h,
                    round: None,
                });
            }
        }
    }
    let report = Report {
        scenario: "synthetic".into(),
        param_names: vec![],
        variants: vec![VariantReport {
            params: vec![],
            metrics,
            comparisons: vec![],
        }],
        both_enumerate: false,
        roster: Some(Roster {
            budget: 10,
            profiles: ids
                .iter()
                .map(|id| Profile {
                    id: id.to_string(),
                    points: 1,
                    models: 10,
                    fair: None,
                })
                .collect(),
            first_won: "blue.won".into(),
            second_won: "red.won".into(),
        }),
    };
    let text = String::from_utf8(ratings_csv(&report).unwrap()).unwrap();
    let mean_log = strengths.iter().map(|s| s.ln()).sum::<f64>() / 3.0;
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    for (row, s) in rows.iter().zip(strengths) {
        let rating: f64 = row[7].parse().unwrap();
        // Counts rounded to whole trials move a rating by about 1e-6.
        assert!((rating - (s.ln() - mean_log)).abs() < 1e-4, "{text}");
    }
    // a's score: 1/3 against b and 1/5 against c, from either seat.
    let score: f64 = rows[0][4].parse().unwrap();
    assert!(
        (score - (1.0 / 3.0 + 1.0 / 5.0) / 2.0).abs() < 1e-6,
        "{text}"
    );
}
