//! Throughput of the pieces on the hot path, in trials (or words) per second.
//!
//! `xoshiro_words` is the baseline every other figure should be read against: the random
//! number generator alone, measured in the same run on the same machine.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::Rng;
use rollcall::dice::{DiceTest, SuccessCount};
use rollcall::engine::{self, stream, Monitor, RunSpec, Shard};
use rollcall::rules::Plan;
use std::hint::black_box;

const RALLY: &str = include_str!("../configs/rally.toml");
const MASTERS: &str = include_str!("../configs/rally-masters.toml");

fn plan(text: &str) -> Plan {
    let set = rollcall::scenario::parse(text, "bench", &[]).expect("shipped scenario loads");
    Plan::compile(&set.variants[0].scenario).expect("shipped scenario compiles")
}

fn baseline(c: &mut Criterion) {
    let mut g = c.benchmark_group("baseline");
    const N: u64 = 1 << 20;
    g.throughput(Throughput::Elements(N));
    g.bench_function("xoshiro_words", |b| {
        let mut rng = stream::chunk_stream(1, 0);
        b.iter(|| {
            let mut x = 0u64;
            for _ in 0..N {
                x ^= rng.next_u64();
            }
            black_box(x)
        })
    });
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
            let mut rng = stream::chunk_stream(1, 0);
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
    let mut g = c.benchmark_group("rally");
    g.sample_size(10);
    const TRIALS: u64 = 1 << 22;
    g.throughput(Throughput::Elements(TRIALS));
    for (name, text) in [("open_field", RALLY), ("masters", MASTERS)] {
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

criterion_group!(benches, baseline, dice, rally);
criterion_main!(benches);
