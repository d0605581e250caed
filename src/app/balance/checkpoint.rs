//! A balance search's checkpoint: per candidate, what it has gathered (its tables' layout,
//! histograms whole), with what the search was started with. The search's next step is a
//! function of what was gathered, so a search resumed from it takes the steps the
//! uninterrupted search would have taken and writes the same tables.

use super::{Error, Gathered, Search};
use crate::output::VariantReport;
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Serialize, Deserialize)]
struct Saved {
    version: String,
    scenario: String,
    /// Of the file after `--set` and `--seed`.
    scenario_hash: String,
    seed: u64,
    trials_max: u64,
    wall_seconds: f64,
    /// Per candidate, in `over` order: its trials and report, or nothing when not played.
    candidates: Vec<Option<(u64, VariantReport)>>,
}

pub(super) fn bytes(search: &Search<'_>, gathered: &[Option<Gathered>], wall: f64) -> Vec<u8> {
    let saved = Saved {
        version: env!("CARGO_PKG_VERSION").to_string(),
        scenario: search.set.name.clone(),
        scenario_hash: format!("{:016x}", search.set.hash),
        seed: search.set.seed(),
        trials_max: search.trials_max,
        wall_seconds: wall,
        candidates: gathered
            .iter()
            .enumerate()
            .map(|(k, g)| {
                let g = g.clone()?;
                Some((g.trials, search.candidates[k].report(&search.sets[k], g)))
            })
            .collect(),
    };
    let mut bytes = serde_json::to_vec(&saved).expect("a checkpoint is plain data");
    bytes.push(b'\n');
    bytes
}

/// What the checkpoint at `path` gathered and the seconds it had taken, if it was saved by
/// this search (same version, file as overridden, seed and `--trials-max`).
pub(super) fn read(
    path: &Path,
    search: &Search<'_>,
) -> Result<(Vec<Option<Gathered>>, f64), Error> {
    let usage = |problem: String| Error::Usage(format!("--resume: {}: {problem}", path.display()));
    let text = crate::config::limits::read_text(path, 1 << 32).map_err(|p| {
        usage(format!(
            "{p}; a search saves one there when it is interrupted, and every SECONDS with --checkpoint SECONDS"
        ))
    })?;
    let saved: Saved = serde_json::from_str(&text)
        .map_err(|e| usage(format!("not a balance checkpoint ({e})")))?;
    let ours = bytes(search, &vec![None; search.candidates.len()], 0.0);
    let ours: Saved = serde_json::from_slice(&ours).expect("just written");
    let checks = [
        ("rollcall version", &saved.version, &ours.version),
        ("scenario", &saved.scenario, &ours.scenario),
        (
            "scenario hash (of the file after --set and --seed)",
            &saved.scenario_hash,
            &ours.scenario_hash,
        ),
        ("seed", &saved.seed.to_string(), &ours.seed.to_string()),
        (
            "--trials-max",
            &saved.trials_max.to_string(),
            &ours.trials_max.to_string(),
        ),
    ];
    for (what, then, now) in checks {
        if then != now {
            return Err(usage(format!(
                "saved by a search with {what} {then}, this one has {now}; resume with the scenario file, --seed, --trials-max and --set of the interrupted search"
            )));
        }
    }
    if saved.candidates.len() != search.candidates.len() {
        return Err(usage("holds another number of candidates".into()));
    }
    let mut gathered = Vec::new();
    for (k, c) in saved.candidates.iter().enumerate() {
        gathered.push(match c {
            None => None,
            Some((trials, report)) => {
                let mut g = search.candidates[k]
                    .gathered(&search.sets[k], report)
                    .filter(|g| g.metrics.iter().all(|h| h.total() == *trials))
                    .ok_or_else(|| usage(format!("candidate {} does not fit this file", k + 1)))?;
                g.trials = *trials;
                Some(g)
            }
        });
    }
    Ok((gathered, saved.wall_seconds))
}
