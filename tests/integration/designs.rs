//! Design arms: `[[choice]]`s with `set`, each validated as its own scenario and played on the
//! same random numbers as the others. Expected values come from closed forms written here.

use crate::common;

use common::{binomial_pmf, comonotone_difference_variance, ok, rollcall};
use rollcall::dice::{Fraction, SuccessCount};
use rollcall::scenario::Arms;
use std::path::Path;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A lone Rally of `missing` models on an open field (placement never binds), with the
/// choices appended.
fn rally(missing: u32, choices: &str) -> String {
    format!(
        r#"
[scenario]
name = "designs"
trials = 200_000
seed = 3
[[unit]]
id = "w"
side = "blue"
size = {size}
alive = 5
resolve = "d6>=4"
formation = {{ kind = "line", x = 10.0, y = 24.0, spacing = 1.5 }}
[[step]]
unit = "w"
command = "rally"
{choices}"#,
        size = 5 + missing
    )
}

/// Rows of a CSV file as maps from column name to cell.
fn csv(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect()
}

fn num(row: &std::collections::HashMap<String, String>, key: &str) -> f64 {
    row[key].parse().unwrap()
}

/// Runs `text` and returns the folder with its tables.
fn run(dir: &Path, name: &str, text: &str, extra: &[&str]) -> std::path::PathBuf {
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, text).unwrap();
    let out = dir.join(name);
    let mut args = vec!["run", s(&file), "--quiet", "--out", s(&out)];
    args.extend_from_slice(extra);
    ok(&args);
    out
}

fn row<'a>(
    rows: &'a [std::collections::HashMap<String, String>],
    choice_key: &str,
    choice: &str,
    metric: &str,
) -> &'a std::collections::HashMap<String, String> {
    rows.iter()
        .find(|r| r[choice_key] == choice && r["metric"] == metric)
        .unwrap_or_else(|| panic!("no row {choice} {metric}"))
}

#[test]
fn identical_sets_differ_by_exactly_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let text = rally(
        5,
        r#"
[[choice]]
id = "a"
set = { "unit.w.resolve" = "d6>=5" }
[[choice]]
id = "b"
set = { "unit.w.resolve" = "d6>=5" }
"#,
    );
    let out = run(tmp.path(), "same", &text, &[]);
    let rows = csv(&out.join("compare.csv"));
    // Five unit metrics and four step metrics, each paired by name.
    assert_eq!(rows.len(), 9);
    for r in &rows {
        assert_eq!(
            (num(r, "mean_diff"), num(r, "p_equal")),
            (0.0, 1.0),
            "{r:?}"
        );
        assert_eq!(
            (num(r, "ci95_low"), num(r, "ci95_high")),
            (0.0, 0.0),
            "{r:?}"
        );
    }
}

#[test]
fn a_set_resolve_gives_each_arm_its_binomial_mean_and_the_paired_difference() {
    let tmp = tempfile::tempdir().unwrap();
    let m = 5.0;
    let text = rally(
        5,
        r#"
[[choice]]
id = "four"
set = {}
[[choice]]
id = "five"
set = { "unit.w.resolve" = "d6>=5" }
"#,
    );
    let out = run(tmp.path(), "resolve", &text, &[]);
    let summary = csv(&out.join("summary.csv"));
    let n: f64 = 200_000.0;
    for (choice, p) in [("four", 0.5), ("five", 1.0 / 3.0)] {
        let r = row(&summary, "choice", choice, "w.restored");
        let (mean, se) = (num(r, "mean"), num(r, "std_error"));
        let variance = m * p * (1.0 - p);
        let expected_se = (variance / n).sqrt();
        assert!(
            (mean - m * p).abs() < 5.0 * expected_se,
            "{choice}: {mean} vs {}",
            m * p
        );
        // The standard error itself agrees with sqrt(m p (1-p) / n): a sample standard
        // deviation's relative error has standard deviation sqrt((kurtosis - 1) / (4 n)), a
        // binomial's kurtosis being 3 + (1 - 6 p (1 - p)) / (m p (1 - p)).
        let kurtosis = 3.0 + (1.0 - 6.0 * p * (1.0 - p)) / variance;
        let relative = ((kurtosis - 1.0) / (4.0 * n)).sqrt();
        assert!(
            (se / expected_se - 1.0).abs() < 5.0 * relative,
            "{choice}: se {se}, expected {expected_se} within {}",
            5.0 * relative
        );
    }
    let compare = csv(&out.join("compare.csv"));
    let r = row(&compare, "first", "four", "w.restored");
    assert_eq!(r["second"], "five");
    let truth = m * 0.5 - m / 3.0;
    let tolerance = paired_tolerance(&binomial_pmf(5, 0.5), &binomial_pmf(5, 1.0 / 3.0), n);
    assert!(
        (num(r, "mean_diff") - truth).abs() < tolerance,
        "{truth} not within {tolerance} of {r:?}"
    );
    let total = num(r, "p_first_higher") + num(r, "p_equal") + num(r, "p_second_higher");
    assert!((total - 1.0).abs() < 1e-12, "{total}");
}

/// Five standard errors of the paired mean difference of two Rally arms over `n` trials, the
/// arms' counts distributed as `a` and `b`: Rally draws its count from one word through each
/// arm's inverse CDF (monotone in the word: the sampler test below), so the difference's
/// variance is the comonotone one.
fn paired_tolerance(a: &[(i64, f64)], b: &[(i64, f64)], n: f64) -> f64 {
    5.0 * (comonotone_difference_variance(a, b) / n).sqrt()
}

/// A random source that hands out one given word.
struct Word(u64);

impl rand::TryRng for Word {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.0 as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.0)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        dst.fill(0);
        Ok(())
    }
}

#[test]
fn the_success_count_sampler_is_monotone_in_the_probability_for_one_word() {
    // Both counts are step functions of the word, constant between the words where either
    // table changes its count; comparing them at every such word (and the word before it)
    // compares them everywhere.
    let low = SuccessCount::new(5, Fraction::new(1, 2));
    let high = SuccessCount::new(5, Fraction::new(2, 3));
    let mut words = vec![0, u64::MAX];
    for t in [&low, &high] {
        for k in 0..=5 {
            if let Some(w) = t.word_for(k) {
                words.push(w);
                words.push(w.saturating_sub(1));
            }
        }
    }
    for w in words {
        let (a, b) = (low.sample(&mut Word(w)), high.sample(&mut Word(w)));
        assert!(a <= b, "word {w:#x}: {a} at 4+ but {b} at 3+");
    }
}

#[test]
fn a_dominating_design_is_never_worse_on_the_same_dice_and_the_pairing_narrows_the_interval() {
    let tmp = tempfile::tempdir().unwrap();
    let text = rally(
        5,
        r#"
[[choice]]
id = "four"
set = { "unit.w.resolve" = "d6>=4" }
[[choice]]
id = "three"
set = { "unit.w.resolve" = "d6>=3" }
"#,
    );
    let out = run(tmp.path(), "dominating", &text, &[]);
    let compare = csv(&out.join("compare.csv"));
    let r = row(&compare, "first", "four", "w.restored");
    // Every word that restores k models at 4+ restores at least k at 3+ (the sampler test
    // above), and Rally draws one word: the 4+ arm is never higher.
    assert_eq!(num(r, "p_first_higher"), 0.0, "{r:?}");
    let total = num(r, "p_first_higher") + num(r, "p_equal") + num(r, "p_second_higher");
    assert!((total - 1.0).abs() < 1e-12, "{total}");
    // Closed form: 5/2 - 10/3.
    let truth = 2.5 - 5.0 * 2.0 / 3.0;
    let tolerance = paired_tolerance(
        &binomial_pmf(5, 0.5),
        &binomial_pmf(5, 2.0 / 3.0),
        200_000.0,
    );
    assert!(
        (num(r, "mean_diff") - truth).abs() < tolerance,
        "{truth} not within {tolerance} of {r:?}"
    );
    // Two independent runs would give a half-width of 1.96 sqrt(v1/n + v2/n) with the
    // binomial variances; the paired one is far narrower.
    let n: f64 = 200_000.0;
    let independent = 1.96 * ((5.0 * 0.25 + 5.0 * 2.0 / 9.0) / n).sqrt();
    let paired = (num(r, "ci95_high") - num(r, "ci95_low")) / 2.0;
    assert!(paired < independent / 3.0, "{paired} vs {independent}");
}

#[test]
fn a_choice_may_carry_steps_and_set_together() {
    // The file's steps do nothing to `w`; the choice's own step Rallies with its own resolve.
    let tmp = tempfile::tempdir().unwrap();
    let text = rally(
        6,
        r#"
[[choice]]
id = "file"
set = {}
[[choice]]
id = "both"
steps = [{ unit = "w", command = "rally" }, { unit = "w", command = "rally", round = 2 }]
set = { "unit.w.resolve" = "d6>=6" }
"#,
    );
    let out = run(tmp.path(), "both", &text, &[]);
    let summary = csv(&out.join("summary.csv"));
    // One Rally at 4+ of six missing: Binomial(6, 1/2), mean 3, variance 3/2.
    let n: f64 = 200_000.0;
    let r = row(&summary, "choice", "file", "w.restored");
    assert!(
        (num(r, "mean") - 3.0).abs() < 5.0 * (1.5 / n).sqrt(),
        "{r:?}"
    );
    // Two Rallies at 6+: each missing model comes back with q = 1 - (5/6)^2 = 11/36,
    // Binomial(6, q).
    let r = row(&summary, "choice", "both", "w.restored");
    let q = 11.0 / 36.0;
    let truth = 6.0 * q;
    assert!(
        (num(r, "mean") - truth).abs() < 5.0 * (6.0 * q * (1.0 - q) / n).sqrt(),
        "{r:?}"
    );
    // Only the steps both arms have are compared.
    let compare = csv(&out.join("compare.csv"));
    assert!(compare.iter().any(|r| r["metric"] == "step1.resolved"));
    assert!(!compare.iter().any(|r| r["metric"].starts_with("step2.")));
}

#[test]
fn exact_and_validate_work_arm_by_arm() {
    let tmp = tempfile::tempdir().unwrap();
    let text = rally(
        5,
        r#"
[[choice]]
id = "four"
set = {}
[[choice]]
id = "five"
set = { "unit.w.resolve" = "d6>=5" }
"#,
    );
    let file = tmp.path().join("x.toml");
    std::fs::write(&file, &text).unwrap();
    let exact = tmp.path().join("exact");
    ok(&["exact", s(&file), "--out", s(&exact)]);
    let summary = csv(&exact.join("summary.csv"));
    for (choice, mean) in [("four", 2.5), ("five", 5.0 / 3.0)] {
        let r = row(&summary, "choice", choice, "w.restored");
        assert!((num(r, "mean") - mean).abs() < 1e-12, "{choice}: {r:?}");
    }
    let run = tmp.path().join("run");
    ok(&["run", s(&file), "--validate", "--quiet", "--out", s(&run)]);
    let validation = csv(&run.join("validation.csv"));
    // 2 arms x 9 metrics (w.alive, w.restored, w.lost, w.damage_taken, w.destroyed and the
    // step's resolved, fizzled, ineligible and responses).
    assert_eq!(validation.len(), 18);
    assert!(
        validation.iter().all(|r| r["result"] == "pass"),
        "{validation:?}"
    );
}

#[test]
fn set_choices_are_byte_identical_across_threads_and_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = "configs/orders-duel.toml";
    let trials = "300000";
    let one = tmp.path().join("one");
    let two = tmp.path().join("two");
    for (dir, threads) in [(&one, "1"), (&two, "2")] {
        ok(&[
            "run",
            scenario,
            "--trials",
            trials,
            "--threads",
            threads,
            "--quiet",
            "--out",
            s(dir),
        ]);
    }
    let parts = tmp.path().join("parts");
    for i in 0..3 {
        let shard = format!("{i}/3");
        ok(&[
            "run",
            scenario,
            "--trials",
            trials,
            "--shard",
            &shard,
            "--quiet",
            "--out",
            s(&parts),
        ]);
    }
    let merged = tmp.path().join("merged");
    ok(&["merge", s(&parts), "--out", s(&merged)]);
    for name in ["summary.csv", "distribution.csv", "compare.csv"] {
        let a = std::fs::read(one.join(name)).unwrap();
        assert_eq!(a, std::fs::read(two.join(name)).unwrap(), "threads, {name}");
        assert_eq!(
            a,
            std::fs::read(merged.join(name)).unwrap(),
            "shards, {name}"
        );
    }
}

/// Runs `text` with `extra` arguments, expecting exit 2 and every one of `wanted` in stderr.
fn refused(text: &str, extra: &[&str], wanted: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.toml");
    std::fs::write(&file, text).unwrap();
    let out_dir = tmp.path().join("out");
    let mut args = vec!["run", s(&file), "--quiet", "--out", s(&out_dir)];
    args.extend_from_slice(extra);
    let out = rollcall(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("bad.toml"), "{stderr}");
    for w in wanted {
        assert!(stderr.contains(w), "wanted {w:?} in: {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
}

fn one_choice(set: &str) -> String {
    rally(5, &format!("[[choice]]\nid = \"tough\"\nset = {set}\n"))
}

#[test]
fn bad_sets_are_refused_naming_the_choice_and_the_key() {
    refused(
        &one_choice(r#"{ "unit.w.reslove" = "d6>=5" }"#),
        &[],
        &[
            "choice.tough.set.\"unit.w.reslove\"",
            "did you mean \"resolve\"",
        ],
    );
    refused(
        &one_choice(r#"{ "unit.w.resolve" = "d6>>5" }"#),
        &[],
        &["choice.tough.set.\"unit.w.resolve\"", "d6>>5"],
    );
    refused(
        &one_choice(r#"{ "unit.w.alive" = "many" }"#),
        &[],
        &[
            "choice.tough.set.\"unit.w.alive\"",
            "key `unit.w.alive`: expected a whole number, found the string \"many\"",
        ],
    );
    refused(
        &one_choice(r#"{ "unit.ww.resolve" = "d6>=5" }"#),
        &[],
        &["choice.tough.set.\"unit.ww.resolve\"", "ids are: w"],
    );
    let wardens = one_choice(r#"{ "unit.wardnes.resolve" = "d6>=5" }"#)
        .replace("id = \"w\"", "id = \"wardens\"")
        .replace("unit = \"w\"", "unit = \"wardens\"");
    refused(
        &wardens,
        &[],
        &[
            "choice.tough.set.\"unit.wardnes.resolve\"",
            "did you mean \"wardens\"",
        ],
    );
    refused(
        &one_choice(r#"{ "scenario.seed" = 4 }"#),
        &[],
        &[
            "choice.tough.set.\"scenario.seed\"",
            "may not set `scenario`",
        ],
    );
    refused(
        &one_choice(r#"{ "unit.w.alive" = 2 }"#),
        &["--set", "unit.w.alive=3"],
        &["choice.tough.set.\"unit.w.alive\"", "also set by"],
    );
    // A value that is valid alone but not with the rest of the file.
    refused(
        &one_choice(r#"{ "unit.w.alive" = 12 }"#),
        &[],
        &["choice.tough.set.\"unit.w.alive\"", "more than size"],
    );
}

#[test]
fn a_steps_choice_in_an_engagement_is_refused_with_the_reason() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/orders-duel.toml"),
    )
    .unwrap()
        + "\n[[choice]]\nid = \"stepwise\"\nsteps = [{ unit = \"wardens\", command = \"rally\" }]\n";
    refused(
        &text,
        &[],
        &["key `choice`", "in choice `stepwise`", "`set`"],
    );
}

#[test]
fn a_seed_flag_and_a_swept_seed_are_refused_together() {
    let text = rally(5, "[sweep]\n\"scenario.seed\" = [1, 2]\n");
    refused(
        &text,
        &["--seed", "5"],
        &["scenario.seed=5", "[sweep] also sets \"scenario.seed\""],
    );
    // Either alone is fine.
    let tmp = tempfile::tempdir().unwrap();
    run(tmp.path(), "swept", &text, &["--trials", "1000"]);
    run(
        tmp.path(),
        "flag",
        &rally(5, ""),
        &["--seed", "5", "--trials", "1000"],
    );
}

#[test]
fn step_lists_as_designs_give_the_tables_of_step_lists_as_choices() {
    // The same two step lists, once as choices of one scenario and once as designs (an empty
    // `set` makes every choice a scenario of its own): the tables agree byte for byte.
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/defend-vs-rally.toml"),
    )
    .unwrap();
    let designs = text.replace("id = \"rally\"\n", "id = \"rally\"\nset = {}\n");
    assert_ne!(designs, text);
    let args = ["--trials", "200000"];
    let a = run(tmp.path(), "choices", &text, &args);
    let b = run(tmp.path(), "designs", &designs, &args);
    for name in ["summary.csv", "distribution.csv", "compare.csv"] {
        assert_eq!(
            std::fs::read(a.join(name)).unwrap(),
            std::fs::read(b.join(name)).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn the_fast_paths_give_the_general_paths_histograms_for_designs() {
    use rollcall::engine::{self, Monitor, RunSpec, Shard};
    use rollcall::rules::Designs;
    for file in ["configs/orders-duel.toml", "configs/design-duel.toml"] {
        let set = rollcall::scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(file), &[])
            .unwrap();
        let Arms::Designs(arms) = &set.variants[0].arms else {
            panic!("design arms")
        };
        assert_eq!(arms.len(), 2, "{file}");
        let spec = RunSpec {
            trials: 100_000,
            seed: 5,
            threads: 1,
            shard: Shard::WHOLE,
            precision: None,
        };
        let fast = engine::run(&Designs::compile(arms), &spec, &Monitor::default()).unwrap();
        let general = Designs::compile(arms).force_general_path();
        let general = engine::run(&general, &spec, &Monitor::default()).unwrap();
        assert_eq!(
            format!("{:?}", fast.gathered.metrics),
            format!("{:?}", general.gathered.metrics),
            "{file}"
        );
        assert_eq!(
            format!("{:?}", fast.gathered.differences),
            format!("{:?}", general.gathered.differences),
            "{file}"
        );
    }
}

#[test]
fn set_choices_sweep_and_conflict_with_swept_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let choices = r#"
[[choice]]
id = "four"
set = {}
[[choice]]
id = "five"
set = { "unit.w.resolve" = "d6>=5" }
[sweep]
"unit.w.alive" = [5, 8]
"#;
    let out = run(
        tmp.path(),
        "swept",
        &rally(5, choices),
        &["--trials", "100000"],
    );
    let compare = csv(&out.join("compare.csv"));
    // 10 - alive models are missing: the paired difference is (10 - alive)(1/2 - 1/3).
    for (alive, missing) in [("5", 5.0), ("8", 2.0)] {
        let r = compare
            .iter()
            .find(|r| r["unit.w.alive"] == alive && r["metric"] == "w.restored")
            .unwrap();
        let truth = missing * (0.5 - 1.0 / 3.0);
        let k = missing as u32;
        let tolerance = paired_tolerance(
            &binomial_pmf(k, 0.5),
            &binomial_pmf(k, 1.0 / 3.0),
            100_000.0,
        );
        assert!(
            (num(r, "mean_diff") - truth).abs() < tolerance,
            "{truth} not within {tolerance} of {r:?}"
        );
    }
    refused(
        &rally(
            5,
            "[[choice]]\nid = \"a\"\nset = { \"unit.w.alive\" = 3 }\n[sweep]\n\"unit.w.alive\" = [4, 5]\n",
        ),
        &[],
        &["choice.a.set.\"unit.w.alive\"", "also set by"],
    );
}
