//! Every input that once exhausted memory or time, overflowed the stack, panicked or was
//! silently mangled is now refused with status 2 and a short message, or works: one test per
//! reproducer. Memory stays bounded because each limit is checked before anything is
//! allocated for it; a test that finishes shows the time is bounded too.

use rollcall::output::partial::{self, PartBody};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Longer messages than this mean something quoted a value whole.
const SHORT: usize = 4096;

fn rollcall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Asserts status 2, a message of at most [`SHORT`] bytes, holding each of `says`.
fn refused(args: &[&str], says: &[&str]) -> String {
    let out = rollcall(args);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        &stderr[..stderr.len().min(SHORT)]
    );
    assert!(stderr.len() <= SHORT, "message of {} bytes", stderr.len());
    for word in says {
        assert!(stderr.contains(word), "expected {word:?} in: {stderr}");
    }
    stderr
}

fn succeeds(args: &[&str]) {
    let out = rollcall(args);
    assert!(
        out.status.success(),
        "rollcall {:?}: {}",
        &args[..2],
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `configs/rally.toml` with `extra` appended, written into `dir`.
fn rally_with(dir: &Path, name: &str, extra: &str) -> PathBuf {
    let text = std::fs::read_to_string("configs/rally.toml").unwrap();
    let path = dir.join(name);
    std::fs::write(&path, format!("{text}\n{extra}")).unwrap();
    path
}

fn list(values: impl Iterator<Item = String>) -> String {
    format!("[{}]", values.collect::<Vec<_>>().join(", "))
}

// ---- Item 1 and 9: shard parts -------------------------------------------------------------

/// Shards 0/2 and 1/2 of `configs/rally.toml` at 140,000 trials (3 chunks: 1 and 2).
fn two_parts(dir: &Path) -> [PathBuf; 2] {
    for i in 0..2 {
        succeeds(&[
            "run",
            "configs/rally.toml",
            "--trials",
            "140000",
            "--shard",
            &format!("{i}/2"),
            "--quiet",
            "--out",
            s(dir),
        ]);
    }
    [0, 1].map(|i| dir.join(format!("shard-{i}-of-2.json")))
}

/// Rewrites a part after `edit` changes its JSON body, with a checksum that matches, as a
/// forger would.
fn forge(part: &Path, into: &Path, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let mut file: Value = serde_json::from_slice(&std::fs::read(part).unwrap()).unwrap();
    edit(&mut file["body"]);
    let body: PartBody = serde_json::from_value(file["body"].take()).unwrap();
    let path = into.join(part.file_name().unwrap());
    std::fs::create_dir_all(into).unwrap();
    std::fs::write(&path, partial::to_bytes(body, 1, 0.5)).unwrap();
    path
}

/// The histogram of `metric` in the first sweep point of a part body.
fn histogram<'v>(body: &'v mut Value, metric: &str) -> &'v mut Value {
    body["report"]["variants"][0]["metrics"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|m| m["metric"] == metric)
        .map(|m| &mut m["histogram"])
        .unwrap()
}

fn merge_refused(parts: &[&Path], out: &Path, says: &[&str]) {
    let mut args = vec!["merge"];
    args.extend(parts.iter().map(|p| s(p)));
    args.extend(["--out", s(out)]);
    refused(&args, says);
    assert!(!out.exists(), "nothing is written when merge refuses");
}

#[test]
fn a_part_claiming_more_shards_than_allowed_is_refused_before_allocating() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, _] = two_parts(&tmp.path().join("parts"));
    let out = tmp.path().join("out");
    for count in [1_000_000_000_000u64, 10_000_000] {
        let forged = forge(&a, &tmp.path().join(format!("n{count}")), |b| {
            b["shard_count"] = count.into()
        });
        merge_refused(&[&forged], &out, &["shard count", "100000"]);
    }
}

#[test]
fn many_missing_shards_make_a_short_message() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("parts");
    succeeds(&[
        "run",
        "configs/rally.toml",
        "--trials",
        "1000",
        "--shard",
        "0/100000",
        "--quiet",
        "--out",
        s(&dir),
    ]);
    let out = tmp.path().join("out");
    merge_refused(
        &[&dir.join("shard-0-of-100000.json")],
        &out,
        // The first ten missing shards are named, the other 99,989 counted.
        &[
            "shards missing: 1/100000, 2/100000",
            "10/100000, and 99989 more",
        ],
    );
}

#[test]
fn forged_parts_with_a_matching_checksum_are_refused_not_panicked_on() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b] = two_parts(&tmp.path().join("parts"));
    let out = tmp.path().join("out");
    let dir = |n: &str| tmp.path().join(n);

    // Shard index 7 of 3.
    let a3 = forge(&a, &dir("i3"), |v| v["shard_count"] = 3.into());
    let b7 = forge(&b, &dir("i7"), |v| {
        v["shard_count"] = 3.into();
        v["shard_index"] = 7.into();
    });
    merge_refused(
        &[&a3, &b7],
        &out,
        &["shard index 7 must be below the shard count 3"],
    );

    // Histogram offsets of +-9e18: each part's values are far beyond what any sum can hold.
    let high = forge(&a, &dir("hi"), |v| {
        histogram(v, "wardens.alive")["offset"] = 9_000_000_000_000_000_000i64.into()
    });
    let low = forge(&b, &dir("lo"), |v| {
        histogram(v, "wardens.alive")["offset"] = (-9_000_000_000_000_000_000i64).into()
    });
    merge_refused(&[&high, &low], &out, &["wardens.alive", "too large to sum"]);

    // A count of 2^64 - 1 would wrap the trial total.
    let huge = forge(&a, &dir("count"), |v| {
        histogram(v, "wardens.restored")["counts"] = serde_json::json!([u64::MAX])
    });
    merge_refused(
        &[&huge, &b],
        &out,
        &["wardens.restored", "18446744073709551615"],
    );

    // A forged trials_played.
    let played = forge(&a, &dir("played"), |v| {
        v["trials_played"] = 123_456_789.into()
    });
    merge_refused(&[&played, &b], &out, &["trials_played is 123456789"]);

    // Counts that agree with each other but not with the shard's share of the trials: 140,000
    // trials are 3 chunks, and shard 0/2 plays chunks [0, 3 * 1 / 2) = chunk 0, 65,536 trials.
    let fewer = forge(&a, &dir("fewer"), |v| {
        v["trials_played"] = 1.into();
        let metrics = v["report"]["variants"][0]["metrics"]
            .as_array_mut()
            .unwrap();
        for m in metrics {
            m["histogram"] = serde_json::json!({ "offset": 0, "counts": [1] });
        }
    });
    merge_refused(&[&fewer, &b], &out, &["counts 1 trials", "plays 65536"]);

    // The untouched parts still merge.
    let mut args = vec!["merge", s(&a), s(&b), "--out"];
    args.push(s(&out));
    succeeds(&args);
}

#[test]
fn a_forged_but_consistent_part_with_far_apart_values_merges_in_little_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b] = two_parts(&tmp.path().join("parts"));
    // All of a part's trials moved to one value, 0 in one part and 10^12 in the other: a
    // dense histogram would need 10^12 cells.
    let spread = |part: &Path, n: &str, value: i64| {
        forge(part, &tmp.path().join(n), |v| {
            let h = histogram(v, "wardens.restored");
            let total: u64 = h["counts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_u64().unwrap())
                .sum();
            *h = serde_json::json!({ "offset": value, "counts": [total] });
        })
    };
    let low = spread(&a, "low", 0);
    let high = spread(&b, "high", 1_000_000_000_000);
    let out = tmp.path().join("out");
    succeeds(&["merge", s(&low), s(&high), "--out", s(&out)]);
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    // 65,536 trials at 0 and 74,464 at 10^12: the extremes are the two values.
    let row = summary
        .lines()
        .find(|l| l.contains(",wardens.restored,"))
        .unwrap();
    assert!(row.ends_with(",0,1000000000000"), "{row}");
    assert!(row.contains(",140000,"), "{row}");
}

// ---- Item 2: sweep grids -------------------------------------------------------------------

#[test]
fn a_sweep_grid_beyond_the_limit_is_refused_before_its_points_are_built() {
    let tmp = tempfile::tempdir().unwrap();
    let hundred = |f: fn(usize) -> String| list((0..100).map(f));
    // 4 keys x 100 values: 10^8 points from a 2.5 KB file.
    let four = rally_with(
        tmp.path(),
        "four.toml",
        &format!(
            "[sweep]\n\"battlefield.width\" = {}\n\"battlefield.height\" = {}\n\"unit.wardens.base\" = {}\n\"unit.wardens.formation.spacing\" = {}\n",
            hundred(|i| format!("{}.0", 40 + i)),
            hundred(|i| format!("{}.0", 40 + i)),
            hundred(|i| format!("{:.3}", 0.5 + i as f64 / 1000.0)),
            hundred(|i| format!("{:.3}", 1.5 + i as f64 / 1000.0)),
        ),
    );
    refused(&["check", s(&four)], &["100 x 100 x 100 x 100", "10000"]);
    // 3 keys x 100 values: 10^6 points, once accepted by check and lost by run.
    let three = rally_with(
        tmp.path(),
        "three.toml",
        &format!(
            "[sweep]\n\"battlefield.width\" = {}\n\"battlefield.height\" = {}\n\"unit.wardens.base\" = {}\n",
            hundred(|i| format!("{}.0", 40 + i)),
            hundred(|i| format!("{}.0", 40 + i)),
            hundred(|i| format!("{:.3}", 0.5 + i as f64 / 1000.0)),
        ),
    );
    let out = tmp.path().join("out");
    refused(
        &[
            "run",
            s(&three),
            "--trials",
            "10",
            "--quiet",
            "--out",
            s(&out),
        ],
        &["100 x 100 x 100", "10000"],
    );
    assert!(!out.exists());
}

// ---- Item 3: Shoot's tables ----------------------------------------------------------------

#[test]
fn a_huge_volley_is_refused_and_one_within_the_limit_costs_nothing_until_it_shoots() {
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("configs/rally.toml").unwrap();
    let armed = |size: u32, attacks: u32| {
        text.replace("size = 10 ", &format!("size = {size} ")).replace(
            "rules = []",
            &format!(
                "rules = []\nweapon = {{ attacks = {attacks}, hit = \"d6>=4\", damage = 1, range = 24.0 }}"
            ),
        )
    };
    // size = 100000 with attacks = 1000: a 10^8-attack volley; it never shoots here.
    let huge = tmp.path().join("huge.toml");
    std::fs::write(&huge, armed(100_000, 1000)).unwrap();
    refused(
        &["check", s(&huge)],
        &["unit.wardens.weapon.attacks", "100000000 attacks", "10000"],
    );
    // At the limit, a unit that only Rallies runs as any other.
    let edge = tmp.path().join("edge.toml");
    std::fs::write(&edge, armed(10_000, 1)).unwrap();
    let out = tmp.path().join("out");
    succeeds(&[
        "run",
        s(&edge),
        "--trials",
        "1000",
        "--quiet",
        "--out",
        s(&out),
    ]);
}

// ---- Item 4: histograms by number of values, not by span -----------------------------------

/// A shooter of 10 models with 1 attack each, hitting on 4+, into 10 models of 10^6 HP with no
/// defense, each unsaved hit dealing 10^6: every hit removes one model.
const MILLION_DAMAGE: &str = r#"
[scenario]
name = "million"
trials = 20000
seed = 5
[battlefield]
width = 48.0
height = 48.0
[[unit]]
id = "gun"
side = "blue"
size = 10
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=4", damage = 1000000, range = 24.0 }
formation = { kind = "line", x = 10.0, y = 10.0, spacing = 1.5 }
[[unit]]
id = "wall"
side = "red"
size = 10
hp = 1000000
resolve = "d6>=4"
formation = { kind = "line", x = 10.0, y = 20.0, spacing = 1.5 }
[[step]]
unit = "gun"
command = "shoot"
target = "wall"
"#;

#[test]
fn damage_in_millions_is_counted_by_value_and_matches_the_binomial() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("million.toml");
    std::fs::write(&file, MILLION_DAMAGE).unwrap();
    let out = tmp.path().join("out");
    succeeds(&["run", s(&file), "--quiet", "--out", s(&out)]);
    // damage_taken = 10^6 x Binomial(10, 1/2): mean 5e6, variance 10 * 1/4 * 10^12.
    let distribution = std::fs::read_to_string(out.join("distribution.csv")).unwrap();
    let rows: Vec<(i64, u64)> = distribution
        .lines()
        .filter(|l| l.contains(",wall.damage_taken,"))
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (cells[4].parse().unwrap(), cells[5].parse().unwrap())
        })
        .collect();
    assert!(rows.len() <= 11, "{rows:?}");
    assert!(rows
        .iter()
        .all(|&(v, _)| v % 1_000_000 == 0 && (0..=10_000_000).contains(&v)));
    let n: u64 = rows.iter().map(|&(_, c)| c).sum();
    assert_eq!(n, 20_000);
    let mean = rows.iter().map(|&(v, c)| v as f64 * c as f64).sum::<f64>() / n as f64;
    let se = (2.5e12f64 / n as f64).sqrt();
    assert!(
        (mean - 5e6).abs() < 5.0 * se,
        "mean {mean}, 5 SE = {}",
        5.0 * se
    );
}

#[test]
fn card_scores_of_millions_over_a_hundred_turns_are_summed_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("cards.toml");
    let deck = list(
        ["up", "down", "mid"]
            .iter()
            .cycle()
            .take(300)
            .map(|c| format!("\"{c}\"")),
    );
    std::fs::write(
        &file,
        format!(
            r#"
[scenario]
name = "bigcards"
trials = 5000
seed = 6
[cards]
cards_per_turn = 2
turns = 100
initiative = "alternate"
[[cards.card]]
id = "up"
kind = "action"
value = 1000000
[[cards.card]]
id = "down"
kind = "action"
value = -1000000
[[cards.card]]
id = "mid"
kind = "action"
value = 3
[cards.players.A]
plays = "random"
hand_size = 5
deck = {deck}
[cards.players.B]
plays = "random"
hand_size = 5
deck = {deck}
"#
        ),
    )
    .unwrap();
    let out = tmp.path().join("out");
    succeeds(&["run", s(&file), "--quiet", "--out", s(&out)]);
    let distribution = std::fs::read_to_string(out.join("distribution.csv")).unwrap();
    let rows: Vec<(i64, u64)> = distribution
        .lines()
        .filter(|l| l.contains(",A.score,"))
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (cells[4].parse().unwrap(), cells[5].parse().unwrap())
        })
        .collect();
    // Every trial is counted once.
    let n: u64 = rows.iter().map(|&(_, c)| c).sum();
    assert_eq!(n, 5000);
    // A plays 200 of its 300 cards (2 a turn for 100 turns; nothing cancels or calls), each
    // scoring 10^6, -10^6 or 3: a score is 10^6 (u - d) + 3m with u + d + m = 200 and m at
    // most the 100 mids, so nothing was lost to rounding or overflow.
    let possible = |v: i64| {
        (0..=100i64).any(|m| {
            let millions = v - 3 * m;
            millions % 1_000_000 == 0 && (millions / 1_000_000).abs() <= 200 - m
        })
    };
    assert!(rows.iter().all(|&(v, _)| possible(v)), "{rows:?}");
    // The 200 cards played are a uniform draw without replacement from the 300 (the deck is
    // shuffled and plays are uniform among the hand): mean 200 x 1 (the mean value is
    // (10^6 - 10^6 + 3) / 3), variance 200 s^2 (300 - 200) / (300 - 1), s^2 the cards' own
    // variance (10^12 + 10^12 + 9) / 3 - 1.
    let mean = rows.iter().map(|&(v, c)| v as f64 * c as f64).sum::<f64>() / n as f64;
    let s2 = (2e12 + 9.0) / 3.0 - 1.0;
    let se = (200.0 * s2 * 100.0 / 299.0 / n as f64).sqrt();
    assert!(
        (mean - 200.0).abs() < 5.0 * se,
        "mean {mean}, 5 SE = {}",
        5.0 * se
    );
}

// ---- Item 8 and 10: --set, --trials, files, long values ------------------------------------

#[test]
fn a_key_path_of_eight_thousand_parts_is_refused_not_a_stack_overflow() {
    let deep = format!("sweep.{}=1", vec!["a"; 8000].join("."));
    let unit = format!("unit.{}=1", vec!["a"; 8000].join("."));
    for setting in [deep, unit] {
        refused(
            &["run", "configs/rally.toml", "--set", &setting],
            &["at most 32 parts"],
        );
    }
}

#[test]
fn the_largest_trial_count_is_refused_with_the_allowed_maximum() {
    refused(
        &[
            "run",
            "configs/rally.toml",
            "--trials",
            "18446744073709551615",
        ],
        &["18446744073709551615 trials", "9223372036854775807"],
    );
}

#[cfg(unix)]
#[test]
fn an_endless_or_huge_scenario_is_refused_after_a_bounded_read() {
    refused(
        &["check", "/dev/zero"],
        &["/dev/zero", "larger than 4194304 bytes"],
    );
    let tmp = tempfile::tempdir().unwrap();
    let big = tmp.path().join("big.toml");
    std::fs::write(&big, format!("# {}\n", "x".repeat(5 << 20))).unwrap();
    refused(
        &["check", s(&big)],
        &["big.toml", "larger than 4194304 bytes"],
    );
}

#[test]
fn toml_after_a_line_break_in_a_setting_is_refused_not_dropped() {
    refused(
        &[
            "run",
            "configs/rally.toml",
            "--set",
            "unit.wardens.alive=4\nbogus = 1",
        ],
        &["line break", "one line"],
    );
}

#[test]
fn long_values_are_quoted_clipped() {
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("configs/rally.toml").unwrap();
    let long = "x".repeat(100_000);
    // A 100 KB scenario name and unit id: refused, quoted in part.
    let name = tmp.path().join("name.toml");
    std::fs::write(
        &name,
        text.replace("name = \"rally\"", &format!("name = \"{long}\"")),
    )
    .unwrap();
    refused(&["check", s(&name)], &["scenario.name", "1 to 64"]);
    let id = tmp.path().join("id.toml");
    std::fs::write(&id, text.replace("\"wardens\"", &format!("\"{long}\""))).unwrap();
    refused(&["check", s(&id)], &["unit.id", "1 to 64"]);
    // A 100 KB --set value, a 60 KB one quoted by the dice parser, a long key and threads count.
    let value = format!("unit.wardens.resolve={long}");
    refused(
        &["run", "configs/rally.toml", "--set", &value],
        &["100000 bytes long", "at most 65536 bytes"],
    );
    let value = format!("unit.wardens.resolve={}", &long[..60_000]);
    refused(
        &["run", "configs/rally.toml", "--set", &value],
        &["bad dice test"],
    );
    let key = format!("unit.wardens.{long}=1");
    refused(&["run", "configs/rally.toml", "--set", &key], &["key path"]);
    refused(
        &["run", "configs/rally.toml", "--threads", &long],
        &["1 to 4096"],
    );
}

#[test]
fn a_shard_count_beyond_the_limit_is_refused() {
    refused(
        &["run", "configs/rally.toml", "--shard", "0/1000000"],
        &["N <= 100000"],
    );
}
