//! The exact engine on a large doubled Rally: 1000 missing models, Call of the Masters, Resolve
//! on 4+, on an open 200" x 200" field (100 survivors 8" apart, so every missing model has a
//! spot and capacity never binds). icepool takes about 8 s for the same distribution.
//!
//! `doubled_rally_1000` times the dynamic programme alone (the rules' plan, with its one
//! placement search from the starting layout, is compiled in setup); `compile_and_exact` adds
//! that compilation, i.e. what `rollcall exact` does after reading the file.
//!
//! `advise_3_rounds` times `rollcall advise`'s backward induction over a 3-round engagement of
//! two 10-model units a side, every activation of both sides a `best` order (Rally or Shoot
//! while a unit is whole, when Rally is exact; Shoot after); `advise_and_tables` adds the
//! exact tables of optimal play. The states visited are printed once.

use criterion::{criterion_group, criterion_main, Criterion};
use rollcall::exact;
use rollcall::rules::Plan;
use rollcall::scenario::Game;
use std::hint::black_box;

const HORDE: &str = r#"
[scenario]
name = "horde"
[battlefield]
width = 200.0
height = 200.0
[[unit]]
id = "horde"
side = "blue"
size = 1100
alive = 100
resolve = "d6>=4"
rules = ["call_of_the_masters"]
formation = { kind = "grid", x = 10.0, y = 10.0, spacing = 8.0, columns = 10 }
[[step]]
unit = "horde"
command = "rally"
"#;

fn doubled_rally(c: &mut Criterion) {
    let set = rollcall::scenario::parse(HORDE, "bench", &[]).expect("bench scenario loads");
    let plan = Plan::compile(set.variants[0].scenario());
    // Open field: Binomial(1000, 3/4) restored.
    let report = exact::report(&set, &[Some(std::slice::from_ref(&plan))]).expect("exact applies");
    let restored = &report.variants[0].metrics[1];
    assert_eq!(restored.metric, "horde.restored");
    let mean: f64 = restored.pmf.iter().map(|&(v, p)| v as f64 * p).sum();
    assert!((mean - 750.0).abs() < 1e-9, "mean {mean}");

    let mut g = c.benchmark_group("exact");
    g.sample_size(20);
    g.bench_function("doubled_rally_1000", |b| {
        b.iter(|| black_box(exact::report(&set, &[Some(std::slice::from_ref(&plan))]).unwrap()))
    });
    g.bench_function("compile_and_exact", |b| {
        b.iter(|| black_box(exact::report(&set, &[]).unwrap()))
    });
    g.finish();
}

/// A 3-round engagement, two 10-model units a side, `best` at every activation.
fn advise_scenario() -> String {
    let unit = |id: &str, side: &str, y: f64| {
        format!(
            r#"
[[unit]]
id = "{id}"
side = "{side}"
size = 10
resolve = "d6>=4"
weapon = {{ attacks = 1, hit = "d6>=4", damage = 1, range = 60.0 }}
formation = {{ kind = "line", x = 5.0, y = {y}, spacing = 1.5 }}
orders = [
  {{ when = "missing == 0", command = "best", among = ["rally", "shoot"], target = "weakest" }},
  {{ command = "best", among = ["shoot"], target = "weakest" }},
]
"#
        )
    };
    format!(
        r#"
[scenario]
name = "advise-bench"
[battlefield]
width = 60.0
height = 60.0
[engagement]
rounds = 3
first = "alternate"
{}{}{}{}"#,
        unit("blue1", "blue", 20.0),
        unit("blue2", "blue", 2.0),
        unit("red1", "red", 40.0),
        unit("red2", "red", 58.0)
    )
}

fn advise(c: &mut Criterion) {
    let text = advise_scenario();
    let set = rollcall::scenario::parse(&text, "bench", &[]).expect("bench scenario loads");
    let plan = Plan::compile(set.variants[0].scenario());
    let Game::Engagement(e) = plan.scenario().game.clone() else {
        panic!("an engagement")
    };
    let advice = exact::advice(&plan, &e, "").expect("advise applies");
    eprintln!(
        "advise_3_rounds: {} states visited, {} decisions",
        advice.states,
        advice.decisions.len()
    );
    let mut g = c.benchmark_group("exact");
    g.sample_size(10);
    g.bench_function("advise_3_rounds", |b| {
        b.iter(|| black_box(exact::advice(&plan, &e, "").ok()))
    });
    g.bench_function("advise_and_tables", |b| {
        b.iter(|| black_box(exact::report(&set, &[]).ok()))
    });
    g.finish();
}

criterion_group!(benches, doubled_rally, advise);
criterion_main!(benches);
