//! Set-up and full plays where geometry is most of the work: the cost tests of
//! `benches/compare/configs/`. `compile_*` compile a scenario and work out the Rally spots
//! its trials need from the starting layout (what a run does once, before its first trial);
//! `volley_large` plays whole trials of a large volley with plain draws (no outcome tree), so
//! each picks its ~670 victims among 3,000 models; `rally_units` plays whole trials of 250
//! Rallies, all but the first placing models around a changed layout. The engagements
//! (`exchange_rally`, `duel`, `run_duel`, `roster_exchange`) are played in full likewise, as
//! the trials the outcome tree has not seen are: there geometry is most of a trial's cost.
//! `hot` times the geometry those trials ask most often, one question at a time: a Rally's
//! placement around a depleted unit, the closest pair of two units and the test of a pair of
//! groups, each on the exchange's layout.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rollcall::engine::{stream, Plain, Trial};
use rollcall::geometry::{any_within, closest, Battlefield, Point};
use rollcall::rules::placement::{self, Base, Surroundings};
use rollcall::rules::Plan;
use std::hint::black_box;

const CHAIN: &str = include_str!("compare/configs/rally-chain.toml");
const UNITS: &str = include_str!("compare/configs/rally-units.toml");
const VOLLEY: &str = include_str!("compare/configs/volley-large.toml");
const ROSTER: &str = include_str!("compare/configs/roster-exchange.toml");
const EXCHANGE: &str = include_str!("../configs/exchange-rally.toml");
const DUEL: &str = include_str!("../configs/duel.toml");
const RUN_DUEL: &str = include_str!("../configs/run-duel.toml");

fn scenario(text: &str) -> rollcall::scenario::Scenario {
    let set = rollcall::scenario::parse(text, "bench", &[]).expect("cost test loads");
    set.variants[0].scenario().clone()
}

/// The plan, with every unit's first Rally spots worked out.
fn compile(scenario: &rollcall::scenario::Scenario) -> Plan {
    let plan = Plan::compile(scenario);
    for unit in 0..scenario.units.len() {
        black_box(plan.rally_spots(unit).len());
    }
    plan
}

fn set_up(c: &mut Criterion) {
    let mut g = c.benchmark_group("set_up");
    g.sample_size(10);
    for (name, text) in [
        ("compile_rally_chain", CHAIN),
        ("compile_rally_units", UNITS),
    ] {
        let scenario = scenario(text);
        g.bench_function(name, |b| b.iter(|| compile(black_box(&scenario))));
    }
    g.finish();
}

/// Whole trials of `text`'s first choice, each with its own stream.
fn plays(c: &mut Criterion, name: &str, text: &str, trials: u64) {
    let plan = compile(&scenario(text));
    let mut g = c.benchmark_group("full_play");
    g.sample_size(10);
    g.throughput(Throughput::Elements(trials));
    g.bench_function(name, |b| {
        let mut world = plan.scratch();
        let mut out = vec![0i64; plan.metrics().len()];
        let mut seed = 0;
        b.iter(|| {
            for _ in 0..trials {
                seed += 1;
                let mut draws = Plain(stream::trial_stream(seed));
                plan.play(0, &mut world, &mut draws, &mut out);
            }
            black_box(out[0])
        })
    });
    g.finish();
}

fn full_play(c: &mut Criterion) {
    plays(c, "volley_large", VOLLEY, 100);
    plays(c, "rally_units", UNITS, 1);
    plays(c, "exchange_rally", EXCHANGE, 1_000);
    plays(c, "duel", DUEL, 1_000);
    plays(c, "run_duel", RUN_DUEL, 1_000);
    plays(c, "roster_exchange", ROSTER, 100);
}

/// The exchange's two blocks of ten (1" bases, 1.5" apart, 12.5" between the blocks), the
/// wardens down to every other model.
fn exchange_layout() -> (Vec<Point>, Vec<Point>) {
    let block = |y: f64| -> Vec<Point> {
        (0..10)
            .map(|i| Point::new(18.0 + 1.5 * (i % 5) as f64, y + 1.5 * (i / 5) as f64))
            .collect()
    };
    let wardens = block(16.0).into_iter().step_by(2).collect();
    (wardens, block(30.0))
}

fn hot(c: &mut Criterion) {
    let (wardens, raiders) = exchange_layout();
    let field = Battlefield {
        width: 48.0,
        height: 48.0,
        terrain: vec![],
    };
    let base = |centre: Point| Base {
        centre,
        radius: 0.5,
    };
    let bases: Vec<Base> = wardens.iter().chain(&raiders).copied().map(base).collect();
    let enemies: Vec<Base> = raiders.iter().copied().map(base).collect();
    let around = Surroundings {
        field: &field,
        bases: &bases,
        enemies: &enemies,
    };
    let mut g = c.benchmark_group("hot");
    g.bench_function("place_5_of_10", |b| {
        let (mut anchors, mut placed) = (Vec::new(), Vec::new());
        b.iter(|| {
            anchors.clear();
            anchors.extend_from_slice(&wardens);
            placement::place_into(&around, &mut anchors, 0.5, 5, false, &mut placed);
            black_box(placed.len())
        })
    });
    g.bench_function("closest_5_10", |b| {
        b.iter(|| closest(pts(black_box(&wardens)), 0.5, pts(&raiders), 0.5))
    });
    g.bench_function("any_within_1_5_10", |b| {
        b.iter(|| any_within(pts(black_box(&wardens)), 0.5, pts(&raiders), 0.5, 1.0))
    });
    g.finish();
}

criterion_group!(benches, set_up, full_play, hot);
criterion_main!(benches);

/// Slice iterators, as the rules pass them: a cloned Vec would time its allocation.
fn pts(v: &[Point]) -> std::iter::Copied<std::slice::Iter<'_, Point>> {
    v.iter().copied()
}
