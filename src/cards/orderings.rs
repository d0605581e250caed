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
//! `scenario,<sweep params...>,row,a_ordering,b_ordering,trials,a_margin,<every metric...>`
//!
//! - `row = pair`: one row per pair of orderings; each metric column is that pair's mean.
//! - `row = a_average`: one per A ordering, `b_ordering = *`: each column averaged over B's
//!   orderings (each weighted equally).
//! - `row = a_worst`: one per A ordering: the pair whose B ordering is B's best reply, the
//!   one with the lowest `a_margin` (first in order on ties); `b_ordering` names it.
//! - `row = b_average`, `row = b_worst`: the same for each B ordering (B's worst case is the
//!   pair with the highest `a_margin`).
//!
//! `a_margin` = mean `A.score` - mean `B.score`. A player that does not enumerate has one
//! "ordering", named by its script (`obesite>blaspheme`) or `random`.

use super::data::CardIx;
use crate::output::Report;
use crate::stats::Summary;
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

/// The number of distinct orderings [`enumerate`] gives, or some number above `cap` when there
/// are more than `cap` (without listing them).
pub fn count(hand: &[CardIx], k: usize, cap: usize) -> usize {
    let k = k.min(hand.len());
    let n = hand.len();
    let upper = (0..k).fold(1usize, |acc, i| acc.saturating_mul(n - i));
    if upper > cap.saturating_mul(1_000) {
        return upper;
    }
    enumerate(hand, k).len()
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

/// One pair's trials and metric means.
type Cell = (u64, Vec<f64>);

/// One sweep point's means, laid out by (A ordering, B ordering).
struct Grid {
    a: Vec<String>,
    b: Vec<String>,
    metrics: Vec<String>,
    /// `means[ia][ib]`: the metric means of that pair, `None` if the pair was not played.
    means: Vec<Vec<Option<Cell>>>,
}

fn grid(v: &crate::output::VariantReport) -> Option<Grid> {
    let mut a = Vec::new();
    let mut b = Vec::new();
    let mut metrics: Vec<String> = Vec::new();
    let mut cells: Vec<(usize, usize, u64, Vec<f64>)> = Vec::new();
    let mut current: Option<&str> = None;
    for m in &v.metrics {
        if current != Some(m.choice.as_str()) {
            let (la, lb) = parse_label(&m.choice)?;
            let (ia, ib) = (position_or_push(&mut a, la), position_or_push(&mut b, lb));
            cells.push((ia, ib, m.histogram.total(), Vec::new()));
            current = Some(m.choice.as_str());
        }
        if cells.len() == 1 {
            metrics.push(m.metric.clone());
        }
        let cell = cells.last_mut()?;
        let mean = Summary::from_histogram(&m.histogram).map_or(f64::NAN, |s| s.mean);
        cell.3.push(mean);
    }
    if cells.is_empty() || cells.iter().any(|c| c.3.len() != metrics.len()) {
        return None;
    }
    let mut means = vec![vec![None; b.len()]; a.len()];
    for (ia, ib, n, m) in cells {
        means[ia][ib] = Some((n, m));
    }
    Some(Grid {
        a,
        b,
        metrics,
        means,
    })
}

/// `orderings.csv` for scenarios where a player enumerates; `None` otherwise (see the module
/// documentation for the columns).
pub fn orderings_csv(report: &Report) -> Option<Vec<u8>> {
    let mut grids: Vec<Grid> = report
        .variants
        .iter()
        .map(grid)
        .collect::<Option<Vec<_>>>()?;
    // Sweep points may differ in their metrics (a swept hand): the columns are the union, in
    // order of first appearance, and a metric a point does not have is an empty cell.
    let mut metrics: Vec<String> = Vec::new();
    for g in &grids {
        for m in &g.metrics {
            position_or_push(&mut metrics, m);
        }
    }
    for g in &mut grids {
        let to: Vec<usize> = g
            .metrics
            .iter()
            .map(|m| position_or_push(&mut metrics, m))
            .collect();
        for (_, means) in g.means.iter_mut().flatten().flatten() {
            let mut wide = vec![f64::NAN; metrics.len()];
            for (&j, &x) in to.iter().zip(means.iter()) {
                wide[j] = x;
            }
            *means = wide;
        }
    }
    let metrics = &metrics;
    let score = |p: &str| metrics.iter().position(|m| *m == format!("{p}.score"));
    let (sa, sb) = (score("A")?, score("B")?);
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    let mut header: Vec<String> = vec!["scenario".into()];
    header.extend(report.param_names.iter().cloned());
    header.extend(
        ["row", "a_ordering", "b_ordering", "trials", "a_margin"]
            .iter()
            .map(|s| s.to_string()),
    );
    header.extend(metrics.iter().cloned());
    w.write_record(&header).ok()?;
    for (v, g) in report.variants.iter().zip(&grids) {
        let margin = |m: &[f64]| m[sa] - m[sb];
        let mut row = |kind: &str, a: &str, b: &str, n: u64, m: &[f64]| {
            let mut r: Vec<String> = vec![report.scenario.clone()];
            r.extend(v.params.iter().cloned());
            r.extend([
                kind.to_string(),
                a.to_string(),
                b.to_string(),
                n.to_string(),
                margin(m).to_string(),
            ]);
            r.extend(m.iter().map(|x| {
                if x.is_nan() {
                    String::new()
                } else {
                    x.to_string()
                }
            }));
            w.write_record(&r).ok()
        };
        for (ia, la) in g.a.iter().enumerate() {
            for (ib, lb) in g.b.iter().enumerate() {
                if let Some((n, m)) = &g.means[ia][ib] {
                    row("pair", la, lb, *n, m)?;
                }
            }
        }
        // Each ordering against all of the opponent's: average and worst case.
        let pick = |cells: Vec<(usize, &Cell)>, lowest_margin: bool| {
            let count = cells.len();
            let n = cells.iter().map(|(_, c)| c.0).min().unwrap_or(0);
            let mut avg = vec![0.0; metrics.len()];
            for (_, (_, m)) in &cells {
                for (s, x) in avg.iter_mut().zip(m) {
                    *s += x;
                }
            }
            avg.iter_mut().for_each(|s| *s /= count.max(1) as f64);
            let mut worst: Option<(usize, &Cell)> = None;
            for &(i, c) in &cells {
                let replaces = worst.is_none_or(|(_, w)| {
                    if lowest_margin {
                        margin(&c.1) < margin(&w.1)
                    } else {
                        margin(&c.1) > margin(&w.1)
                    }
                });
                if replaces {
                    worst = Some((i, c));
                }
            }
            (n, avg, worst.map(|(i, c)| (i, c.0, c.1.clone())))
        };
        for (ia, la) in g.a.iter().enumerate() {
            let cells: Vec<_> = (0..g.b.len())
                .filter_map(|ib| g.means[ia][ib].as_ref().map(|c| (ib, c)))
                .collect();
            let (n, avg, worst) = pick(cells, true);
            row("a_average", la, "*", n, &avg)?;
            if let Some((ib, n, m)) = worst {
                row("a_worst", la, &g.b[ib], n, &m)?;
            }
        }
        for (ib, lb) in g.b.iter().enumerate() {
            let cells: Vec<_> = (0..g.a.len())
                .filter_map(|ia| g.means[ia][ib].as_ref().map(|c| (ia, c)))
                .collect();
            let (n, avg, worst) = pick(cells, false);
            row("b_average", "*", lb, n, &avg)?;
            if let Some((ia, n, m)) = worst {
                row("b_worst", &g.a[ia], lb, n, &m)?;
            }
        }
    }
    w.into_inner().ok()
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
        assert_eq!(count(&[0, 0, 1], 2, 100), 3);
        // Fewer cards than slots: every ordering of the whole hand.
        assert_eq!(enumerate(&[4], 2).len(), 1);
        // Far too many is reported as such without being listed.
        assert!(count(&(0..60).collect::<Vec<_>>(), 16, 4096) > 4096);
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
        };
        let text = String::from_utf8(orderings_csv(&report).unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "scenario,p,row,a_ordering,b_ordering,trials,a_margin,A.score,B.score,A.extra.resolved"
        );
        assert_eq!(
            &lines[1..11],
            [
                "s,1,pair,x,u,2,2,3,1,",
                "s,1,pair,x,v,2,-1,1,2,",
                "s,1,pair,y,u,2,0,2,2,",
                "s,1,pair,y,v,2,1,2,1,",
                "s,1,a_average,x,*,2,0.5,2,1.5,",
                // B's best reply to x is v (margin -1), to y it is u (0).
                "s,1,a_worst,x,v,2,-1,1,2,",
                "s,1,a_average,y,*,2,0.5,2,1.5,",
                "s,1,a_worst,y,u,2,0,2,2,",
                "s,1,b_average,*,u,2,1,2.5,1.5,",
                // A's best reply to u is x (margin 2), to v it is y (1).
                "s,1,b_worst,x,u,2,2,3,1,",
            ]
        );
        assert_eq!(lines[13], "s,2,pair,x,u,2,2,3,1,0.5");
        assert_eq!(lines.len(), 1 + 2 * 12);
        // Not an enumerating report: no table.
        let plain = Report {
            scenario: "s".into(),
            param_names: vec![],
            variants: vec![variant("", vec![metric("", "A.score", &[1])])],
        };
        assert!(orderings_csv(&plain).is_none());
    }
}
