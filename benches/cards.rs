//! Throughput of the card game, in turns per second: one random-deck turn (2 cards a side)
//! played directly, a whole shipped scenario through the engine on 1 and 2 threads, and the
//! xoshiro256++ word rate measured in the same run as the baseline to read them against.
//!
//! The `gathering` group splits the shipped random-deck scenario's cost between the rules and
//! the engine's per-trial gathering of its metrics into histograms: the same games played
//! directly, then each game's row gathered in a column batch (the engine's worker's former
//! way), then gathered as a sparse row (only the non-zero metrics added, the zeros counted
//! once per batch), then counted in a table of small values (the worker's way since 0.5.2).
//! The gatherings are local models written here, not the engine's code.
//!
//! The `effects` group splits the rules' own cost by family of effects: the same scenario
//! with deck calls, hand calls, discard calls, clones or cancels taken off its cards, and a
//! local model of its deck draws and random plays alone.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::Rng;
use rollcall::cards::zones::{below, remove_in_order};
use rollcall::cards::{CardPlan, Plays};
use rollcall::engine::{self, stream, Monitor, Plain, RunSpec, Shard, Trial};
use rollcall::scenario::Game;
use rollcall::stats::Histogram;
use std::hint::black_box;

fn plan(text: &str) -> CardPlan {
    // The set path is relative to the scenario file: parse as if read from configs/.
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/bench.toml");
    let set = rollcall::scenario::parse(text, file, &[]).expect("bench scenario loads");
    let Game::Cards(game) = &set.variants[0].scenario().game else {
        panic!("a card game")
    };
    CardPlan::compile(game)
}

/// Random decks, `turns` turns of 2 cards a side; 8 distinct cards per deck.
fn random_decks(turns: u32) -> String {
    format!(
        r#"[scenario]
name = "bench"
[cards]
set = "cards/seed-set.toml"
cards_per_turn = 2
turns = {turns}
initiative = "alternate"
[cards.players.A]
plays = "random"
hand_size = 5
deck = ["campement", "banniere", "maitrise", "eclair", "eclair", "multitache", "epee",
        "amulette", "rituel", "priere", "charge", "charge"]
[cards.players.B]
plays = "random"
hand_size = 5
deck = ["obesite", "blaspheme", "bouclier", "amelioration", "brume", "eclair", "rituel",
        "rituel", "charge", "epee", "epee", "brume"]
"#
    )
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
    g.finish();
}

/// Games of one turn played directly (no engine): the rules' own cost per turn.
fn turns(c: &mut Criterion) {
    let mut g = c.benchmark_group("cards");
    const GAMES: u64 = 1 << 16;
    for turns in [1u32, 3] {
        let plan = plan(&random_decks(turns));
        let mut scratch = plan.scratch();
        let mut out = vec![0i64; plan.metrics().len()];
        g.throughput(Throughput::Elements(GAMES * turns as u64));
        g.bench_function(format!("random_decks_{turns}_turn_games"), |b| {
            let mut draws = Plain(stream::trial_stream(1));
            b.iter(|| {
                for _ in 0..GAMES {
                    plan.play(0, &mut scratch, &mut draws, &mut out);
                }
                black_box(out[0])
            })
        });
    }
    g.finish();
}

/// The shipped random-deck scenario through the engine, as `rollcall run` plays it.
fn engine_runs(c: &mut Criterion) {
    let mut g = c.benchmark_group("cards_engine");
    g.sample_size(10);
    const TRIALS: u64 = 1 << 20;
    let text = include_str!("../configs/cards-random.toml");
    let plan = plan(text);
    let turns = plan.game().turns() as u64;
    g.throughput(Throughput::Elements(TRIALS * turns));
    for threads in [1, 2] {
        let spec = RunSpec {
            trials: TRIALS,
            seed: 1,
            threads,
            shard: Shard::WHOLE,
            precision: None,
        };
        g.bench_function(format!("cards_random_{threads}_threads"), |b| {
            b.iter(|| black_box(engine::run(&plan, &spec, &Monitor::default()).unwrap()))
        });
    }
    g.finish();
}

/// Trials per batch of the engine's worker: a column per metric, each added to its histogram
/// at once when the batch is full (one `add_count` when the column is constant).
const BATCH: usize = 256;

/// The shipped random-deck scenario played directly, then gathered densely (as the engine's
/// worker did before it counted small values in a table), sparsely (what an engine taking
/// sparse rows would do), and in a table of small values (as the worker does).
fn gathering(c: &mut Criterion) {
    let mut g = c.benchmark_group("gathering");
    const GAMES: u64 = 1 << 16;
    let plan = plan(include_str!("../configs/cards-random.toml"));
    let m = plan.metrics().len();
    let turns = plan.game().turns() as u64;
    g.throughput(Throughput::Elements(GAMES * turns));
    let mut scratch = plan.scratch();
    let mut out = vec![0i64; m];
    g.bench_function("cards_random_played", |b| {
        let mut draws = Plain(stream::trial_stream(1));
        b.iter(|| {
            for _ in 0..GAMES {
                plan.play(0, &mut scratch, &mut draws, &mut out);
            }
            black_box(out[0])
        })
    });
    g.bench_function("cards_random_played_and_gathered_dense", |b| {
        let mut draws = Plain(stream::trial_stream(1));
        let mut hists = vec![Histogram::new(); m];
        let mut columns = vec![0i64; m * BATCH];
        b.iter(|| {
            let mut filled = 0;
            for _ in 0..GAMES {
                plan.play(0, &mut scratch, &mut draws, &mut out);
                for (j, &v) in out.iter().enumerate() {
                    columns[j * BATCH + filled] = v;
                }
                filled += 1;
                if filled == BATCH {
                    for (column, h) in columns.chunks_exact(BATCH).zip(&mut hists) {
                        let first = column[0];
                        if column.iter().all(|&v| v == first) {
                            h.add_count(first, BATCH as u64);
                        } else {
                            column.iter().for_each(|&v| h.add(v));
                        }
                    }
                    filled = 0;
                }
            }
            black_box(hists[0].total())
        })
    });
    g.bench_function("cards_random_played_and_gathered_sparse", |b| {
        let mut draws = Plain(stream::trial_stream(1));
        let mut hists = vec![Histogram::new(); m];
        let mut non_zero = vec![0u64; m];
        let mut listed = vec![0u32; m];
        b.iter(|| {
            let mut filled = 0;
            for _ in 0..GAMES {
                plan.play(0, &mut scratch, &mut draws, &mut out);
                // The row's non-zero entries, as a trial handing the engine a sparse row
                // would list them (compacted here without branches; a trial counting its
                // events knows them already).
                let mut k = 0;
                for (j, &v) in out.iter().enumerate() {
                    listed[k] = j as u32;
                    k += (v != 0) as usize;
                }
                for &j in &listed[..k] {
                    hists[j as usize].add(out[j as usize]);
                    non_zero[j as usize] += 1;
                }
                filled += 1;
                if filled == BATCH {
                    for (h, n) in hists.iter_mut().zip(&mut non_zero) {
                        h.add_count(0, BATCH as u64 - *n);
                        *n = 0;
                    }
                    filled = 0;
                }
            }
            black_box(hists[0].total())
        })
    });
    g.bench_function("cards_random_played_and_gathered_small_counts", |b| {
        // Every metric of every trial counted at once in a table of small values (here 0 to
        // 3), the rare larger values going to the histogram: no batch, no branch that
        // depends on the data.
        const SMALL: usize = 4;
        let mut draws = Plain(stream::trial_stream(1));
        let mut hists = vec![Histogram::new(); m];
        let mut small = vec![0u64; m * SMALL];
        b.iter(|| {
            for _ in 0..GAMES {
                plan.play(0, &mut scratch, &mut draws, &mut out);
                for (j, &v) in out.iter().enumerate() {
                    match usize::try_from(v) {
                        Ok(v) if v < SMALL => small[j * SMALL + v] += 1,
                        _ => hists[j].add(v),
                    }
                }
            }
            for (j, h) in hists.iter_mut().enumerate() {
                for v in 0..SMALL {
                    h.add_count(v as i64, std::mem::take(&mut small[j * SMALL + v]));
                }
            }
            black_box(hists[0].total())
        })
    });
    g.finish();
}

/// The shipped random-deck scenario with the effects `drop` picks taken off every card of
/// its set: each card keeps its kind and value, so the same cards are drawn and played.
fn without_effects(drop: fn(&toml::Table) -> bool) -> CardPlan {
    let mut scenario: toml::Table =
        toml::from_str(include_str!("../configs/cards-random.toml")).expect("shipped scenario");
    let set: toml::Table =
        toml::from_str(include_str!("../configs/cards/seed-set.toml")).expect("shipped set");
    let mut cards = set["card"].as_array().expect("[[card]] tables").clone();
    for card in &mut cards {
        let card = card.as_table_mut().expect("a card is a table");
        if let Some(toml::Value::Array(effects)) = card.get_mut("effects") {
            effects.retain(|e| !drop(e.as_table().expect("an effect is a table")));
        }
    }
    let section = scenario["cards"].as_table_mut().expect("[cards]");
    section.remove("set");
    section.insert("card".into(), toml::Value::Array(cards));
    plan(&toml::to_string(&scenario).expect("serialises"))
}

fn effect_is(e: &toml::Table, kind: &str) -> bool {
    e["type"].as_str() == Some(kind)
}

fn call_from(e: &toml::Table, zone: &str) -> bool {
    effect_is(e, "call") && e["from"].as_str().is_some_and(|z| z.ends_with(zone))
}

/// Where a random-deck turn's time goes: the shipped scenario's games played directly with
/// the whole set, then with one family of effects taken off its cards, then with none; and a
/// local model of the turn's deck draws and random plays alone (no resolution, no metrics),
/// written here as plainly as it can be, for the floor that drawing this way puts under a turn.
fn effects(c: &mut Criterion) {
    let mut g = c.benchmark_group("effects");
    const GAMES: u64 = 1 << 16;
    type Drop = fn(&toml::Table) -> bool;
    let families: [(&str, Drop); 7] = [
        ("all_effects", |_| false),
        ("no_deck_calls", |e| call_from(e, "deck")),
        ("no_hand_calls", |e| call_from(e, "hand")),
        ("no_discard_calls", |e| call_from(e, "discard")),
        ("no_clones", |e| effect_is(e, "clone")),
        ("no_cancels", |e| effect_is(e, "cancel")),
        ("no_effects", |_| true),
    ];
    for (name, drop) in families {
        let plan = without_effects(drop);
        let turns = plan.game().turns() as u64;
        g.throughput(Throughput::Elements(GAMES * turns));
        let mut scratch = plan.scratch();
        let mut out = vec![0i64; plan.metrics().len()];
        g.bench_function(name, |b| {
            let mut draws = Plain(stream::trial_stream(1));
            b.iter(|| {
                for _ in 0..GAMES {
                    plan.play(0, &mut scratch, &mut draws, &mut out);
                }
                black_box(out[0])
            })
        });
    }
    // The scenario's deck sizes, hand size, cards per turn and turns.
    let shipped = without_effects(|_| false);
    let game = shipped.game();
    let turns = game.turns() as u64;
    let per_turn = game.cards_per_turn();
    let sides = [0, 1].map(|p| {
        let setup = game.player(p);
        let hand_size = match setup.plays {
            Plays::Random { hand_size } => hand_size,
            _ => panic!("the shipped scenario plays at random"),
        };
        (setup.deck.len() as u16, hand_size)
    });
    g.throughput(Throughput::Elements(GAMES * turns));
    g.bench_function("draws_and_plays_model", |b| {
        let mut rng = stream::trial_stream(1);
        let full = sides.map(|(cards, _)| (0..cards).collect::<Vec<u16>>());
        let mut decks = full.clone();
        let mut hands = sides.map(|(_, hand_size)| Vec::with_capacity(hand_size));
        b.iter(|| {
            let mut played = 0u64;
            for _ in 0..GAMES {
                for p in 0..2 {
                    decks[p].clear();
                    decks[p].extend_from_slice(&full[p]);
                    hands[p].clear();
                }
                for _ in 0..turns {
                    for (p, (deck, hand)) in decks.iter_mut().zip(&mut hands).enumerate() {
                        while hand.len() < sides[p].1 {
                            let n = deck.len();
                            if n == 0 {
                                break;
                            }
                            let r = below(&mut rng, n as u32) as usize;
                            let top = deck.pop().expect("n > 0");
                            hand.push(if r < n - 1 {
                                std::mem::replace(&mut deck[r], top)
                            } else {
                                top
                            });
                        }
                        for _ in 0..per_turn.min(hand.len()) {
                            let i = below(&mut rng, hand.len() as u32) as usize;
                            played += u64::from(remove_in_order(hand, i));
                        }
                    }
                }
            }
            black_box(played)
        })
    });
    g.finish();
}

criterion_group!(benches, baseline, turns, gathering, effects, engine_runs);
criterion_main!(benches);
