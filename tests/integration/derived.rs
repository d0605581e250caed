//! Derived metrics (`[metrics]`) and arithmetic in `when` conditions: a Rally against the
//! binomial closed form, a shoot-out against the Markov chain of its end (exact to 1e-9, Monte
//! Carlo at 5 standard errors), conditions whose arithmetic changes what a unit does as worked
//! out by hand, bad entries refused with file, key and value, and the tables the same for any
//! thread count and for shards merged back.

use crate::common;

use common::shootout::{chain, marginal, shootout};
use common::{assert_fits, assert_probability, gather, metric, ok, plan, rollcall};
use rollcall::exact;
use rollcall::output::ExactReport;
use rollcall::scenario;
use std::path::Path;

const TOLERANCE: f64 = 1e-9;

fn exact_of(text: &str) -> ExactReport {
    let set = scenario::parse(text, "test.toml", &[]).expect("test scenario is valid");
    exact::report(&set, &[]).expect("the exact engine applies")
}

fn pmf(report: &ExactReport, name: &str) -> Vec<(i64, f64)> {
    report.variants[0]
        .metrics
        .iter()
        .find(|m| m.metric == name)
        .unwrap_or_else(|| panic!("no metric {name}"))
        .pmf
        .clone()
}

fn assert_pmf(got: &[(i64, f64)], want: &[(i64, f64)], what: &str) {
    let at = |pmf: &[(i64, f64)], v: i64| pmf.iter().find(|x| x.0 == v).map_or(0.0, |x| x.1);
    for &(v, _) in got.iter().chain(want) {
        let (g, w) = (at(got, v), at(want, v));
        assert!((g - w).abs() <= TOLERANCE, "{what}: P({v}) = {g}, want {w}");
    }
}

/// Rally on an open field: 6 of 10 missing, Resolve 5+, so restored ~ Binomial(6, 1/3).
fn rally(metrics: &str) -> String {
    format!(
        r#"
[scenario]
name = "derived-rally"
[[unit]]
id = "wardens"
side = "blue"
size = 10
alive = 4
resolve = "d6>=5"
formation = {{ kind = "line", x = 20.0, y = 24.0, spacing = 1.5 }}
[[step]]
unit = "wardens"
command = "rally"
[metrics]
{metrics}
"#
    )
}

const RALLY_METRICS: &str = r#"
score = "wardens.restored * 2 - missing"
missing = "10 - wardens.alive"
good = "wardens.restored >= 3"
"#;

#[test]
fn rally_derived_metrics_follow_the_binomial_closed_form() {
    let text = rally(RALLY_METRICS);
    // restored R ~ Binomial(6, 1/3); missing at the end = 6 - R; score = 2R - (6 - R) = 3R - 6.
    let r = common::binomial_pmf(6, 1.0 / 3.0);
    let score: Vec<(i64, f64)> = r.iter().map(|&(k, p)| (3 * k - 6, p)).collect();
    let missing: Vec<(i64, f64)> = r.iter().map(|&(k, p)| (6 - k, p)).collect();
    // P(R >= 3) = 1 - (64 + 192 + 240) / 729 = 233 / 729.
    let good = [(0, 496.0 / 729.0), (1, 233.0 / 729.0)];
    let exact = exact_of(&text);
    assert_pmf(&pmf(&exact, "score"), &score, "exact score");
    assert_pmf(&pmf(&exact, "missing"), &missing, "exact missing");
    assert_pmf(&pmf(&exact, "good"), &good, "exact good");
    // Monte Carlo: the mean of 3R - 6 is 0, its variance 9 * 6 * (1/3) * (2/3) = 12.
    let p = plan(&text, false);
    let n = 400_000;
    let g = gather(&p, n, 17, 2);
    let h = metric(&p, &g, "score");
    let se = (12.0 / n as f64).sqrt();
    let mean = h.iter().map(|(v, c)| v as f64 * c as f64).sum::<f64>() / n as f64;
    assert!(mean.abs() <= 5.0 * se, "mean {mean} (5 se = {})", 5.0 * se);
    assert_fits(h, &score, "simulated score");
    assert_probability(metric(&p, &g, "good"), |v| v == 1, 233.0 / 729.0, "good");
}

/// The shoot-out of `common::shootout` with a margin and a quick win derived.
fn duel_with_metrics() -> String {
    shootout(6, 5, "d6>=4", "d6>=3", "blue", 4)
        + r#"
[metrics]
margin = "blue.alive - red.alive"
quick = "blue.won and engagement.rounds <= 2"
spread = "max(blue.alive, red.alive) - min(blue.alive, red.alive) == abs(margin)"
"#
}

#[test]
fn engagement_derived_metrics_follow_the_markov_chain_jointly() {
    let text = duel_with_metrics();
    let law = chain(6, 5, 0.5, 2.0 / 3.0, 4, |_| 1.0);
    // From the joint law of the end (never from means): (blue, red, rounds, ...).
    let margin = marginal(&law, |(b, r, ..)| i64::from(b) - i64::from(r));
    let quick = marginal(&law, |(b, r, rounds, ..)| {
        i64::from(b > 0 && r == 0 && rounds <= 2)
    });
    let exact = exact_of(&text);
    assert_pmf(&pmf(&exact, "margin"), &margin, "exact margin");
    assert_pmf(&pmf(&exact, "quick"), &quick, "exact quick");
    assert_pmf(&pmf(&exact, "spread"), &[(1, 1.0)], "exact spread");
    let p = plan(&text, false);
    let g = gather(&p, 300_000, 23, 2);
    assert_fits(metric(&p, &g, "margin"), &margin, "simulated margin");
    assert_fits(metric(&p, &g, "quick"), &quick, "simulated quick");
    assert_eq!(common::constant(metric(&p, &g, "spread"), "spread"), 1);
}

/// A lone unit that rallies when its condition holds; the enemy is far off and does nothing
/// it can: one round, played to its end.
fn rally_when(alive: u32, when: &str) -> String {
    format!(
        r#"
[scenario]
name = "rally-when"
[engagement]
rounds = 1
until = "rounds"
[[unit]]
id = "wardens"
side = "blue"
size = 10
alive = {alive}
resolve = "d6>=4"
formation = {{ kind = "line", x = 10.0, y = 10.0, spacing = 1.5 }}
orders = [{{ when = "{when}", command = "rally" }}]
[[unit]]
id = "raiders"
side = "red"
size = 1
resolve = "d6>=4"
formation = {{ kind = "line", x = 40.0, y = 40.0, spacing = 1.5 }}
orders = [{{ command = "rally" }}]
"#
    )
}

#[test]
fn arithmetic_in_when_conditions_decides_as_worked_out_by_hand() {
    // (alive, condition, rallies?): missing = 10 - alive.
    for (alive, when, rallies) in [
        (5, "missing * 2 >= size", true),      // 10 >= 10
        (6, "missing * 2 >= size", false),     // 8 >= 10
        (5, "missing * 2 - 1 >= size", false), // 9 >= 10
        (3, "alive - missing < -3", true),     // 3 - 7 = -4 < -3
        (4, "alive - missing < -3", false),    // 4 - 6 = -2
        (5, "min(missing, 3) * 3 == 9", true), // min(5, 3) * 3
        (5, "abs(alive - size) == 5", true),   // |5 - 10|
    ] {
        let text = rally_when(alive, when);
        let exact = exact_of(&text);
        let missing = 10 - alive;
        // A Rally restores Binomial(missing, 1/2) models; no Rally restores none.
        let want: Vec<(i64, f64)> = if rallies {
            common::binomial_pmf(missing, 0.5)
        } else {
            vec![(0, 1.0)]
        };
        assert_pmf(&pmf(&exact, "wardens.restored"), &want, when);
        assert_pmf(
            &pmf(&exact, "wardens.declared.rally"),
            &[(i64::from(rallies), 1.0)],
            when,
        );
    }
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// Runs `rollcall check` on `text` and returns its stderr, requiring exit status 2.
fn refused(text: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(tmp.path(), "bad.toml", text);
    let out = rollcall(&["check", &file]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("bad.toml"), "{err}");
    err
}

#[test]
fn bad_entries_exit_2_naming_file_key_and_value() {
    let e = refused(&rally(r#"net = "wardens.restord * 2""#));
    assert!(e.contains("key `metrics.net`"), "{e}");
    assert!(
        e.contains("    wardens.restord * 2\n    ^^^^^^^^^^^^^^^ unknown metric"),
        "{e}"
    );
    assert!(e.contains("did you mean `wardens.restored`?"), "{e}");

    let e = refused(&rally("a = \"b + 1\"\nb = \"c * 2\"\nc = \"a\""));
    assert!(e.contains("key `metrics.a`"), "{e}");
    assert!(e.contains("cycle: `a` -> `b` -> `c` -> `a`"), "{e}");

    let e = refused(&rally(r#"x = "wardens.alive + * 2""#));
    assert!(e.contains("key `metrics.x`: bad expression:"), "{e}");
    assert!(
        e.contains("^ expected a name, a number or `(` after `+`, found `*`"),
        "{e}"
    );

    let e = refused(&rally(r#""wardens.alive" = "1""#));
    assert!(e.contains("key `metrics.wardens.alive`"), "{e}");
    assert!(e.contains("already a metric"), "{e}");

    let e = refused(&rally(r#"ratio = "wardens.restored / 6""#));
    assert!(e.contains("no division"), "{e}");

    let e = refused(&rally("x = 3"));
    assert!(
        e.contains("key `metrics.x`") && e.contains("integer 3"),
        "{e}"
    );

    let text = duel_with_metrics().replace(
        "[engagement]\n",
        "[engagement]\nobjective = { blue = \"margn\" }\n",
    );
    let e = refused(&text);
    assert!(
        e.contains("engagement.objective.blue") && e.contains("margin"),
        "{e}"
    );

    let e = refused(&rally_when(5, "missing * missing * missing * 10 > size"));
    assert!(e.contains("could pass 9223372036854775807"), "{e}");
}

#[test]
fn an_overflow_stops_the_run_with_exit_2_naming_the_metric() {
    let tmp = tempfile::tempdir().unwrap();
    // restored is 0 to 6: 2 restored models take the product past the most a derived
    // metric may be, 2^32 = 4,294,967,296 (and at least one of 1,000 trials restores 2).
    let file = write(
        tmp.path(),
        "big.toml",
        &rally(r#"big = "wardens.restored * 3000000000""#),
    );
    let out_dir = tmp.path().join("out");
    let out = rollcall(&[
        "run",
        &file,
        "--trials",
        "1000",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("big.toml: key `metrics.big`"), "{err}");
    assert!(!out_dir.join("summary.csv").exists());
    let out = rollcall(&["exact", &file, "--out", out_dir.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("metrics.big"), "{err}");
    // Arithmetic past 2^63 - 1 on the way is refused too.
    let file = write(
        tmp.path(),
        "wraps.toml",
        &rally(r#"big = "wardens.restored * 4611686018427387904 - 1""#),
    );
    let out = rollcall(&[
        "run",
        &file,
        "--trials",
        "1000",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    // 6 * 700,000,000 stays within range for every value: the run goes through.
    let file = write(
        tmp.path(),
        "fits.toml",
        &rally(r#"big = "wardens.restored * 700000000""#),
    );
    ok(&[
        "run",
        &file,
        "--trials",
        "1000",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
}

/// Two choices (one Rally or two), so compare.csv has derived rows too.
fn choices() -> String {
    rally(RALLY_METRICS).replace(
        "[[step]]\nunit = \"wardens\"\ncommand = \"rally\"\n",
        r#"[[choice]]
id = "once"
steps = [{ unit = "wardens", command = "rally" }]
[[choice]]
id = "twice"
steps = [{ unit = "wardens", command = "rally" }, { unit = "wardens", command = "rally", round = 2 }]
"#,
    )
}

#[test]
fn tables_are_the_same_for_any_thread_count_and_for_merged_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(tmp.path(), "choices.toml", &choices());
    let dir = |n: &str| tmp.path().join(n).to_str().unwrap().to_string();
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec!["run", &file, "--trials", "200000", "--seed", "5", "--quiet"];
        args.extend(extra);
        args.extend(["--out", out]);
        ok(&args);
    };
    run(&dir("one"), &["--threads", "1"]);
    run(&dir("two"), &["--threads", "2"]);
    for i in 0..3 {
        run(&dir("parts"), &["--shard", &format!("{i}/3")]);
    }
    ok(&["merge", &dir("parts"), "--out", &dir("merged")]);
    for table in ["summary.csv", "distribution.csv", "compare.csv"] {
        let one = std::fs::read(tmp.path().join("one").join(table)).unwrap();
        for other in ["two", "merged"] {
            let bytes = std::fs::read(tmp.path().join(other).join(table)).unwrap();
            assert!(one == bytes, "{table} of {other} differs");
        }
        let text = String::from_utf8(one).unwrap();
        assert!(
            text.contains(",score,") && text.contains(",good,"),
            "{table}"
        );
    }
}

#[test]
fn validate_and_explain_include_derived_metrics() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = common::validated(&rally(RALLY_METRICS), &["--trials", "200000"]);
    for name in ["score", "missing", "good"] {
        assert!(csv.contains(&format!(",{name},")), "{csv}");
    }
    let file = write(tmp.path(), "r.toml", &rally(RALLY_METRICS));
    let out = rollcall(&["explain", &file]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  score: derived ([metrics]): `wardens.restored * 2 - missing`"),
        "{text}"
    );
}

#[test]
fn the_shipped_margin_objective_advises_as_its_comment_says() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("advice");
    ok(&[
        "advise",
        "configs/advise-margin.toml",
        "--out",
        out.to_str().unwrap(),
    ]);
    let rows = common::csv_rows(&out.join("advice.csv"));
    let best = |size: &str| {
        rows.iter()
            .find(|r| r["unit.raiders.size"] == size && r["round"] == "1" && r["best"] == "1")
            .map(|r| r["option"].clone())
            .unwrap()
    };
    for (size, option) in [
        ("2", "rally"),
        ("3", "rally"),
        ("4", "shoot"),
        ("12", "shoot"),
    ] {
        assert_eq!(best(size), option, "raiders {size}");
    }
}

#[test]
fn card_games_derive_from_their_scores_trial_by_trial() {
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("configs/cards-random.toml")
        .unwrap()
        .replace(
            "\"cards/",
            &format!("\"{}/configs/cards/", env!("CARGO_MANIFEST_DIR")),
        )
        + r#"
[metrics]
margin = "A.score - B.score"
one = "(A.score > B.score) + (A.score < B.score) + (A.score == B.score)"
"#;
    let file = write(tmp.path(), "cards.toml", &text);
    let dir = |n: &str| tmp.path().join(n).to_str().unwrap().to_string();
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec!["run", &file, "--trials", "150000", "--seed", "3", "--quiet"];
        args.extend(extra);
        args.extend(["--out", out]);
        ok(&args);
    };
    run(&dir("one"), &["--threads", "1"]);
    run(&dir("two"), &["--threads", "2"]);
    let rows = common::csv_rows(&tmp.path().join("one/summary.csv"));
    let mean = |m: &str| -> f64 {
        rows.iter().find(|r| r["metric"] == m).unwrap()["mean"]
            .parse()
            .unwrap()
    };
    // Per trial the margin is the difference of the scores, so its mean is the difference of
    // their means; exactly one of >, <, == holds in every trial.
    assert!((mean("margin") - (mean("A.score") - mean("B.score"))).abs() < 1e-9);
    let one = rows.iter().find(|r| r["metric"] == "one").unwrap();
    assert_eq!((one["min"].as_str(), one["max"].as_str()), ("1", "1"));
    for table in ["summary.csv", "distribution.csv"] {
        let a = std::fs::read(tmp.path().join("one").join(table)).unwrap();
        let b = std::fs::read(tmp.path().join("two").join(table)).unwrap();
        assert!(a == b, "{table} depends on the thread count");
    }
}

#[test]
fn step_metrics_enter_the_exact_engine_jointly() {
    // Two shots at a one-model target, each killing it with chance 1/2; the second cannot be
    // declared when the first killed it. Joint law of (step2.ineligible, target.alive):
    // (1, 0) 1/2 (first shot kills), (0, 0) 1/4 (second kills), (0, 1) 1/4. So the sum is 1
    // with 3/4 and 0 with 1/4; from the marginals (1/2 and 3/4) taken as independent it would
    // be 0 with 3/8, 1 with 1/2, 2 with 1/8.
    let text = common::duel("", "", "")
        + r#"
[[step]]
unit = "masters"
command = "shoot"
target = "target"
round = 2
[metrics]
joint = "step2.ineligible + target.alive"
gone = "target.alive == 0 and step1.resolved == 1"
"#;
    let exact = exact_of(&text);
    let names: Vec<&str> = exact.variants[0]
        .metrics
        .iter()
        .map(|m| m.metric.as_str())
        .collect();
    assert!(names.contains(&"step2.ineligible"), "{names:?}");
    assert_pmf(
        &pmf(&exact, "target.alive"),
        &[(0, 0.75), (1, 0.25)],
        "alive",
    );
    assert_pmf(
        &pmf(&exact, "step2.ineligible"),
        &[(0, 0.5), (1, 0.5)],
        "ineligible",
    );
    let joint = [(0, 0.25), (1, 0.75)];
    assert_pmf(&pmf(&exact, "joint"), &joint, "joint");
    assert_pmf(&pmf(&exact, "gone"), &[(0, 0.25), (1, 0.75)], "gone");
    let p = plan(&text, false);
    let g = gather(&p, 100_000, 3, 2);
    assert_fits(metric(&p, &g, "joint"), &joint, "simulated joint");
}
