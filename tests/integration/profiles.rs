//! Weapon profiles: attacks and damage given as dice, the `4+` shorthand, optional `resolve`
//! and the refusal of `reroll ones` on `<=` tests. Each distribution is worked by hand in the
//! test and checked against the simulator (5 standard errors and chi-square, fixed seeds, on
//! the fast and the general path) and against the exact engine (1e-12).

use rollcall::exact;
use rollcall::scenario;
use std::process::Command;

use crate::common;

use common::{assert_fits, binomial_pmf, gather, metric, plan, TRIALS};

const TOLERANCE: f64 = 1e-12;

/// A `shooter` 10" from a `target`; `weapon`, `target_keys` and `options` are inserted as
/// written.
fn volley(shooter_keys: &str, target_keys: &str, options: &str) -> String {
    format!(
        r#"
[scenario]
name = "profiles"
[options]
{options}
[[unit]]
id = "shooter"
side = "blue"
{shooter_keys}
[[unit]]
id = "target"
side = "red"
{target_keys}
[[step]]
unit = "shooter"
command = "shoot"
target = "target"
"#
    )
}

/// Ten 1-HP models in a line, enough that no volley below wipes the unit out.
const TEN: &str = "size = 10\nformation = { kind = \"line\", x = 20.0, y = 5.0, spacing = 1.5 }";

/// Two shooter models, each with `attacks`, hitting on 4+, 1 damage, no resolve.
fn two_models(attacks: &str, hit: &str) -> String {
    format!(
        "size = 2\nweapon = {{ attacks = {attacks}, hit = \"{hit}\", damage = 1, range = 24.0 }}\nmodels = [[10.0, 10.0], [10.0, 12.0]]"
    )
}

fn exact_pmf(text: &str, name: &str) -> Vec<(i64, f64)> {
    let set = scenario::parse(text, "test.toml", &[]).expect("test scenario is valid");
    let report = exact::report(&set, &[]).expect("the exact engine applies");
    report.variants[0]
        .metrics
        .iter()
        .find(|m| m.metric == name)
        .unwrap_or_else(|| panic!("no metric {name}"))
        .pmf
        .clone()
}

fn assert_same_pmf(got: &[(i64, f64)], want: &[(i64, f64)], what: &str) {
    let p = |pmf: &[(i64, f64)], v: i64| pmf.iter().find(|e| e.0 == v).map_or(0.0, |e| e.1);
    for &(v, _) in got.iter().chain(want) {
        assert!(
            (p(got, v) - p(want, v)).abs() <= TOLERANCE,
            "{what}: P({v}) exact {}, by hand {}",
            p(got, v),
            p(want, v)
        );
    }
}

/// Simulated (fast and general path) and exact distributions of `name` against `want`.
fn check_all(text: &str, name: &str, want: &[(i64, f64)], seed: u64) {
    for general in [false, true] {
        let plan = plan(text, general);
        let g = gather(&plan, TRIALS, seed, 2);
        assert_fits(
            metric(&plan, &g, name),
            want,
            &format!("{name} general={general}"),
        );
    }
    assert_same_pmf(&exact_pmf(text, name), want, name);
}

#[test]
fn d3_attacks_of_two_models_by_hand() {
    // Each model rolls d3 attacks: the total A is 2..=6 with 1, 2, 3, 2, 1 ways of 9. Every
    // attack hits on 4+ (1/2) and there is no save, so given A the unsaved hits are
    // Binomial(A, 1/2), and P(u) = sum_A P(A) C(A, u) / 2^A.
    let p_total = [(2, 1.0), (3, 2.0), (4, 3.0), (5, 2.0), (6, 1.0)].map(|(a, w)| (a, w / 9.0));
    let mut want = vec![(0i64, 0.0); 7];
    for (i, cell) in want.iter_mut().enumerate() {
        cell.0 = i as i64;
    }
    for (a, pa) in p_total {
        for (u, pu) in binomial_pmf(a, 0.5) {
            want[u as usize].1 += pa * pu;
        }
    }
    // The two ends by hand: P(0) = (1/4 + 2/8 + 3/16 + 2/32 + 1/64) / 9 = 49/576, and
    // P(6) = 1/9 / 64 = 1/576.
    assert!((want[0].1 - 49.0 / 576.0).abs() < 1e-15);
    assert!((want[6].1 - 1.0 / 576.0).abs() < 1e-15);
    let text = volley(&two_models("\"d3\"", "d6>=4"), TEN, "");
    check_all(&text, "target.lost", &want, 11);
    // With a 4+ save each attack goes through with 1/2 * 1/2 = 1/4: Binomial(A, 1/4) given A.
    let mut want = (0..=6).map(|u| (u, 0.0)).collect::<Vec<(i64, f64)>>();
    for (a, pa) in p_total {
        for (u, pu) in binomial_pmf(a, 0.25) {
            want[u as usize].1 += pa * pu;
        }
    }
    let text = text.replace("id = \"target\"", "id = \"target\"\ndefense = \"4+\"");
    check_all(&text, "target.lost", &want, 18);
}

#[test]
fn d3_plus_1_damage_on_two_hp_models_by_hand() {
    // One model, 2 attacks hitting on 4+, no save: unsaved hits U are 0, 1, 2 with 1/4, 1/2,
    // 1/4. Each deals d3+1 (2, 3 or 4, a third each) to two 2-HP models.
    let shooter = "size = 1\nweapon = { attacks = 2, hit = \"4+\", damage = \"d3+1\", range = 24.0 }\nmodels = [[10.0, 10.0]]";
    let target = "size = 2\nhp = 2\nmodels = [[20.0, 10.0], [22.0, 10.0]]";
    let third = 1.0 / 3.0;
    // With spill: one hit of 2 kills a model, 3 also wounds the other, 4 kills both; after
    // two hits both are dead whatever was rolled (2 + 2 is already 4 HP).
    // lost: 0 w.p. 1/4; 1 w.p. 1/2 * 2/3 = 1/3; 2 w.p. 1/2 * 1/3 + 1/4 = 5/12.
    // damage_taken: 0 w.p. 1/4; 2, 3 w.p. 1/6 each; 4 w.p. 1/6 + 1/4 = 5/12.
    let text = volley(shooter, target, "spill = true");
    check_all(
        &text,
        "target.lost",
        &[(0, 0.25), (1, third), (2, 5.0 / 12.0)],
        12,
    );
    check_all(
        &text,
        "target.damage_taken",
        &[(0, 0.25), (2, 1.0 / 6.0), (3, 1.0 / 6.0), (4, 5.0 / 12.0)],
        13,
    );
    // Without spill every hit kills one fresh model and the rest is lost: lost = U,
    // damage_taken = 2 U, whatever the dice.
    let text = volley(shooter, target, "spill = false");
    let u = [(0, 0.25), (1, 0.5), (2, 0.25)];
    check_all(&text, "target.lost", &u, 14);
    check_all(
        &text,
        "target.damage_taken",
        &u.map(|(v, p)| (2 * v, p)),
        15,
    );
}

#[test]
fn rolled_damage_on_three_hp_models_by_hand() {
    // One attack that always hits, d3 damage, into a 3-HP model behind which stands another,
    // with spill: damage_taken is the roll; the 3 kills one model. Then a second volley of the
    // same kind (Call of the Masters) starts on the damaged model: after rolls a, b the damage
    // is a + b (2..6, ways 1,2,3,2,1 of 9) and lost is 1 when a + b >= 3, 2 when a + b = 6.
    let shooter = format!(
        "size = 1\nweapon = {{ attacks = 1, hit = \"d6>=1\", damage = \"d3\", range = 24.0 }}\nmodels = [[10.0, 10.0]]\n{}",
        common::MASTERS
    );
    let target = "size = 2\nhp = 3\nmodels = [[20.0, 10.0], [22.0, 10.0]]";
    let text = volley(&shooter, target, "spill = true");
    let ninth = 1.0 / 9.0;
    check_all(
        &text,
        "target.damage_taken",
        &[
            (2, ninth),
            (3, 2.0 * ninth),
            (4, 3.0 * ninth),
            (5, 2.0 * ninth),
            (6, ninth),
        ],
        16,
    );
    check_all(
        &text,
        "target.lost",
        &[(0, ninth), (1, 7.0 * ninth), (2, ninth)],
        17,
    );
}

#[test]
fn four_plus_is_d6_at_least_4() {
    use rollcall::dice::DiceTest;
    let short = DiceTest::parse("4+").unwrap();
    assert_eq!(short, DiceTest::parse("d6>=4").unwrap());
    assert_eq!(short.to_string(), "d6>=4");
    assert_eq!(short.probability(), rollcall::dice::Fraction::new(1, 2));
    assert_eq!(
        DiceTest::parse("4+ reroll ones").unwrap(),
        DiceTest::parse("d6>=4 reroll ones").unwrap()
    );
    // The same scenario written both ways simulates to the same histograms, trial for trial.
    let written = |hit: &str, resolve: &str, defense: &str| {
        let shooter = format!("{}\nresolve = \"{resolve}\"", two_models("\"d3\"", hit));
        volley(&shooter, &format!("{TEN}\ndefense = \"{defense}\""), "")
    };
    let a = plan(&written("4+ reroll ones", "3+", "5+"), false);
    let b = plan(&written("d6>=4 reroll ones", "d6>=3", "d6>=5"), false);
    let (ga, gb) = (gather(&a, 50_000, 3, 1), gather(&b, 50_000, 3, 1));
    for name in ["target.lost", "target.damage_taken"] {
        let (ha, hb) = (metric(&a, &ga, name), metric(&b, &gb, name));
        assert_eq!(
            ha.iter().collect::<Vec<_>>(),
            hb.iter().collect::<Vec<_>>(),
            "{name}"
        );
    }
}

#[test]
fn fixed_amounts_as_text_draw_as_numbers() {
    // "2" is the number 2: the same draws, so the same histograms trial for trial.
    let a = plan(&volley(&two_models("2", "d6>=4"), TEN, ""), false);
    let b = plan(&volley(&two_models("\"2\"", "d6>=4"), TEN, ""), false);
    let (ga, gb) = (gather(&a, 50_000, 5, 1), gather(&b, 50_000, 5, 1));
    let (ha, hb) = (
        metric(&a, &ga, "target.lost"),
        metric(&b, &gb, "target.lost"),
    );
    assert_eq!(ha.iter().collect::<Vec<_>>(), hb.iter().collect::<Vec<_>>());
    // And 2 attacks from each of 2 models are Binomial(4, 1/2).
    assert_fits(ha, &binomial_pmf(4, 0.5), "2 attacks");
}

fn error(text: &str) -> String {
    scenario::parse(text, "bad.toml", &[])
        .expect_err("the scenario is refused")
        .to_string()
}

fn says(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "lacks {part:?}: {message}");
    }
}

#[test]
fn reroll_ones_on_a_roll_under_test_is_refused() {
    let text = volley(&two_models("1", "d6>=4"), TEN, "").replace(
        "id = \"target\"",
        "id = \"target\"\ndefense = \"2d6<=7 reroll ones\"",
    );
    says(
        &error(&text),
        &[
            "bad.toml",
            "unit.target.defense",
            "\"2d6<=7 reroll ones\"",
            "'reroll ones' on a '<=' test",
            "did you mean 'reroll fails'?",
        ],
    );
    // The same test with `reroll fails`, and `reroll ones` on a `>=` test, are fine.
    for ok in [
        "2d6<=7 reroll fails",
        "2d6>=7 reroll ones",
        "3+ reroll ones",
    ] {
        let text = volley(&two_models("1", "d6>=4"), TEN, "").replace(
            "id = \"target\"",
            &format!("id = \"target\"\ndefense = \"{ok}\""),
        );
        assert!(scenario::parse(&text, "ok.toml", &[]).is_ok(), "{ok}");
    }
}

/// A unit without `resolve` that shoots, and its target (also without one), then optionally
/// a Rally by the target.
fn without_resolve(rally: bool) -> String {
    let mut text = volley(&two_models("\"d3\"", "4+"), TEN, "");
    if rally {
        text.push_str("[[step]]\nid = \"regroup\"\nunit = \"target\"\ncommand = \"rally\"\n");
    }
    text
}

#[test]
fn resolve_is_needed_only_to_rally() {
    assert!(!without_resolve(false).contains("resolve"));
    let set = scenario::parse(&without_resolve(false), "ok.toml", &[]).unwrap();
    assert!(set.variants[0]
        .scenario()
        .units
        .iter()
        .all(|u| u.resolve.is_none()));
    says(
        &error(&without_resolve(true)),
        &[
            "bad.toml",
            "step.regroup.command",
            "\"rally\" needs a Resolve test but unit \"target\" has none",
            "add resolve = \"d6>=4\"",
        ],
    );
    // With a Resolve test the Rally is fine.
    let text =
        without_resolve(true).replace("id = \"target\"", "id = \"target\"\nresolve = \"4+\"");
    assert!(scenario::parse(&text, "ok.toml", &[]).is_ok());
}

#[test]
fn bad_amounts_name_the_key_and_the_grammar() {
    let cases = [
        ("\"d3x\"", "weapon.attacks", "unexpected 'x' after the dice"),
        (
            "\"three\"",
            "weapon.attacks",
            "neither a whole number nor dice",
        ),
        (
            "\"10d200\"",
            "weapon.attacks",
            "can roll up to 2000, more than the most allowed, 1000",
        ),
        (
            "1001",
            "weapon.attacks",
            "1001 must be a whole number from 0 to 1000",
        ),
        (
            "1.5",
            "attacks",
            "expected a whole number such as 2, or dice text",
        ),
    ];
    for (attacks, key, problem) in cases {
        let e = error(&volley(&two_models(attacks, "4+"), TEN, ""));
        says(&e, &["bad.toml", key, problem]);
    }
    let damage = |d: &str| {
        volley(&two_models("1", "4+"), TEN, "").replace("damage = 1", &format!("damage = {d}"))
    };
    says(
        &error(&damage("\"d3-3\"")),
        &[
            "unit.shooter.weapon.damage",
            "\"d3-3\" never rolls more than 0",
        ],
    );
    says(
        &error(&damage("0")),
        &[
            "unit.shooter.weapon.damage",
            "0 must be a whole number from 1",
        ],
    );
    // A roll that can fall below 1 is allowed (its 0 deals nothing).
    assert!(scenario::parse(&damage("\"d3-1\""), "ok.toml", &[]).is_ok());
}

#[test]
fn the_binary_refuses_with_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.toml");
    std::fs::write(&file, without_resolve(true)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .args(["check", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    says(&stderr, &["step.regroup.command", "add resolve"]);
}

#[test]
fn rolled_profiles_match_the_exact_engine_with_saves_defend_and_doubling() {
    // A mixed case with no hand formula: 2d3 attacks (in the covering fire too), a save,
    // Defend, Call of the Masters and d3-1 damage with spill. The simulator must fit the
    // exact engine's pmf of every metric.
    let shooter = format!(
        "size = 3\nhp = 2\nweapon = {{ attacks = \"2d3\", hit = \"4+\", damage = \"d3-1\", range = 24.0 }}\nmodels = [[10.0, 10.0], [10.0, 12.0], [10.0, 14.0]]\n{}",
        common::MASTERS
    );
    let target = "size = 4\nhp = 2\ndefense = \"5+\"\nresponse = \"random\"\nweapon = { attacks = \"d3\", hit = \"5+\", damage = \"d3\", range = 24.0 }\nformation = { kind = \"line\", x = 20.0, y = 5.0, spacing = 1.5 }";
    let text = volley(&shooter, target, "spill = true");
    let plan = plan(&text, false);
    let g = gather(&plan, TRIALS, 21, 2);
    for name in [
        "target.lost",
        "target.damage_taken",
        "shooter.lost",
        "shooter.damage_taken",
        "step1.responses",
        "step1.fizzled",
    ] {
        assert_fits(metric(&plan, &g, name), &exact_pmf(&text, name), name);
    }
}
