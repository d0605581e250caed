//! Sharded runs merged back equal a single run byte for byte; bad sets of parts are refused.

use crate::common;

use common::{ok, rollcall};
use std::path::{Path, PathBuf};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `count` shards of `scenario` with `trials` into `dir`, returning the part files.
fn shards(scenario: &str, trials: &str, count: u64, dir: &Path, seed: &str) -> Vec<PathBuf> {
    (0..count)
        .map(|i| {
            let shard = format!("{i}/{count}");
            ok(&[
                "run",
                scenario,
                "--trials",
                trials,
                "--seed",
                seed,
                "--shard",
                &shard,
                "--quiet",
                "--out",
                s(dir),
            ]);
            dir.join(format!("shard-{i}-of-{count}.json"))
        })
        .collect()
}

const TABLES: [&str; 2] = ["summary.csv", "distribution.csv"];

#[test]
fn merged_shards_equal_a_single_run_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    // 300,000 trials are 5 chunks of 65,536: N = 7 leaves two shards with no chunk at all.
    for scenario in ["configs/rally-masters.toml", "configs/rally-crowded.toml"] {
        let single = tmp.path().join("single");
        ok(&[
            "run",
            scenario,
            "--trials",
            "300000",
            "--seed",
            "9",
            "--quiet",
            "--out",
            s(&single),
        ]);
        for n in [1u64, 2, 3, 7] {
            let parts = tmp.path().join(format!("parts{n}"));
            shards(scenario, "300000", n, &parts, "9");
            let merged = tmp.path().join(format!("merged{n}"));
            ok(&["merge", s(&parts), "--out", s(&merged)]);
            for name in TABLES {
                assert_eq!(
                    std::fs::read(single.join(name)).unwrap(),
                    std::fs::read(merged.join(name)).unwrap(),
                    "{scenario}, N = {n}, {name}"
                );
            }
            std::fs::remove_dir_all(&parts).unwrap();
        }
    }
}

#[test]
fn choices_and_sweeps_merge_too() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("both.toml");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/rally.toml"),
    )
    .unwrap()
        + "\n[[choice]]\nid = \"a\"\nsteps = [{ unit = \"wardens\", command = \"rally\" }]\n\
           \n[[choice]]\nid = \"b\"\nsteps = [{ unit = \"wardens\", command = \"rally\", round = 2 }]\n\
           \n[sweep]\n\"unit.wardens.alive\" = [3, 6]\n";
    std::fs::write(&file, text).unwrap();
    let single = tmp.path().join("single");
    ok(&[
        "run",
        s(&file),
        "--trials",
        "200000",
        "--quiet",
        "--out",
        s(&single),
    ]);
    let parts = tmp.path().join("parts");
    let files = shards(s(&file), "200000", 3, &parts, "1");
    let merged = tmp.path().join("merged");
    let mut args = vec!["merge"];
    args.extend(files.iter().map(|f| s(f)));
    args.extend(["--out", s(&merged)]);
    ok(&args);
    for name in ["summary.csv", "distribution.csv", "compare.csv"] {
        assert_eq!(
            std::fs::read(single.join(name)).unwrap(),
            std::fs::read(merged.join(name)).unwrap(),
            "{name}"
        );
    }
}

/// Asserts `merge` fails with status 2, names `names` and writes nothing.
fn refused(parts: &[&Path], out: &Path, says: &[&str]) {
    let mut args = vec!["merge"];
    args.extend(parts.iter().map(|p| s(p)));
    args.extend(["--out", s(out)]);
    let result = rollcall(&args);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    for word in says {
        assert!(stderr.contains(word), "expected {word:?} in: {stderr}");
    }
    assert!(!out.exists(), "nothing is written when merge refuses");
}

#[test]
fn merge_refuses_parts_that_do_not_belong_together() {
    let tmp = tempfile::tempdir().unwrap();
    let a = shards(
        "configs/rally.toml",
        "200000",
        3,
        &tmp.path().join("a"),
        "1",
    );
    let other_seed = shards(
        "configs/rally.toml",
        "200000",
        3,
        &tmp.path().join("b"),
        "2",
    );
    let other_n = shards(
        "configs/rally.toml",
        "200000",
        2,
        &tmp.path().join("c"),
        "1",
    );
    let out = tmp.path().join("out");

    // Another seed.
    refused(
        &[&a[0], &other_seed[1], &a[2]],
        &out,
        &["shard-1-of-3.json", "seed is 2", "has 1"],
    );
    // Another N.
    refused(
        &[&a[0], &other_n[1]],
        &out,
        &["shard-1-of-2.json", "shard count N is 2"],
    );
    // A shard twice.
    refused(
        &[&a[0], &a[1], &a[1], &a[2]],
        &out,
        &["shard 1/3 is also in"],
    );
    // A shard missing.
    refused(&[&a[0], &a[2]], &out, &["shards missing: 1/3"]);

    // Truncated.
    let truncated = tmp.path().join("truncated.json");
    let bytes = std::fs::read(&a[1]).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    refused(
        &[&a[0], &truncated, &a[2]],
        &out,
        &["truncated.json", "truncated or corrupted"],
    );

    // One count changed: still valid JSON, caught by the checksum.
    let corrupted = tmp.path().join("corrupted.json");
    let text = String::from_utf8(bytes).unwrap();
    let at = text.find("\"counts\":[").unwrap() + "\"counts\":[".len();
    let digit = text[at..].chars().next().unwrap();
    let changed = if digit == '9' { '8' } else { '9' };
    let mut bad = text.clone();
    bad.replace_range(at..at + 1, &changed.to_string());
    std::fs::write(&corrupted, bad).unwrap();
    refused(
        &[&a[0], &corrupted, &a[2]],
        &out,
        &["corrupted.json", "checksum"],
    );

    // Not a partial file at all.
    refused(
        &[Path::new("configs/rally.toml")],
        &out,
        &["rally.toml", "not a rollcall partial-results file"],
    );
}
