//! Set-up and full plays where geometry is most of the work: the cost tests of
//! `benches/compare/configs/`. `compile_*` compile a scenario and work out the Rally spots
//! its trials need from the starting layout (what a run does once, before its first trial);
//! `volley_large` plays whole trials of a large volley with plain draws (no outcome tree), so
//! each picks its ~670 victims among 3,000 models; `rally_units` plays whole trials of 250
//! Rallies, all but the first placing models around a changed layout.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rollcall::engine::{stream, Plain, Trial};
use rollcall::rules::Plan;
use std::hint::black_box;

const CHAIN: &str = include_str!("compare/configs/rally-chain.toml");
const UNITS: &str = include_str!("compare/configs/rally-units.toml");
const VOLLEY: &str = include_str!("compare/configs/volley-large.toml");

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
}

criterion_group!(benches, set_up, full_play);
criterion_main!(benches);
