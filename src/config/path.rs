//! Key paths and the typed reads of TOML walked by hand: each read that fails names the key
//! path, quotes the value found and says what was expected.

use super::suggest::{quoted, unknown_key, unknown_value};
use super::ConfigError;
use toml::Value;

type Result<T> = std::result::Result<T, ConfigError>;

/// A place in a file, for messages: the file and a key path such as
/// `cards.players.A.plays[0][1]` (tables by key, arrays by `[index]`, elements with an id by
/// their id, as `--set` addresses them).
#[derive(Debug, Clone, PartialEq)]
pub struct At {
    pub file: String,
    pub key: String,
}

impl At {
    /// The top of `file`; its children's paths start with their own key.
    pub fn root(file: &str) -> At {
        At {
            file: file.to_string(),
            key: String::new(),
        }
    }

    /// The key `k` of the table here.
    pub fn child(&self, k: &str) -> At {
        At {
            file: self.file.clone(),
            key: if self.key.is_empty() {
                k.to_string()
            } else {
                format!("{}.{k}", self.key)
            },
        }
    }

    /// Element `i` of the array here.
    pub fn index(&self, i: usize) -> At {
        At {
            file: self.file.clone(),
            key: format!("{}[{i}]", self.key),
        }
    }

    /// The key here has a value that is not allowed, for the reason `problem` (which quotes
    /// the value and says what is allowed).
    pub fn err(&self, problem: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            file: self.file.clone(),
            key: self.key.clone(),
            problem: problem.into(),
            place: None,
        }
    }

    /// The value here is of the wrong type: `expected <what>, found <value>`.
    pub fn mismatch(&self, what: &str, found: &Value) -> ConfigError {
        self.err(expected(what, Some(found)))
    }
}

/// `expected <what>, found <the value>` (just `expected <what>` when the value is unknown):
/// how every message says a value is of the wrong type.
pub fn expected(what: &str, found: Option<&Value>) -> String {
    match found {
        Some(v) => format!("expected {what}, found {}", shown(v)),
        None => format!("expected {what}"),
    }
}

/// The value as a message quotes it: `the string "two"`, `the integer 3`, `a table`.
pub fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string {}", quoted(s)),
        Value::Integer(i) => format!("the integer {i}"),
        Value::Float(f) => format!("the number {f}"),
        Value::Boolean(b) => format!("the boolean {b}"),
        Value::Datetime(d) => format!("the date {d}"),
        Value::Array(_) => "a list".into(),
        Value::Table(_) => "a table".into(),
    }
}

/// The table at `at`; `what` describes what was expected, for the message.
pub fn table<'v>(at: &At, v: &'v Value, what: &str) -> Result<&'v toml::Table> {
    v.as_table().ok_or_else(|| at.mismatch(what, v))
}

pub fn array<'v>(at: &At, v: &'v Value, what: &str) -> Result<&'v [Value]> {
    v.as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| at.mismatch(what, v))
}

pub fn string<'v>(at: &At, v: &'v Value, what: &str) -> Result<&'v str> {
    v.as_str().ok_or_else(|| at.mismatch(what, v))
}

/// A whole number from `min` to `max`.
pub fn integer(at: &At, v: &Value, min: i64, max: i64) -> Result<i64> {
    match v.as_integer() {
        Some(i) if (min..=max).contains(&i) => Ok(i),
        _ => Err(at.err(format!(
            "{} must be a whole number from {min} to {max}",
            match v {
                Value::Integer(i) => i.to_string(),
                other => shown(other),
            }
        ))),
    }
}

pub fn boolean(at: &At, v: &Value) -> Result<bool> {
    v.as_bool().ok_or_else(|| at.mismatch("true or false", v))
}

/// Rejects the first key of `t` outside `allowed`, suggesting the allowed key it is nearest.
pub fn known_keys(at: &At, t: &toml::Table, allowed: &[&str]) -> Result<()> {
    match t.keys().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(k) => Err(at.child(k).err(unknown_key(k, allowed))),
    }
}

/// One of `names`, by name; `what` names the vocabulary (`value`, `zone`, ...).
pub fn one_of<T: Copy>(at: &At, v: &Value, what: &str, names: &[(T, &str)]) -> Result<T> {
    let words: Vec<&str> = names.iter().map(|(_, n)| *n).collect();
    let s = string(
        at,
        v,
        &format!("one of {}", super::suggest::quoted_list(&words)),
    )?;
    names
        .iter()
        .find(|(_, n)| *n == s)
        .map(|(t, _)| *t)
        .ok_or_else(|| at.err(unknown_value(what, s, &words)))
}

/// 1 to [`super::limits::MAX_NAME`] letters, digits, `_` and `-`: safe in key paths, metric
/// names and file names.
pub fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= super::limits::MAX_NAME
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> Value {
        toml::from_str::<toml::Table>(&format!("v = {text}")).unwrap()["v"].clone()
    }

    #[test]
    fn reads_name_the_path_the_value_and_what_was_expected() {
        let at = At::root("f.toml").child("cards").child("card").index(2);
        assert_eq!(at.key, "cards.card[2]");
        let e = integer(&at.child("value"), &value("1.5"), 0, 9).unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.toml: key `cards.card[2].value`: the number 1.5 must be a whole number from 0 to 9"
        );
        let e = string(&at, &value("[1]"), "a card id").unwrap_err();
        assert!(
            e.to_string().ends_with("expected a card id, found a list"),
            "{e}"
        );
        let e = boolean(&at, &value("\"yes\"")).unwrap_err();
        assert!(e.to_string().ends_with("found the string \"yes\""), "{e}");
    }

    #[test]
    fn unknown_keys_and_names_get_suggestions() {
        let at = At::root("f.toml").child("t");
        let t = toml::from_str::<toml::Table>("kinds = 1\ncnt = 2").unwrap();
        let e = known_keys(&at, &t, &["kinds", "count"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.toml: key `t.cnt`: unknown key \"cnt\" (did you mean \"count\"?); allowed here: kinds, count"
        );
        let e = one_of(
            &at,
            &value("\"frist\""),
            "choice",
            &[(1, "first"), (2, "best")],
        )
        .unwrap_err();
        assert!(
            e.to_string().ends_with(
                "unknown choice \"frist\" (did you mean \"first\"?); allowed: \"first\", \"best\""
            ),
            "{e}"
        );
    }

    #[test]
    fn identifiers_are_letters_digits_underscores_and_dashes() {
        assert!(is_identifier("a-b_9"));
        assert!(!is_identifier(""));
        assert!(!is_identifier("a b"));
        assert!(!is_identifier("a.b"));
        assert!(is_identifier(&"a".repeat(64)));
        assert!(!is_identifier(&"a".repeat(65)));
    }
}
