//! `rollcall run`: validate every file first, then play each scenario's sweep points and
//! write its tables (or a shard's partial results), and `--validate` against the exact engine.

use super::*;
use std::time::Instant;

/// `rollcall run` options, already typed.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub files: Vec<PathBuf>,
    pub trials: Option<u64>,
    pub seed: Option<u64>,
    pub threads: usize,
    pub out: Option<PathBuf>,
    pub settings: Vec<Setting>,
    pub precision: Option<f64>,
    /// Run one shard and write a partial-results file instead of the tables.
    pub shard: Option<Shard>,
    pub quiet: bool,
    /// Also write validation.csv against the exact engine, where it applies.
    pub validate: bool,
    /// Also write report.html and report.md next to the tables.
    pub report: bool,
}

fn settings_with_flags(opts: &RunOptions) -> Vec<Setting> {
    let mut settings = opts.settings.clone();
    let mut flag = |key: &str, v: u64| {
        settings.push(Setting {
            path: vec!["scenario".into(), key.into()],
            value: toml::Value::Integer(v.min(i64::MAX as u64) as i64),
        })
    };
    if let Some(t) = opts.trials {
        flag("trials", t);
    }
    if let Some(s) = opts.seed {
        flag("seed", s);
    }
    settings
}

/// `rollcall run`: validates every file first, then runs them in turn.
pub fn run(opts: &RunOptions, log: &mut dyn FnMut(Note<'_>)) -> Result<Status, Error> {
    if opts.shard.is_some() && opts.validate {
        return Err(Error::Usage(
            "--validate cannot be combined with --shard: a shard writes no tables; validate the merged run instead".into(),
        ));
    }
    if opts.shard.is_some() && opts.report {
        return Err(Error::Usage(
            "--report cannot be combined with --shard: a shard writes no tables; run rollcall report on the merged folder instead".into(),
        ));
    }
    if opts.shard.is_some() && opts.precision.is_some() {
        return Err(Error::Usage(
            "--precision cannot be combined with --shard: where a run stops would depend on the other shards".into(),
        ));
    }
    let settings = settings_with_flags(opts);
    let files = scenario_files(&opts.files)?;
    let prepared = files
        .iter()
        .map(|f| prepare(f, &settings))
        .collect::<Result<Vec<_>, _>>()?;
    let dirs: Vec<PathBuf> = prepared
        .iter()
        .map(|(set, _)| match (&opts.out, prepared.len()) {
            (Some(out), 1) => out.clone(),
            (Some(out), _) => out.join(&set.name),
            (None, _) => Path::new(RESULTS_DIR).join(&set.name),
        })
        .collect();
    for (i, dir) in dirs.iter().enumerate() {
        if let Some(j) = dirs[..i].iter().position(|d| d == dir) {
            return Err(Error::Usage(format!(
                "{} and {} would both write {}; give their scenarios different names",
                files[j].display(),
                files[i].display(),
                dir.display()
            )));
        }
    }
    let mut result = Status::Complete;
    for ((set, plans), dir) in prepared.iter().zip(&dirs) {
        let status = run_one(opts, set, plans, dir, log)?;
        match status {
            Status::Interrupted => return Ok(status),
            Status::ValidationFailed => result = status,
            Status::Complete => {}
        }
    }
    Ok(result)
}

fn run_one(
    opts: &RunOptions,
    set: &ScenarioSet,
    plans: &[Compiled],
    dir: &Path,
    log: &mut dyn FnMut(Note<'_>),
) -> Result<Status, Error> {
    let spec = RunSpec {
        trials: set.trials(),
        seed: set.seed(),
        threads: opts.threads,
        shard: opts.shard.unwrap_or(Shard::WHOLE),
        precision: opts.precision,
    };
    let monitor = Monitor::default();
    let start = Instant::now();
    let total = spec.trials.saturating_mul(plans.len() as u64);
    let (variants, complete, played) =
        crate::progress::watch(&monitor, total, &set.name, opts.quiet, &INTERRUPT, || {
            let mut variants = Vec::new();
            let mut played = 0;
            for (variant, plan) in set.variants.iter().zip(plans) {
                let (report, trials, complete) = plan.play(&variant.params, &spec, &monitor)?;
                played += trials;
                variants.push(report);
                if !complete {
                    return Ok::<_, Error>((variants, false, played));
                }
            }
            Ok((variants, true, played))
        })?;
    let wall = start.elapsed().as_secs_f64();
    let report = Report {
        scenario: set.name.clone(),
        param_names: set.param_names.clone(),
        variants,
    };
    let meta = RunMeta {
        version: env!("CARGO_PKG_VERSION").to_string(),
        scenario: set.name.clone(),
        scenario_hash: format!("{:016x}", set.hash),
        method: "monte_carlo".into(),
        seed: spec.seed,
        trials_requested: spec.trials,
        sweep_points: set.variants.len(),
        trials_played: played,
        chunk_size: CHUNK_SIZE,
        threads: opts.threads,
        shard: format!("{}/{}", spec.shard.index, spec.shard.count),
        wall_seconds: wall,
        trials_per_second: if wall > 0.0 {
            played as f64 / wall
        } else {
            0.0
        },
        complete,
    };
    let (written, to_validate) = match opts.shard {
        Some(shard) => {
            let body = partial::PartBody {
                format: partial::FORMAT.into(),
                version: meta.version.clone(),
                scenario: meta.scenario.clone(),
                scenario_hash: meta.scenario_hash.clone(),
                method: meta.method.clone(),
                seed: meta.seed,
                trials: meta.trials_requested,
                chunk_size: meta.chunk_size,
                shard_index: shard.index,
                shard_count: shard.count,
                complete,
                trials_played: played,
                report,
            };
            let path = dir.join(partial::file_name(shard.index, shard.count));
            std::fs::create_dir_all(dir)
                .and_then(|()| {
                    output::write_atomic(&path, &partial::to_bytes(body, opts.threads, wall))
                })
                .map_err(|source| Error::Write {
                    path: path.clone(),
                    source,
                })?;
            (path, None)
        }
        None => (write_tables(dir, &report, &meta)?, Some(report)),
    };
    log(Note::Info(&format!(
        "{}: {} trials in {:.2} s ({:.1} M trials/s){} -> {}",
        set.name,
        played,
        wall,
        meta.trials_per_second / 1e6,
        if complete { "" } else { ", interrupted" },
        written.display()
    )));
    if !complete {
        return Ok(Status::Interrupted);
    }
    let status = match to_validate.filter(|_| opts.validate) {
        Some(report) => validate(set, plans, &report, dir, log)?,
        None => Status::Complete,
    };
    if opts.report {
        let paths = crate::report::write(dir, None)?;
        log(Note::Info(&format!(
            "{}: report -> {}",
            set.name,
            paths[0].display()
        )));
    }
    Ok(status)
}

/// `run --validate`: checks a finished run against the exact engine, where it applies, and
/// writes validation.csv next to the tables.
fn validate(
    set: &ScenarioSet,
    plans: &[Compiled],
    report: &Report,
    dir: &Path,
    log: &mut dyn FnMut(Note<'_>),
) -> Result<Status, Error> {
    let exact = match exact_report(set, plans) {
        Ok(exact) => exact,
        Err(refusal) => {
            log(Note::Info(&format!(
                "{}: not validated, the exact engine does not apply: {refusal}",
                set.name
            )));
            return Ok(Status::Complete);
        }
    };
    let rows = crate::exact::validate::compare(&exact, report);
    let path = dir.join("validation.csv");
    output::write_atomic(
        &path,
        &output::tables::validation_csv(&set.name, &set.param_names, &rows),
    )
    .map_err(|source| Error::Write {
        path: path.clone(),
        source,
    })?;
    let failed: Vec<_> = rows.iter().filter(|r| !r.pass).collect();
    for r in &failed {
        let at: Vec<String> = set
            .param_names
            .iter()
            .zip(&r.params)
            .map(|(k, v)| format!("{k}={v}"))
            .chain((!r.choice.is_empty()).then(|| format!("choice {}", r.choice)))
            .collect();
        log(Note::Failure(&format!(
            "{}: validation FAILED for {}{}: exact mean {}, simulated {}, z = {:.2}, chi-square p = {:.3e}",
            set.name,
            r.metric,
            if at.is_empty() {
                String::new()
            } else {
                format!(" ({})", at.join(", "))
            },
            r.exact_mean,
            r.mc_mean,
            r.z,
            r.p_value
        )));
    }
    log(Note::Info(&format!(
        "{}: validated {} metric(s) against the exact engine, {} failed -> {}",
        set.name,
        rows.len(),
        failed.len(),
        path.display()
    )));
    Ok(if failed.is_empty() {
        Status::Complete
    } else {
        Status::ValidationFailed
    })
}
