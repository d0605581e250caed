//! Zero-sum matrix games solved by linear programming, with a deterministic choice among
//! equilibria.
//!
//! `payoff[i][j]` is what the row player (A) gains and the column player (B) loses when A plays
//! row i and B column j. [`solve`] finds the game's value and one optimal mix for each player.
//! A game can have many optimal mixes (a face of a polytope); a simplex answer would then
//! depend on the solver's pivoting. Each player's mix is therefore chosen by a fixed sequence
//! of linear programs, each keeping the optimum of the ones before (within [`tolerance`]):
//!
//! 1. guarantee the value (the player's best worst case);
//! 2. among those mixes, do best against an opponent who picks uniformly at random (so the mix
//!    punishes an opponent's mistakes as much as the value allows);
//! 3. then give as much probability as possible to the first ordering in table order, then to
//!    the second, and so on (lexicographic), which leaves one mix.
//!
//! B's mix comes from the same sequence on the game seen from B's side (`-payoffᵀ`).
//! Probabilities are rounded to 9 decimals, below the solver's own feasibility tolerance, so
//! that exact answers such as 3/4 print as `0.75` (the simplex leaves 0.7499999999999999).
//! Rounded mixes need not sum to 1 (3/7, 3/7, 1/7 round to a sum of 1.000000001), and a value
//! taken from them would be off by that excess times the value, first order: enough to show
//! in a game without chance. The value is therefore taken from the rounded mixes scaled to
//! sum to 1 ([`Equilibrium::a_weights`]): at an equilibrium every row A's mix plays earns the
//! value against B's mix, and every column B's mix plays likewise, so a change of the mixes
//! that keeps their sums changes the value only in second order, below 1e-18 times the
//! payoffs for a rounding of 5e-10. Exact answers stay exact (3.25, not 3.2499999999999996).

use microlp::{ComparisonOp, OptimizationDirection, Problem, Variable};

/// An equilibrium of a zero-sum matrix game.
#[derive(Debug, Clone, PartialEq)]
pub struct Equilibrium {
    /// The row player's optimal mix, one probability per row, rounded for print.
    pub a: Vec<f64>,
    /// The column player's optimal mix, one probability per column, rounded for print.
    pub b: Vec<f64>,
    /// `a` scaled to sum to 1: the weights of the value.
    pub a_weights: Vec<f64>,
    /// `b` scaled to sum to 1.
    pub b_weights: Vec<f64>,
    /// `a_weightsᵀ · payoff · b_weights`: the game's value for the row player.
    pub value: f64,
}

/// Why a game could not be solved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SolveError {
    #[error("the payoff matrix is empty or ragged")]
    Shape,
    #[error("the payoff matrix holds a value that is not a finite number")]
    NotFinite,
    #[error("the linear program solver failed: {0}")]
    Solver(String),
}

/// Probabilities are multiples of 1 / this.
const PROBABILITY_STEPS: f64 = 1e9;

/// How far a later program in the tie-break sequence may fall below an earlier optimum:
/// relative to the payoffs' size, above the round-off of summing a few hundred of them, and
/// far enough below the rounding of probabilities that the slack never shows in them.
pub fn tolerance(payoff: &[Vec<f64>]) -> f64 {
    let scale = payoff.iter().flatten().fold(1.0f64, |m, &x| m.max(x.abs()));
    1e-12 * scale
}

/// Solves the game (see the module documentation for which equilibrium is returned).
///
/// ```
/// use rollcall::cards::matrix_game::solve;
/// // Matching pennies: each side mixes half and half; the value is 0.
/// let e = solve(&[vec![1.0, -1.0], vec![-1.0, 1.0]]).unwrap();
/// assert_eq!((e.a, e.b, e.value), (vec![0.5, 0.5], vec![0.5, 0.5], 0.0));
/// ```
pub fn solve(payoff: &[Vec<f64>]) -> Result<Equilibrium, SolveError> {
    let cols = payoff.first().map_or(0, Vec::len);
    if cols == 0 || payoff.iter().any(|r| r.len() != cols) {
        return Err(SolveError::Shape);
    }
    if payoff.iter().flatten().any(|x| !x.is_finite()) {
        return Err(SolveError::NotFinite);
    }
    let a = rounded(optimal_mix(payoff)?);
    let b_side: Vec<Vec<f64>> = (0..cols)
        .map(|j| payoff.iter().map(|row| -row[j]).collect())
        .collect();
    let b = rounded(optimal_mix(&b_side)?);
    let (a_weights, b_weights) = (summing_to_one(&a), summing_to_one(&b));
    let value = payoff
        .iter()
        .zip(&a_weights)
        .map(|(row, &p)| {
            p * row
                .iter()
                .zip(&b_weights)
                .map(|(&x, &q)| x * q)
                .sum::<f64>()
        })
        .sum();
    Ok(Equilibrium {
        a,
        b,
        a_weights,
        b_weights,
        value,
    })
}

/// The game's value as a fraction `(numerator, denominator)`, proven exact, for a game whose
/// payoffs are integers: `None` when the mixes found are not recognised as exact. Each
/// probability of `a` and `b` is read as the nearest fraction with a denominator of at most a
/// million (a continued fraction); if those fractions sum to 1 for each player and the worst
/// A's fractions can earn against any column equals the most B's fractions can concede to any
/// row, the minimax theorem makes that number the value: A guarantees it, B holds A to it.
/// Every sum is in exact integers (a product that would overflow gives `None`).
pub fn exact_value(payoff: &[Vec<i128>], a: &[f64], b: &[f64]) -> Option<(i128, i128)> {
    let (a_num, a_den) = common_denominator(a)?;
    let (b_num, b_den) = common_denominator(b)?;
    let cols = payoff.first()?.len();
    // A's worst case over columns and B's over rows, each over its own common denominator.
    let mut worst_for_a: Option<i128> = None;
    for j in 0..cols {
        let earned = dot(payoff.iter().map(|r| r[j]).zip(a_num.iter().copied()))?;
        worst_for_a = Some(worst_for_a.map_or(earned, |w| w.min(earned)));
    }
    let mut worst_for_b: Option<i128> = None;
    for row in payoff {
        let conceded = dot(row.iter().copied().zip(b_num.iter().copied()))?;
        worst_for_b = Some(worst_for_b.map_or(conceded, |w| w.max(conceded)));
    }
    let (low, high) = (worst_for_a?, worst_for_b?);
    (low.checked_mul(b_den)? == high.checked_mul(a_den)?).then_some((low, a_den))
}

/// `Σ x · k` in exact integers; `None` on overflow.
fn dot(mut pairs: impl Iterator<Item = (i128, i128)>) -> Option<i128> {
    pairs.try_fold(0i128, |acc, (x, k)| acc.checked_add(x.checked_mul(k)?))
}

/// The probabilities of `mix` as integers over one common denominator, when each is a
/// fraction with a denominator of at most a million and they sum to exactly 1.
fn common_denominator(mix: &[f64]) -> Option<(Vec<i128>, i128)> {
    let fractions: Vec<(i128, i128)> = mix.iter().map(|&p| nearest_fraction(p)).collect();
    let mut den: i128 = 1;
    for &(_, d) in &fractions {
        den = den.checked_mul(d / gcd(den, d))?;
    }
    let nums: Vec<i128> = fractions.iter().map(|&(n, d)| n * (den / d)).collect();
    (nums.iter().sum::<i128>() == den).then_some((nums, den))
}

/// The continued-fraction convergent of `p` in [0, 1] nearest it with a denominator of at
/// most a million, within the rounding of printed probabilities.
fn nearest_fraction(p: f64) -> (i128, i128) {
    const MAX_DENOMINATOR: i128 = 1_000_000;
    let (mut h0, mut h1, mut k0, mut k1) = (0i128, 1i128, 1i128, 0i128);
    let mut x = p;
    let mut best = (p.round() as i128, 1);
    for _ in 0..64 {
        let a = x.floor();
        let (h, k) = (a as i128 * h1 + h0, a as i128 * k1 + k0);
        if k > MAX_DENOMINATOR {
            break;
        }
        best = (h, k);
        if (h as f64 / k as f64 - p).abs() <= 1.0 / PROBABILITY_STEPS {
            break;
        }
        (h0, h1, k0, k1) = (h1, h, k1, k);
        let frac = x - a;
        if frac <= 0.0 {
            break;
        }
        x = 1.0 / frac;
    }
    best
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// `Σ coefficient · x ≥ bound`.
type AtLeast = (Vec<f64>, f64);

/// The row player's mix chosen by the sequence of the module documentation.
fn optimal_mix(payoff: &[Vec<f64>]) -> Result<Vec<f64>, SolveError> {
    let rows = payoff.len();
    let cols = payoff[0].len();
    let tol = tolerance(payoff);
    let column = |j: usize| -> Vec<f64> { payoff.iter().map(|r| r[j]).collect() };

    // 1. The value: max v subject to every column paying at least v.
    let (mut mix, value) = {
        let mut p = Problem::new(OptimizationDirection::Maximize);
        let x: Vec<Variable> = (0..rows).map(|_| p.add_var(0.0, (0.0, 1.0))).collect();
        let v = p.add_var(1.0, (f64::NEG_INFINITY, f64::INFINITY));
        for j in 0..cols {
            let terms = x.iter().zip(column(j)).map(|(&xi, c)| (xi, c));
            p.add_constraint(terms.chain([(v, -1.0)]), ComparisonOp::Ge, 0.0);
        }
        p.add_constraint(x.iter().map(|&xi| (xi, 1.0)), ComparisonOp::Eq, 1.0);
        let s = p
            .solve()
            .map_err(|e| SolveError::Solver(e.to_string()))?
            .into_solution()
            .map_err(|e| SolveError::Solver(format!("{:?}", e.termination_reason())))?;
        let mix: Vec<f64> = x.iter().map(|&xi| s.var_value(xi)).collect();
        (mix, s.var_value(v))
    };
    let mut kept: Vec<AtLeast> = (0..cols).map(|j| (column(j), value - tol)).collect();

    // 2. Best against a uniform opponent, then 3. lexicographic: each stage keeps the optima
    // before it. A stage the solver cannot answer ends the sequence with the mix so far, which
    // is still optimal.
    let uniform: Vec<f64> = payoff
        .iter()
        .map(|r| r.iter().sum::<f64>() / cols as f64)
        .collect();
    let mut objectives = vec![uniform];
    objectives.extend((0..rows).map(|i| {
        let mut e = vec![0.0; rows];
        e[i] = 1.0;
        e
    }));
    let mut fixed_mass = 0.0;
    for (stage, objective) in objectives.into_iter().enumerate() {
        if stage > 0 && fixed_mass >= 1.0 - tol {
            break;
        }
        let Some((x, best)) = maximise(rows, &objective, &kept) else {
            break;
        };
        if stage > 0 {
            fixed_mass += best;
        }
        kept.push((objective, best - tol));
        mix = x;
    }
    Ok(mix)
}

/// Maximises `objective · x` over mixes meeting `kept`; `None` if the solver fails.
fn maximise(rows: usize, objective: &[f64], kept: &[AtLeast]) -> Option<(Vec<f64>, f64)> {
    let mut p = Problem::new(OptimizationDirection::Maximize);
    let x: Vec<Variable> = objective
        .iter()
        .map(|&c| p.add_var(c, (0.0, 1.0)))
        .collect();
    p.add_constraint(x.iter().map(|&xi| (xi, 1.0)), ComparisonOp::Eq, 1.0);
    for (coefficients, bound) in kept {
        let terms = x.iter().zip(coefficients).map(|(&xi, &c)| (xi, c));
        p.add_constraint(terms, ComparisonOp::Ge, *bound);
    }
    let s = p.solve().ok()?.into_solution().ok()?;
    debug_assert_eq!(x.len(), rows);
    Some((x.iter().map(|&xi| s.var_value(xi)).collect(), s.objective()))
}

/// `mix` scaled to sum to 1; unchanged when it already does, as most rounded mixes do.
fn summing_to_one(mix: &[f64]) -> Vec<f64> {
    let total: f64 = mix.iter().sum();
    if total > 0.0 && total != 1.0 {
        mix.iter().map(|p| p / total).collect()
    } else {
        mix.to_vec()
    }
}

/// Rounds to a multiple of 1 / [`PROBABILITY_STEPS`] (dividing an integer-valued float by
/// it rounds once, so 0.75 stays 0.75), with no tiny negatives.
fn rounded(mix: Vec<f64>) -> Vec<f64> {
    mix.into_iter()
        .map(|p| {
            let r = (p * PROBABILITY_STEPS).round() / PROBABILITY_STEPS;
            if r <= 0.0 {
                0.0
            } else {
                r.min(1.0)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_keeps_simple_fractions_exact() {
        assert_eq!(
            rounded(vec![0.7500000000003, 0.2499999999997]),
            [0.75, 0.25]
        );
        assert_eq!(rounded(vec![-1e-12, 1.0000000000001]), [0.0, 1.0]);
    }

    #[test]
    fn the_value_is_taken_from_mixes_that_sum_to_one() {
        // Matching pennies with payoffs 7 and 3 on the diagonal: A's mix p equalises
        // 7p = 3(1 - p), p = 3/10, value 21/10. Rounded mixes that sum to 1 stay as they are.
        let e = solve(&[vec![7.0, 0.0], vec![0.0, 3.0]]).unwrap();
        assert_eq!(
            (e.a.clone(), e.a_weights.clone()),
            (vec![0.3, 0.7], vec![0.3, 0.7])
        );
        assert!((e.value - 2.1).abs() < 1e-15, "{e:?}");
        assert_eq!(summing_to_one(&[0.5, 0.25, 0.25]), [0.5, 0.25, 0.25]);
        let w = summing_to_one(&[0.428571429, 0.428571429, 0.142857143]);
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-15, "{w:?}");
    }

    #[test]
    fn an_exact_value_is_proven_from_fractions_or_not_claimed() {
        // Rock-paper-scissors with wins worth 1 (R over S), 2 (P over R) and 3 (S over P).
        // Payoff (A's row against B's column, R P S): R: 0 -2 1; P: 2 0 -3; S: -1 3 0.
        // A's mix (1/2, 1/6, 1/3) earns 0 + 2/6 - 1/3 = 0 against R, -1 + 0 + 1 = 0 against P
        // and 1/2 - 3/6 + 0 = 0 against S; the game is symmetric, so B's same mix concedes
        // 0 to every row. The value is 0, over A's common denominator 6.
        let m = [vec![0, -2, 1], vec![2, 0, -3], vec![-1, 3, 0]];
        let third = 1.0 / 3.0;
        assert_eq!(
            exact_value(&m, &[0.5, 1.0 / 6.0, third], &[0.5, 1.0 / 6.0, third]),
            Some((0, 6))
        );
        // 11, 11, 33 on the diagonal: mixes 3/7, 3/7, 1/7, value 33/7, from 9-decimal mixes.
        let d = [vec![11, 0, 0], vec![0, 11, 0], vec![0, 0, 33]];
        let mix = [0.428571429, 0.428571429, 0.142857143];
        let (num, den) = exact_value(&d, &mix, &mix).unwrap();
        assert_eq!(num * 7, 33 * den);
        // A mix that is not an equilibrium proves nothing.
        assert_eq!(exact_value(&d, &[0.5, 0.5, 0.0], &mix), None);
        assert_eq!(nearest_fraction(0.75), (3, 4));
        assert_eq!(nearest_fraction(0.0), (0, 1));
        assert_eq!(nearest_fraction(1.0), (1, 1));
    }

    #[test]
    fn bad_shapes_are_refused() {
        assert_eq!(solve(&[]), Err(SolveError::Shape));
        assert_eq!(solve(&[vec![]]), Err(SolveError::Shape));
        assert_eq!(solve(&[vec![1.0], vec![1.0, 2.0]]), Err(SolveError::Shape));
        assert_eq!(solve(&[vec![f64::NAN]]), Err(SolveError::NotFinite));
    }
}
