//! The unit key `missing`, the other way to say `alive` (alive = size - missing): a file
//! written either way gives the same tables byte for byte, through the file, `--set` and a
//! `[sweep]`; and a Rally declared with no model missing.

use crate::common;

use common::{constant, gather, metric, plan as compile, rollcall};
use std::path::Path;

/// Wardens (10 models) are shot at by raiders and then Rally; `{wardens}` holds how many of
/// them start on the table, written one way or the other.
fn scenario(wardens: &str, sweep: &str) -> String {
    format!(
        r#"[scenario]
name = "missing"
trials = 20_000
seed = 7
[[unit]]
id = "wardens"
side = "blue"
size = 10
{wardens}
resolve = "d6>=4"
defense = "d6>=5"
formation = {{ kind = "grid", x = 10.0, y = 10.0, spacing = 1.5, columns = 5 }}
[[unit]]
id = "raiders"
side = "red"
size = 4
weapon = {{ attacks = 2, hit = "d6>=4", range = 24.0 }}
formation = {{ kind = "line", x = 10.0, y = 30.0, spacing = 1.5 }}
[[step]]
unit = "raiders"
command = "shoot"
target = "wardens"
[[step]]
unit = "wardens"
command = "rally"
{sweep}"#
    )
}

/// Runs `text` with `args` into `<dir>/<name>`; returns the folder.
fn run(dir: &Path, name: &str, text: &str, args: &[&str]) -> std::path::PathBuf {
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, text).unwrap();
    let out = dir.join(name);
    let mut all = vec![
        "run",
        file.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    let o = rollcall(&all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

fn table(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

#[test]
fn missing_k_gives_the_tables_of_alive_size_minus_k() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for k in [0, 3, 10] {
        let by_alive = run(
            dir,
            &format!("alive{k}"),
            &scenario(&format!("alive = {}", 10 - k), ""),
            &[],
        );
        let by_missing = run(
            dir,
            &format!("missing{k}"),
            &scenario(&format!("missing = {k}"), ""),
            &[],
        );
        let by_set = run(
            dir,
            &format!("set{k}"),
            &scenario("", ""),
            &["--set", &format!("unit.wardens.missing={k}")],
        );
        for name in ["summary.csv", "distribution.csv"] {
            let expected = table(&by_alive, name);
            assert_eq!(table(&by_missing, name), expected, "missing = {k}: {name}");
            assert_eq!(table(&by_set, name), expected, "--set missing={k}: {name}");
        }
    }
}

#[test]
fn a_sweep_over_missing_is_the_sweep_over_alive_renamed() {
    // The tables differ only in the sweep column: its name, and k where alive had 10 - k.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let by_alive = run(
        dir,
        "alive",
        &scenario("", "[sweep]\n\"unit.wardens.alive\" = [9, 8, 7]\n"),
        &[],
    );
    let by_missing = run(
        dir,
        "missing",
        &scenario("", "[sweep]\n\"unit.wardens.missing\" = [1, 2, 3]\n"),
        &[],
    );
    let renamed = |csv: String| -> String {
        let mut lines = csv.lines();
        let header = lines.next().unwrap();
        let column = header
            .split(',')
            .position(|c| c == "unit.wardens.missing")
            .expect("the sweep column");
        let mut out = header.replace("unit.wardens.missing", "unit.wardens.alive") + "\n";
        for line in lines {
            let mut fields: Vec<String> = line.split(',').map(String::from).collect();
            let k: u32 = fields[column].parse().unwrap();
            fields[column] = (10 - k).to_string();
            out += &(fields.join(",") + "\n");
        }
        out
    };
    for name in ["summary.csv", "distribution.csv"] {
        assert_eq!(
            renamed(table(&by_missing, name)),
            table(&by_alive, name),
            "{name}"
        );
    }
}

#[test]
fn rally_with_no_model_missing_is_declared_and_restores_nothing() {
    // The wardens' only order is Rally, and nothing is ever missing (the raiders have no
    // orders and the wardens no weapon): each of the 3 rounds declares it, and it restores 0.
    let text = r#"
[scenario]
name = "full"
[[unit]]
id = "wardens"
side = "blue"
size = 5
missing = 0
resolve = "d6>=4"
formation = { kind = "line", x = 10.0, y = 10.0, spacing = 1.5 }
orders = [{ command = "rally" }]
[[unit]]
id = "raiders"
side = "red"
size = 1
models = [[30.0, 30.0]]
[engagement]
rounds = 3
until = "rounds"
"#;
    let plan = compile(text, false);
    let g = gather(&plan, 1000, 3, 1);
    assert_eq!(
        constant(metric(&plan, &g, "wardens.declared.rally"), "declared"),
        3
    );
    assert_eq!(
        constant(metric(&plan, &g, "wardens.restored"), "restored"),
        0
    );
    assert_eq!(constant(metric(&plan, &g, "wardens.alive"), "alive"), 5);
}
