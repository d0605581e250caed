//! Words for people: "4+" for `d6>=4`, "Call of the Masters" for `call_of_the_masters`,
//! "wardens resolve" for `unit.wardens.resolve`. Numbers are rounded by [`crate::format`].

/// A sweep key path as a heading: `unit.wardens.resolve` -> "wardens resolve".
pub fn key(path: &str) -> String {
    let parts: Vec<&str> = path.split('.').collect();
    let rest = match parts.first() {
        Some(&"unit") | Some(&"options") | Some(&"scenario") | Some(&"cards")
            if parts.len() > 1 =>
        {
            &parts[1..]
        }
        _ => &parts[..],
    };
    rest.iter()
        .map(|p| words(p.trim_start_matches('#')))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A metric name: `wardens.restored` -> "wardens restored".
pub fn metric(name: &str) -> String {
    name.split('.').map(words).collect::<Vec<_>>().join(" ")
}

/// A value as written in a table cell: dice tests as "4+", rule lists by their names,
/// booleans as yes/no; anything else as written.
pub fn value(text: &str) -> String {
    let t = text.trim();
    if let Some(test) = dice_test(t) {
        return test;
    }
    if let Some(list) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let names: Vec<String> = list
            .split(',')
            .map(|s| s.trim().trim_matches('"').trim_matches('\''))
            .filter(|s| !s.is_empty())
            .map(rule)
            .collect();
        return if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        };
    }
    match t {
        "true" => "yes".into(),
        "false" => "no".into(),
        _ => t.to_string(),
    }
}

/// One side of a compare.csv row: a choice id, a sweep point named by the keys where it
/// differs from the other (`unit.w.resolve=d6>=3; ...`), or both (`choice @ point`), with keys
/// and values read as elsewhere: "w resolve 3+".
pub fn side(text: &str) -> String {
    let (choice, point) = match text.split_once(" @ ") {
        Some((choice, point)) => (Some(choice), point),
        None if text.contains('=') => (None, text),
        None => return text.to_string(),
    };
    let point: Vec<String> = point
        .split("; ")
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) => format!("{} {}", key(k), value(v)),
            None => kv.to_string(),
        })
        .collect();
    match choice {
        Some(c) => format!("{c} at {}", point.join(", ")),
        None => point.join(", "),
    }
}

/// A special rule's name: `call_of_the_masters` -> "Call of the Masters".
pub fn rule(id: &str) -> String {
    const SMALL: [&str; 6] = ["of", "the", "a", "an", "and", "in"];
    id.split('_')
        .enumerate()
        .map(|(i, w)| {
            if i > 0 && SMALL.contains(&w) {
                w.to_string()
            } else {
                capitalised(w)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A one-die test against a target (`d6>=4`, `d6>=4 reroll ones`) in the "4+" shorthand
/// players use; other tests are left as written.
fn dice_test(text: &str) -> Option<String> {
    let (test, rest) = match text.split_once(' ') {
        Some((t, r)) => (t, Some(r.trim())),
        None => (text, None),
    };
    let target = test.strip_prefix("d6>=")?;
    let n: u32 = target.parse().ok()?;
    if !(1..=6).contains(&n) {
        return None;
    }
    let shorthand = format!("{n}+");
    match rest {
        None => Some(shorthand),
        Some(r) if r.starts_with("reroll ") => Some(format!("{shorthand}, {r}")),
        Some(_) => None,
    }
}

fn words(part: &str) -> String {
    part.replace('_', " ")
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dice_tests_read_as_players_write_them() {
        assert_eq!(value("d6>=4"), "4+");
        assert_eq!(value("d6>=2 reroll ones"), "2+, reroll ones");
        assert_eq!(value("2d6<=7"), "2d6<=7");
        assert_eq!(value("d6>=7"), "d6>=7");
    }

    #[test]
    fn sweep_points_compared_read_as_their_keys() {
        assert_eq!(side("unit.w.resolve=d6>=3"), "w resolve 3+");
        assert_eq!(
            side("shoot @ unit.target.defense=d6>=5; unit.w.rules=[\"call_of_the_masters\"]"),
            "shoot at target defense 5+, w rules Call of the Masters"
        );
        assert_eq!(side("rally"), "rally");
    }

    #[test]
    fn rule_lists_read_by_name() {
        assert_eq!(value("[\"call_of_the_masters\"]"), "Call of the Masters");
        assert_eq!(value("[]"), "none");
        assert_eq!(key("unit.wardens.resolve"), "wardens resolve");
        assert_eq!(metric("wardens.damage_taken"), "wardens damage taken");
    }
}
