//! Value stability: every shipped scenario's tables, pinned byte for byte.
//!
//! These files were written by the program itself, so they prove nothing about correctness
//! (the statistical and exact tests do that). They guard what users publish: a change to any
//! number a shipped scenario prints fails here, and must be made on purpose, with a version bump
//! and a CHANGELOG.md line, by blessing the files again:
//!
//! ```text
//! ROLLCALL_BLESS=1 cargo test --test integration golden
//! ```
//!
//! `tests/golden/run/<scenario>/` holds what `rollcall run` writes into `results/<scenario>/`,
//! `tests/golden/exact/<scenario>/` what `rollcall exact` writes into
//! `results/<scenario>/exact/`; the last test checks that the two folders stay apart.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn shipped_scenarios() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("configs"))
        .expect("configs/ is readable")
        .map(|e| e.expect("configs/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no shipped scenario found in configs/");
    files
}

/// The CSV tables in `dir`, by name (run.json holds times and thread counts, so is not pinned).
fn tables(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".csv"))
                .collect()
        })
        .unwrap_or_default()
}

/// Runs `rollcall <command> FILE --out DIR` and checks (or, blessing, writes) its tables against
/// `tests/golden/<command>/<scenario>/`. Returns false when the command refused the scenario.
fn check(command: &str, scenario: &Path, extra: &[&str]) -> bool {
    let name = scenario.file_stem().unwrap().to_string_lossy().into_owned();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join(&name);
    let status = Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .current_dir(root())
        .arg(command)
        .arg(scenario)
        .args(extra)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("binary runs");
    let golden = root().join("tests/golden").join(command).join(&name);
    if !status.status.success() {
        assert!(
            !golden.exists(),
            "rollcall {command} {name} failed but has golden files: {}",
            String::from_utf8_lossy(&status.stderr)
        );
        return false;
    }
    let written = tables(&out);
    if std::env::var_os("ROLLCALL_BLESS").is_some() {
        let _ = std::fs::remove_dir_all(&golden);
        std::fs::create_dir_all(&golden).unwrap();
        for t in &written {
            std::fs::copy(out.join(t), golden.join(t)).unwrap();
        }
        return true;
    }
    assert_eq!(
        written,
        tables(&golden),
        "rollcall {command} {name}: the set of tables differs from tests/golden"
    );
    for t in &written {
        let now = std::fs::read(out.join(t)).unwrap();
        let pinned = std::fs::read(golden.join(t)).unwrap();
        assert!(
            now == pinned,
            "rollcall {command} {name}: {t} differs from tests/golden/{command}/{name}/{t}; \
             published numbers changed (bless on purpose, with a version bump)"
        );
    }
    true
}

#[test]
fn every_shipped_scenario_simulates_to_its_pinned_tables() {
    for scenario in shipped_scenarios() {
        assert!(
            check("run", &scenario, &["--quiet"]),
            "{} no longer runs",
            scenario.display()
        );
    }
}

#[test]
fn every_shipped_scenario_the_exact_engine_takes_gives_its_pinned_tables() {
    // A limit above the largest shipped programme the exact engine takes (advise-long-duel,
    // 747,264 states) and below exchange-rally's eighth step (994,581), which the default
    // limit (half the memory available) would let run for many minutes.
    let taken = shipped_scenarios()
        .iter()
        .filter(|s| check("exact", s, &["--max-states", "800000"]))
        .count();
    // The exact engine takes the shipped dice-only scenarios; if it takes none, this test
    // would pin nothing.
    assert!(taken > 0, "the exact engine took no shipped scenario");
}

/// Runs `rollcall ARGS...` in `cwd`; returns the exit status code.
fn rollcall_in(cwd: &Path, args: &[&str]) -> Option<i32> {
    Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("binary runs")
        .status
        .code()
}

#[test]
fn exact_and_simulated_tables_live_apart_and_no_stale_table_stays() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let file = root().join("configs/rally-masters.toml");
    let file = file.to_str().unwrap();
    // `exact` writes into results/<scenario>/exact/: the pinned exact tables, byte for byte.
    assert_eq!(rollcall_in(cwd, &["exact", file]), Some(0));
    let exact = cwd.join("results/rally-masters/exact");
    let golden = root().join("tests/golden/exact/rally-masters");
    assert!(
        !tables(&golden).is_empty(),
        "no pinned tables in {golden:?}"
    );
    for t in tables(&golden) {
        assert_eq!(
            std::fs::read(exact.join(&t)).unwrap(),
            std::fs::read(golden.join(&t)).unwrap(),
            "{t}"
        );
    }
    // A validated run writes beside it, in results/<scenario>/, and leaves it alone.
    let run = ["run", file, "--trials", "1e4", "--quiet"];
    assert_eq!(
        rollcall_in(cwd, &[&run[..], &["--validate"]].concat()),
        Some(0)
    );
    let sim = cwd.join("results/rally-masters");
    assert!(sim.join("summary.csv").exists() && sim.join("validation.csv").exists());
    for t in tables(&golden) {
        assert_eq!(
            std::fs::read(exact.join(&t)).unwrap(),
            std::fs::read(golden.join(&t)).unwrap(),
            "{t} changed under a run"
        );
    }
    // Run again without --validate: the earlier validation.csv does not stay looking current.
    assert_eq!(rollcall_in(cwd, &run), Some(0));
    assert!(!sim.join("validation.csv").exists());
    // Exact tables are not written over a simulation's, even when asked to.
    assert_eq!(
        rollcall_in(cwd, &["exact", file, "--out", sim.to_str().unwrap()]),
        Some(2)
    );
    assert!(std::fs::read_to_string(sim.join("summary.csv"))
        .unwrap()
        .contains("monte_carlo"));
}
