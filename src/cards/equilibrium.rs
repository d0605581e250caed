//! `equilibrium.csv`: card play as the zero-sum game it is when both players choose among
//! orderings.
//!
//! Both players lay their cards face down at once, so neither can react to the other's
//! ordering. The payoff of a pair of orderings is A's mean margin (`A.score - B.score`, from
//! `orderings.csv`); A maximises it, B minimises it. The table holds, per sweep point, one row
//! per ordering of each player with its probability in an optimal mix
//! ([`matrix_game::solve`], which documents the choice among several optimal mixes), and the
//! game's value for A with a 95% interval:
//!
//! `scenario,<sweep params...>,player,ordering,probability,value,value_ci95_low,value_ci95_high`
//!
//! The value is `Σ a_i · b_j · margin_ij`, with each printed mix scaled to sum to 1
//! ([`matrix_game::Equilibrium::a_weights`], which says why), so a game without chance shows
//! its exact value. Its interval is the Student t interval of the
//! per-trial margin of the two mixes played against each other, `Σ a_i · b_j · margin_ij(t)`,
//! whose variance needs the covariance of every pair of arms on common random numbers
//! ([`super::margins::Margins`]): the delta method, since the derivative of a game's value with respect to
//! the payoff of (i, j) is `a_i · b_j` where the equilibrium is unique. Where it is not (an
//! ordering that exactly ties another, a payoff on a knife edge), the value is still
//! consistent but the interval can be too narrow; the pair rows of `orderings.csv` say how
//! well each payoff is known.
//!
//! The table is written when both players enumerate ([`Report::both_enumerate`]), whatever
//! the number of orderings: a player with a single ordering plays it with probability 1, and
//! the other's mix is its best replies to it, chosen among as in any other game.

use super::data::{CardGame, Plays};
use super::matrix_game;
use super::orderings::OrderingGrid;
use crate::output::{tables, Report};

/// Whether both players of `game` enumerate their orderings (`plays = "enumerate"`): its
/// orderings are a game, which `equilibrium.csv` solves.
pub fn both_enumerate(game: &CardGame) -> bool {
    (0..2).all(|p| game.player(p).plays == Plays::Enumerate)
}

/// `equilibrium.csv`, or `None` unless both players enumerate at every sweep point.
pub fn equilibrium_csv(report: &Report) -> Option<Vec<u8>> {
    let grids: Vec<OrderingGrid> = report
        .variants
        .iter()
        .map(OrderingGrid::read)
        .collect::<Option<Vec<_>>>()?;
    // Shard parts written before 0.5.2 do not say whether both players enumerate; such a
    // part's game is solved as 0.5.1 solved it, when each player has two orderings or more
    // (only enumerating players have more than one).
    let legacy = || grids.iter().all(|g| g.a.len() >= 2 && g.b.len() >= 2);
    if !report.both_enumerate && !legacy() {
        return None;
    }
    let mut w = tables::writer();
    tables::header(
        &mut w,
        &["scenario"],
        &report.param_names,
        &[
            "player",
            "ordering",
            "probability",
            "value",
            "value_ci95_low",
            "value_ci95_high",
        ],
    );
    for (v, g) in report.variants.iter().zip(&grids) {
        let solved = solve(g);
        let text = |x: Option<f64>| x.map_or(String::new(), |x| x.to_string());
        let (value, ci) = solved
            .as_ref()
            .map_or((None, None), |s| (Some(s.value), s.interval));
        for (player, labels, mix) in [
            ("A", &g.a, solved.as_ref().map(|s| &s.a)),
            ("B", &g.b, solved.as_ref().map(|s| &s.b)),
        ] {
            for (i, label) in labels.iter().enumerate() {
                tables::record(
                    &mut w,
                    [report.scenario.clone()]
                        .into_iter()
                        .chain(v.params.iter().cloned())
                        .chain([
                            player.to_string(),
                            label.clone(),
                            text(mix.map(|m| m[i])),
                            text(value),
                            text(ci.map(|c| c.0)),
                            text(ci.map(|c| c.1)),
                        ]),
                );
            }
        }
    }
    Some(tables::finish(w))
}

/// One sweep point's equilibrium.
#[derive(Debug, Clone, PartialEq)]
pub struct Solved {
    /// A's mix, rounded for print.
    pub a: Vec<f64>,
    /// B's mix, rounded for print.
    pub b: Vec<f64>,
    /// The mean margin of the two mixes played against each other.
    pub value: f64,
    pub interval: Option<(f64, f64)>,
}

/// The value of a grid's game, exact from its margins' integer sums (each payoff is a sum over
/// the same trials), as the nearest float: `None` unless `matrix_game::exact_value` proves it.
fn exact_value(g: &OrderingGrid, e: &matrix_game::Equilibrium) -> Option<f64> {
    let sums: Vec<Vec<i128>> = g
        .cells
        .iter()
        .map(|r| r.iter().map(|c| c.map(|arm| g.margins.sum(arm))).collect())
        .collect::<Option<_>>()?;
    let (num, den) = matrix_game::exact_value(&sums, &e.a, &e.b)?;
    let den = den.checked_mul(i128::from(g.margins.trials))?;
    // Both exactly representable, so the one division rounds the fraction correctly.
    let exact = |x: i128| x.unsigned_abs() < 1 << 53;
    (exact(num) && exact(den)).then(|| num as f64 / den as f64)
}

/// Solves a grid's game; `None` when a pair was not played or the solver failed (the rows are
/// then written with empty probabilities).
fn solve(g: &OrderingGrid) -> Option<Solved> {
    let payoff: Vec<Vec<f64>> = g
        .cells
        .iter()
        .map(|r| r.iter().map(|c| c.map(|arm| g.margin(arm))).collect())
        .collect::<Option<Vec<Vec<f64>>>>()?;
    let e = matrix_game::solve(&payoff).ok()?;
    let mut weights = vec![0.0; g.margins.arms()];
    for (ia, row) in g.cells.iter().enumerate() {
        for (ib, arm) in row.iter().enumerate() {
            if let Some(arm) = arm {
                weights[*arm] = e.a_weights[ia] * e.b_weights[ib];
            }
        }
    }
    let (mut value, mut interval) = g.margins.weighted(&weights);
    // A game without chance (no arm's margin varies, so the interval has no width) has an
    // exact value; when the mixes prove it, print it rather than its float re-computation.
    if interval.is_some_and(|(low, high)| low == high) {
        if let Some(exact) = exact_value(g, &e) {
            (value, interval) = (exact, Some((exact, exact)));
        }
    }
    Some(Solved {
        a: e.a,
        b: e.b,
        value,
        interval,
    })
}
