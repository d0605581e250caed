//! `rollcall run`: validate every file first, then play each scenario's sweep points and
//! write its tables (or a shard's partial results), and `--validate` against the exact engine.

use super::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
    /// `--validate`: also check the simulation against the exact engine, where it applies, and
    /// write validation.csv.
    pub check_against_exact: bool,
    /// Save progress into the results folder at most this often (`--checkpoint SECONDS`).
    pub checkpoint: Option<Duration>,
    /// Continue the run whose checkpoint is in this results folder (`--resume DIR`).
    pub resume: Option<PathBuf>,
    /// Also write report.html and report.md next to the tables.
    pub report: bool,
    /// `--max-states`: the exact engine's state limit (`None`: by the memory available).
    pub max_states: Option<u64>,
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
    if opts.shard.is_some() && opts.check_against_exact {
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
    if let Some(dir) = &opts.resume {
        if opts.files.len() != 1 {
            return Err(Error::Usage(
                "--resume DIR continues one run: name its one scenario FILE, with the flags it was run with".into(),
            ));
        }
        if opts.out.as_ref().is_some_and(|out| out != dir) {
            return Err(Error::Usage(format!(
                "--resume {} writes the resumed run into that folder; leave out --out or give the same folder",
                dir.display()
            )));
        }
    }
    limit_states(opts.max_states)?;
    let settings = settings_with_flags(opts);
    let files = scenario_files(&opts.files)?;
    let mut prepared = files
        .iter()
        .map(|f| prepare(f, &settings))
        .collect::<Result<Vec<_>, _>>()?;
    // `best` orders play their advice, worked out before any trial.
    for (set, plans) in &mut prepared {
        advise_plans(set, plans)?;
    }
    let dirs: Vec<PathBuf> = prepared
        .iter()
        .map(
            |(set, _)| match (opts.resume.as_ref().or(opts.out.as_ref()), prepared.len()) {
                (Some(out), 1) => out.clone(),
                (Some(out), _) => out.join(&set.name),
                (None, _) => Path::new(RESULTS_DIR).join(&set.name),
            },
        )
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
    for (((set, compiled), dir), file) in prepared.iter().zip(&dirs).zip(&files) {
        let status = run_one(opts, (file, set, compiled), dir, log)?;
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
    (file, set, compiled): (&Path, &ScenarioSet, &Compiled),
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
    // A whole run holds its folder from now until it has written; shards of one run share
    // a folder, each writing only its own files.
    let claim = match opts.shard {
        None => Some(claim(dir)?),
        Some(_) => None,
    };
    let named_dir = dir;
    let dir = claim.as_ref().map_or(dir, |c| c.dir());
    let checkpoint_path = dir.join(match opts.shard {
        None => output::CHECKPOINT_FILE.to_string(),
        Some(s) => checkpoint_file_name(s),
    });
    if opts.shard.is_some() {
        clear_shard_leftovers(dir, &spec, &checkpoint_path)?;
    }
    let resumed = match &opts.resume {
        Some(_) => Some(read_checkpoint(&checkpoint_path, set, &spec)?),
        None => None,
    };
    let resume_with = resume_command(opts, set, named_dir);
    let mut checkpoints = checkpoints(opts, set, &spec, &checkpoint_path, resumed.as_ref());
    let monitor = Monitor::default();
    let start = Instant::now();
    let (variants, mut complete, played) = play_watched(
        opts,
        set,
        compiled,
        &spec,
        &monitor,
        resumed.as_ref(),
        &mut checkpoints,
        start,
    )?;
    if let Some(e) = checkpoints.failed.take() {
        return Err(write_error(&checkpoint_path)(e));
    }
    let wall = checkpoints.wall(start);
    let mut report = report_of(set, variants);
    if let (true, Some(roster)) = (complete, &mut report.roster) {
        let settings = settings_with_flags(opts);
        let run = super::fair::FairRun {
            file,
            settings: &settings,
            set,
            threads: opts.threads,
            shard: spec.shard,
            quiet: opts.quiet,
        };
        complete = super::fair::fill(&run, roster, log)?;
    }
    let in_full = monitor.played_in_full.load(Ordering::Relaxed);
    let mut meta = run_meta(opts, set, &spec, (played, in_full, complete), wall);
    meta.warnings = warn_never_acted(set, &report, log);
    // An interrupted run leaves a checkpoint of everything it gathered, so that it can be
    // resumed whether or not it was asked to save its progress as it went.
    let last_checkpoint = (!complete).then(|| checkpoints.bytes(start));
    let (written, status) = match claim {
        None => {
            let mut body = part_body(set, &spec, report.variants, complete, played);
            body.report.roster = report.roster;
            body.warnings = crate::explain::warnings::after_run_at(set, &body.report.variants);
            let part = ShardPart {
                dir,
                checkpoint_path: &checkpoint_path,
                last_checkpoint,
                threads: opts.threads,
                wall,
            };
            (
                write_shard_part(part, body)?,
                Status::from_complete(complete),
            )
        }
        Some(claim) => {
            let mut extra = Vec::new();
            let mut status = Status::from_complete(complete);
            if let Some(bytes) = last_checkpoint {
                extra.push((output::CHECKPOINT_FILE, bytes));
            }
            if complete && opts.check_against_exact {
                if let Some((rows, checked)) = check_against_exact(set, compiled, &report, log) {
                    extra.push(("validation.csv", rows));
                    status = checked;
                } else if crate::engine::interrupted() {
                    // Ctrl-C during the exact engine: the tables, without validation.csv.
                    status = Status::Interrupted;
                }
            }
            (write_tables(&claim, &report, &meta, extra)?, status)
        }
    };
    tell_written(opts, set, &meta, &written, &resume_with, log)?;
    Ok(status)
}

/// run.json of a simulated run of `set` by `spec`: `played` trials (`in_full` of them with
/// their rules run), complete or not, in `wall` seconds.
fn run_meta(
    opts: &RunOptions,
    set: &ScenarioSet,
    spec: &RunSpec,
    (played, in_full, complete): (u64, u64, bool),
    wall: f64,
) -> RunMeta {
    let trials = TrialsPlayed {
        requested: spec.trials,
        played,
        chunk_size: CHUNK_SIZE,
        threads: opts.threads,
        shard: format!("{}/{}", spec.shard.index, spec.shard.count),
        complete,
        played_in_full: Some(in_full),
    };
    let made = Provenance {
        seed: spec.seed,
        ..provenance(set, output::MONTE_CARLO)
    };
    RunMeta::new(made, set.variants.len(), Some(trials), wall)
}

/// Warns of every step, order and weapon that acted in no trial; returns the warnings for
/// run.json.
fn warn_never_acted(
    set: &ScenarioSet,
    report: &Report,
    log: &mut dyn FnMut(Note<'_>),
) -> Vec<String> {
    let warnings = crate::explain::warnings::after_run(set, &report.variants);
    for w in &warnings {
        log(Note::Warning(&crate::explain::warnings::line(&set.name, w)));
    }
    warnings
}

/// Says what the run played and where it wrote (an interrupted run, even with `--quiet`, also
/// how to resume it: `resume_with`), and writes the report when asked.
fn tell_written(
    opts: &RunOptions,
    set: &ScenarioSet,
    meta: &RunMeta,
    written: &Path,
    resume_with: &str,
    log: &mut dyn FnMut(Note<'_>),
) -> Result<(), Error> {
    let (played, wall, complete) = (meta.trials_played, meta.wall_seconds, meta.complete);
    let line = format!(
        "{}: {} trials in {:.2} s ({} trials/s, {} random lanes){} -> {}",
        set.name,
        played,
        wall,
        crate::format::count_si(meta.trials_per_second),
        engine::stream::kernel().name(),
        if complete { "" } else { ", interrupted" },
        written.display()
    );
    if complete {
        log(Note::Info(&line));
    } else {
        log(Note::Warning(&format!(
            "{line}; resume with: {resume_with}"
        )));
    }
    if opts.report && complete && opts.shard.is_none() {
        let paths = crate::report::write(written, None)?;
        log(Note::Info(&format!(
            "{}: report -> {}",
            set.name,
            paths[0].display()
        )));
    }
    Ok(())
}

/// The error of a failed write to `path`, for `map_err`.
fn write_error(path: &Path) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.to_path_buf();
    move |source| Error::Write { path, source }
}

/// Makes a shard's shared folder and clears what a killed run of this shard left of its
/// checkpoint and part.
fn clear_shard_leftovers(dir: &Path, spec: &RunSpec, checkpoint_path: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(write_error(dir))?;
    for path in [checkpoint_path, &dir.join(shard_part_name(spec))] {
        output::clear_leftovers(path).map_err(write_error(path))?;
    }
    Ok(())
}

/// The run's progress, saved every `--checkpoint` SECONDS and when the run is interrupted,
/// starting from what the resumed checkpoint holds.
fn checkpoints(
    opts: &RunOptions,
    set: &ScenarioSet,
    spec: &RunSpec,
    checkpoint_path: &Path,
    resumed: Option<&Resumed>,
) -> Checkpoints {
    Checkpoints {
        path: checkpoint_path.to_path_buf(),
        every: opts.checkpoint,
        clock: Instant::now(),
        written: Arc::new(AtomicU64::new(0)),
        body: part_body(set, spec, Vec::new(), false, 0),
        reports: resumed.map_or_else(Vec::new, |r| r.reports.clone()),
        done: resumed.map_or_else(ChunkSet::default, |r| r.done.clone()),
        begun: resumed.map_or_else(Vec::new, |r| r.begun.clone()),
        precision: spec.precision,
        earlier_wall: resumed.map_or(0.0, |r| r.wall),
        threads: opts.threads,
        failed: None,
    }
}

/// The command that resumes this run of `set` from its checkpoint in `dir`: the scenario file
/// and the flags that must match the checkpoint (`--trials`, `--seed`, `--set`, `--shard`) or
/// decide how the run ends (`--precision`, `--checkpoint`, `--validate`, `--report`).
fn resume_command(opts: &RunOptions, set: &ScenarioSet, dir: &Path) -> String {
    let mut words = vec![
        "rollcall".to_string(),
        "run".into(),
        shell_word(&set.file),
        "--resume".into(),
        shell_word(&dir.to_string_lossy()),
    ];
    let mut flag = |name: &str, value: String| words.extend([name.to_string(), value]);
    if let Some(t) = opts.trials {
        flag("--trials", t.to_string());
    }
    if let Some(s) = opts.seed {
        flag("--seed", s.to_string());
    }
    for s in &opts.settings {
        flag("--set", shell_word(&s.to_string()));
    }
    if let Some(s) = opts.shard {
        flag("--shard", format!("{}/{}", s.index, s.count));
    }
    if let Some(eps) = opts.precision {
        flag("--precision", eps.to_string());
    }
    if let Some(every) = opts.checkpoint {
        flag("--checkpoint", every.as_secs_f64().to_string());
    }
    let switches = [
        (opts.check_against_exact, "--validate"),
        (opts.report, "--report"),
    ];
    words.extend(switches.iter().filter(|s| s.0).map(|s| s.1.to_string()));
    words.join(" ")
}

/// `text` as one word for a POSIX shell: as it is when no character is special, else in
/// single quotes.
fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// Plays the sweep points under the progress bar, from the resumed checkpoint if any, saving
/// progress when due; returns the reports, whether the run completed, and the trials played.
#[allow(clippy::too_many_arguments)]
fn play_watched(
    opts: &RunOptions,
    set: &ScenarioSet,
    compiled: &Compiled,
    spec: &RunSpec,
    monitor: &Monitor,
    resumed: Option<&Resumed>,
    checkpoints: &mut Checkpoints,
    start: Instant,
) -> Result<(Vec<VariantReport>, bool, u64), Error> {
    crate::progress::watch(
        monitor,
        spec.trials,
        resumed
            .and_then(|r| r.reports.first())
            .map_or(0, report_trials),
        &set.name,
        opts.quiet,
        &INTERRUPT,
        || {
            let from = resumed.map(|r| (&r.reports[..], r.done.clone(), r.begun.clone()));
            let alarm = checkpoints.alarm();
            let finished = AtomicBool::new(false);
            std::thread::scope(|scope| {
                let ringer = alarm.map(|alarm| {
                    let finished = &finished;
                    scope.spawn(move || alarm.ring_until(&monitor.pause, finished))
                });
                let mut between =
                    |reports: &dyn Fn() -> Vec<VariantReport>, done: &ChunkSet, begun: &[Begun]| {
                        if checkpoints.due() {
                            checkpoints.set(reports(), done.clone(), begun.to_vec());
                            if let Err(e) = checkpoints.write(start) {
                                // A run asked to save its progress stops when it cannot.
                                checkpoints.failed = Some(e);
                                monitor.stop.store(true, Ordering::Relaxed);
                            }
                        }
                    };
                let played = compiled.play(set, spec, monitor, from, &mut between);
                finished.store(true, Ordering::Release);
                if let Some(ringer) = ringer {
                    ringer.thread().unpark();
                }
                let p = played?;
                checkpoints.set(p.reports.clone(), p.done, p.begun);
                Ok::<_, Error>((p.reports, p.complete, p.trials))
            })
        },
    )
}

/// The least time between two checkpoints taken inside chunks: each pauses every chunk being
/// played and writes the whole checkpoint, which `--checkpoint 0` would otherwise ask for
/// after every trial.
const LEAST_PAUSE_EVERY: Duration = Duration::from_millis(200);

/// Asks the chunks being played to pause ([`Monitor::pause`]) whenever a checkpoint is due,
/// so that a checkpoint does not wait for the end of a chunk, which can take hours when trials
/// are slow. Paused chunks are saved lane by lane and go on where they stood, so the tables do
/// not change.
struct Alarm {
    every: Duration,
    clock: Instant,
    written: Arc<AtomicU64>,
}

impl Alarm {
    /// Raises `pause` whenever `every` (at least [`LEAST_PAUSE_EVERY`]) has passed since the
    /// last checkpoint was written, until `finished`.
    fn ring_until(&self, pause: &AtomicBool, finished: &AtomicBool) {
        let every = self.every.max(LEAST_PAUSE_EVERY);
        while !finished.load(Ordering::Acquire) {
            let since = since_written(self.clock, &self.written);
            // Not while a pause is being served: its checkpoint is being written.
            if since >= every && !pause.load(Ordering::Relaxed) {
                pause.store(true, Ordering::Relaxed);
            }
            let wait = every.saturating_sub(since);
            std::thread::park_timeout(wait.clamp(Duration::from_millis(5), LEAST_PAUSE_EVERY));
        }
    }
}

/// The time since the last checkpoint was written: `written` holds when, in nanoseconds from
/// `clock` (0: the run's start).
fn since_written(clock: Instant, written: &AtomicU64) -> Duration {
    clock
        .elapsed()
        .saturating_sub(Duration::from_nanos(written.load(Ordering::Relaxed)))
}

/// Where and how a shard writes its part.
struct ShardPart<'a> {
    dir: &'a Path,
    checkpoint_path: &'a Path,
    /// The checkpoint an interrupted shard leaves.
    last_checkpoint: Option<Vec<u8>>,
    threads: usize,
    wall: f64,
}

/// Writes a shard's part (and an interrupted shard's checkpoint; a complete shard removes its
/// checkpoint); returns the part's path.
fn write_shard_part(part: ShardPart<'_>, body: partial::PartBody) -> Result<PathBuf, Error> {
    let checkpoint_path = part.checkpoint_path;
    let complete = body.complete;
    let path = part
        .dir
        .join(partial::file_name(body.shard_index, body.shard_count));
    match &part.last_checkpoint {
        Some(bytes) => output::write_atomic(checkpoint_path, bytes),
        None => Ok(()),
    }
    .map_err(write_error(checkpoint_path))?;
    output::write_atomic(&path, &partial::to_bytes(body, part.threads, part.wall))
        .map_err(write_error(&path))?;
    if complete {
        match std::fs::remove_file(checkpoint_path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(write_error(checkpoint_path)(e))
            }
            _ => {}
        }
    }
    Ok(path)
}

impl Status {
    pub(super) fn from_complete(complete: bool) -> Status {
        if complete {
            Status::Complete
        } else {
            Status::Interrupted
        }
    }
}

fn shard_part_name(spec: &RunSpec) -> String {
    partial::file_name(spec.shard.index, spec.shard.count)
}

/// The checkpoint of shard `s`, beside its part in the shards' shared folder. It does not
/// start with `shard-`, so `merge DIR` never takes it for a part.
fn checkpoint_file_name(s: Shard) -> String {
    format!("checkpoint-{}", partial::file_name(s.index, s.count))
}

/// The part-file body of a run of `set` by `spec` holding `variants`.
fn part_body(
    set: &ScenarioSet,
    spec: &RunSpec,
    variants: Vec<VariantReport>,
    complete: bool,
    played: u64,
) -> partial::PartBody {
    let made = provenance(set, output::MONTE_CARLO);
    partial::PartBody {
        format: partial::FORMAT.into(),
        version: made.version,
        scenario: made.scenario,
        scenario_hash: made.scenario_hash,
        method: made.method,
        seed: spec.seed,
        trials: spec.trials,
        chunk_size: CHUNK_SIZE,
        shard_index: spec.shard.index,
        shard_count: spec.shard.count,
        complete,
        trials_played: played,
        report: report_of(set, variants),
        warnings: Vec::new(),
    }
}

/// The report of a run of `set` holding `variants`.
fn report_of(set: &ScenarioSet, variants: Vec<VariantReport>) -> Report {
    Report {
        scenario: set.name.clone(),
        param_names: set.param_names.clone(),
        variants,
        both_enumerate: set.variants.iter().all(|v| {
            matches!(&v.scenario().game, Game::Cards(game) if crate::cards::equilibrium::both_enumerate(game))
        }),
        roster: set.roster.clone(),
    }
}

/// A run's saved progress: per sweep point started, its report and the chunks it holds.
struct Checkpoints {
    path: PathBuf,
    /// `--checkpoint`; without it only an interrupted run saves.
    every: Option<Duration>,
    /// When the last checkpoint was written, in nanoseconds from `clock`: read by the
    /// [`Alarm`] too.
    clock: Instant,
    written: Arc<AtomicU64>,
    /// Identity of the run; its report is filled in when written.
    body: partial::PartBody,
    reports: Vec<VariantReport>,
    /// The chunks played: the same at every sweep point, since each trial plays them all.
    done: ChunkSet,
    /// The chunks begun, where each lane stands.
    begun: Vec<Begun>,
    /// `--precision`, which decides where the run stops.
    precision: Option<f64>,
    /// Seconds the earlier parts of a resumed run took (0 for a fresh run): the checkpoint's
    /// wall time is that of every part so far, so run.json's rate counts every trial against
    /// the time every trial took.
    earlier_wall: f64,
    threads: usize,
    failed: Option<std::io::Error>,
}

impl Checkpoints {
    fn due(&self) -> bool {
        self.every
            .is_some_and(|every| since_written(self.clock, &self.written) >= every)
    }

    /// The alarm that pauses chunks for checkpoints, when the run saves its progress.
    fn alarm(&self) -> Option<Alarm> {
        Some(Alarm {
            every: self.every?,
            clock: self.clock,
            written: Arc::clone(&self.written),
        })
    }

    fn set(&mut self, reports: Vec<VariantReport>, done: ChunkSet, begun: Vec<Begun>) {
        self.reports = reports;
        self.done = done;
        self.begun = begun;
    }

    fn bytes(&self, start: Instant) -> Vec<u8> {
        let mut body = self.body.clone();
        body.report.variants = self.reports.clone();
        body.trials_played = self.reports.first().map_or(0, report_trials);
        // The part format lists chunks per sweep point; every point holds the same ones.
        let ranges: Vec<[u64; 2]> = self
            .done
            .ranges()
            .iter()
            .map(|r| [r.start, r.end])
            .collect();
        let saved = partial::Saved {
            chunks_done: self.reports.iter().map(|_| ranges.clone()).collect(),
            chunks_begun: self.begun.iter().map(begun_to_part).collect(),
            precision: self.precision,
        };
        partial::checkpoint_to_bytes(body, saved, self.threads, self.wall(start))
    }

    /// Seconds the run has taken so far, its earlier parts included, this part being the one
    /// begun at `start`.
    fn wall(&self, start: Instant) -> f64 {
        self.earlier_wall + start.elapsed().as_secs_f64()
    }

    fn write(&mut self, start: Instant) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        output::write_atomic(&self.path, &self.bytes(start))?;
        let now = self.clock.elapsed().as_nanos().min(u64::MAX.into()) as u64;
        self.written.store(now, Ordering::Relaxed);
        Ok(())
    }
}

/// Trials a sweep point's report holds: every metric counts each trial once.
fn report_trials(report: &VariantReport) -> u64 {
    report.metrics.first().map_or(0, |m| m.histogram.total())
}

/// A checkpoint, checked against the run it is to continue.
struct Resumed {
    reports: Vec<VariantReport>,
    done: ChunkSet,
    begun: Vec<Begun>,
    /// Seconds the run took up to the checkpoint: the checkpoint's `wall_seconds`.
    wall: f64,
}

/// Reads the checkpoint at `path` and refuses one made by another run than `set` with `spec`:
/// another file or `--set`, seed, trials, shard, or rollcall version.
fn read_checkpoint(path: &Path, set: &ScenarioSet, spec: &RunSpec) -> Result<Resumed, Error> {
    if !path.is_file() {
        return Err(Error::Usage(format!(
            "--resume: {} does not exist; a run saves one there when it is interrupted, and every SECONDS with --checkpoint SECONDS",
            path.display()
        )));
    }
    let part = partial::read(path)?;
    let saved = partial::read_saved(path, &part)?;
    let ours = part_body(set, spec, Vec::new(), false, 0);
    let theirs = &part.body;
    let refuse = |what: &str, then: String, now: String| {
        Error::Usage(format!(
            "--resume: {} was saved by a run with {what} {then}, this run has {now}; resume with the scenario file, --seed, --trials, --set, --shard and --precision of the interrupted run",
            path.display()
        ))
    };
    let precision = |p: Option<f64>| p.map_or_else(|| "none".to_string(), |p| p.to_string());
    let checks: [(&str, String, String); 8] = [
        ("rollcall version", theirs.version.clone(), ours.version),
        ("scenario", theirs.scenario.clone(), ours.scenario),
        (
            "seed (--seed)",
            theirs.seed.to_string(),
            ours.seed.to_string(),
        ),
        (
            "trials (--trials)",
            theirs.trials.to_string(),
            ours.trials.to_string(),
        ),
        (
            "--precision",
            precision(saved.precision),
            precision(spec.precision),
        ),
        (
            "chunk size",
            theirs.chunk_size.to_string(),
            ours.chunk_size.to_string(),
        ),
        (
            "shard (--shard)",
            format!("{}/{}", theirs.shard_index, theirs.shard_count),
            format!("{}/{}", ours.shard_index, ours.shard_count),
        ),
        (
            "scenario hash (of the file after --set)",
            theirs.scenario_hash.clone(),
            ours.scenario_hash,
        ),
    ];
    for (what, then, now) in checks {
        if then != now {
            return Err(refuse(what, then, now));
        }
    }
    let variants = &theirs.report.variants;
    if variants.len() != set.variants.len()
        || variants
            .iter()
            .zip(&set.variants)
            .any(|(v, ours)| v.params != ours.params)
        || theirs.report.param_names != set.param_names
    {
        return Err(refuse(
            "sweep points",
            format!("{}", variants.len()),
            format!("{} other ones", set.variants.len()),
        ));
    }
    let done = saved
        .chunks_done
        .into_iter()
        .map(|ranges| engine::ChunkSet::from_ranges(ranges.iter().map(|r| r[0]..r[1]).collect()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|problem| corrupt_checkpoint(path, problem))?;
    let done = match done.split_first() {
        Some((first, rest)) if rest.iter().all(|d| d == first) => first.clone(),
        _ => {
            return Err(corrupt_checkpoint(
                path,
                "its sweep points hold different chunks; every trial plays every point".into(),
            ))
        }
    };
    Ok(Resumed {
        reports: variants.clone(),
        done,
        begun: saved
            .chunks_begun
            .iter()
            .map(begun_of_part)
            .collect::<Result<_, _>>()
            .map_err(|problem| corrupt_checkpoint(path, problem))?,
        wall: part.wall_seconds,
    })
}

/// A chunk begun as a checkpoint saves it.
fn begun_to_part(b: &Begun) -> partial::BegunChunk {
    partial::BegunChunk {
        chunk: b.chunk,
        lanes: b
            .lanes
            .iter()
            .map(|l| partial::LaneAt {
                trials: l.trials,
                state: l.state,
            })
            .collect(),
    }
}

/// A chunk begun as a checkpoint saved it; lanes missing or beyond the chunk's are left for
/// [`progress_of`] to refuse.
fn begun_of_part(b: &partial::BegunChunk) -> Result<Begun, String> {
    let lanes: Vec<engine::LaneAt> = b
        .lanes
        .iter()
        .map(|l| engine::LaneAt {
            trials: l.trials,
            state: l.state,
        })
        .collect();
    let count = lanes.len();
    Ok(Begun {
        chunk: b.chunk,
        lanes: lanes.try_into().map_err(|_| {
            format!(
                "chunk {} begun lists {count} lanes, not {}",
                b.chunk,
                engine::stream::LANES
            )
        })?,
    })
}

fn corrupt_checkpoint(path: &Path, problem: String) -> Error {
    Error::Merge(partial::MergeError::Corrupt {
        file: path.to_path_buf(),
        problem,
    })
}

/// A checkpoint's reports of the sweep points, checked against the joined trial they were
/// played from: the same metrics and comparisons, chunks inside the run's, and histograms that
/// hold exactly those chunks' trials.
pub(super) fn progress_of<T: Trial>(
    set: &ScenarioSet,
    joined: &Joined<T>,
    spec: &RunSpec,
    reports: &[VariantReport],
    done: ChunkSet,
    begun: Vec<Begun>,
) -> Result<engine::Progress, Error> {
    let bad = |problem: String| {
        Error::Usage(format!(
            "--resume: the checkpoint does not fit this scenario: {problem}"
        ))
    };
    let Some(gathered) = gathered_of(set, joined, reports) else {
        return Err(bad("it lists other metrics".into()));
    };
    let chunks = spec.shard.chunks(engine::chunk_count(spec.trials));
    if let (Some(first), Some(last)) = (done.ranges().first(), done.ranges().last()) {
        if first.start < chunks.start || last.end > chunks.end {
            return Err(bad(format!(
                "it holds chunks {}..{}, outside this run's {}..{}",
                first.start, last.end, chunks.start, chunks.end
            )));
        }
    }
    for (i, b) in begun.iter().enumerate() {
        b.check(spec.trials, &chunks).map_err(&bad)?;
        if done.first_missing(b.chunk..b.chunk + 1).is_none()
            || begun[..i].iter().any(|a| a.chunk >= b.chunk)
        {
            return Err(bad(format!(
                "chunk {} is listed as begun twice, out of order, or as done too",
                b.chunk
            )));
        }
    }
    let trials: u64 = done
        .ranges()
        .iter()
        .flat_map(|r| r.clone())
        .map(|c| engine::chunk_len(spec.trials, c))
        .sum::<u64>()
        + begun.iter().map(Begun::trials).sum::<u64>();
    for h in gathered.metrics.iter().chain(&gathered.differences) {
        if h.total() != trials {
            return Err(bad(format!(
                "a histogram holds {} trials, its {} chunks hold {trials}",
                h.total(),
                done.len()
            )));
        }
    }
    Ok(engine::Progress {
        gathered: Gathered {
            trials,
            chunks: done.len(),
            ..gathered
        },
        done,
        begun,
    })
}

/// `run --validate`: checks a finished run's simulated distributions against the exact
/// engine's, where it applies. Returns validation.csv and the status, or None when the exact
/// engine does not apply.
fn check_against_exact(
    set: &ScenarioSet,
    compiled: &Compiled,
    report: &Report,
    log: &mut dyn FnMut(Note<'_>),
) -> Option<(Vec<u8>, Status)> {
    let exact = match exact_report(set, Some(compiled)) {
        Ok(exact) => exact,
        Err(refusal) => {
            log(Note::Warning(&crate::explain::warnings::line(
                &set.name,
                &format!(
                    "not validated, the exact engine does not apply: {refusal}; the tables are \
                     written without validation.csv"
                ),
            )));
            return None;
        }
    };
    let rows = crate::exact::validate::compare(&exact, report);
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
        "{}: validated {} metric(s) against the exact engine, {} failed -> validation.csv",
        set.name,
        rows.len(),
        failed.len(),
    )));
    let status = if failed.is_empty() {
        Status::Complete
    } else {
        Status::ValidationFailed
    };
    Some((
        output::tables::validation_csv(&set.name, &set.param_names, &rows),
        status,
    ))
}
