//! Sweep points share random numbers: trial t draws the same words at every point, and
//! `compare.csv` compares each point with the first, trial by trial. Expected values come
//! from the rules (what a sweep key cannot change is equal in every trial) and from closed
//! forms written here.

use crate::common;

use common::{binomial_pmf, comonotone_difference_variance, csv_rows, rollcall};
use std::collections::HashMap;
use std::path::Path;

fn run(dir: &Path, name: &str, text: &str) -> Vec<HashMap<String, String>> {
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, text).unwrap();
    let out_dir = dir.join(name);
    let out = rollcall(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    csv_rows(&out_dir.join("compare.csv"))
}

fn row<'a>(rows: &'a [HashMap<String, String>], metric: &str) -> &'a HashMap<String, String> {
    rows.iter()
        .find(|r| r["metric"] == metric)
        .unwrap_or_else(|| panic!("no compare row for {metric}"))
}

fn number(r: &HashMap<String, String>, column: &str) -> f64 {
    r[column].parse().unwrap()
}

const RALLY: &str = r#"
[scenario]
name = "sweep"
trials = 200_000
seed = 11
[[unit]]
id = "w"
side = "blue"
size = 10
alive = 5
resolve = "d6>=4"
formation = { kind = "line", x = 10.0, y = 24.0, spacing = 1.5 }
[[step]]
unit = "w"
command = "rally"
"#;

#[test]
fn points_that_differ_only_where_nothing_binds_are_equal_in_every_trial() {
    // On an open field a Rally's outcome does not depend on where the unit stands, so moving
    // it changes nothing in any trial: every paired difference is exactly 0.
    let tmp = tempfile::tempdir().unwrap();
    let text = format!("{RALLY}[sweep]\n\"unit.w.formation.x\" = [10.0, 14.0]\n");
    let rows = run(tmp.path(), "moved", &text);
    assert!(!rows.is_empty());
    for r in &rows {
        assert_eq!(r["second"], "unit.w.formation.x=10.0", "{r:?}");
        assert_eq!(r["first"], "unit.w.formation.x=14.0", "{r:?}");
        assert_eq!(number(r, "p_equal"), 1.0, "{r:?}");
        assert_eq!(number(r, "mean_diff"), 0.0, "{r:?}");
    }
}

#[test]
fn the_comonotone_variance_of_two_bernoullis_is_the_hand_calculation() {
    // X = 1 when U > 1/2, Y = 1 when U > 2/3: X - Y is 1 on (1/2, 2/3] and 0 elsewhere, so
    // E[(X - Y)^2] = 1/6, E[X - Y] = 1/6 and the variance is 1/6 - 1/36 = 5/36.
    let x = [(0, 0.5), (1, 0.5)];
    let y = [(0, 2.0 / 3.0), (1, 1.0 / 3.0)];
    assert!((comonotone_difference_variance(&x, &y) - 5.0 / 36.0).abs() < 1e-12);
    assert!(comonotone_difference_variance(&x, &x).abs() < 1e-12);
}

#[test]
fn a_higher_chance_never_restores_fewer_on_the_same_trial() {
    // One word draws the count, and the count a word draws never falls as the chance rises:
    // on common random numbers 3+ restores at least as many as 4+ in every trial. Its mean
    // gain is 5 (2/3 - 1/2) = 5/6; both counts come from that one word through their inverse
    // CDFs, Binomial(5, 1/2) and Binomial(5, 2/3), so the paired difference's variance is the
    // comonotone one.
    let tmp = tempfile::tempdir().unwrap();
    let text = format!("{RALLY}[sweep]\n\"unit.w.resolve\" = [\"d6>=4\", \"d6>=3\"]\n");
    let rows = run(tmp.path(), "chance", &text);
    let r = row(&rows, "w.restored");
    assert_eq!(number(r, "p_second_higher"), 0.0, "{r:?}");
    let variance =
        comonotone_difference_variance(&binomial_pmf(5, 2.0 / 3.0), &binomial_pmf(5, 0.5));
    let se = (variance / 200_000.0).sqrt();
    let diff = number(r, "mean_diff");
    assert!(
        (diff - 5.0 / 6.0).abs() < 5.0 * se,
        "mean gain {diff}, expected 5/6 within {}",
        5.0 * se
    );
}

#[test]
fn call_of_the_masters_on_a_later_step_leaves_the_shooting_before_it_alone() {
    // The hunters shoot the wardens, who Rally next round; the sweep gives the wardens Call
    // of the Masters. The Shoot comes first and draws the same words at both points, so its
    // outcome is the same in every trial; only the Rally after it differs.
    let tmp = tempfile::tempdir().unwrap();
    let text = r#"
[scenario]
name = "later"
trials = 100_000
seed = 5
[[unit]]
id = "hunters"
side = "red"
size = 5
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=4", damage = 1, range = 24.0 }
formation = { kind = "line", x = 18.0, y = 36.0, spacing = 1.5 }
[[unit]]
id = "wardens"
side = "blue"
size = 10
alive = 8
resolve = "d6>=4"
defense = "d6>=5"
formation = { kind = "grid", x = 20.0, y = 20.0, spacing = 1.5, columns = 4 }
[[step]]
unit = "hunters"
command = "shoot"
target = "wardens"
[[step]]
unit = "wardens"
command = "rally"
round = 2
[sweep]
"unit.wardens.rules" = [[], ["call_of_the_masters"]]
"#;
    let rows = run(tmp.path(), "later", text);
    for metric in ["wardens.damage_taken", "step1.resolved"] {
        let r = row(&rows, metric);
        assert_eq!(number(r, "p_equal"), 1.0, "{metric}: {r:?}");
    }
    // The doubled Rally does restore more in some trials, and never fewer: the second test
    // of a doubled Rally only adds models.
    let r = row(&rows, "wardens.restored");
    assert!(number(r, "p_first_higher") > 0.1, "{r:?}");
    assert_eq!(number(r, "p_second_higher"), 0.0, "{r:?}");
}
