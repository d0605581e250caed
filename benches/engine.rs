//! Throughput of the pieces on the hot path, in trials (or words) per second.
//!
//! `xoshiro_words` is the baseline every other figure should be read against: one scalar
//! xoshiro256++ stream alone, measured in the same run on the same machine. `lanes_*` are the
//! engine's sixteen lanes stepped together by each SIMD kernel this CPU has.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::Rng;
use rollcall::dice::{DiceTest, SuccessCount};
use rollcall::engine::{self, stream, Monitor, RunSpec, Shard};
use rollcall::rules::Plan;
use rollcall::stats::Histogram;
use std::hint::black_box;

const RALLY: &str = include_str!("../configs/rally.toml");
const MASTERS: &str = include_str!("../configs/rally-masters.toml");
const SHOOT_THEN_RALLY: &str = include_str!("../configs/shoot-then-rally.toml");
const EXCHANGE_VOLLEYS: &str = include_str!("../configs/exchange-volleys.toml");
const EXCHANGE_RALLY: &str = include_str!("../configs/exchange-rally.toml");
const RALLY_THOUSAND: &str = include_str!("compare/configs/rally-thousand.toml");

/// A doubled Shoot (Call of the Masters) into a 1-model target that Defends:
/// `configs/masters-shoot.toml` without its choices and sweep.
const DOUBLED_SHOOT: &str = r#"
[scenario]
name = "doubled-shoot"
[[unit]]
id = "masters"
side = "blue"
size = 1
resolve = "d6>=4"
rules = ["call_of_the_masters"]
weapon = { attacks = 1, hit = "d6>=4", damage = 1, range = 24.0 }
models = [[10.0, 10.0]]
[[unit]]
id = "target"
side = "red"
size = 1
resolve = "d6>=4"
defense = "d6>=6"
response = "defend"
models = [[20.0, 10.0]]
[[step]]
unit = "masters"
command = "shoot"
target = "target"
"#;

fn plan(text: &str) -> Plan {
    let set = rollcall::scenario::parse(text, "bench", &[]).expect("shipped scenario loads");
    Plan::compile(set.variants[0].scenario())
}

fn baseline(c: &mut Criterion) {
    let mut g = c.benchmark_group("baseline");
    const N: u64 = 1 << 20;
    g.throughput(Throughput::Elements(N));
    g.bench_function("xoshiro_words", |b| {
        let mut rng = stream::trial_stream(1);
        b.iter(|| {
            let mut x = 0u64;
            for _ in 0..N {
                x ^= rng.next_u64();
            }
            black_box(x)
        })
    });
    for kernel in stream::Kernel::available() {
        g.bench_function(format!("lanes_{}", kernel.name()), |b| {
            let mut lanes = stream::Lanes::new(1, 0);
            let mut block = [[0u64; stream::LANES]; 64];
            b.iter(|| {
                let mut x = 0u64;
                for _ in 0..N / (64 * stream::LANES as u64) {
                    lanes.fill_with(kernel, &mut block);
                    x ^= block.iter().flatten().fold(0, |a, &w| a ^ w);
                }
                black_box(x)
            })
        });
    }
    g.finish();
}

fn dice(c: &mut Criterion) {
    let mut g = c.benchmark_group("dice");
    const N: u64 = 1 << 20;
    g.throughput(Throughput::Elements(N));
    let p = DiceTest::parse("d6>=4").unwrap().probability();
    for m in [5u32, 50] {
        let table = SuccessCount::new(m, p);
        g.bench_function(format!("success_count_m{m}"), |b| {
            let mut rng = stream::trial_stream(1);
            b.iter(|| {
                let mut x = 0u32;
                for _ in 0..N {
                    x = x.wrapping_add(table.sample(&mut rng));
                }
                black_box(x)
            })
        });
    }
    g.finish();
}

fn rally(c: &mut Criterion) {
    let mut g = c.benchmark_group("trials");
    g.sample_size(10);
    const TRIALS: u64 = 1 << 24;
    g.throughput(Throughput::Elements(TRIALS));
    for (name, text) in [
        ("open_field", RALLY),
        ("masters", MASTERS),
        ("doubled_shoot", DOUBLED_SHOOT),
        ("shoot_then_rally", SHOOT_THEN_RALLY),
    ] {
        let plan = plan(text);
        for threads in [1, 2] {
            let spec = RunSpec {
                trials: TRIALS,
                seed: 1,
                threads,
                shard: Shard::WHOLE,
                precision: None,
            };
            g.bench_function(format!("{name}_{threads}_threads"), |b| {
                b.iter(|| black_box(engine::run(&plan, &spec, &Monitor::default()).unwrap()))
            });
        }
    }
    g.finish();
}

/// Long scripts whose paths meet at states (the outcome graph), next to
/// open-field Rally on 2 threads: read them as ratios to `open_field`. Each run learns its
/// graph afresh, as a `rollcall run` does, so the trial counts are those docs/performance.md quotes.
fn graph(c: &mut Criterion) {
    let mut g = c.benchmark_group("graph");
    g.sample_size(10);
    for (name, text, trials) in [
        ("open_field", RALLY, 1 << 26),
        ("exchange_volleys", EXCHANGE_VOLLEYS, 1 << 21),
        ("exchange_rally", EXCHANGE_RALLY, 1 << 17),
        ("rally_thousand", RALLY_THOUSAND, 1 << 17),
    ] {
        let plan = plan(text);
        let spec = RunSpec {
            trials,
            seed: 1,
            threads: 2,
            shard: Shard::WHOLE,
            precision: None,
        };
        g.throughput(Throughput::Elements(trials));
        g.bench_function(format!("{name}_2_threads"), |b| {
            b.iter(|| black_box(engine::run(&plan, &spec, &Monitor::default()).unwrap()))
        });
    }
    g.finish();
}

fn merge(c: &mut Criterion) {
    // Merging is what threads and shards cost at the end: 1000 histograms of 64 values each.
    let mut g = c.benchmark_group("histogram");
    let parts: Vec<Histogram> = (0..1000u64)
        .map(|p| {
            let mut h = Histogram::new();
            for v in 0..64 {
                h.add_count(v, (p * 7 + v as u64) % 13 + 1);
            }
            h
        })
        .collect();
    g.throughput(Throughput::Elements(parts.len() as u64));
    g.bench_function("merge_1000", |b| {
        b.iter(|| {
            let mut total = Histogram::new();
            for p in &parts {
                total.merge(p);
            }
            black_box(total)
        })
    });
    g.finish();
}

criterion_group!(benches, baseline, dice, rally, graph, merge);
criterion_main!(benches);
