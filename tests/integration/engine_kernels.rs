//! Every SIMD kernel this CPU has writes the same tables: each shipped scenario is run once per
//! kernel, forced with `ROLLCALL_SIMD`, and its tables compared byte for byte with those of the
//! portable kernel. A kernel the CPU lacks is named on the terminal, not passed over silently,
//! and every run must say it used the kernel forced, so a choice that fell back to another
//! kernel cannot pass unseen.

use rollcall::engine::stream::Kernel;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Games each scenario plays per kernel, spread over its sweep points and arms: every trial
/// draws from every lane of the kernel, so a roster of 25 matchups needs no more of them than
/// a single duel does to show a kernel's difference.
const GAMES: usize = 300_000;

/// Trials per sweep point and arm for `scenario`: [`GAMES`] shared out, at least 4,096 (every
/// lane of a chunk's streams is drawn many times over).
fn trials_for(scenario: &Path) -> String {
    let set = rollcall::scenario::load(scenario, &[]).expect("shipped scenarios load");
    let games: usize = set.variants.iter().map(|v| v.arms().len()).sum();
    (GAMES / games.max(1)).max(4_096).to_string()
}

/// The CSV tables `rollcall run SCENARIO` writes with kernel `kernel`, by name.
fn tables(scenario: &Path, kernel: Kernel) -> Vec<(String, Vec<u8>)> {
    let out = tempfile::tempdir().unwrap();
    let trials = trials_for(scenario);
    let status = Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .current_dir(root())
        .env("ROLLCALL_SIMD", kernel.name())
        .args(["run", "--trials", &trials, "--threads", "2"])
        .arg(scenario)
        .arg("--out")
        .arg(out.path())
        .output()
        .expect("binary runs");
    assert!(
        status.status.success(),
        "{} with {}: {}",
        scenario.display(),
        kernel.name(),
        String::from_utf8_lossy(&status.stderr)
    );
    let said = String::from_utf8_lossy(&status.stderr);
    let used = format!("{} random lanes", kernel.name());
    assert!(
        said.contains(&used),
        "{} with {}: the run did not say it used them: {said}",
        scenario.display(),
        kernel.name()
    );
    let mut tables: Vec<(String, Vec<u8>)> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    tables.sort();
    tables
}

#[test]
fn every_kernel_writes_the_tables_of_the_portable_kernel() {
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(root().join("configs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    scenarios.sort();
    assert!(!scenarios.is_empty(), "no shipped scenario in configs/");
    let mut kernels = Vec::new();
    for &kernel in Kernel::ALL {
        match kernel.missing() {
            None => kernels.push(kernel),
            Some(lacks) => {
                // Past the test harness's capture, so that a skip is seen.
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIPPED {} kernel: CPU lacks {lacks}; comparing the others",
                    kernel.name()
                );
            }
        }
    }
    for scenario in &scenarios {
        let portable = tables(scenario, Kernel::Portable);
        assert!(!portable.is_empty(), "{}: no table", scenario.display());
        for &kernel in kernels.iter().filter(|&&k| k != Kernel::Portable) {
            let got = tables(scenario, kernel);
            let names = |t: &[(String, Vec<u8>)]| t.iter().map(|t| t.0.clone()).collect::<Vec<_>>();
            assert_eq!(names(&got), names(&portable), "{}", scenario.display());
            for ((name, bytes), (_, expected)) in got.iter().zip(&portable) {
                assert!(
                    bytes == expected,
                    "{}: {name} with the {} kernel differs from the portable kernel's",
                    scenario.display(),
                    kernel.name()
                );
            }
        }
    }
}
