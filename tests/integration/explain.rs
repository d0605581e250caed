//! `rollcall explain` on every shipped scenario: the text must name every unit, step, order
//! and metric the loaded scenario has, and give the exact engine's own verdict. What it
//! should name is taken from the scenario as the library loads and compiles it, not from the
//! explain code.

use rollcall::app::Compiled;
use rollcall::engine::Trial;
use rollcall::scenario::{self, Game, ScenarioSet, Setting};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
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

/// `rollcall explain FILE ARGS...`: its stdout, after checking it succeeded.
fn explain(file: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .current_dir(root())
        .arg("explain")
        .arg(file)
        .args(args)
        .output()
        .expect("binary runs");
    assert!(
        out.status.success(),
        "explain {} failed: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn metric_names(set: &ScenarioSet) -> Vec<String> {
    // The first sweep point's metrics: the explanation describes that point in full.
    let compiled = Compiled::compile(set);
    let (names, first) = match &compiled {
        Compiled::Battle(j) => (j.metrics(), j.metrics_of(0)),
        Compiled::Designs(j) => (j.metrics(), j.metrics_of(0)),
        Compiled::Cards(j) => (j.metrics(), j.metrics_of(0)),
    };
    // Round records (rounds.csv) are told in a paragraph of their own, not listed by name.
    names[first]
        .iter()
        .filter(|m| m.round.is_none())
        .map(|m| m.name.clone())
        .collect()
}

/// The last round an engagement's rounds.csv records, for the first sweep point.
fn last_round(set: &ScenarioSet) -> Option<u32> {
    let compiled = Compiled::compile(set);
    let (names, first) = match &compiled {
        Compiled::Battle(j) => (j.metrics(), j.metrics_of(0)),
        Compiled::Designs(j) => (j.metrics(), j.metrics_of(0)),
        Compiled::Cards(j) => (j.metrics(), j.metrics_of(0)),
    };
    names[first].iter().filter_map(|m| m.round).max()
}

/// Checks `text` against what the loaded `set` holds.
fn names_everything(file: &Path, set: &ScenarioSet, text: &str) {
    let has = |what: &str| {
        assert!(
            text.contains(what),
            "{}: the explanation does not contain {what:?}:\n{text}",
            file.display()
        )
    };
    has(&format!("Scenario `{}`", set.name));
    for name in &set.param_names {
        has(&format!("  {name}: "));
    }
    let v = &set.variants[0];
    for arm in v.arms() {
        for u in &arm.units {
            has(&format!("{}, side {}: {} of", u.id, u.side, u.alive()));
        }
        for id in arm.choice_ids() {
            if !id.is_empty() {
                has(&format!("`{id}`"));
            }
        }
        match &arm.game {
            Game::Steps(choices) => {
                for st in choices.iter().flat_map(|c| &c.steps) {
                    has(&format!("{}: {} ", st.id, arm.units[st.unit].id));
                }
            }
            Game::Engagement(e) => {
                for (u, orders) in e.orders.iter().enumerate() {
                    for (i, o) in orders.iter().enumerate() {
                        has(&format!("order #{} ({})", i + 1, o.order.name()));
                        if let Some(when) = &o.when {
                            has(&format!("when `{}`", when.text()));
                        }
                    }
                    if orders.is_empty() {
                        has(&format!("{}: no orders", arm.units[u].id));
                    }
                }
            }
            Game::Cards(game) => {
                for p in 0..2 {
                    let setup = game.player(p);
                    for &c in setup.hand.iter().chain(&setup.deck) {
                        has(&format!("  {} \"", game.cards()[c as usize].id));
                    }
                }
            }
        }
    }
    for m in metric_names(set) {
        has(&format!("\n  {m}: "));
    }
    // As far as `explain` looks. The limit is the process's: other tests of this binary that
    // ask the exact engine in-process get it too, which takes every file they use.
    rollcall::exact::limit::look_quickly();
    if let Some(last) = last_round(set) {
        has("\nBy round (rounds.csv");
        has(&format!("from 0 (before the first activation) to {last};"));
    }
    match rollcall::exact::report(set, &[]) {
        Ok(_) => has("Exact (`rollcall exact`): takes this scenario"),
        Err(refusal) => {
            has("Exact (`rollcall exact`): refuses this scenario");
            has(&refusal.to_string());
        }
    }
}

#[test]
fn every_shipped_scenario_is_explained_in_full() {
    let mut takes = 0;
    let mut refuses = 0;
    for file in shipped() {
        let set = scenario::load(&file, &[]).unwrap();
        let text = explain(file.strip_prefix(root()).unwrap(), &[]);
        names_everything(&file, &set, &text);
        // The verdict as `explain` gives it (it looks as far as `exact::limit::QUICK_LOOK`
        // states): one of the two sentences, never both.
        let took = text.contains("Exact (`rollcall exact`): takes this scenario");
        let refused = text.contains("Exact (`rollcall exact`): refuses this scenario");
        assert!(took != refused, "{}: {text}", file.display());
        // exchange-rally holds 994,581 states after its eighth step (docs/exact.md): past
        // the quick look, whose refusal says `rollcall exact` goes further.
        if file.ends_with("exchange-rally.toml") {
            assert!(
                refused && text.contains("`explain` looks only this far"),
                "{text}"
            );
        }
        if took {
            takes += 1;
        } else {
            refuses += 1;
        }
    }
    // Both verdicts are exercised, or half of the check above would test nothing.
    assert!(takes > 0 && refuses > 0, "takes {takes}, refuses {refuses}");
}

#[test]
fn settings_change_what_is_explained() {
    let file = Path::new("configs/rally.toml");
    let settings = [
        "unit.wardens.alive=3",
        "unit.wardens.resolve=d6>=3",
        "options.rally.chain=true",
    ];
    let args: Vec<&str> = settings.iter().flat_map(|s| ["--set", s]).collect();
    let text = explain(file, &args);
    let parsed: Vec<Setting> = settings
        .iter()
        .map(|s| scenario::parse_setting(s).unwrap())
        .collect();
    let set = scenario::load(&root().join(file), &parsed).unwrap();
    names_everything(file, &set, &text);
    // 3 of 10 alive: 7 missing, each tested at 2/3 (d6>=3: 4 faces of 6).
    assert!(
        text.contains("3 of 10 models on the table (7 missing)"),
        "{text}"
    );
    assert!(text.contains("Resolve d6>=3 (2/3, 66.7%)"), "{text}");
    assert!(text.contains("rally.chain = true (set)"), "{text}");
}

#[test]
fn a_best_order_the_exact_engine_cannot_advise_is_not_said_to_simulate() {
    // Run among the options: the exact engine follows no movement, so there is no advice,
    // and `rollcall run` (which plays the advice) refuses the file as the contract says.
    let file = Path::new("configs/advise-rally-or-shoot.toml");
    let args = [
        "--set",
        "unit.wardens.move=3.0",
        "--set",
        r#"unit.wardens.orders=[{ when = "round == 1", command = "best", among = ["rally", "shoot", "run"], target = "nearest", toward = [0.0, 0.0] }, { command = "shoot", target = "nearest" }]"#,
    ];
    let text = explain(file, &args);
    assert!(!text.contains("applies to every scenario"), "{text}");
    assert!(
        text.contains(
            "Monte Carlo (`rollcall run`) plays `best` orders as `rollcall advise` works them out"
        ) && text.contains("it refuses this scenario"),
        "{text}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .current_dir(root())
        .args([
            "run",
            file.to_str().unwrap(),
            "--trials",
            "100",
            "--quiet",
            "--out",
        ])
        .arg(tmp.path().join("o"))
        .args(args)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
}

#[test]
fn a_bad_file_or_setting_is_refused_with_status_2() {
    for args in [
        vec!["explain", "configs/no-such-file.toml"],
        vec![
            "explain",
            "configs/rally.toml",
            "--set",
            "unit.wardens.reslove=4+",
        ],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_rollcall"))
            .current_dir(root())
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
    }
}
