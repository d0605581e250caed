//! The card game of seed 001: every example of the seed as a resolution log, the latency
//! queue's order, invariants over many seeded random games, bad card files and scenarios, and
//! the binary's determinism across thread counts.

use rollcall::cards::{CardPlan, Event, GameLog};
use rollcall::engine::stream::trial_stream;
use rollcall::engine::{Plain, Trial};
use rollcall::scenario::Game;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Scenario texts are parsed as if read from `configs/`, so `set = "cards/seed-set.toml"`
/// finds the shipped set.
const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/test.toml");

fn plan_with(text: &str, persist: bool) -> CardPlan {
    let set = rollcall::scenario::parse(text, FILE, &[]).unwrap_or_else(|e| panic!("{e}"));
    let Game::Cards(game) = set.variants[0].scenario().game.clone() else {
        panic!("a card game")
    };
    CardPlan::compile(&game.with_listeners_persist(persist))
}

fn plan(text: &str) -> CardPlan {
    plan_with(text, false)
}

/// A one-turn scripted game with the shipped set: `a` and `b` are the plays, `extra` more
/// lines of `[cards]` keys for player A (hand, deck...).
fn scripted(a: &str, b: &str, a_extra: &str) -> String {
    format!(
        r#"[scenario]
name = "t"
[cards]
set = "cards/seed-set.toml"
cards_per_turn = 2
initiative = "A"
[cards.players.A]
plays = [{a}]
{a_extra}
[cards.players.B]
plays = [{b}]
"#
    )
}

fn game(text: &str) -> GameLog {
    plan(text).play_logged(0, &mut trial_stream(1))
}

fn lines(log: &GameLog) -> Vec<String> {
    log.lines()
}

fn metric(log: &GameLog, name: &str) -> i64 {
    log.metric(name)
        .unwrap_or_else(|| panic!("no metric {name}; metrics: {:?}", log.metrics))
}

// ---------------------------------------------------------------------------------------
// The seed's examples, as written there.

/// "S'il joue une action, cette carte sera mise en attente et résolue sans être inquiétée
/// par l'Obésité à la fin du tour."
#[test]
fn banniere_calls_an_action_that_obesite_cannot_touch() {
    let log = game(&scripted(
        r#"["campement", "banniere"]"#,
        r#"["obesite", "blaspheme"]"#,
        r#"hand = ["charge"]"#,
    ));
    assert_eq!(
        lines(&log),
        [
            "A campement: resolved",
            "B obesite: resolved",
            "A banniere: resolved",
            "A charge: called by A banniere from hand",
            "B blaspheme: resolved",
            "A charge (called): resolved",
        ]
    );
    assert_eq!(metric(&log, "A.charge.called"), 1);
    assert_eq!(metric(&log, "A.charge.resolved"), 1);
    assert_eq!(metric(&log, "A.charge.cancelled"), 0);
    // campement 1 + banniere 1 + charge 2.
    assert_eq!(metric(&log, "A.score"), 4);
    assert_eq!(metric(&log, "B.score"), 0);
}

/// "S'il joue une théurgie, la carte sera mise en attente, le Blasphème se résout et annule la
/// prochaine théurgie, à savoir la carte amenée par la Bannière du conseil."
#[test]
fn banniere_calls_a_theurgie_that_blaspheme_cancels() {
    let expected = [
        "A campement: resolved",
        "B obesite: resolved",
        "A banniere: resolved",
        "A rituel: called by A banniere from hand",
        "B blaspheme: resolved",
        "A rituel (called): cancelled by B blaspheme",
    ];
    let log = game(&scripted(
        r#"["campement", "banniere"]"#,
        r#"["obesite", "blaspheme"]"#,
        r#"hand = ["rituel"]"#,
    ));
    assert_eq!(lines(&log), expected);
    assert_eq!(metric(&log, "A.rituel.called"), 1);
    assert_eq!(metric(&log, "A.rituel.cancelled"), 1);
    assert_eq!(metric(&log, "A.rituel.resolved"), 0);
    assert_eq!(metric(&log, "A.score"), 2);
    // The shipped scenario is docs/cards.md's example as written, and plays the same turn.
    let shipped = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/configs/cards-banniere.toml"
    ))
    .unwrap();
    assert_eq!(lines(&game(&shipped)), expected);
}

/// "Un Bouclier magique joué après une Maitrise annulera le sort et son clone."
#[test]
fn bouclier_after_maitrise_cancels_the_spell_and_its_clone() {
    let log = game(&scripted(
        r#"["maitrise", "eclair"]"#,
        r#"["bouclier", "brume"]"#,
        "",
    ));
    assert_eq!(
        lines(&log),
        [
            "A maitrise: resolved",
            "B bouclier: resolved",
            "A eclair: cloned by A maitrise",
            "A eclair: cancelled by B bouclier",
            "A eclair (clone): cancelled by B bouclier",
            "B brume: resolved",
        ]
    );
    assert_eq!(metric(&log, "A.eclair.played"), 1);
    assert_eq!(metric(&log, "A.eclair.cloned"), 1);
    assert_eq!(metric(&log, "A.eclair.cancelled"), 2);
    assert_eq!(metric(&log, "A.eclair.resolved"), 0);
    assert_eq!(metric(&log, "A.score"), 1);
    assert_eq!(metric(&log, "B.score"), 1);
}

/// "Une Amélioration activée contrera l'objet joué en enchainement après une Multi-tâche,
/// mais le clone sera tout de même résolu."
#[test]
fn amelioration_after_multitache_cancels_the_object_but_not_its_clone() {
    let expected = [
        "A multitache: resolved",
        "B amelioration: resolved",
        "A epee: cloned by A multitache",
        "A epee: cancelled by B amelioration",
        "B brume: resolved",
        "A epee (clone): resolved",
    ];
    let text = scripted(
        r#"["multitache", "epee"]"#,
        r#"["amelioration", "brume"]"#,
        "",
    );
    let log = game(&text);
    assert_eq!(lines(&log), expected);
    assert_eq!(metric(&log, "A.epee.cloned"), 1);
    assert_eq!(metric(&log, "A.epee.cancelled"), 1);
    assert_eq!(metric(&log, "A.epee.resolved"), 1);
    // multitache 1 + the clone of epee 2.
    assert_eq!(metric(&log, "A.score"), 3);
    // Even with uses to spare, Amélioration cannot reach the clone: it was armed before the
    // clone appeared.
    let twice = format!(
        "{text}[[cards.card]]\nid = \"amelioration\"\nkind = \"sort\"\n\
         effects = [{{ type = \"cancel\", kinds = [\"objet\"], count = 2 }}]\n"
    );
    assert_eq!(lines(&game(&twice)), expected);
}

/// The clone of a spell that resolved before Bouclier magique was armed waits in the queue,
/// appeared before Bouclier: a listener armed after a queued card's appearance does hit it.
#[test]
fn a_listener_armed_after_a_clone_appeared_cancels_it_in_the_queue() {
    let log = game(&scripted(
        r#"["maitrise", "eclair"]"#,
        r#"["brume", "bouclier"]"#,
        "",
    ));
    assert_eq!(
        lines(&log),
        [
            "A maitrise: resolved",
            "B brume: resolved",
            "A eclair: cloned by A maitrise",
            "A eclair: resolved",
            "B bouclier: resolved",
            "A eclair (clone): cancelled by B bouclier",
        ]
    );
}

// ---------------------------------------------------------------------------------------
// The latency queue.

#[test]
fn called_cards_resolve_in_order_of_appearance_and_late_calls_join_the_back() {
    let log = game(&scripted(
        r#"["banniere", "iado"]"#,
        "[]",
        "hand = [\"illumination\"]\ndeck = [\"charge\", \"rituel\"]",
    ));
    assert_eq!(
        lines(&log),
        [
            "A banniere: resolved",
            "A illumination: called by A banniere from hand",
            "A iado: resolved",
            "A charge: called by A iado from deck",
            // The queue drains first in, first out ...
            "A illumination (called): resolved",
            // ... and a card called while it drains goes to its back.
            "A rituel: called by A illumination from deck",
            "A charge (called): resolved",
            "A rituel (called): resolved",
        ]
    );
}

#[test]
fn initiative_orders_the_normally_played_cards() {
    let text = scripted(r#"["campement", "charge"]"#, r#"["brume", "eclair"]"#, "")
        .replace("initiative = \"A\"", "initiative = \"B\"");
    assert_eq!(
        lines(&game(&text)),
        [
            "B brume: resolved",
            "A campement: resolved",
            "B eclair: resolved",
            "A charge: resolved",
        ]
    );
}

#[test]
fn a_cancelled_card_does_nothing_and_an_empty_zone_calls_nothing() {
    // Obésité cancels A couteaux tirés (an action): its call never happens.
    let log = game(&scripted(
        r#"["campement", "couteaux"]"#,
        r#"["brume", "obesite"]"#,
        r#"hand = ["embuscade"]"#,
    ));
    assert_eq!(
        lines(&log),
        [
            "A campement: resolved",
            "B brume: resolved",
            "A couteaux: resolved",
            "A embuscade: called by A couteaux from hand",
            "B obesite: resolved",
            "A embuscade (called): cancelled by B obesite",
        ]
    );
    let log = game(&scripted(
        r#"["couteaux"]"#,
        r#"["obesite"]"#,
        r#"hand = ["embuscade"]"#,
    ));
    // A couteaux resolves first: nothing armed yet. Then a lone Iado with an empty deck.
    assert_eq!(metric(&log, "A.embuscade.called"), 1);
    let log = game(&scripted(r#"["iado"]"#, "[]", ""));
    assert_eq!(lines(&log), ["A iado: resolved"]);
    let log = game(&scripted(
        r#"["campement", "couteaux"]"#,
        r#"["obesite"]"#,
        "",
    ));
    assert_eq!(
        lines(&log),
        [
            "A campement: resolved",
            "B obesite: resolved",
            "A couteaux: cancelled by B obesite",
        ]
    );
}

/// Unused listeners expire at the end of the turn unless `options.listeners.persist`.
#[test]
fn listeners_expire_at_the_end_of_the_turn_unless_they_persist() {
    let text = r#"[scenario]
name = "t"
[cards]
set = "cards/seed-set.toml"
cards_per_turn = 1
turns = 2
initiative = "A"
[cards.players.A]
plays = [["brume"], ["charge"]]
[cards.players.B]
plays = [["obesite"], ["brume"]]
"#;
    let expired = plan(text).play_logged(0, &mut trial_stream(1));
    assert_eq!(expired.turns[1].lines[0], "A charge: resolved");
    let kept = plan_with(text, true).play_logged(0, &mut trial_stream(1));
    assert_eq!(kept.turns[1].lines[0], "A charge: cancelled by B obesite");
}

#[test]
fn calls_from_the_opponent_take_its_cards_for_the_caller() {
    let log = game(&scripted(
        r#"["campement", "conversion"]"#,
        r#"["brume"]"#,
        "",
    ));
    // B's hand is empty: nothing to convert.
    assert_eq!(metric(&log, "A.score"), 2);
    let text =
        scripted(r#"["conversion"]"#, r#"["brume"]"#, "") + "hand = [\"priere\", \"charge\"]\n";
    let log = game(&text);
    assert_eq!(
        lines(&log),
        [
            "A conversion: resolved",
            "A priere: called by A conversion from opponent_hand",
            "B brume: resolved",
            "A priere (called): resolved",
        ]
    );
    assert_eq!(metric(&log, "A.priere.called"), 1);
    assert_eq!(metric(&log, "A.score"), 4);
}

// ---------------------------------------------------------------------------------------
// Invariants over many seeded random games.

/// Random decks holding every card of the set, several turns, random initiative.
fn every_card_game(persist: bool, hand_size: usize, per_turn: usize) -> CardPlan {
    let base = plan(&scripted("[]", "[]", ""));
    let ids: Vec<String> = base
        .game()
        .cards()
        .iter()
        .map(|c| format!("\"{}\"", c.id))
        .collect();
    let deck = ids.join(", ");
    let text = format!(
        r#"[scenario]
name = "t"
[cards]
set = "cards/seed-set.toml"
cards_per_turn = {per_turn}
turns = 4
initiative = "random"
[cards.players.A]
plays = "random"
hand_size = {hand_size}
deck = [{deck}, {deck}]
discard = ["eclair", "epee"]
[cards.players.B]
plays = "random"
hand_size = {hand_size}
deck = [{deck}]
"#
    );
    plan_with(&text, persist)
}

fn instance(e: &Event) -> u32 {
    match *e {
        Event::Played { instance, .. }
        | Event::Called { instance, .. }
        | Event::Cloned { instance, .. }
        | Event::Resolved { instance, .. }
        | Event::Cancelled { instance, .. } => instance,
    }
}

#[test]
fn every_card_resolves_or_is_cancelled_exactly_once_and_scores_add_up() {
    for (persist, hand_size, per_turn) in [(false, 5, 2), (true, 4, 3), (false, 2, 3)] {
        let plan = every_card_game(persist, hand_size, per_turn);
        let cards = plan.game().cards();
        let mut scratch = plan.scratch();
        let mut out = vec![0i64; plan.metrics().len()];
        let mut cancelled_clones = 0;
        for seed in 0..10_000u64 {
            let log = plan.play_logged(0, &mut trial_stream(seed));
            let mut counted: HashMap<String, i64> = HashMap::new();
            let mut scores = [0i64; 2];
            for turn in &log.turns {
                // Appearances and outcomes per instance: each card that appeared (played,
                // called or cloned) has exactly one outcome, within its turn: the queue drained.
                let mut appeared = HashMap::new();
                let mut outcomes = HashMap::new();
                for e in &turn.events {
                    let (slot, player, card, what) = match *e {
                        Event::Played { player, card, .. } => {
                            (&mut appeared, player, card, "played")
                        }
                        Event::Called { player, card, .. } => {
                            (&mut appeared, player, card, "called")
                        }
                        Event::Cloned { player, card, .. } => {
                            (&mut appeared, player, card, "cloned")
                        }
                        Event::Resolved { player, card, .. } => {
                            scores[player as usize] += cards[card as usize].value;
                            (&mut outcomes, player, card, "resolved")
                        }
                        Event::Cancelled {
                            player,
                            card,
                            origin,
                            ..
                        } => {
                            if origin == rollcall::cards::Origin::Clone {
                                cancelled_clones += 1;
                            }
                            (&mut outcomes, player, card, "cancelled")
                        }
                    };
                    *slot.entry(instance(e)).or_insert(0) += 1;
                    let name = format!(
                        "{}.{}.{what}",
                        ["A", "B"][player as usize],
                        cards[card as usize].id
                    );
                    *counted.entry(name).or_insert(0) += 1;
                }
                assert!(appeared.values().all(|&n| n == 1), "seed {seed}: {turn:?}");
                assert_eq!(appeared, outcomes, "seed {seed}: {:?}", turn.lines);
            }
            // Every count has its metric (none was pruned wrongly) and the metrics say the same.
            for (name, n) in &counted {
                assert_eq!(log.metric(name), Some(*n), "seed {seed}: {name}");
            }
            for (name, v) in &log.metrics {
                if let Some(p) = name.strip_suffix(".score") {
                    assert_eq!(*v, scores[usize::from(p == "B")], "seed {seed}: {name}");
                } else {
                    assert_eq!(
                        *v,
                        counted.get(name).copied().unwrap_or(0),
                        "seed {seed}: {name}"
                    );
                }
            }
            // The engine's path writes the same numbers from the same stream.
            plan.play(0, &mut scratch, &mut Plain(trial_stream(seed)), &mut out);
            let logged: Vec<i64> = log.metrics.iter().map(|m| m.1).collect();
            assert_eq!(out, logged, "seed {seed}");
        }
        assert!(cancelled_clones > 0, "the games exercise clones = true");
    }
}

/// A game without random choices is one path without draws: the engine plays it once per
/// worker and counts every other trial at its leaf. The truth is the game played once and
/// logged: every trial of the run has each metric at the logged value.
#[test]
fn deterministic_games_are_played_once_and_counted() {
    use rollcall::engine::{self, Monitor, RunSpec, Shard};
    let spec = RunSpec {
        trials: 300_000,
        seed: 4,
        threads: 1,
        shard: Shard::WHOLE,
        precision: None,
    };
    let banniere = scripted(
        r#"["campement", "banniere"]"#,
        r#"["obesite", "blaspheme"]"#,
        r#"hand = ["rituel", "charge"]"#,
    );
    let p = plan(&banniere);
    assert!(p.memoise());
    let log = p.play_logged(0, &mut trial_stream(1));
    let monitor = Monitor::default();
    let outcome = engine::run(&p, &spec, &monitor).unwrap();
    let cells: Vec<Vec<(i64, u64)>> = outcome
        .gathered
        .metrics
        .iter()
        .map(|h| h.iter().collect())
        .collect();
    let expected: Vec<Vec<(i64, u64)>> = log
        .metrics
        .iter()
        .map(|&(_, v)| vec![(v, spec.trials)])
        .collect();
    assert_eq!(cells, expected);
    let played = monitor
        .played_in_full
        .load(std::sync::atomic::Ordering::Relaxed);
    assert!(played < 10, "{played} trials played in full");

    // Any random choice among the cards in play makes a game that is played in full: a
    // random call (Conversion takes a random théurgie of B's hand), a drawn initiative,
    // random plays. A random caller in the set that no zone names does not count.
    let random_call = scripted(r#"["conversion"]"#, r#"["brume"]"#, "");
    assert!(!plan(&random_call).memoise());
    assert!(!plan(&banniere.replace(r#"initiative = "A""#, r#"initiative = "random""#)).memoise());
    assert!(!every_card_game(false, 5, 2).memoise());
    // Random plays alone, the initiative fixed: every other source of chance is absent.
    let random_plays = scripted(
        "",
        r#"["obesite", "blaspheme"]"#,
        r#"hand_size = 3
deck = ["campement", "banniere", "charge", "rituel"]"#,
    )
    .replacen("plays = []", r#"plays = "random""#, 1);
    assert!(!plan(&random_plays).memoise());
}

// ---------------------------------------------------------------------------------------
// The binary: shipped scenarios, bad input, determinism.

fn rollcall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn ok(args: &[&str]) -> Output {
    let out = rollcall(args);
    assert!(
        out.status.success(),
        "rollcall {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join(name).display()))
}

/// The mean of `metric` for `choice` in a summary.csv without sweep parameters.
fn summary_mean(summary: &str, choice: &str, metric: &str) -> f64 {
    summary
        .lines()
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|f| f[1] == choice && f[2] == metric)
        .unwrap_or_else(|| panic!("no {choice} {metric} in\n{summary}"))[5]
        .parse()
        .unwrap()
}

#[test]
fn shipped_card_scenarios_run_and_give_the_seed_results() {
    let tmp = tempfile::tempdir().unwrap();
    for name in [
        "cards-banniere",
        "cards-maitrise",
        "cards-multitache",
        "cards-random",
    ] {
        let dir = tmp.path().join(name);
        let file = format!("configs/{name}.toml");
        let checked = String::from_utf8(ok(&["check", &file]).stdout).unwrap();
        assert!(checked.contains("card game of "), "{checked}");
        ok(&[
            "run",
            &file,
            "--trials",
            "5000",
            "--quiet",
            "--out",
            dir.to_str().unwrap(),
        ]);
        let summary = read(&dir, "summary.csv");
        assert!(
            summary.starts_with("scenario,choice,metric,method,"),
            "{summary}"
        );
        assert_eq!(dir.join("orderings.csv").exists(), name == "cards-maitrise");
        // A alone chooses: nothing to solve as a game.
        assert!(!dir.join("equilibrium.csv").exists());
        assert!(!dir.join("compare.csv").exists());
    }
    let banniere = read(&tmp.path().join("cards-banniere"), "summary.csv");
    assert_eq!(summary_mean(&banniere, "", "A.rituel.cancelled"), 1.0);
    assert_eq!(summary_mean(&banniere, "", "A.score"), 2.0);
    let multitache = read(&tmp.path().join("cards-multitache"), "summary.csv");
    // Two turns, each: the object cancelled, its clone resolved.
    assert_eq!(summary_mean(&multitache, "", "A.score"), 2.0 + 2.0 + 3.0);
    let maitrise = read(&tmp.path().join("cards-maitrise"), "orderings.csv");
    let header = maitrise.lines().next().unwrap();
    assert!(header.starts_with(
        "scenario,row,a_ordering,b_ordering,trials,a_margin,a_margin_ci95_low,a_margin_ci95_high,A.score,"
    ));
    let rows: Vec<&str> = maitrise.lines().skip(1).collect();
    let count = |kind: &str| {
        rows.iter()
            .filter(|r| r.split(',').nth(1) == Some(kind))
            .count()
    };
    // A orders 2 of its 3 cards: 3 x 2 = 6 orderings; B's script is 1. So 6 x 1 pairs, an
    // average and a worst row for each of A's 6 and for B's 1.
    assert_eq!(
        [
            count("pair"),
            count("a_average"),
            count("a_worst"),
            count("b_average"),
            count("b_worst")
        ],
        [6, 6, 6, 1, 1]
    );
    // Éclair then Épée always scores 5 against Brume then Bouclier's 1.
    let best = rows
        .iter()
        .find(|r| r.starts_with("cards-maitrise,pair,eclair>epee,brume>bouclier,5000,4,4,4,5,"));
    assert!(best.is_some(), "{maitrise}");
    let b_worst = rows
        .iter()
        .find(|r| r.split(',').nth(1) == Some("b_worst"))
        .unwrap();
    assert!(
        b_worst.starts_with("cards-maitrise,b_worst,eclair>epee,"),
        "{b_worst}"
    );
}

#[test]
fn card_keys_can_be_overridden_from_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("o");
    ok(&[
        "run",
        "configs/cards-banniere.toml",
        "--trials",
        "1000",
        "--quiet",
        "--set",
        r#"cards.players.A.hand=["charge"]"#,
        "--out",
        dir.to_str().unwrap(),
    ]);
    let summary = read(&dir, "summary.csv");
    assert_eq!(summary_mean(&summary, "", "A.charge.resolved"), 1.0);
}

#[test]
fn results_are_byte_identical_for_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    for file in ["configs/cards-random.toml", "configs/cards-maitrise.toml"] {
        let dirs: Vec<PathBuf> = ["1", "2"]
            .iter()
            .map(|t| {
                let dir = tmp.path().join(format!("{}-{t}", file.replace('/', "_")));
                ok(&[
                    "run",
                    file,
                    "--trials",
                    "200000",
                    "--threads",
                    t,
                    "--quiet",
                    "--out",
                    dir.to_str().unwrap(),
                ]);
                dir
            })
            .collect();
        for name in ["summary.csv", "distribution.csv"] {
            assert_eq!(read(&dirs[0], name), read(&dirs[1], name), "{file} {name}");
        }
        if file.ends_with("maitrise.toml") {
            assert_eq!(
                read(&dirs[0], "orderings.csv"),
                read(&dirs[1], "orderings.csv")
            );
        }
    }
}

const SET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/cards/seed-set.toml");

/// A valid scenario using the shipped set by absolute path, so it can live in a temp dir.
fn valid() -> String {
    format!(
        r#"[scenario]
name = "bad"
trials = 100
[cards]
set = "{SET}"
cards_per_turn = 2
[cards.players.A]
plays = [["campement", "banniere"]]
hand = ["rituel"]
[cards.players.B]
plays = [["obesite", "blaspheme"]]
"#
    )
}

/// Runs `run` and `check` on `text` (and set file `set` if given) and asserts exit status 2,
/// no panic, and every `needles` in the message. Returns the message.
fn bad(text: &str, set: Option<&str>, needles: &[&str]) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.toml");
    std::fs::write(&file, text).unwrap();
    if let Some(set) = set {
        std::fs::write(tmp.path().join("set.toml"), set).unwrap();
    }
    let out_dir = tmp.path().join("out");
    let file = file.to_str().unwrap();
    let mut message = String::new();
    for args in [
        vec!["run", file, "--quiet", "--out", out_dir.to_str().unwrap()],
        vec!["check", file],
    ] {
        let out = rollcall(&args);
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        for needle in needles {
            assert!(
                stderr.contains(needle),
                "{args:?}: {needle:?} not in {stderr}"
            );
        }
        message = stderr;
    }
    assert!(!out_dir.exists(), "nothing is written for bad input");
    message
}

fn with_card(card: &str) -> String {
    format!("{}[[cards.card]]\n{card}\n", valid())
}

#[test]
fn bad_scenarios_get_clear_errors() {
    // The scenario itself is fine.
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good.toml");
    std::fs::write(&good, valid()).unwrap();
    ok(&["check", good.to_str().unwrap()]);

    bad(
        &valid().replace(
            r#"["campement", "banniere"]"#,
            r#"["campment", "banniere"]"#,
        ),
        None,
        &[
            "bad.toml",
            "cards.players.A.plays[0][0]",
            "\"campment\"",
            "did you mean \"campement\"",
            "amelioration, amulette, armes",
        ],
    );
    bad(
        &valid().replace(r#"hand = ["rituel"]"#, r#"hand = ["rituel", 3]"#),
        None,
        &["cards.players.A.hand[1]", "the integer 3", "card id"],
    );
    bad(
        &with_card(
            "id = \"x\"\nkind = \"sort\"\neffects = [{ type = \"cancel\", kinds = [\"theurgy\"] }]",
        ),
        None,
        &[
            "cards.card.x.effects[0].kinds[0]",
            "\"theurgy\"",
            "did you mean \"theurgie\"",
            "action, objet, sort",
        ],
    );
    bad(
        &with_card("id = \"x\"\nkind = \"sort\"\neffects = [{ type = \"steal\" }]"),
        None,
        &[
            "cards.card.x.effects[0].type",
            "\"steal\"",
            "\"cancel\", \"call\", \"clone\"",
        ],
    );
    bad(
        &with_card("id = \"x\"\nkind = \"sort\"\neffects = [{ type = \"cancel\", kinds = [\"action\"], cnt = 2 }]"),
        None,
        &["cards.card.x.effects[0].cnt", "unknown key \"cnt\"", "type, kinds, count, clones"],
    );
    bad(
        &with_card(
            "id = \"x\"\nkind = \"sort\"\neffects = [{ type = \"call\", from = \"graveyard\" }]",
        ),
        None,
        &[
            "cards.card.x.effects[0].from",
            "\"graveyard\"",
            "\"opponent_discard\"",
        ],
    );
    bad(
        &with_card("id = \"x\"\nkind = \"sort\"\neffects = [{ type = \"cancel\", kinds = [\"action\"], count = 0 }]"),
        None,
        &["cards.card.x.effects[0].count", "0 must be a whole number from 1 to 1000"],
    );
    bad(
        &with_card("id = \"x\"\nkind = \"sort\"\n[[cards.card]]\nid = \"x\"\nkind = \"objet\""),
        None,
        &["cards.card.x.id", "id \"x\" is used by two cards", "unique"],
    );
    bad(
        &with_card("id = \"a b\"\nkind = \"sort\""),
        None,
        &["cards.card[0].id", "\"a b\"", "letters, digits"],
    );
    bad(
        &valid().replace("cards_per_turn = 2", "cards_per_turn = 0"),
        None,
        &[
            "cards.cards_per_turn",
            "0 must be a whole number from 1 to 16",
        ],
    );
    bad(
        &valid().replace("cards_per_turn = 2", "cards_per_turn = 1"),
        None,
        &["cards.players.A.plays[0]", "2 cards but cards_per_turn = 1"],
    );
    bad(
        &valid().replace(
            "cards_per_turn = 2",
            "cards_per_turn = 2\ninitiative = \"C\"",
        ),
        None,
        &[
            "cards.initiative",
            "\"C\"",
            "\"A\", \"B\", \"alternate\", \"random\"",
        ],
    );
    bad(
        &valid().replace("cards_per_turn = 2", "cards_per_turn = 2\nturns = 2"),
        None,
        &["cards.players.A.plays", "1 turn(s) of plays but turns = 2"],
    );
    bad(
        &valid().replace(
            "[cards.players.B]\nplays = [[\"obesite\", \"blaspheme\"]]\n",
            "",
        ),
        None,
        &["cards.players.B", "missing"],
    );
    bad(
        &valid().replace("[cards.players.B]", "[cards.players.C]"),
        None,
        &["cards.players.C", "unknown player \"C\"", "A and B"],
    );
    bad(
        &valid().replace(
            "plays = [[\"obesite\", \"blaspheme\"]]",
            "plays = \"shuffle\"",
        ),
        None,
        &[
            "cards.players.B.plays",
            "\"shuffle\"",
            "\"random\" or \"enumerate\"",
        ],
    );
    bad(
        &valid().replace(
            "plays = [[\"obesite\", \"blaspheme\"]]",
            "plays = \"random\"\ndeck = [\"obesite\"]",
        ),
        None,
        &["cards.players.B.hand_size", "needs hand_size"],
    );
    bad(
        &valid()
            .replace(
                "plays = [[\"obesite\", \"blaspheme\"]]",
                "plays = \"enumerate\"\nhand = [\"obesite\"]",
            )
            .replace("cards_per_turn = 2", "cards_per_turn = 2\nturns = 2")
            .replace(
                "[[\"campement\", \"banniere\"]]",
                "[[\"campement\"], [\"banniere\"]]",
            ),
        None,
        &["cards.players.B.plays", "single turn", "turns = 2"],
    );
    bad(
        &valid().replace("cards_per_turn = 2", "cards_per_turn = 2\nshuffle = true"),
        None,
        &[
            "cards.shuffle",
            "unknown key \"shuffle\"",
            "set, card, cards_per_turn",
        ],
    );
    bad(
        &valid().replace(
            "[cards.players.A]",
            "[[step]]\nunit = \"x\"\ncommand = \"rally\"\n[cards.players.A]",
        ),
        None,
        &["no [[step]]"],
    );
}

#[test]
fn enumerating_beyond_the_limits_is_refused_with_the_counts() {
    let enumerate = |text: String, player: &str, hand: &str| {
        let script = if player == "A" {
            "plays = [[\"campement\", \"banniere\"]]\nhand = [\"rituel\"]"
        } else {
            "plays = [[\"obesite\", \"blaspheme\"]]"
        };
        text.replace(script, &format!("plays = \"enumerate\"\nhand = [{hand}]"))
    };
    let five = r#""nehant", "dragon", "iado", "armes", "joker""#;
    // An empty hand has nothing to enumerate.
    bad(
        &enumerate(valid(), "B", ""),
        None,
        &["cards.players.B.hand", "plays = \"enumerate\"", "add hand"],
    );
    // Both players: 5 * 4 = 20 orderings each, 400 pairs, past the game's 256.
    bad(
        &enumerate(enumerate(valid(), "A", five), "B", five),
        None,
        &["cards.players", "20 x 20 = 400 pairs", "at most 256"],
    );
    // One player: 10 * 9 * 8 * 7 = 5040 orderings of 4 cards, past 4096.
    let ten = r#""nehant", "dragon", "iado", "armes", "joker", "charge", "epee", "eclair", "brume", "priere""#;
    bad(
        &enumerate(valid(), "A", ten).replace("cards_per_turn = 2", "cards_per_turn = 4"),
        None,
        &["cards.players.A.hand", "5040 pairs", "at most 4096"],
    );
    // Several turns: 2 cards a turn for 3 turns from a hand of 6 would be 6! = 720 plans.
    let six = r#""nehant", "dragon", "iado", "armes", "joker", "charge""#;
    bad(
        &enumerate(valid(), "A", six)
            .replace("cards_per_turn = 2", "cards_per_turn = 2\nturns = 3")
            .replace(
                "[[\"obesite\", \"blaspheme\"]]",
                "[[\"obesite\"], [\"blaspheme\"], []]",
            ),
        None,
        &[
            "cards.players.A.plays",
            "turns = 3",
            "720 orderings of 6 cards",
            "at most 4096",
            "set turns = 1",
        ],
    );
    // At the limits it runs: 4 * 3 = 12 orderings each is 144 pairs.
    let four = r#""nehant", "dragon", "iado", "armes""#;
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("game.toml");
    std::fs::write(&file, enumerate(enumerate(valid(), "A", four), "B", four)).unwrap();
    let out = tmp.path().join("out");
    ok(&[
        "run",
        file.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    let eq = read(&out, "equilibrium.csv");
    assert_eq!(eq.lines().count(), 1 + 12 + 12, "{eq}");
}

#[test]
fn bad_card_sets_get_clear_errors() {
    let with_set = valid().replace(&format!("set = \"{SET}\""), "set = \"set.toml\"");
    // A missing set names the key, the path tried, and how it is resolved.
    bad(
        &valid().replace(&format!("set = \"{SET}\""), "set = \"nowhere/set.toml\""),
        None,
        &[
            "bad.toml",
            "cards.set",
            "nowhere/set.toml",
            "relative to the scenario file",
        ],
    );
    let good_set = std::fs::read_to_string(SET).unwrap();
    // A TOML syntax error: the set file's path and line.
    let broken = good_set.replacen("value = 1\n", "value = = 1\n", 1);
    bad(&with_set, Some(&broken), &["set.toml", "line"]);
    // A bad value in the set: the set file's path and the card's key.
    let three = good_set.replacen("value = 1\n", "value = \"three\"\n", 1);
    bad(
        &with_set,
        Some(&three),
        &[
            "set.toml",
            "card.nehant.value",
            "the string \"three\"",
            "whole number",
        ],
    );
    let kinds = good_set.replacen("kinds = [\"sort\"]", "kinds = [\"spell\"]", 1);
    bad(
        &with_set,
        Some(&kinds),
        &[
            "set.toml",
            "card.dragon.effects[0].kinds[0]",
            "\"spell\"",
            "action, objet, sort, theurgie",
        ],
    );
    let dup = format!("{good_set}\n[[card]]\nid = \"joker\"\nkind = \"objet\"\n");
    bad(
        &with_set,
        Some(&dup),
        &["set.toml", "card.joker.id", "used by two cards"],
    );
    bad(
        &with_set,
        Some("cards = []\n"),
        &["set.toml", "unknown key \"cards\"", "allowed here: card"],
    );
    bad(
        &with_set,
        Some("card = 3\n"),
        &["set.toml", "card", "list of card tables", "the integer 3"],
    );
    bad(
        &with_set,
        Some("[[card]]\nid = \"campement\"\nkind = \"action\"\nfoo = 1\n"),
        &[
            "set.toml",
            "card.campement.foo",
            "unknown key \"foo\"",
            "id, name, kind, value, effects, note",
        ],
    );
    // The set loads but lacks a card the scenario plays.
    bad(
        &with_set,
        Some("[[card]]\nid = \"campement\"\nkind = \"action\"\n[[card]]\nid = \"rituel\"\nkind = \"theurgie\"\n"),
        &["bad.toml", "cards.players.A.plays[0][1]", "\"banniere\"", "cards are: campement, rituel"],
    );
}

#[test]
fn the_scenario_hash_covers_the_card_set_file() {
    // Shards of runs over different card sets must not merge: the hash in run.json (which
    // merging compares) changes when only the set file changes.
    let tmp = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir(tmp.path().join("cards")).unwrap();
    let scenario = tmp.path().join("game.toml");
    std::fs::copy(root.join("configs/cards-random.toml"), &scenario).unwrap();
    let set = tmp.path().join("cards/seed-set.toml");
    let original = std::fs::read_to_string(root.join("configs/cards/seed-set.toml")).unwrap();
    let hash = |tag: &str| {
        let out = tmp.path().join(tag);
        ok(&[
            "run",
            scenario.to_str().unwrap(),
            "--trials",
            "1000",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ]);
        let meta: serde_json::Value = serde_json::from_str(&read(&out, "run.json")).unwrap();
        meta["scenario_hash"].as_str().unwrap().to_string()
    };
    std::fs::write(&set, &original).unwrap();
    let first = hash("a");
    assert_eq!(first, hash("b"), "same files, same hash");
    std::fs::write(&set, original.replacen("value = 1", "value = 2", 1)).unwrap();
    assert_ne!(
        first,
        hash("c"),
        "a card's value changed in the set file only"
    );
}
