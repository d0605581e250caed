//! `best` orders and `rollcall advise`: advised values against sums over binomial pmfs worked
//! out here, a second decision whose best option depends on the first's outcome, the advised
//! policy played by the Monte Carlo engine against the advised value, ties, and bad input.

use crate::common;

use common::{binomial_pmf, gather, metric};
use rollcall::exact::{self, Advice};
use rollcall::rules::Plan;
use rollcall::scenario::{self, Command, Game};
use rollcall::stats::Summary;
use std::path::Path;
use std::process::{Command as Process, Output};

const TOLERANCE: f64 = 1e-12;

fn compile(text: &str) -> Plan {
    let set = scenario::parse(text, "test.toml", &[]).expect("test scenario is valid");
    Plan::compile(set.variants[0].scenario())
}

fn advice(plan: &Plan) -> Advice {
    let Game::Engagement(e) = &plan.scenario().game else {
        panic!("an engagement")
    };
    match exact::advice(plan, e, "") {
        Ok(a) => a,
        Err(refusal) => panic!("advise refused: {refusal}"),
    }
}

/// P(k) of Binomial(n, p) from the formula.
fn pmf(n: u32, p: f64) -> Vec<f64> {
    binomial_pmf(n, p).into_iter().map(|(_, q)| q).collect()
}

// ---- one decision before one enemy volley ----

/// The wardens (6 of 10 models, Resolve 5+, one shot each hitting on 4+) act first: Rally or
/// Shoot the raiders (6 models, one shot each hitting on 3+), who then shoot back once.
pub(crate) fn volley(among: &str, objective: &str) -> String {
    volley_hitting(among, objective, "d6>=4")
}

/// As [`volley`], the wardens hitting with `hit`.
fn volley_hitting(among: &str, objective: &str, hit: &str) -> String {
    format!(
        r#"
[scenario]
name = "volley"
seed = 5
[battlefield]
width = 48.0
height = 48.0
[engagement]
rounds = 1
first = "blue"
objective = {{ blue = "{objective}" }}
[[unit]]
id = "wardens"
side = "blue"
size = 10
alive = 6
resolve = "d6>=5"
weapon = {{ attacks = 1, hit = "{hit}", damage = 1, range = 24.0 }}
formation = {{ kind = "line", x = 10.0, y = 10.0, spacing = 1.5 }}
orders = [{{ command = "best", among = {among}, target = "nearest" }}]
[[unit]]
id = "raiders"
side = "red"
size = 6
resolve = "d6>=4"
weapon = {{ attacks = 1, hit = "d6>=3", damage = 1, range = 24.0 }}
formation = {{ kind = "line", x = 10.0, y = 22.0, spacing = 1.5 }}
orders = [{{ command = "shoot", target = "nearest" }}]
"#
    )
}

/// E[wardens alive] by hand: Rally restores R ~ Bin(4, 1/3) models (the open field has room
/// for all), then the raiders' volley kills K ~ Bin(6, 2/3); Shoot kills L ~ Bin(6, 1/2)
/// raiders, and the 6 - L left kill K ~ Bin(6 - L, 2/3) (none when L = 6: the engagement is
/// over).
pub(crate) fn volley_by_hand() -> (f64, f64) {
    let volley = pmf(6, 2.0 / 3.0);
    let mut rally = 0.0;
    for (r, pr) in pmf(4, 1.0 / 3.0).into_iter().enumerate() {
        for (k, &pk) in volley.iter().enumerate() {
            rally += pr * pk * (6 + r) as f64 - pr * pk * k as f64;
        }
    }
    let mut shoot = 0.0;
    for (l, pl) in pmf(6, 0.5).into_iter().enumerate() {
        for (k, pk) in pmf(6 - l as u32, 2.0 / 3.0).into_iter().enumerate() {
            shoot += pl * pk * (6 - k) as f64;
        }
    }
    (rally, shoot)
}

#[test]
fn rally_or_shoot_before_a_volley_matches_the_sums_by_hand() {
    let (rally, shoot) = volley_by_hand();
    // In means: Rally 6 + 4/3 - 4, Shoot 6 - (6 - 3) * 2/3 (the sums are linear in K).
    assert!((rally - 10.0 / 3.0).abs() < 1e-12, "rally by hand {rally}");
    assert!((shoot - 4.0).abs() < 1e-12, "shoot by hand {shoot}");
    let a = advice(&compile(&volley(r#"["rally", "shoot"]"#, "wardens.alive")));
    assert_eq!(a.decisions.len(), 1, "one decision: the first activation");
    let d = &a.decisions[0];
    assert_eq!((d.round, d.unit), (1, 0));
    assert_eq!(d.state, "wardens 6/10; raiders 6/6");
    let got: Vec<(Command, f64, bool)> = d
        .options
        .iter()
        .map(|o| (o.command, o.value, o.best))
        .collect();
    assert_eq!(got.len(), 2);
    assert_eq!((got[0].0, got[0].2), (Command::Rally, false));
    assert_eq!((got[1].0, got[1].2), (Command::Shoot, true));
    assert!(
        (got[0].1 - rally).abs() < TOLERANCE,
        "{} vs {rally}",
        got[0].1
    );
    assert!(
        (got[1].1 - shoot).abs() < TOLERANCE,
        "{} vs {shoot}",
        got[1].1
    );
    // The blue side's value is the best option's; red's objective (red.won) under it: the
    // wardens shoot nothing (1/64) and all six raiders hit (64/729).
    assert!((a.values[0] - shoot).abs() < TOLERANCE);
    assert!(
        (a.values[1] - 1.0 / 729.0).abs() < TOLERANCE,
        "{}",
        a.values[1]
    );
}

#[test]
fn the_exact_tables_of_optimal_play_are_the_best_options() {
    // `rollcall exact` on a file with best orders plays the advice: wardens.alive's mean is
    // the best option's value, and the wardens always shoot.
    let set = scenario::parse(
        &volley(r#"["rally", "shoot"]"#, "wardens.alive"),
        "t.toml",
        &[],
    )
    .unwrap();
    let report = exact::report(&set, &[]).expect("exact applies");
    let find = |name: &str| {
        let m = report.variants[0]
            .metrics
            .iter()
            .find(|m| m.metric == name)
            .unwrap_or_else(|| panic!("no metric {name}"));
        m.pmf.iter().map(|&(v, p)| v as f64 * p).sum::<f64>()
    };
    let (_, shoot) = volley_by_hand();
    assert!((find("wardens.alive") - shoot).abs() < 1e-9);
    assert_eq!(find("wardens.declared.shoot"), 1.0);
    assert_eq!(find("wardens.declared.rally"), 0.0);
}

#[test]
fn the_advised_policy_played_by_simulation_meets_the_advised_value() {
    // Rally is best here: make Shoot poor (hit on 6+) so the policy is not the first option.
    let mut plan = compile(&volley_hitting(
        r#"["shoot", "rally"]"#,
        "wardens.alive",
        "d6>=6",
    ));
    let a = advice(&plan);
    let best = a.decisions[0].options.iter().find(|o| o.best).unwrap();
    assert_eq!(best.command, Command::Rally);
    let (rally, _) = volley_by_hand();
    assert!((best.value - rally).abs() < TOLERANCE, "{}", best.value);
    plan.set_policy(a.policy.clone());
    let g = gather(&plan, 200_000, 77, 2);
    let s = Summary::from_histogram(metric(&plan, &g, "wardens.alive")).unwrap();
    let z = (s.mean - best.value) / s.std_error;
    assert!(
        z.abs() < 5.0,
        "simulated {} vs advised {}, z = {z}",
        s.mean,
        best.value
    );
    // Every trial Rallied, none shot.
    let rallied = Summary::from_histogram(metric(&plan, &g, "wardens.declared.rally")).unwrap();
    assert_eq!((rallied.min, rallied.max), (1, 1));
}

// ---- a second decision that depends on the first's outcome ----

/// Round 1, blue first: `a` (one model, one shot hitting on 4+) shoots `r2`, whose models have
/// 2 HP: it can wound one, never kill. `r1` (red, no orders) passes. Then `b` (6 of 10
/// models, Resolve 6+, one shot each on 4+) decides: Rally, or Shoot `r2`, where a wounded
/// model makes a kill likelier. Then `r2` (4 models, one shot each on 4+) shoots `b`.
const SECOND: &str = r#"
[scenario]
name = "second"
[battlefield]
width = 48.0
height = 48.0
[engagement]
rounds = 1
first = "blue"
objective = { blue = "b.alive" }
[[unit]]
id = "a"
side = "blue"
size = 1
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=4", damage = 1, range = 30.0 }
models = [[5.0, 5.0]]
orders = [{ command = "shoot", target = "r2" }]
[[unit]]
id = "r1"
side = "red"
size = 1
resolve = "d6>=4"
models = [[45.0, 45.0]]
[[unit]]
id = "b"
side = "blue"
size = 10
alive = 6
resolve = "d6>=6"
weapon = { attacks = 1, hit = "d6>=4", damage = 1, range = 30.0 }
formation = { kind = "line", x = 10.0, y = 10.0, spacing = 1.5 }
orders = [{ command = "best", among = ["rally", "shoot"], target = "r2" }]
[[unit]]
id = "r2"
side = "red"
size = 4
hp = 2
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=4", damage = 1, range = 30.0 }
formation = { kind = "line", x = 10.0, y = 22.0, spacing = 1.5 }
orders = [{ command = "shoot", target = "b" }]
"#;

#[test]
fn the_second_decision_depends_on_what_the_first_activation_did() {
    // By hand, with r2 carrying a wound w (0 or 1) when b decides:
    // Rally: R ~ Bin(4, 1/6) restored, then K ~ Bin(4, 1/2) lost: E = 6 + R - K.
    // Shoot: H ~ Bin(6, 1/2) hits deal H damage, the wounded model first: floor((w + H) / 2)
    // models of r2 die, and the rest shoot: E = 6 - K, K ~ Bin(4 - kills, 1/2).
    let mut rally = 0.0;
    for (r, pr) in pmf(4, 1.0 / 6.0).into_iter().enumerate() {
        for (k, pk) in pmf(4, 0.5).into_iter().enumerate() {
            rally += pr * pk * (6.0 + r as f64 - k as f64);
        }
    }
    let shoot = |w: usize| {
        let mut e = 0.0;
        for (h, ph) in pmf(6, 0.5).into_iter().enumerate() {
            let left = 4 - (w + h) / 2;
            for (k, pk) in pmf(left as u32, 0.5).into_iter().enumerate() {
                e += ph * pk * (6 - k) as f64;
            }
        }
        e
    };
    let (shoot0, shoot1) = (shoot(0), shoot(1));
    // Rally gains 4/6 model; Shoot saves 1.25/2 unwounded, 1.75/2 wounded.
    assert!(
        shoot0 < rally && rally < shoot1,
        "{shoot0} {rally} {shoot1}"
    );
    let a = advice(&compile(SECOND));
    assert_eq!(a.decisions.len(), 2, "{:?}", a.decisions);
    for d in &a.decisions {
        let (want_best, shoot) = if d.state.contains("r2 4/4 damage 1 wound 1") {
            (Command::Shoot, shoot1)
        } else {
            assert!(d.state.contains("r2 4/4"), "{}", d.state);
            (Command::Rally, shoot0)
        };
        // a has shot (its token and restriction are part of the state).
        assert!(
            d.state
                .starts_with("a 1/1 restricted shoot token; r1 1/1; b 6/10"),
            "{}",
            d.state
        );
        let best = d.options.iter().find(|o| o.best).unwrap();
        assert_eq!(best.command, want_best, "{}", d.state);
        assert!(
            (d.options[0].value - rally).abs() < TOLERANCE,
            "{}",
            d.state
        );
        assert!(
            (d.options[1].value - shoot).abs() < TOLERANCE,
            "{}",
            d.state
        );
    }
    let root = 0.5 * rally + 0.5 * shoot1;
    assert!((a.values[0] - root).abs() < TOLERANCE);
    // The simulation finds the moment of each decision in the advice (a wounded model is read
    // off the models themselves): always Rallying instead would give 0.5 * (shoot1 - rally)
    // less, about 40 standard errors.
    let mut plan = compile(SECOND);
    plan.set_policy(a.policy.clone());
    let g = gather(&plan, 200_000, 91, 2);
    let s = Summary::from_histogram(metric(&plan, &g, "b.alive")).unwrap();
    let z = (s.mean - root) / s.std_error;
    assert!(
        z.abs() < 5.0,
        "simulated {} vs advised {root}, z = {z}",
        s.mean
    );
    let shot = Summary::from_histogram(metric(&plan, &g, "b.declared.shoot")).unwrap();
    assert!(
        (shot.mean - 0.5).abs() < 5.0 * shot.std_error,
        "{}",
        shot.mean
    );
}

// ---- ties ----

#[test]
fn ties_go_to_the_first_option_listed() {
    // Every option ends the one round: engagement.rounds is 1 whatever b does.
    for (among, first) in [
        (r#"["rally", "shoot"]"#, Command::Rally),
        (r#"["shoot", "rally"]"#, Command::Shoot),
    ] {
        let mut plan = compile(&volley(among, "engagement.rounds"));
        let a = advice(&plan);
        let d = &a.decisions[0];
        assert!(d.options.iter().all(|o| o.value == 1.0));
        let best: Vec<Command> = d
            .options
            .iter()
            .filter(|o| o.best)
            .map(|o| o.command)
            .collect();
        assert_eq!(best, [first], "{among}");
        // The simulation plays it too.
        plan.set_policy(a.policy.clone());
        let g = gather(&plan, 1000, 3, 1);
        let name = format!("wardens.declared.{}", first.name());
        let declared = Summary::from_histogram(metric(&plan, &g, &name)).unwrap();
        assert_eq!((declared.min, declared.max), (1, 1), "{among}");
    }
}

// ---- the command line ----

pub(crate) fn rollcall(args: &[&str]) -> Output {
    Process::new(env!("CARGO_BIN_EXE_rollcall"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("binary runs")
}

pub(crate) fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn advise_writes_advice_and_summarises_the_first_decision() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(
        tmp.path(),
        "v.toml",
        &volley(r#"["rally", "shoot"]"#, "wardens.alive"),
    );
    let out = tmp.path().join("out");
    let o = rollcall(&["advise", &file, "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let (rally, shoot) = volley_by_hand();
    assert!(
        stdout.contains(&format!("rally {rally:.4}, shoot {shoot:.4} (best)")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("shoot gains {:+.4} over rally", shoot - rally)),
        "{stdout}"
    );
    let csv = std::fs::read_to_string(out.join("advice.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "scenario,choice,round,unit,state,option,value,best,method,trials,ci95_low,ci95_high"
    );
    assert_eq!(lines.len(), 3);
    assert!(lines[1].starts_with("volley,,1,wardens,wardens 6/10; raiders 6/6,rally,"));
    // An exact value: no trials, its interval the value itself.
    let cells: Vec<&str> = lines[2].split(',').collect();
    assert_eq!(&cells[7..10], &["1", "exact", ""], "{}", lines[2]);
    assert_eq!(cells[6], cells[10]);
    assert_eq!(cells[6], cells[11]);
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(summary.contains("volley,,wardens.alive,exact,"));
    // run plays the advice and validates it against the exact tables of optimal play.
    let o = rollcall(&[
        "run",
        &file,
        "--out",
        tmp.path().join("run").to_str().unwrap(),
        "--trials",
        "200000",
        "--validate",
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let validation = std::fs::read_to_string(tmp.path().join("run/validation.csv")).unwrap();
    assert!(validation.contains("wardens.alive"));
    assert!(!validation.contains(",fail"), "{validation}");
}

#[test]
fn bad_best_orders_and_objectives_exit_2_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let good = volley(r#"["rally", "shoot"]"#, "wardens.alive");
    for (from, to, wants) in [
        (
            r#"among = ["rally", "shoot"]"#,
            r#"among = ["rallly", "shoot"]"#,
            &[
                "unit.wardens.orders[0].among[0]",
                "\"rallly\"",
                "did you mean \"rally\"",
                "\"run\"",
            ][..],
        ),
        (
            r#"among = ["rally", "shoot"]"#,
            "among = []",
            &["unit.wardens.orders[0].among", "lists no command"][..],
        ),
        (
            r#"among = ["rally", "shoot"]"#,
            r#"among = ["rally", "rally"]"#,
            &["among[1]", "listed twice"][..],
        ),
        (
            r#"command = "best", among = ["rally", "shoot"], "#,
            r#"command = "best", "#,
            &["unit.wardens.orders[0].among", "best needs"][..],
        ),
        (
            r#"blue = "wardens.alive""#,
            r#"blue = "wardens.alvie""#,
            &[
                "engagement.objective.blue",
                "\"wardens.alvie\"",
                "did you mean \"wardens.alive\"",
            ][..],
        ),
        (
            r#"command = "best""#,
            r#"command = "bset""#,
            &["did you mean \"best\""][..],
        ),
    ] {
        assert!(good.contains(from), "{from}");
        let file = write(tmp.path(), "bad.toml", &good.replace(from, to));
        for verb in ["advise", "check"] {
            let o = rollcall(&[verb, &file]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{verb} {to}: {err}");
            assert!(err.contains("bad.toml"), "{err}");
            for w in wants {
                assert!(err.contains(w), "{to}: wants {w} in {err}");
            }
        }
    }
    // A best order with no option the unit can ever take: Shoot without a weapon.
    let unarmed = good.replace(
        r#"weapon = { attacks = 1, hit = "d6>=4", damage = 1, range = 24.0 }
formation = { kind = "line", x = 10.0, y = 10.0"#,
        r#"formation = { kind = "line", x = 10.0, y = 10.0"#,
    );
    assert_ne!(unarmed, good);
    let file = write(tmp.path(), "unarmed.toml", &unarmed);
    let o = rollcall(&["advise", &file]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("unit.wardens.orders[0].among[1]") && err.contains("needs a weapon"),
        "{err}"
    );
    // No best order at all: nothing to advise.
    let file = write(
        tmp.path(),
        "plain.toml",
        &good.replace(
            r#"command = "best", among = ["rally", "shoot"]"#,
            r#"command = "shoot""#,
        ),
    );
    let o = rollcall(&["advise", &file]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no `best` order"));
}

#[test]
fn where_the_exact_engine_refuses_run_refuses_and_advise_scores_by_rollouts() {
    // Run moves units, which the exact engine does not follow.
    let text = volley(r#"["run", "shoot"]"#, "wardens.alive").replace(
        "resolve = \"d6>=5\"\nweapon",
        "resolve = \"d6>=5\"\nmove = 6.0\nweapon",
    );
    assert!(text.contains("move = 6.0"));
    let tmp = tempfile::tempdir().unwrap();
    let file = write(tmp.path(), "run.toml", &text);
    let o = rollcall(&["run", &file, "--trials", "100", "--quiet"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for w in [
        "cannot advise `best` orders",
        "unit `wardens`, order #1 (best)",
        "Run moves units",
        "had reached 2 states",
        // What to do instead: no command plays `best` without advice, so the message points
        // at rollouts and at fixed orders, never at `rollcall run`.
        "`best` orders are played as `rollcall advise` works them out",
        "--rollouts N` scores the options of each unit's first decision by simulation",
        "give the unit fixed orders instead",
    ] {
        assert!(err.contains(w), "wants {w} in {err}");
    }
    assert!(!err.contains("use `rollcall run`"), "{err}");
    // `advise` says why and scores the first decision by rollouts instead.
    let out = tmp.path().join("advice");
    let o = rollcall(&[
        "advise",
        &file,
        "--out",
        out.to_str().unwrap(),
        "--set",
        "scenario.trials=2000",
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        stdout.contains("the exact engine refuses") && stdout.contains("Run moves units"),
        "{stdout}"
    );
    assert!(
        stdout.contains("first decision of wardens (wardens.alive, 2,000 rollouts)"),
        "{stdout}"
    );
    let csv = std::fs::read_to_string(out.join("advice.csv")).unwrap();
    assert!(
        csv.contains(",run,") && csv.contains(",rollout,2000,"),
        "{csv}"
    );
    // `rollcall exact` plays the advice too, and refuses the same way.
    let o = rollcall(&[
        "exact",
        file.as_str(),
        "--out",
        tmp.path().join("x").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot advise `best` orders") && err.contains("give the unit fixed orders"),
        "{err}"
    );
    assert!(!err.contains("use `rollcall run`"), "{err}");
}

#[test]
fn a_refusal_in_an_arm_with_fixed_orders_is_not_blamed_on_the_advice() {
    // The advised arm is played as advised; another arm Runs, which the exact engine does not
    // follow. That refusal leaves the file to simulation: `run` plays both arms, `exact`
    // says it has no exact distribution (not that `best` cannot be advised), and `explain`
    // does not say `run` refuses it.
    let text = format!(
        "{}[[choice]]\nid = \"advised\"\nset = {{}}\n[[choice]]\nid = \"runner\"\n\
         set = {{ \"unit.wardens.orders\" = [{{ command = \"run\", toward = [0.0, 0.0] }}] }}\n",
        volley(r#"["rally", "shoot"]"#, "wardens.alive").replace(
            "resolve = \"d6>=5\"\nweapon",
            "resolve = \"d6>=5\"\nmove = 6.0\nweapon",
        )
    );
    assert!(text.contains("move = 6.0"));
    let tmp = tempfile::tempdir().unwrap();
    let file = write(tmp.path(), "arms.toml", &text);
    let out = |name: &str| tmp.path().join(name).display().to_string();
    let o = rollcall(&[
        "run",
        &file,
        "--trials",
        "1000",
        "--quiet",
        "--out",
        &out("run"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = rollcall(&["exact", &file, "--out", &out("exact")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no exact distribution") && err.contains("Run moves units"),
        "{err}"
    );
    assert!(!err.contains("cannot advise"), "{err}");
    let o = rollcall(&["explain", &file]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}");
    assert!(
        text.contains("Monte Carlo (`rollcall run`) applies"),
        "{text}"
    );
    assert!(!text.contains("it refuses this scenario"), "{text}");
}

#[test]
fn advise_help_names_the_folder_it_writes() {
    // The default folder, as docs/advice.md documents it.
    let o = rollcall(&["advise", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{help}");
    assert!(help.contains("results/SCENARIO/advice/"), "{help}");
    assert!(!help.contains("exact/"), "{help}");
    let o = rollcall(&["exact", "--help"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("results/SCENARIO/exact/"));
}
