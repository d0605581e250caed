//! Bad input never panics: every bad scenario file or flag gets a message naming the file,
//! the line or key, the bad value and what is allowed, and the binary exits with status 2
//! without writing anything.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BASELINE: &str = r#"[scenario]
name = "t"
trials = 1000
seed = 1
[battlefield]
width = 48.0
height = 48.0
[[unit]]
id = "wardens"
side = "blue"
size = 10
alive = 4
resolve = "d6>=4"
formation = { kind = "line", x = 24.0, y = 24.0, spacing = 1.5 }
[[step]]
unit = "wardens"
command = "rally"
"#;

/// A second unit, appended to the baseline: `raiders` with explicit model positions.
fn with_raiders(side: &str, models: &str) -> String {
    format!(
        "{BASELINE}[[unit]]\nid = \"raiders\"\nside = \"{side}\"\nsize = 5\nalive = 2\n\
         resolve = \"d6>=4\"\nmodels = {models}\n"
    )
}

/// The baseline with one line replaced; panics (in the test) if `from` is not in it.
fn replace(from: &str, to: &str) -> String {
    assert!(BASELINE.contains(from), "baseline has no {from:?}");
    BASELINE.replacen(from, to, 1)
}

/// The baseline with `line` inserted after the line `after`.
fn insert_after(after: &str, line: &str) -> String {
    replace(after, &format!("{after}\n{line}"))
}

fn rollcall(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("cannot start the rollcall binary")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts a failed run: status exactly 2 (101 would be a panic), no panic message, nothing
/// on stdout. Returns stderr.
fn assert_bad_input(out: &Output, what: &str) -> String {
    let stderr = text(&out.stderr);
    assert!(
        !stderr.contains("panicked"),
        "{what}: the binary panicked:\n{stderr}"
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "{what}: expected exit status 2 (bad input), got {:?}\nstderr:\n{stderr}",
        out.status
    );
    assert!(
        out.stdout.is_empty(),
        "{what}: a failed run printed to stdout:\n{}",
        text(&out.stdout)
    );
    stderr
}

/// Writes `toml` to `<tmp>/bad.toml` and runs `rollcall run <file> --quiet --out <dir>
/// <args>`; asserts status 2, no panic and no output folder. Returns stderr, in which the
/// file path written by the binary is `bad.toml` (it runs in the temp dir).
fn fails(toml: &str, args: &[&str]) -> String {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("bad.toml"), toml).unwrap();
    let mut all = vec!["run", "bad.toml", "--quiet", "--out", "out"];
    all.extend_from_slice(args);
    let out = rollcall(tmp.path(), &all);
    let what = format!("rollcall {}", all.join(" "));
    let stderr = assert_bad_input(&out, &what);
    assert!(
        !tmp.path().join("out").exists(),
        "{what}: a failed run created its output folder\nstderr:\n{stderr}"
    );
    assert!(
        !tmp.path().join("results").exists(),
        "{what}: a failed run created results/\nstderr:\n{stderr}"
    );
    stderr
}

/// Asserts every one of `parts` is in `stderr`, listing the missing ones.
fn says(stderr: &str, parts: &[&str]) {
    let missing: Vec<&&str> = parts.iter().filter(|p| !stderr.contains(**p)).collect();
    assert!(
        missing.is_empty(),
        "the message lacks {missing:?}\nstderr was:\n{stderr}"
    );
}

/// A scenario error names the file first: `error: bad.toml: ...`.
fn names_file(stderr: &str) {
    says(stderr, &["bad.toml:"]);
}

// ---- the helpers work: the baseline runs ----

#[test]
fn baseline_runs_and_writes_its_tables() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("good.toml"), BASELINE).unwrap();
    let out = rollcall(
        tmp.path(),
        &[
            "run",
            "good.toml",
            "--quiet",
            "--out",
            "out",
            "--trials",
            "200",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "the baseline failed:\n{}",
        text(&out.stderr)
    );
    assert!(tmp.path().join("out/summary.csv").is_file());
}

// ---- TOML syntax, unknown keys and types: the message carries the line ----

#[test]
fn unknown_top_level_key() {
    let e = fails(&format!("{BASELINE}[extras]\nx = 1\n"), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "line 18",
            "key `extras`",
            "unknown key \"extras\"",
            "allowed here: scenario, options",
            "unit",
        ],
    );
}

#[test]
fn unknown_key_inside_a_unit() {
    let e = fails(&insert_after("alive = 4", "colour = \"red\""), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "line 13",
            "unit.wardens.colour",
            "unknown key \"colour\"",
            "allowed here: id, side",
            "resolve",
        ],
    );
}

#[test]
fn wrong_type_for_size() {
    let e = fails(&replace("size = 10", "size = \"ten\""), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "line 11",
            "key `unit.wardens.size`: expected a whole number, found the string \"ten\"",
        ],
    );
}

/// A value of the wrong type names the key path and says what is allowed in words, not in
/// Rust's type names; the file's line is shown, and a `--set` value is named as the setting.
#[test]
fn wrong_types_name_the_key_and_say_what_is_allowed_in_words() {
    for (from, to, line, key, expected) in [
        (
            "alive = 4",
            "alive = \"four\"",
            "line 12, column 9",
            "unit.wardens.alive",
            "expected a whole number, found the string \"four\"",
        ),
        (
            "width = 48.0",
            "width = \"wide\"",
            "line 6, column 9",
            "battlefield.width",
            "expected a number, found the string \"wide\"",
        ),
        (
            "name = \"t\"",
            "name = 7",
            "line 2, column 8",
            "scenario.name",
            "expected text, found the integer 7",
        ),
        (
            "alive = 4",
            "alive = 4\nrules = \"call_of_the_masters\"",
            "line 13, column 9",
            "unit.wardens.rules",
            "expected a list, found the string \"call_of_the_masters\"",
        ),
        (
            "alive = 4",
            "alive = 4\nweapon = 3",
            "line 13, column 10",
            "unit.wardens.weapon",
            "expected a table, found the integer 3",
        ),
        (
            "seed = 1",
            "seed = 1\n[options]\nspill = \"yes\"",
            "line 6, column 9",
            "options.spill",
            "expected true or false, found the string \"yes\"",
        ),
    ] {
        let e = fails(&replace(from, to), &[]);
        names_file(&e);
        says(&e, &[line, &format!("key `{key}`: {expected}")]);
        for rust in [
            "i64",
            "f64",
            "invalid type",
            "a sequence",
            "a boolean",
            "struct ",
        ] {
            assert!(!e.contains(rust), "{to}: the message says {rust:?}:\n{e}");
        }
    }
    let e = fails(BASELINE, &["--set", "unit.wardens.alive=four"]);
    says(
        &e,
        &[
            "setting `unit.wardens.alive=\"four\"`",
            "key `unit.wardens.alive`: expected a whole number, found the string \"four\"",
        ],
    );
}

#[test]
fn fractional_trial_count() {
    let e = fails(&replace("trials = 1000", "trials = 1.5"), &[]);
    names_file(&e);
    says(&e, &["line 3", "1.5", "expected a whole number", "1e6"]);
}

#[test]
fn malformed_toml_unclosed_bracket() {
    let e = fails(&replace("[battlefield]", "[battlefield"), &[]);
    names_file(&e);
    says(&e, &["line 5", "[battlefield", "expected"]);
}

// ---- values that are well typed but not allowed: the message names the key path ----

#[test]
fn alive_more_than_size() {
    let e = fails(&replace("alive = 4", "alive = 11"), &[]);
    names_file(&e);
    says(&e, &["unit.wardens.alive", "11", "from 0 to size"]);
}

#[test]
fn missing_out_of_range_or_beside_alive() {
    // `missing` says what `alive` says the other way round: 0 to size, and not both.
    for (value, parts) in [
        ("-1", &["unit.wardens.missing", "-1", "from 0 to 10"][..]),
        (
            "11",
            &[
                "unit.wardens.missing",
                "11",
                "more than size = 10",
                "from 0 to size",
            ],
        ),
    ] {
        let e = fails(&replace("alive = 4", &format!("missing = {value}")), &[]);
        names_file(&e);
        says(&e, parts);
    }
    let e = fails(&insert_after("alive = 4", "missing = 6"), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "unit.wardens.missing",
            "`alive` (= 4)",
            "`missing` (= 6)",
            "give one of them",
        ],
    );
    // The same through --set and a sweep, onto a file that gives `alive`.
    let e = fails(BASELINE, &["--set", "unit.wardens.missing=6"]);
    says(&e, &["unit.wardens.missing", "both `alive`"]);
    let swept = replace("alive = 4", "") + "[sweep]\n\"unit.wardens.missing\" = [2, 12]\n";
    let e = fails(&swept, &[]);
    says(&e, &["unit.wardens.missing", "12", "more than size = 10"]);
    // Positions are counted against the models alive, size - missing.
    let e = fails(
        &replace("alive = 4", "missing = 8").replace(
            "formation = { kind = \"line\", x = 24.0, y = 24.0, spacing = 1.5 }",
            "models = [[24.0, 24.0]]",
        ),
        &[],
    );
    says(
        &e,
        &[
            "unit.wardens.models",
            "lists 1 positions but alive = size - missing = 2",
        ],
    );
}

#[test]
fn size_zero() {
    let e = fails(&replace("size = 10", "size = 0"), &[]);
    names_file(&e);
    says(&e, &["unit.wardens.size", "0 must be", "from 1 to"]);
}

#[test]
fn negative_hp() {
    let e = fails(&insert_after("alive = 4", "hp = -2"), &[]);
    names_file(&e);
    says(&e, &["unit.wardens.hp", "-2", "from 1 to"]);
}

#[test]
fn base_larger_than_the_battlefield() {
    let e = fails(&insert_after("alive = 4", "base = 60.0"), &[]);
    names_file(&e);
    says(&e, &["unit.wardens.base", "60", "48 x 48", "must fit"]);
}

#[test]
fn model_off_the_battlefield() {
    let e = fails(&replace("x = 24.0", "x = 47.0"), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "unit.wardens.formation",
            "(48.5, 24)",
            "off the 48 x 48",
            "wholly on",
        ],
    );
}

#[test]
fn model_inside_impassable_terrain() {
    let toml = insert_after(
        "height = 48.0",
        "terrain = [{ x = 25.0, y = 20.0, width = 2.0, height = 8.0 }]",
    );
    let e = fails(&toml, &[]);
    names_file(&e);
    says(
        &e,
        &[
            "unit.wardens.formation",
            "(25.5, 24)",
            "impassable",
            "outside",
        ],
    );
}

#[test]
fn overlapping_models_of_two_units() {
    let e = fails(&with_raiders("red", "[[25.0, 24.5], [40.0, 40.0]]"), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "unit.raiders",
            "(25, 24.5)",
            "wardens",
            "overlaps",
            "may touch but not overlap",
        ],
    );
}

#[test]
fn models_list_length_differs_from_alive() {
    let e = fails(&with_raiders("red", "[[40.0, 40.0]]"), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "unit.raiders.models",
            "1 positions",
            "alive = 2",
            "one [x, y] per model",
        ],
    );
}

#[test]
fn duplicate_unit_ids() {
    let toml = with_raiders("red", "[[40.0, 40.0], [42.0, 40.0]]")
        .replace("id = \"raiders\"", "id = \"wardens\"");
    let e = fails(&toml, &[]);
    names_file(&e);
    says(&e, &["unit.wardens.id", "\"wardens\"", "must be unique"]);
}

#[test]
fn bad_dice_text() {
    let e = fails(&replace("resolve = \"d6>=4\"", "resolve = \"d6>>4\""), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "unit.wardens.resolve",
            "\"d6>>4\"",
            "expected [N]dS",
            "d6>=4",
        ],
    );
}

#[test]
fn unknown_rule() {
    let e = fails(&insert_after("alive = 4", "rules = [\"fearless\"]"), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "unit.wardens.rules",
            "\"fearless\"",
            "allowed: \"call_of_the_masters\"",
        ],
    );
}

#[test]
fn unknown_formation_kind() {
    let e = fails(&replace("kind = \"line\"", "kind = \"wedge\""), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "unit.wardens.formation.kind",
            "\"wedge\"",
            "allowed: \"line\", \"grid\"",
        ],
    );
}

// ---- steps ----

#[test]
fn unknown_unit_in_a_step() {
    let e = fails(&replace("unit = \"wardens\"", "unit = \"nobody\""), &[]);
    names_file(&e);
    says(&e, &["step.step1.unit", "\"nobody\"", "units are: wardens"]);
}

#[test]
fn unknown_command() {
    let e = fails(&replace("command = \"rally\"", "command = \"charge\""), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "step.step1.command",
            "\"charge\"",
            "allowed: \"rally\", \"shoot\", \"run\"",
        ],
    );
}

#[test]
fn defend_is_not_a_step_command() {
    let e = fails(&replace("command = \"rally\"", "command = \"defend\""), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "step.step1.command",
            "\"defend\"",
            "response",
            "rally, shoot, run",
        ],
    );
}

#[test]
fn shoot_without_a_target() {
    let toml = with_raiders("red", "[[40.0, 40.0], [42.0, 40.0]]")
        .replace("command = \"rally\"", "command = \"shoot\"");
    let e = fails(&toml, &[]);
    names_file(&e);
    says(
        &e,
        &["step.step1.target", "shoot needs a target", "enemy unit"],
    );
}

#[test]
fn shoot_at_a_unit_of_the_same_side() {
    let toml = with_raiders("blue", "[[40.0, 40.0], [42.0, 40.0]]")
        .replace("command = \"rally\"", "command = \"shoot\"\ntarget = \"raiders\"")
        .replace(
            "resolve = \"d6>=4\"\nformation",
            "resolve = \"d6>=4\"\nweapon = { attacks = 1, hit = \"d6>=4\", range = 24.0 }\nformation",
        );
    let e = fails(&toml, &[]);
    names_file(&e);
    says(
        &e,
        &[
            "step.step1.target",
            "\"raiders\"",
            "own side \"blue\"",
            "must be an enemy",
        ],
    );
}

#[test]
fn round_going_backwards() {
    let toml = format!(
        "{BASELINE}[[step]]\nunit = \"wardens\"\ncommand = \"rally\"\nround = 3\n\
         [[step]]\nunit = \"wardens\"\ncommand = \"rally\"\nround = 2\n"
    );
    let e = fails(&toml, &[]);
    names_file(&e);
    says(
        &e,
        &[
            "step.step3.round",
            "2 must be",
            "from 3 (the previous step's round)",
        ],
    );
}

// ---- did you mean: a misspelt key, name or id gets the one it was probably meant to be ----

/// A card-game scenario: B's `stop` cancels A's `charge`.
const CARDS: &str = r#"[scenario]
name = "c"
trials = 1000
[cards]
cards_per_turn = 1
[[cards.card]]
id = "charge"
kind = "action"
[[cards.card]]
id = "stop"
kind = "sort"
effects = [{ type = "cancel", kinds = ["action"], count = 1 }]
[cards.players.A]
plays = [["charge"]]
[cards.players.B]
plays = [["stop"]]
"#;

#[test]
fn card_baseline_runs() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("good.toml"), CARDS).unwrap();
    let out = rollcall(tmp.path(), &["check", "good.toml"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn misspelt_unit_key_suggests_the_key() {
    let e = fails(&replace("resolve = ", "reslove = "), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "line 13",
            "key `unit.wardens.reslove`",
            "unknown key \"reslove\"",
            "(did you mean \"resolve\"?)",
            "allowed here: id, side",
            "13 | reslove = \"d6>=4\"",
        ],
    );
}

#[test]
fn misspelt_option_and_section_keys_suggest_the_key() {
    let e = fails(&format!("{BASELINE}[options.rally]\nchian = true\n"), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "line 19",
            "key `options.rally.chian`",
            "\"chian\"",
            "(did you mean \"chain\"?)",
        ],
    );
    let e = fails(&replace("[battlefield]", "[battlefeld]"), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "line 5",
            "key `battlefeld`",
            "(did you mean \"battlefield\"?)",
        ],
    );
}

#[test]
fn misspelt_card_effect_key_suggests_the_key() {
    let e = fails(&CARDS.replace("count = 1", "cuont = 1"), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "key `cards.card.stop.effects[0].cuont`",
            "unknown key \"cuont\"",
            "(did you mean \"count\"?)",
            "allowed here: type, kinds, count, clones",
        ],
    );
    let e = fails(&CARDS.replace("effects = ", "efects = "), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "line 12",
            "key `cards.card.stop.efects`",
            "unknown key \"efects\"",
            "(did you mean \"effects\"?)",
            "allowed here: id, name, kind, value, effects, note",
        ],
    );
    let e = fails(CARDS, &["--set", "cards.turn=2"]);
    says(
        &e,
        &[
            "setting `cards.turn=2`",
            "key `cards.turn`",
            "(did you mean \"turns\"?)",
        ],
    );
    let e = fails(
        &CARDS.replace("type = \"cancel\"", "type = \"cancle\""),
        &[],
    );
    names_file(&e);
    says(
        &e,
        &[
            "key `cards.card.stop.effects[0].type`",
            "unknown effect type \"cancle\"",
            "(did you mean \"cancel\"?)",
            "allowed: \"cancel\", \"call\", \"clone\"",
        ],
    );
    let e = fails(&CARDS.replace("[[\"stop\"]]", "[[\"stpo\"]]"), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "key `cards.players.B.plays[0][0]`",
            "unknown card \"stpo\"",
            "(did you mean \"stop\"?)",
            "cards are: charge, stop",
        ],
    );
}

#[test]
fn misspelt_command_suggests_the_command() {
    let e = fails(&replace("command = \"rally\"", "command = \"raly\""), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "key `step.step1.command`",
            "unknown command \"raly\"",
            "(did you mean \"rally\"?)",
            "allowed: \"rally\", \"shoot\", \"run\"",
        ],
    );
}

#[test]
fn misspelt_unit_id_in_a_step_target_suggests_the_unit() {
    let toml = with_raiders("red", "[[40.0, 40.0], [42.0, 40.0]]")
        .replace("command = \"rally\"", "command = \"shoot\"\ntarget = \"raider\"")
        .replace(
            "resolve = \"d6>=4\"\nformation",
            "resolve = \"d6>=4\"\nweapon = { attacks = 1, hit = \"d6>=4\", range = 24.0 }\nformation",
        );
    let e = fails(&toml, &[]);
    names_file(&e);
    says(
        &e,
        &[
            "key `step.step1.target`",
            "unknown unit \"raider\"",
            "(did you mean \"raiders\"?)",
            "units are: raiders, wardens",
        ],
    );
    let e = fails(&replace("unit = \"wardens\"", "unit = \"warden\""), &[]);
    says(
        &e,
        &[
            "key `step.step1.unit`",
            "\"warden\"",
            "(did you mean \"wardens\"?)",
        ],
    );
}

#[test]
fn misspelt_response_and_formation_suggest_the_name() {
    let e = fails(&insert_after("alive = 4", "response = \"defnd\""), &[]);
    names_file(&e);
    says(
        &e,
        &[
            "key `unit.wardens.response`",
            "unknown response \"defnd\"",
            "(did you mean \"defend\"?)",
            "allowed: \"none\", \"defend\", \"covering_fire\", \"random\"",
        ],
    );
    let e = fails(&replace("kind = \"line\"", "kind = \"lin\""), &[]);
    says(
        &e,
        &[
            "key `unit.wardens.formation.kind`",
            "\"lin\"",
            "(did you mean \"line\"?)",
        ],
    );
}

#[test]
fn misspelt_set_key_paths_suggest_the_key_and_the_id() {
    let e = fails(BASELINE, &["--set", "unit.wardens.alvie=3"]);
    names_file(&e);
    says(
        &e,
        &[
            "setting `unit.wardens.alvie=3`",
            "key `unit.wardens.alvie`",
            "unknown key \"alvie\"",
            "(did you mean \"alive\"?)",
        ],
    );
    let e = fails(BASELINE, &["--set", "unit.wardns.alive=3"]);
    says(
        &e,
        &[
            "setting `unit.wardns.alive=3`",
            "\"wardns\"",
            "(did you mean \"wardens\"?)",
            "ids are: wardens",
        ],
    );
    let e = fails(BASELINE, &["--set", "optons.spill=true"]);
    says(&e, &["key `optons`", "(did you mean \"options\"?)"]);
    let toml = format!("{BASELINE}[sweep]\n\"unit.wardens.sizee\" = [2, 3]\n");
    let e = fails(&toml, &[]);
    says(
        &e,
        &[
            "[sweep] point unit.wardens.sizee = 2: key `unit.wardens.sizee`",
            "(did you mean \"size\"?)",
        ],
    );
}

#[test]
fn long_values_are_clipped_in_messages() {
    let long = "x".repeat(5000);
    for toml in [
        replace("name = \"t\"", &format!("name = \"a b{long}\"")),
        replace("size = 10", &format!("size = \"{long}\"")),
        replace("command = \"rally\"", &format!("command = \"{long}\"")),
        replace("resolve = ", &format!("{long} = ")),
    ] {
        let e = fails(&toml, &[]);
        names_file(&e);
        assert!(e.len() < 1000 && e.contains('…'), "{} bytes:\n{e}", e.len());
    }
}

// ---- --set overrides: checked exactly like keys in the file ----

#[test]
fn set_without_equals() {
    let e = fails(BASELINE, &["--set", "unit.wardens.alive"]);
    says(
        &e,
        &[
            "--set",
            "\"unit.wardens.alive\"",
            "no '='",
            "expected KEY=VALUE",
        ],
    );
}

#[test]
fn set_unknown_unit_id() {
    let e = fails(BASELINE, &["--set", "unit.nobody.alive=3"]);
    names_file(&e);
    says(
        &e,
        &["unit.nobody.alive=3", "\"nobody\"", "ids are: wardens"],
    );
}

#[test]
fn set_value_caught_by_validation() {
    let e = fails(BASELINE, &["--set", "unit.wardens.alive=99"]);
    names_file(&e);
    says(&e, &["unit.wardens.alive", "99", "from 0 to size"]);
}

#[test]
fn set_value_of_the_wrong_type_names_the_setting() {
    let e = fails(BASELINE, &["--set", "unit.wardens.alive=ten"]);
    names_file(&e);
    says(&e, &["unit.wardens.alive", "\"ten\"", "expected"]);
}

#[test]
fn set_unknown_key_names_the_setting() {
    let e = fails(BASELINE, &["--set", "unit.wardens.colour=3"]);
    names_file(&e);
    says(
        &e,
        &[
            "unit.wardens.colour=3",
            "unknown key \"colour\"",
            "allowed here: id, side",
        ],
    );
}

#[test]
fn sweep_value_of_the_wrong_type_names_the_key() {
    let toml = format!("{BASELINE}[sweep]\n\"unit.wardens.alive\" = [2, \"ten\"]\n");
    let e = fails(&toml, &[]);
    names_file(&e);
    says(
        &e,
        &[
            "bad.toml: [sweep] point unit.wardens.alive = \"ten\": key `unit.wardens.alive`: \
             expected a whole number, found the string \"ten\"",
        ],
    );
}

/// An error that a sweep point causes names `[sweep]`, the key and the point's value: the
/// file itself (or another point) may be fine.
#[test]
fn errors_at_a_sweep_point_name_the_sweep_key_and_value() {
    // A misspelt sweep key (defence for defense).
    let toml = format!("{BASELINE}[sweep]\n\"unit.wardens.defence\" = [\"d6>=6\", \"d6>=5\"]\n");
    let e = fails(&toml, &[]);
    says(
        &e,
        &["bad.toml: [sweep] point unit.wardens.defence = \"d6>=6\": \
             key `unit.wardens.defence`: unknown key \"defence\" (did you mean \"defense\"?)"],
    );
    // A point where the file's alive = 4 is more than the swept size; size 10 is fine.
    let toml = format!("{BASELINE}[sweep]\n\"unit.wardens.size\" = [10, 3]\n");
    let e = fails(&toml, &[]);
    says(
        &e,
        &[
            "bad.toml: [sweep] point unit.wardens.size = 3: key `unit.wardens.alive`: 4 is more \
           than size = 3",
        ],
    );
    // Every key of the point is named.
    let toml = format!("{BASELINE}[sweep]\n\"scenario.seed\" = [1]\n\"unit.wardens.size\" = [3]\n");
    let e = fails(&toml, &[]);
    says(
        &e,
        &["[sweep] point scenario.seed = 1, unit.wardens.size = 3: key `unit.wardens.alive`"],
    );
    // The file is wrong whatever the point: the sweep is not blamed.
    let toml = format!(
        "{}[sweep]\n\"scenario.seed\" = [1, 2]\n",
        replace("alive = 4", "alive = 20")
    );
    let e = fails(&toml, &[]);
    says(
        &e,
        &[
            "bad.toml: ",
            "key `unit.wardens.alive`: 20 is more than size = 10",
        ],
    );
    assert!(!e.contains("[sweep]"), "{e}");
}

#[test]
fn an_unknown_key_inside_a_value_set_whole_is_called_unknown() {
    let e = fails(
        BASELINE,
        &[
            "--set",
            "unit.wardens.formation={ kind = \"line\", x = 1.0, y = 1.0, spacng = 1.5 }",
        ],
    );
    says(
        &e,
        &[
            "unit.wardens.formation.spacng",
            "unknown key \"spacng\" (did you mean \"spacing\"?)",
        ],
    );
}

// ---- flags: clap's usage errors exit 2 and name the flag and the value ----

#[test]
fn zero_trials() {
    let e = fails(BASELINE, &["--trials", "0"]);
    says(&e, &["--trials", "'0'", "at least 1"]);
}

#[test]
fn trials_not_a_count() {
    let e = fails(BASELINE, &["--trials", "lots"]);
    says(&e, &["--trials", "lots", "expected a whole number", "1e6"]);
}

#[test]
fn negative_trials() {
    let e = fails(BASELINE, &["--trials", "-5"]);
    says(&e, &["--trials", "-5", "expected a whole number"]);
}

#[test]
fn shard_index_not_below_count() {
    let e = fails(BASELINE, &["--shard", "3/2"]);
    says(&e, &["--shard", "3/2", "0 <= I < N"]);
}

#[test]
fn zero_threads() {
    let e = fails(BASELINE, &["--threads", "0"]);
    says(&e, &["--threads", "'0'", "from 1 to 4096"]);
}

#[test]
fn negative_threads() {
    let e = fails(BASELINE, &["--threads", "-1"]);
    says(&e, &["--threads", "-1", "from 1 to 4096"]);
}

#[test]
fn negative_seed() {
    let e = fails(BASELINE, &["--seed", "-1"]);
    says(&e, &["--seed", "-1", "from 0 to 9223372036854775807"]);
}

#[test]
fn seed_too_large_for_a_scenario_file() {
    let e = fails(BASELINE, &["--seed", "18446744073709551615"]);
    says(
        &e,
        &[
            "--seed",
            "18446744073709551615",
            "from 0 to 9223372036854775807",
        ],
    );
}

#[test]
fn precision_zero() {
    let e = fails(BASELINE, &["--precision", "0"]);
    says(&e, &["--precision", "'0'", "greater than 0"]);
}

// ---- files ----

#[test]
fn missing_file() {
    let tmp = tempfile::tempdir().unwrap();
    let out = rollcall(
        tmp.path(),
        &["run", "nothere.toml", "--quiet", "--out", "out"],
    );
    let e = assert_bad_input(&out, "run on a missing file");
    says(&e, &["nothere.toml", "cannot read"]);
    assert!(!tmp.path().join("out").exists());
}

#[test]
fn failed_run_leaves_an_existing_output_folder_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir: PathBuf = tmp.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let sentinel = "sentinel: a failed run must not touch this\n";
    std::fs::write(out_dir.join("summary.csv"), sentinel).unwrap();
    std::fs::write(
        tmp.path().join("bad.toml"),
        replace("alive = 4", "alive = 11"),
    )
    .unwrap();
    let out = rollcall(tmp.path(), &["run", "bad.toml", "--quiet", "--out", "out"]);
    let e = assert_bad_input(&out, "run on a bad file with an existing --out folder");
    says(&e, &["bad.toml", "unit.wardens.alive", "11"]);
    assert_eq!(
        std::fs::read_to_string(out_dir.join("summary.csv")).unwrap(),
        sentinel,
        "a failed run changed an existing summary.csv"
    );
    let entries: Vec<_> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        entries.len(),
        1,
        "a failed run added files to --out: {entries:?}"
    );
}

#[test]
fn check_on_a_bad_file_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("bad.toml"),
        replace("command = \"rally\"", "command = \"charge\""),
    )
    .unwrap();
    let out = rollcall(tmp.path(), &["check", "bad.toml"]);
    let e = assert_bad_input(&out, "check on a bad file");
    says(
        &e,
        &[
            "bad.toml",
            "step.step1.command",
            "\"charge\"",
            "allowed: \"rally\", \"shoot\", \"run\"",
        ],
    );
}

#[test]
fn check_on_a_good_file_prints_ok() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("good.toml"), BASELINE).unwrap();
    let out = rollcall(tmp.path(), &["check", "good.toml"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "check failed on the baseline:\n{}",
        text(&out.stderr)
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("ok") && stdout.contains("good.toml"),
        "check printed:\n{stdout}"
    );
}

#[test]
fn check_on_a_missing_file_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    let out = rollcall(tmp.path(), &["check", "nothere.toml"]);
    let e = assert_bad_input(&out, "check on a missing file");
    says(&e, &["nothere.toml", "cannot read"]);
}
