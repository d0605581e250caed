//! The wording of "unknown name" messages, the "did you mean" hint, and the clipping of values
//! quoted in messages.
//!
//! Three kinds of names get the same treatment: keys (`allowed here: ...`, in the order the
//! format declares them), fixed vocabularies such as commands (`allowed: "rally", ...`) and
//! ids the user defined (`units are: ...`, sorted).

/// The longest value a message quotes whole, in characters; longer ones end in `…`.
pub const MAX_QUOTED: usize = 80;
/// The longest message line (a parser's quote of the file) shown whole, in characters.
const MAX_LINE: usize = 160;
/// The longest problem description shown whole, in characters.
pub const MAX_MESSAGE: usize = 2000;

/// Edits turning `a` into `b`, by characters: insertions, deletions, substitutions, and swaps
/// of two neighbours (the optimal string alignment distance), since a swap is one slip of the
/// fingers, not two.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Rows i-2, i-1 and i of the alignment table.
    let mut two_up: Vec<usize> = vec![0; b.len() + 1];
    let mut up: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (up[j] + 1).min(row[j - 1] + 1).min(up[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(two_up[j - 2] + 1);
            }
        }
        std::mem::swap(&mut two_up, &mut up);
        std::mem::swap(&mut up, &mut row);
    }
    up[b.len()]
}

/// The known name nearest to `bad`, if it is near enough to be a typo: at most two edits,
/// and fewer edits than `bad` has characters (so "C" does not suggest "A"). Ties go to the
/// name first in alphabetical order, so the hint does not depend on declaration order.
pub fn nearest<'k>(bad: &str, known: &[&'k str]) -> Option<&'k str> {
    let len = bad.chars().count();
    known
        .iter()
        // Names whose lengths differ by more than two are more than two edits apart: skip
        // them before the quadratic distance, which a very long name would make slow.
        .filter(|k| k.chars().count().abs_diff(len) <= 2)
        .map(|k| (distance(bad, k), *k))
        .filter(|&(d, k)| d <= 2 && d < len && d < k.chars().count())
        .min()
        .map(|(_, k)| k)
}

/// ` (did you mean "y"?)` when a known name is near `bad`, else nothing.
pub fn hint(bad: &str, known: &[&str]) -> String {
    nearest(bad, known)
        .map(|k| format!(" (did you mean {}?)", quoted(k)))
        .unwrap_or_default()
}

/// `text` in double quotes, clipped to [`MAX_QUOTED`] characters with `…`.
pub fn quoted(text: &str) -> String {
    format!("\"{}\"", clip(text))
}

/// `text` clipped to [`MAX_QUOTED`] characters with `…`.
pub fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_QUOTED) {
        None => text.to_string(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

/// A message line clipped in the middle, keeping its start (what is wrong) and its end (what
/// was expected).
pub fn clip_line(line: &str) -> String {
    clip_middle(line, MAX_LINE)
}

/// A whole problem description clipped in the middle to [`MAX_MESSAGE`] characters, so that no
/// input (a long list of ids, a long value quoted by a parser) makes an unbounded message.
pub fn clip_message(text: &str) -> String {
    clip_middle(text, MAX_MESSAGE)
}

fn clip_middle(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= max {
        return text.to_string();
    }
    let head: String = chars[..max * 2 / 3].iter().collect();
    let tail: String = chars[chars.len() - max / 3..].iter().collect();
    format!("{head}…{tail}")
}

/// `a, b, c`, or `(none)`.
pub fn list(names: &[&str]) -> String {
    if names.is_empty() {
        "(none)".to_string()
    } else {
        names.join(", ")
    }
}

/// `"a", "b", "c"`: values as they are written in TOML.
pub fn quoted_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `unknown key "x" (did you mean "y"?); allowed here: a, b`, keys in declared order.
pub fn unknown_key(bad: &str, allowed: &[&str]) -> String {
    format!(
        "unknown key {}{}; allowed here: {}",
        quoted(bad),
        hint(bad, allowed),
        list(allowed)
    )
}

/// `unknown <what> "x" (did you mean "y"?); allowed: "a", "b"`, for a fixed vocabulary.
pub fn unknown_value(what: &str, bad: &str, allowed: &[&str]) -> String {
    format!(
        "unknown {what} {}{}; allowed: {}",
        quoted(bad),
        hint(bad, allowed),
        quoted_list(allowed)
    )
}

/// `unknown <what> "x" (did you mean "y"?); <what>s are: a, b`, for ids the user defined
/// (listed sorted, so a long list can be searched by eye).
pub fn unknown_id(what: &str, bad: &str, known: &[&str]) -> String {
    let mut sorted = known.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    format!(
        "unknown {what} {}{}; {what}s are: {}",
        quoted(bad),
        hint(bad, known),
        list(&sorted)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_edits() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("cnt", "count"), 2);
        assert_eq!(distance("same", "same"), 0);
        assert_eq!(distance("wardns", "wardens"), 1);
        assert_eq!(distance("abc", ""), 3);
        assert_eq!(distance("ab", "ba"), 1);
        assert_eq!(distance("größe", "grösse"), 2);
    }

    #[test]
    fn suggestions_are_near_and_not_wild_guesses() {
        let commands = ["rally", "shoot", "run"];
        assert_eq!(nearest("raly", &commands), Some("rally"));
        assert_eq!(nearest("shot", &commands), Some("shoot"));
        assert_eq!(nearest("charge", &commands), None);
        // One letter for one letter is no evidence of a typo.
        assert_eq!(nearest("C", &["A", "B"]), None);
        // Equally near: alphabetical, whatever the order given.
        assert_eq!(nearest("ab", &["ac", "aa"]), Some("aa"));
    }

    #[test]
    fn messages_quote_the_value_and_list_what_is_allowed() {
        assert_eq!(
            unknown_key("colour", &["id", "color"]),
            "unknown key \"colour\" (did you mean \"color\"?); allowed here: id, color"
        );
        assert_eq!(
            unknown_value("command", "charge", &["rally", "run"]),
            "unknown command \"charge\"; allowed: \"rally\", \"run\""
        );
        assert_eq!(
            unknown_id("unit", "wardns", &["wardens", "raiders"]),
            "unknown unit \"wardns\" (did you mean \"wardens\"?); units are: raiders, wardens"
        );
        assert_eq!(
            unknown_id("unit", "x", &[]),
            "unknown unit \"x\"; units are: (none)"
        );
    }

    #[test]
    fn long_values_are_clipped() {
        let long = "é".repeat(1000);
        let q = quoted(&long);
        assert_eq!(q.chars().count(), MAX_QUOTED + 3);
        assert!(q.ends_with("…\""));
        assert_eq!(quoted("short"), "\"short\"");
        let line = clip_line(&"z".repeat(10_000));
        assert_eq!(line.chars().count(), MAX_LINE * 2 / 3 + 1 + MAX_LINE / 3);
    }
}
