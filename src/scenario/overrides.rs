//! `--set key.path=value` and `[sweep]` grids, applied to the TOML tree before validation.
//!
//! A key path walks tables by key and arrays of tables by the `id` of their elements, so
//! `unit.wardens.alive` is the `alive` key of the `[[unit]]` whose id is `wardens`, and
//! `step.step2.round` is the second `[[step]]` when steps carry no ids.

use crate::config::limits::{MAX_KEY_BYTES, MAX_KEY_PARTS, MAX_SWEEP_POINTS, MAX_VALUE_BYTES};
use crate::config::suggest::{clip, hint, list, quoted};
use std::fmt;

/// One override: a key path and the TOML value to put there.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    pub path: Vec<String>,
    pub value: toml::Value,
}

impl Setting {
    /// The value as a table cell: strings bare, everything else as TOML writes it.
    pub fn value_text(&self) -> String {
        match &self.value {
            toml::Value::String(s) => s.clone(),
            other => other.to_string(),
        }
    }
}

impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.path.join("."), self.value)
    }
}

/// Parses `key.path=value`. The value is read as a TOML value (`4`, `true`, `"d6>=3"`,
/// `[1, 2]`); anything that is not valid TOML is taken as a string, so `resolve=d6>=3` works
/// without shell-quoted quotes. A value is one line of at most [`MAX_VALUE_BYTES`] bytes: a
/// line break would let more TOML ride along with it.
pub fn parse_setting(text: &str) -> Result<Setting, String> {
    let Some((key, value)) = text.split_once('=') else {
        return Err(format!(
            "--set {} has no '='; expected KEY=VALUE such as unit.wardens.alive=4",
            quoted(text)
        ));
    };
    let path =
        split_path(key.trim()).map_err(|problem| format!("--set {}: {problem}", quoted(text)))?;
    let value = value.trim();
    if value.len() > MAX_VALUE_BYTES {
        return Err(format!(
            "--set {}: the value is {} bytes long; a value may hold at most {MAX_VALUE_BYTES} bytes",
            quoted(text),
            value.len()
        ));
    }
    if let Some(at) = value.find(['\n', '\r']) {
        return Err(format!(
            "--set {}: the value has a line break after {}; a value is one line (put further keys in their own --set)",
            quoted(text),
            quoted(&value[..at])
        ));
    }
    Ok(Setting {
        path,
        value: parse_value(value),
    })
}

/// Splits a key path at its dots. A part written `name[i]`, as error messages print an
/// element of a list (0-based), is read as `name.#<i+1>`, the element's 1-based name, so a key
/// path copied from a message can be set.
pub(super) fn split_path(key: &str) -> Result<Vec<String>, String> {
    // Checked before splitting: a deep path would build as many nested tables.
    if key.len() > MAX_KEY_BYTES || key.split('.').nth(MAX_KEY_PARTS).is_some() {
        return Err(format!(
            "key path {} is too long; a key path has at most {MAX_KEY_PARTS} parts and {MAX_KEY_BYTES} bytes",
            quoted(key)
        ));
    }
    let mut path = Vec::new();
    for part in key.split('.').map(str::trim) {
        if part.is_empty() {
            return Err(format!(
                "key path {} has an empty part; expected names joined by dots such as unit.wardens.alive",
                quoted(key)
            ));
        }
        match part.strip_suffix(']').and_then(|p| p.split_once('[')) {
            Some((name, index)) => {
                // The path names lists 1-based; `usize::MAX` has no successor, and no list is
                // that long, so it is refused like any index that is not a number.
                let number = index
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .and_then(|index| index.checked_add(1))
                    .ok_or_else(|| {
                        format!(
                            "key path {}: {} must be a list name and a 0-based index, such as orders[0]",
                            quoted(key),
                            quoted(part)
                        )
                    })?;
                path.push(name.trim().to_string());
                path.push(format!("#{number}"));
            }
            None => path.push(part.to_string()),
        }
    }
    Ok(path)
}

fn parse_value(text: &str) -> toml::Value {
    // One line, so the table can hold no key but `v` (a comment after the value is dropped, as
    // in a file).
    toml::from_str::<toml::Table>(&format!("v = {text}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(text.to_string()))
}

/// Puts the setting's value at its key path, creating tables on the way. A key the scenario
/// format does not have is refused here, with the key it was probably meant to be.
pub fn apply(root: &mut toml::Table, setting: &Setting) -> Result<(), String> {
    super::keys::check_setting(&setting.path)?;
    put(root, setting)
}

fn put(root: &mut toml::Table, setting: &Setting) -> Result<(), String> {
    let (last, parents) = setting
        .path
        .split_last()
        .expect("split_path never returns an empty path");
    let mut table = root;
    let mut walked: Vec<&str> = Vec::new();
    for (i, part) in parents.iter().enumerate() {
        walked.push(part);
        let entry = table
            .entry(part.clone())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        table = match entry {
            toml::Value::Table(t) => t,
            toml::Value::Array(items) => {
                return apply_in_array(items, part, &setting.path[i + 1..], setting);
            }
            other => {
                return Err(format!(
                    "`{}` is a {}, not a table, so it has no key `{}`",
                    walked.join("."),
                    other.type_str(),
                    setting.path[i + 1]
                ))
            }
        };
    }
    table.insert(last.clone(), setting.value.clone());
    Ok(())
}

/// Continues a key path inside an array of tables: `rest[0]` is an element id.
fn apply_in_array(
    items: &mut [toml::Value],
    array_key: &str,
    rest: &[String],
    setting: &Setting,
) -> Result<(), String> {
    let Some((id, tail)) = rest.split_first() else {
        return Err(format!(
            "`{array_key}` is a list; name an element by its id, e.g. {array_key}.<id>.<key>"
        ));
    };
    let ids: Vec<String> = items
        .iter()
        .enumerate()
        .map(|(i, item)| element_id(item, array_key, i))
        .collect();
    let Some(index) = ids.iter().position(|x| x == id) else {
        let names: Vec<&str> = ids.iter().map(String::as_str).collect();
        return Err(format!(
            "no `{array_key}` has id {}{}; ids are: {}",
            quoted(id),
            hint(id, &names),
            list(&names)
        ));
    };
    let toml::Value::Table(table) = &mut items[index] else {
        return Err(format!(
            "`{array_key}.{id}` is not a table, so it has no keys"
        ));
    };
    if tail.is_empty() {
        return Err(format!(
            "`{array_key}.{id}` names a whole element; name one of its keys, e.g. {array_key}.{id}.<key>"
        ));
    }
    let nested = Setting {
        path: tail.to_vec(),
        value: setting.value.clone(),
    };
    put(table, &nested)
}

/// An element's id: its `id` key, or `step<N>` (1-based) for steps written without one.
fn element_id(item: &toml::Value, array_key: &str, index: usize) -> String {
    match item.get("id").and_then(|v| v.as_str()) {
        Some(id) => id.to_string(),
        None if array_key == "step" || array_key == "steps" => format!("step{}", index + 1),
        None => format!("#{}", index + 1),
    }
}

/// The points of a `[sweep]` grid, first key outermost.
pub struct SweepGrid {
    /// The swept key paths, in file order.
    pub names: Vec<String>,
    /// Per point, one setting per swept key, in the order of `names`.
    pub points: Vec<Vec<Setting>>,
}

/// Reads `[sweep]` (key path -> list of values) into the grid of its points; one empty point
/// when there is no sweep.
pub fn sweep_grid(root: &toml::Table) -> Result<SweepGrid, (String, String)> {
    let Some(sweep) = root.get("sweep") else {
        return Ok(SweepGrid {
            names: Vec::new(),
            points: vec![Vec::new()],
        });
    };
    let toml::Value::Table(sweep) = sweep else {
        return Err((
            "sweep".into(),
            "must be a table of key path = [values]".into(),
        ));
    };
    // The grid's size, checked before any point is built: a few short lists multiply fast.
    let size = sweep.values().try_fold(1usize, |n, values| {
        n.checked_mul(values.as_array().map_or(1, Vec::len))
            .filter(|&n| n <= MAX_SWEEP_POINTS)
    });
    if size.is_none() {
        let lengths: Vec<String> = sweep
            .values()
            .map(|v| v.as_array().map_or(1, Vec::len).to_string())
            .collect();
        return Err((
            "sweep".into(),
            format!(
                "the grid has {} points, more than the most allowed, {MAX_SWEEP_POINTS}; sweep fewer keys or values, or split the sweep over several files",
                clip(&lengths.join(" x "))
            ),
        ));
    }
    let mut names = Vec::new();
    let mut points: Vec<Vec<Setting>> = vec![Vec::new()];
    for (key, values) in sweep {
        let setting_name = format!("sweep.\"{key}\"");
        let path = split_path(key).map_err(|p| (setting_name.clone(), p))?;
        if path.first().map(String::as_str) == Some("sweep") {
            return Err((setting_name, "a sweep cannot sweep itself".into()));
        }
        let Some(values) = values.as_array().filter(|v| !v.is_empty()) else {
            return Err((
                setting_name,
                format!(
                    "value {} must be a non-empty list of values to try",
                    clip(&values.to_string())
                ),
            ));
        };
        names.push(key.clone());
        points = points
            .into_iter()
            .flat_map(|point| {
                let path = &path;
                values.iter().map(move |v| {
                    let mut p = point.clone();
                    p.push(Setting {
                        path: path.clone(),
                        value: v.clone(),
                    });
                    p
                })
            })
            .collect();
    }
    Ok(SweepGrid { names, points })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn sets_unit_keys_by_id_and_nested_option_tables() {
        let mut t = table(
            "[[unit]]\nid = \"a\"\nalive = 1\n[[unit]]\nid = \"b\"\nalive = 2\n[[step]]\nunit = \"a\"\n",
        );
        apply(&mut t, &parse_setting("unit.b.alive=4").unwrap()).unwrap();
        apply(&mut t, &parse_setting("unit.a.resolve=d6>=3").unwrap()).unwrap();
        apply(&mut t, &parse_setting("options.rally.chain=true").unwrap()).unwrap();
        apply(&mut t, &parse_setting("step.step1.round=2").unwrap()).unwrap();
        assert_eq!(t["unit"][1]["alive"].as_integer(), Some(4));
        assert_eq!(t["unit"][0]["resolve"].as_str(), Some("d6>=3"));
        assert_eq!(t["options"]["rally"]["chain"].as_bool(), Some(true));
        assert_eq!(t["step"][0]["round"].as_integer(), Some(2));
    }

    #[test]
    fn a_key_path_as_messages_print_it_sets_the_same_element() {
        let mut t = table(
            "[[unit]]\nid = \"a\"\norders = [{ command = \"shoot\" }, { command = \"rally\" }]\n",
        );
        // Messages name the second order `unit.a.orders[1]`; `--set` names it `#2` too.
        apply(
            &mut t,
            &parse_setting("unit.a.orders[1].when=round > 1").unwrap(),
        )
        .unwrap();
        assert_eq!(
            t["unit"][0]["orders"][1]["when"].as_str(),
            Some("round > 1")
        );
        apply(
            &mut t,
            &parse_setting("unit.a.orders.#1.when=alive < 3").unwrap(),
        )
        .unwrap();
        assert_eq!(
            t["unit"][0]["orders"][0]["when"].as_str(),
            Some("alive < 3")
        );
        let e = parse_setting("unit.a.orders[x].when=1").unwrap_err();
        assert!(e.contains("0-based index"), "{e}");
        let e = parse_setting("unit.a.orders[18446744073709551615].when=1").unwrap_err();
        assert!(e.contains("0-based index"), "{e}");
    }

    #[test]
    fn unknown_ids_and_bad_paths_are_explained() {
        let mut t = table("[[unit]]\nid = \"a\"\n[scenario]\nname = \"x\"\n");
        let e = apply(&mut t, &parse_setting("unit.zz.alive=4").unwrap()).unwrap_err();
        assert!(e.contains("\"zz\"") && e.contains("ids are: a"), "{e}");
        let e = apply(&mut t, &parse_setting("scenario.name.x=4").unwrap()).unwrap_err();
        assert!(e.contains("scenario.name") && e.contains("string"), "{e}");
        assert!(parse_setting("unit.a.alive")
            .unwrap_err()
            .contains("no '='"));
        assert!(parse_setting("unit..alive=3")
            .unwrap_err()
            .contains("empty part"));
    }

    #[test]
    fn a_sweep_grid_may_have_up_to_the_limit_of_points() {
        let values = |n: usize| format!("[{}]", vec!["1"; n].join(", "));
        // 100 x 100 = 10,000 points: allowed, and built.
        let t = table(&format!(
            "[sweep]\na = {}\nb = {}\n",
            values(100),
            values(100)
        ));
        assert_eq!(sweep_grid(&t).unwrap().points.len(), MAX_SWEEP_POINTS);
        // 100 x 101: refused, naming the list lengths.
        let t = table(&format!(
            "[sweep]\na = {}\nb = {}\n",
            values(100),
            values(101)
        ));
        let (key, problem) = sweep_grid(&t).err().unwrap();
        assert_eq!(key, "sweep");
        assert!(
            problem.contains("100 x 101") && problem.contains("10000"),
            "{problem}"
        );
        // A product beyond usize is refused, not wrapped.
        let keys: String = (0..20)
            .map(|i| format!("k{i} = {}\n", values(100)))
            .collect();
        assert!(sweep_grid(&table(&format!("[sweep]\n{keys}"))).is_err());
    }

    #[test]
    fn settings_are_one_bounded_line_on_a_bounded_path() {
        let parts = |n: usize| vec!["a"; n].join(".");
        assert_eq!(
            split_path(&parts(MAX_KEY_PARTS)).unwrap().len(),
            MAX_KEY_PARTS
        );
        let e = split_path(&parts(MAX_KEY_PARTS + 1)).unwrap_err();
        assert!(e.contains("at most 32 parts"), "{e}");
        assert!(split_path(&"a".repeat(MAX_KEY_BYTES + 1)).is_err());
        let at_limit = format!("scenario.name=\"{}\"", "n".repeat(MAX_VALUE_BYTES - 2));
        assert!(parse_setting(&at_limit).is_ok());
        let over = format!("scenario.name=\"{}\"", "n".repeat(MAX_VALUE_BYTES - 1));
        assert!(parse_setting(&over)
            .unwrap_err()
            .contains("at most 65536 bytes"));
        for text in ["unit.a.alive=4\nbogus = 1", "unit.a.alive=4\r\nx=1"] {
            let e = parse_setting(text).unwrap_err();
            assert!(e.contains("line break after \"4\""), "{e}");
        }
        // A comment after the value is no key, as in a file.
        assert_eq!(
            parse_setting("unit.a.alive=4 # four").unwrap().value,
            toml::Value::Integer(4)
        );
    }

    #[test]
    fn sweep_grid_is_the_cartesian_product_first_key_outermost() {
        let t = table("[sweep]\n\"a.x\" = [1, 2]\n\"b\" = [\"p\", \"q\", \"r\"]\n");
        let grid = sweep_grid(&t).unwrap();
        assert_eq!(grid.names, vec!["a.x", "b"]);
        let cells: Vec<String> = grid
            .points
            .iter()
            .map(|p| {
                p.iter()
                    .map(Setting::value_text)
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        assert_eq!(cells, ["1,p", "1,q", "1,r", "2,p", "2,q", "2,r"]);
    }
}
