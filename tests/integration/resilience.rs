//! Runs that are killed, interrupted or crowded: checkpoints and `--resume`, Ctrl-C on runs of
//! any length, and results folders that always hold one run's complete set of files.
//!
//! The truth each test checks against is an uninterrupted run of the same scenario and flags
//! (for the tables, byte for byte), or the reference folders of the two runs racing.

use crate::common::process::{config, listing, rollcall, run, run_ok, wait_for};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn spawn(dir: &Path, args: &[&str]) -> Child {
    rollcall(dir, args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("binary starts")
}

fn interrupt(child: &Child) {
    signal(child, "INT");
}

/// Sends `child` signal `name` (`INT`, `TERM`...).
fn signal(child: &Child, name: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// Waits until `path` exists while `child` runs; false when the child exited first.
fn appears(child: &mut Child, path: &Path) -> bool {
    let start = Instant::now();
    while !path.exists() {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "no {path:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}

fn run_json(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("run.json")).unwrap()).unwrap()
}

/// Asserts that `dir` holds exactly the files of `reference` with the same tables (run.json
/// differs only in timing, so its seed and scenario are compared).
fn assert_same_run(dir: &Path, reference: &Path, what: &str) {
    assert_eq!(listing(dir), listing(reference), "{what}: file set");
    for name in listing(reference) {
        if name == "run.json" {
            let (a, b) = (run_json(dir), run_json(reference));
            for key in ["scenario", "seed", "trials_played", "complete"] {
                assert_eq!(a[key], b[key], "{what}: run.json {key}");
            }
        } else {
            assert!(
                std::fs::read(dir.join(&name)).unwrap()
                    == std::fs::read(reference.join(&name)).unwrap(),
                "{what}: {name} differs from the reference run's"
            );
        }
    }
}

/// The duel sweep (3 points, engagements of up to 6 rounds): slow enough per chunk that a
/// checkpoint is taken well before the end.
fn duel(out: &str, more: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["run", &config("duel.toml"), "--trials", "1e6", "--quiet"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if !out.is_empty() {
        args.extend(["--out".to_string(), out.to_string()]);
    }
    args.extend(more.iter().map(|s| s.to_string()));
    args
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn a_killed_or_interrupted_run_resumed_writes_the_tables_of_an_uninterrupted_run() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    run_ok(root, &strs(&duel("full", &["--threads", "2"])));
    // TERM is what a cluster sends at a job's time limit: it stops the run as Ctrl-C does.
    for sent in ["KILL", "INT", "TERM"] {
        let out = format!("cut-{sent}");
        let dir = root.join(&out);
        let mut child = spawn(
            root,
            &strs(&duel(&out, &["--threads", "2", "--checkpoint", "0"])),
        );
        assert!(
            appears(&mut child, &dir.join("checkpoint.json")),
            "{sent}: the run ended before its first checkpoint"
        );
        match sent {
            "KILL" => child.kill().unwrap(),
            name => signal(&child, name),
        }
        let status = wait_for(&mut child, Duration::from_secs(60));
        match sent {
            "KILL" => {
                assert_eq!(listing(&dir), vec!["checkpoint.json"], "killed mid-run");
            }
            _ => {
                assert_eq!(status.code(), Some(130));
                assert_eq!(run_json(&dir)["complete"], false);
                assert!(dir.join("checkpoint.json").is_file());
            }
        }
        // Another thread count: results never depend on it.
        let resumed = duel("", &["--threads", "1", "--resume", &out]);
        run_ok(root, &strs(&resumed));
        assert_same_run(&dir, &root.join("full"), sent);
        assert_eq!(run_json(&dir)["complete"], true);
    }
    assert_eq!(
        listing(root),
        vec!["cut-INT", "cut-KILL", "cut-TERM", "full"],
        "no lock or temporary left beside the folders"
    );
}

#[test]
fn a_resumed_shard_writes_the_part_of_an_uninterrupted_shard() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let shard = ["--shard", "1/3", "--threads", "2"];
    run_ok(root, &strs(&duel("whole", &shard)));
    let mut args = shard.to_vec();
    args.extend(["--checkpoint", "0"]);
    let mut child = spawn(root, &strs(&duel("parts", &args)));
    let checkpoint = root.join("parts/checkpoint-shard-1-of-3.json");
    assert!(
        appears(&mut child, &checkpoint),
        "ended before a checkpoint"
    );
    child.kill().unwrap();
    wait_for(&mut child, Duration::from_secs(60));
    assert!(!root.join("parts/shard-1-of-3.json").exists());
    let mut args = shard.to_vec();
    args.extend(["--resume", "parts"]);
    run_ok(root, &strs(&duel("parts", &args)));
    let body = |dir: &str| {
        let part: serde_json::Value = serde_json::from_slice(
            &std::fs::read(root.join(dir).join("shard-1-of-3.json")).unwrap(),
        )
        .unwrap();
        part["body"].clone()
    };
    assert_eq!(body("parts"), body("whole"));
    assert_eq!(listing(&root.join("parts")), vec!["shard-1-of-3.json"]);
}

#[test]
fn a_checkpoint_of_another_run_is_refused_and_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let trials = ["--trials", "1e12", "--threads", "2"];
    let base = |more: &[&str]| {
        let mut args = vec!["run".to_string(), config("duel.toml"), "--quiet".into()];
        args.extend(trials.iter().chain(more).map(|s| s.to_string()));
        args
    };
    let mut child = spawn(root, &strs(&base(&["--out", "c", "--checkpoint", "600"])));
    std::thread::sleep(Duration::from_millis(1500));
    interrupt(&child);
    assert_eq!(
        wait_for(&mut child, Duration::from_secs(60)).code(),
        Some(130)
    );
    let checkpoint = std::fs::read(root.join("c/checkpoint.json")).unwrap();
    let files = listing(&root.join("c"));
    let cases: [(&str, Vec<String>, &str); 5] = [
        ("another seed", base(&["--seed", "12"]), "seed"),
        ("other trials", base(&["--trials", "2e12"]), "trials"),
        (
            "an override",
            base(&["--set", "engagement.rounds=5"]),
            "scenario hash",
        ),
        (
            "a shard",
            base(&["--shard", "0/1"]),
            "checkpoint-shard-0-of-1.json does not exist",
        ),
        (
            "another file",
            {
                let mut a = base(&[]);
                a[1] = config("rally-masters.toml");
                a
            },
            "scenario",
        ),
    ];
    for (what, mut args, named) in cases {
        args.extend(["--resume".to_string(), "c".to_string()]);
        let out = run(root, &strs(&args));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
        assert!(
            stderr.contains(named) && !stderr.contains("panicked"),
            "{what}: the refusal should name {named:?}: {stderr}"
        );
        assert_eq!(
            std::fs::read(root.join("c/checkpoint.json")).unwrap(),
            checkpoint
        );
        assert_eq!(listing(&root.join("c")), files, "{what}");
    }
}

#[test]
fn sigkill_at_any_instant_leaves_the_old_folder_or_the_new_one() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    // Two runs with different file sets (design-duel has compare.csv) and seeds.
    let runs: [Vec<String>; 2] = [
        [
            "run",
            &config("design-duel.toml"),
            "--trials",
            "2e4",
            "--seed",
            "1",
        ]
        .map(String::from)
        .to_vec(),
        [
            "run",
            &config("rally.toml"),
            "--trials",
            "1e5",
            "--seed",
            "2",
        ]
        .map(String::from)
        .to_vec(),
    ];
    let with_out = |i: usize, out: &str| {
        let mut a = runs[i].clone();
        a.extend(["--quiet", "--threads", "1", "--out", out].map(String::from));
        a
    };
    let mut took = Duration::ZERO;
    for (i, reference) in ["ref0", "ref1"].iter().enumerate() {
        let start = Instant::now();
        run_ok(root, &strs(&with_out(i, reference)));
        took = took.max(start.elapsed());
    }
    assert_ne!(listing(&root.join("ref0")), listing(&root.join("ref1")));
    run_ok(root, &strs(&with_out(0, "out")));
    let out = root.join("out");
    let mut current = 0;
    let instants = 80;
    for k in 0..instants {
        let next = 1 - current;
        let mut child = spawn(root, &strs(&with_out(next, "out")));
        // Instants spread over the whole run, its final write included.
        std::thread::sleep(took.mul_f64(1.2 * k as f64 / instants as f64));
        let _ = child.kill();
        let _ = child.wait();
        let is = if listing(&out) == listing(&root.join("ref0")) {
            0
        } else {
            1
        };
        assert_same_run(
            &out,
            &root.join(format!("ref{is}")),
            &format!("killed at instant {k}"),
        );
        current = is;
    }
    // The next run clears what the killed ones left.
    run_ok(root, &strs(&with_out(1 - current, "out")));
    assert_eq!(listing(root), vec!["out", "ref0", "ref1"]);
}

#[test]
fn two_runs_on_one_folder_end_in_one_coherent_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let args = |seed: &str, out: &str| {
        [
            "run",
            &config("rally-masters.toml"),
            "--trials",
            "3e5",
            "--quiet",
        ]
        .into_iter()
        .map(String::from)
        .chain(["--seed", seed, "--threads", "1", "--out", out].map(String::from))
        .collect::<Vec<_>>()
    };
    run_ok(root, &strs(&args("1", "ref1")));
    run_ok(root, &strs(&args("2", "ref2")));
    let mut refused = 0;
    for pair in 0..8 {
        let mut a = rollcall(root, &strs(&args("1", "out")))
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut b = rollcall(root, &strs(&args("2", "out")))
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (sa, sb) = (
            wait_for(&mut a, Duration::from_secs(120)),
            wait_for(&mut b, Duration::from_secs(120)),
        );
        for (status, child) in [(sa, &mut a), (sb, &mut b)] {
            if !status.success() {
                let mut stderr = String::new();
                std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
                assert_eq!(status.code(), Some(2), "pair {pair}: {stderr}");
                assert!(
                    stderr.contains("another rollcall run"),
                    "pair {pair}: {stderr}"
                );
                refused += 1;
            }
        }
        assert!(sa.success() || sb.success(), "pair {pair}: both refused");
        let seed = run_json(&root.join("out"))["seed"].as_u64().unwrap();
        assert_same_run(
            &root.join("out"),
            &root.join(format!("ref{seed}")),
            &format!("pair {pair}"),
        );
    }
    assert_eq!(listing(root), vec!["out", "ref1", "ref2"]);
    // Started together, they overlap at least once; whichever came second was refused.
    assert!(refused > 0, "no pair overlapped");
}

#[test]
fn ctrl_c_on_a_run_of_any_length_writes_what_it_has_marked_incomplete() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for scenario in ["rally.toml", "rally-masters.toml", "duel.toml"] {
        // An interrupt before the first chunk ends is answered with no trials at all, which
        // says nothing of chunk boundaries: wait longer and try again rather than assume how
        // fast this machine plays a chunk.
        let mut waits = [1_500, 6_000, 30_000].into_iter();
        let (out, played) = loop {
            let wait = waits
                .next()
                .unwrap_or_else(|| panic!("{scenario}: no chunk ended within 30 s"));
            let out: PathBuf = root.join(format!("{scenario}-{wait}"));
            let mut child = spawn(
                root,
                &[
                    "run",
                    &config(scenario),
                    "--trials",
                    "1e15",
                    "--quiet",
                    "--threads",
                    "2",
                    "--out",
                    out.to_str().unwrap(),
                ],
            );
            std::thread::sleep(Duration::from_millis(wait));
            interrupt(&child);
            let status = wait_for(&mut child, Duration::from_secs(60));
            assert_eq!(status.code(), Some(130), "{scenario}");
            let meta = run_json(&out);
            assert_eq!(meta["complete"], false, "{scenario}");
            let played = meta["trials_played"].as_u64().unwrap();
            if played > 0 {
                break (out, played);
            }
        };
        assert!(
            played.is_multiple_of(65536),
            "{scenario}: whole chunks only: {played}"
        );
        let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
        assert!(
            summary.contains(&format!(",monte_carlo,{played},")),
            "{scenario}: the tables count the trials played: {summary}"
        );
    }
}

#[test]
fn ctrl_c_without_checkpoint_leaves_what_resume_needs_and_says_how() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let started = Instant::now();
    run_ok(
        root,
        &strs(&duel("full", &["--threads", "2", "--seed", "1"])),
    );
    let took = started.elapsed();
    // Half-way through a run like the reference: some chunks done, most not. On a slower
    // moment the run may have played none yet, which a resume must handle as well.
    let mut child = rollcall(
        root,
        &strs(&duel("cut", &["--threads", "2", "--seed", "1"])),
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    std::thread::sleep(took / 2);
    interrupt(&child);
    assert_eq!(
        wait_for(&mut child, Duration::from_secs(60)).code(),
        Some(130)
    );
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    // --quiet hides the summary of a complete run, never how to resume an interrupted one.
    let resume = format!(
        "resume with: rollcall run {} --resume cut --trials 1000000 --seed 1",
        config("duel.toml")
    );
    assert!(stderr.contains(&resume), "{stderr}");
    let first = run_json(&root.join("cut"));
    assert_eq!(first["complete"], false);
    assert!(root.join("cut/checkpoint.json").is_file());
    run_ok(root, &strs(&duel("", &["--resume", "cut", "--seed", "1"])));
    assert_same_run(
        &root.join("cut"),
        &root.join("full"),
        "resumed after Ctrl-C",
    );
    // The resumed run's figures count both parts: every trial against the time of both.
    let meta = run_json(&root.join("cut"));
    let number = |m: &serde_json::Value, key: &str| m[key].as_f64().unwrap();
    let (trials, wall) = (
        number(&meta, "trials_played"),
        number(&meta, "wall_seconds"),
    );
    assert_eq!(trials, 1e6);
    assert!(
        wall > number(&first, "wall_seconds"),
        "{meta} after {first}"
    );
    let rate = number(&meta, "trials_per_second");
    assert!(
        (rate - trials / wall).abs() <= 0.01 * rate,
        "rate {rate} is not trials / wall = {}",
        trials / wall
    );
}

#[test]
fn a_checkpoint_is_saved_every_seconds_while_a_long_run_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let args = [
        "run",
        &config("duel.toml"),
        "--trials",
        "1e12",
        "--quiet",
        "--threads",
        "2",
        "--checkpoint",
        "1",
        "--out",
        "long",
    ];
    let mut child = spawn(root, &args);
    let checkpoint = root.join("long/checkpoint.json");
    assert!(appears(&mut child, &checkpoint), "the run ended");
    child.kill().unwrap();
    wait_for(&mut child, Duration::from_secs(60));
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&checkpoint).unwrap()).unwrap();
    // Whole chunks, and the trials of chunks begun (saved lane by lane).
    let played = saved["body"]["trials_played"].as_u64().unwrap();
    let whole: u64 = saved["chunks_done"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[1].as_u64().unwrap() - r[0].as_u64().unwrap())
        .sum();
    let begun: u64 = saved["chunks_begun"].as_array().map_or(0, |b| {
        b.iter()
            .flat_map(|c| c["lanes"].as_array().unwrap())
            .map(|l| l["trials"].as_u64().unwrap())
            .sum()
    });
    assert!(played > 0 && played == whole * 65536 + begun, "{played}");
}
