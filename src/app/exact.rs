//! `rollcall exact`.

use super::*;
use std::time::Instant;

/// The folder `rollcall exact` writes into inside `results/<scenario>/`, so that exact tables
/// sit beside a simulation's and never replace them.
pub const EXACT_DIR: &str = "exact";

/// `rollcall exact`: the exact distribution of every metric, written as summary.csv and
/// distribution.csv with `method = exact`, plus run.json, into `results/<scenario>/exact/`
/// unless `--out` says otherwise. Refuses (exit 2) what it cannot compute, naming the step
/// and why, and a folder that holds a simulation's tables.
pub fn exact(opts: &FileOptions) -> Result<PathBuf, Error> {
    limit_states(opts.max_states)?;
    let set = scenario::load(&opts.file, &opts.settings)?;
    let dir = opts
        .out
        .clone()
        .unwrap_or_else(|| Path::new(RESULTS_DIR).join(&set.name).join(EXACT_DIR));
    if simulated(&dir) {
        return Err(Error::Usage(format!(
            "{} holds a simulation's tables (its run.json says \"method\": \"monte_carlo\"), \
             which exact tables would replace; give another --out, or none to write into {}",
            dir.display(),
            Path::new(RESULTS_DIR)
                .join(&set.name)
                .join(EXACT_DIR)
                .display()
        )));
    }
    let start = Instant::now();
    let report = exact_report(&set, None).map_err(|source| refused(&set, source))?;
    let wall = start.elapsed().as_secs_f64();
    let meta = exact_meta(&set, wall);
    write_files(&claim(&dir)?, &report, &meta, Vec::new())
}

/// Whether `dir` holds the tables of a simulated run: its run.json names the Monte Carlo
/// method. A missing or unreadable run.json is no simulation's.
fn simulated(dir: &Path) -> bool {
    std::fs::read(dir.join("run.json"))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .is_some_and(|meta| meta["method"] == output::MONTE_CARLO)
}
