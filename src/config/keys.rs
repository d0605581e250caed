//! The key tree of a file format, and the check of TOML text and `--set` key paths against
//! it.
//!
//! serde's `deny_unknown_fields` also rejects unknown keys, but its message cannot suggest the
//! key meant and does not name the key path. Checking the text first against the tree keeps
//! the parser's strengths (the line and column, shown under the key) and adds both; serde is
//! left with syntax and types.

use super::error::{ConfigError, Place};
use super::suggest::{clip_line, unknown_key};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use toml::Spanned;

/// A key and the shape of its value.
pub type Key = (&'static str, Shape);

/// What a key holds, as far as key checking goes.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// A value whose type serde checks; any table in it is not walked.
    Value,
    /// A table with these keys.
    Table(&'static [Key]),
    /// An array of tables with these keys, each named in key paths by its `id` key, or,
    /// without one, by the given prefix and its 1-based position (`step2`), or by its index.
    ById(&'static [Key], Option<&'static str>),
    /// An array of tables with these keys, named by index (`terrain[0]`).
    ByIndex(&'static [Key]),
    /// A section checked by its own loader, with its own suggestions.
    Any,
}

/// The key names of `keys`, in order: what is allowed in that table.
pub fn names(keys: &[Key]) -> Vec<&'static str> {
    keys.iter().map(|(k, _)| *k).collect()
}

/// Checks every key of the TOML `text` against `root`: the first unknown key is an error
/// naming its key path, line and column, with the nearest allowed key when one is near.
/// Text that does not parse passes: the caller's parser reports the syntax error.
pub fn check_text(file: &str, text: &str, root: &'static [Key]) -> Result<(), ConfigError> {
    let Ok(tree) = toml::from_str::<Node>(text) else {
        return Ok(());
    };
    let Node::Table(entries) = &tree else {
        return Ok(());
    };
    walk_table(entries, root, "").map_err(|(key, bad, allowed, span)| ConfigError::Invalid {
        file: file.to_string(),
        key,
        problem: unknown_key(&bad, &names(allowed)),
        place: Some(Box::new(Place::of(text, span))),
    })
}

/// Checks a `--set` key path against `root`: arrays of tables take an element name (an id
/// or `#N`) as the next part. Returns the problem with the first unknown key. Parts past a
/// plain value are left to the code that applies the setting.
pub fn check_path(path: &[String], root: &'static [Key]) -> Result<(), String> {
    let mut keys = root;
    let mut walked = String::new();
    let mut parts = path.iter();
    while let Some(part) = parts.next() {
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(part);
        let Some((_, shape)) = keys.iter().find(|(k, _)| k == part) else {
            return Err(format!(
                "key `{}`: {}",
                clip_line(&walked),
                unknown_key(part, &names(keys))
            ));
        };
        keys = match shape {
            Shape::Value | Shape::Any => return Ok(()),
            Shape::Table(inner) => inner,
            Shape::ById(inner, _) | Shape::ByIndex(inner) => {
                // The element's name; whether it exists is the applier's to say.
                match parts.next() {
                    Some(id) => {
                        walked.push('.');
                        walked.push_str(id);
                    }
                    None => return Ok(()),
                }
                inner
            }
        };
    }
    Ok(())
}

/// An unknown key: its path, the key, the keys allowed there, the byte span of the key.
type Unknown = (String, String, &'static [Key], std::ops::Range<usize>);

fn walk_table(
    entries: &[(Spanned<String>, Node)],
    keys: &'static [Key],
    path: &str,
) -> Result<(), Unknown> {
    for (name, value) in entries {
        let key_path = join(path, name.get_ref());
        let Some((_, shape)) = keys.iter().find(|(k, _)| k == name.get_ref()) else {
            return Err((key_path, name.get_ref().clone(), keys, name.span()));
        };
        walk_value(value, *shape, &key_path)?;
    }
    Ok(())
}

fn walk_value(value: &Node, shape: Shape, path: &str) -> Result<(), Unknown> {
    match (shape, value) {
        (Shape::Table(keys), Node::Table(entries)) => walk_table(entries, keys, path),
        (Shape::ById(keys, prefix), Node::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if let Node::Table(entries) = item {
                    let id = entries.iter().find(|(k, _)| k.get_ref() == "id").and_then(
                        |(_, v)| match v {
                            Node::Text(s) => Some(s.clone()),
                            _ => None,
                        },
                    );
                    walk_table(entries, keys, &element(path, id.as_deref(), prefix, i))?;
                }
            }
            Ok(())
        }
        (Shape::ByIndex(keys), Node::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if let Node::Table(entries) = item {
                    walk_table(entries, keys, &element(path, None, None, i))?;
                }
            }
            Ok(())
        }
        // A value of another shape is a type error, serde's to report.
        _ => Ok(()),
    }
}

/// How key paths name element `i` of a list of tables at `path`: by its `id`, or without one
/// by `prefix` and its 1-based position (`step2`), or by its index (`terrain[0]`).
fn element(path: &str, id: Option<&str>, prefix: Option<&str>, i: usize) -> String {
    match (id, prefix) {
        (Some(id), _) => join(path, id),
        (None, Some(p)) => join(path, &format!("{p}{}", i + 1)),
        (None, None) => format!("{path}[{i}]"),
    }
}

/// One step of a walk into a value, as serde takes it: a table's key or a list's element.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// Names the place `steps` lead to from the top of `tree` (a file of the format `root`) as
/// every message names keys: lists of tables by their elements' ids (or `step2`), other lists
/// by index (`models[2]`). Returns the key path and the value there, if the tree has one.
pub fn name_steps<'t>(
    root: &'static [Key],
    tree: &'t toml::Table,
    steps: &[Step],
) -> (String, Option<&'t toml::Value>) {
    let mut path = String::new();
    // The keys of the table the walk is in, when the format knows them.
    let mut shape = Some(Shape::Table(root));
    let mut table = Some(tree);
    let mut value: Option<&toml::Value> = None;
    for step in steps {
        match step {
            Step::Key(k) => {
                path = join(&path, k);
                value = table.and_then(|t| t.get(k));
                shape = match shape {
                    Some(Shape::Table(keys)) => keys.iter().find(|(n, _)| n == k).map(|(_, s)| *s),
                    _ => None,
                };
            }
            Step::Index(i) => {
                let item = value.and_then(|v| v.get(*i));
                let id = item.and_then(|v| v.get("id")).and_then(toml::Value::as_str);
                (path, shape) = match shape {
                    Some(Shape::ById(keys, prefix)) => {
                        (element(&path, id, prefix, *i), Some(Shape::Table(keys)))
                    }
                    Some(Shape::ByIndex(keys)) => {
                        (element(&path, None, None, *i), Some(Shape::Table(keys)))
                    }
                    _ => (element(&path, None, None, *i), None),
                };
                value = item;
            }
        }
        table = value.and_then(toml::Value::as_table);
    }
    (path, value)
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// TOML as a tree of keys with their spans: all that key checking needs.
#[derive(Debug)]
enum Node {
    Table(Vec<(Spanned<String>, Node)>),
    Array(Vec<Node>),
    Text(String),
    Other,
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any TOML value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
        Ok(Node::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Node, E> {
        Ok(Node::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Node, E> {
        Ok(Node::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Node, E> {
        Ok(Node::Other)
    }
    fn visit_str<E>(self, s: &str) -> Result<Node, E> {
        Ok(Node::Text(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Node, E> {
        Ok(Node::Text(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            let value = map.next_value()?;
            entries.push((key, value));
        }
        Ok(Node::Table(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WEAPON: &[Key] = &[("attacks", Shape::Value), ("range", Shape::Value)];
    const UNIT: &[Key] = &[
        ("id", Shape::Value),
        ("colour", Shape::Value),
        ("weapon", Shape::Table(WEAPON)),
    ];
    const STEP: &[Key] = &[("unit", Shape::Value), ("command", Shape::Value)];
    const ROOT: &[Key] = &[
        ("name", Shape::Value),
        ("unit", Shape::ById(UNIT, None)),
        ("step", Shape::ById(STEP, Some("step"))),
        ("free", Shape::Any),
    ];

    fn problem(text: &str) -> String {
        check_text("f.toml", text, ROOT).unwrap_err().to_string()
    }

    #[test]
    fn known_keys_pass_and_other_sections_are_left_alone() {
        let text =
            "name = 1\nfree = { anything = 2 }\n[[unit]]\nid = \"a\"\nweapon = { attacks = 1 }\n";
        assert!(check_text("f.toml", text, ROOT).is_ok());
        // Not TOML: the parser proper reports it.
        assert!(check_text("f.toml", "name = = 1", ROOT).is_ok());
        // A value of the wrong shape is serde's to report.
        assert!(check_text("f.toml", "unit = 3\n", ROOT).is_ok());
    }

    #[test]
    fn an_unknown_key_gets_its_path_line_and_a_suggestion() {
        let e = problem("name = 1\n[[unit]]\nid = \"a\"\ncolor = 2\n");
        assert!(
            e.starts_with("f.toml: line 4, column 1: key `unit.a.color`: unknown key \"color\" (did you mean \"colour\"?); allowed here: id, colour, weapon"),
            "{e}"
        );
        assert!(e.ends_with("4 | color = 2\n  | ^^^^^"), "{e}");
        let e = problem("[[unit]]\nweapon = { attacks = 1, rnage = 2 }\n");
        assert!(
            e.contains("line 2, column 25: key `unit[0].weapon.rnage`")
                && e.contains("did you mean \"range\""),
            "{e}"
        );
        let e = problem("[[step]]\nunit = \"a\"\n[[step]]\ncommnd = \"x\"\n");
        assert!(
            e.contains("key `step.step2.commnd`") && e.contains("\"command\""),
            "{e}"
        );
        let e = problem("nmae = 1\n");
        assert!(
            e.contains("key `nmae`") && e.contains("did you mean \"name\""),
            "{e}"
        );
    }

    #[test]
    fn set_paths_skip_element_names_and_stop_at_values() {
        let path = |p: &str| p.split('.').map(String::from).collect::<Vec<_>>();
        assert!(check_path(&path("unit.a.weapon.range"), ROOT).is_ok());
        assert!(check_path(&path("unit.anything.colour"), ROOT).is_ok());
        assert!(check_path(&path("free.x.y"), ROOT).is_ok());
        assert!(check_path(&path("name.x"), ROOT).is_ok());
        assert_eq!(
            check_path(&path("unit.a.weapon.atacks"), ROOT).unwrap_err(),
            "key `unit.a.weapon.atacks`: unknown key \"atacks\" (did you mean \"attacks\"?); allowed here: attacks, range"
        );
        assert!(check_path(&path("nme"), ROOT)
            .unwrap_err()
            .contains("did you mean \"name\""));
    }
}
