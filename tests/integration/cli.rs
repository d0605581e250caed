//! The binary end to end: output files, their determinism, sweeps, choices, `check`, and
//! Ctrl-C.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn rollcall() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rollcall"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn run(args: &[&str]) -> Output {
    let out = rollcall().args(args).output().expect("binary runs");
    assert!(
        out.status.success(),
        "rollcall {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{}: {e}", dir.join(name).display()))
}

fn out_dir(tmp: &tempfile::TempDir, name: &str) -> PathBuf {
    tmp.path().join(name)
}

const TABLES: [&str; 2] = ["summary.csv", "distribution.csv"];

#[test]
fn files_are_byte_identical_for_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    for scenario in ["configs/rally-masters.toml", "configs/rally-crowded.toml"] {
        let dirs: Vec<PathBuf> = [1, 2, 3]
            .iter()
            .map(|t| {
                let dir = out_dir(&tmp, &format!("t{t}"));
                let threads = t.to_string();
                run(&[
                    "run",
                    scenario,
                    "--trials",
                    "300000",
                    "--threads",
                    &threads,
                    "--quiet",
                    "--out",
                    dir.to_str().unwrap(),
                ]);
                dir
            })
            .collect();
        for name in TABLES {
            assert_eq!(
                read(&dirs[0], name),
                read(&dirs[1], name),
                "{scenario} {name}"
            );
            assert_eq!(
                read(&dirs[0], name),
                read(&dirs[2], name),
                "{scenario} {name}"
            );
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_files_and_another_seed_does_not() {
    let tmp = tempfile::tempdir().unwrap();
    let go = |name: &str, seed: &str| {
        let dir = out_dir(&tmp, name);
        run(&[
            "run",
            "configs/rally.toml",
            "--trials",
            "200000",
            "--seed",
            seed,
            "--quiet",
            "--out",
            dir.to_str().unwrap(),
        ]);
        dir
    };
    let (a, b, c) = (go("a", "5"), go("b", "5"), go("c", "6"));
    for name in TABLES {
        assert_eq!(read(&a, name), read(&b, name));
    }
    assert_ne!(read(&a, "distribution.csv"), read(&c, "distribution.csv"));
    let meta: serde_json::Value = serde_json::from_slice(&read(&a, "run.json")).unwrap();
    assert_eq!(meta["seed"], 5);
    assert_eq!(meta["trials_played"], 200000);
    assert_eq!(meta["complete"], true);
    assert_eq!(meta["method"], "monte_carlo");
}

#[test]
fn summary_columns_follow_the_spec() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = out_dir(&tmp, "s");
    run(&[
        "run",
        "configs/rally.toml",
        "--trials",
        "1000",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let summary = String::from_utf8(read(&dir, "summary.csv")).unwrap();
    assert_eq!(
        summary.lines().next().unwrap(),
        "scenario,choice,metric,method,trials,mean,variance,std_dev,std_error,ci95_low,ci95_high,min,max"
    );
    let dist = String::from_utf8(read(&dir, "distribution.csv")).unwrap();
    assert_eq!(
        dist.lines().next().unwrap(),
        "scenario,choice,metric,method,value,count,probability,at_least"
    );
}

#[test]
fn a_sweep_adds_its_parameters_to_every_table_and_set_overrides_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("sweep.toml");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/rally.toml"),
    )
    .unwrap()
        + "\n[sweep]\n\"unit.wardens.resolve\" = [\"d6>=2\", \"d6>=6\"]\n\"unit.wardens.alive\" = [9, 10]\n";
    std::fs::write(&file, text).unwrap();
    let dir = out_dir(&tmp, "sweep");
    run(&[
        "run",
        file.to_str().unwrap(),
        "--trials",
        "20000",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let summary = String::from_utf8(read(&dir, "summary.csv")).unwrap();
    assert!(summary
        .starts_with("scenario,choice,unit.wardens.resolve,unit.wardens.alive,metric,method,"));
    // Four grid points, each with the full list of metrics.
    for point in ["d6>=2,9", "d6>=2,10", "d6>=6,9", "d6>=6,10"] {
        let row = format!("rally,,{point},wardens.restored,monte_carlo,20000,");
        assert!(summary.contains(&row), "missing {row}");
    }
    // With all 10 alive nothing is missing: restored is 0 whatever the test.
    assert!(summary.contains("rally,,d6>=6,10,wardens.restored,monte_carlo,20000,0,0,0,0,0,0,0,0"));

    // --set changes a key before validation.
    let dir = out_dir(&tmp, "set");
    run(&[
        "run",
        "configs/rally.toml",
        "--trials",
        "1000",
        "--quiet",
        "--set",
        "unit.wardens.alive=10",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let summary = String::from_utf8(read(&dir, "summary.csv")).unwrap();
    assert!(summary.contains("rally,,wardens.alive,monte_carlo,1000,10,0,"));
}

#[test]
fn identical_choices_differ_by_exactly_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("choices.toml");
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/rally.toml"))
            .unwrap()
            + "\n[[choice]]\nid = \"a\"\nsteps = [{ unit = \"wardens\", command = \"rally\" }]\n\
           \n[[choice]]\nid = \"b\"\nsteps = [{ unit = \"wardens\", command = \"rally\" }]\n";
    std::fs::write(&file, text).unwrap();
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let dir = out_dir(&tmp, threads);
        run(&[
            "run",
            file.to_str().unwrap(),
            "--trials",
            "100000",
            "--threads",
            threads,
            "--quiet",
            "--out",
            dir.to_str().unwrap(),
        ]);
        outputs.push(read(&dir, "compare.csv"));
    }
    assert_eq!(
        outputs[0], outputs[1],
        "compare.csv is byte-identical across threads"
    );
    let compare = String::from_utf8(outputs.remove(0)).unwrap();
    let row = compare
        .lines()
        .find(|l| l.starts_with("rally,wardens.restored,a,b,"))
        .expect("restored is compared");
    // mean_diff 0, CI [0, 0], P(first higher) 0, P(equal) 1, P(second higher) 0.
    assert_eq!(row, "rally,wardens.restored,a,b,100000,0,0,0,0,1,0");
}

#[test]
fn check_validates_without_running() {
    let out = run(&["check", "configs/rally.toml", "configs/rally-crowded.toml"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("ok: ")).count(), 2);
}
