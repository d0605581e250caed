//! Throughput of sweeps, whose points are arms of one trial on common random numbers, in
//! point-trials per second (trials times sweep points).
//!
//! `baseline/open_field` is open-field Rally (`configs/rally.toml`) in trials per second,
//! measured in the same run: read the sweeps' rates against it. `rally_table` is the 100-point
//! player-facing table (`configs/rally-table.toml`), whose points are one or two draws each;
//! `rally_grid` is the 1,600-point grid of 200 trials a point
//! (`benches/compare/configs/rally-grid.toml`) timed whole, from the scenario's text to the
//! histograms, since there setting the points up costs more than playing them.
//! `advise_rally_or_shoot` is the 8-point sweep of `configs/advise-rally-or-shoot.toml` with
//! its advice given, each point an engagement of three or four draws: its arms are walked
//! side by side through their trees, not counted on the grid.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rollcall::app::Compiled;
use rollcall::engine::{self, Monitor, RunSpec, Shard};
use rollcall::rules::Plan;
use rollcall::scenario::{self, ScenarioSet};
use std::hint::black_box;

const RALLY: &str = include_str!("../configs/rally.toml");
const RALLY_TABLE: &str = include_str!("../configs/rally-table.toml");
const RALLY_GRID: &str = include_str!("compare/configs/rally-grid.toml");
const ADVISE: &str = include_str!("../configs/advise-rally-or-shoot.toml");

fn set(text: &str) -> ScenarioSet {
    scenario::parse(text, "bench", &[]).expect("shipped scenario loads")
}

fn spec(trials: u64) -> RunSpec {
    RunSpec {
        trials,
        seed: 1,
        threads: 2,
        shard: Shard::WHOLE,
        precision: None,
    }
}

/// Plays every point of `set` as compiled, `trials` trials each.
fn play(set: &ScenarioSet, trials: u64) -> engine::Outcome {
    let run = |trial| engine::run(trial, &spec(trials), &Monitor::default()).unwrap();
    match Compiled::compile(set) {
        Compiled::Battle(joined) => run(&*joined),
        _ => unreachable!("the benched sweeps are battles"),
    }
}

fn sweeps(c: &mut Criterion) {
    let mut g = c.benchmark_group("sweeps");
    g.sample_size(10);

    const OPEN_FIELD: u64 = 1 << 26;
    let rally = Plan::compile(set(RALLY).variants[0].scenario());
    g.throughput(Throughput::Elements(OPEN_FIELD));
    g.bench_function("baseline/open_field", |b| {
        b.iter(|| black_box(engine::run(&rally, &spec(OPEN_FIELD), &Monitor::default()).unwrap()))
    });

    const TABLE: u64 = 1 << 18;
    let table = set(RALLY_TABLE);
    let Compiled::Battle(joined) = Compiled::compile(&table) else {
        unreachable!("rally-table is a battle")
    };
    g.throughput(Throughput::Elements(TABLE * table.variants.len() as u64));
    g.bench_function("rally_table", |b| {
        b.iter(|| black_box(engine::run(&*joined, &spec(TABLE), &Monitor::default()).unwrap()))
    });

    const ADVISED: u64 = 1 << 20;
    let advise = set(ADVISE);
    let mut compiled = Compiled::compile(&advise);
    rollcall::app::advise_plans(&advise, &mut compiled).expect("the shipped advice is given");
    let Compiled::Battle(joined) = compiled else {
        unreachable!("advise-rally-or-shoot is a battle")
    };
    g.throughput(Throughput::Elements(ADVISED * advise.variants.len() as u64));
    g.bench_function("advise_rally_or_shoot", |b| {
        b.iter(|| black_box(engine::run(&*joined, &spec(ADVISED), &Monitor::default()).unwrap()))
    });

    let grid = set(RALLY_GRID);
    let trials = grid.variants[0].scenario().trials;
    g.throughput(Throughput::Elements(trials * grid.variants.len() as u64));
    g.bench_function("rally_grid_set_up_and_play", |b| {
        b.iter(|| black_box(play(&set(RALLY_GRID), trials)))
    });
    g.finish();
}

criterion_group!(benches, sweeps);
criterion_main!(benches);
