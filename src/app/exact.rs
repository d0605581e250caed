//! `rollcall exact`.

use super::*;
use std::time::Instant;

/// `rollcall exact` options.
#[derive(Debug, Clone)]
pub struct ExactOptions {
    pub file: PathBuf,
    pub out: Option<PathBuf>,
    pub settings: Vec<Setting>,
}

/// `rollcall exact`: the exact distribution of every metric, written as summary.csv and
/// distribution.csv with `method = exact`, plus run.json. Refuses (exit 2) what it cannot
/// compute, naming the step and why.
pub fn exact(opts: &ExactOptions) -> Result<PathBuf, Error> {
    let set = scenario::load(&opts.file, &opts.settings)?;
    let start = Instant::now();
    let report = exact_report(&set, &[]).map_err(|source| Error::Exact {
        file: set.file.clone(),
        source,
    })?;
    let wall = start.elapsed().as_secs_f64();
    let dir = opts
        .out
        .clone()
        .unwrap_or_else(|| Path::new(RESULTS_DIR).join(&set.name));
    let meta = RunMeta {
        version: env!("CARGO_PKG_VERSION").to_string(),
        scenario: set.name.clone(),
        scenario_hash: format!("{:016x}", set.hash),
        method: "exact".into(),
        seed: set.seed(),
        trials_requested: 0,
        sweep_points: set.variants.len(),
        trials_played: 0,
        chunk_size: 0,
        threads: 1,
        shard: "0/1".into(),
        wall_seconds: wall,
        trials_per_second: 0.0,
        complete: true,
    };
    write_files(&claim(&dir)?, &report, &meta, Vec::new())
}
