//! The fuzzing harness on stable: the cargo-fuzz targets of `fuzz/src/lib.rs` (scenario
//! loader, card-set loader, `--set`, shard-part reader) driven by fixed-seed mutations of the
//! shipped configs and of shard parts made from them. No input may panic; a sample of the
//! mutated scenarios and parts also goes through the binary, whose status must be 0 or 2.
//!
//! Ignored by default (it runs for about a minute): `.ci/run` runs it with
//! `cargo test --test integration fuzz_inputs -- --ignored`. `ROLLCALL_FUZZ_ITERATIONS` sets the
//! mutated inputs per target (default 20,000), `ROLLCALL_FUZZ_SEED` the seed.

#[path = "../../fuzz/src/lib.rs"]
mod targets;

use std::path::{Path, PathBuf};
use std::process::Command;

/// SplitMix64: the test's own generator, so a seed names a sequence of inputs for good.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Numbers that sit on the edges of every integer and float type and of the limits.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "65536",
    "10001",
    "100001",
    "1000000",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "1e308",
    "nan",
    "-inf",
    "1e6",
    "1M",
];

/// Bytes that change TOML or JSON structure.
const BYTES: &[u8] = b"[]{}\"'=.,\n#-_0123456789eE+ \\\xff";

/// One to four stacked mutations of `input`, splicing from `others`.
fn mutate(rng: &mut SplitMix, input: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let mut b = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(b.len() + 1);
        match rng.below(8) {
            0 if !b.is_empty() => {
                let i = at.min(b.len() - 1);
                b[i] ^= 1 << rng.below(8);
            }
            1 if !b.is_empty() => {
                let i = at.min(b.len() - 1);
                b[i] = BYTES[rng.below(BYTES.len())];
            }
            2 => {
                let end = (at + 1 + rng.below(16)).min(b.len());
                b.drain(at..end);
            }
            3 => {
                let end = (at + 1 + rng.below(64)).min(b.len());
                let piece = b[at..end].to_vec();
                let to = rng.below(b.len() + 1);
                b.splice(to..to, piece);
            }
            4 | 5 => {
                // Replace the number nearest after `at` with an edge value.
                let Some(start) = b[at..].iter().position(u8::is_ascii_digit) else {
                    continue;
                };
                let start = at + start;
                let len = b[start..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit() || **c == b'.' || **c == b'_')
                    .count();
                let n = NUMBERS[rng.below(NUMBERS.len())].as_bytes().to_vec();
                b.splice(start..start + len, n);
            }
            6 => b.truncate(at),
            _ => {
                // A line of another file, inserted at a line start.
                let other = &others[rng.below(others.len())];
                let lines: Vec<&[u8]> = other.split(|&c| c == b'\n').collect();
                let line = lines[rng.below(lines.len())];
                let to = b[..at]
                    .iter()
                    .rposition(|&c| c == b'\n')
                    .map_or(0, |i| i + 1);
                let mut piece = line.to_vec();
                piece.push(b'\n');
                b.splice(to..to, piece);
            }
        }
    }
    b
}

fn iterations() -> usize {
    std::env::var("ROLLCALL_FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
}

fn seed() -> u64 {
    std::env::var("ROLLCALL_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x0F02_2018)
}

/// Feeds `iterations()` mutations of `seeds` to `target`; an input that panics is saved under
/// `target/fuzz-failures/` and fails the test.
fn drive(name: &str, seeds: &[Vec<u8>], target: fn(&[u8]) -> bool) -> Vec<Vec<u8>> {
    let mut rng = SplitMix(seed() ^ name.len() as u64);
    let mut sample = Vec::new();
    let mut accepted = 0;
    for i in 0..iterations() {
        let input = mutate(&mut rng, &seeds[i % seeds.len()], seeds);
        let outcome = std::panic::catch_unwind(|| target(&input));
        accepted += usize::from(matches!(outcome, Ok(true)));
        if outcome.is_err() {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
            std::fs::create_dir_all(&dir).unwrap();
            let file = dir.join(format!("{name}-{i}"));
            std::fs::write(&file, &input).unwrap();
            panic!("{name}: input {i} panicked; saved as {}", file.display());
        }
        if i % 50 == 0 {
            sample.push(input);
        }
    }
    // The rest were refused: a harness whose inputs are all refused, or all accepted, would
    // test little.
    eprintln!(
        "{name}: {} inputs, {accepted} accepted, 0 panics",
        iterations()
    );
    assert!(
        accepted > 0 && accepted < iterations(),
        "{name}: {accepted} accepted"
    );
    sample
}

fn shipped_configs() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| (p.clone(), std::fs::read(p).unwrap()))
        .collect()
}

fn rollcall(args: &[&str]) -> Option<i32> {
    Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("binary runs")
        .status
        .code()
}

#[test]
#[ignore = "about a minute; run by .ci/run"]
fn mutated_scenarios_are_loaded_or_refused_never_panicked_on() {
    let seeds: Vec<Vec<u8>> = shipped_configs().into_iter().map(|(_, b)| b).collect();
    let sample = drive("scenario", &seeds, targets::scenario);
    // Through the binary too: status 0 or 2, never an abort.
    let tmp = tempfile::tempdir().unwrap();
    for (i, input) in sample.iter().enumerate() {
        let file = tmp.path().join(format!("s{i}.toml"));
        std::fs::write(&file, input).unwrap();
        let status = rollcall(&["check", file.to_str().unwrap()]);
        assert!(
            matches!(status, Some(0 | 2)),
            "check of mutated input {i} exited {status:?}"
        );
    }
}

#[test]
#[ignore = "about a minute; run by .ci/run"]
fn mutated_card_sets_are_loaded_or_refused_never_panicked_on() {
    let set =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/cards/seed-set.toml"))
            .unwrap();
    drive("cards", &[set], targets::cards);
}

#[test]
#[ignore = "about a minute; run by .ci/run"]
fn mutated_settings_are_applied_or_refused_never_panicked_on() {
    let seeds: Vec<Vec<u8>> = [
        "unit.wardens.alive=4",
        "unit.wardens.resolve=d6>=3",
        "unit.raiders.weapon={ attacks = 2, hit = \"d6>=3\", damage = \"d3\", range = 12.0 }",
        "unit.wardens.orders[0].when=missing >= 3",
        "engagement.rounds=12",
        "scenario.trials=1e6",
        "options.defend.bonus=2",
        "battlefield.terrain=[{ x = 1.0, y = 1.0, width = 2.0, height = 2.0 }]",
        "sweep.\"unit.wardens.size\"=[5, 6, 7]",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    drive("setting", &seeds, targets::setting);
}

#[test]
#[ignore = "about a minute; run by .ci/run"]
fn mutated_shard_parts_are_merged_or_refused_never_panicked_on() {
    let tmp = tempfile::tempdir().unwrap();
    let mut seeds = Vec::new();
    for (config, trials) in [
        ("configs/rally.toml", "140000"),
        ("configs/duel.toml", "2000"),
        ("configs/cards-banniere.toml", "2000"),
        ("configs/design-duel.toml", "2000"),
    ] {
        let out = tmp.path().join(seeds.len().to_string());
        let status = rollcall(&[
            "run",
            config,
            "--trials",
            trials,
            "--shard",
            "0/1",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(status, Some(0), "{config}");
        let part = std::fs::read(out.join("shard-0-of-1.json")).unwrap();
        // The target's first byte says whether to re-seal the checksum: try both.
        for first in [0u8, 1] {
            seeds.push([&[first][..], &part].concat());
        }
    }
    let sample = drive("part", &seeds, targets::part);
    for (i, input) in sample.iter().enumerate().take(100) {
        let file = tmp.path().join(format!("p{i}")).join("shard-0-of-1.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, &input[1..]).unwrap();
        let out = tmp.path().join(format!("m{i}"));
        let status = rollcall(&[
            "merge",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(
            matches!(status, Some(0 | 2)),
            "merge of mutated part {i} exited {status:?}"
        );
    }
}
