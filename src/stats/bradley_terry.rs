//! Bradley-Terry strengths: the model in which i beats j with probability
//! s_i / (s_i + s_j), fitted by maximum likelihood to how often each beat each other, by the
//! minorisation-maximisation iteration of Hunter (2004, "MM algorithms for generalized
//! Bradley-Terry models"), which raises the likelihood at every step and needs no step size.
//! Strengths are returned on a log scale with mean 0, so a rating difference of d means odds
//! of e^d to 1. A draw counts half a win to each side.

/// Iterations at most; the fit stops earlier once no log strength moves by more than
/// [`TOLERANCE`].
const MAX_ITERATIONS: usize = 100_000;
const TOLERANCE: f64 = 1e-12;

/// Log strengths (mean 0) fitted to `wins`, where `wins[i][j]` is how often i beat j (the
/// diagonal is ignored). `None` when the maximum is at infinity: some player has no win, or
/// no loss, against the others (its strength would run off to 0 or to infinity), or the
/// fit does not settle.
pub fn fit(wins: &[Vec<f64>]) -> Option<Vec<f64>> {
    let n = wins.len();
    if n < 2 || wins.iter().any(|row| row.len() != n) {
        return None;
    }
    let games = |i: usize, j: usize| wins[i][j] + wins[j][i];
    let won: Vec<f64> = (0..n)
        .map(|i| (0..n).filter(|&j| j != i).map(|j| wins[i][j]).sum())
        .collect();
    let lost: Vec<f64> = (0..n)
        .map(|i| (0..n).filter(|&j| j != i).map(|j| wins[j][i]).sum())
        .collect();
    if won.iter().chain(&lost).any(|&w| w.is_nan() || w <= 0.0) {
        return None;
    }
    let mut s = vec![1.0f64; n];
    for _ in 0..MAX_ITERATIONS {
        let mut next: Vec<f64> = (0..n)
            .map(|i| {
                let d: f64 = (0..n)
                    .filter(|&j| j != i)
                    .map(|j| games(i, j) / (s[i] + s[j]))
                    .sum();
                won[i] / d
            })
            .collect();
        // Strengths are defined up to a common factor: keep their geometric mean at 1.
        let mean_log = next.iter().map(|v| v.ln()).sum::<f64>() / n as f64;
        for v in &mut next {
            *v /= mean_log.exp();
        }
        let moved = s
            .iter()
            .zip(&next)
            .map(|(a, b)| (a.ln() - b.ln()).abs())
            .fold(0.0, f64::max);
        s = next;
        if !moved.is_finite() {
            return None;
        }
        if moved < TOLERANCE {
            return Some(s.iter().map(|v| v.ln()).collect());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected wins under strengths e^r (r chosen, mean 0) are a matrix whose maximum
    /// likelihood strengths are exactly r: the likelihood equations say each player's wins
    /// equal their expectation, which these counts do by construction.
    #[test]
    fn recovers_chosen_strengths_from_their_expected_wins() {
        let r: [f64; 5] = [0.0, 0.5, -1.0, 1.2, -0.7];
        let games: [[f64; 5]; 5] = [[0.0, 400.0, 250.0, 90.0, 1000.0]; 5];
        let n = r.len();
        let wins: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        // Games between i and j: the same count both ways round.
                        let g = games[i.min(j)][i.max(j)].max(120.0);
                        let p = r[i].exp() / (r[i].exp() + r[j].exp());
                        if i == j {
                            0.0
                        } else {
                            g * p
                        }
                    })
                    .collect()
            })
            .collect();
        let fitted = fit(&wins).expect("every player wins and loses");
        for (a, b) in fitted.iter().zip(r) {
            assert!((a - b).abs() < 1e-9, "{fitted:?} against {r:?}");
        }
    }

    /// Two players: the fit is the log odds, split evenly about 0.
    #[test]
    fn two_players_get_half_the_log_odds_each() {
        let fitted = fit(&[vec![0.0, 30.0], vec![10.0, 0.0]]).unwrap();
        let half = (3.0f64).ln() / 2.0;
        assert!((fitted[0] - half).abs() < 1e-9 && (fitted[1] + half).abs() < 1e-9);
    }

    #[test]
    fn a_player_who_never_loses_has_no_finite_strength() {
        assert_eq!(fit(&[vec![0.0, 3.0], vec![0.0, 0.0]]), None);
        assert_eq!(fit(&[vec![0.0]]), None);
    }
}
