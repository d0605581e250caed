//! Words and numbers for people: "4+" for `d6>=4`, "Call of the Masters" for
//! `call_of_the_masters`, probabilities as percentages with one decimal. The CSV files keep
//! full precision; only the report rounds.

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

/// A probability as a percentage with one decimal; values that round to 0% or 100% but are
/// not exactly that read "<0.1%" and ">99.9%", so a possible outcome never looks impossible.
pub fn percent(p: f64) -> String {
    let pct = p * 100.0;
    if p <= 0.0 {
        "0%".into()
    } else if p >= 1.0 {
        "100%".into()
    } else if pct < 0.05 {
        "<0.1%".into()
    } else if pct >= 99.95 {
        ">99.9%".into()
    } else {
        format!("{pct:.1}%")
    }
}

/// A mean or a difference of means, two decimals (a whole number stays whole).
pub fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        let s = format!("{x:.2}");
        // "-0.00" says a sign that the number does not have.
        if s == "-0.00" {
            "0.00".into()
        } else {
            s
        }
    }
}

/// A mean with its 95% interval: "2.50 ± 0.02" when the interval is symmetric (a Monte Carlo
/// mean's is), "2.50 (2.47 to 2.52)" when not; an exact value has no interval.
pub fn with_interval(mean: f64, low: f64, high: f64) -> String {
    if low == mean && high == mean {
        return number(mean);
    }
    let (below, above) = (mean - low, high - mean);
    if (below - above).abs() <= 1e-9 * mean.abs().max(1.0) {
        let half = above.max(below);
        if half < 0.005 {
            format!("{} ± <0.01", number(mean))
        } else {
            format!("{} ± {half:.2}", number(mean))
        }
    } else {
        format!("{} ({} to {})", number(mean), number(low), number(high))
    }
}

/// A duration in seconds, rounded for people.
pub fn seconds(s: f64) -> String {
    if s < 1.0 {
        format!("{:.0} ms", s * 1000.0)
    } else if s < 120.0 {
        format!("{s:.1} s")
    } else {
        format!("{:.1} min", s / 60.0)
    }
}

/// A count with thousands separators: 2000000 -> "2,000,000".
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A Unix time as a UTC date and time, "2026-12-01 17:05 UTC".
pub fn utc(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let rem = seconds % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's days_from_civil, inverted).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rem / 3600,
        (rem % 3600) / 60
    )
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

    #[test]
    fn percentages_keep_possible_outcomes_visible() {
        assert_eq!(percent(0.8347), "83.5%");
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(1.0), "100%");
        assert_eq!(percent(0.0001), "<0.1%");
        assert_eq!(percent(0.99999), ">99.9%");
    }

    #[test]
    fn numbers_and_dates_for_people() {
        assert_eq!(number(2.0), "2");
        assert_eq!(number(-0.001), "0.00");
        assert_eq!(with_interval(2.5, 2.48, 2.52), "2.50 ± 0.02");
        assert_eq!(with_interval(2.5, 2.5, 2.501), "2.50 (2.50 to 2.50)");
        assert_eq!(with_interval(2.5, 2.499, 2.501), "2.50 ± <0.01");
        assert_eq!(with_interval(3.0, 3.0, 3.0), "3");
        assert_eq!(count(2_000_000), "2,000,000");
        // 2000-03-01 00:00 UTC is 951868800 seconds after the epoch.
        assert_eq!(utc(951_868_800), "2000-03-01 00:00 UTC");
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
    }
}
