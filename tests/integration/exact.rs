//! The exact engine: closed forms worked by hand (to 1e-12), refusals that name the step,
//! `rollcall exact` output, and `run --validate` on every shipped scenario it supports, plus a
//! deliberately biased sampler that validation must catch.

use rollcall::engine::{self, Monitor, RunSpec, Shard, Trial};
use rollcall::exact::{self, validate, Refusal};
use rollcall::output::{MetricReport, Report, VariantReport};
use rollcall::rules::Plan;
use rollcall::scenario::{self, ScenarioSet};
use std::path::Path;
use std::process::Command;

use crate::common;

use common::{duel, wounds, MASTERS};

const TOLERANCE: f64 = 1e-12;

fn load(text: &str) -> ScenarioSet {
    scenario::parse(text, "test.toml", &[]).expect("test scenario is valid")
}

fn load_file(path: &str) -> ScenarioSet {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    scenario::load(&p, &[]).expect("shipped scenario loads")
}

/// The exact pmf of `metric` in choice `choice` of sweep point `point`.
fn pmf(
    report: &rollcall::output::ExactReport,
    point: usize,
    choice: &str,
    metric: &str,
) -> Vec<(i64, f64)> {
    report.variants[point]
        .metrics
        .iter()
        .find(|m| m.choice == choice && m.metric == metric)
        .unwrap_or_else(|| panic!("no metric {choice}/{metric}"))
        .pmf
        .clone()
}

fn exact_of(text: &str) -> rollcall::output::ExactReport {
    exact::report(&load(text), &[]).expect("the exact engine applies")
}

fn p(pmf: &[(i64, f64)], value: i64) -> f64 {
    pmf.iter()
        .find(|&&(v, _)| v == value)
        .map_or(0.0, |&(_, p)| p)
}

fn assert_close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= TOLERANCE,
        "{what}: got {got}, want {want} (diff {:e})",
        (got - want).abs()
    );
}

fn assert_pmf(got: &[(i64, f64)], want: &[(i64, f64)], what: &str) {
    for &(v, q) in want {
        assert_close(p(got, v), q, &format!("{what}: P({v})"));
    }
    for &(v, q) in got {
        assert!(
            want.iter().any(|&(w, _)| w == v) || q <= TOLERANCE,
            "{what}: unexpected value {v} with probability {q}"
        );
    }
}

/// C(n, k) p^k (1-p)^(n-k), from the formula.
fn binomial(n: u32, p: f64) -> Vec<(i64, f64)> {
    (0..=n)
        .map(|k| {
            let choose: f64 = (0..k).map(|i| (n - i) as f64 / (i + 1) as f64).product();
            (
                k as i64,
                choose * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32),
            )
        })
        .collect()
}

#[test]
fn rally_is_binomial() {
    // configs/rally.toml: 5 missing, Resolve 4+, open field.
    let r = exact::report(&load_file("configs/rally.toml"), &[]).unwrap();
    let want = binomial(5, 0.5);
    assert_pmf(&pmf(&r, 0, "", "wardens.restored"), &want, "restored");
    let alive: Vec<(i64, f64)> = want.iter().map(|&(k, q)| (k + 5, q)).collect();
    assert_pmf(&pmf(&r, 0, "", "wardens.alive"), &alive, "alive");
    assert_pmf(&pmf(&r, 0, "", "step1.resolved"), &[(1, 1.0)], "resolved");
}

#[test]
fn doubled_rally_is_binomial_with_two_chances() {
    // configs/rally-masters.toml: 6 missing, Resolve 5+, doubled: each missing model comes
    // back unless it fails both tests, 1 - (2/3)^2 = 5/9.
    let r = exact::report(&load_file("configs/rally-masters.toml"), &[]).unwrap();
    assert_pmf(
        &pmf(&r, 0, "", "masters.restored"),
        &binomial(6, 5.0 / 9.0),
        "restored",
    );
    assert_pmf(&pmf(&r, 0, "", "step1.resolved"), &[(2, 1.0)], "uses");
}

#[test]
fn the_rally_table_sweep_is_binomial_at_every_point() {
    // 5 survivors 3" apart: room for every missing model, so Binomial(m, p) or, doubled,
    // Binomial(m, 1 - (1-p)^2), at all 100 points.
    let set = load_file("configs/rally-table.toml");
    let r = exact::report(&set, &[]).unwrap();
    assert_eq!(set.variants.len(), 100);
    for (i, v) in set.variants.iter().enumerate() {
        let u = &v.scenario().units[0];
        let p = u
            .resolve
            .as_ref()
            .expect("the swept unit rallies")
            .probability()
            .to_f64();
        let p = if u.call_of_the_masters {
            1.0 - (1.0 - p) * (1.0 - p)
        } else {
            p
        };
        let m = u.size - u.alive();
        assert_pmf(
            &pmf(&r, i, "", "wardens.restored"),
            &binomial(m, p),
            &format!("point {:?}", v.params),
        );
    }
}

#[test]
fn a_crowded_rally_caps_at_the_spots_found() {
    // configs/rally-crowded.toml: 9 missing, Resolve 3+, 6 spots: restored = min(X, 6).
    let r = exact::report(&load_file("configs/rally-crowded.toml"), &[]).unwrap();
    let b = binomial(9, 2.0 / 3.0);
    let mut want: Vec<(i64, f64)> = b[..6].to_vec();
    want.push((6, b[6..].iter().map(|&(_, q)| q).sum()));
    assert_pmf(&pmf(&r, 0, "", "pinned.restored"), &want, "crowded");
}

#[test]
fn doubled_shoot_kills_three_in_four_and_fizzles_half_the_time() {
    // 1 attack hitting on 4+, no defense: use 1 kills 1/2 and use 2 then fizzles; otherwise
    // use 2 kills 1/2. P(destroyed) = 3/4, P(use 2 fizzled) = 1/2.
    let r = exact_of(&duel(MASTERS, "", ""));
    assert_close(p(&pmf(&r, 0, "", "target.destroyed"), 1), 0.75, "destroyed");
    assert_close(p(&pmf(&r, 0, "", "step1.fizzled"), 1), 0.5, "fizzled");
    assert_pmf(
        &pmf(&r, 0, "", "step1.resolved"),
        &[(1, 0.5), (2, 0.5)],
        "resolved",
    );
}

#[test]
fn defend_lasts_through_both_uses() {
    // Defending on 6+ with +1 saves on 5+: kill per use 1/2 * 2/3 = 1/3; 1 - (2/3)^2 = 5/9.
    let r = exact_of(&duel(
        MASTERS,
        "defense = \"d6>=6\"\nresponse = \"defend\"",
        "",
    ));
    assert_close(
        p(&pmf(&r, 0, "", "target.destroyed"), 1),
        5.0 / 9.0,
        "defended",
    );
    assert_pmf(&pmf(&r, 0, "", "step1.responses"), &[(1, 1.0)], "responses");
    // Without Defend: kill per use 1/2 * 5/6 = 5/12, 1 - (7/12)^2 = 95/144.
    let r = exact_of(&duel(MASTERS, "defense = \"d6>=6\"", ""));
    assert_close(
        p(&pmf(&r, 0, "", "target.destroyed"), 1),
        95.0 / 144.0,
        "open",
    );
}

#[test]
fn covering_fire_and_random_responses() {
    // Covering Fire hits on 5+ (4+ at -1): the shooter dies 1/3 and its uses fizzle;
    // P(target destroyed) = 2/3 * 1/2 single, 2/3 * 3/4 doubled.
    let cf = "weapon = { attacks = 1, hit = \"d6>=4\", damage = 1, range = 24.0 }\nresponse = \"covering_fire\"";
    for (extra, uses, p_target) in [("", 1, 1.0 / 3.0), (MASTERS, 2, 0.5)] {
        let r = exact_of(&duel(extra, cf, ""));
        assert_close(
            p(&pmf(&r, 0, "", "masters.destroyed"), 1),
            1.0 / 3.0,
            "shooter",
        );
        assert_close(
            p(&pmf(&r, 0, "", "target.destroyed"), 1),
            p_target,
            "target",
        );
        assert_close(
            p(&pmf(&r, 0, "", "step1.fizzled"), uses),
            1.0 / 3.0,
            "fizzled",
        );
    }
    // Random: nothing, Defend or Covering Fire (never hits), 1/3 each; shooter hits on 1+.
    // P(destroyed) = 1/3 * 5/6 + 1/3 * 2/3 + 1/3 * 5/6 = 7/9.
    let target = "defense = \"d6>=6\"\nresponse = \"random\"\nweapon = { attacks = 1, hit = \"d6>=7\", damage = 1, range = 24.0 }";
    let r = exact_of(&duel("", target, "").replace("hit = \"d6>=4\"", "hit = \"d6>=1\""));
    assert_close(
        p(&pmf(&r, 0, "", "target.destroyed"), 1),
        7.0 / 9.0,
        "random",
    );
    assert_close(
        p(&pmf(&r, 0, "", "step1.responses"), 1),
        2.0 / 3.0,
        "answered",
    );
}

/// 2 models of 3 HP under 3 attacks hitting on 4+ (no save), 2 damage each.
#[test]
fn multi_hp_damage_by_hand() {
    // Hits ~ Binomial(3, 1/2): 1/8, 3/8, 3/8, 1/8. No spill: damage 0, 2, 3, 5 and lost
    // 0, 0, 1, 1 (the second hit finishes the damaged ogre, its extra point is lost).
    let r = exact_of(&wounds(false));
    assert_pmf(
        &pmf(&r, 0, "", "ogres.damage_taken"),
        &[(0, 0.125), (2, 0.375), (3, 0.375), (5, 0.125)],
        "no spill damage",
    );
    assert_pmf(
        &pmf(&r, 0, "", "ogres.lost"),
        &[(0, 0.5), (1, 0.5)],
        "no spill lost",
    );
    // Spill: damage 0, 2, 4, 6; lost 0, 0, 1, 2.
    let r = exact_of(&wounds(true));
    assert_pmf(
        &pmf(&r, 0, "", "ogres.damage_taken"),
        &[(0, 0.125), (2, 0.375), (4, 0.375), (6, 0.125)],
        "spill damage",
    );
    assert_pmf(
        &pmf(&r, 0, "", "ogres.lost"),
        &[(0, 0.5), (1, 0.375), (2, 0.125)],
        "spill lost",
    );
    // Doubled with spill: use 2 fires only if an ogre is left (7/8). Two volleys of 3 attacks
    // at 2 damage each kill both ogres (6 HP) when hits total at least 3: P = 1 - P(X1 + X2
    // <= 2) with X1 + X2 ~ Binomial(6, 1/2) = 1 - 22/64 = 42/64 (a wipe in use 1 needs 3 hits,
    // and then use 2 fizzles, which does not change the total).
    let r = exact_of(&wounds(true).replace(
        "models = [[10.0, 10.0]]",
        &format!("models = [[10.0, 10.0]]\n{MASTERS}"),
    ));
    assert_close(
        p(&pmf(&r, 0, "", "ogres.destroyed"), 1),
        42.0 / 64.0,
        "doubled",
    );
    assert_close(p(&pmf(&r, 0, "", "step1.fizzled"), 1), 1.0 / 8.0, "fizzled");
}

#[test]
fn every_shipped_distribution_sums_to_one() {
    for name in [
        "defend-vs-rally",
        "masters-shoot",
        "rally-crowded",
        "rally-enemy-near",
        "rally-masters",
        "rally-table",
        "rally",
        "shoot-then-rally",
        "duel",
        "orders-duel",
        "design-duel",
    ] {
        let r = exact::report(&load_file(&format!("configs/{name}.toml")), &[]).unwrap();
        for v in &r.variants {
            for m in &v.metrics {
                let total: f64 = m.pmf.iter().map(|&(_, q)| q).sum();
                assert!(
                    (total - 1.0).abs() < TOLERANCE,
                    "{name} {}: {total}",
                    m.metric
                );
                assert!(m.pmf.windows(2).all(|w| w[0].0 < w[1].0));
            }
        }
    }
}

fn refusal(text: &str) -> String {
    match exact::report(&load(text), &[]) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("expected a refusal"),
    }
}

#[test]
fn refuses_what_it_cannot_follow_naming_the_step() {
    // Run moves units.
    let run =
        duel("move = 3.0", "", "") + "[[step]]\nunit = \"masters\"\ncommand = \"run\"\nround = 2\n";
    let why = refusal(&run);
    assert!(
        why.contains("step `step2` (run)") && why.contains("movement"),
        "{why}"
    );

    // Card games.
    let cards = exact::report(&load_file("configs/cards-banniere.toml"), &[]);
    assert!(matches!(cards, Err(Refusal::Cards)));

    // Over the state limit: `rollouts::a_refusal_names_the_states_the_memory_and_the_flag`
    // (the limit is the process's, set by `--max-states`).
}

#[test]
fn rally_after_shoot_places_around_the_survivors() {
    // Once refused ("placement depends on which models the dice removed"). The shot kills
    // the nearer of the target's two models with 1/2; then 1 or 2 are missing, each back
    // with 1/2 (an open field, room for both around either survivor): restored is
    // 1/2 Binomial(1, 1/2) + 1/2 Binomial(2, 1/2).
    let shot_then_rally = duel(
        "",
        "size = 3\nalive = 2\nmodels = [[20.0, 10.0], [21.5, 10.0]]",
        "",
    )
    .replace("models = [[20.0, 10.0]]\n", "")
        + "[[step]]\nunit = \"target\"\ncommand = \"rally\"\nround = 2\n";
    let r = exact_of(&shot_then_rally);
    assert_pmf(
        &pmf(&r, 0, "", "target.restored"),
        &[(0, 3.0 / 8.0), (1, 1.0 / 2.0), (2, 1.0 / 8.0)],
        "restored",
    );
    assert_pmf(
        &pmf(&r, 0, "", "target.alive"),
        &[(1, 1.0 / 8.0), (2, 1.0 / 2.0), (3, 3.0 / 8.0)],
        "alive",
    );
}

#[test]
fn a_second_shooter_in_range_only_of_the_nearer_model_sees_which_was_removed() {
    // Once refused. The first shot (1/2) removes the model nearer to `masters`, the one at
    // 20", which is also the only one within the sniper's 10.5": the sniper then has no
    // target. Otherwise the sniper kills it with 1/2. Lost: 1 with 1/2 + 1/4.
    let text = duel("", "size = 2\nmodels = [[20.0, 10.0], [30.0, 10.0]]", "")
        .replace("models = [[20.0, 10.0]]\n", "")
        + SNIPER;
    let r = exact_of(&text);
    assert_pmf(
        &pmf(&r, 0, "", "step2.ineligible"),
        &[(0, 0.5), (1, 0.5)],
        "sniper out of range",
    );
    assert_pmf(
        &pmf(&r, 0, "", "target.lost"),
        &[(0, 0.25), (1, 0.75)],
        "lost",
    );
}

/// A second shooter whose 10.5" range reaches only the nearer of two target models.
const SNIPER: &str = r#"
[[unit]]
id = "sniper"
side = "blue"
size = 1
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=4", damage = 1, range = 10.5 }
models = [[10.0, 12.0]]
[[step]]
unit = "sniper"
command = "shoot"
target = "target"
"#;

#[test]
fn an_impossible_branch_needs_no_geometry() {
    // The same far-reaching case with a gun that never hits: no model is ever removed, so the
    // second shooter's range is the starting one and nothing is refused.
    let text = duel("", "size = 2\nmodels = [[20.0, 10.0], [30.0, 10.0]]", "")
        .replace("models = [[20.0, 10.0]]\n", "")
        .replace(
            "hit = \"d6>=4\", damage = 1, range = 24.0",
            "hit = \"d6>=7\", damage = 1, range = 24.0",
        )
        + SNIPER;
    let r = exact_of(&text);
    assert_pmf(&pmf(&r, 0, "", "step2.ineligible"), &[(0, 1.0)], "in range");
    assert_pmf(
        &pmf(&r, 0, "", "target.lost"),
        &[(0, 0.5), (1, 0.5)],
        "sniper",
    );
}

/// Plays a scenario with the Monte Carlo engine and lays it out as `run` would.
fn simulate(set: &ScenarioSet, trials: u64, seed: u64) -> Report {
    let variants = set
        .variants
        .iter()
        .map(|v| {
            let plan = Plan::compile(v.scenario());
            let spec = RunSpec {
                trials,
                seed,
                threads: 2,
                shard: Shard::WHOLE,
                precision: None,
            };
            let g = engine::run(&plan, &spec, &Monitor::default())
                .unwrap()
                .gathered;
            VariantReport {
                params: v.params.clone(),
                metrics: plan
                    .metrics()
                    .iter()
                    .zip(g.metrics)
                    .map(|(m, histogram)| MetricReport {
                        choice: m.choice.clone(),
                        metric: m.name.clone(),
                        histogram,
                        round: m.round,
                    })
                    .collect(),
                comparisons: vec![],
            }
        })
        .collect();
    Report {
        scenario: set.name.clone(),
        param_names: set.param_names.clone(),
        variants,
        both_enumerate: false,
        roster: None,
    }
}

#[test]
fn validation_catches_a_biased_sampler() {
    // The truth: Resolve d100>=51 (exactly 1/2). The "sampler under test" plays d100>=50
    // (51/100), a bias of one percentage point per test: validation must fail it and pass the
    // honest one on the same seed.
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/rally.toml"))
            .unwrap();
    let truth_text = text.replace("resolve = \"d6>=4\"", "resolve = \"d100>=51\"");
    let biased_text = text.replace("resolve = \"d6>=4\"", "resolve = \"d100>=50\"");
    let truth = load(&truth_text);
    let exact = exact::report(&truth, &[]).unwrap();

    let honest = validate::compare(&exact, &simulate(&truth, 1_000_000, 9));
    assert!(honest.iter().all(|r| r.pass), "{honest:?}");

    let biased = validate::compare(&exact, &simulate(&load(&biased_text), 1_000_000, 9));
    let failed: Vec<&str> = biased
        .iter()
        .filter(|r| !r.pass)
        .map(|r| r.metric.as_str())
        .collect();
    assert!(failed.contains(&"wardens.restored"), "{biased:?}");
    assert!(failed.contains(&"wardens.alive"), "{biased:?}");
}

fn rollcall() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rollcall"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

#[test]
fn exact_command_writes_exact_tables_and_refuses_with_status_2() {
    let tmp = tempfile::tempdir().unwrap();
    let out = rollcall()
        .args([
            "exact",
            "configs/masters-shoot.toml",
            "--set",
            "unit.target.hp=2",
            "--out",
        ])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = std::fs::read_to_string(tmp.path().join("summary.csv")).unwrap();
    let row = summary
        .lines()
        .find(|l| l.starts_with("masters-shoot,shoot,d6>=6,target.damage_taken,"))
        .unwrap();
    // trials empty, std_error 0, interval = mean.
    let f: Vec<&str> = row.split(',').collect();
    assert_eq!((f[4], f[5], f[9]), ("exact", "", "0"), "{row}");
    assert_eq!((f[10], f[11]), (f[6], f[6]), "{row}");
    // Each of the Masters' two shots hits on 4+ and the Defending target (6+ save, one better
    // for Defend) fails its save on 1 to 4: 1/2 x 2/3 = 1/3 a shot, and a target of 2 HP takes
    // every point, so damage taken is Binomial(2, 1/3): mean 2/3, variance 4/9.
    let (mean, variance): (f64, f64) = (f[6].parse().unwrap(), f[7].parse().unwrap());
    assert!((mean - 2.0 / 3.0).abs() < 1e-12, "{row}");
    assert!((variance - 4.0 / 9.0).abs() < 1e-12, "{row}");
    let dist = std::fs::read_to_string(tmp.path().join("distribution.csv")).unwrap();
    assert!(
        dist.lines()
            .skip(1)
            .all(|l| l.split(',').nth(6) == Some("")),
        "count is empty"
    );
    let meta = std::fs::read_to_string(tmp.path().join("run.json")).unwrap();
    assert!(meta.contains("\"method\": \"exact\""), "{meta}");

    let refused = rollcall()
        .args(["exact", "configs/cards-banniere.toml", "--out"])
        .arg(tmp.path().join("cards"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let why = String::from_utf8_lossy(&refused.stderr);
    assert!(
        why.contains("card games") && why.ends_with("; `rollcall run` simulates it\n"),
        "{why}"
    );
}

#[test]
fn validate_says_what_it_did_not_validate_even_when_quiet() {
    // `--quiet` hides progress and the summary line only: a run asked to validate that cannot
    // still says so, and says what to expect instead of pointing at the command just run.
    let tmp = tempfile::tempdir().unwrap();
    let out = rollcall()
        .args([
            "run",
            "configs/cards-banniere.toml",
            "--trials",
            "1000",
            "--validate",
            "--quiet",
            "--out",
        ])
        .arg(tmp.path().join("cards"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.starts_with(
            "warning: cards-banniere: not validated, the exact engine does not apply: "
        ) && stderr.contains("card games")
            && stderr.contains("without validation.csv"),
        "{stderr}"
    );
    assert!(!stderr.contains("use `rollcall run`"), "{stderr}");
    assert!(!tmp.path().join("cards/validation.csv").exists());
    // A run that validates and passes prints nothing with --quiet.
    let out = rollcall()
        .args([
            "run",
            "configs/rally-masters.toml",
            "--trials",
            "20000",
            "--validate",
            "--quiet",
            "--out",
        ])
        .arg(tmp.path().join("masters"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(tmp.path().join("masters/validation.csv").is_file());
}

#[test]
fn run_validate_passes_for_every_supported_shipped_scenario() {
    let tmp = tempfile::tempdir().unwrap();
    let supported = [
        "configs/defend-vs-rally.toml",
        "configs/masters-shoot.toml",
        "configs/rally-crowded.toml",
        "configs/rally-enemy-near.toml",
        "configs/rally-masters.toml",
        "configs/rally-table.toml",
        "configs/rally.toml",
        "configs/shoot-then-rally.toml",
        "configs/orders-duel.toml",
        "configs/design-duel.toml",
    ];
    let out = rollcall()
        .arg("run")
        .args(supported)
        .args([
            "--trials",
            "1e6",
            "--seed",
            "20240",
            "--validate",
            "--quiet",
            "--out",
        ])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "status {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    for f in supported {
        let name = Path::new(f).file_stem().unwrap().to_str().unwrap();
        let v = std::fs::read_to_string(tmp.path().join(name).join("validation.csv")).unwrap();
        assert!(v.lines().count() > 1, "{name}");
        assert!(
            v.lines().skip(1).all(|l| l.ends_with(",pass")),
            "{name}: {v}"
        );
    }
    // Call of the Masters in the corridor: the second use's spots depend on the first's
    // count (worked out per count), and the simulation agrees.
    let crowded = rollcall()
        .args([
            "run",
            "configs/rally-crowded.toml",
            "--set",
            "unit.pinned.rules=[\"call_of_the_masters\"]",
            "--trials",
            "1e6",
            "--validate",
            "--quiet",
            "--out",
        ])
        .arg(tmp.path().join("crowded-masters"))
        .output()
        .unwrap();
    assert!(
        crowded.status.success(),
        "{}",
        String::from_utf8_lossy(&crowded.stderr)
    );
    // The exit status alone would not show it was validated (a scenario the exact engine
    // refuses also exits 0, without validation.csv): the rows must be there, and all pass.
    let v = std::fs::read_to_string(tmp.path().join("crowded-masters/validation.csv")).unwrap();
    assert!(v.lines().count() > 1, "{v}");
    assert!(v.lines().skip(1).all(|l| l.ends_with(",pass")), "{v}");
}

#[test]
fn validate_is_refused_with_a_shard() {
    // A shard writes no tables to validate (the card game's not-validated note is checked
    // above).
    let tmp = tempfile::tempdir().unwrap();
    let out = rollcall()
        .args([
            "run",
            "configs/rally.toml",
            "--validate",
            "--shard",
            "0/2",
            "--out",
        ])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--validate cannot be combined with --shard"),
        "{stderr}"
    );
    assert!(!tmp.path().join("validation.csv").exists());
}
