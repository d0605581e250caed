//! Cost models: every input over a model's budget is refused by the verb and by `check` alike,
//! with status 2, the estimate and the key that drives it, in milliseconds; and Ctrl-C inside a
//! trial that takes seconds stops the run at once, leaving a checkpoint it resumes from.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::rollcall;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Status 2 and each of `says` in the message.
fn refused(args: &[&str], says: &[&str]) -> String {
    let out = rollcall(args);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    for word in says {
        assert!(stderr.contains(word), "expected {word:?} in: {stderr}");
    }
    stderr
}

/// One Rally of `size` models with half of them missing, on an open field.
fn rally(size: u32) -> String {
    format!(
        r#"
[scenario]
name = "horde"
trials = 100
[battlefield]
width = 1000.0
height = 1000.0
[[unit]]
id = "horde"
side = "blue"
size = {size}
alive = {alive}
resolve = "d6>=4"
formation = {{ kind = "grid", x = 10.0, y = 10.0, spacing = 1.5, columns = 500 }}
[[step]]
unit = "horde"
command = "rally"
"#,
        alive = size / 2
    )
}

#[test]
fn a_rally_whose_layouts_would_not_fit_is_refused_with_the_estimate() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "horde.toml", &rally(100_000));
    let out = dir.path().join("out");
    // One use from 50,000 alive: a layout of 50,000 + k models for k = 0..=50,000, 24 bytes a
    // model and 64 a layout: (50,001 * 50,000 + 50,000 * 50,001 / 2) * 24 + 50,001 * 64 bytes,
    // 90,003,600,064 bytes, 83.8 GiB.
    let says = ["unit `horde`", "83.8 GiB", "1.0 GiB", "`unit.horde.size`"];
    refused(&["exact", s(&file), "--out", s(&out)], &says);
    // explain says it in words, as it says any refusal of the exact engine.
    let explained = rollcall(&["explain", s(&file)]);
    assert!(explained.status.success());
    assert!(String::from_utf8_lossy(&explained.stdout).contains("83.8 GiB"));
    // The simulation needs no layouts: it runs, and --validate says why it could not.
    let run = rollcall(&[
        "run",
        s(&file),
        "--trials",
        "100",
        "--validate",
        "--quiet",
        "--out",
        s(&out),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(String::from_utf8_lossy(&run.stderr).contains("83.8 GiB"));
    // 1,000 models fit: 500 restored at most.
    let small = write(dir.path(), "small.toml", &rally(1_000));
    let ok = rollcall(&["exact", s(&small), "--out", s(&dir.path().join("exact"))]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
}

#[test]
fn check_refuses_what_run_refuses_for_best_orders() {
    let dir = tempfile::tempdir().unwrap();
    let text = rally(100_000).replace(
        "[[step]]\nunit = \"horde\"\ncommand = \"rally\"\n",
        "move = 1.0\norders = [{ command = \"best\", among = [\"rally\", \"run\"] }]\n\
         [engagement]\nrounds = 1\n",
    );
    let text = format!(
        "{text}\n[[unit]]\nid = \"foe\"\nside = \"red\"\nsize = 5\n\
         formation = {{ kind = \"line\", x = 900.0, y = 900.0, spacing = 1.5 }}\n"
    );
    let file = write(dir.path(), "best.toml", &text);
    let out = dir.path().join("out");
    let says = ["cannot advise `best` orders", "83.8 GiB"];
    let from_run = refused(&["run", s(&file), "--quiet", "--out", s(&out)], &says);
    let from_check = refused(&["check", s(&file)], &says);
    assert_eq!(from_run, from_check);
    // `advise` turns to rollouts where the exact engine refuses, and those cost no layouts.
    let advised = rollcall(&["advise", s(&file), "--out", s(&out)]);
    let stderr = String::from_utf8_lossy(&advised.stderr);
    assert_eq!(advised.status.code(), Some(0), "{stderr}");
    let advice = std::fs::read_to_string(out.join("advice.csv")).unwrap();
    assert!(
        advice.lines().count() > 1 && advice.lines().skip(1).all(|l| l.contains(",rollout,")),
        "{advice}"
    );
}

#[test]
fn a_crowd_of_256_units_is_refused_at_the_state_limit_not_aborted() {
    // 256 one-model units in a grid, each shooting its nearest enemy: the states multiply
    // with every activation. Whatever the limit (the default follows the memory available,
    // and a state of 256 units takes 384 + 254 * 48 = 12,576 bytes: see
    // `exact::limit`'s unit tests), the programme stops at it with exit 2; a small one
    // keeps the test short.
    let mut text = String::from(
        "[scenario]\nname = \"crowd\"\n[battlefield]\nwidth = 60.0\nheight = 60.0\n\
         [engagement]\nrounds = 3\n",
    );
    for i in 0..256 {
        text += &format!(
            "[[unit]]\nid = \"u{i}\"\nside = \"{}\"\nsize = 1\nresolve = \"d6>=4\"\n\
             weapon = {{ attacks = 1, hit = \"d6>=4\", damage = 1, range = 4.0 }}\n\
             formation = {{ kind = \"line\", x = {}.0, y = {}.0, spacing = 1.5 }}\n\
             orders = [{{ command = \"shoot\", target = \"nearest\" }}]\n",
            ["blue", "red"][i % 2],
            2 + (i % 16) * 3,
            2 + (i / 16) * 3,
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "crowd.toml", &text);
    let says = [
        "over the limit of 10,000",
        "--max-states",
        "12,576 bytes a state",
    ];
    refused(
        &[
            "exact",
            s(&file),
            "--max-states",
            "10000",
            "--out",
            s(&dir.path().join("out")),
        ],
        &says,
    );
}

#[test]
fn clones_that_double_every_turn_are_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    let plays = vec![r#"["twin"]"#; 60].join(", ");
    let text = format!(
        r#"
[scenario]
name = "twins"
[options]
listeners.persist = true
[cards]
cards_per_turn = 1
turns = 60
[[cards.card]]
id = "twin"
kind = "sort"
effects = [{{ type = "clone", kinds = ["sort"] }}, {{ type = "clone", kinds = ["sort"] }}]
[cards.players.A]
plays = [{plays}]
[cards.players.B]
plays = [{plays}]
"#
    );
    let file = write(dir.path(), "twins.toml", &text);
    // Worst case E(t+1) = (2 + E(t) + 4) * 2 live clone effects: 12, 36, 84, 180, ... past
    // 2^20 = 1,048,576 at turn 17 (1,572,852).
    let says = [
        "cards.turns",
        "turn 17",
        "1,572,852",
        "1,048,576",
        "listeners.persist",
    ];
    let from_check = refused(&["check", s(&file)], &says);
    let out = dir.path().join("out");
    let from_run = refused(&["run", s(&file), "--quiet", "--out", s(&out)], &says);
    assert_eq!(from_check, from_run);
    // Without persist the clone effects expire each turn: it runs.
    let once = write(
        dir.path(),
        "once.toml",
        &text.replace("persist = true", "persist = false"),
    );
    let run = rollcall(&[
        "run",
        s(&once),
        "--trials",
        "10",
        "--quiet",
        "--out",
        s(&out),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn a_sweep_of_many_long_step_lists_is_refused_before_any_histogram() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = rally(10).replace("[[step]]\nunit = \"horde\"\ncommand = \"rally\"\n", "");
    for i in 0..700 {
        text += &format!(
            "[[step]]\nid = \"s{i}\"\nunit = \"horde\"\ncommand = \"rally\"\nround = {}\n",
            i + 1
        );
    }
    let points: Vec<String> = (0..100).map(|i| (1 + i % 9).to_string()).collect();
    text += &format!("[sweep]\n\"unit.horde.alive\" = [{}]\n", points.join(", "));
    let file = write(dir.path(), "long.toml", &text);
    // Per point 5 unit metrics and 4 per step: 5 + 700 * 4 = 2,805; at 100 points 280,500
    // metrics, at 4,096 bytes each 1,148,928,000 bytes, 1.07 GiB.
    let says = [
        "key `sweep`",
        "280,500 metrics (100 sweep point(s) x 2,805 each",
        "1.1 GiB",
    ];
    let from_check = refused(&["check", s(&file)], &says);
    let from_run = refused(
        &[
            "run",
            s(&file),
            "--quiet",
            "--out",
            s(&dir.path().join("o")),
        ],
        &says,
    );
    assert_eq!(from_check, from_run);
}

#[test]
fn too_many_unit_tables_are_refused_before_parsing() {
    let dir = tempfile::tempdir().unwrap();
    // Not even valid TOML past the headers: the count comes first.
    let text = "[[unit]]\n".repeat(257) + "this is not toml";
    let file = write(dir.path(), "many.toml", &text);
    refused(&["check", s(&file)], &["257 [[unit]] tables", "256"]);
}

/// A step list whose one trial takes seconds: a unit of thousands of models shot down and
/// rallied back round after round, each Rally searching places around a new layout.
fn slow_trial(rounds: u32) -> String {
    let mut text = String::from(
        r#"
[scenario]
name = "slow"
[battlefield]
width = 200.0
height = 200.0
[[unit]]
id = "horde"
side = "blue"
size = 4000
alive = 2000
resolve = "d6>=4"
formation = { kind = "grid", x = 10.0, y = 10.0, spacing = 1.5, columns = 60 }
[[unit]]
id = "guns"
side = "red"
size = 30
resolve = "d6>=4"
weapon = { attacks = 10, hit = "d6>=2", damage = 1, range = 300.0 }
formation = { kind = "line", x = 10.0, y = 190.0, spacing = 1.5 }
"#,
    );
    for r in 1..=rounds {
        text += &format!(
            "[[step]]\nid = \"s{r}\"\nunit = \"guns\"\ncommand = \"shoot\"\ntarget = \"horde\"\nround = {r}\n\
             [[step]]\nid = \"r{r}\"\nunit = \"horde\"\ncommand = \"rally\"\nround = {r}\n"
        );
    }
    text
}

#[cfg(unix)]
#[test]
fn ctrl_c_inside_a_long_trial_stops_at_once_and_the_run_resumes() {
    let dir = tempfile::tempdir().unwrap();
    // A few seconds a trial; 200 trials would take minutes.
    let file = write(dir.path(), "slow.toml", &slow_trial(200));
    let out = dir.path().join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .args([
            "run",
            s(&file),
            "--trials",
            "200",
            "--threads",
            "1",
            "--quiet",
            "--out",
            s(&out),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Inside the first trial (the handler is set up within milliseconds of the start).
    std::thread::sleep(Duration::from_millis(1500));
    let signalled = Instant::now();
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    // Generous: the point is "not after the trial", which takes far longer.
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            signalled.elapsed() < Duration::from_secs(60),
            "still running a minute after Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(130));
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(meta["complete"], false, "{meta}");
    assert!(out.join("checkpoint.json").exists());
    // The checkpoint is one a resumed run accepts: interrupted again at once, it resumes and
    // stops the same way, rather than refusing it.
    let again = Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .args([
            "run",
            s(&file),
            "--trials",
            "200",
            "--threads",
            "1",
            "--quiet",
            "--resume",
            s(&out),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    Command::new("kill")
        .args(["-INT", &again.id().to_string()])
        .status()
        .unwrap();
    let resumed = again.wait_with_output().unwrap();
    assert_eq!(
        resumed.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert!(out.join("checkpoint.json").exists());
}

/// Two units that Rally back what they lose (Resolve 2+, shooting on 4+): an engagement of
/// `rounds` rounds that may go on to its last.
fn rallying_back(rounds: u32) -> String {
    let unit = |id: &str, side: &str, y: f64| {
        format!(
            r#"
[[unit]]
id = "{id}"
side = "{side}"
size = 5
resolve = "d6>=2"
weapon = {{ attacks = 1, hit = "d6>=4", damage = 1, range = 24.0 }}
formation = {{ kind = "line", x = 18.0, y = {y}, spacing = 1.5 }}
orders = [
  {{ when = "missing >= 2 and not enemy_within(1)", command = "rally" }},
  {{ command = "shoot", target = "nearest" }},
]
"#
        )
    };
    format!(
        "[scenario]\nname = \"back\"\ntrials = 100\n[battlefield]\nwidth = 48.0\nheight = 48.0\n\
         [engagement]\nrounds = {rounds}\nfirst = \"alternate\"\n{}{}",
        unit("a", "blue", 18.0),
        unit("b", "red", 30.0)
    )
}

#[test]
fn an_engagement_that_may_go_on_for_a_thousand_rounds_is_refused_at_the_expansion_bound() {
    let dir = tempfile::tempdir().unwrap();
    // Every round its counters (lost, restored, declared) can grow, so its configurations grow
    // with the rounds: 1,000 rounds pass the documented bound of 1,000,000 expansions.
    let long = write(dir.path(), "long.toml", &rallying_back(1000));
    let says = ["expanded 1,000,000 configurations", "`[engagement] rounds`"];
    refused(
        &["exact", s(&long), "--out", s(&dir.path().join("x"))],
        &says,
    );
    // explain says the same, and `run --validate` writes its tables without validation.csv.
    let explained = rollcall(&["explain", s(&long)]);
    assert!(explained.status.success());
    let text = String::from_utf8_lossy(&explained.stdout);
    assert!(text.contains(says[0]), "{text}");
    let out = dir.path().join("run");
    let run = rollcall(&["run", s(&long), "--validate", "--quiet", "--out", s(&out)]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(out.join("summary.csv").exists() && !out.join("validation.csv").exists());
    // Two rounds stay far within the bound: answered.
    let short = write(dir.path(), "short.toml", &rallying_back(2));
    let exact = rollcall(&["exact", s(&short), "--out", s(&dir.path().join("y"))]);
    assert!(
        exact.status.success(),
        "{}",
        String::from_utf8_lossy(&exact.stderr)
    );
}

#[test]
fn persisting_clone_and_cancel_effects_are_refused_by_the_looks_a_game_would_take() {
    let dir = tempfile::tempdir().unwrap();
    let turns = 700;
    let plays = vec![r#"["twin"]"#; turns].join(", ");
    // Listeners of kind `action` that no card played is: none is ever used up.
    let text = format!(
        r#"
[scenario]
name = "pile"
[options]
listeners.persist = true
[cards]
cards_per_turn = 1
turns = {turns}
[[cards.card]]
id = "twin"
kind = "sort"
effects = [{{ type = "clone", kinds = ["sort"] }}, {{ type = "cancel", kinds = ["action"] }}]
[[cards.card]]
id = "idle"
kind = "action"
[cards.players.A]
plays = [{plays}]
[cards.players.B]
plays = [{plays}]
"#
    );
    let file = write(dir.path(), "pile.toml", &text);
    // By hand (src/cards/cost.rs works the sum out): turn t holds 4t cards, 4t clone effects
    // and 2t(t + 1) listeners; the looks summed pass 2^30 at turn 152, 1,091,233,536.
    let says = [
        "cards.turns",
        "1,091,233,536 times by turn 152",
        "1,073,741,824",
        "listeners.persist",
    ];
    let from_check = refused(&["check", s(&file)], &says);
    let out = dir.path().join("out");
    let from_run = refused(&["run", s(&file), "--quiet", "--out", s(&out)], &says);
    assert_eq!(from_check, from_run);
}
