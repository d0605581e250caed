//! Engagements: rounds of alternating activations in which each unit takes the first of its
//! orders that applies. Their law is checked against a Markov chain over model counts worked
//! out here, every condition and target rule on a scenario where it decides the outcome, the
//! activation order, byte-identity across threads and shards, and bad input.

use crate::common;

use common::shootout::{chain, marginal, shootout, End};
use common::{assert_fits, assert_probability, constant, gather, metric, plan};
use std::path::Path;
use std::process::{Command, Output};

// ---- the law of a shoot-out, from the Markov chain over model counts ----
// (common/shootout.rs; its case done by hand is checked in exact_engagements.rs)

/// The chance that blue activates first in a round.
type BlueFirst = fn(u32) -> f64;
/// A metric's value at an end of the chain.
type Reading = fn(End) -> i64;

#[test]
fn a_shootout_follows_its_markov_chain() {
    // Blue 3 models hitting on 4+ (1/2), red 2 models hitting on 3+ (2/3), at most 3 rounds.
    let cases: [(&str, BlueFirst, u64); 2] = [
        ("blue", |_| 1.0, 31),
        // Alternate: the first unit's side (blue) in round 1, then red, then blue.
        ("alternate", |round| f64::from(round % 2), 32),
    ];
    for (first, blue_first, seed) in cases {
        let p = plan(&shootout(3, 2, "d6>=4", "d6>=3", first, 3), false);
        let g = gather(&p, 200_000, seed, 2);
        let law = chain(3, 2, 0.5, 2.0 / 3.0, 3, blue_first);
        let total: f64 = law.values().sum();
        assert!((total - 1.0).abs() < 1e-12, "the chain loses mass: {total}");
        // Every activation of a unit with models declares Shoot: blue's count is its
        // volleys.
        let checks: [(&str, Reading); 6] = [
            ("blue.alive", |(b, ..)| b as i64),
            ("red.alive", |(_, r, ..)| r as i64),
            ("blue.won", |(b, r, ..)| i64::from(b > 0 && r == 0)),
            ("red.won", |(b, r, ..)| i64::from(r > 0 && b == 0)),
            ("engagement.rounds", |(_, _, n, ..)| n as i64),
            ("blue.declared.shoot", |(_, _, _, d, _)| d as i64),
        ];
        for (name, f) in checks {
            let what = format!("first = {first}: {name}");
            assert_fits(metric(&p, &g, name), &marginal(&law, f), &what);
        }
    }
}

// ---- conditions and target rules, each deciding the outcome ----

/// Blue: 5 models of 2 HP, 3 on the table, weapon range `range`; red: one model whose base
/// edge is 3" from blue's nearest. Blue Runs when `when` holds, else does nothing; one round
/// unless `rounds` says. `red_fires_first`: red shoots blue first, sure to hit, for 1 damage.
fn situation(when: &str, range: f64, rounds: u32, red_fires_first: bool) -> String {
    let (first, red_orders) = if red_fires_first {
        (
            "red",
            "orders = [{ command = \"shoot\", target = \"blue\" }]\nweapon = { attacks = 1, hit = \"d6>=1\", damage = 1, range = 24.0 }",
        )
    } else {
        ("blue", "")
    };
    format!(
        r#"
[scenario]
name = "situation"
[engagement]
rounds = {rounds}
first = "{first}"
until = "rounds"
[[unit]]
id = "blue"
side = "blue"
size = 5
alive = 3
hp = 2
resolve = "d6>=4"
move = 0.0
weapon = {{ attacks = 1, hit = "d6>=1", damage = 1, range = {range} }}
models = [[10.0, 10.0], [11.0, 10.0], [12.0, 10.0]]
orders = [{{ when = "{when}", command = "run", toward = [12.0, 10.0] }}]
[[unit]]
id = "red"
side = "red"
size = 1
resolve = "d6>=4"
models = [[16.0, 10.0]]
{red_orders}
"#
    )
}

/// How many times blue declared Run (every trial alike).
fn runs(text: &str) -> i64 {
    let p = plan(text, false);
    let g = gather(&p, 2000, 5, 1);
    constant(metric(&p, &g, "blue.declared.run"), text)
}

#[test]
fn each_condition_name_and_operator_decides_the_order() {
    // alive 3, missing 2, size 5, round 1, damaged 0, the enemy 3" away, in range (10").
    let cases = [
        ("alive == 3", 1),
        ("alive != 3", 0),
        ("missing >= 2", 1),
        ("missing > 2", 0),
        ("missing < 3", 1),
        ("size <= 5", 1),
        ("size < 5", 0),
        ("round == 1", 1),
        ("round > 1", 0),
        ("damaged == 0", 1),
        ("damaged > 0", 0),
        ("enemy_within(3)", 1),
        ("enemy_within(2.9)", 0),
        ("in_range", 1),
        ("not in_range", 0),
        ("alive == 3 and missing == 2", 1),
        ("alive == 3 and missing == 3", 0),
        ("alive == 9 or round == 1", 1),
        ("alive == 9 or round == 2", 0),
        ("not (alive == 9 or round == 2)", 1),
    ];
    for (when, expected) in cases {
        assert_eq!(runs(&situation(when, 10.0, 1, false)), expected, "{when}");
    }
    // Out of range (2" against 3"): in_range fails.
    assert_eq!(runs(&situation("in_range", 2.0, 1, false)), 0);
    assert_eq!(runs(&situation("not in_range", 2.0, 1, false)), 1);
    // Round counts rounds: in 3 rounds, rounds 2 and 3 are past 1.
    assert_eq!(runs(&situation("round >= 2", 10.0, 3, false)), 2);
    assert_eq!(runs(&situation("round == 3", 10.0, 3, false)), 1);
    // Red first puts 1 damage on a 2-HP blue model: damaged reads it, and missing is
    // unchanged.
    assert_eq!(runs(&situation("damaged == 1", 10.0, 1, true)), 1);
    assert_eq!(runs(&situation("damaged == 1", 10.0, 1, false)), 0);
    assert_eq!(runs(&situation("missing == 2", 10.0, 1, true)), 1);
}

#[test]
fn an_order_that_cannot_be_declared_gives_way_to_the_next() {
    // Rally is barred within 1" of an enemy: blue falls through to Run. Without the enemy
    // near, the Rally is declared and Run is not.
    let near = r#"
[scenario]
name = "fallthrough"
[engagement]
rounds = 1
until = "rounds"
[[unit]]
id = "blue"
side = "blue"
size = 4
alive = 2
resolve = "d6>=1"
move = 1.0
models = [[10.0, 10.0], [11.0, 10.0]]
orders = [
  { command = "rally" },
  { command = "run", toward = [10.0, 20.0] },
]
[[unit]]
id = "red"
side = "red"
size = 1
resolve = "d6>=4"
models = [[RX, 10.0]]
"#;
    for (x, rally, run, alive) in [("12.5", 0, 1, 2), ("20.0", 1, 0, 4)] {
        let p = plan(&near.replace("RX", x), false);
        let g = gather(&p, 2000, 6, 1);
        assert_eq!(
            constant(metric(&p, &g, "blue.declared.rally"), "rally"),
            rally
        );
        assert_eq!(constant(metric(&p, &g, "blue.declared.run"), "run"), run);
        // Resolve 1+: a declared Rally restores both missing models.
        assert_eq!(constant(metric(&p, &g, "blue.alive"), "alive"), alive);
    }
}

/// Blue (one model, sure to kill one model a shot) and three red units: `a` (3 models, 5"
/// away), `b` (1 model, 10" away), `c` (4 models, 15" away), plus `d` (1 model, 20" away).
fn targets(target: &str) -> String {
    let red = |id: &str, x: f64, n: u32| {
        let models: Vec<String> = (0..n)
            .map(|i| format!("[{x}, {}]", 10.0 + 1.5 * i as f64))
            .collect();
        format!(
            "[[unit]]\nid = \"{id}\"\nside = \"red\"\nsize = {n}\nresolve = \"d6>=4\"\nmodels = [{}]\n",
            models.join(", ")
        )
    };
    format!(
        r#"
[scenario]
name = "targets"
[engagement]
rounds = 1
[[unit]]
id = "blue"
side = "blue"
size = 1
resolve = "d6>=4"
weapon = {{ attacks = 1, hit = "d6>=1", damage = 1, range = 30.0 }}
models = [[10.0, 10.0]]
orders = [{{ command = "shoot", target = "{target}" }}]
{}{}{}{}"#,
        red("a", 16.0, 3),
        red("b", 21.0, 1),
        red("c", 26.0, 4),
        red("d", 31.0, 1)
    )
}

/// Which red unit lost a model (every trial alike).
fn shot(text: &str) -> String {
    let p = plan(text, false);
    let g = gather(&p, 2000, 7, 1);
    let lost: Vec<&str> = ["a", "b", "c", "d"]
        .into_iter()
        .filter(|u| constant(metric(&p, &g, &format!("{u}.lost")), u) == 1)
        .collect();
    assert_eq!(lost.len(), 1, "{lost:?}");
    lost[0].to_string()
}

#[test]
fn each_target_rule_picks_its_unit() {
    assert_eq!(shot(&targets("nearest")), "a");
    // b and d have one model each: the nearer, b.
    assert_eq!(shot(&targets("weakest")), "b");
    assert_eq!(shot(&targets("strongest")), "c");
    assert_eq!(shot(&targets("d")), "d");
    // Only units in range count: with 12" of range only a and b can be shot, and the
    // strongest of them is a.
    let short = targets("strongest").replace("range = 30.0", "range = 12.0");
    assert_eq!(shot(&short), "a");
    // Equal sizes and distances: file order. b and d have one model each; d moved 11" from
    // blue too.
    assert!(targets("weakest").contains("[31, 10]"));
    let tie = targets("weakest").replace("[31, 10]", "[10, 21]");
    assert_eq!(shot(&tie), "b");
}

// ---- who activates when ----

/// Blue and red one model each, 29" apart, weapons of 12" sure to kill, moving 10": each
/// shoots the nearest if it can, else runs at the other. Round 1 both run (to 9" apart);
/// round 2's first side shoots first and wins.
fn approach(first: &str) -> String {
    format!(
        r#"
[scenario]
name = "approach"
[engagement]
rounds = 4
first = "{first}"
[[unit]]
id = "blue"
side = "blue"
size = 1
resolve = "d6>=4"
move = 10.0
weapon = {{ attacks = 1, hit = "d6>=1", damage = 1, range = 12.0 }}
models = [[10.0, 10.0]]
orders = [{{ command = "shoot", target = "nearest" }}, {{ command = "run", toward = [10.0, 40.0] }}]
[[unit]]
id = "red"
side = "red"
size = 1
resolve = "d6>=4"
move = 10.0
weapon = {{ attacks = 1, hit = "d6>=1", damage = 1, range = 12.0 }}
models = [[10.0, 40.0]]
orders = [{{ command = "shoot", target = "nearest" }}, {{ command = "run", toward = [10.0, 10.0] }}]
"#
    )
}

#[test]
fn the_first_side_is_fixed_alternates_or_is_drawn() {
    for (first, blue_wins) in [("blue", 1), ("red", 0), ("alternate", 0)] {
        let p = plan(&approach(first), false);
        let g = gather(&p, 2000, 8, 1);
        assert_eq!(constant(metric(&p, &g, "blue.won"), first), blue_wins);
        assert_eq!(constant(metric(&p, &g, "red.won"), first), 1 - blue_wins);
        assert_eq!(constant(metric(&p, &g, "engagement.rounds"), first), 2);
        assert_eq!(constant(metric(&p, &g, "blue.declared.run"), first), 1);
    }
    // Random: a fair coin each round; round 2's decides.
    let p = plan(&approach("random"), false);
    let g = gather(&p, 100_000, 9, 2);
    assert_probability(metric(&p, &g, "blue.won"), |v| v == 1, 0.5, "random");
    assert_eq!(constant(metric(&p, &g, "engagement.rounds"), "random"), 2);
}

#[test]
fn a_unit_with_no_models_is_skipped_and_a_side_out_of_units_lets_the_others_go_on() {
    // Blue's first unit has no model: blue's gun still activates first and kills red.
    let ghost = r#"
[scenario]
name = "ghost"
[engagement]
first = "blue"
[[unit]]
id = "ghost"
side = "blue"
size = 3
alive = 0
resolve = "d6>=4"
[[unit]]
id = "gun"
side = "blue"
size = 1
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=1", damage = 1, range = 24.0 }
models = [[10.0, 10.0]]
orders = [{ command = "shoot", target = "nearest" }]
[[unit]]
id = "red"
side = "red"
size = 1
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=1", damage = 1, range = 24.0 }
models = [[10.0, 20.0]]
orders = [{ command = "shoot", target = "nearest" }]
"#;
    let p = plan(ghost, false);
    let g = gather(&p, 2000, 10, 1);
    assert_eq!(constant(metric(&p, &g, "blue.won"), "ghost"), 1);
    assert_eq!(constant(metric(&p, &g, "red.declared.shoot"), "ghost"), 0);
    // One blue unit of two models against three red units of one: blue kills the nearest
    // red unit; then red, its second and third units in a row since blue has no unit left,
    // each kill a blue model.
    let mut many = String::from(
        r#"
[scenario]
name = "many"
[engagement]
[[unit]]
id = "x"
side = "blue"
size = 2
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=1", damage = 1, range = 30.0 }
models = [[10.0, 10.0], [11.5, 10.0]]
orders = [{ command = "shoot", target = "nearest" }]
"#,
    );
    for (i, y) in [(1, 15.0), (2, 20.0), (3, 25.0)] {
        many.push_str(&format!(
            "[[unit]]\nid = \"r{i}\"\nside = \"red\"\nsize = 1\nresolve = \"d6>=4\"\n\
             weapon = {{ attacks = 1, hit = \"d6>=1\", damage = 1, range = 30.0 }}\n\
             models = [[10.0, {y}]]\norders = [{{ command = \"shoot\", target = \"x\" }}]\n"
        ));
    }
    let p = plan(&many, false);
    let g = gather(&p, 2000, 11, 1);
    let c = |m: &str| constant(metric(&p, &g, m), m);
    assert_eq!(c("x.alive"), 0);
    assert_eq!(c("r1.alive"), 0);
    assert_eq!((c("r2.alive"), c("r3.alive")), (1, 1));
    assert_eq!((c("red.won"), c("blue.won")), (1, 0));
    assert_eq!(c("engagement.rounds"), 1);
    assert_eq!(
        (
            c("r1.declared.shoot"),
            c("r2.declared.shoot"),
            c("r3.declared.shoot")
        ),
        (0, 1, 1)
    );
}

#[test]
fn until_rounds_plays_every_round_and_destroyed_stops_at_once() {
    // Red has no model left after blue's first shot; with until = "rounds" all 4 rounds are
    // begun, blue shooting once (nothing left to shoot) and won either way.
    let text = approach("blue").replace("[10.0, 40.0]]", "[10.0, 20.0]]");
    for (until, rounds) in [("destroyed", 1), ("rounds", 4)] {
        let t = text.replace(
            "rounds = 4\n",
            &format!("rounds = 4\nuntil = \"{until}\"\n"),
        );
        let p = plan(&t, false);
        let g = gather(&p, 2000, 12, 1);
        assert_eq!(constant(metric(&p, &g, "engagement.rounds"), until), rounds);
        assert_eq!(constant(metric(&p, &g, "blue.won"), until), 1);
        assert_eq!(constant(metric(&p, &g, "blue.declared.shoot"), until), 1);
    }
}

// ---- the binary: reproducibility and bad input ----

fn rollcall(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("cannot start the rollcall binary")
}

fn ok(dir: &Path, args: &[&str]) -> Output {
    let out = rollcall(dir, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "rollcall {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

const TABLES: [&str; 2] = ["summary.csv", "distribution.csv"];

#[test]
fn threads_and_shards_give_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let file = dir.join("shootout.toml");
    std::fs::write(&file, shootout(5, 5, "d6>=4", "d6>=3", "random", 6)).unwrap();
    let f = file.to_str().unwrap();
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec!["run", f, "--trials", "300000", "--seed", "3", "--quiet"];
        args.extend_from_slice(&["--out", out]);
        args.extend_from_slice(extra);
        ok(dir, &args);
    };
    run("one", &["--threads", "1"]);
    run("two", &["--threads", "2"]);
    for shard in ["0/3", "1/3", "2/3"] {
        run("parts", &["--shard", shard, "--threads", "2"]);
    }
    ok(dir, &["merge", "parts", "--out", "merged"]);
    for name in TABLES {
        let one = std::fs::read(dir.join("one").join(name)).unwrap();
        assert_eq!(one, std::fs::read(dir.join("two").join(name)).unwrap());
        assert_eq!(one, std::fs::read(dir.join("merged").join(name)).unwrap());
    }
}

#[test]
fn rally_after_losses_validates_and_run_is_refused_and_only_noted() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // Blue Rallies once it has lost a model: where restored models go depends on which
    // models the dice removed, which the exact engine follows by layouts (once refused);
    // the simulation agrees.
    let rally = shootout(2, 2, "d6>=4", "d6>=4", "blue", 2).replace(
        r#"orders = [{ command = "shoot", target = "nearest" }]"#,
        r#"orders = [{ when = "missing >= 1", command = "rally" }, { command = "shoot", target = "nearest" }]"#,
    );
    assert!(rally.contains("command = \"rally\""));
    std::fs::write(dir.join("r.toml"), rally).unwrap();
    ok(
        dir,
        &[
            "run",
            "r.toml",
            "--trials",
            "200000",
            "--validate",
            "--quiet",
            "--out",
            "rv",
        ],
    );
    let csv = std::fs::read_to_string(dir.join("rv/validation.csv")).unwrap();
    assert!(csv.contains(",blue.restored,"), "{csv}");
    assert!(csv.lines().skip(1).all(|l| l.ends_with(",pass")), "{csv}");
    // Blue runs once it has lost a model: Run moves units, which the exact engine does not
    // follow.
    let text = shootout(2, 2, "d6>=4", "d6>=4", "blue", 2)
        .replace(
            r#"orders = [{ command = "shoot", target = "nearest" }]"#,
            r#"orders = [{ when = "missing >= 1", command = "run" }, { command = "shoot", target = "nearest" }]"#,
        )
        .replacen("weapon =", "move = 3.0\nweapon =", 1);
    assert!(text.contains("move = 3.0"));
    std::fs::write(dir.join("e.toml"), text).unwrap();
    let out = rollcall(dir, &["exact", "e.toml", "--out", "x"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("unit `blue`, order #1 (run when `missing >= 1`)")
            && stderr.contains("Run moves units")
            && !stderr.contains("panicked"),
        "{stderr}"
    );
    assert!(!dir.join("x").exists());
    let out = ok(
        dir,
        &[
            "run",
            "e.toml",
            "--trials",
            "1000",
            "--validate",
            "--out",
            "v",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not validated") && stderr.contains("Run moves units"),
        "{stderr}"
    );
    assert!(dir.join("v/summary.csv").is_file() && !dir.join("v/validation.csv").exists());
}

const BASE: &str = r#"[scenario]
name = "e"
trials = 1000
[engagement]
rounds = 3
[[unit]]
id = "blue"
side = "blue"
size = 3
resolve = "d6>=4"
move = 5.0
weapon = { attacks = 1, hit = "d6>=4", damage = 1, range = 24.0 }
formation = { kind = "line", x = 10.0, y = 10.0, spacing = 1.5 }
orders = [
  { when = "missing >= 2 and not enemy_within(1)", command = "rally" },
  { command = "shoot", target = "nearest" },
]
[[unit]]
id = "green"
side = "green"
size = 3
resolve = "d6>=4"
formation = { kind = "line", x = 10.0, y = 30.0, spacing = 1.5 }
"#;

/// Runs `text` and asserts exit 2, no panic, nothing written, and that stderr names the file
/// and holds every one of `parts`.
fn refused(text: &str, parts: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("bad.toml"), text).unwrap();
    let out = rollcall(tmp.path(), &["run", "bad.toml", "--quiet", "--out", "out"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "panic:\n{stderr}");
    assert_eq!(out.status.code(), Some(2), "{text}\nstderr:\n{stderr}");
    assert!(out.stdout.is_empty() && !tmp.path().join("out").exists());
    let missing: Vec<&&str> = parts
        .iter()
        .chain(&["bad.toml:"])
        .filter(|p| !stderr.contains(**p))
        .collect();
    assert!(missing.is_empty(), "lacks {missing:?}:\n{stderr}");
}

fn edit(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "no {from:?}");
    BASE.replacen(from, to, 1)
}

#[test]
fn the_base_engagement_runs() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("e.toml"), BASE).unwrap();
    ok(tmp.path(), &["run", "e.toml", "--quiet", "--out", "out"]);
    assert_green_losses(&tmp.path().join("out"));
}

/// In BASE blue never loses a model (green has no weapon), so it shoots green every round:
/// three rounds of three attacks hitting on 4+ with no save, the nearest model first. Green
/// loses min(3, H) models, H ~ Binomial(9, 1/2): P(H = 0, 1, 2) = 1, 9, 36 in 512, so the
/// losses are 0, 1, 2, 3 with 1, 9, 36, 466 in 512 (mean 1479/512), whoever goes first and
/// whichever target rule picks the only enemy.
fn assert_green_losses(out: &Path) {
    let pmf = [(0.0, 1.0), (1.0, 9.0), (2.0, 36.0), (3.0, 466.0)].map(|(v, c)| (v, c / 512.0));
    let mean: f64 = pmf.iter().map(|&(v, p)| v * p).sum();
    let variance: f64 = pmf.iter().map(|&(v, p)| (v - mean) * (v - mean) * p).sum();
    let rows = common::csv_rows(&out.join("summary.csv"));
    let lost = rows
        .iter()
        .find(|r| r["metric"] == "green.lost")
        .expect("a green.lost row");
    let trials: f64 = lost["trials"].parse().unwrap();
    let got: f64 = lost["mean"].parse().unwrap();
    assert!(
        (got - mean).abs() < 5.0 * (variance / trials).sqrt(),
        "green.lost {got}, expected {mean}"
    );
}

#[test]
fn bad_engagement_sections_are_refused() {
    let rounds = "rounds = 3\n";
    refused(
        &edit(rounds, "rouns = 3\n"),
        &["engagement.rouns", "did you mean \"rounds\""],
    );
    refused(
        &edit(rounds, "rounds = 0\n"),
        &[
            "engagement.rounds",
            "0 must be a whole number from 1 to 1000",
        ],
    );
    refused(
        &edit(rounds, "rounds = 5000\n"),
        &["engagement.rounds", "5000", "1000"],
    );
    refused(
        &edit(rounds, "rounds = \"six\"\n"),
        &[
            "rounds = \"six\"",
            "key `engagement.rounds`: expected a whole number, found the string \"six\"",
        ],
    );
    refused(
        &edit(rounds, "first = \"gren\"\n"),
        &[
            "engagement.first",
            "\"gren\" (did you mean \"green\"?) is not a side of any unit",
            "\"alternate\", \"random\"",
            "\"blue\", \"green\"",
        ],
    );
    refused(
        &edit(rounds, "until = \"destroy\"\n"),
        &[
            "engagement.until",
            "did you mean \"destroyed\"",
            "\"rounds\"",
        ],
    );
    refused(
        &edit(rounds, "objective = { bleu = \"blue.won\" }\n"),
        &[
            "engagement.objective.bleu",
            "unknown side \"bleu\" (did you mean \"blue\"?)",
        ],
    );
    refused(
        &edit(rounds, "objective = { blue = \"blue.wom\" }\n"),
        &[
            "engagement.objective.blue",
            "unknown metric \"blue.wom\" (did you mean \"blue.won\"?)",
            "green.won",
            "blue.declared.rally",
        ],
    );
    refused(
        &edit(rounds, "objective = { blue = 3 }\n"),
        &["engagement.objective.blue", "metric name"],
    );
    refused(
        &format!("{BASE}[[step]]\nunit = \"blue\"\ncommand = \"rally\"\n"),
        &["[[step]]s or an [engagement], never both"],
    );
    refused(
        &format!(
            "{BASE}[[choice]]\nid = \"a\"\nsteps = [{{ unit = \"blue\", command = \"rally\" }}]\n"
        ),
        &["key `choice`", "not supported in an [engagement] yet"],
    );
    refused(
        &edit("[engagement]\nrounds = 3\n", ""),
        &[
            "unit.blue.orders",
            "orders are played only in an [engagement]",
        ],
    );
}

#[test]
fn bad_orders_are_refused() {
    let rally = "{ when = \"missing >= 2 and not enemy_within(1)\", command = \"rally\" }";
    let shoot = "{ command = \"shoot\", target = \"nearest\" }";
    refused(
        &edit(rally, "{ wehn = \"alive > 1\", command = \"rally\" }"),
        &["unit.blue.orders[0].wehn", "did you mean \"when\""],
    );
    refused(
        &edit(
            rally,
            "{ when = \"missing >= 2 && in_range\", command = \"rally\" }",
        ),
        &[
            "key `unit.blue.orders[0].when`",
            "bad condition",
            "missing >= 2 && in_range",
            "^^",
        ],
    );
    refused(
        &edit(rally, "{ when = \"alivee > 1\", command = \"rally\" }"),
        &["unit.blue.orders[0].when", "alivee"],
    );
    refused(
        &edit(rally, "{ command = \"charge\" }"),
        &["unit.blue.orders[0].command", "unknown command \"charge\""],
    );
    refused(
        &edit(shoot, "{ command = \"shoot\", target = \"nearst\" }"),
        &[
            "unit.blue.orders[1].target",
            "unknown target \"nearst\" (did you mean \"nearest\"?)",
        ],
    );
    refused(
        &edit(shoot, "{ command = \"shoot\", target = \"blue\" }"),
        &["unit.blue.orders[1].target", "own side"],
    );
    refused(
        &edit(shoot, "{ command = \"shoot\" }"),
        &["unit.blue.orders[1].target", "\"weakest\""],
    );
    refused(
        &edit(rally, "{ command = \"rally\", target = \"green\" }"),
        &["unit.blue.orders[0].target", "rally takes no target"],
    );
    refused(
        &edit(
            shoot,
            "{ command = \"shoot\", target = \"green\", toward = [1.0, 2.0] }",
        ),
        &["unit.blue.orders[1].toward", "shoot has no `toward`"],
    );
    refused(
        &edit(shoot, "{ command = \"run\", toward = [1.0] }"),
        &["unit.blue.orders[1].toward", "pair of numbers"],
    );
    // Green, the last unit, has neither weapon nor move.
    refused(
        &format!("{BASE}orders = [{{ command = \"shoot\", target = \"blue\" }}]\n"),
        &["unit.green.orders[0].command", "needs a weapon"],
    );
    refused(
        &format!("{BASE}orders = [{{ command = \"run\" }}]\n"),
        &["unit.green.orders[0].command", "needs a move distance"],
    );
    refused(
        &format!("{BASE}orders = 3\n"),
        &["key `unit.green.orders`: expected a list, found the integer 3"],
    );
    refused(
        &format!("{BASE}orders = [{{}}]\n"),
        &["key `unit.green.orders[0].command`: missing; this key is required here"],
    );
    refused(
        &edit("side = \"green\"", "side = \"random\"")
            .replace("rounds = 3\n", "rounds = 3\nfirst = \"random\"\n"),
        &[
            "engagement.first",
            "both a way of choosing the first side and the name of a side",
        ],
    );
    refused(
        &edit("rounds = 3\n", "objective = 3\n"),
        &["key `engagement.objective`: expected a table, found the integer 3"],
    );
}

#[test]
fn set_reaches_orders_and_the_engagement() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("e.toml"), BASE).unwrap();
    let out = rollcall(
        tmp.path(),
        &[
            "run",
            "e.toml",
            "--quiet",
            "--out",
            "out",
            "--set",
            "unit.blue.orders.#1.when=alive >",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unit.blue.orders[0].when"), "{stderr}");
    ok(
        tmp.path(),
        &[
            "run",
            "e.toml",
            "--quiet",
            "--out",
            "out",
            "--set",
            "engagement.first=random",
            "--set",
            "unit.blue.orders.#2.target=weakest",
        ],
    );
    assert_green_losses(&tmp.path().join("out"));
    // The settings took: the explanation draws the first side and shoots the weakest.
    let explained = ok(
        tmp.path(),
        &[
            "explain",
            "e.toml",
            "--set",
            "engagement.first=random",
            "--set",
            "unit.blue.orders.#2.target=weakest",
        ],
    );
    let text = String::from_utf8_lossy(&explained.stdout);
    assert!(
        text.contains("a side drawn at random first in each round"),
        "{text}"
    );
    assert!(
        text.contains("order #2 (shoot), always: blue declares Shoot at the enemy unit it can shoot with the fewest models"),
        "{text}"
    );
}

/// Three sides in a row, one model each, 9" apart edge to edge, weapons sure to kill and
/// reaching everything, shooting the nearest once `when` holds. B's nearest are A and C
/// alike: file order, A. Whoever goes first decides: A first kills B and then C kills A; B
/// first kills A, then C kills B; either way C wins. C first kills B, then A kills C: A wins.
fn three_sides(first: &str, when: &str) -> String {
    let unit = |id: &str, x: f64| {
        format!(
            "[[unit]]\nid = \"{id}\"\nside = \"{id}\"\nsize = 1\nresolve = \"d6>=4\"\n\
             weapon = {{ attacks = 1, hit = \"d6>=1\", damage = 1, range = 30.0 }}\n\
             models = [[{x}, 10.0]]\n\
             orders = [{{ when = \"{when}\", command = \"shoot\", target = \"nearest\" }}]\n"
        )
    };
    format!(
        "[scenario]\nname = \"three\"\n[engagement]\nrounds = 6\nfirst = \"{first}\"\n{}{}{}",
        unit("A", 10.0),
        unit("B", 20.0),
        unit("C", 30.0)
    )
}

#[test]
fn with_three_sides_alternate_rotates_and_random_is_uniform() {
    // (first, when, the winner, rounds begun): alternate makes A first in round 1, B in 2,
    // C in 3; nothing is shot before `when` holds.
    let cases = [
        ("alternate", "round >= 1", "A", "C", 1),
        ("alternate", "round >= 2", "B", "C", 2),
        ("alternate", "round >= 3", "C", "A", 3),
        ("alternate", "round >= 4", "A", "C", 4),
        ("A", "round >= 3", "A", "C", 3),
        ("C", "round >= 2", "C", "A", 2),
    ];
    for (first, when, first_side, winner, rounds) in cases {
        let what = format!("{first}, {when} ({first_side} first)");
        let p = plan(&three_sides(first, when), false);
        let g = gather(&p, 2000, 13, 1);
        for side in ["A", "B", "C"] {
            let won = constant(metric(&p, &g, &format!("{side}.won")), &what);
            assert_eq!(won, i64::from(side == winner), "{what}: {side}.won");
        }
        assert_eq!(constant(metric(&p, &g, "engagement.rounds"), &what), rounds);
    }
    // Random: each side first with 1/3; A wins only when C is.
    let p = plan(&three_sides("random", "round >= 1"), false);
    let g = gather(&p, 150_000, 14, 2);
    assert_probability(metric(&p, &g, "A.won"), |v| v == 1, 1.0 / 3.0, "random A");
    assert_probability(metric(&p, &g, "C.won"), |v| v == 1, 2.0 / 3.0, "random C");
    assert_eq!(constant(metric(&p, &g, "B.won"), "random B"), 0);
}

#[test]
fn call_of_the_masters_keeps_the_unit_its_rule_picked() {
    // Use 1 kills the nearest unit's one model for sure; use 2 keeps that target and fizzles,
    // so the farther unit is untouched, unless masters.retarget picks it.
    let text = |options: &str| {
        format!(
            r#"
[scenario]
name = "masters"
[options]
{options}
[engagement]
rounds = 1
[[unit]]
id = "masters"
side = "blue"
size = 1
resolve = "d6>=4"
rules = ["call_of_the_masters"]
weapon = {{ attacks = 1, hit = "d6>=1", damage = 1, range = 30.0 }}
models = [[10.0, 10.0]]
orders = [{{ command = "shoot", target = "nearest" }}]
[[unit]]
id = "near"
side = "red"
size = 1
resolve = "d6>=4"
models = [[15.0, 10.0]]
[[unit]]
id = "far"
side = "red"
size = 2
resolve = "d6>=4"
models = [[25.0, 10.0], [26.5, 10.0]]
"#
        )
    };
    for (options, far_lost) in [("", 0), ("masters.retarget = true", 1)] {
        let p = plan(&text(options), false);
        let g = gather(&p, 2000, 15, 1);
        assert_eq!(constant(metric(&p, &g, "near.lost"), options), 1);
        assert_eq!(constant(metric(&p, &g, "far.lost"), options), far_lost);
        assert_eq!(
            constant(metric(&p, &g, "masters.declared.shoot"), options),
            1
        );
    }
}

#[test]
fn a_unit_whose_orders_all_fail_still_spends_its_sides_turn() {
    // Blue's first unit has models but its one order never applies (nothing is missing): it
    // does nothing, yet blue's turn is spent, so red shoots next and kills blue's gun before
    // it can fire. Had the idle activation not counted, the gun would have killed red first.
    let text = r#"
[scenario]
name = "idle"
[engagement]
first = "blue"
rounds = 1
until = "rounds"
[[unit]]
id = "idle"
side = "blue"
size = 3
resolve = "d6>=4"
models = [[30.0, 10.0], [31.5, 10.0], [33.0, 10.0]]
orders = [{ when = "missing >= 1", command = "rally" }]
[[unit]]
id = "gun"
side = "blue"
size = 1
weapon = { attacks = 1, hit = "d6>=1", damage = 1, range = 24.0 }
models = [[10.0, 10.0]]
orders = [{ command = "shoot", target = "red" }]
[[unit]]
id = "red"
side = "red"
size = 1
weapon = { attacks = 1, hit = "d6>=1", damage = 1, range = 24.0 }
models = [[10.0, 20.0]]
orders = [{ command = "shoot", target = "gun" }]
"#;
    let p = plan(text, false);
    let g = gather(&p, 2000, 12, 1);
    let c = |m: &str| constant(metric(&p, &g, m), m);
    assert_eq!(c("idle.declared.rally"), 0);
    assert_eq!((c("gun.alive"), c("red.alive")), (0, 1));
    assert_eq!(c("gun.declared.shoot"), 0);
}
