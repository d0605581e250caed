//! Numbers, durations and dates for people: the one home of how rollcall writes a count, a
//! probability, a mean or a time in its messages, its explanations and its reports. The CSV
//! tables keep full precision and never come through here.
//!
//! Where two places round differently on purpose, both ways are kept under names that say
//! how they differ: [`two_decimals`] (a mean in a report, or [`percent_with_interval`] when the
//! mean is a share of trials) and [`plain_number`] (a length or a
//! position in an explanation); [`percent`], [`percent_one_decimal`] and [`percent_whole`];
//! [`duration_whole_units`] (a progress bar's time left) and [`duration_one_decimal`] (a
//! report's computing time). This module depends on nothing else in the crate.

/// A count with thousands separators: 2000000 -> "2,000,000".
pub fn thousands(n: u64) -> String {
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

/// A count in three significant digits with k, M or G (`12.3 M`), whole below 1000: what a
/// progress bar and a run's summary line say of trials and rates.
pub fn count_si(n: f64) -> String {
    const SCALES: [(f64, &str); 3] = [(1e9, "G"), (1e6, "M"), (1e3, "k")];
    for (scale, unit) in SCALES {
        if n >= scale {
            let v = n / scale;
            // Rounding may carry to 1000 (999.96 k): say 1.00 M instead.
            let digits = if v >= 99.95 {
                0
            } else if v >= 9.995 {
                1
            } else {
                2
            };
            let shown = format!("{v:.digits$}");
            if shown == "1000" && unit != "G" {
                return count_si(scale * 1000.0);
            }
            return format!("{shown} {unit}");
        }
    }
    format!("{}", n.round() as u64)
}

/// A size in bytes in binary units with one decimal (`1.0 GiB`, `3.5 TiB`), whole below
/// 1 KiB; past 1,024 EiB (a saturated estimate) "more than 1,024 EiB".
pub fn bytes(n: u128) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut v = n as f64;
    for unit in UNITS {
        v /= 1024.0;
        if v < 1023.95 {
            return format!("{v:.1} {unit}");
        }
    }
    "more than 1,024 EiB".to_string()
}

/// The refusal of `what` by a cost model: its estimate `bytes` (saturated at `u128::MAX`),
/// the `budget` it is over, and `driven_by`, the key or keys that make it so large.
pub fn over_budget(what: &str, bytes: u128, budget: u64, driven_by: &str) -> String {
    format!(
        "{what} would need about {} (an estimate, made before allocating), over the {} one \
         computation may plan for; {driven_by}",
        self::bytes(bytes),
        self::bytes(u128::from(budget)),
    )
}

/// "1 model" or "3 models".
pub fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// A number as a person writes it: no trailing `.0`, at most three decimals (`1.5`, `0.333`).
pub fn plain_number(v: f64) -> String {
    let rounded = (v * 1000.0).round() / 1000.0;
    format!("{rounded}")
}

/// A length in inches as written: `24"`, `1.5"` (see [`plain_number`]).
pub fn inches(v: f64) -> String {
    format!("{}\"", plain_number(v))
}

/// A mean or a difference of means, always two decimals (`1.00`, `2.50`), so the numbers of
/// one column line up whatever their values.
pub fn two_decimals(x: f64) -> String {
    let s = format!("{x:.2}");
    // "-0.00" says a sign that the number does not have.
    if s == "-0.00" {
        "0.00".into()
    } else {
        s
    }
}

/// A mean with its 95% interval: "2.50 ± 0.02" when the interval is symmetric (a Monte Carlo
/// mean's is), "2.50 (2.47 to 2.52)" when not; an exact value has no interval. Numbers as
/// [`two_decimals`] writes them.
pub fn with_interval(mean: f64, low: f64, high: f64) -> String {
    if low == mean && high == mean {
        return two_decimals(mean);
    }
    let (below, above) = (mean - low, high - mean);
    if (below - above).abs() <= 1e-9 * mean.abs().max(1.0) {
        let half = above.max(below);
        if half < 0.005 {
            format!("{} ± <0.01", two_decimals(mean))
        } else {
            format!("{} ± {half:.2}", two_decimals(mean))
        }
    } else {
        format!(
            "{} ({} to {})",
            two_decimals(mean),
            two_decimals(low),
            two_decimals(high)
        )
    }
}

/// A share of trials (the mean of a metric that is only ever 0 or 1) with its 95% interval,
/// as percentages: "0.5% ± 0.1%" when the interval is symmetric, "0.5% (0.3% to 0.8%)" when
/// not, the share alone when it has no interval (an exact result). Shares as [`percent`]
/// writes them; a half-width that rounds to 0 reads "<0.1%".
pub fn percent_with_interval(share: f64, low: f64, high: f64) -> String {
    if low == share && high == share {
        return percent(share);
    }
    let (below, above) = (share - low, high - share);
    if (below - above).abs() <= 1e-9 {
        let half = 100.0 * above.max(below);
        if half < 0.05 {
            format!("{} ± <0.1%", percent(share))
        } else {
            format!("{} ± {half:.1}%", percent(share))
        }
    } else {
        format!(
            "{} ({} to {})",
            percent(share),
            percent(low.max(0.0)),
            percent(high.min(1.0))
        )
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

/// A probability as a percentage with one decimal, rounded plainly (`50.0%`, `0.0%`): beside
/// the exact fraction that an explanation gives with it, unlike [`percent`].
pub fn percent_one_decimal(p: f64) -> String {
    format!("{:.1}%", 100.0 * p)
}

/// A probability as a whole percentage (`50%`), as a chart's axis marks it.
pub fn percent_whole(p: f64) -> String {
    format!("{:.0}%", p * 100.0)
}

/// A whole number as a chart's value axis marks it, and nothing between whole numbers.
pub fn whole_or_blank(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{:.0}", x)
    } else {
        String::new()
    }
}

/// Seconds in whole units: `45 s`, `3 min 05 s`, `2 h 07 min` (a progress bar's time left).
pub fn duration_whole_units(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

/// Seconds with one decimal in the unit that suits them: `850 ms`, `12.3 s`, `2.5 min` (a
/// report's computing time).
pub fn duration_one_decimal(s: f64) -> String {
    if s < 1.0 {
        format!("{:.0} ms", s * 1000.0)
    } else if s < 120.0 {
        format!("{s:.1} s")
    } else {
        format!("{:.1} min", s / 60.0)
    }
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
    fn sizes_read_in_binary_units() {
        assert_eq!(bytes(1000), "1000 bytes");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(1 << 30), "1.0 GiB");
        // 3.8e9 bytes / 2^30 = 3.539 GiB.
        assert_eq!(bytes(3_800_000_000), "3.5 GiB");
        assert_eq!(bytes(u128::MAX), "more than 1,024 EiB");
    }

    #[test]
    fn counts_read_as_people_write_them() {
        assert_eq!(count_si(0.0), "0");
        assert_eq!(count_si(999.4), "999");
        assert_eq!(count_si(576_079.874_9), "576 k");
        assert_eq!(count_si(12_345_678.0), "12.3 M");
        assert_eq!(count_si(3_248_444_479.0), "3.25 G");
        assert_eq!(count_si(1e6), "1.00 M");
        assert_eq!(count_si(999_960.0), "1.00 M");
        assert_eq!(count_si(9_996.0), "10.0 k");
        assert_eq!(thousands(2_000_000), "2,000,000");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(100), "100");
        assert_eq!(plural(1, "model"), "1 model");
        assert_eq!(plural(0, "model"), "0 models");
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(duration_whole_units(0.4), "0 s");
        assert_eq!(duration_whole_units(13.6), "14 s");
        assert_eq!(duration_whole_units(185.0), "3 min 05 s");
        assert_eq!(duration_whole_units(7620.0), "2 h 07 min");
        assert_eq!(duration_one_decimal(0.85), "850 ms");
        assert_eq!(duration_one_decimal(12.34), "12.3 s");
        assert_eq!(duration_one_decimal(150.0), "2.5 min");
    }

    #[test]
    fn percentages_keep_possible_outcomes_visible() {
        assert_eq!(percent(0.8347), "83.5%");
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(1.0), "100%");
        assert_eq!(percent(0.0001), "<0.1%");
        assert_eq!(percent(0.99999), ">99.9%");
        assert_eq!(percent_one_decimal(0.0001), "0.0%");
        assert_eq!(percent_one_decimal(0.5), "50.0%");
        assert_eq!(percent_whole(0.5), "50%");
    }

    #[test]
    fn numbers_and_dates_for_people() {
        assert_eq!(two_decimals(2.0), "2.00");
        assert_eq!(two_decimals(1.0 / 3.0), "0.33");
        assert_eq!(two_decimals(-0.001), "0.00");
        assert_eq!(with_interval(2.5, 2.48, 2.52), "2.50 ± 0.02");
        assert_eq!(with_interval(2.5, 2.5, 2.501), "2.50 (2.50 to 2.50)");
        assert_eq!(with_interval(2.5, 2.499, 2.501), "2.50 ± <0.01");
        assert_eq!(with_interval(3.0, 3.0, 3.0), "3.00");
        assert_eq!(percent_with_interval(0.005, 0.004, 0.006), "0.5% ± 0.1%");
        assert_eq!(percent_with_interval(0.5, 0.4999, 0.5001), "50.0% ± <0.1%");
        assert_eq!(percent_with_interval(0.25, 0.25, 0.25), "25.0%");
        assert_eq!(
            percent_with_interval(0.1, 0.05, 0.2),
            "10.0% (5.0% to 20.0%)"
        );
        assert_eq!(plain_number(1.0 / 3.0), "0.333");
        assert_eq!(inches(24.0), "24\"");
        assert_eq!(inches(1.5), "1.5\"");
        assert_eq!(whole_or_blank(2.0), "2");
        assert_eq!(whole_or_blank(2.5), "");
        // 2000-03-01 00:00 UTC is 951868800 seconds after the epoch.
        assert_eq!(utc(951_868_800), "2000-03-01 00:00 UTC");
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
    }
}
