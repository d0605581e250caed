//! Partial results: what one shard of a run writes instead of the final tables, and how parts
//! are checked and merged back into the [`Report`] a single run would have made.
//!
//! A part holds integer histograms only, so merging is exact and the merged tables are byte
//! for byte those of a single run. A checksum over everything but timing catches a part that
//! was truncated or altered.

use super::tables::Report;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Names the file layout; bump when it changes.
pub const FORMAT: &str = "rollcall-partial/1";

/// Identity and results of one shard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartBody {
    pub format: String,
    pub version: String,
    pub scenario: String,
    pub scenario_hash: String,
    pub method: String,
    pub seed: u64,
    pub trials: u64,
    pub chunk_size: u64,
    pub shard_index: u64,
    pub shard_count: u64,
    pub complete: bool,
    pub trials_played: u64,
    pub report: Report,
}

/// The file: the body, its checksum, and timing (outside the checksum).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PartFile {
    pub body: PartBody,
    pub checksum: String,
    pub threads: usize,
    pub wall_seconds: f64,
}

fn checksum(body: &PartBody) -> String {
    let bytes = serde_json::to_vec(body).expect("a part serialises");
    let h = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{h:016x}")
}

/// The file name of shard `index` of `count`.
pub fn file_name(index: u64, count: u64) -> String {
    format!("shard-{index}-of-{count}.json")
}

pub fn to_bytes(body: PartBody, threads: usize, wall_seconds: f64) -> Vec<u8> {
    let file = PartFile {
        checksum: checksum(&body),
        body,
        threads,
        wall_seconds,
    };
    let mut bytes = serde_json::to_vec(&file).expect("a part serialises");
    bytes.push(b'\n');
    bytes
}

/// Why parts cannot be merged; each names the file and the problem.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MergeError {
    #[error("{}: cannot read: {problem}", file.display())]
    Read { file: PathBuf, problem: String },
    #[error("{}: not a rollcall partial-results file, or truncated or corrupted: {problem}", file.display())]
    Corrupt { file: PathBuf, problem: String },
    #[error("{}: {problem}", file.display())]
    Mismatch { file: PathBuf, problem: String },
    #[error("{0}")]
    Coverage(String),
}

/// Reads and checks one part.
pub fn read(path: &Path) -> Result<PartFile, MergeError> {
    let bytes = std::fs::read(path).map_err(|e| MergeError::Read {
        file: path.to_path_buf(),
        problem: e.to_string(),
    })?;
    let corrupt = |problem: String| MergeError::Corrupt {
        file: path.to_path_buf(),
        problem,
    };
    let part: PartFile = serde_json::from_slice(&bytes).map_err(|e| corrupt(e.to_string()))?;
    if part.body.format != FORMAT {
        return Err(corrupt(format!(
            "format \"{}\", expected \"{FORMAT}\"",
            part.body.format
        )));
    }
    let expected = checksum(&part.body);
    if part.checksum != expected {
        return Err(corrupt(format!(
            "checksum {} does not match its contents ({expected})",
            part.checksum
        )));
    }
    Ok(part)
}

/// Checks that the parts belong to one run and cover each of its shards exactly once, then
/// adds their histograms. Returns the merged report and the first part's body for metadata.
pub fn merge(parts: &[(PathBuf, PartFile)]) -> Result<(Report, PartBody), MergeError> {
    let Some((first_path, first)) = parts.first() else {
        return Err(MergeError::Coverage(
            "no partial-results file to merge".into(),
        ));
    };
    let a = &first.body;
    let count = a.shard_count;
    let mut seen: Vec<Option<&Path>> = vec![None; count as usize];
    for (path, part) in parts {
        let b = &part.body;
        let mismatch = |what: &str, theirs: String, ours: String| MergeError::Mismatch {
            file: path.clone(),
            problem: format!(
                "{what} is {theirs} but {} has {ours}; parts of one run must agree",
                first_path.display()
            ),
        };
        let checks: [(&str, String, String); 9] = [
            // Most specific first: seed and trials also change the scenario hash.
            ("version", b.version.clone(), a.version.clone()),
            ("scenario", b.scenario.clone(), a.scenario.clone()),
            ("seed", b.seed.to_string(), a.seed.to_string()),
            ("trials", b.trials.to_string(), a.trials.to_string()),
            (
                "chunk size",
                b.chunk_size.to_string(),
                a.chunk_size.to_string(),
            ),
            (
                "shard count N",
                b.shard_count.to_string(),
                count.to_string(),
            ),
            ("method", b.method.clone(), a.method.clone()),
            (
                "scenario hash",
                b.scenario_hash.clone(),
                a.scenario_hash.clone(),
            ),
            (
                "sweep parameters",
                b.report.param_names.join(","),
                a.report.param_names.join(","),
            ),
        ];
        for (what, theirs, ours) in checks {
            if theirs != ours {
                return Err(mismatch(what, theirs, ours));
            }
        }
        if !b.complete {
            return Err(MergeError::Mismatch {
                file: path.clone(),
                problem: format!(
                    "shard {}/{} was interrupted (complete: false); run it again",
                    b.shard_index, count
                ),
            });
        }
        let slot = &mut seen[b.shard_index as usize];
        if let Some(other) = slot {
            return Err(MergeError::Mismatch {
                file: path.clone(),
                problem: format!(
                    "shard {}/{count} is also in {}; each shard must be merged once",
                    b.shard_index,
                    other.display()
                ),
            });
        }
        *slot = Some(path);
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(i, _)| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::Coverage(format!(
            "shards missing: {}; merge needs all {count} shards of the run",
            missing.join(", ")
        )));
    }
    let mut report = a.report.clone();
    for (path, part) in &parts[1..] {
        merge_report(&mut report, &part.body.report).map_err(|problem| MergeError::Mismatch {
            file: path.clone(),
            problem,
        })?;
    }
    Ok((report, a.clone()))
}

fn merge_report(into: &mut Report, other: &Report) -> Result<(), String> {
    if into.variants.len() != other.variants.len() {
        return Err(format!(
            "has {} sweep points, expected {}",
            other.variants.len(),
            into.variants.len()
        ));
    }
    for (a, b) in into.variants.iter_mut().zip(&other.variants) {
        let same_shape = a.params == b.params
            && a.metrics.len() == b.metrics.len()
            && a.comparisons.len() == b.comparisons.len()
            && a.metrics
                .iter()
                .zip(&b.metrics)
                .all(|(x, y)| x.choice == y.choice && x.metric == y.metric)
            && a.comparisons
                .iter()
                .zip(&b.comparisons)
                .all(|(x, y)| (&x.metric, &x.first, &x.second) == (&y.metric, &y.first, &y.second));
        if !same_shape {
            return Err("lists different metrics than the other parts".into());
        }
        for (x, y) in a.metrics.iter_mut().zip(&b.metrics) {
            x.histogram.merge(&y.histogram);
        }
        for (x, y) in a.comparisons.iter_mut().zip(&b.comparisons) {
            x.differences.merge(&y.differences);
        }
    }
    Ok(())
}

/// A run's checkpoint (`run --checkpoint`): a part file (the same fields, `complete: false`)
/// plus, per sweep point started, the chunks its histograms hold, so that a resumed run plays
/// exactly the others. [`read`] reads and checks its part; [`read_chunks_done`] its chunks.
///
/// The chunks are ranges `[start, end)` of chunk indices, sorted and disjoint; `chunks_checksum`
/// ties them to the part's checksum.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct CheckpointChunks {
    chunks_done: Vec<Vec<[u64; 2]>>,
    chunks_checksum: String,
}

fn chunks_checksum(part_checksum: &str, chunks_done: &[Vec<[u64; 2]>]) -> String {
    let mut bytes = part_checksum.as_bytes().to_vec();
    bytes.extend(serde_json::to_vec(chunks_done).expect("ranges serialise"));
    let h = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{h:016x}")
}

/// The bytes of a checkpoint: the part `body` (which should say `complete: false`) and, for
/// each of its sweep points, the chunk ranges it holds.
pub fn checkpoint_to_bytes(
    body: PartBody,
    chunks_done: Vec<Vec<[u64; 2]>>,
    threads: usize,
    wall_seconds: f64,
) -> Vec<u8> {
    let part = PartFile {
        checksum: checksum(&body),
        body,
        threads,
        wall_seconds,
    };
    let mut value = serde_json::to_value(&part).expect("a part serialises");
    let extra = CheckpointChunks {
        chunks_checksum: chunks_checksum(&part.checksum, &chunks_done),
        chunks_done,
    };
    if let (Some(map), serde_json::Value::Object(more)) = (
        value.as_object_mut(),
        serde_json::to_value(extra).expect("ranges serialise"),
    ) {
        map.extend(more);
    }
    let mut bytes = serde_json::to_vec(&value).expect("a part serialises");
    bytes.push(b'\n');
    bytes
}

/// The chunk ranges of a checkpoint whose part [`read`] has accepted as `part`, one list per
/// sweep point of its report.
pub fn read_chunks_done(path: &Path, part: &PartFile) -> Result<Vec<Vec<[u64; 2]>>, MergeError> {
    let corrupt = |problem: String| MergeError::Corrupt {
        file: path.to_path_buf(),
        problem,
    };
    let bytes = std::fs::read(path).map_err(|e| MergeError::Read {
        file: path.to_path_buf(),
        problem: e.to_string(),
    })?;
    let extra: CheckpointChunks =
        serde_json::from_slice(&bytes).map_err(|e| corrupt(format!("not a checkpoint: {e}")))?;
    let expected = chunks_checksum(&part.checksum, &extra.chunks_done);
    if extra.chunks_checksum != expected {
        return Err(corrupt(format!(
            "chunks checksum {} does not match its contents ({expected})",
            extra.chunks_checksum
        )));
    }
    if extra.chunks_done.len() != part.body.report.variants.len() {
        return Err(corrupt(format!(
            "lists the chunks of {} sweep points but holds {}",
            extra.chunks_done.len(),
            part.body.report.variants.len()
        )));
    }
    Ok(extra.chunks_done)
}
