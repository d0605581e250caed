//! Reading a format's raw serde structs, with serde's type errors in the words of every other
//! configuration message: the key path, what is allowed and the value found.
//!
//! serde says `invalid type: string "four", expected i64`: no key, and a Rust type for what is
//! allowed. Deserializing through `serde_path_to_error` records the path serde walked to the
//! bad value; [`super::keys::name_steps`] names it as `--set` and the other messages do
//! (`unit.wardens.alive`), the value there is quoted as [`super::shown`] quotes values, and
//! serde's type names become words ("a whole number", "text"). A file's unknown keys never get
//! here (its key tree is checked first, with suggestions); those inside a value given whole
//! (`--set`, a sweep point, a choice's `set`) do, and are worded the same way.

use super::keys::{name_steps, Step};
use super::suggest::unknown_key;
use super::{ConfigError, Key, Place};
use serde::de::DeserializeOwned;
use serde_path_to_error::Segment;

/// Deserializes the TOML `text` of `file` (already parsed as `tree`, so its syntax is good),
/// a file of the format `root`. A value of the wrong type is an error naming its line, key
/// path, what is allowed and the value found.
pub fn from_text<T: DeserializeOwned>(
    file: &str,
    text: &str,
    tree: &toml::Table,
    root: &'static [Key],
) -> Result<T, ConfigError> {
    serde_path_to_error::deserialize(toml::Deserializer::new(text)).map_err(|e| {
        let (key, problem) = explain(root, tree, &e);
        ConfigError::Invalid {
            file: file.to_string(),
            key,
            problem,
            place: e.inner().span().map(|span| Box::new(Place::of(text, span))),
        }
    })
}

/// Deserializes a TOML tree (a file with overrides applied) of the format `root`; a value of
/// the wrong type is a problem naming the key path, what is allowed and the value found
/// (`key `unit.wardens.alive`: expected a whole number, found the string "four"`).
pub fn from_tree<T: DeserializeOwned>(
    tree: &toml::Table,
    root: &'static [Key],
) -> Result<T, String> {
    serde_path_to_error::deserialize(toml::Value::Table(tree.clone())).map_err(|e| {
        let (key, problem) = explain(root, tree, &e);
        format!("key `{key}`: {problem}")
    })
}

/// The key path of a deserialization error and its problem in words.
fn explain(
    root: &'static [Key],
    tree: &toml::Table,
    e: &serde_path_to_error::Error<toml::de::Error>,
) -> (String, String) {
    let mut steps: Vec<Step> = e
        .path()
        .iter()
        .filter_map(|s| match s {
            Segment::Map { key } => Some(Step::Key(key.clone())),
            Segment::Seq { index } => Some(Step::Index(*index)),
            Segment::Enum { .. } | Segment::Unknown => None,
        })
        .collect();
    let message = e.inner().message();
    // serde names a missing key after the path of the table that lacks it.
    if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|m| m.strip_suffix('`'))
    {
        steps.push(Step::Key(field.to_string()));
        let (key, _) = name_steps(root, tree, &steps);
        return (key, "missing; this key is required here".into());
    }
    // A value given whole (by `--set`, a sweep point or a choice's `set`) is not walked key by
    // key beforehand: serde meets its unknown keys, and names the bad key in the path.
    if let Some(rest) = message.strip_prefix("unknown field `") {
        if let Some((bad, allowed)) = rest.split_once('`') {
            let allowed: Vec<&str> = allowed.split('`').skip(1).step_by(2).collect();
            let (key, _) = name_steps(root, tree, &steps);
            return (key, unknown_key(bad, &allowed));
        }
    }
    let (key, found) = name_steps(root, tree, &steps);
    (key, problem(message, found))
}

/// `expected <what is allowed>, found <the value>` from serde's `invalid type: ..., expected
/// <type>` (or an `expected ...` of the format's own); any other message as it is.
fn problem(message: &str, found: Option<&toml::Value>) -> String {
    let expected = match message.strip_prefix("expected ") {
        Some(what) => Some(what),
        None => message
            .rfind(", expected ")
            .map(|at| &message[at + ", expected ".len()..]),
    };
    match expected {
        Some(what) => super::path::expected(in_words(what), found),
        None => message.to_string(),
    }
}

/// What serde expected, in words: its type names and phrases as a user of the file says them.
fn in_words(expected: &str) -> &str {
    match expected {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" => "a whole number",
        "f32" | "f64" => "a number",
        "a string" | "a borrowed string" | "a character" => "text",
        "a boolean" => "true or false",
        "a sequence" => "a list",
        "a map" => "a table",
        s if s.starts_with("struct ") => "a table",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Shape::{ById, Table, Value};
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct File {
        unit: Vec<Unit>,
        #[serde(default)]
        top: Option<Top>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Unit {
        id: String,
        size: i64,
        base: Option<f64>,
        flag: Option<bool>,
        tags: Option<Vec<String>>,
        at: Option<Vec<Vec<f64>>>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Top {
        inner: Option<Inner>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        name: String,
        size: Option<i64>,
    }

    const UNIT: &[Key] = &[
        ("id", Value),
        ("size", Value),
        ("base", Value),
        ("flag", Value),
        ("tags", Value),
        ("at", Value),
    ];
    const ROOT: &[Key] = &[
        ("unit", ById(UNIT, None)),
        (
            "top",
            Table(&[("inner", Table(&[("name", Value), ("size", Value)]))]),
        ),
    ];

    fn error(text: &str) -> String {
        let tree: toml::Table = toml::from_str(text).unwrap();
        match from_text::<File>("f.toml", text, &tree, ROOT) {
            Ok(f) => panic!("expected an error, read {f:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_wrong_type_names_the_key_path_what_is_allowed_and_the_value() {
        let text = "[[unit]]\nid = \"a\"\nsize = 1\n[[unit]]\nid = \"wardens\"\nsize = \"four\"\n";
        assert_eq!(
            error(text),
            "f.toml: line 6, column 8: key `unit.wardens.size`: expected a whole number, \
             found the string \"four\"\n  |\n6 | size = \"four\"\n  |        ^^^^^^"
        );
        let first = |rest: &str| error(&format!("[[unit]]\nid = \"w\"\nsize = 2\n{rest}\n"));
        // One line per type serde names: each in words.
        for (rest, key, what, found) in [
            (
                "base = \"wide\"",
                "unit.w.base",
                "a number",
                "the string \"wide\"",
            ),
            ("flag = 1", "unit.w.flag", "true or false", "the integer 1"),
            ("tags = \"x\"", "unit.w.tags", "a list", "the string \"x\""),
            ("tags = [1]", "unit.w.tags[0]", "text", "the integer 1"),
            (
                "at = [[1.0, true]]",
                "unit.w.at[0][1]",
                "a number",
                "the boolean true",
            ),
        ] {
            let e = first(rest);
            assert!(
                e.contains(&format!("key `{key}`: expected {what}, found {found}\n")),
                "{rest}: {e}"
            );
        }
        let e = error("unit = []\ntop = { inner = 3 }\n");
        assert!(
            e.contains("key `top.inner`: expected a table, found the integer 3"),
            "{e}"
        );
        let e = error("unit = []\n[top.inner]\n");
        assert!(
            e.contains("key `top.inner.name`: missing; this key is required here"),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_key_inside_a_value_given_whole_is_called_unknown() {
        // As `--set top.inner={ nmae = "x" }` would give it: the value's keys were not walked.
        let tree: toml::Table =
            toml::from_str("unit = []\ntop = { inner = { nmae = \"x\" } }\n").unwrap();
        let e = from_tree::<File>(&tree, ROOT).unwrap_err();
        assert_eq!(
            e,
            "key `top.inner.nmae`: unknown key \"nmae\" (did you mean \"name\"?); allowed here: \
             name, size"
        );
    }

    #[test]
    fn a_tree_names_the_key_of_an_override() {
        let tree: toml::Table = toml::from_str("[[unit]]\nid = \"w\"\nsize = 1.5\n").unwrap();
        let e = from_tree::<File>(&tree, ROOT).unwrap_err();
        assert_eq!(
            e,
            "key `unit.w.size`: expected a whole number, found the number 1.5"
        );
    }
}
