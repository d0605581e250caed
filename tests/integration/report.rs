//! `rollcall report` and `run --report`: the numbers a report shows are the CSV's, rounded for
//! people; the HTML fetches nothing; bad input exits 2 naming the file and place.
//!
//! The expected numbers are recomputed here from the CSV rows (P(at least k) from the counts,
//! not from the `at_least` column the report reads), and a shown percentage must lie within
//! rounding (0.05 points) of the exact value.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rollcall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("binary runs")
}

/// Runs a shipped config with `--report` into `dir` and returns the folder.
fn run_with_report(config: &str, trials: &str, dir: &Path) -> PathBuf {
    let out = dir.join(config);
    let o = rollcall(&[
        "run",
        &format!("configs/{config}.toml"),
        "--trials",
        trials,
        "--quiet",
        "--report",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("report.html").is_file() && out.join("report.md").is_file());
    out
}

/// A CSV file as rows of column name -> text.
fn csv_rows(path: &Path) -> Vec<HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .cloned()
                .zip(r.iter().map(String::from))
                .collect()
        })
        .collect()
}

/// The Markdown table under the bold title `**title**`: header cells, then rows of cells.
fn md_table(md: &str, title: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let marker = format!("**{title}**");
    let start = md
        .find(&marker)
        .unwrap_or_else(|| panic!("report.md has no table titled {title}"));
    let lines: Vec<&str> = md[start + marker.len()..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .collect();
    let cells = |l: &str| -> Vec<String> {
        l.trim()
            .trim_matches('|')
            .split(" | ")
            .map(|c| c.trim().to_string())
            .collect()
    };
    let header = cells(lines[0]);
    let rows = lines[2..].iter().map(|l| cells(l)).collect();
    (header, rows)
}

/// Checks a shown percentage against the exact probability: the forms for exactly 0 and 1,
/// for values hidden by rounding, else one decimal within rounding.
fn assert_percent(shown: &str, p: f64, what: &str) {
    match shown {
        "0%" => assert_eq!(p, 0.0, "{what}: shown 0% for {p}"),
        "100%" => assert_eq!(p, 1.0, "{what}: shown 100% for {p}"),
        "<0.1%" => assert!(p > 0.0 && p < 0.0005 + 1e-12, "{what}: {p}"),
        ">99.9%" => assert!((0.9995 - 1e-12..1.0).contains(&p), "{what}: {p}"),
        _ => {
            let pct: f64 = shown
                .strip_suffix('%')
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("{what}: {shown} is not a percentage"));
            assert!(
                (pct - 100.0 * p).abs() <= 0.05 + 1e-9,
                "{what}: shown {shown}, CSV gives {}",
                100.0 * p
            );
            assert!(shown.contains('.'), "{what}: {shown} lacks its decimal");
        }
    }
}

/// Checks "m ± h" against a mean and its interval, each to two decimals.
fn assert_mean(shown: &str, mean: f64, high: f64, what: &str) {
    let (m, h) = shown
        .split_once(" ± ")
        .unwrap_or_else(|| panic!("{what}: {shown} is not 'mean ± half-width'"));
    let m: f64 = m.parse().unwrap();
    assert!(
        (m - mean).abs() <= 0.005 + 1e-9,
        "{what}: {shown} vs {mean}"
    );
    if h != "<0.01" {
        let h: f64 = h.parse().unwrap();
        assert!(
            (h - (high - mean)).abs() <= 0.005 + 1e-9,
            "{what}: {shown} vs {high}"
        );
    } else {
        assert!(high - mean < 0.005, "{what}");
    }
}

#[test]
fn the_forum_grids_hold_the_csv_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_with_report("rally-odds", "20000", tmp.path());
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();

    // Trials and counts per (size, resolve, rules) point, for wardens.restored.
    let mut counts: HashMap<(String, String, String), Vec<(i64, u64)>> = HashMap::new();
    for r in csv_rows(&dir.join("distribution.csv")) {
        if r["metric"] == "wardens.restored" {
            counts
                .entry((
                    r["unit.wardens.size"].clone(),
                    r["unit.wardens.resolve"].clone(),
                    r["unit.wardens.rules"].clone(),
                ))
                .or_default()
                .push((r["value"].parse().unwrap(), r["count"].parse().unwrap()));
        }
    }
    assert_eq!(counts.len(), 100, "10 sizes x 5 tests x 2 rule sets");
    let rules = [
        ("[]", "none"),
        ("[\"call_of_the_masters\"]", "Call of the Masters"),
    ];
    let mut checked = 0;
    for (raw_rules, shown_rules) in rules {
        for k in 1..=10 {
            let title = format!("wardens restored: P(at least {k}), wardens rules: {shown_rules}");
            let (header, rows) = md_table(&md, &title);
            assert_eq!(header[1..], ["2+", "3+", "4+", "5+", "6+"], "{title}");
            assert_eq!(rows.len(), 10, "{title}");
            for row in &rows {
                // "1 missing (size 6)": size 6 with 5 alive.
                let size = row[0]
                    .trim_end_matches(')')
                    .rsplit(' ')
                    .next()
                    .unwrap()
                    .to_string();
                let missing: i64 = size.parse::<i64>().unwrap() - 5;
                assert_eq!(row[0], format!("{missing} missing (size {size})"));
                for (c, test) in header[1..].iter().enumerate() {
                    let resolve = format!("d6>={}", test.trim_end_matches('+'));
                    let key = (size.clone(), resolve, raw_rules.to_string());
                    let point = &counts[&key];
                    let trials: u64 = point.iter().map(|&(_, n)| n).sum();
                    let at_least: u64 = point
                        .iter()
                        .filter(|&&(v, _)| v >= k)
                        .map(|&(_, n)| n)
                        .sum();
                    let p = at_least as f64 / trials as f64;
                    assert_percent(&row[c + 1], p, &format!("{title}, {key:?}"));
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 2 * 10 * 10 * 5);

    // The means grid against summary.csv.
    let summary: HashMap<(String, String, String), (f64, f64)> = csv_rows(&dir.join("summary.csv"))
        .into_iter()
        .filter(|r| r["metric"] == "wardens.restored")
        .map(|r| {
            (
                (
                    r["unit.wardens.size"].clone(),
                    r["unit.wardens.resolve"].clone(),
                    r["unit.wardens.rules"].clone(),
                ),
                (r["mean"].parse().unwrap(), r["ci95_high"].parse().unwrap()),
            )
        })
        .collect();
    let mut checked = 0;
    for (raw_rules, shown_rules) in rules {
        let title = format!("wardens restored: mean (95% interval), wardens rules: {shown_rules}");
        let (header, rows) = md_table(&md, &title);
        for row in &rows {
            let size = row[0]
                .trim_end_matches(')')
                .rsplit(' ')
                .next()
                .unwrap()
                .to_string();
            for (c, test) in header[1..].iter().enumerate() {
                let resolve = format!("d6>={}", test.trim_end_matches('+'));
                let (mean, high) = summary[&(size.clone(), resolve, raw_rules.to_string())];
                assert_mean(&row[c + 1], mean, high, &title);
                checked += 1;
            }
        }
    }
    // 2 rule sets x 10 sizes x 5 tests.
    assert_eq!(checked, 100);
}

#[test]
fn a_paired_comparison_shows_the_compare_csv() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_with_report("defend-vs-rally", "20000", tmp.path());
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let (header, rows) = md_table(&md, "defend against rally");
    assert_eq!(header[2], "P(defend higher)");
    let compare = csv_rows(&dir.join("compare.csv"));
    let mut shown = 0;
    for r in &compare {
        let name = r["metric"].replace(['.', '_'], " ");
        let p_equal: f64 = r["p_equal"].parse().unwrap();
        let Some(row) = rows.iter().find(|row| row[0] == name) else {
            // Rows equal on every trial are listed in one line instead.
            assert_eq!(p_equal, 1.0, "{name} is missing from the table");
            assert!(md.contains("Equal in every trial:"));
            continue;
        };
        let num = |c: &str| r[c].parse::<f64>().unwrap();
        if num("ci95_low") != num("ci95_high") {
            assert_mean(&row[1], num("mean_diff"), num("ci95_high"), &name);
        }
        assert_percent(&row[2], num("p_first_higher"), &name);
        assert_percent(&row[3], p_equal, &name);
        assert_percent(&row[4], num("p_second_higher"), &name);
        shown += 1;
    }
    assert!(shown >= 5, "only {shown} compared metrics shown");
}

#[test]
fn a_single_point_distribution_shows_the_distribution_csv() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_with_report("rally", "20000", tmp.path());
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let (header, rows) = md_table(&md, "wardens restored: distribution");
    assert_eq!(header, ["value", "P(exactly)", "P(at least)"]);
    let dist: Vec<(i64, u64)> = csv_rows(&dir.join("distribution.csv"))
        .into_iter()
        .filter(|r| r["metric"] == "wardens.restored")
        .map(|r| (r["value"].parse().unwrap(), r["count"].parse().unwrap()))
        .collect();
    let trials: u64 = dist.iter().map(|d| d.1).sum();
    assert_eq!(trials, 20_000);
    for row in &rows {
        let v: i64 = row[0].parse().unwrap();
        let exactly = dist.iter().filter(|d| d.0 == v).map(|d| d.1).sum::<u64>();
        let at_least = dist.iter().filter(|d| d.0 >= v).map(|d| d.1).sum::<u64>();
        assert_percent(&row[1], exactly as f64 / trials as f64, "exactly");
        assert_percent(&row[2], at_least as f64 / trials as f64, "at least");
    }
    assert_eq!(rows.len(), 6, "restored takes 0 to 5 with 5 missing");
}

/// The values of every `src` and `href` attribute in an HTML text.
fn link_targets(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["src=", "href="] {
        for (i, _) in html.match_indices(attr) {
            let rest = &html[i + attr.len()..];
            let quote = rest.chars().next().unwrap_or(' ');
            let value: String = if quote == '"' || quote == '\'' {
                rest[1..].chars().take_while(|&c| c != quote).collect()
            } else {
                rest.chars()
                    .take_while(|c| !c.is_whitespace() && *c != '>')
                    .collect()
            };
            out.push(value);
        }
    }
    out
}

#[test]
fn the_html_is_one_file_that_fetches_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    for config in ["rally-odds", "design-duel", "cards-maitrise"] {
        let dir = run_with_report(config, "5000", tmp.path());
        let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
        for target in link_targets(&html) {
            assert!(
                target.starts_with('#'),
                "{config}: report.html links outside itself: {target}"
            );
        }
        let lower = html.to_lowercase();
        for outside in ["<link", "@import", "url(", "<iframe", "<img"] {
            assert!(
                !lower.contains(outside),
                "{config}: report.html has {outside}"
            );
        }
        assert!(html.contains("<svg"), "{config}: no chart");
        assert!(html.contains("<table"), "{config}: no table");
    }
    // The link scanner itself finds what it should.
    assert_eq!(
        link_targets("<a href=\"https://x\"><img src='http://y'>"),
        ["http://y", "https://x"]
    );
}

#[test]
fn labels_read_as_players_write_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_with_report("rally-odds", "2000", tmp.path());
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("Call of the Masters"));
    assert!(html.contains("<th scope=\"col\">4+</th>"));
    assert!(!html.contains("call_of_the_masters\"]"));
    assert!(!html.contains("d6&gt;=4"));
}

fn assert_exit_2(o: &Output, says: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    for s in says {
        assert!(err.contains(s), "stderr lacks {s:?}: {err}");
    }
}

#[test]
fn bad_input_exits_2_naming_the_file_and_place() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good");
    let o = rollcall(&[
        "run",
        "configs/rally.toml",
        "--trials",
        "1000",
        "--quiet",
        "--out",
        good.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let copy = |name: &str| {
        let dir = tmp.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["summary.csv", "distribution.csv", "run.json"] {
            std::fs::copy(good.join(f), dir.join(f)).unwrap();
        }
        dir
    };
    let report = |dir: &Path| rollcall(&["report", dir.to_str().unwrap()]);

    // A folder that is not there.
    let o = report(&tmp.path().join("nowhere"));
    assert_exit_2(&o, &["nowhere", "not a results folder"]);

    // A number that is not one: line 3 of summary.csv, column mean.
    let dir = copy("bad-number");
    let path = dir.join("summary.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mean_col = lines[0].split(',').position(|c| c == "mean").unwrap();
    let mut cells: Vec<&str> = lines[2].split(',').collect();
    cells[mean_col] = "lots";
    lines[2] = cells.join(",");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    assert_exit_2(
        &report(&dir),
        &[
            "summary.csv",
            "line 3",
            "column `mean`",
            "expected a number",
            "lots",
        ],
    );
    assert!(!dir.join("report.html").exists() && !dir.join("report.md").exists());

    // A row with a cell too few.
    let dir = copy("short-row");
    let path = dir.join("distribution.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let cut = lines[4].rfind(',').unwrap();
    lines[4].truncate(cut);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    assert_exit_2(&report(&dir), &["distribution.csv", "line 5"]);

    // A column that is not there.
    let dir = copy("no-column");
    let path = dir.join("summary.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("ci95_low", "low", 1)).unwrap();
    assert_exit_2(&report(&dir), &["summary.csv", "line 1", "ci95_low"]);

    // Broken JSON: line and column.
    let dir = copy("bad-json");
    std::fs::write(
        dir.join("run.json"),
        "{\n  \"version\": \"0.3.1\",\n  \"seed\": x\n}\n",
    )
    .unwrap();
    assert_exit_2(&report(&dir), &["run.json", "line 3, column"]);

    // JSON missing a field.
    let dir = copy("json-field");
    std::fs::write(dir.join("run.json"), "{\"version\": \"0.3.1\"}\n").unwrap();
    assert_exit_2(&report(&dir), &["run.json", "scenario"]);

    // A missing table.
    let dir = copy("no-distribution");
    std::fs::remove_file(dir.join("distribution.csv")).unwrap();
    assert_exit_2(&report(&dir), &["distribution.csv"]);

    // One bad folder among good ones writes nothing.
    let o = rollcall(&["report", good.to_str().unwrap(), dir.to_str().unwrap()]);
    assert_exit_2(&o, &["distribution.csv"]);
    assert!(!good.join("report.html").exists());

    // A shard writes no tables, so it cannot be reported on.
    let o = rollcall(&[
        "run",
        "configs/rally.toml",
        "--shard",
        "0/2",
        "--report",
        "--out",
        tmp.path().join("shard").to_str().unwrap(),
    ]);
    assert_exit_2(&o, &["--report", "--shard"]);
}

#[test]
fn report_writes_into_out_and_keeps_the_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("results");
    let o = rollcall(&[
        "exact",
        "configs/rally.toml",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let before = std::fs::read(dir.join("summary.csv")).unwrap();
    let out = tmp.path().join("elsewhere");
    let o = rollcall(&[
        "report",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("report.html").is_file() && out.join("report.md").is_file());
    assert!(!dir.join("report.html").exists());
    assert_eq!(std::fs::read(dir.join("summary.csv")).unwrap(), before);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("exact (dynamic programming"));
    // Exact: 5 missing at 4+ restore 0 models with probability 1/32 = 3.125%, which rounds to 3.1%.
    let (_, rows) = md_table(&md, "wardens restored: distribution");
    assert_eq!(rows[0], ["0", "3.1%", "100%"]);
}

#[test]
fn card_tables_show_margins_and_the_equilibrium_with_intervals() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cards");
    let o = rollcall(&[
        "run",
        "configs/cards-maitrise.toml",
        "--trials",
        "4000",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The margin's interval comes from orderings.csv's own columns.
    let rows = csv_rows(&dir.join("orderings.csv"));
    std::fs::write(
        dir.join("equilibrium.csv"),
        "scenario,player,ordering,probability,value,value_ci95_low,value_ci95_high\n\
         cards-maitrise,A,eclair>epee,1,4,3.9,4.1\n\
         cards-maitrise,A,epee>eclair,0,4,3.9,4.1\n\
         cards-maitrise,B,brume>bouclier,0.3333333333333333,4,3.9,4.1\n",
    )
    .unwrap();
    let o = rollcall(&["report", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();

    let (header, shown) = md_table(&md, "Orderings: A's margin (A's score minus B's)");
    let margin = header
        .iter()
        .position(|h| h == "A's margin (95% interval)")
        .expect("the margin column carries its interval");
    assert_eq!(shown.len(), rows.len());
    for (row, r) in shown.iter().zip(&rows) {
        let m: f64 = r["a_margin"].parse().unwrap();
        let high: f64 = r["a_margin_ci95_high"].parse().unwrap();
        if high == m {
            // No spread (the margin is the same in every trial): the number alone.
            let shown: f64 = row[margin].parse().unwrap();
            assert!(
                (shown - m).abs() <= 0.005 + 1e-9,
                "margin: {} vs {m}",
                row[margin]
            );
        } else {
            assert_mean(&row[margin], m, high, "margin");
        }
    }

    let (header, shown) = md_table(
        &md,
        "Equilibrium: how often each player lays each ordering, and the game's value for A",
    );
    assert_eq!(header, ["player", "plays", "value for A (95% interval)"]);
    assert_eq!(shown[0], ["A", "eclair>epee always", "4.00 ± 0.10"]);
    assert_eq!(shown[1], ["B", "brume>bouclier 33.3%", "4.00 ± 0.10"]);
}

/// The SVG charts inside the element whose opening tag holds `marker`, up to the next `</div>`.
fn svgs_after<'a>(html: &'a str, marker: &str) -> Vec<&'a str> {
    let start = html.find(marker).unwrap_or_else(|| panic!("no {marker}"));
    let block = &html[start..start + html[start..].find("</div>").unwrap()];
    block.split("<svg").skip(1).collect()
}

#[test]
fn a_sweep_has_p_at_least_k_charts_one_line_per_sweep_value() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_with_report("rally-odds", "2000", tmp.path());
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    // restored comes first (see the reading-order test); its charts: one per Resolve test
    // and rule set, 5 x 2, each with a line per size: sizes 6 to 15 with 5 alive are 1 to
    // 10 missing.
    let charts = svgs_after(&html, "class=\"charts at-least\"");
    assert_eq!(charts.len(), 10);
    let first = charts[0];
    assert!(
        first.contains("wardens restored: P(at least k), wardens resolve: 2+, wardens rules: none")
    );
    // A series is drawn in its own colour, 2 pixels wide (the axes are black and thinner).
    let colours: std::collections::HashSet<&str> = first
        .split("<polyline")
        .skip(1)
        .filter(|p| p.contains("stroke-width=\"2\""))
        .map(|p| {
            p.split("stroke=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(colours.len(), 10, "one line per size: {colours:?}");
    for missing in 1..=10 {
        let name = format!("{missing} missing (size {})", missing + 5);
        assert!(first.contains(&name), "legend lacks {name}");
    }
    // The legend sits below the plot: every legend name is drawn lower than the x axis
    // (the plot is 280 pixels high).
    let y_of = |name: &str| -> f64 {
        let at = first.find(name).unwrap();
        let tag = &first[first[..at].rfind("<text").unwrap()..at];
        let y = tag.split(" y=\"").nth(1).unwrap();
        y[..y.find('"').unwrap()].parse().unwrap()
    };
    assert!(y_of("1 missing (size 6)") > 280.0);
}

#[test]
fn a_size_sweep_with_none_missing_says_nothing_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("sizes.toml");
    // rally.toml's unit at full strength (alive = size) swept over its size.
    let text = std::fs::read_to_string(root().join("configs/rally.toml")).unwrap();
    let text: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("alive"))
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(
        &config,
        format!("{text}\n\n[sweep]\n\"unit.wardens.size\" = [5, 6]\n"),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = rollcall(&[
        "run",
        config.to_str().unwrap(),
        "--trials",
        "500",
        "--quiet",
        "--report",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(!md.contains("missing"), "{md}");
}

#[test]
fn a_share_of_trials_reads_as_a_percentage() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_with_report("exchange-rally", "4000", tmp.path());
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let row = csv_rows(&dir.join("summary.csv"))
        .into_iter()
        .find(|r| r["metric"] == "wardens.destroyed")
        .unwrap();
    let (mean, high): (f64, f64) = (
        row["mean"].parse().unwrap(),
        row["ci95_high"].parse().unwrap(),
    );
    let (header, rows) = md_table(&md, "wardens destroyed: mean (95% interval)");
    assert_eq!(header[1], "mean (95% interval)");
    let (share, half) = rows[0][1].split_once(" ± ").expect("share ± half-width");
    assert_percent(share, mean, "wardens destroyed");
    let half: f64 = half.strip_suffix('%').unwrap().parse().unwrap();
    assert!(
        (half - 100.0 * (high - mean)).abs() <= 0.05 + 1e-9,
        "{}",
        rows[0][1]
    );
    // A metric that counts models keeps two decimals, also when the mean is whole.
    let (_, rows) = md_table(&md, "wardens restored: mean (95% interval)");
    let mean = rows[0][1].split(' ').next().unwrap();
    assert_eq!(
        mean.split_once('.').map(|(_, d)| d.len()),
        Some(2),
        "{mean}"
    );
}

#[test]
fn metrics_a_reader_looks_for_come_before_the_bookkeeping() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_with_report("exchange-rally", "2000", tmp.path());
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let at = |heading: &str| {
        md.find(&format!("### {heading} ("))
            .unwrap_or_else(|| panic!("no section {heading}"))
    };
    assert!(at("wardens restored") < at("wardens destroyed"));
    assert!(at("wardens destroyed") < at("wardens alive"));
    assert!(at("wardens alive") < at("step2 resolved"));
}

#[test]
fn an_exact_report_has_no_interval_labels() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("exact");
    let o = rollcall(&[
        "exact",
        "configs/rally-odds.toml",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = rollcall(&["report", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for name in ["report.md", "report.html"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(!text.contains("interval)"), "{name} labels an interval");
        assert!(!text.contains(" ± "), "{name} shows a half-width");
        assert!(text.contains("mean (exact)"), "{name}");
    }
}

#[test]
fn warnings_in_run_json_show_near_the_top() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_with_report("rally", "500", tmp.path());
    let run = std::fs::read_to_string(dir.join("run.json")).unwrap();
    // The run wrote no warning (its Rally acts); give it one, as a run that warned would.
    assert!(run.contains("\"warnings\": []"), "{run}");
    let warned = run.replacen(
        "\"warnings\": []",
        "\"warnings\": [\"step 2 (rally) never acted: the wardens were never below strength\"]",
        1,
    );
    std::fs::write(dir.join("run.json"), warned).unwrap();
    let o = rollcall(&["report", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for (name, facts) in [
        ("report.md", "| The run |"),
        ("report.html", "id=\"facts\""),
    ] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let warning = text.find("never below strength").expect(name);
        assert!(
            warning < text.find(facts).unwrap(),
            "{name}: the warning comes after the facts"
        );
    }
    // An empty list, as the run wrote it, or none at all (an older run.json) shows nothing.
    let without = run.replacen("\"warnings\": []", "\"no_warnings_key\": []", 1);
    for run_json in [&run, &without] {
        std::fs::write(dir.join("run.json"), run_json).unwrap();
        let o = rollcall(&["report", dir.to_str().unwrap()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
        assert!(!md.contains("> **"), "{md}");
    }
}

#[test]
fn a_card_report_leads_with_the_equilibrium_then_the_payoff_matrix() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_with_report("cards-equilibrium", "2000", tmp.path());
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let at = |heading: &str| md.find(heading).unwrap_or_else(|| panic!("no {heading}"));
    assert!(at("| The run |") < at("## Equilibrium"));
    assert!(at("## Equilibrium") < at("## Payoff matrix"));
    assert!(at("## Payoff matrix") < at("## Card orderings"));
    assert!(at("## Card orderings") < at("## Metrics"));
    // The matrix of the config's comment, with A's initiative: x>y against c1>c2 4, against
    // c2>c1 3; y>x 1 and 4 (no chance at this point: each cell is the same every trial).
    let (header, rows) = md_table(
        &md,
        "Payoff matrix: A's mean margin for each pair of orderings, initiative: A",
    );
    assert_eq!(header, ["A \\ B", "c1>c2", "c2>c1"]);
    assert_eq!(rows, [["x>y", "4.00", "3.00"], ["y>x", "1.00", "4.00"]]);
    // A mixes x>y 3 times in 4: against c1>c2 3/4*4 + 1/4*1 = 3.25, against c2>c1
    // 3/4*3 + 1/4*4 = 3.25.
    let (_, rows) = md_table(
        &md,
        "Equilibrium: how often each player lays each ordering, and the game's value for A",
    );
    assert_eq!(rows[0], ["A", "A", "x>y 75.0%, y>x 25.0%", "3.25"]);
    // The random initiative has chance in it, and both mixes are the only ones.
    assert!(!md.contains("no chance in it"));
    assert!(!md.contains("not unique"));
    assert!(md.contains("value for A (95% interval)"), "{md}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        html.contains("<td style=\"background:#"),
        "the matrix is a heat map"
    );
}

#[test]
fn a_game_with_two_best_orderings_says_the_mix_is_not_unique() {
    let tmp = tempfile::tempdir().unwrap();
    // cards-equilibrium.toml with B's counter-action replaced by a blank card z. With A's
    // initiative (A1 B1 A2 B2), A's margin:
    //   x>y against c1>z: x scores 3 before C1 is laid, C1 waits for a spell that never
    //     comes, y scores 1: 4. Against z>c1: x 3, y 1: 4.
    //   y>x against c1>z: y 1, C1 cancels x: 1. Against z>c1: y 1, x 3 (C1 comes last): 4.
    // x>y guarantees 4, the most A can get (4 is the largest cell), so the value is 4 and
    // A plays x>y alone (y>x against any mix of B with c1>z in it gets less than 4). Against
    // x>y, both of B's orderings give 4: whichever mix B is given, the other ordering (or
    // any other mix) also reaches the value, so B's mix is not unique. Nothing is random.
    let text = std::fs::read_to_string(root().join("configs/cards-equilibrium.toml")).unwrap();
    let sweep = text.find("[sweep]").unwrap();
    let cards = text.find("[cards]").unwrap();
    let text = format!("{}{}", &text[..sweep], &text[cards..])
        .replace("\"c2\"", "\"z\"")
        .replace(
            "effects = [{ type = \"cancel\", kinds = [\"action\"] }]",
            "",
        );
    let config = tmp.path().join("two-optima.toml");
    std::fs::write(&config, text).unwrap();
    let out = tmp.path().join("out");
    let o = rollcall(&[
        "run",
        config.to_str().unwrap(),
        "--trials",
        "50",
        "--quiet",
        "--report",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let (_, rows) = md_table(
        &md,
        "Payoff matrix: A's mean margin for each pair of orderings",
    );
    assert_eq!(rows, [["x>y", "4.00", "4.00"], ["y>x", "1.00", "4.00"]]);
    assert!(md.contains("This game has no chance in it"));
    // Without chance the game's value is exact, and labelled so.
    assert!(md.contains("value for A (exact)"), "{md}");
    assert!(md.contains("B's equilibrium mix is not unique"), "{md}");
    assert!(!md.contains("A's equilibrium mix is not unique"));
}

#[test]
fn an_engagement_draws_its_rounds_one_line_per_sweep_point() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_with_report("duel", "20000", tmp.path());
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let rows = csv_rows(&dir.join("rounds.csv"));
    // Models alive per unit and P(won) per side, each a chart with a line per sweep point.
    for (id, title) in [
        ("rounds-wardens-alive", "wardens alive by round"),
        ("rounds-raiders-alive", "raiders alive by round"),
        ("rounds-blue-won", "P(blue won by round r)"),
        ("rounds-red-won", "P(red won by round r)"),
    ] {
        let charts = svgs_after(&html, &format!("<section id=\"{id}\">"));
        assert_eq!(charts.len(), 1, "{id}");
        // A series is drawn in its own colour, 2 pixels wide (its legend mark too).
        let colours: std::collections::HashSet<&str> = charts[0]
            .split("<polyline")
            .skip(1)
            .filter(|p| p.contains("stroke-width=\"2\""))
            .filter_map(|p| p.split("stroke=\"").nth(1)?.split('"').next())
            .collect();
        assert_eq!(colours.len(), 3, "{id}: one line per sweep point");
        assert!(charts[0].contains(title), "{id} lacks its title");
    }
    // The Markdown grid holds the CSV's means: rows are rounds, columns sweep points.
    let (header, grid) = md_table(&md, "P(blue won by round r)");
    assert_eq!(grid.len(), 7, "rounds 0 to 6");
    let key = "unit.wardens.orders.#1.when";
    for (c, when) in ["missing >= 2 and not enemy_within(1)", "missing > size"]
        .iter()
        .enumerate()
    {
        let column = 1 + if c == 0 { 0 } else { 2 };
        assert!(
            header[column].contains(&when.replace('|', "\\|")),
            "{header:?}"
        );
        for (round, cells) in grid.iter().enumerate() {
            let row = rows
                .iter()
                .find(|r| {
                    r[key] == *when && r["metric"] == "blue.won" && r["round"] == round.to_string()
                })
                .unwrap();
            let mean: f64 = row["mean"].parse().unwrap();
            let shown = cells[column].split(' ').next().unwrap();
            assert_percent(shown, mean, &format!("round {round}, {when}"));
        }
    }
    // Exact tables are labelled exact.
    let exact = tmp.path().join("exact");
    let o = rollcall(&[
        "exact",
        "configs/duel.toml",
        "--out",
        exact.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = rollcall(&["report", exact.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(exact.join("report.html")).unwrap();
    assert!(html.contains("P(blue won by round r) (exact)"));
}
