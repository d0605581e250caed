//! Every key a scenario file may have, so that a misspelt key is reported with its line and
//! the key it was probably meant to be, before serde reads the file into [`super::raw`].
//!
//! The tree mirrors the raw structs field for field; a test checks it against serde's own
//! list of fields for each struct, so the two cannot drift apart.

use super::ScenarioError;
use crate::config::keys::{check_path, check_text};
use crate::config::Key;
use crate::config::Shape::{Any, ById, ByIndex, Table, Value};

const META: &[Key] = &[("name", Value), ("trials", Value), ("seed", Value)];

const OPTIONS: &[Key] = &[
    ("rally", Table(&[("chain", Value)])),
    ("spill", Value),
    ("defend", Table(&[("bonus", Value)])),
    ("covering_fire", Table(&[("hit_modifier", Value)])),
    ("masters", Table(&[("retarget", Value)])),
    ("listeners", Table(&[("persist", Value)])),
];

const RECT: &[Key] = &[
    ("x", Value),
    ("y", Value),
    ("width", Value),
    ("height", Value),
];

const BATTLEFIELD: &[Key] = &[
    ("width", Value),
    ("height", Value),
    ("terrain", ByIndex(RECT)),
];

const WEAPON: &[Key] = &[
    ("attacks", Value),
    ("hit", Value),
    ("damage", Value),
    ("range", Value),
];

const FORMATION: &[Key] = &[
    ("kind", Value),
    ("x", Value),
    ("y", Value),
    ("spacing", Value),
    ("columns", Value),
];

const UNIT: &[Key] = &[
    ("id", Value),
    ("side", Value),
    ("size", Value),
    ("alive", Value),
    ("missing", Value),
    ("hp", Value),
    ("base", Value),
    ("resolve", Value),
    ("defense", Value),
    ("weapon", Table(WEAPON)),
    ("rules", Value),
    ("response", Value),
    ("move", Value),
    ("formation", Table(FORMATION)),
    ("models", Value),
    ("orders", ByIndex(ORDER)),
];

const ORDER: &[Key] = &[
    ("when", Value),
    ("command", Value),
    ("among", Value),
    ("target", Value),
    ("toward", Value),
];

/// `objective` maps side names, which the file chooses, to metric names: validation checks
/// them.
const ENGAGEMENT: &[Key] = &[
    ("rounds", Value),
    ("first", Value),
    ("until", Value),
    ("objective", Value),
];

const STEP: &[Key] = &[
    ("id", Value),
    ("unit", Value),
    ("command", Value),
    ("target", Value),
    ("round", Value),
    ("toward", Value),
];

/// `set` keys are key paths, checked when applied, like `[sweep]` keys.
const CHOICE: &[Key] = &[
    ("id", Value),
    ("steps", ById(STEP, Some("step"))),
    ("set", Any),
];

/// `[balance]`: its values are read and checked by `balance::read`.
const BALANCE: &[Key] = &[
    ("vary", Value),
    ("over", Value),
    ("metric", Value),
    ("target", Value),
];

/// `[[profile]]`: its `unit` keys are checked as unit keys of a slot by `roster::expand`.
const PROFILE: &[Key] = &[("id", Value), ("points", Value), ("unit", Any)];

/// `[roster]`: its values are read and checked by `roster::expand`.
const ROSTER: &[Key] = &[("budget", Value), ("slots", Value)];

/// The whole file. `[sweep]` keys are key paths, checked when applied; the `[cards]` keys are
/// the card loader's.
pub(super) const FILE: &[Key] = &[
    ("scenario", Table(META)),
    ("options", Table(OPTIONS)),
    ("battlefield", Table(BATTLEFIELD)),
    ("unit", ById(UNIT, None)),
    ("step", ById(STEP, Some("step"))),
    ("choice", ById(CHOICE, None)),
    ("engagement", Table(ENGAGEMENT)),
    ("sweep", Any),
    ("cards", Table(crate::cards::SECTION_KEYS)),
    ("metrics", Any),
    ("balance", Table(BALANCE)),
    ("profile", ById(PROFILE, None)),
    ("roster", Table(ROSTER)),
];

/// Checks the keys of a scenario's text; see [`check_text`].
pub(super) fn check(file: &str, text: &str) -> Result<(), ScenarioError> {
    check_text(file, text, FILE)
}

/// Checks the key path of a `--set` or `[sweep]` entry; see [`check_path`].
pub(super) fn check_setting(path: &[String]) -> Result<(), String> {
    check_path(path, FILE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Shape;
    use crate::scenario::raw::RawFile;

    /// A table holding `path` (arrays of tables as one-element arrays) with an unknown key at
    /// its end.
    fn probe(path: &[(&str, Shape)]) -> toml::Value {
        let mut value = toml::Value::Table(toml::Table::from_iter([(
            "zz_not_a_key".to_string(),
            toml::Value::Integer(1),
        )]));
        for (key, shape) in path.iter().rev() {
            if matches!(shape, ById(..) | ByIndex(_)) {
                value = toml::Value::Array(vec![value]);
            }
            value = toml::Value::Table(toml::Table::from_iter([(key.to_string(), value)]));
        }
        value
    }

    /// The field names serde lists when it meets the unknown key at the end of `path`.
    fn serde_fields(path: &[(&str, Shape)]) -> Vec<String> {
        let e = probe(path).try_into::<RawFile>().unwrap_err();
        let message = e.message().to_string();
        let (_, expected) = message
            .split_once("expected")
            .unwrap_or_else(|| panic!("{path:?}: {message}"));
        expected
            .split('`')
            .skip(1)
            .step_by(2)
            .map(String::from)
            .collect()
    }

    fn compare(path: &mut Vec<(&'static str, Shape)>, keys: &'static [Key]) {
        let ours: Vec<&str> = keys.iter().map(|(k, _)| *k).collect();
        let theirs = serde_fields(path);
        assert_eq!(ours, theirs, "keys at {path:?}");
        for (key, shape) in keys {
            // serde takes `[cards]` whole; the card loader reads it with the same key tree.
            if path.is_empty() && *key == "cards" {
                continue;
            }
            if let Table(inner) | ById(inner, _) | ByIndex(inner) = shape {
                path.push((key, *shape));
                compare(path, inner);
                path.pop();
            }
        }
    }

    #[test]
    fn the_key_tree_lists_exactly_the_fields_of_the_raw_structs() {
        compare(&mut Vec::new(), FILE);
    }

    #[test]
    fn misspelt_keys_are_named_with_a_suggestion() {
        let text = "[scenario]\nname = \"t\"\n[options.rally]\nchian = true\n";
        let e = check("s.toml", text).unwrap_err().to_string();
        assert!(
            e.starts_with("s.toml: line 4, column 1: key `options.rally.chian`: unknown key \"chian\" (did you mean \"chain\"?); allowed here: chain"),
            "{e}"
        );
        let path: Vec<String> = ["unit", "a", "formation", "knd"].map(String::from).to_vec();
        let e = check_setting(&path).unwrap_err();
        assert!(
            e.contains("unit.a.formation.knd") && e.contains("did you mean \"kind\""),
            "{e}"
        );
    }
}
