//! What a hostile or unlucky user does to a run's files and streams: links planted at the
//! names a results folder uses, two reports written to one place, a resume with other flags,
//! output streams that close or fill, checkpoints wanted while slow chunks play, and reports
//! of very many sweep points.
//!
//! The truth each test checks against: the planted files' own bytes (untouched), the tables of
//! an uninterrupted run (byte for byte), the documented exit statuses, or the values written
//! into the results the report is made from.

use crate::common::process::{config, listing, rollcall, run, run_ok, wait_for};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A quick duel run (3 sweep points) into `out`, from `root`.
fn duel(root: &Path, out: &str, more: &[&str]) -> Output {
    let duel = config("duel.toml");
    let mut args = vec!["run", &duel, "--trials", "2000", "--quiet", "--out", out];
    args.extend(more);
    run(root, &args)
}

#[test]
fn a_link_at_the_lock_name_is_refused_and_its_target_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::write(root.join("victim.txt"), "precious").unwrap();
    std::os::unix::fs::symlink(root.join("victim.txt"), root.join(".out.rollcall-lock")).unwrap();
    let out = duel(root, "out", &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(root.join("victim.txt")).unwrap(),
        "precious"
    );
    assert!(!root.join("out").exists());
}

#[test]
fn a_link_at_a_leftover_name_is_never_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let victim = root.join("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("thesis.tex"), "years of work").unwrap();
    std::fs::create_dir(victim.join("figures")).unwrap();
    for name in [".out.rollcall-new-4000001", ".out.rollcall-old-4000002"] {
        std::os::unix::fs::symlink(&victim, root.join(name)).unwrap();
    }
    // Once with no results folder yet (the fallback puts an "old" folder back), once
    // replacing one (a retired folder's entries are moved).
    for pass in 0..2 {
        let out = duel(root, "out", &[]);
        assert!(out.status.success(), "pass {pass}: {}", stderr(&out));
        assert_eq!(
            listing(&victim),
            vec!["figures", "thesis.tex"],
            "pass {pass}"
        );
        assert_eq!(
            std::fs::read_to_string(victim.join("thesis.tex")).unwrap(),
            "years of work"
        );
        assert!(root.join("out").symlink_metadata().unwrap().is_dir());
        assert!(!listing(&root.join("out")).contains(&"thesis.tex".to_string()));
    }
}

#[test]
fn two_reports_into_one_place_are_refused_naming_both() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for dir in ["a/res", "b/res", "c/other"] {
        assert!(duel(root, dir, &[]).status.success());
    }
    for (dirs, target) in [
        (vec!["a/res", "b/res", "--out", "R"], "R/res"),
        (vec!["a/res", "./a/res/"], "a/res"),
    ] {
        let mut args = vec!["report"];
        args.extend(&dirs);
        let out = run(root, &args);
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{dirs:?}: {text}");
        assert!(
            text.contains(dirs[0]) && text.contains(dirs[1]) && text.contains(target),
            "{dirs:?}: {text}"
        );
    }
    assert!(!root.join("R").exists() && !root.join("a/res/report.md").exists());
    // Each into its own folder, or folders of different names side by side.
    run_ok(root, &["report", "a/res", "b/res"]);
    run_ok(root, &["report", "a/res", "c/other", "--out", "S"]);
    for file in ["a/res", "b/res", "S/res", "S/other"] {
        assert!(root.join(file).join("report.md").is_file(), "{file}");
    }
}

/// Interrupts a run that would never end once it has saved a checkpoint: what `--resume`
/// reads. `flags` are the run's own.
fn interrupted(root: &Path, out: &str, flags: &[&str]) {
    let duel = config("duel.toml");
    let mut args = vec!["run", &duel, "--quiet", "--trials", "1e12", "--out", out];
    args.extend(flags);
    let mut child = rollcall(root, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    assert_eq!(
        wait_for(&mut child, Duration::from_secs(60)).code(),
        Some(130)
    );
    assert!(root.join(out).join("checkpoint.json").is_file());
}

#[test]
fn a_resume_with_flags_that_change_the_trials_or_the_stop_is_refused_naming_both_values() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    interrupted(root, "plain", &["--seed", "5"]);
    interrupted(root, "precise", &["--seed", "5", "--precision", "1e-9"]);
    let duel = config("duel.toml");
    // (folder, flags of the resume, what the refusal names: the flag, then, now)
    let cases: [(&str, &[&str], [&str; 3]); 6] = [
        (
            "plain",
            &["--trials", "1e12", "--seed", "6"],
            ["seed", "5", "6"],
        ),
        (
            "plain",
            &["--trials", "2e12", "--seed", "5"],
            ["trials", "1000000000000", "2000000000000"],
        ),
        (
            "plain",
            &[
                "--trials",
                "1e12",
                "--seed",
                "5",
                "--set",
                "engagement.rounds=5",
            ],
            ["scenario hash", "", ""],
        ),
        (
            "plain",
            &["--trials", "1e12", "--seed", "5", "--precision", "0.01"],
            ["--precision", "none", "0.01"],
        ),
        (
            "precise",
            &["--trials", "1e12", "--seed", "5"],
            ["--precision", "0.000000001", "none"],
        ),
        (
            "precise",
            &["--trials", "1e12", "--seed", "5", "--precision", "0.5"],
            ["--precision", "0.000000001", "0.5"],
        ),
    ];
    for (dir, flags, named) in cases {
        let checkpoint = std::fs::read(root.join(dir).join("checkpoint.json")).unwrap();
        let mut args = vec!["run", &duel, "--quiet", "--resume", dir];
        args.extend(flags);
        let out = run(root, &args);
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {text}");
        let [what, then, now] = named;
        let values = then.is_empty() || text.contains(&format!(" {then}, this run has {now};"));
        assert!(
            text.contains(what) && values,
            "{flags:?}: the refusal should name {named:?}: {text}"
        );
        assert_eq!(
            std::fs::read(root.join(dir).join("checkpoint.json")).unwrap(),
            checkpoint,
            "{flags:?}: the checkpoint is kept"
        );
    }
}

/// The status and standard error of `rollcall args` from `root` with standard output and
/// standard error sent where `out` and `err` say.
fn with_streams(root: &Path, args: &[&str], out: Stdio, err: Stdio) -> Output {
    rollcall(root, args)
        .stdout(out)
        .stderr(err)
        .output()
        .expect("binary runs")
}

fn dev_full() -> Stdio {
    Stdio::from(
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap(),
    )
}

#[test]
fn a_closed_pipe_ends_quietly_and_a_full_disk_exits_2_after_the_results() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let (duel, advise) = (config("duel.toml"), config("advise-rally-or-shoot.toml"));
    // A reader that goes before a word is written: `rollcall explain FILE | head -0`.
    for args in [vec!["explain", duel.as_str()], vec!["check", duel.as_str()]] {
        let mut child = rollcall(root, &args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{args:?}");
    }
    // Standard output on a full disk: the message goes to standard error, status 2.
    for args in [vec!["explain", duel.as_str()], vec!["check", duel.as_str()]] {
        let out = with_streams(root, &args, dev_full(), Stdio::piped());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("cannot write to standard output"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // Standard error on a full disk: no message can be written; the results are, and the
    // status says the rest was not.
    let verbs: [Vec<&str>; 6] = [
        vec!["run", &duel, "--trials", "2000", "--out", "r"],
        vec![
            "run", &duel, "--trials", "2000", "--shard", "0/1", "--out", "p",
        ],
        vec!["merge", "p", "--out", "m"],
        vec!["report", "r"],
        vec!["exact", &advise, "--out", "e"],
        vec!["advise", &advise, "--out", "a"],
    ];
    for args in &verbs {
        let out = with_streams(root, args, Stdio::null(), dev_full());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    for file in [
        "r/summary.csv",
        "p/shard-0-of-1.json",
        "m/summary.csv",
        "r/report.md",
    ] {
        assert!(root.join(file).is_file(), "{file}");
    }
    for file in ["e/summary.csv", "a/advice.csv"] {
        assert!(root.join(file).is_file(), "{file}");
    }
}

/// Takes every distinct checkpoint a run saves while it plays (a complete run removes its
/// checkpoint at the end, so each is copied as it appears); returns those that hold a chunk
/// begun, and the run's status.
fn checkpoints_begun(root: &Path, args: &[&str], out: &str) -> (Vec<Vec<u8>>, ExitStatus) {
    let mut child = rollcall(root, args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let path = root.join(out).join("checkpoint.json");
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let start = Instant::now();
    let status = loop {
        if let Ok(bytes) = std::fs::read(&path) {
            if !seen.contains(&bytes) {
                seen.push(bytes);
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "{args:?} runs on"
        );
        std::thread::sleep(Duration::from_millis(2));
    };
    let begun = seen
        .into_iter()
        .filter(|bytes| {
            let value: serde_json::Value = serde_json::from_slice(bytes).unwrap();
            value["chunks_begun"]
                .as_array()
                .is_some_and(|b| !b.is_empty())
        })
        .collect();
    (begun, status)
}

fn table_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    listing(dir)
        .into_iter()
        .filter(|name| name.ends_with(".csv"))
        .map(|name| {
            let bytes = std::fs::read(dir.join(&name)).unwrap();
            (name, bytes)
        })
        .collect()
}

#[test]
fn checkpoints_inside_slow_chunks_resume_to_the_tables_of_an_uninterrupted_run() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    // One arm played in full (a card game of random plays), and several arms on common
    // random numbers (a card game enumerating orderings, two sweep points): on one thread,
    // a chunk takes the best part of a second, and a checkpoint is asked for every 0.2 s.
    for (name, mut trials) in [
        ("cards-random.toml", 100_000u64),
        ("cards-equilibrium.toml", 70_000),
    ] {
        let file = config(name);
        let (checkpoints, whole) = loop {
            let t = trials.to_string();
            let args = [
                "run",
                &file,
                "--trials",
                &t,
                "--threads",
                "1",
                "--checkpoint",
                "0",
                "--quiet",
                "--out",
                "whole",
            ];
            let (begun, status) = checkpoints_begun(root, &args, "whole");
            assert!(status.success(), "{name}");
            // A machine fast enough to end before the first checkpoint plays more trials.
            if !begun.is_empty() || trials > 10_000_000 {
                break (begun, t);
            }
            trials *= 4;
        };
        assert!(
            !checkpoints.is_empty(),
            "{name}: no checkpoint inside a chunk"
        );
        let reference = table_files(&root.join("whole"));
        for (i, bytes) in checkpoints.iter().enumerate().take(3) {
            let dir = format!("resumed-{i}");
            std::fs::create_dir_all(root.join(&dir)).unwrap();
            std::fs::write(root.join(&dir).join("checkpoint.json"), bytes).unwrap();
            let args = [
                "run",
                &file,
                "--trials",
                &whole,
                "--threads",
                "2",
                "--quiet",
                "--resume",
                &dir,
            ];
            run_ok(root, &args);
            assert!(
                table_files(&root.join(&dir)) == reference,
                "{name}: resumed from checkpoint {i}, the tables differ"
            );
            assert!(!root.join(&dir).join("checkpoint.json").exists());
        }
    }
}

/// Writes the results folder of a sweep of `points` points over one key (`unit.a.models`)
/// and one metric, whose mean at point i (from 1) is i / 1000 (the distribution: 0 or
/// i mod 7 + 1, each half of the trials).
fn many_points(dir: &Path, points: usize) {
    std::fs::create_dir_all(dir).unwrap();
    let mut summary = String::from(
        "scenario,choice,unit.a.models,metric,method,trials,mean,variance,std_dev,std_error,ci95_low,ci95_high,min,max\n",
    );
    let mut distribution = String::from(
        "scenario,choice,unit.a.models,metric,method,value,count,probability,at_least\n",
    );
    for i in 1..=points {
        let mean = i as f64 / 1000.0;
        let top = i % 7 + 1;
        summary.push_str(&format!(
            "s,,{i},a.lost,monte_carlo,100,{mean},1,1,0.1,{},{},0,{top}\n",
            mean - 0.2,
            mean + 0.2
        ));
        distribution.push_str(&format!(
            "s,,{i},a.lost,monte_carlo,0,50,0.5,1\ns,,{i},a.lost,monte_carlo,{top},50,0.5,0.5\n"
        ));
    }
    std::fs::write(dir.join("summary.csv"), summary).unwrap();
    std::fs::write(dir.join("distribution.csv"), distribution).unwrap();
    let run = format!(
        r#"{{"version":"0.5.2","scenario":"s","method":"monte_carlo","seed":1,"trials_requested":100,"sweep_points":{points},"complete":true}}"#
    );
    std::fs::write(dir.join("run.json"), run).unwrap();
}

#[test]
fn a_report_of_many_sweep_points_holds_every_point() {
    let tmp = tempfile::tempdir().unwrap();
    let points = 6_000;
    let dir: PathBuf = tmp.path().join("many");
    many_points(&dir, points);
    run_ok(tmp.path(), &["report", "many"]);
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    // The grid of means: one row per point, in order, each with its own mean.
    let rows: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains(" ± "))
        .collect();
    assert_eq!(rows.len(), points, "one row of means per point");
    for i in [1, 2, points / 2, points] {
        let row = rows[i - 1];
        let mean = format!("{:.2} ± 0.20", i as f64 / 1000.0);
        assert!(
            row.starts_with(&format!("| {i} | ")) && row.contains(&mean),
            "{i}: {row}"
        );
    }
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("<html") && html.len() > md.len());
}

#[test]
fn a_merged_run_warns_of_what_the_whole_run_warns_of() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let duel = config("duel.toml");
    // Three chunks, one per shard.
    let run_to = |out: &str, more: &[&str]| {
        let mut args = vec!["run", &duel, "--trials", "140000", "--quiet", "--out", out];
        args.extend(more);
        run_ok(root, &args);
    };
    run_to("whole", &[]);
    for shard in ["0/3", "1/3", "2/3"] {
        run_to("parts", &["--shard", shard]);
    }
    run_ok(root, &["merge", "parts", "--out", "merged"]);
    let warnings = |dir: &str| {
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(root.join(dir).join("run.json")).unwrap())
                .unwrap();
        meta["warnings"].clone()
    };
    // The duel's order that can never be taken, at one of its sweep points.
    assert_eq!(warnings("whole").as_array().map(Vec::len), Some(1));
    assert_eq!(warnings("merged"), warnings("whole"));
}
