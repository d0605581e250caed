//! The house keeps the order it claims, in the spirit of rust-analyzer's tidy checks:
//!
//! - every `crate::` path in `src/` names a module in a layer below the file's own, as the
//!   numbered list in `src/lib.rs` orders them (a module may use its own insides freely);
//! - every top-level module is in that list once, and the list names no module that is gone;
//! - no file of `src/` imports, through any chain of `crate::`, `super::` or `self::` paths,
//!   a file that imports it back.
//!
//! Paths are read from the source text with comments and string literals removed, so a path
//! in a doc comment or a message does not count, and one in code always does.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The layers of `src/lib.rs`, lowest first: each a list of module names.
fn layers(lib: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in lib.lines() {
        let Some(rest) = line.strip_prefix("//! ") else {
            continue;
        };
        let Some((number, body)) = rest.split_once(". ") else {
            continue;
        };
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let head = body.split(':').next().unwrap_or("");
        let names: Vec<String> = head
            .split("[`")
            .skip(1)
            .filter_map(|s| s.split_once("`]").map(|(n, _)| n.to_string()))
            .collect();
        assert_eq!(
            number.parse::<usize>().unwrap(),
            out.len() + 1,
            "src/lib.rs: layers are numbered 1, 2, ... in order: {line}"
        );
        assert!(
            !names.is_empty(),
            "src/lib.rs: a layer names no module: {line}"
        );
        out.push(names);
    }
    out
}

/// The text of a Rust file with comments, string and character literals blanked out (their
/// length kept, so nothing else moves).
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(if b[i] == b'\n' { b'\n' } else { b' ' });
                    i += 1;
                }
            }
        } else if b[i] == b'r' && (b[i..].starts_with(b"r\"") || b[i..].starts_with(b"r#")) {
            // A raw string: r"..." or r#"..."#, any number of hashes.
            let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
            if b.get(i + 1 + hashes) != Some(&b'"') || (i > 0 && is_ident(b[i - 1])) {
                out.push(b[i]);
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            let end = (i + 2 + hashes..b.len())
                .find(|&j| b[j..].starts_with(&close))
                .map_or(b.len(), |j| j + close.len());
            out.extend(b[i..end].iter().map(|&c| if c == b'\n' { c } else { b' ' }));
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            out.extend(b[i..end].iter().map(|&c| if c == b'\n' { c } else { b' ' }));
            i = end;
        } else if b[i] == b'\'' {
            // A character literal ('a', '\n', '\''), not a lifetime ('a without a closing quote).
            let end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..]
                    .iter()
                    .position(|&c| c == b'\'')
                    .map(|p| i + 2 + p + 1)
            } else if b.get(i + 2) == Some(&b'\'') {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    out.extend(std::iter::repeat_n(b' ', end - i));
                    i = end;
                }
                None => {
                    out.push(b[i]);
                    i += 1;
                }
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("blanking keeps UTF-8 (only ASCII is replaced)")
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Every Rust file under `dir`, as its module path: `src/rules/shoot/mod.rs` is
/// `["rules", "shoot"]`, `src/lib.rs` is `[]`.
fn modules(dir: &Path, prefix: &[String], out: &mut BTreeMap<Vec<String>, PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            let mut p = prefix.to_vec();
            p.push(name);
            modules(&path, &p, out);
        } else if let Some(stem) = name.strip_suffix(".rs") {
            let mut p = prefix.to_vec();
            if !matches!(stem, "mod" | "lib" | "main") {
                p.push(stem.to_string());
            }
            out.insert(p, path);
        }
    }
}

/// The module paths a file's code names, resolved to the files that exist: the longest
/// prefix of each path that is a file's module.
fn imports(
    module: &[String],
    code: &str,
    files: &BTreeMap<Vec<String>, PathBuf>,
) -> BTreeSet<Vec<String>> {
    let b = code.as_bytes();
    let mut found = BTreeSet::new();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(p) = code[from..].find(start) {
            let at = from + p;
            from = at + start.len();
            if at > 0 && (is_ident(b[at - 1]) || b[at - 1] == b':') {
                continue;
            }
            // The whole path, then its parts.
            let mut end = at;
            while end < b.len() && (is_ident(b[end]) || b[end] == b':') {
                end += 1;
            }
            let head = &code[at..end];
            for tail in group(code, end) {
                let path = format!("{head}{tail}");
                let parts: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
                resolve(module, &parts, files, &mut found);
            }
        }
    }
    found
}

/// The paths a `use` group at `at` adds to its head: `{a, b::c, self}` gives `a`, `b::c` and
/// nothing; no group gives one empty tail. Nested groups are read through to their heads.
fn group(code: &str, at: usize) -> Vec<String> {
    let b = code.as_bytes();
    if b.get(at) != Some(&b'{') {
        return vec![String::new()];
    }
    let mut depth = 0;
    let mut end = at;
    for (i, &c) in b.iter().enumerate().skip(at) {
        match c {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            end = i;
            break;
        }
    }
    let inner = &code[at + 1..end];
    let mut items = Vec::new();
    let mut depth = 0;
    let mut item = String::new();
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item);
    items
        .iter()
        .map(|i| {
            let i = i.trim();
            let len = i.bytes().take_while(|&c| is_ident(c) || c == b':').count();
            i[..len].trim_end_matches(':').to_string()
        })
        .filter(|i| !i.is_empty() && i != "self")
        .collect()
}

/// Resolves one path's parts (from `crate`, `super` or `self`) against the files.
fn resolve(
    module: &[String],
    parts: &[&str],
    files: &BTreeMap<Vec<String>, PathBuf>,
    found: &mut BTreeSet<Vec<String>>,
) {
    let path: Vec<String> = match parts[0] {
        "crate" => parts[1..].iter().map(|s| s.to_string()).collect(),
        _ => {
            // `super` and `self` are relative to the file's module; `mod.rs` and the file of
            // a leaf module both stand for the module itself.
            let mut m = module.to_vec();
            let mut rest = parts;
            while let Some((&first, tail)) = rest.split_first() {
                match first {
                    "super" => {
                        m.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = tail;
            }
            m.extend(rest.iter().map(|s| s.to_string()));
            m
        }
    };
    found_longest(&path, files, module, found);
}

/// Adds the file `path` lies in: its longest prefix that is a file's module, unless that is
/// `module` itself or one of its insides.
fn found_longest(
    path: &[String],
    files: &BTreeMap<Vec<String>, PathBuf>,
    module: &[String],
    found: &mut BTreeSet<Vec<String>>,
) {
    for len in (1..=path.len()).rev() {
        let prefix = &path[..len];
        if files.contains_key(prefix) {
            // A file's own submodules and the file itself are its insides, not imports.
            if prefix != module && !prefix.starts_with(module) {
                found.insert(prefix.to_vec());
            }
            return;
        }
    }
}

struct House {
    files: BTreeMap<Vec<String>, PathBuf>,
    edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
}

fn house() -> House {
    let mut files = BTreeMap::new();
    modules(&src(), &[], &mut files);
    let mut edges = BTreeMap::new();
    for (module, path) in &files {
        if module.is_empty() || module == &["main".to_string()] {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        // A file's unit tests sit at its end and may reach anywhere; they are not the house.
        let text = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        let code = code_only(text);
        edges.insert(module.clone(), imports(module, &code, &files));
    }
    House { files, edges }
}

#[test]
fn every_crate_import_runs_down_the_layers_of_lib_rs() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let layers = layers(&lib);
    let mut layer_of: BTreeMap<String, usize> = BTreeMap::new();
    for (i, names) in layers.iter().enumerate() {
        for n in names {
            assert!(
                layer_of.insert(n.clone(), i + 1).is_none(),
                "src/lib.rs lists {n} in two layers"
            );
        }
    }
    let declared: BTreeSet<String> = code_only(&lib)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';').to_string())
        .collect();
    let listed: BTreeSet<String> = layer_of.keys().cloned().collect();
    assert_eq!(
        declared, listed,
        "the modules src/lib.rs declares and those its layer list names differ"
    );
    let house = house();
    let mut wrong = Vec::new();
    for (module, imports) in &house.edges {
        let own = &module[0];
        let Some(&mine) = layer_of.get(own) else {
            continue;
        };
        for import in imports {
            let theirs = layer_of[&import[0]];
            if &import[0] != own && theirs >= mine {
                wrong.push(format!(
                    "{} (layer {mine}) imports {} (layer {theirs})",
                    house.files[module].display(),
                    import.join("::")
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that do not run down:\n{}",
        wrong.join("\n")
    );
    // The check above saw real imports: the rules read the scenario, the app the engine.
    let rules_reads_scenario = house
        .edges
        .iter()
        .any(|(m, i)| m[0] == "rules" && i.iter().any(|x| x[0] == "scenario"));
    assert!(
        rules_reads_scenario,
        "no import of the scenario by the rules was seen"
    );
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    let house = house();
    // Tarjan's strongly connected components: any component of more than one file is a circle.
    struct Walk<'h> {
        edges: &'h BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'h Vec<String>, usize>,
        low: BTreeMap<&'h Vec<String>, usize>,
        stack: Vec<&'h Vec<String>>,
        on_stack: BTreeSet<&'h Vec<String>>,
        circles: Vec<Vec<String>>,
    }
    impl<'h> Walk<'h> {
        fn visit(&mut self, v: &'h Vec<String>) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                if !self.edges.contains_key(w) {
                    continue;
                }
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.join("::"));
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.circles.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        edges: &house.edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        circles: Vec::new(),
    };
    for v in house.edges.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    assert!(
        walk.circles.is_empty(),
        "files that import each other: {:?}",
        walk.circles
    );
    assert!(
        house.edges.len() > 50,
        "too few files read: {}",
        house.edges.len()
    );
}

/// The reader itself: paths in comments and strings do not count, `super::` climbs from the
/// file's module, and a path to an item resolves to the file that holds it.
#[test]
fn the_reader_finds_imports_in_code_only() {
    let text = "use crate::a::b::Thing; // crate::c::d\nlet s = \"crate::c\";\nsuper::e::f();\n\
                use super::{self, y::{z, w}, e};\n\
                /* crate::c */ let c = '\\''; let r = r#\"crate::c\"#; fn x<'a>(y: &'a str) {}";
    let code = code_only(text);
    assert_eq!(code.len(), text.len());
    let mut files = BTreeMap::new();
    for m in [
        vec!["a"],
        vec!["a", "b"],
        vec!["c"],
        vec!["x", "e"],
        vec!["x", "y"],
    ] {
        files.insert(
            m.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            PathBuf::new(),
        );
    }
    let me = vec!["x".to_string(), "y".to_string()];
    let found = imports(&me, &code, &files);
    let found: Vec<String> = found.iter().map(|m| m.join("::")).collect();
    assert_eq!(found, ["a::b", "x::e"]);
}
