//! Rally and Call of the Masters against independent truth: binomial closed forms, a placement
//! capacity worked out by hand, and eligibility rules. Every run has its own fixed seed;
//! tolerances are 5 standard errors, and whole distributions are checked by chi-square.

use crate::common;

use common::{assert_fits, binomial_pmf, gather, metric, plan, TRIALS};

fn open_field(size: u32, alive: u32, resolve: &str, masters: bool) -> String {
    format!(
        r#"
[scenario]
name = "open"
[battlefield]
width = 60.0
height = 60.0
[[unit]]
id = "wardens"
side = "blue"
size = {size}
alive = {alive}
resolve = "{resolve}"
rules = {rules}
formation = {{ kind = "grid", x = 20.0, y = 20.0, spacing = 3.0, columns = 4 }}
[[step]]
unit = "wardens"
command = "rally"
"#,
        rules = if masters {
            r#"["call_of_the_masters"]"#
        } else {
            "[]"
        }
    )
}

#[test]
fn open_field_rally_restores_binomial_m_p() {
    // (missing m, test, p): 5 missing on 4+ (p = 1/2) and 7 missing on 5+ (p = 1/3).
    for (seed, size, alive, test, p) in [(11, 10, 5, "d6>=4", 0.5), (12, 12, 5, "d6>=5", 1.0 / 3.0)]
    {
        let plan = plan(&open_field(size, alive, test, false), false);
        let g = gather(&plan, TRIALS, seed, 2);
        let m = size - alive;
        assert_fits(
            metric(&plan, &g, "wardens.restored"),
            &binomial_pmf(m, p),
            &format!("Rally m = {m}, {test}"),
        );
        let alive_pmf: Vec<(i64, f64)> = binomial_pmf(m, p)
            .into_iter()
            .map(|(k, q)| (k + alive as i64, q))
            .collect();
        assert_fits(metric(&plan, &g, "wardens.alive"), &alive_pmf, "alive");
    }
}

#[test]
fn doubled_rally_restores_binomial_m_one_minus_q_squared() {
    // Use 2 rolls for every model use 1 left missing, so each missing model comes back with
    // probability 1 - (1 - p)^2: 3/4 for 4+, 5/9 for 5+.
    for (seed, size, alive, test, p) in [(21, 10, 4, "d6>=4", 0.5), (22, 9, 2, "d6>=5", 1.0 / 3.0)]
    {
        let plan = plan(&open_field(size, alive, test, true), false);
        let g = gather(&plan, TRIALS, seed, 2);
        let q = 1.0 - (1.0 - p) * (1.0 - p);
        assert_fits(
            metric(&plan, &g, "wardens.restored"),
            &binomial_pmf(size - alive, q),
            &format!("doubled Rally, {test}"),
        );
        // Both uses resolved every trial: Call of the Masters' restrictions never block use 2.
        assert_eq!(
            metric(&plan, &g, "step1.resolved")
                .iter()
                .collect::<Vec<_>>(),
            [(2, TRIALS)]
        );
    }
}

/// One model in a corridor one base wide (walls of impassable terrain above and below).
fn corridor(masters: bool, chain: bool) -> String {
    format!(
        r#"
[scenario]
name = "corridor"
[options]
rally.chain = {chain}
[battlefield]
width = 40.0
height = 24.0
terrain = [
  {{ x = 0.0, y = 0.0, width = 40.0, height = 11.5 }},
  {{ x = 0.0, y = 12.5, width = 40.0, height = 11.5 }},
]
[[unit]]
id = "pinned"
side = "blue"
size = 10
alive = 1
resolve = "d6>=3"
rules = {rules}
models = [[10.0, 12.0]]
[[step]]
unit = "pinned"
command = "rally"
"#,
        rules = if masters {
            r#"["call_of_the_masters"]"#
        } else {
            "[]"
        }
    )
}

#[test]
fn a_corridor_caps_restored_models_at_its_capacity() {
    // By hand: restored centres lie on y = 12, 1" to 3" from x = 10 (base contact to 2" edge
    // to edge) and 1" apart, so x in {7, 8, 9, 11, 12, 13}: capacity 6. With 9 missing on 3+
    // (p = 2/3), restored = min(Binomial(9, 2/3), 6).
    let plan = plan(&corridor(false, false), false);
    let g = gather(&plan, TRIALS, 31, 2);
    let pmf = binomial_pmf(9, 2.0 / 3.0);
    let mut capped: Vec<(i64, f64)> = pmf[..6].to_vec();
    capped.push((6, pmf[6..].iter().map(|&(_, q)| q).sum()));
    assert_fits(metric(&plan, &g, "pinned.restored"), &capped, "corridor");
    // P(at least 6 successes of 9 at 2/3) = (84*64 + 36*128 + 9*256 + 512) / 3^9 = 12800/19683.
    assert!((capped[6].1 - 12800.0 / 19683.0).abs() < 1e-12);
}

#[test]
fn a_chained_rally_fills_the_corridor() {
    // With rally.chain every restored model anchors the next, so the corridor never runs out
    // of room: restored ~ Binomial(9, 2/3).
    let plan = plan(&corridor(false, true), false);
    let g = gather(&plan, TRIALS, 32, 2);
    assert_fits(
        metric(&plan, &g, "pinned.restored"),
        &binomial_pmf(9, 2.0 / 3.0),
        "chained corridor",
    );
}

#[test]
fn an_enemy_within_one_inch_bars_rally_every_trial() {
    let text = r#"
[scenario]
name = "barred"
[[unit]]
id = "wardens"
side = "blue"
size = 10
alive = 3
resolve = "d6>=2"
formation = { kind = "line", x = 20.0, y = 24.0, spacing = 1.5 }
[[unit]]
id = "raiders"
side = "red"
size = 1
resolve = "d6>=4"
models = [[24.5, 24.0]]
[[step]]
unit = "wardens"
command = "rally"
"#;
    // The wardens' last model stands at x = 23, the raider at 24.5: 0.5" edge to edge.
    for general in [false, true] {
        let plan = plan(text, general);
        let g = gather(&plan, 100_000, 41, 2);
        let only = |name: &str| metric(&plan, &g, name).iter().collect::<Vec<_>>();
        assert_eq!(only("step1.ineligible"), [(1, 100_000)]);
        assert_eq!(only("step1.resolved"), [(0, 100_000)]);
        assert_eq!(only("wardens.restored"), [(0, 100_000)]);
        assert_eq!(only("wardens.alive"), [(3, 100_000)]);
    }
    // 1.5" away (edge to edge) the enemy no longer bars it.
    let far = text.replace("[[24.5, 24.0]]", "[[25.5, 24.0]]");
    let plan = plan(&far, false);
    let g = gather(&plan, 10_000, 42, 2);
    assert_eq!(
        metric(&plan, &g, "step1.ineligible")
            .iter()
            .collect::<Vec<_>>(),
        [(0, 10_000)]
    );
}

#[test]
fn rally_restrictions_bar_a_second_rally_until_the_round_ends() {
    let base = open_field(10, 4, "d6>=4", false);
    let twice = |round: u32| {
        format!("{base}\n[[step]]\nunit = \"wardens\"\ncommand = \"rally\"\nround = {round}\n")
    };
    // Same round: the token (and Rally's own restrictions) bar the second Rally.
    let plan_same = plan(&twice(1), false);
    let g = gather(&plan_same, 10_000, 51, 1);
    assert_eq!(
        metric(&plan_same, &g, "step2.ineligible")
            .iter()
            .collect::<Vec<_>>(),
        [(1, 10_000)]
    );
    // Next round: it resolves; two Rallies at 1/2 restore each of 6 missing with 3/4.
    let plan_next = plan(&twice(2), false);
    let g = gather(&plan_next, TRIALS, 52, 2);
    assert_eq!(
        metric(&plan_next, &g, "step2.resolved")
            .iter()
            .collect::<Vec<_>>(),
        [(1, TRIALS)]
    );
    assert_fits(
        metric(&plan_next, &g, "wardens.restored"),
        &binomial_pmf(6, 0.75),
        "two rounds of Rally",
    );
}

#[test]
fn no_model_alive_means_no_rally() {
    let text = open_field(5, 0, "d6>=2", false);
    let plan = plan(&text, false);
    let g = gather(&plan, 1_000, 61, 1);
    assert_eq!(
        metric(&plan, &g, "step1.ineligible")
            .iter()
            .collect::<Vec<_>>(),
        [(1, 1_000)]
    );
    assert_eq!(
        metric(&plan, &g, "wardens.destroyed")
            .iter()
            .collect::<Vec<_>>(),
        [(1, 1_000)]
    );
}

#[test]
fn fast_paths_agree_exactly_with_the_general_path() {
    // The outcome tree and the precomputed placements must give the very same
    // histograms as placing every model by geometry, crowded or not, doubled or not.
    let cases = [
        open_field(10, 5, "d6>=4", false),
        open_field(10, 4, "d6>=4", true),
        corridor(false, false),
        corridor(true, false),
        corridor(true, true),
    ];
    for (i, text) in cases.iter().enumerate() {
        let fast = gather(&plan(text, false), 200_000, 70 + i as u64, 2);
        let general = gather(&plan(text, true), 200_000, 70 + i as u64, 2);
        assert_eq!(fast, general, "case {i}");
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    for text in [open_field(10, 4, "d6>=4", true), corridor(false, false)] {
        let plan = plan(&text, false);
        let one = gather(&plan, 300_000, 81, 1);
        assert_eq!(one, gather(&plan, 300_000, 81, 2));
        assert_eq!(one, gather(&plan, 300_000, 81, 3));
        assert_ne!(
            one,
            gather(&plan, 300_000, 82, 2),
            "another seed, other results"
        );
    }
}
