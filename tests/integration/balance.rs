//! `rollcall balance`: the search's answer against a crossing known in closed form, the same
//! answer for any thread count and across a checkpoint, candidates that agree with a sweep's
//! points on the same trials, monotonicity violations reported, and bad `[balance]` input.
//!
//! The closed form: on an open field every missing warden is restored with probability
//! p = 1/2 (Resolve 4+), so `wardens.restored` is Binomial(missing, 1/2) and its mean is
//! missing / 2 = (10 - alive) / 2, a straight line in `alive`.

use std::path::Path;
use std::process::{Command, Output};

/// The trials a candidate is first played with, as docs/balance.md states it.
const FIRST_BATCH: u64 = 64;

const RALLY: &str = r#"[scenario]
name = "rally-balance"
trials = 100000
seed = 5
[battlefield]
width = 48.0
height = 48.0
[[unit]]
id = "wardens"
side = "blue"
size = 10
alive = 5
resolve = "d6>=4"
formation = { kind = "line", x = 20.0, y = 24.0, spacing = 1.5 }
[[step]]
unit = "wardens"
command = "rally"
"#;

fn with_balance(over: &str, target: f64) -> String {
    format!(
        "{RALLY}[balance]\nvary = \"unit.wardens.alive\"\nover = {over}\nmetric = \"wardens.restored\"\ntarget = {target:?}\n"
    )
}

fn rollcall(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// balance.csv as (value, trials, mean, low, high, relative, closest, contradicts).
struct Row {
    value: String,
    trials: u64,
    mean: f64,
    low: f64,
    high: f64,
    relative: String,
    closest: bool,
    contradicts: String,
}

fn rows(dir: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(dir.join("balance.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("scenario,vary,value,trials,mean,ci95_low,ci95_high,relative,closest,contradicts")
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Row {
                value: f[2].into(),
                trials: f[3].parse().unwrap(),
                mean: f[4].parse().unwrap(),
                low: f[5].parse().unwrap(),
                high: f[6].parse().unwrap(),
                relative: f[7].into(),
                closest: f[8] == "1",
                contradicts: f[9].into(),
            }
        })
        .collect()
}

fn answer(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("run.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["balance"].clone()
}

fn write(dir: &Path, text: &str) -> String {
    let path = dir.join("b.toml");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// alive 9..1 gives means 0.5..4.5; the target 2.6 is met at missing = 5.2, alive = 4.8,
/// between the candidates alive = 5 (mean 2.5) and alive = 4 (mean 3).
#[test]
fn the_crossing_of_a_rally_is_where_missing_times_p_meets_the_target() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(
        tmp.path(),
        &with_balance("[9, 8, 7, 6, 5, 4, 3, 2, 1]", 2.6),
    );
    let out = tmp.path().join("out");
    let stdout = ok(&rollcall(
        tmp.path(),
        &[
            "balance",
            &file,
            "--out",
            out.to_str().unwrap(),
            "--threads",
            "2",
        ],
    ));
    assert!(
        stdout.contains("between unit.wardens.alive = 5 and 4"),
        "{stdout}"
    );
    let rows = rows(&out);
    for r in &rows {
        // Each candidate's mean within 5 standard errors of (10 - alive) / 2, the standard
        // error from the binomial's variance missing / 4.
        let missing = 10.0 - r.value.parse::<f64>().unwrap();
        let se = (missing / 4.0 / r.trials as f64).sqrt();
        assert!(
            (r.mean - missing / 2.0).abs() < 5.0 * se,
            "alive {}",
            r.value
        );
        assert!(
            r.trials >= FIRST_BATCH,
            "a candidate starts from its first batch"
        );
        // A side is called at 95% over all of a candidate's looks, so more surely than its
        // own 95% interval would: a side called never disagrees with that interval.
        match r.relative.as_str() {
            "below" => assert!(r.high < 2.6, "alive {}", r.value),
            "above" => assert!(r.low > 2.6, "alive {}", r.value),
            other => assert_eq!(other, "undecided"),
        }
        assert!(r.contradicts.is_empty());
    }
    let find = |v: &str| rows.iter().find(|r| r.value == v).expect("played");
    let (five, four) = (find("5"), find("4"));
    assert_eq!(
        (five.relative.as_str(), four.relative.as_str()),
        ("below", "above")
    );
    // The closest is one of the pair: which one is chance (the true means lie 0.1 and 0.4 from
    // the target, a few standard errors of a small batch apart).
    assert!((five.closest || four.closest) && rows.iter().filter(|r| r.closest).count() == 1);
    // Bisection plays fewer than all nine, and the far candidates stay at their first batch.
    assert!(rows.len() < 9, "played {}", rows.len());
    assert_eq!(find("9").trials, FIRST_BATCH);
    let a = answer(&out);
    assert_eq!(a["pair"], serde_json::json!(["5", "4"]));
    assert_eq!(a["decided"], true);
    let c = &a["crossing"];
    let (est, lo, hi) = (
        c["estimate"].as_f64().unwrap(),
        c["ci95_low"].as_f64().unwrap(),
        c["ci95_high"].as_f64().unwrap(),
    );
    // x = 5 - (2.6 - m5) / (m4 - m5): linearised about the true means (slope 1/2), its error
    // is (0.8 e5 + 0.2 e4) / 0.5 for errors e5, e4 of the two means.
    let se = |r: &Row, missing: f64| missing / 4.0 / r.trials as f64;
    let sd = (0.64 * se(five, 5.0) + 0.04 * se(four, 6.0)).sqrt() / 0.5;
    assert!((est - 4.8).abs() < 5.0 * sd, "crossing {est}, sd {sd}");
    assert!(lo <= est && est <= hi && (4.0..=5.0).contains(&lo) && (4.0..=5.0).contains(&hi));
    let played: u64 = rows.iter().map(|r| r.trials).sum();
    assert_eq!(a["trials_played"], played);
    // The report leads with the answer, its numbers those of run.json rounded for people.
    ok(&rollcall(tmp.path(), &["report", out.to_str().unwrap()]));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let crossing = format!(
        "Crossing: unit.wardens.alive = {est:.2} (95%: {lo:.2} to {hi:.2}), interpolated between the pair."
    );
    assert!(md.contains("## Balance"), "{md}");
    assert!(md.contains(&crossing), "{crossing} in {md}");
    assert!(md.contains("wardens.restored reaches 2.6 between unit.wardens.alive = 5 and 4."));
}

/// The search plays each candidate on the trials a sweep plays it on: a candidate left at its
/// first batch of [`FIRST_BATCH`] trials has the summary row of `run --trials` that many at that
/// point.
#[test]
fn candidates_play_the_trials_a_sweep_plays_and_answer_alike_on_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(
        tmp.path(),
        &with_balance("[9, 8, 7, 6, 5, 4, 3, 2, 1]", 2.6),
    );
    let dirs: Vec<_> = ["1", "2"]
        .iter()
        .map(|t| {
            let out = tmp.path().join(format!("t{t}"));
            ok(&rollcall(
                tmp.path(),
                &[
                    "balance",
                    &file,
                    "--out",
                    out.to_str().unwrap(),
                    "--threads",
                    t,
                    "--quiet",
                ],
            ));
            out
        })
        .collect();
    for table in ["balance.csv", "summary.csv", "distribution.csv"] {
        assert_eq!(
            std::fs::read(dirs[0].join(table)).unwrap(),
            std::fs::read(dirs[1].join(table)).unwrap(),
            "{table}"
        );
    }
    assert_eq!(answer(&dirs[0]), answer(&dirs[1]));
    let sweep = tmp.path().join("sweep");
    ok(&rollcall(
        tmp.path(),
        &[
            "run",
            &file,
            "--trials",
            &FIRST_BATCH.to_string(),
            "--out",
            sweep.to_str().unwrap(),
            "--quiet",
        ],
    ));
    let summary = |dir: &Path| std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let (searched, swept) = (summary(&dirs[0]), summary(&sweep));
    let at_first_batch: Vec<String> = rows(&dirs[0])
        .into_iter()
        .filter(|r| r.trials == FIRST_BATCH)
        .map(|r| r.value)
        .collect();
    assert!(at_first_batch.len() >= 2);
    for v in at_first_batch {
        let line = |text: &str| {
            text.lines()
                .find(|l| l.starts_with(&format!("rally-balance,,{v},wardens.restored,")))
                .map(String::from)
        };
        assert_eq!(line(&searched), line(&swept), "alive = {v}");
        assert!(line(&swept).is_some());
    }
}

/// alive 9, 1, 7, 6: means 0.5, 4.5, 1.5, 2. The ends rise, so 1 (4.5) above 7 (1.5) and
/// above 6 (2) contradicts them, by 10 standard errors of a first batch or more; the search
/// then plays every candidate. 9, 7 and 6 rise by 6 standard errors or more.
#[test]
fn a_monotonicity_violation_is_reported_and_every_candidate_played() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(tmp.path(), &with_balance("[9, 1, 7, 6]", 1.0));
    let out = tmp.path().join("out");
    let done = rollcall(
        tmp.path(),
        &["balance", &file, "--out", out.to_str().unwrap()],
    );
    ok(&done);
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(
        stderr.contains("not monotonic at 95%: unit.wardens.alive = 1 and 6")
            && stderr.contains("not monotonic at 95%: unit.wardens.alive = 1 and 7"),
        "{stderr}"
    );
    let rows = rows(&out);
    assert_eq!(rows.len(), 4, "every candidate played");
    let by = |v: &str| rows.iter().find(|r| r.value == v).unwrap();
    assert_eq!(by("1").contradicts, "7;6");
    assert_eq!(by("7").contradicts, "1");
    assert_eq!(by("6").contradicts, "1");
    assert_eq!(by("9").contradicts, "");
    assert_eq!(
        answer(&out)["violations"],
        serde_json::json!([["1", "7"], ["1", "6"]])
    );
}

/// A target no candidate reaches: the nearest end is the answer, with no crossing.
#[test]
fn a_target_beyond_every_candidate_answers_with_the_nearest_end() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(tmp.path(), &with_balance("[9, 8, 7]", 4.0));
    let out = tmp.path().join("out");
    let stdout = ok(&rollcall(
        tmp.path(),
        &["balance", &file, "--out", out.to_str().unwrap()],
    ));
    assert!(stdout.contains("does not reach 4"), "{stdout}");
    let a = answer(&out);
    assert_eq!(a["closest"], "7");
    assert!(a.get("pair").is_none() && a.get("crossing").is_none());
    assert_eq!(rows(&out).len(), 2, "the ends only");
}

/// `--trials-max` stops a candidate that sits on the target (alive 5: mean 2.5 exactly), and
/// the search says its answer is not certain.
#[test]
fn trials_max_stops_an_undecided_candidate_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(tmp.path(), &with_balance("[9, 5, 1]", 2.5));
    let out = tmp.path().join("out");
    let done = rollcall(
        tmp.path(),
        &[
            "balance",
            &file,
            "--out",
            out.to_str().unwrap(),
            "--trials-max",
            "3000",
        ],
    );
    ok(&done);
    assert!(String::from_utf8_lossy(&done.stderr).contains("still undecided"));
    let five = rows(&out).into_iter().find(|r| r.value == "5").unwrap();
    assert_eq!((five.trials, five.relative.as_str()), (3000, "undecided"));
    assert_eq!(answer(&out)["decided"], false);
}

/// A search killed after a checkpoint and resumed writes what an uninterrupted search writes.
#[test]
fn a_search_resumed_from_its_checkpoint_writes_the_uninterrupted_tables() {
    let tmp = tempfile::tempdir().unwrap();
    // No warden is ever lost, so `wardens.lost` is 0 in every trial and equals the target:
    // every candidate stays undecided and doubles up to --trials-max, many steps, each saved
    // (--checkpoint 0), and long enough to be killed midway whatever the machine's speed.
    let text = with_balance("[9, 7, 5]", 0.0).replace("\"wardens.restored\"", "\"wardens.lost\"");
    let file = write(tmp.path(), &text);
    let reference = tmp.path().join("reference");
    let flags = ["--trials-max", "8M", "--seed", "3", "--quiet"];
    ok(&rollcall(
        tmp.path(),
        &[
            &["balance", &file, "--out", reference.to_str().unwrap()][..],
            &flags,
        ]
        .concat(),
    ));
    let out = tmp.path().join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .current_dir(tmp.path())
        .args(
            [
                &[
                    "balance",
                    &file,
                    "--out",
                    out.to_str().unwrap(),
                    "--checkpoint",
                    "0",
                ][..],
                &flags,
            ]
            .concat(),
        )
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let checkpoint = out.join("checkpoint.json");
    let start = std::time::Instant::now();
    while !checkpoint.exists() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let _ = child.kill();
    let status = child.wait().unwrap();
    assert!(!status.success(), "the search was killed before it ended");
    assert!(checkpoint.exists());
    // Another seed is refused, and the checkpoint kept.
    let refused = rollcall(
        tmp.path(),
        &[
            "balance",
            &file,
            "--resume",
            out.to_str().unwrap(),
            "--trials-max",
            "8M",
            "--seed",
            "4",
        ],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("seed"));
    assert!(checkpoint.exists());
    ok(&rollcall(
        tmp.path(),
        &[
            &["balance", &file, "--resume", out.to_str().unwrap()][..],
            &flags,
        ]
        .concat(),
    ));
    for table in ["balance.csv", "summary.csv", "distribution.csv"] {
        assert_eq!(
            std::fs::read(out.join(table)).unwrap(),
            std::fs::read(reference.join(table)).unwrap(),
            "{table}"
        );
    }
    assert_eq!(answer(&out), answer(&reference));
    assert!(
        !checkpoint.exists(),
        "a finished search removes its checkpoint"
    );
}

fn assert_refused(text: &str, needles: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(tmp.path(), text);
    let out = rollcall(tmp.path(), &["balance", &file]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("panicked"));
    assert!(stderr.contains("b.toml"), "names the file: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{n:?} in {stderr}");
    }
    assert!(!tmp.path().join("results").exists(), "nothing written");
    // `check` refuses it alike.
    let checked = rollcall(tmp.path(), &["check", &file]);
    assert_eq!(checked.status.code(), Some(2));
}

#[test]
fn bad_balance_input_is_refused_with_file_key_and_value() {
    let base = |vary: &str, over: &str, metric: &str| {
        format!("{RALLY}[balance]\nvary = \"{vary}\"\nover = {over}\nmetric = \"{metric}\"\n")
    };
    let restored = "wardens.restored";
    assert_refused(
        &base("unit.wardens.alvie", "[1, 2]", restored),
        &["balance.vary", "alvie", "did you mean \"alive\""],
    );
    assert_refused(
        &base("unit.nobody.alive", "[1, 2]", restored),
        &["balance.vary", "nobody"],
    );
    assert_refused(
        &base("unit.wardens.alive", "[4, 11]", restored),
        &["balance.over", "candidate unit.wardens.alive = 11", "alive"],
    );
    assert_refused(
        &base("unit.wardens.resolve", "[\"d6>=4\", \"d6>>4\"]", restored),
        &["balance.over", "candidate unit.wardens.resolve = \"d6>>4\""],
    );
    assert_refused(
        &base("unit.wardens.alive", "[]", restored),
        &["balance.over", "non-empty"],
    );
    assert_refused(
        &format!("{RALLY}[balance]\nvary = \"unit.wardens.alive\"\nmetric = \"{restored}\"\n"),
        &["balance.over", "missing"],
    );
    assert_refused(
        &base("unit.wardens.alive", "[1, 2]", "wardens.restord"),
        &[
            "balance.metric",
            "wardens.restord",
            "did you mean \"wardens.restored\"",
        ],
    );
    assert_refused(
        &format!(
            "{}[sweep]\n\"unit.wardens.alive\" = [1, 2]\n",
            base("unit.wardens.alive", "[1, 2]", restored)
        ),
        &["sweep.\"unit.wardens.alive\"", "also sets"],
    );
    // No [balance] at all.
    let tmp = tempfile::tempdir().unwrap();
    let file = write(tmp.path(), RALLY);
    let out = rollcall(tmp.path(), &["balance", &file]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no [balance]"));
}
