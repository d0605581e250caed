//! Helpers shared by the statistical tests: compile a scenario text, run it, read a metric,
//! and compare a histogram with an exact pmf within 5 standard errors and by chi-square.
#![allow(dead_code)]

pub mod process;
pub mod shootout;

use rollcall::engine::{self, Gathered, Monitor, RunSpec, Shard, Trial};
use rollcall::rules::Plan;
use rollcall::scenario;
use rollcall::stats::{chi_square, Histogram};

pub const TRIALS: u64 = 400_000;

pub fn plan(text: &str, general: bool) -> Plan {
    let set = scenario::parse(text, "test.toml", &[]).expect("test scenario is valid");
    let plan = Plan::compile(set.variants[0].scenario());
    if general {
        plan.force_general_path()
    } else {
        plan
    }
}

pub fn gather(plan: &Plan, trials: u64, seed: u64, threads: usize) -> Gathered {
    let spec = RunSpec {
        trials,
        seed,
        threads,
        shard: Shard::WHOLE,
        precision: None,
    };
    engine::run(plan, &spec, &Monitor::default())
        .expect("engine runs")
        .gathered
}

pub fn metric<'a>(plan: &Plan, g: &'a Gathered, name: &str) -> &'a Histogram {
    let i = plan
        .metrics()
        .iter()
        .position(|m| m.name == name)
        .unwrap_or_else(|| panic!("no metric {name}"));
    &g.metrics[i]
}

/// C(n, k) p^k (1-p)^(n-k), from the formula (not from the simulator's tables).
pub fn binomial_pmf(n: u32, p: f64) -> Vec<(i64, f64)> {
    let choose = |k: u32| -> f64 { (0..k).map(|i| (n - i) as f64 / (i + 1) as f64).product() };
    (0..=n)
        .map(|k| {
            (
                k as i64,
                choose(k) * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32),
            )
        })
        .collect()
}

/// The variance of X - Y when both are drawn from one uniform U by their inverse CDFs
/// (X = F^-1(U), Y = G^-1(U)), as two arms reading one word through monotone tables are:
/// the integral over U of (F^-1(U) - G^-1(U))^2, taken piece by piece between the two CDFs'
/// steps, less the squared difference of the means. `a` and `b` are pmfs sorted by value.
pub fn comonotone_difference_variance(a: &[(i64, f64)], b: &[(i64, f64)]) -> f64 {
    let mean = |p: &[(i64, f64)]| p.iter().map(|&(v, q)| v as f64 * q).sum::<f64>();
    let (mut i, mut j) = (0, 0);
    let (mut left_a, mut left_b) = (a[0].1, b[0].1);
    let mut square = 0.0;
    while i < a.len() && j < b.len() {
        // U runs through a piece where X = a[i] and Y = b[j] for the shorter of what is left.
        let width = left_a.min(left_b);
        let d = (a[i].0 - b[j].0) as f64;
        square += width * d * d;
        left_a -= width;
        left_b -= width;
        if left_a <= 1e-15 {
            i += 1;
            left_a = a.get(i).map_or(0.0, |x| x.1);
        }
        if left_b <= 1e-15 {
            j += 1;
            left_b = b.get(j).map_or(0.0, |x| x.1);
        }
    }
    let d = mean(a) - mean(b);
    square - d * d
}

/// Checks a histogram against a pmf: chi-square p-value above 1e-6 (a 5-sigma-like bar), and
/// each probability within 5 standard errors sqrt(p(1-p)/n).
pub fn assert_fits(h: &Histogram, pmf: &[(i64, f64)], what: &str) {
    let n = h.total() as f64;
    for &(v, p) in pmf {
        let observed = h.count(v) as f64 / n;
        let se = (p * (1.0 - p) / n).sqrt().max(1.0 / n);
        assert!(
            (observed - p).abs() <= 5.0 * se,
            "{what}: P({v}) observed {observed}, expected {p} (5 se = {})",
            5.0 * se
        );
    }
    let fit = chi_square(h, pmf);
    assert!(
        fit.p_value > 1e-6,
        "{what}: chi-square {} on {} df, p = {}",
        fit.statistic,
        fit.degrees_of_freedom,
        fit.p_value
    );
}

/// Asserts that the fraction of trials where `pred(value)` holds is within 5 standard errors
/// of `p`.
pub fn assert_probability(h: &Histogram, pred: impl Fn(i64) -> bool, p: f64, what: &str) {
    let n = h.total() as f64;
    let hits: u64 = h.iter().filter(|&(v, _)| pred(v)).map(|(_, c)| c).sum();
    let observed = hits as f64 / n;
    let se = (p * (1.0 - p) / n).sqrt().max(1.0 / n);
    assert!(
        (observed - p).abs() <= 5.0 * se,
        "{what}: observed {observed}, expected {p} (5 se = {})",
        5.0 * se
    );
}

/// The single value every trial gave, or a panic naming the metric.
pub fn constant(h: &Histogram, what: &str) -> i64 {
    let cells: Vec<(i64, u64)> = h.iter().collect();
    assert_eq!(cells.len(), 1, "{what} varies: {cells:?}");
    cells[0].0
}

// Scenarios shared by the Monte Carlo and exact tests.

/// A shooter 10" from a target, both one 1-HP model unless the extra keys say otherwise.
pub fn duel(shooter_extra: &str, target_extra: &str, options: &str) -> String {
    let target_size = if target_extra.contains("size =") {
        ""
    } else {
        "size = 1"
    };
    format!(
        r#"
[scenario]
name = "duel"
[options]
{options}
[[unit]]
id = "masters"
side = "blue"
size = 1
resolve = "d6>=4"
weapon = {{ attacks = 1, hit = "d6>=4", damage = 1, range = 24.0 }}
models = [[10.0, 10.0]]
{shooter_extra}
[[unit]]
id = "target"
side = "red"
{target_size}
resolve = "d6>=4"
models = [[20.0, 10.0]]
{target_extra}
[[step]]
unit = "masters"
command = "shoot"
target = "target"
"#
    )
}

pub const MASTERS: &str = r#"rules = ["call_of_the_masters"]"#;

/// 2 models of 3 HP under 3 attacks hitting on 4+ (no save), 2 damage each.
pub fn wounds(spill: bool) -> String {
    format!(
        r#"
[scenario]
name = "wounds"
[options]
spill = {spill}
[[unit]]
id = "guns"
side = "blue"
size = 1
resolve = "d6>=4"
weapon = {{ attacks = 3, hit = "d6>=4", damage = 2, range = 24.0 }}
models = [[10.0, 10.0]]
[[unit]]
id = "ogres"
side = "red"
size = 2
hp = 3
resolve = "d6>=4"
models = [[20.0, 10.0], [22.0, 10.0]]
[[step]]
unit = "guns"
command = "shoot"
target = "ogres"
"#
    )
}

/// Runs the release binary from the project folder.
pub fn rollcall(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// Runs the binary and requires it to succeed.
pub fn ok(args: &[&str]) {
    let out = rollcall(args);
    assert!(
        out.status.success(),
        "rollcall {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs scenario `text` with `--validate` (and `extra` arguments) from a temporary file,
/// requires it to succeed and every row of validation.csv to pass; returns validation.csv.
pub fn validated(text: &str, extra: &[&str]) -> String {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let file = tmp.path().join("scenario.toml");
    std::fs::write(&file, text).expect("the scenario is written");
    let dir = tmp.path().join("v");
    let path = |p: &std::path::Path| p.to_str().expect("a UTF-8 temporary path").to_owned();
    let (file, out) = (path(&file), path(&dir));
    let mut args = vec![
        "run",
        file.as_str(),
        "--validate",
        "--quiet",
        "--out",
        out.as_str(),
    ];
    args.extend(extra);
    ok(&args);
    let csv = std::fs::read_to_string(dir.join("validation.csv")).expect("validation.csv");
    assert!(csv.lines().skip(1).all(|l| l.ends_with(",pass")), "{csv}");
    csv
}

/// Rows of a CSV file as maps from column name to cell.
pub fn csv_rows(path: &std::path::Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).expect("a CSV file");
    let header = reader.headers().expect("a header").clone();
    reader
        .records()
        .map(|r| {
            let r = r.expect("a record");
            header
                .iter()
                .zip(r.iter())
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}
