//! The exact engine on engagements: a shoot-out against a Markov chain over model counts worked
//! out here (to 1e-9), conditional orders and target rules against the Monte Carlo engine,
//! conditions and target rules after removals worked out by hand, the refusal of Run, and
//! `run --validate` on the shipped duel.

use crate::common;

use common::shootout::{chain, marginal, shootout, End};
use common::{assert_fits, gather, plan};
use rollcall::engine::Trial;
use rollcall::exact;
use rollcall::output::ExactReport;
use rollcall::scenario::{self, ScenarioSet};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const TOLERANCE: f64 = 1e-9;

fn load(text: &str) -> ScenarioSet {
    scenario::parse(text, "test.toml", &[]).expect("test scenario is valid")
}

fn exact_of(text: &str) -> ExactReport {
    exact::report(&load(text), &[]).expect("the exact engine applies")
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
    let mut values: Vec<i64> = got.iter().chain(want).map(|&(v, _)| v).collect();
    values.sort_unstable();
    values.dedup();
    let at =
        |pmf: &[(i64, f64)], v: i64| pmf.iter().find(|&&(x, _)| x == v).map_or(0.0, |&(_, p)| p);
    for v in values {
        let (g, w) = (at(got, v), at(want, v));
        assert!(
            (g - w).abs() <= TOLERANCE,
            "{what}: P({v}) exact {g}, chain {w}"
        );
    }
}

/// The chance that blue activates first in a round.
type BlueFirst = fn(u32) -> f64;
/// A metric's value at an end of the chain.
type Reading = fn(End) -> i64;

#[test]
fn a_shootout_is_its_markov_chain() {
    // Blue 3 models hitting on 4+ (1/2), red 2 models hitting on 3+ (2/3), at most 3 rounds.
    let cases: [(&str, BlueFirst); 4] = [
        ("blue", |_| 1.0),
        ("red", |_| 0.0),
        // Alternate: the first unit's side (blue) in round 1, then red, then blue.
        ("alternate", |round| if round % 2 == 1 { 1.0 } else { 0.0 }),
        // Random: a fair coin each round.
        ("random", |_| 0.5),
    ];
    for (first, blue_first) in cases {
        let r = exact_of(&shootout(3, 2, "d6>=4", "d6>=3", first, 3));
        let law = chain(3, 2, 0.5, 2.0 / 3.0, 3, blue_first);
        let total: f64 = law.values().sum();
        assert!((total - 1.0).abs() < 1e-12, "the chain loses mass: {total}");
        let checks: [(&str, Reading); 9] = [
            ("blue.alive", |(b, ..)| b as i64),
            ("blue.lost", |(b, ..)| 3 - b as i64),
            ("red.alive", |(_, r, ..)| r as i64),
            ("red.destroyed", |(_, r, ..)| i64::from(r == 0)),
            ("blue.won", |(b, r, ..)| i64::from(b > 0 && r == 0)),
            ("red.won", |(b, r, ..)| i64::from(r > 0 && b == 0)),
            ("engagement.rounds", |(_, _, n, ..)| n as i64),
            ("blue.declared.shoot", |(.., nb, _)| nb as i64),
            ("red.declared.shoot", |(.., nr)| nr as i64),
        ];
        for (name, f) in checks {
            assert_pmf(
                &pmf(&r, name),
                &marginal(&law, f),
                &format!("first = {first}: {name}"),
            );
        }
    }
}

#[test]
fn the_chain_is_right_on_a_case_done_by_hand() {
    // One blue model hitting on 4+ against one red model hitting always, blue first, one
    // round: blue wins with 1/2 after one volley, else red kills it with the second.
    let mut law = chain(1, 1, 0.5, 1.0, 1, |_| 1.0);
    law.retain(|_, p| *p > 0.0);
    assert_eq!(
        law,
        BTreeMap::from([((1, 0, 1, 1, 0), 0.5), ((0, 1, 1, 1, 1), 0.5)])
    );
}

// ---- conditions and target rules, exact against Monte Carlo ----

/// Blue `guns` (3 models) shoots the weakest red unit while it has 2 models or more, then
/// the strongest; red `small` (2 models, nearer) and `big` (4 models, farther) shoot back
/// under conditions that counts, or geometry the same for every model, decide. Everything
/// is in range of everything, and `small` is nearer to `guns` than `big` whatever models are
/// left, so ties go to `small`.
const THREE: &str = r#"
[scenario]
name = "three"
[engagement]
rounds = 3
first = "alternate"
[[unit]]
id = "guns"
side = "blue"
size = 3
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=3", damage = 1, range = 48.0 }
formation = { kind = "line", x = 10.0, y = 10.0, spacing = 1.5 }
orders = [
  { when = "alive >= 2", command = "shoot", target = "weakest" },
  { command = "shoot", target = "strongest" },
]
[[unit]]
id = "small"
side = "red"
size = 2
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=4", damage = 1, range = 48.0 }
formation = { kind = "line", x = 10.0, y = 20.0, spacing = 1.5 }
orders = [{ when = "in_range and round != 2", command = "shoot", target = "nearest" }]
[[unit]]
id = "big"
side = "red"
size = 4
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=5", damage = 1, range = 48.0 }
formation = { kind = "line", x = 10.0, y = 40.0, spacing = 1.5 }
orders = [
  { when = "enemy_within(6) or missing >= 3", command = "shoot", target = "guns" },
  { when = "not enemy_within(6)", command = "shoot", target = "guns" },
]
"#;

#[test]
fn conditions_and_target_rules_agree_with_the_simulator() {
    let r = exact_of(THREE);
    let p = plan(THREE, false);
    let g = gather(&p, 400_000, 41, 2);
    let names: Vec<String> = r.variants[0]
        .metrics
        .iter()
        .map(|m| m.metric.clone())
        .collect();
    let simulated: Vec<String> = p.metrics().iter().map(|m| m.name.clone()).collect();
    assert_eq!(
        names, simulated,
        "the exact engine reports what run reports"
    );
    // Each round's records too: the plan lists them in the same order.
    for (m, h) in r.variants[0].metrics.iter().zip(&g.metrics) {
        let what = format!("{} (round {:?})", m.metric, m.round);
        assert_fits(h, &m.pmf, &what);
    }
    assert_eq!(r.variants[0].metrics.len(), g.metrics.len());
    // The rules were exercised: small was wiped out in some trials, big hit in some.
    assert!(pmf(&r, "small.lost")
        .iter()
        .any(|&(v, p)| v == 2 && p > 0.01));
    assert!(pmf(&r, "big.lost").iter().any(|&(v, p)| v >= 1 && p > 0.01));
}

#[test]
fn target_rules_by_hand() {
    // One round, guns first with three sure hits: weakest takes small's two models; strongest
    // (guns' first order never holds) takes three of big's four; with big cut to two models,
    // strongest ties and goes to the nearer, small.
    let sure = THREE
        .replace("rounds = 3", "rounds = 1")
        .replace("first = \"alternate\"", "first = \"blue\"")
        .replace("hit = \"d6>=3\"", "hit = \"d6>=1\"");
    let never = sure.replace("alive >= 2", "alive >= 4");
    let tied = never.replace("size = 4", "size = 2");
    for (text, small, big, what) in [
        (&sure, 2, 0, "weakest"),
        (&never, 0, 3, "strongest"),
        (&tied, 2, 0, "strongest, tied"),
    ] {
        let r = exact_of(text);
        assert_pmf(&pmf(&r, "small.lost"), &[(small, 1.0)], what);
        assert_pmf(&pmf(&r, "big.lost"), &[(big, 1.0)], what);
    }
}

// ---- geometry after removals ----

fn refusal(text: &str) -> String {
    match exact::report(&load(text), &[]) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("expected a refusal"),
    }
}

/// Red (one model, sure to hit) shoots first at blue: 2 models 20" apart, only the first
/// near red; `far`, unarmed, stands as far from both. Blue, whose gun never hits, then takes
/// `order`.
fn lopsided(order: &str) -> String {
    format!(
        r#"
[scenario]
name = "lopsided"
[engagement]
rounds = 2
first = "red"
until = "rounds"
[[unit]]
id = "blue"
side = "blue"
size = 2
resolve = "d6>=4"
weapon = {{ attacks = 1, hit = "d6>=7", damage = 1, range = 10.0 }}
models = [[10.0, 10.0], [30.0, 10.0]]
orders = [{order}]
[[unit]]
id = "red"
side = "red"
size = 1
resolve = "d6>=4"
weapon = {{ attacks = 1, hit = "d6>=1", damage = 1, range = 48.0 }}
models = [[10.0, 14.0]]
orders = [{{ command = "shoot", target = "blue" }}]
[[unit]]
id = "far"
side = "red"
size = 1
resolve = "d6>=4"
models = [[20.0, 20.0]]
"#
    )
}

#[test]
fn what_removals_decide_is_read_from_the_layouts() {
    // Once refused. Red's sure hit removes blue's model at (10, 10), 3" from red; the one
    // left, at (30, 10), stands 19.4" from red and 13.1" from `far` (edge to edge). So in
    // round 1 no enemy is within 5" of blue, none in its 10" range, and `far` is the
    // nearest; in round 2 red removes the last model before blue acts.
    for when in ["enemy_within(5)", "in_range"] {
        let r = exact_of(&lopsided(&format!(
            r#"{{ when = "{when}", command = "shoot", target = "red" }}"#
        )));
        assert_pmf(&pmf(&r, "blue.declared.shoot"), &[(0, 1.0)], when);
        assert_pmf(&pmf(&r, "blue.alive"), &[(0, 1.0)], "red's two sure hits");
    }
    // With 48" and a gun that always hits, blue shoots `far`, not red (3" away before the
    // hit, 19.4" after).
    let r = exact_of(
        &lopsided(r#"{ command = "shoot", target = "nearest" }"#)
            .replace("range = 10.0", "range = 48.0")
            .replace("hit = \"d6>=7\"", "hit = \"d6>=1\""),
    );
    assert_pmf(&pmf(&r, "blue.declared.shoot"), &[(1, 1.0)], "round 1 only");
    assert_pmf(&pmf(&r, "far.lost"), &[(1, 1.0)], "the nearest");
    assert_pmf(&pmf(&r, "red.lost"), &[(0, 1.0)], "not red");
    // A count before the geometry settles it.
    let r = exact_of(&lopsided(
        r#"{ when = "alive > 5 and enemy_within(5)", command = "shoot", target = "red" }"#,
    ));
    assert_pmf(&pmf(&r, "blue.alive"), &[(0, 1.0)], "red's two sure hits");
    assert_pmf(
        &pmf(&r, "blue.declared.shoot"),
        &[(0, 1.0)],
        "never declared",
    );
    assert_pmf(&pmf(&r, "engagement.rounds"), &[(2, 1.0)], "until rounds");
}

fn rollcall() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rollcall"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

#[test]
fn refusals_exit_2_and_validate_notes_them() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("lopsided.toml");
    // Run moves units: the one order the exact engine still refuses.
    std::fs::write(
        &file,
        lopsided(r#"{ when = "round == 1", command = "run" }"#)
            .replace("range = 10.0 }", "range = 10.0 }\nmove = 3.0"),
    )
    .unwrap();
    let why = refusal(&std::fs::read_to_string(&file).unwrap());
    assert!(
        why.contains("unit `blue`, order #1 (run when `round == 1`)")
            && why.contains("Run moves units"),
        "{why}"
    );
    let out = rollcall()
        .arg("exact")
        .arg(&file)
        .arg("--out")
        .arg(tmp.path().join("x"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("lopsided.toml") && stderr.contains("unit `blue`, order #1"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked") && !tmp.path().join("x").exists());
    let out = rollcall()
        .arg("run")
        .arg(&file)
        .args(["--trials", "1000", "--validate", "--out"])
        .arg(tmp.path().join("v"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("not validated") && stderr.contains("order #1"));
    assert!(!tmp.path().join("v/validation.csv").exists());
}

// ---- shipped engagements ----

fn duel_text() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/duel.toml"))
        .unwrap()
}

#[test]
fn validate_passes_on_the_whole_duel_rallies_after_losses_included() {
    // The shipped duel, with fewer trials: its wardens Rally after losses at the first two
    // sweep points (once refused: "placement depends on which models the dice removed"),
    // and never at the third.
    let text = duel_text().replace("trials = 1_000_000", "trials = 200_000");
    assert!(text.contains("trials = 200_000"), "{text}");
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("duel.toml");
    std::fs::write(&file, text).unwrap();
    let out = rollcall()
        .arg("run")
        .arg(&file)
        .args(["--validate", "--quiet", "--out"])
        .arg(tmp.path().join("v"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let csv = std::fs::read_to_string(tmp.path().join("v/validation.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert!(rows.len() >= 15, "{csv}");
    assert!(rows.iter().all(|r| r.ends_with(",pass")), "{csv}");
    for m in [
        "blue.won",
        "red.won",
        "engagement.rounds",
        "wardens.declared.shoot",
        "wardens.declared.rally",
    ] {
        assert!(rows.iter().any(|r| r.contains(&format!(",{m},"))), "{m}");
    }
    // At the first sweep point the wardens do Rally after losses.
    let restored = rows
        .iter()
        .find(|r| r.contains("missing >= 2") && r.contains(",wardens.restored,"))
        .unwrap_or_else(|| panic!("{csv}"));
    let exact_mean: f64 = restored.split(',').nth(4).unwrap().parse().unwrap();
    assert!(exact_mean > 0.0, "{restored}");
}

/// Red's two guns shoot blue first (`scout`, without orders, takes blue's first turn):
/// `near` (within 1" of blue's model at x = 10) removes that model with 1/2, `far` the one at
/// x = 30 with 1/2. Blue's `best` order then chooses between Rally (Resolve 4+) and a gun
/// that never hits, for its models alive.
const TWO_SHOTS: &str = r#"
[scenario]
name = "twoshots"
[battlefield]
width = 48.0
height = 48.0
[engagement]
rounds = 1
first = "red"
until = "rounds"
objective = { blue = "blue.alive" }
[[unit]]
id = "scout"
side = "blue"
size = 1
resolve = "d6>=4"
models = [[40.0, 40.0]]
[[unit]]
id = "blue"
side = "blue"
size = 3
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=7", damage = 1, range = 48.0 }
models = [[10.0, 10.0], [20.0, 10.0], [30.0, 10.0]]
orders = [{ command = "best", among = ["rally", "shoot"], target = "nearest" }]
[[unit]]
id = "near"
side = "red"
size = 1
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=4", damage = 1, range = 48.0 }
models = [[10.0, 11.5]]
orders = [{ command = "shoot", target = "blue" }]
[[unit]]
id = "far"
side = "red"
size = 1
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=4", damage = 1, range = 48.0 }
models = [[30.0, 14.0]]
orders = [{ command = "shoot", target = "blue" }]
"#;

#[test]
fn best_orders_decide_on_states_that_differ_only_in_where_models_stand() {
    // One loss either way, the same moment for the advice, but Rally can be declared only
    // when `near` removed the model beside it; there blue Rallies (its one missing model back
    // with 1/2), elsewhere it can only shoot. Both lost (1/4): Rally, Binomial(2, 1/2) back.
    // Alive: 3 with 1/4 + 1/8 + 1/16, 2 with 1/8 + 1/4 + 1/8, 1 with 1/16.
    let r = exact_of(TWO_SHOTS);
    assert_pmf(
        &pmf(&r, "blue.alive"),
        &[(1, 0.0625), (2, 0.5), (3, 0.4375)],
        "alive",
    );
    assert_pmf(
        &pmf(&r, "blue.declared.rally"),
        &[(0, 0.5), (1, 0.5)],
        "rally",
    );
    // The simulation plays the advice (the advised option where it can be declared, else the
    // first that can) and agrees.
    let csv = common::validated(TWO_SHOTS, &["--trials", "200000"]);
    assert!(csv.contains(",blue.alive,"), "{csv}");
}
