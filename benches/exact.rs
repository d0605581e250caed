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
//!
//! `advise_duel_3_rounds` is the shipped `advise-long-duel` (two 12-model units, every
//! activation of both sides a `best` order, 3 rounds: about 750,000 states), reported in states
//! per second. Before it is timed, the peak heap of one induction over the heap held before
//! it is printed per state (a counting allocator wraps the system's): the figure behind
//! `exact::limit::STATE_BYTES`.

use criterion::{criterion_group, criterion_main, Criterion};
use rollcall::engine::{self, Monitor, RunSpec, Shard};
use rollcall::exact;
use rollcall::rules::engagement::rollout::Rollouts;
use rollcall::rules::Plan;
use rollcall::scenario::{Command, Game};
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes held and their peak.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; the counters only watch.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let held = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(held, Ordering::Relaxed);
        // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    // Passed on as `realloc`, so that the benches timed beside the count grow their vectors
    // in place as the system allocator does, not by allocating, copying and freeing.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= layout.size() {
            let held = HELD.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size
                - layout.size();
            PEAK.fetch_max(held, Ordering::Relaxed);
        } else {
            HELD.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: `ptr` came from `alloc` with `layout`, and `new_size` is the caller's, as
        // `GlobalAlloc::realloc` requires.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

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

/// States per second and bytes per state of a backward induction of about 750,000 states.
fn advise_large(c: &mut Criterion) {
    let set = rollcall::scenario::load(
        std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../configs/advise-long-duel.toml"
        )),
        &[],
    )
    .expect("the shipped config loads");
    let plan = Plan::compile(set.variants[0].scenario());
    let Game::Engagement(e) = plan.scenario().game.clone() else {
        panic!("an engagement")
    };
    let before = HELD.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let advice = exact::advice(&plan, &e, "").expect("advise applies");
    let peak = PEAK.load(Ordering::Relaxed) - before;
    eprintln!(
        "advise_duel_3_rounds: {} states, peak heap {} bytes, {:.0} bytes a state",
        advice.states,
        peak,
        peak as f64 / advice.states as f64
    );
    let mut g = c.benchmark_group("exact");
    g.sample_size(10);
    g.throughput(criterion::Throughput::Elements(advice.states as u64));
    g.bench_function("advise_duel_3_rounds", |b| {
        b.iter(|| black_box(exact::advice(&plan, &e, "").ok()))
    });
    // The same engagement simulated: rollouts of the halberds' first decision (two options,
    // so two continuations a rollout) and the plain run of the advised policy, per trial.
    const TRIALS: u64 = 1 << 17;
    let spec = RunSpec {
        trials: TRIALS,
        seed: 1,
        threads: 1,
        shard: Shard::WHOLE,
        precision: None,
    };
    let won = e.metric_names(&plan.scenario().units);
    let won = won
        .iter()
        .position(|n| n == "blue.won")
        .expect("a side metric");
    let halberds =
        Rollouts::new(&plan, 0, vec![Command::Rally, Command::Shoot], won).expect("an engagement");
    g.throughput(criterion::Throughput::Elements(TRIALS));
    g.bench_function("rollouts_duel_3_rounds", |b| {
        b.iter(|| black_box(engine::run(&halberds, &spec, &Monitor::default()).unwrap()))
    });
    let mut advised = Plan::compile(set.variants[0].scenario());
    advised.set_policy(advice.policy.clone());
    g.bench_function("run_duel_3_rounds", |b| {
        b.iter(|| black_box(engine::run(&advised, &spec, &Monitor::default()).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, doubled_rally, advise, advise_large);
criterion_main!(benches);
