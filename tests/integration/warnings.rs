//! Warnings of what never acts: a step, order or weapon that acts in no trial is named on
//! stderr (`warning: `, also under `--quiet`) and in run.json's `warnings`, with its reason
//! where the scenario tells it; `explain` says what the scenario alone proves. The shipped
//! scenarios warn only of what three of them mean never to happen.
//!
//! Every distance below is worked out by hand from the models' centres and 1" bases (radius
//! 0.5): edge to edge is the centres' distance less 1.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rollcall(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("binary runs");
    assert!(
        out.status.success(),
        "rollcall {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The `warning: ` lines of stderr.
fn warned(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .map(str::to_string)
        .collect()
}

/// run.json's `warnings`.
fn run_json_warnings(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("run.json")).expect("run.json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("run.json is JSON");
    json["warnings"]
        .as_array()
        .expect("run.json has a warnings list")
        .iter()
        .map(|w| w.as_str().expect("a warning is text").to_string())
        .collect()
}

/// Runs `text` with `--quiet` and a few trials; returns the stderr warnings, which must be
/// run.json's with the `warning: <scenario>: ` prefix, and stderr's only lines.
fn run_warnings(text: &str, extra: &[&str]) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("w.toml");
    std::fs::write(&file, text).unwrap();
    let out_dir = tmp.path().join("out");
    let mut args = vec![
        "run",
        file.to_str().unwrap(),
        "--trials",
        "2000",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
    ];
    args.extend(extra);
    let out = rollcall(&args);
    let stderr = warned(&out);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).lines().count(),
        stderr.len(),
        "--quiet prints warnings only: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = run_json_warnings(&out_dir);
    let prefixed: Vec<String> = json.iter().map(|w| format!("warning: w: {w}")).collect();
    assert_eq!(stderr, prefixed, "stderr and run.json say the same");
    json
}

fn explain_warnings(text: &str) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("w.toml");
    std::fs::write(&file, text).unwrap();
    let out = rollcall(&["explain", file.to_str().unwrap()]);
    warned(&out)
        .into_iter()
        .map(|w| w.strip_prefix("warning: w: ").expect("named").to_string())
        .collect()
}

/// Halberds at (10, 10) and (11, 10) with a 12" range; raiders at (10, 28): the closest
/// centres are 18" apart, so 17" edge to edge, beyond 12". Nobody Runs or Rallies.
const OUT_OF_RANGE: &str = r#"
[scenario]
name = "w"
[battlefield]
width = 48.0
height = 48.0
[[unit]]
id = "halberds"
side = "blue"
size = 2
weapon = { attacks = 1, hit = "d6>=4", range = 12.0 }
models = [[10.0, 10.0], [11.0, 10.0]]
[[unit]]
id = "raiders"
side = "red"
size = 1
weapon = { attacks = 1, hit = "d6>=4", range = 24.0 }
models = [[10.0, 28.0]]
[[step]]
id = "swing"
unit = "halberds"
command = "shoot"
target = "raiders"
[[step]]
id = "volley"
unit = "raiders"
command = "shoot"
target = "halberds"
"#;

#[test]
fn a_weapon_out_of_range_of_a_static_target_is_named_with_the_distance() {
    let reason = "`raiders` is 17\" from `halberds` at the start, beyond its weapon's range \
                  of 12\", and neither unit can come nearer (no Run or Rally)";
    // The raiders' 24" reach 17": their volley acts and is not named.
    assert_eq!(
        run_warnings(OUT_OF_RANGE, &[]),
        [format!(
            "step `swing` (shoot by `halberds`, round 1) never acted in any trial: it could \
             not be declared in any: {reason}"
        )]
    );
    assert_eq!(
        explain_warnings(OUT_OF_RANGE),
        [format!(
            "step `swing` (shoot by `halberds`, round 1) can never be declared: {reason}"
        )]
    );
}

#[test]
fn a_target_that_runs_in_may_come_in_range_so_no_reason_is_claimed() {
    // The raiders run 10" toward the halberds before they swing: 17" - 10" = 7", in range.
    let text = OUT_OF_RANGE
        .replace(
            "models = [[10.0, 28.0]]",
            "models = [[10.0, 28.0]]\nmove = 10.0",
        )
        .replace(
            "[[step]]\nid = \"swing\"",
            "[[step]]\nid = \"charge\"\nunit = \"raiders\"\ncommand = \"run\"\ntoward = [10.0, 10.0]\n[[step]]\nid = \"swing\"",
        )
        // The raiders' volley waits for round 2: their Run is their command of round 1.
        .replace("target = \"halberds\"\n", "target = \"halberds\"\nround = 2\n");
    assert_eq!(run_warnings(&text, &[]), Vec::<String>::new());
    assert_eq!(explain_warnings(&text), Vec::<String>::new());
}

#[test]
fn a_sweep_names_the_points_where_a_step_never_acts() {
    // At 12" the swing cannot reach 17"; at 18" it can.
    let text = format!("{OUT_OF_RANGE}\n[sweep]\n\"unit.halberds.weapon.range\" = [12.0, 18.0]\n");
    let warnings = run_warnings(&text, &[]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("step `swing` (shoot by `halberds`, round 1) never acted")
            && warnings[0].ends_with("(at sweep point unit.halberds.weapon.range=12.0)"),
        "{warnings:?}"
    );
}

/// Blue Runs, then is ordered to Shoot in the same round: a unit takes one command a round.
const RUN_THEN_SHOOT: &str = r#"
[scenario]
name = "w"
[battlefield]
width = 48.0
height = 48.0
[[unit]]
id = "blue"
side = "blue"
size = 2
move = 3.0
weapon = { attacks = 1, hit = "d6>=4", range = 24.0 }
models = [[10.0, 10.0], [11.0, 10.0]]
[[unit]]
id = "red"
side = "red"
size = 1
models = [[10.0, 20.0]]
[[step]]
id = "dash"
unit = "blue"
command = "run"
toward = [10.0, 5.0]
[[step]]
id = "fire"
unit = "blue"
command = "shoot"
target = "red"
[[step]]
id = "later"
unit = "blue"
command = "shoot"
target = "red"
round = 2
"#;

#[test]
fn a_shoot_after_a_run_of_the_same_unit_in_the_same_round_is_named_with_the_token() {
    let reason = "`blue` takes one command a round, and its step `dash` (run) comes first in \
                  round 1";
    // The round-2 Shoot has a fresh token: it acts.
    assert_eq!(
        run_warnings(RUN_THEN_SHOOT, &[]),
        [format!(
            "step `fire` (shoot by `blue`, round 1) never acted in any trial: it could not be \
             declared in any: {reason}"
        )]
    );
    assert_eq!(
        explain_warnings(RUN_THEN_SHOOT),
        [format!(
            "step `fire` (shoot by `blue`, round 1) can never be declared: {reason}"
        )]
    );
}

/// An engagement of 3 rounds: wardens' first order waits for a fourth round, which never
/// comes; the halberds' only order shoots at enemies 17" away with a 12" weapon.
const ORDERS: &str = r#"
[scenario]
name = "w"
[battlefield]
width = 48.0
height = 48.0
[engagement]
rounds = 3
until = "rounds"
[[unit]]
id = "wardens"
side = "blue"
size = 5
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=4", range = 24.0 }
formation = { kind = "line", x = 20.0, y = 10.0, spacing = 1.0 }
orders = [
  { when = "round > 3", command = "rally" },
  { command = "shoot", target = "nearest" },
]
[[unit]]
id = "halberds"
side = "blue"
size = 2
weapon = { attacks = 1, hit = "d6>=4", range = 12.0 }
models = [[10.0, 10.0], [11.0, 10.0]]
orders = [{ command = "shoot", target = "nearest" }]
[[unit]]
id = "raiders"
side = "red"
size = 1
hp = 1000
models = [[10.0, 28.0]]
"#;

#[test]
fn an_order_whose_condition_never_holds_and_one_out_of_range_are_named() {
    // Wardens at x = 20..24, y = 10; raiders at (10, 28): the nearest warden, (20, 10), is
    // sqrt(10^2 + 18^2) = 20.59" between centres, 19.59" edge to edge: within 24".
    let condition = "order #1 of `wardens` (rally, when `round > 3`)";
    let condition_reason = "its condition `round > 3` holds in no round from 1 to 3 with 1 to \
                            5 models of `wardens` on the table";
    let halberds = "order #1 of `halberds` (shoot)";
    let range_reason = "no enemy unit is ever within range of the weapon of `halberds` (12\"): \
                        the nearest, `raiders`, is 17\" away at the start, and none of them \
                        can come nearer (no Run or Rally)";
    assert_eq!(
        run_warnings(ORDERS, &[]),
        [
            format!("{condition} was never taken in any trial: {condition_reason}"),
            format!("{halberds} was never taken in any trial: {range_reason}"),
        ]
    );
    assert_eq!(
        explain_warnings(ORDERS),
        [
            format!("{condition} can never be taken: {condition_reason}"),
            format!("{halberds} can never be taken: {range_reason}"),
        ]
    );
}

#[test]
fn an_order_never_taken_for_want_of_a_known_reason_names_its_metric() {
    // Shooting comes first and the raiders (1000 HP) always stand in range: the Rally after
    // it is never reached, which the scenario does not prove but the run shows.
    let text = ORDERS
        .replace("{ when = \"round > 3\", command = \"rally\" },\n", "")
        .replace(
            "{ command = \"shoot\", target = \"nearest\" },\n]",
            "{ command = \"shoot\", target = \"nearest\" },\n  { command = \"rally\" },\n]",
        )
        .replace(
            "orders = [{ command = \"shoot\", target = \"nearest\" }]",
            "orders = []",
        );
    assert_eq!(
        run_warnings(&text, &[]),
        [
            "order #2 of `wardens` (rally) was never taken in any trial: `wardens.declared.rally` \
          is 0 in every trial"
        ]
    );
    assert_eq!(explain_warnings(&text), Vec::<String>::new());
}

#[test]
fn covering_fire_that_never_reaches_the_acting_unit_is_named() {
    // The halberds answer with Covering Fire, 12" against the raiders 17" away.
    let text = OUT_OF_RANGE
        .replace(
            "models = [[10.0, 10.0], [11.0, 10.0]]",
            "models = [[10.0, 10.0], [11.0, 10.0]]\nresponse = \"covering_fire\"",
        )
        .replace(
            "[[step]]\nid = \"swing\"\nunit = \"halberds\"\ncommand = \"shoot\"\ntarget = \"raiders\"\n",
            "",
        );
    let expected = "the weapon of `halberds` never gives Covering Fire: no enemy unit is ever \
                    within range of the weapon of `halberds` (12\"): the nearest, `raiders`, is \
                    17\" away at the start, and none of them can come nearer (no Run or Rally)";
    assert_eq!(run_warnings(&text, &[]), [expected]);
    assert_eq!(explain_warnings(&text), [expected]);
}

#[test]
fn warnings_show_without_quiet_too() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("w.toml");
    std::fs::write(&file, OUT_OF_RANGE).unwrap();
    let out_dir = tmp.path().join("out");
    let out = rollcall(&[
        "run",
        file.to_str().unwrap(),
        "--trials",
        "2000",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(warned(&out).len(), 1, "{stderr}");
    assert!(stderr.contains("w: 2000 trials in "), "{stderr}");
}

fn shipped() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("configs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    files
}

/// What a shipped scenario is meant never to do, by its own comment: in the "defend" choice of
/// defend-vs-rally the guards are shot first and Defend, which bars their Rally afterwards;
/// duel's sweep compares Rallying with never Rallying, at a point whose condition never holds
/// (a unit never misses more models than its size); rally-enemy-near shows Rally barred by an
/// enemy within 1": the raiders' model at (24, 24) and the wardens' last at (23, 24) are 1"
/// apart between centres, 1 - 0.5 - 0.5 = 0" edge to edge with the default 1" bases.
fn meant(name: &str, explained: bool) -> Vec<String> {
    let (subject, reason) = match name {
        "defend-vs-rally" => (
            "step `step2` (rally by `guards`, round 1, choice `defend`)",
            "`guards` Defends in the response window of step `step1` (shoot by `raiders`) \
             earlier in round 1, and the Defend restriction bars rally",
        ),
        "duel" => (
            "order #1 of `wardens` (rally, when `missing > size`)",
            "its condition `missing > size` holds in no round from 1 to 6 with 1 to 5 models \
             of `wardens` on the table (at sweep point unit.wardens.orders.#1.when=missing > \
             size)",
        ),
        "rally-enemy-near" => (
            "step `step1` (rally by `wardens`, round 1)",
            "`raiders` stands 0\" from `wardens` at the start, within 1\", and no model ever \
             moves or leaves the table (no Run, Shoot or Covering Fire)",
        ),
        _ => return Vec::new(),
    };
    let verdict = match (name, explained) {
        (_, true) if name == "duel" => "can never be taken",
        (_, true) => "can never be declared",
        ("duel", false) => "was never taken in any trial",
        (_, false) => "never acted in any trial: it could not be declared in any",
    };
    vec![format!("warning: {name}: {subject} {verdict}: {reason}")]
}

#[test]
fn shipped_scenarios_warn_only_of_what_they_mean_never_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    for file in shipped() {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = tmp.path().join(&name);
        let out = rollcall(&[
            "run",
            file.to_str().unwrap(),
            "--trials",
            "20000",
            "--quiet",
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(warned(&out), meant(&name, false), "{name}");
        assert_eq!(
            run_json_warnings(&dir).len(),
            meant(&name, false).len(),
            "{name}"
        );
        let out = rollcall(&["explain", file.to_str().unwrap()]);
        assert_eq!(warned(&out), meant(&name, true), "explain {name}");
    }
}
