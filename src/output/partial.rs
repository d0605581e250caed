//! Partial results: what one shard of a run writes instead of the final tables, and how parts
//! are checked and merged back into the [`Report`] a single run would have made.
//!
//! A part holds integer histograms only, so merging is exact and the merged tables are byte
//! for byte those of a single run. A checksum over everything but timing catches a part that
//! was truncated or damaged by accident. It is not a seal: anyone can recompute it, so every
//! field is also checked for what it claims before anything is allocated or indexed by it
//! ([`check`]): shard index below shard count, counts that add up to the trials the shard
//! plays, totals and sums that fit their integers. A hand-edited part is then either refused
//! or merged into tables as consistent as a real run's; `merge` never panics on any file.

use super::tables::{Report, VariantReport};
use crate::config::suggest::clip;
use crate::engine::Shard;
use crate::stats::Histogram;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The largest part file read, in bytes.
pub const MAX_PART_BYTES: u64 = 256 << 20;
/// The most shards a run may be cut into (`--shard I/N`, and a part's `shard_count`).
pub const MAX_SHARDS: u64 = 100_000;
/// The most sweep points a part may hold (as many as a scenario's `[sweep]` grid may have).
pub const MAX_POINTS: usize = crate::config::limits::MAX_SWEEP_POINTS;
/// The most metric and comparison rows one sweep point of a part may hold.
pub const MAX_ROWS: usize = 1 << 20;
/// The most distinct choices one sweep point of a part may hold (a card game enumerating
/// orderings has the most arms).
pub const MAX_CHOICES: usize = 4_096;
/// Shards listed by name in a "shards missing" message; the rest are counted.
const MISSING_LISTED: usize = 10;

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
    /// What acted in no trial of this part, each with the sweep points (indices) where:
    /// `merge` keeps what acted in no part. Left out when there is none, as in earlier parts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<(String, Vec<usize>)>,
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

/// Reads and checks one part: at most [`MAX_PART_BYTES`] bytes are read.
pub fn read(path: &Path) -> Result<PartFile, MergeError> {
    let read_error = |problem: String| MergeError::Read {
        file: path.to_path_buf(),
        problem,
    };
    let file = std::fs::File::open(path).map_err(|e| read_error(e.to_string()))?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_PART_BYTES + 1),
        &mut bytes,
    )
    .map_err(|e| read_error(e.to_string()))?;
    if bytes.len() as u64 > MAX_PART_BYTES {
        return Err(read_error(format!(
            "larger than {MAX_PART_BYTES} bytes, the most a partial-results file may hold"
        )));
    }
    parse(&bytes, path)
}

/// Parses and checks one part's bytes; `path` names it in messages.
pub fn parse(bytes: &[u8], path: &Path) -> Result<PartFile, MergeError> {
    let corrupt = |problem: String| MergeError::Corrupt {
        file: path.to_path_buf(),
        problem,
    };
    let part: PartFile = serde_json::from_slice(bytes)
        .map_err(|e| corrupt(crate::config::suggest::clip_message(&e.to_string())))?;
    if part.body.format != FORMAT {
        return Err(corrupt(format!(
            "format {}, expected \"{FORMAT}\"",
            crate::config::suggest::quoted(&part.body.format)
        )));
    }
    let expected = checksum(&part.body);
    if part.checksum != expected {
        return Err(corrupt(format!(
            "checksum {} does not match its contents ({expected})",
            crate::config::suggest::quoted(&part.checksum)
        )));
    }
    check(&part).map_err(corrupt)?;
    Ok(part)
}

/// Checks every field of a part against what it claims, before anything uses it: a part that
/// passes can be indexed, summed and laid out as tables without overflow or panic.
pub fn check(part: &PartFile) -> Result<(), String> {
    let b = &part.body;
    if !(1..=MAX_SHARDS).contains(&b.shard_count) {
        return Err(format!(
            "shard count {} must be from 1 to {MAX_SHARDS}",
            b.shard_count
        ));
    }
    if b.shard_index >= b.shard_count {
        return Err(format!(
            "shard index {} must be below the shard count {}",
            b.shard_index, b.shard_count
        ));
    }
    if b.trials == 0 || b.chunk_size == 0 {
        return Err(format!(
            "trials {} and chunk size {} must be at least 1",
            b.trials, b.chunk_size
        ));
    }
    if !(part.wall_seconds.is_finite() && part.wall_seconds >= 0.0) {
        return Err(format!(
            "wall time {} must be a number of seconds, 0 or more",
            part.wall_seconds
        ));
    }
    let r = &b.report;
    if r.variants.len() > MAX_POINTS {
        return Err(format!(
            "{} sweep points, more than the most allowed, {MAX_POINTS}",
            r.variants.len()
        ));
    }
    for (warning, at) in &b.warnings {
        if let Some(p) = at.iter().find(|&&p| p >= r.variants.len()) {
            return Err(format!(
                "warning {} names sweep point {p}, but the part has {}",
                crate::config::suggest::quoted(warning),
                r.variants.len()
            ));
        }
    }
    // The trials this shard plays at each sweep point: those of its chunks.
    let shard = Shard {
        index: b.shard_index,
        count: b.shard_count,
    };
    let chunks = shard.chunks(b.trials.div_ceil(b.chunk_size));
    let start = |chunk: u64| (u128::from(chunk) * u128::from(b.chunk_size)).min(b.trials.into());
    let per_point = (start(chunks.end) - start(chunks.start)) as u64;
    // Every trial plays every sweep point: each point counts the trials played.
    for (i, v) in r.variants.iter().enumerate() {
        let n = check_point(v, r.param_names.len()).map_err(|e| format!("sweep point {i}: {e}"))?;
        let n = n.unwrap_or(b.trials_played);
        let fits = if b.complete {
            n == per_point
        } else {
            n <= per_point
        };
        if !fits {
            return Err(format!(
                "sweep point {i} counts {n} trials, but shard {}/{} of {} trials plays {per_point}{}",
                b.shard_index,
                b.shard_count,
                b.trials,
                if b.complete { "" } else { " at most" }
            ));
        }
        if n != b.trials_played {
            return Err(format!(
                "trials_played is {}, but sweep point {i} counts {n} trials",
                b.trials_played
            ));
        }
    }
    Ok(())
}

/// Checks one sweep point's shape and histograms; returns the trials its histograms count
/// (all equal), `None` when it has none.
fn check_point(v: &VariantReport, params: usize) -> Result<Option<u64>, String> {
    if v.params.len() != params {
        return Err(format!(
            "{} parameter values for {params} sweep parameters",
            v.params.len()
        ));
    }
    if v.metrics.len() + v.comparisons.len() > MAX_ROWS {
        return Err(format!(
            "{} metrics and comparisons, more than the most allowed, {MAX_ROWS}",
            v.metrics.len() + v.comparisons.len()
        ));
    }
    let mut choices: Vec<&str> = v.metrics.iter().map(|m| m.choice.as_str()).collect();
    choices.sort_unstable();
    choices.dedup();
    if choices.len() > MAX_CHOICES {
        return Err(format!(
            "{} choices, more than the most allowed, {MAX_CHOICES}",
            choices.len()
        ));
    }
    let histograms = v
        .metrics
        .iter()
        .map(|m| (&m.metric, &m.histogram))
        .chain(v.comparisons.iter().map(|c| (&c.metric, &c.differences)));
    let mut trials: Option<(u64, &String)> = None;
    for (name, h) in histograms {
        let shown = crate::config::suggest::quoted(name);
        let total = h
            .checked_total()
            .ok_or_else(|| format!("metric {shown}: counts overflow a 64-bit total"))?;
        if sums_overflow(h) {
            return Err(format!(
                "metric {shown}: values too large to sum exactly (the sum of squares exceeds 128 bits)"
            ));
        }
        match trials {
            None => trials = Some((total, name)),
            Some((t, first)) if t != total => {
                return Err(format!(
                    "metric {} counts {t} trials but metric {shown} counts {total}; every metric counts every trial",
                    crate::config::suggest::quoted(first)
                ))
            }
            Some(_) => {}
        }
    }
    Ok(trials.map(|(t, _)| t))
}

fn sums_overflow(h: &Histogram) -> bool {
    h.checked_sums().is_none()
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
    // Every part passed `check`: count is at most MAX_SHARDS and each index is below its count.
    if count > MAX_SHARDS {
        return Err(MergeError::Mismatch {
            file: first_path.clone(),
            problem: format!("shard count {count} must be from 1 to {MAX_SHARDS}"),
        });
    }
    for (path, part) in parts {
        agrees(first_path, a, path, &part.body)?;
    }
    covers(parts, count)?;
    let mut report = a.report.clone();
    for (path, part) in &parts[1..] {
        merge_report(&mut report, &part.body.report).map_err(|problem| MergeError::Mismatch {
            file: path.clone(),
            problem,
        })?;
    }
    // Each part's sums fit; their union may not, when values are near the i64 limits.
    let merged = report.variants.iter().flat_map(|v| {
        v.metrics
            .iter()
            .map(|m| &m.histogram)
            .chain(v.comparisons.iter().map(|c| &c.differences))
    });
    if merged.into_iter().any(sums_overflow) {
        return Err(MergeError::Coverage(
            "the merged values are too large to sum exactly (the sum of squares exceeds 128 bits)"
                .into(),
        ));
    }
    let mut body = a.clone();
    body.warnings = common_warnings(parts);
    Ok((report, body))
}

/// Part `b` (file `path`) against the first part `a` (file `first_path`): the same run.
fn agrees(first_path: &Path, a: &PartBody, path: &Path, b: &PartBody) -> Result<(), MergeError> {
    let count = a.shard_count;
    let mismatch = |what: &str, theirs: String, ours: String| MergeError::Mismatch {
        file: path.to_path_buf(),
        problem: format!(
            "{what} is {} but {} has {}; parts of one run must agree",
            clip(&theirs),
            first_path.display(),
            clip(&ours)
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
    Ok(())
}

/// Every shard of `count` among `parts` once, each complete.
fn covers(parts: &[(PathBuf, PartFile)], count: u64) -> Result<(), MergeError> {
    let mut seen: Vec<Option<&Path>> = vec![None; count as usize];
    for (path, part) in parts {
        let b = &part.body;
        if !b.complete {
            return Err(MergeError::Mismatch {
                file: path.clone(),
                problem: format!(
                    "shard {}/{} was interrupted (complete: false); run it again",
                    b.shard_index, count
                ),
            });
        }
        let Some(slot) = seen.get_mut(b.shard_index as usize) else {
            return Err(MergeError::Mismatch {
                file: path.clone(),
                problem: format!("shard index {} must be below {count}", b.shard_index),
            });
        };
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
    let missing = seen.iter().filter(|s| s.is_none()).count();
    if missing > 0 {
        let mut listed: Vec<String> = seen
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_none())
            .take(MISSING_LISTED)
            .map(|(i, _)| format!("{i}/{count}"))
            .collect();
        if missing > MISSING_LISTED {
            listed.push(format!("and {} more", missing - MISSING_LISTED));
        }
        return Err(MergeError::Coverage(format!(
            "shards missing: {}; merge needs all {count} shards of the run",
            listed.join(", ")
        )));
    }
    Ok(())
}

/// What acted in no trial of any part: each warning of the first part at the sweep points
/// where every part has it.
fn common_warnings(parts: &[(PathBuf, PartFile)]) -> Vec<(String, Vec<usize>)> {
    let Some((_, first)) = parts.first() else {
        return Vec::new();
    };
    first
        .body
        .warnings
        .iter()
        .filter_map(|(warning, at)| {
            let at: Vec<usize> = at
                .iter()
                .copied()
                .filter(|p| {
                    parts[1..].iter().all(|(_, part)| {
                        part.body
                            .warnings
                            .iter()
                            .any(|(w, theirs)| w == warning && theirs.contains(p))
                    })
                })
                .collect();
            (!at.is_empty()).then(|| (warning.clone(), at))
        })
        .collect()
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
        if !a.same_layout(b) {
            return Err("lists different metrics than the other parts".into());
        }
        for (x, y) in a.metrics.iter_mut().zip(&b.metrics) {
            x.histogram.merge(&y.histogram);
        }
        for (x, y) in a.comparisons.iter_mut().zip(&b.comparisons) {
            x.differences.merge(&y.differences);
        }
    }
    merge_fair(into, other)
}

/// Each roster profile's fair-points search, from the one part whose shard ran it.
fn merge_fair(into: &mut Report, other: &Report) -> Result<(), String> {
    let (Some(a), Some(b)) = (&mut into.roster, &other.roster) else {
        return match (&into.roster, &other.roster) {
            (None, None) => Ok(()),
            _ => Err(
                "is a roster run's part and the other parts are not, or the other way round".into(),
            ),
        };
    };
    let ids = |r: &super::tables::Roster| -> Vec<(String, u64)> {
        r.profiles
            .iter()
            .map(|p| (p.id.clone(), p.points))
            .collect()
    };
    if ids(a) != ids(b) || a.budget != b.budget {
        return Err("plays other roster profiles than the other parts".into());
    }
    for (x, y) in a.profiles.iter_mut().zip(&b.profiles) {
        match (&x.fair, &y.fair) {
            (_, None) => {}
            (None, Some(f)) => x.fair = Some(f.clone()),
            (Some(f), Some(g)) if f == g => {}
            (Some(_), Some(_)) => {
                return Err(format!(
                    "holds another fair-points search of profile {} than another part",
                    clip(&x.id)
                ))
            }
        }
    }
    Ok(())
}

/// A run's checkpoint (`run --checkpoint`): a part file (the same fields, `complete: false`)
/// plus what a resumed run needs to play exactly the trials an uninterrupted one would: per
/// sweep point started the chunks its histograms hold, the chunks begun but not finished
/// (where each of their lanes stands), and the `--precision` the run stops by. [`read`]
/// reads and checks its part; [`read_saved`] the rest.
///
/// The chunks are ranges `[start, end)` of chunk indices, sorted and disjoint;
/// `chunks_checksum` ties them to the part's checksum.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Saved {
    pub chunks_done: Vec<Vec<[u64; 2]>>,
    /// Chunks the histograms hold the first trials of, lane by lane: the same at every
    /// sweep point, since each trial plays them all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chunks_begun: Vec<BegunChunk>,
    /// `--precision`: where the run stops, which a resumed run must keep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<f64>,
}

/// A chunk begun: per lane, its trials played and the state its stream stands at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BegunChunk {
    pub chunk: u64,
    pub lanes: Vec<LaneAt>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneAt {
    pub trials: u64,
    pub state: [u64; 4],
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct CheckpointExtra {
    #[serde(flatten)]
    saved: Saved,
    chunks_checksum: String,
}

/// The checksum over the part's and the rest of the checkpoint. A checkpoint with no chunk
/// begun and no `--precision` sums what earlier versions summed (the chunks done), so that
/// theirs still read.
fn chunks_checksum(part_checksum: &str, saved: &Saved) -> String {
    let mut bytes = part_checksum.as_bytes().to_vec();
    bytes.extend(serde_json::to_vec(&saved.chunks_done).expect("ranges serialise"));
    if !saved.chunks_begun.is_empty() || saved.precision.is_some() {
        bytes.extend(serde_json::to_vec(saved).expect("a checkpoint serialises"));
    }
    let h = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{h:016x}")
}

/// The bytes of a checkpoint: the part `body` (which should say `complete: false`) and
/// `saved`, with one list of chunk ranges per sweep point of the body's report.
pub fn checkpoint_to_bytes(
    body: PartBody,
    saved: Saved,
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
    let extra = CheckpointExtra {
        chunks_checksum: chunks_checksum(&part.checksum, &saved),
        saved,
    };
    if let (Some(map), serde_json::Value::Object(more)) = (
        value.as_object_mut(),
        serde_json::to_value(extra).expect("a checkpoint serialises"),
    ) {
        map.extend(more);
    }
    let mut bytes = serde_json::to_vec(&value).expect("a part serialises");
    bytes.push(b'\n');
    bytes
}

/// The rest of a checkpoint whose part [`read`] has accepted as `part`: its chunk ranges (one
/// list per sweep point of its report), its chunks begun, its `--precision`.
pub fn read_saved(path: &Path, part: &PartFile) -> Result<Saved, MergeError> {
    let corrupt = |problem: String| MergeError::Corrupt {
        file: path.to_path_buf(),
        problem,
    };
    let file = std::fs::File::open(path).map_err(|e| MergeError::Read {
        file: path.to_path_buf(),
        problem: e.to_string(),
    })?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_PART_BYTES + 1),
        &mut bytes,
    )
    .map_err(|e| MergeError::Read {
        file: path.to_path_buf(),
        problem: e.to_string(),
    })?;
    let extra: CheckpointExtra = serde_json::from_slice(&bytes).map_err(|e| {
        corrupt(format!(
            "not a checkpoint: {}",
            crate::config::suggest::clip_message(&e.to_string())
        ))
    })?;
    let expected = chunks_checksum(&part.checksum, &extra.saved);
    if extra.chunks_checksum != expected {
        return Err(corrupt(format!(
            "chunks checksum {} does not match its contents ({expected})",
            crate::config::suggest::quoted(&extra.chunks_checksum)
        )));
    }
    let saved = extra.saved;
    if saved.chunks_done.len() != part.body.report.variants.len() {
        return Err(corrupt(format!(
            "lists the chunks of {} sweep points but holds {}",
            saved.chunks_done.len(),
            part.body.report.variants.len()
        )));
    }
    if saved.precision.is_some_and(|p| !(p.is_finite() && p > 0.0)) {
        return Err(corrupt("its precision must be a number above 0".into()));
    }
    Ok(saved)
}
