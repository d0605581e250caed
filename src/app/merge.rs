//! `rollcall merge`: joins the parts of a sharded run.

use super::*;

/// `rollcall merge`: checks the parts and writes the tables a single run would have written.
/// Nothing is written unless every check passes.
pub fn merge(parts: &[PathBuf], out: &Path) -> Result<PathBuf, Error> {
    let mut files = Vec::new();
    for p in parts {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| Error::Usage(format!("{}: cannot read folder: {e}", p.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.file_name().is_some_and(|n| {
                        let n = n.to_string_lossy();
                        n.starts_with("shard-") && n.ends_with(".json")
                    })
                })
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(Error::Usage(format!(
                    "{}: no shard-*.json partial-results file in this folder",
                    p.display()
                )));
            }
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    let parts = files
        .into_iter()
        .map(|f| partial::read(&f).map(|part| (f, part)))
        .collect::<Result<Vec<_>, _>>()?;
    let (report, body) = partial::merge(&parts)?;
    let claim = claim(out)?;
    let wall: f64 = parts.iter().map(|(_, p)| p.wall_seconds).sum();
    // Each part's count was checked; their sum is checked too.
    let played = parts
        .iter()
        .try_fold(0u64, |n, (_, p)| n.checked_add(p.body.trials_played))
        .ok_or_else(|| {
            Error::Usage("the parts' trials played add up to more than a 64-bit count".into())
        })?;
    let made = Provenance {
        version: body.version.clone(),
        scenario: body.scenario.clone(),
        scenario_hash: body.scenario_hash.clone(),
        method: body.method.clone(),
        seed: body.seed,
    };
    let trials = TrialsPlayed {
        requested: body.trials,
        played,
        chunk_size: body.chunk_size,
        threads: parts
            .iter()
            .fold(0usize, |n, (_, p)| n.saturating_add(p.threads)),
        shard: format!("merged/{}", body.shard_count),
        complete: true,
        played_in_full: None,
    };
    let mut meta = RunMeta::new(made, report.variants.len(), Some(trials), wall);
    let params: Vec<Vec<String>> = report.variants.iter().map(|v| v.params.clone()).collect();
    meta.warnings =
        crate::explain::warnings::name_points(body.warnings, &report.param_names, &params);
    write_tables(&claim, &report, &meta, Vec::new())
}
