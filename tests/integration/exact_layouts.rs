//! The exact engine with layouts in its states: Rally after losses and Shoot after Rally,
//! checked against a Markov chain over counts written out here (where placement never binds,
//! so counts are all the chain needs) and against the simulation by chi-square (where the
//! room within 2" of the survivors caps what Rally restores).

use rollcall::exact;
use rollcall::output::ExactReport;
use rollcall::scenario;
use rollcall::stats::Histogram;
use statrs::distribution::{ChiSquared, ContinuousCDF};
use std::collections::BTreeMap;

use crate::common;

use common::binomial_pmf;

fn exact_of(text: &str) -> ExactReport {
    let set = scenario::parse(text, "test.toml", &[]).expect("test scenario is valid");
    exact::report(&set, &[]).expect("the exact engine applies")
}

fn pmf(r: &ExactReport, metric: &str) -> Vec<(i64, f64)> {
    r.variants[0]
        .metrics
        .iter()
        .find(|m| m.metric == metric)
        .unwrap_or_else(|| panic!("no metric {metric}"))
        .pmf
        .clone()
}

fn assert_pmf(got: &[(i64, f64)], want: &BTreeMap<i64, f64>, what: &str) {
    let get = |v: i64| got.iter().find(|&&(w, _)| w == v).map_or(0.0, |&(_, p)| p);
    for (&v, &p) in want {
        assert!(
            (get(v) - p).abs() <= 1e-9,
            "{what}: P({v}) = {}, the chain says {p}",
            get(v)
        );
    }
    for &(v, p) in got {
        assert!(want.contains_key(&v) || p <= 1e-9, "{what}: P({v}) = {p}");
    }
}

/// Six hunters (Call of the Masters, 1 attack hitting on 4+) and six wardens (save 5+,
/// Resolve 4+) 3" apart on an open field: round 1 the hunters shoot twice, round 2 the
/// wardens Rally, round 3 the hunters shoot twice, round 4 the wardens Rally. Around any
/// survivor there are six spots in base contact alone, so Rally always finds room for the
/// (at most five) missing models.
const CHAIN: &str = r#"
[scenario]
name = "chain"
[battlefield]
width = 48.0
height = 48.0
[[unit]]
id = "hunters"
side = "red"
size = 6
resolve = "d6>=4"
rules = ["call_of_the_masters"]
weapon = { attacks = 1, hit = "d6>=4", damage = 1, range = 48.0 }
formation = { kind = "line", x = 10.0, y = 40.0, spacing = 1.5 }
[[unit]]
id = "wardens"
side = "blue"
size = 6
resolve = "d6>=4"
defense = "d6>=5"
formation = { kind = "grid", x = 20.0, y = 20.0, spacing = 3.0, columns = 3 }
[[step]]
unit = "hunters"
command = "shoot"
target = "wardens"
round = 1
[[step]]
unit = "wardens"
command = "rally"
round = 2
[[step]]
unit = "hunters"
command = "shoot"
target = "wardens"
round = 3
[[step]]
unit = "wardens"
command = "rally"
round = 4
"#;

/// The chain's state: wardens alive, lost, restored, and the fizzled uses of the first
/// doubled Shoot, whether the first Rally was ineligible.
type Counts = (u32, u32, u32, u32, u32);

#[test]
fn doubled_shoot_rally_doubled_shoot_rally_is_its_markov_chain() {
    // Per use: six attacks, each killing with 1/2 x 2/3 = 1/3 (one-HP wardens). A use at
    // no warden fizzles. Rally: one Resolve test at 1/2 per missing model, every success
    // placed; a unit with no model cannot declare it.
    let kill = binomial_pmf(6, 1.0 / 3.0);
    let shoot = |chain: BTreeMap<Counts, f64>, first: bool| {
        let mut chain = chain;
        for _ in 0..2 {
            let mut next = BTreeMap::new();
            for ((a, lost, restored, fizzled, inel), p) in chain {
                if a == 0 {
                    let f = fizzled + u32::from(first);
                    *next.entry((a, lost, restored, f, inel)).or_insert(0.0) += p;
                    continue;
                }
                for &(k, q) in &kill {
                    let k = (k as u32).min(a);
                    *next
                        .entry((a - k, lost + k, restored, fizzled, inel))
                        .or_insert(0.0) += p * q;
                }
            }
            chain = next;
        }
        chain
    };
    let rally = |chain: BTreeMap<Counts, f64>, first: bool| {
        let mut next = BTreeMap::new();
        for ((a, lost, restored, fizzled, inel), p) in chain {
            if a == 0 {
                let i = inel + u32::from(first);
                *next.entry((a, lost, restored, fizzled, i)).or_insert(0.0) += p;
                continue;
            }
            for (r, q) in binomial_pmf(6 - a, 0.5) {
                let r = r as u32;
                *next
                    .entry((a + r, lost, restored + r, fizzled, inel))
                    .or_insert(0.0) += p * q;
            }
        }
        next
    };
    let start = BTreeMap::from([((6, 0, 0, 0, 0), 1.0)]);
    let end = rally(shoot(rally(shoot(start, true), true), false), false);
    let marginal = |f: &dyn Fn(&Counts) -> i64| {
        let mut m = BTreeMap::new();
        for (c, &p) in &end {
            *m.entry(f(c)).or_insert(0.0) += p;
        }
        m
    };
    let r = exact_of(CHAIN);
    assert_pmf(
        &pmf(&r, "wardens.alive"),
        &marginal(&|c| i64::from(c.0)),
        "alive",
    );
    assert_pmf(
        &pmf(&r, "wardens.lost"),
        &marginal(&|c| i64::from(c.1)),
        "lost",
    );
    assert_pmf(
        &pmf(&r, "wardens.restored"),
        &marginal(&|c| i64::from(c.2)),
        "restored",
    );
    assert_pmf(
        &pmf(&r, "wardens.destroyed"),
        &marginal(&|c| i64::from(c.0 == 0)),
        "destroyed",
    );
    assert_pmf(
        &pmf(&r, "step1.fizzled"),
        &marginal(&|c| i64::from(c.3)),
        "fizzled",
    );
    assert_pmf(
        &pmf(&r, "step2.ineligible"),
        &marginal(&|c| i64::from(c.4)),
        "ineligible",
    );
}

/// A corridor one base wide between impassable walls, from the table's left edge: eight of
/// twelve wardens stand touching at x = 3.5..10.5, the hunters (Call of the Masters) at
/// x = 14.5..17.5 shoot them twice, the nearest first, then the wardens (Call of the Masters)
/// Rally twice. A use places only on the corridor's line within 3" (centre to centre) of the
/// models alive when it began, 1" apart, on the table and not within 1" of a hunter (x at
/// most 11.5): the first use three spots on the left (x = 2.5, 1.5, 0.5) and on the right as
/// many as the kills freed up to three, the second use none on the left and on the right
/// what the first left. So what Rally restores is capped by where the survivors and the
/// first use's models stand.
const CORRIDOR: &str = r#"
[scenario]
name = "corridor"
[battlefield]
width = 48.0
height = 24.0
terrain = [
  { x = 0.0, y = 0.0, width = 48.0, height = 11.5 },
  { x = 0.0, y = 12.5, width = 48.0, height = 11.5 },
]
[[unit]]
id = "hunters"
side = "red"
size = 4
resolve = "d6>=4"
rules = ["call_of_the_masters"]
weapon = { attacks = 1, hit = "d6>=4", damage = 1, range = 48.0 }
models = [[14.5, 12.0], [15.5, 12.0], [16.5, 12.0], [17.5, 12.0]]
[[unit]]
id = "wardens"
side = "blue"
size = 12
alive = 8
resolve = "d6>=4"
rules = ["call_of_the_masters"]
models = [[3.5, 12.0], [4.5, 12.0], [5.5, 12.0], [6.5, 12.0], [7.5, 12.0], [8.5, 12.0], [9.5, 12.0], [10.5, 12.0]]
[[step]]
unit = "hunters"
command = "shoot"
target = "wardens"
[[step]]
unit = "wardens"
command = "rally"
round = 2
"#;

/// Pearson's statistic of `h` against `pmf`, cells pooled in value order until each expects
/// at least 5 trials (the remainder joining the last), and its degrees of freedom.
fn pearson(h: &Histogram, pmf: &[(i64, f64)]) -> (f64, usize) {
    let n = h.total() as f64;
    let mut cells: Vec<(f64, f64)> = Vec::new();
    let (mut expected, mut observed) = (0.0, 0.0);
    for &(v, p) in pmf {
        expected += n * p;
        observed += h.count(v) as f64;
        if expected >= 5.0 {
            cells.push((expected, observed));
            (expected, observed) = (0.0, 0.0);
        }
    }
    match cells.last_mut() {
        Some(last) => {
            last.0 += expected;
            last.1 += observed;
        }
        None => cells.push((expected, observed)),
    }
    let total: u64 = pmf.iter().map(|&(v, _)| h.count(v)).sum();
    assert_eq!(
        total,
        h.total(),
        "the simulation gave a value the exact pmf rules out"
    );
    let statistic = cells.iter().map(|&(e, o)| (o - e) * (o - e) / e).sum();
    (statistic, cells.len().saturating_sub(1))
}

#[test]
fn where_room_caps_rally_after_losses_the_simulation_agrees_by_chi_square() {
    let r = exact_of(CORRIDOR);
    let restored = pmf(&r, "wardens.restored");
    // Placement binds. Uncapped, the hunters' two uses kill Binomial(8, 1/2) (none can
    // fizzle: four attacks cannot kill eight), and each of the 4 + k missing models comes
    // back with 1 - (1/2)^2 = 3/4 over the two uses, so the wardens end whole with
    // E[(3/4)^(4+k)] = (3/4)^4 ((1 + 3/4) / 2)^8, about 0.109.
    let alive = pmf(&r, "wardens.alive");
    let whole = alive
        .iter()
        .find(|&&(v, _)| v == 12)
        .map_or(0.0, |&(_, p)| p);
    let uncapped = 0.75f64.powi(4) * 0.875f64.powi(8);
    assert!(whole < uncapped - 0.01, "{whole} vs uncapped {uncapped}");
    let plan = common::plan(CORRIDOR, false);
    let g = common::gather(&plan, 200_000, 20_261_201, 2);
    for (name, exact) in [("wardens.restored", &restored), ("wardens.alive", &alive)] {
        let (statistic, df) = pearson(common::metric(&plan, &g, name), exact);
        assert!(df >= 3, "{name}: only {df} degrees of freedom");
        // The p-value bar `run --validate` uses, 1e-6, as a quantile.
        let bar = ChiSquared::new(df as f64).unwrap().inverse_cdf(1.0 - 1e-6);
        assert!(
            statistic <= bar,
            "{name}: chi-square {statistic} on {df} df, over {bar}"
        );
    }
}

/// Multi-HP models, rolled attacks and damage with spill, Covering Fire and random answers,
/// both sides Rallying after losses and shooting after Rallies, with ranges (14" and 12")
/// that reach only some of the models wherever the dice left them.
const EXCHANGE: &str = r#"
[scenario]
name = "cf"
[battlefield]
width = 48.0
height = 48.0
[options]
spill = true
[[unit]]
id = "hunters"
side = "red"
size = 6
hp = 2
resolve = "d6>=4"
rules = ["call_of_the_masters"]
response = "random"
defense = "d6>=5"
weapon = { attacks = "d3", hit = "d6>=4", damage = "d3", range = 14.0 }
formation = { kind = "grid", x = 10.0, y = 20.0, spacing = 1.5, columns = 3 }
[[unit]]
id = "wardens"
side = "blue"
size = 8
hp = 2
resolve = "d6>=4"
response = "covering_fire"
defense = "d6>=5"
weapon = { attacks = 1, hit = "d6>=4", damage = 2, range = 12.0 }
formation = { kind = "grid", x = 22.0, y = 20.0, spacing = 2.0, columns = 4 }
[[step]]
unit = "hunters"
command = "shoot"
target = "wardens"
[[step]]
unit = "wardens"
command = "rally"
round = 2
[[step]]
unit = "wardens"
command = "shoot"
target = "hunters"
round = 3
[[step]]
unit = "hunters"
command = "rally"
round = 4
[[step]]
unit = "hunters"
command = "shoot"
target = "wardens"
round = 5
"#;

#[test]
fn an_exchange_with_responses_and_rallies_after_losses_validates() {
    let csv = common::validated(EXCHANGE, &["--trials", "200000", "--seed", "11"]);
    // Range after the Rallies is decided by where models stand: sometimes in, sometimes out.
    let r = exact_of(EXCHANGE);
    let out_of_range = pmf(&r, "step3.ineligible");
    assert!(
        out_of_range.iter().all(|&(_, p)| p > 0.01),
        "{out_of_range:?}"
    );
    assert!(csv.contains(",wardens.restored,") && csv.contains(",hunters.restored,"));
}
