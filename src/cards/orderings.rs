//! Enumerated plays: every ordering of `cards_per_turn` cards from a hand, the arm labels that
//! name a pair of orderings, and `orderings.csv`.
//!
//! An enumerating scenario plays every (A ordering, B ordering) pair as an arm of the same
//! trial, so all pairs see the same random numbers. Each arm's metrics carry the label
//! `A:<ids joined by '>'>|B:<...>` as their `choice`; card ids are letters, digits, `_` and
//! `-`, so the label parses back unambiguously, and a battle scenario's choice ids (the same
//! characters) can never look like one.
//!
//! `orderings.csv` columns:
//!
//! `scenario,<sweep params...>,row,a_ordering,b_ordering,trials,a_margin,a_margin_ci95_low,a_margin_ci95_high,<every metric...>`
//!
//! - `row = pair`: one row per pair of orderings; each metric column is that pair's mean.
//! - `row = a_average`: one per A ordering, `b_ordering = *`: each column averaged over B's
//!   orderings (each weighted equally).
//! - `row = a_worst`: one per A ordering: the pair whose B ordering is B's best reply, the
//!   one with the lowest `a_margin` (first in order on ties); `b_ordering` names it.
//! - `row = b_average`, `row = b_worst`: the same for each B ordering (B's worst case is the
//!   pair with the highest `a_margin`).
//!
//! `a_margin` = mean `A.score` - mean `B.score`, and its 95% interval is the Student t
//! interval of the per-trial margin (of the pair, or averaged over the row's pairs), from the
//! score pairs the engine gathers on common random numbers ([`super::margins`]); an average's
//! interval is left empty past [`super::margins::MAX_COVARIANCE_ARMS`] arms. Every mean is
//! computed from integer sums, with one rounding. A player that does not enumerate has one
//! "ordering", named by its script (`obesite>blaspheme`) or `random`.

use super::data::CardIx;
use super::margins::Margins;
use crate::output::{tables, Report};
use crate::stats::summary::mean_of;
use crate::stats::Sums;
use std::collections::HashSet;

/// One way to play a turn from a hand: the cards played, in slot order, and what stays in the
/// hand (in hand order).
#[derive(Debug, Clone, PartialEq)]
pub struct Ordering {
    pub played: Vec<CardIx>,
    pub rest: Vec<CardIx>,
}

/// Every ordering of `min(k, hand.len())` cards of `hand`, without repeats when the hand holds
/// the same card twice, in lexicographic order of hand positions.
pub fn enumerate(hand: &[CardIx], k: usize) -> Vec<Ordering> {
    let k = k.min(hand.len());
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut used = vec![false; hand.len()];
    let mut picked = Vec::with_capacity(k);
    fn go(
        hand: &[CardIx],
        k: usize,
        used: &mut [bool],
        picked: &mut Vec<usize>,
        seen: &mut HashSet<Vec<CardIx>>,
        out: &mut Vec<Ordering>,
    ) {
        if picked.len() == k {
            let played: Vec<CardIx> = picked.iter().map(|&i| hand[i]).collect();
            if seen.insert(played.clone()) {
                let rest = (0..hand.len())
                    .filter(|&i| !used[i])
                    .map(|i| hand[i])
                    .collect();
                out.push(Ordering { played, rest });
            }
            return;
        }
        for i in 0..hand.len() {
            if !used[i] {
                used[i] = true;
                picked.push(i);
                go(hand, k, used, picked, seen, out);
                picked.pop();
                used[i] = false;
            }
        }
    }
    go(hand, k, &mut used, &mut picked, &mut seen, &mut out);
    out
}

/// The number of distinct orderings [`enumerate`] gives (saturating at `usize::MAX`), counted
/// without listing them: sequences of `k` cards with at most as many copies of each card as
/// the hand holds, `Σ` over the copies `j` taken of each card of the ways to interleave them.
pub fn count(hand: &[CardIx], k: usize) -> usize {
    let k = k.min(hand.len());
    let mut copies = std::collections::BTreeMap::<CardIx, usize>::new();
    for &c in hand {
        *copies.entry(c).or_default() += 1;
    }
    // binomial(n, j) for n <= 64 fits: the running product stays below 2^70.
    let binomial = |n: usize, j: usize| -> u128 {
        (1..=j as u128).fold(1u128, |c, i| c * (n as u128 - j as u128 + i) / i)
    };
    // ways[l]: sequences of length l from the cards seen so far.
    let mut ways = vec![0u128; k + 1];
    ways[0] = 1;
    for &m in copies.values() {
        let mut next = vec![0u128; k + 1];
        for l in 0..=k {
            for j in 0..=m.min(k - l) {
                let add = ways[l].saturating_mul(binomial(l + j, j));
                next[l + j] = next[l + j].saturating_add(add);
            }
        }
        ways = next;
    }
    usize::try_from(ways[k]).unwrap_or(usize::MAX)
}

/// `a>b>c`, or `(none)` for an empty play.
pub fn ordering_label(ids: &[&str]) -> String {
    if ids.is_empty() {
        "(none)".into()
    } else {
        ids.join(">")
    }
}

/// The arm label `A:<a>|B:<b>`.
pub fn arm_label(a: &str, b: &str) -> String {
    format!("A:{a}|B:{b}")
}

fn parse_label(label: &str) -> Option<(&str, &str)> {
    let (a, b) = label.split_once('|')?;
    Some((a.strip_prefix("A:")?, b.strip_prefix("B:")?))
}

fn position_or_push(list: &mut Vec<String>, s: &str) -> usize {
    match list.iter().position(|x| x == s) {
        Some(i) => i,
        None => {
            list.push(s.to_string());
            list.len() - 1
        }
    }
}

/// One sweep point's arms, laid out by (A ordering, B ordering).
pub(crate) struct OrderingGrid {
    pub a: Vec<String>,
    pub b: Vec<String>,
    /// The metrics of every arm, in order.
    pub metrics: Vec<String>,
    /// `cells[ia][ib]`: the arm of that pair, `None` if the pair was not played.
    pub cells: Vec<Vec<Option<usize>>>,
    /// `sums[arm][j]`: exact sums of metric j of that arm.
    sums: Vec<Vec<Sums>>,
    pub margins: Margins,
}

impl OrderingGrid {
    /// Reads an enumerating variant; `None` when its choices are not pairs of orderings or
    /// it has no `A.score` and `B.score`.
    pub fn read(v: &crate::output::VariantReport) -> Option<OrderingGrid> {
        let mut a = Vec::new();
        let mut b = Vec::new();
        let mut metrics: Vec<String> = Vec::new();
        let mut arms: Vec<(usize, usize, usize)> = Vec::new();
        let mut sums: Vec<Vec<Sums>> = Vec::new();
        let mut current: Option<&str> = None;
        for (i, m) in v.metrics.iter().enumerate() {
            if current != Some(m.choice.as_str()) {
                let (la, lb) = parse_label(&m.choice)?;
                let (ia, ib) = (position_or_push(&mut a, la), position_or_push(&mut b, lb));
                arms.push((ia, ib, i));
                sums.push(Vec::new());
                current = Some(m.choice.as_str());
            }
            if arms.len() == 1 {
                metrics.push(m.metric.clone());
            }
            sums.last_mut()?.push(m.histogram.sums());
        }
        if arms.is_empty() || sums.iter().any(|s| s.len() != metrics.len()) {
            return None;
        }
        let score = |p: &str| metrics.iter().position(|m| *m == format!("{p}.score"));
        let (sa, sb) = (score("A")?, score("B")?);
        let scores: Vec<(usize, usize)> = arms.iter().map(|&(_, _, s)| (s + sa, s + sb)).collect();
        let margins = Margins::read(v, &scores)?;
        let mut cells = vec![vec![None; b.len()]; a.len()];
        for (arm, &(ia, ib, _)) in arms.iter().enumerate() {
            cells[ia][ib] = Some(arm);
        }
        Some(OrderingGrid {
            a,
            b,
            metrics,
            cells,
            sums,
            margins,
        })
    }

    /// The mean of metric j over `arms`, each weighted equally (they play the same trials),
    /// from the pooled integer sums.
    fn mean(&self, arms: &[usize], j: usize) -> f64 {
        let (n, sum) = arms.iter().fold((0u128, 0i128), |(n, sum), &arm| {
            let s = &self.sums[arm][j];
            (n + s.n, sum + s.sum)
        });
        if n == 0 {
            f64::NAN
        } else {
            mean_of(sum, n)
        }
    }

    /// Arms of A ordering `ia` (row) or of B ordering `ib` (column), in order.
    pub fn row(&self, ia: usize) -> Vec<usize> {
        self.cells[ia].iter().flatten().copied().collect()
    }

    pub fn column(&self, ib: usize) -> Vec<usize> {
        self.cells.iter().filter_map(|r| r[ib]).collect()
    }

    /// The mean margin of one arm.
    pub fn margin(&self, arm: usize) -> f64 {
        self.margins.average(&[arm]).0
    }
}

/// `orderings.csv` for scenarios where a player enumerates; `None` otherwise (see the module
/// documentation for the columns).
pub fn orderings_csv(report: &Report) -> Option<Vec<u8>> {
    let grids: Vec<OrderingGrid> = report
        .variants
        .iter()
        .map(OrderingGrid::read)
        .collect::<Option<Vec<_>>>()?;
    // Sweep points may differ in their metrics (a swept hand): the columns are the union, in
    // order of first appearance, and a metric a point does not have is an empty cell.
    let mut metrics: Vec<String> = Vec::new();
    for g in &grids {
        for m in &g.metrics {
            position_or_push(&mut metrics, m);
        }
    }
    let mut w = tables::writer();
    let after: Vec<&str> = [
        "row",
        "a_ordering",
        "b_ordering",
        "trials",
        "a_margin",
        "a_margin_ci95_low",
        "a_margin_ci95_high",
    ]
    .into_iter()
    .chain(metrics.iter().map(String::as_str))
    .collect();
    tables::header(&mut w, &["scenario"], &report.param_names, &after);
    for (v, g) in report.variants.iter().zip(&grids) {
        let columns: Vec<Option<usize>> = metrics
            .iter()
            .map(|m| g.metrics.iter().position(|x| x == m))
            .collect();
        let n = g.margins.trials;
        let mut row = |kind: &str, a: &str, b: &str, arms: &[usize]| {
            let (margin, ci) = g.margins.average(arms);
            let (lo, hi) = ci.map_or((String::new(), String::new()), |(lo, hi)| {
                (lo.to_string(), hi.to_string())
            });
            let fields = [report.scenario.clone()]
                .into_iter()
                .chain(v.params.iter().cloned())
                .chain([
                    kind.to_string(),
                    a.to_string(),
                    b.to_string(),
                    n.to_string(),
                    margin.to_string(),
                    lo,
                    hi,
                ])
                .chain(columns.iter().map(|c| match c {
                    Some(j) => g.mean(arms, *j).to_string(),
                    None => String::new(),
                }));
            tables::record(&mut w, fields);
        };
        for (ia, la) in g.a.iter().enumerate() {
            for (ib, lb) in g.b.iter().enumerate() {
                if let Some(arm) = g.cells[ia][ib] {
                    row("pair", la, lb, &[arm]);
                }
            }
        }
        // Each ordering against all of the opponent's: average, and the opponent's best reply
        // (first in order on ties).
        let reply = |arms: &[usize], lowest_margin: bool| {
            let mut best: Option<(usize, f64)> = None;
            for &arm in arms {
                let m = g.margin(arm);
                let better = best.is_none_or(|(_, b)| if lowest_margin { m < b } else { m > b });
                if better {
                    best = Some((arm, m));
                }
            }
            best.map(|(arm, _)| arm)
        };
        let label_of = |arm: usize| -> (usize, usize) {
            for (ia, r) in g.cells.iter().enumerate() {
                if let Some(ib) = r.iter().position(|&c| c == Some(arm)) {
                    return (ia, ib);
                }
            }
            (0, 0)
        };
        for (ia, la) in g.a.iter().enumerate() {
            let arms = g.row(ia);
            row("a_average", la, "*", &arms);
            if let Some(arm) = reply(&arms, true) {
                row("a_worst", la, &g.b[label_of(arm).1], &[arm]);
            }
        }
        for (ib, lb) in g.b.iter().enumerate() {
            let arms = g.column(ib);
            row("b_average", "*", lb, &arms);
            if let Some(arm) = reply(&arms, false) {
                row("b_worst", &g.a[label_of(arm).0], lb, &[arm]);
            }
        }
    }
    Some(tables::finish(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orderings_are_ordered_selections_without_repeats() {
        let all = enumerate(&[0, 1, 2], 2);
        let played: Vec<Vec<CardIx>> = all.iter().map(|o| o.played.clone()).collect();
        assert_eq!(
            played,
            vec![
                vec![0, 1],
                vec![0, 2],
                vec![1, 0],
                vec![1, 2],
                vec![2, 0],
                vec![2, 1]
            ]
        );
        assert_eq!(all[1].rest, vec![1]);
        // A card held twice: (0, 0) once, not twice.
        let twice = enumerate(&[0, 0, 1], 2);
        assert_eq!(twice.len(), 3);
        assert_eq!(count(&[0, 0, 1], 2), 3);
        // By hand: 2 of {a, a, b, b}: aa, ab, ba, bb; 3 of {a, a, b, c}: 3!/2! with two a's
        // (3 orders) + abc-type with one a (3! = 6 each of a b c): aab, aba, baa, aac, aca,
        // caa, abc, acb, bac, bca, cab, cba = 12.
        assert_eq!(count(&[0, 0, 1, 1], 2), 4);
        assert_eq!(count(&[0, 0, 1, 2], 3), 12);
        assert_eq!(count(&[0, 0, 1, 2], 3), enumerate(&[0, 0, 1, 2], 3).len());
        assert_eq!(count(&[7; 60], 16), 1);
        // Fewer cards than slots: every ordering of the whole hand.
        assert_eq!(enumerate(&[4], 2).len(), 1);
        // Far too many is reported as such without being listed.
        assert_eq!(count(&(0..6).collect::<Vec<_>>(), 4), 6 * 5 * 4 * 3);
        assert_eq!(count(&(0..60).collect::<Vec<_>>(), 16), usize::MAX);
    }

    #[test]
    fn labels_parse_back() {
        let l = arm_label(&ordering_label(&["campement", "banniere"]), "random");
        assert_eq!(l, "A:campement>banniere|B:random");
        assert_eq!(parse_label(&l), Some(("campement>banniere", "random")));
        assert_eq!(parse_label("shoot"), None);
        assert_eq!(parse_label(""), None);
    }

    fn metric(choice: &str, name: &str, values: &[i64]) -> crate::output::MetricReport {
        let mut histogram = crate::stats::Histogram::new();
        for &v in values {
            histogram.add(v);
        }
        crate::output::MetricReport {
            choice: choice.into(),
            metric: name.into(),
            histogram,
            round: None,
        }
    }

    #[test]
    fn orderings_csv_lays_out_pairs_averages_and_best_replies() {
        // A: x or y; B: u or v. A.score - B.score: (x,u) 2, (x,v) -1, (y,u) 0, (y,v) 1.
        let cell = |a: &str, b: &str, sa: i64, sb: i64, extra: bool| {
            let l = arm_label(a, b);
            let mut m = vec![
                metric(&l, "A.score", &[sa, sa]),
                metric(&l, "B.score", &[sb, sb]),
            ];
            if extra {
                m.push(metric(&l, "A.extra.resolved", &[1, 0]));
            }
            m
        };
        let all = |extra| {
            [
                cell("x", "u", 3, 1, extra),
                cell("x", "v", 1, 2, extra),
                cell("y", "u", 2, 2, extra),
                cell("y", "v", 2, 1, extra),
            ]
            .concat()
        };
        let (metrics, second) = (all(false), all(true));
        let variant = |params: &str, metrics| crate::output::VariantReport {
            params: vec![params.into()],
            metrics,
            comparisons: vec![],
        };
        let report = Report {
            scenario: "s".into(),
            param_names: vec!["p".into()],
            variants: vec![variant("1", metrics), variant("2", second)],
            both_enumerate: false,
            roster: None,
        };
        // No score pairs gathered here: the margins' intervals are empty.
        let text = String::from_utf8(orderings_csv(&report).unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "scenario,p,row,a_ordering,b_ordering,trials,a_margin,a_margin_ci95_low,a_margin_ci95_high,A.score,B.score,A.extra.resolved"
        );
        assert_eq!(
            &lines[1..11],
            [
                "s,1,pair,x,u,2,2,,,3,1,",
                "s,1,pair,x,v,2,-1,,,1,2,",
                "s,1,pair,y,u,2,0,,,2,2,",
                "s,1,pair,y,v,2,1,,,2,1,",
                "s,1,a_average,x,*,2,0.5,,,2,1.5,",
                // B's best reply to x is v (margin -1), to y it is u (0).
                "s,1,a_worst,x,v,2,-1,,,1,2,",
                "s,1,a_average,y,*,2,0.5,,,2,1.5,",
                "s,1,a_worst,y,u,2,0,,,2,2,",
                "s,1,b_average,*,u,2,1,,,2.5,1.5,",
                // A's best reply to u is x (margin 2), to v it is y (1).
                "s,1,b_worst,x,u,2,2,,,3,1,",
            ]
        );
        assert_eq!(lines[13], "s,2,pair,x,u,2,2,,,3,1,0.5");
        assert_eq!(lines.len(), 1 + 2 * 12);
        // Not an enumerating report: no table.
        let plain = Report {
            scenario: "s".into(),
            param_names: vec![],
            variants: vec![variant("", vec![metric("", "A.score", &[1])])],
            both_enumerate: false,
            roster: None,
        };
        assert!(orderings_csv(&plain).is_none());
    }
}
