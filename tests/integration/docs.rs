//! The documentation cannot drift from the program:
//!
//! - every key the scenario loader accepts (asked of the loader itself, through the "allowed
//!   here" lists its error messages give) is documented in docs/scenario-keys.md;
//! - every whole scenario file shown in README.md or docs/*.md (a ```toml block with a
//!   `[scenario]` table) passes `rollcall check`, and every other ```toml block is valid TOML;
//! - every command line shown as `$ rollcall ...` in a fenced block (or `$ cat` / `$ grep` of a
//!   file one of them wrote) is run through the shell,
//!   as a reader would paste it, in a scratch folder holding the shipped configs; each line
//!   shown under it must be a line the command printed or a line of a file it wrote, so the
//!   numbers the docs quote are the numbers the program prints. A command that leaves a stray
//!   file (an unquoted `>` in `--set`, say) fails.

use rollcall::scenario::{self, parse_setting};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every docs/*.md, with their text.
fn documents() -> Vec<(PathBuf, String)> {
    let mut files = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    assert!(!docs.is_empty(), "docs/ holds no .md file");
    files.extend(docs);
    files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).unwrap();
            (f, text)
        })
        .collect()
}

/// A fenced block: its info string, first line number (1-based) and lines.
struct Block {
    info: String,
    line: usize,
    lines: Vec<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match (&mut open, trimmed.strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Block {
                    info: info.trim().to_string(),
                    line: i + 2,
                    lines: Vec::new(),
                })
            }
            (Some(_), Some(_)) => out.push(open.take().unwrap()),
            (Some(b), None) => b.lines.push(line.to_string()),
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "an unclosed ``` block");
    out
}

/// The "allowed here" list of the loader's error for a setting of the unknown key `zzqx`
/// under `path` (a key path, `.e.` standing for an element of a list), if it gives one.
fn allowed(path: &str, text: &str) -> Option<Vec<String>> {
    let setting = if path.is_empty() {
        "zzqx=1".to_string()
    } else {
        format!("{path}.zzqx=1")
    };
    let setting = parse_setting(&setting).unwrap();
    let e = scenario::parse(text, "probe.toml", &[setting])
        .err()?
        .to_string();
    let (_, list) = e.split_once("unknown key \"zzqx\"; allowed here: ")?;
    Some(list.split(", ").map(|k| k.trim().to_string()).collect())
}

const BATTLE: &str = "[scenario]\nname = \"probe\"\n[[unit]]\nid = \"u\"\nside = \"a\"\nsize = 1\nresolve = \"4+\"\nmodels = [[5.0, 5.0]]\n[[step]]\nunit = \"u\"\ncommand = \"rally\"\n";
const CARDS: &str = "[scenario]\nname = \"probe\"\n[cards]\ncards_per_turn = 1\nturns = 1\n[[cards.card]]\nid = \"c\"\nkind = \"action\"\n[cards.players.A]\nplays = [[\"c\"]]\n[cards.players.B]\nplays = [[\"c\"]]\n";

/// Walks the key tree below `real` (documented as `doc`), asking the loader at each level.
fn walk(real: &str, doc: &str, text: &str, out: &mut BTreeSet<String>) {
    let Some(keys) = allowed(real, text) else {
        return;
    };
    for key in keys {
        let join = |a: &str| {
            if a.is_empty() {
                key.clone()
            } else {
                format!("{a}.{key}")
            }
        };
        let (real, doc) = (join(real), join(doc));
        out.insert(doc.clone());
        if allowed(&real, text).is_some() {
            walk(&real, &doc, text, out);
        } else if allowed(&format!("{real}.e"), text).is_some() {
            walk(&format!("{real}.e"), &doc, text, out);
        }
    }
}

/// Every key path a scenario file may hold, as the loader reports them, lists' elements
/// left out of the path (`unit.weapon.attacks`, `choice.steps.unit`).
fn accepted_keys() -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    walk("", "", BATTLE, &mut keys);
    // Sections with their own loaders: players, and effects by type.
    for p in ["A", "B"] {
        for k in allowed(&format!("cards.players.{p}"), CARDS).expect("player keys") {
            keys.insert(format!("cards.players.<P>.{k}"));
        }
    }
    for ty in ["cancel", "call", "clone"] {
        let setting = parse_setting(&format!(
            "cards.card.c.effects=[{{ type = \"{ty}\", zzqx = 1 }}]"
        ))
        .unwrap();
        let e = scenario::parse(CARDS, "probe.toml", &[setting])
            .unwrap_err()
            .to_string();
        let (_, list) = e
            .split_once("unknown key \"zzqx\"; allowed here: ")
            .unwrap_or_else(|| panic!("effect {ty}: {e}"));
        for k in list.split(", ") {
            keys.insert(format!("cards.card.effects.{k} ({ty})"));
        }
    }
    keys
}

#[test]
fn every_key_the_loader_accepts_is_documented() {
    let keys = accepted_keys();
    // The walk reached the nested levels, or this test would check little.
    for deep in [
        "unit.weapon.attacks",
        "choice.steps.round",
        "battlefield.terrain.x",
        "unit.orders.when",
        "options.rally.chain",
        "cards.card.kind",
    ] {
        assert!(keys.contains(deep), "{deep} not found in {keys:?}");
    }
    let doc = std::fs::read_to_string(root().join("docs/scenario-keys.md")).unwrap();
    // Tables are documented by their keys; leaves must each have their row.
    let leaves: Vec<&String> = keys
        .iter()
        .filter(|k| !keys.iter().any(|o| o.starts_with(&format!("{k}."))))
        .collect();
    let missing: Vec<&&String> = leaves
        .iter()
        .filter(|k| {
            let (key, ty) = match k.split_once(" (") {
                Some((key, ty)) => (key.to_string(), Some(ty.trim_end_matches(')'))),
                None => (k.to_string(), None),
            };
            let documented = match ty {
                // Effect keys are documented per type: `kinds` under "cancel", and so on.
                Some(ty) => doc.lines().any(|l| {
                    l.contains(&format!(
                        "`{}`",
                        key.trim_start_matches("cards.card.effects.")
                    )) && l.contains(&format!("`{ty}`"))
                }),
                None => doc.contains(&format!("`{key}`")),
            };
            !documented
        })
        .collect();
    assert!(
        missing.is_empty(),
        "keys the loader accepts but docs/scenario-keys.md does not document: {missing:?}"
    );
    // And the other way: a row's key (first cell) is one the loader accepts.
    let rows: Vec<&str> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once('`'))
        .filter(|(_, rest)| rest.trim_start().starts_with('|'))
        .map(|(key, _)| key)
        .collect();
    assert!(rows.len() > 50, "only {} key rows found", rows.len());
    let unknown: Vec<&&str> = rows.iter().filter(|k| !keys.contains(**k)).collect();
    assert!(
        unknown.is_empty(),
        "docs/scenario-keys.md documents keys the loader refuses: {unknown:?}"
    );
}

/// A scratch folder for running documented commands: the shipped configs, no results.
fn scratch() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&root().join("configs"), &tmp.path().join("configs"));
    tmp
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// Every line of every file under `dir`, except the configs.
fn written_lines(dir: &Path, out: &mut BTreeSet<String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.ends_with("configs") {
            continue;
        }
        if p.is_dir() {
            written_lines(&p, out);
        } else if let Ok(text) = std::fs::read_to_string(&p) {
            out.extend(text.lines().map(str::to_string));
        }
    }
}

#[test]
fn documented_scenario_files_pass_check() {
    let mut checked = 0;
    for (file, text) in documents() {
        for b in blocks(&text).iter().filter(|b| b.info == "toml") {
            let body = b.lines.join("\n");
            let at = format!("{}:{}", file.display(), b.line);
            let whole = b.lines.iter().any(|l| l.trim() == "[scenario]");
            if !whole {
                // A fragment: it must at least be TOML.
                if let Err(e) = body.parse::<toml::Table>() {
                    panic!("{at}: not valid TOML: {e}");
                }
                continue;
            }
            let tmp = scratch();
            let path = tmp.path().join("configs/shown.toml");
            std::fs::write(&path, &body).unwrap();
            let out = Command::new(env!("CARGO_BIN_EXE_rollcall"))
                .arg("check")
                .arg(&path)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{at}: rollcall check refuses the file shown: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 3,
        "only {checked} whole scenario files found in the docs"
    );
}

#[test]
fn documented_commands_print_what_the_docs_say() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_rollcall"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for (file, text) in documents() {
        for b in blocks(&text) {
            let tmp = scratch();
            let mut i = 0;
            while i < b.lines.len() {
                let Some(cmd) = b.lines[i].strip_prefix("$ ") else {
                    i += 1;
                    continue;
                };
                let at = format!("{}:{}", file.display(), b.line + i);
                // A trailing `# comment` is the reader's, not the shell's.
                let cmd = cmd.split("  #").next().unwrap().trim();
                // `cat` or `grep` shows a file an earlier command of the block wrote.
                assert!(
                    ["rollcall ", "cat ", "grep "]
                        .iter()
                        .any(|c| cmd.starts_with(c)),
                    "{at}: {cmd}"
                );
                let expected: Vec<&str> = b.lines[i + 1..]
                    .iter()
                    .take_while(|l| !l.starts_with("$ "))
                    .map(|l| l.as_str())
                    .filter(|l| !l.trim().is_empty() && l.trim() != "...")
                    .collect();
                i += 1 + expected.len();
                let out = Command::new("sh")
                    .arg("-c")
                    .arg(cmd)
                    .current_dir(tmp.path())
                    .env("PATH", &path)
                    .output()
                    .unwrap();
                let fails = expected.iter().any(|l| l.starts_with("error:"));
                assert_eq!(
                    out.status.success(),
                    !fails,
                    "{at}: `{cmd}` exited {:?}: {}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr)
                );
                let mut lines: BTreeSet<String> = BTreeSet::new();
                for stream in [&out.stdout, &out.stderr] {
                    lines.extend(String::from_utf8_lossy(stream).lines().map(str::to_string));
                }
                written_lines(tmp.path(), &mut lines);
                for want in &expected {
                    assert!(
                        lines.contains(*want),
                        "{at}: `{cmd}` printed and wrote no line\n  {want}\n(the docs must show what the program prints; run the command and copy its line)"
                    );
                }
                let stray: Vec<String> = std::fs::read_dir(tmp.path())
                    .unwrap()
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .filter(|n| n != "configs" && n != "results")
                    .collect();
                assert!(stray.is_empty(), "{at}: `{cmd}` left stray files {stray:?}");
                ran += 1;
            }
        }
    }
    assert!(ran >= 3, "only {ran} documented commands found");
}
