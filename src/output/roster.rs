//! `matchups.csv` and `ratings.csv` of a roster run: every profile against every other, laid
//! out from the won metrics of the choices `i v j` (profile i in the first slot, j in the
//! second). What a roster is travels in the report (and so in a shard's part), so `merge`
//! writes these tables byte for byte as the run would.

use super::tables::Report;
pub use super::tables::{Fair, Profile, Roster};
use crate::stats::{bradley_terry, t_critical_95, Histogram, Summary};

/// The choice that plays profile `first` in the first slot against `second` in the second.
pub fn matchup_id(first: &str, second: &str) -> String {
    format!("{first} v {second}")
}

/// How one ordered pair's trials ended, as counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    pub trials: u64,
    pub first_won: u64,
    pub second_won: u64,
}

impl Outcome {
    pub fn draw(&self) -> u64 {
        self.trials - self.first_won - self.second_won
    }

    /// The mean and standard error of the first slot's score per trial: 1 for a win, 1/2
    /// for a draw, 0 for a loss. `seat_second` scores the second slot instead.
    pub fn score(&self, seat_second: bool) -> (f64, f64) {
        let won = if seat_second {
            self.second_won
        } else {
            self.first_won
        } as f64;
        let (n, d) = (self.trials as f64, self.draw() as f64);
        let sum = won + d / 2.0;
        let sum_sq = won + d / 4.0;
        let mean = sum / n;
        let variance = if self.trials > 1 {
            ((sum_sq - n * mean * mean) / (n - 1.0)).max(0.0)
        } else {
            0.0
        };
        (mean, (variance / n).sqrt())
    }
}

/// The outcome of every ordered pair, `[i][j]` for i first and j second; `None` when a
/// pair's won metrics are missing from the report (a run stopped before any trial).
pub fn outcomes(report: &Report, roster: &Roster) -> Option<Vec<Vec<Outcome>>> {
    let variant = report.variants.first()?;
    let ones = |choice: &str, metric: &str| -> Option<(u64, u64)> {
        let h: &Histogram = &variant
            .metrics
            .iter()
            .find(|m| m.choice == choice && m.metric == metric)?
            .histogram;
        let ones = h.iter().filter(|&(v, _)| v == 1).map(|(_, c)| c).sum();
        Some((h.total(), ones))
    };
    roster
        .profiles
        .iter()
        .map(|a| {
            roster
                .profiles
                .iter()
                .map(|b| {
                    let id = matchup_id(&a.id, &b.id);
                    let (trials, first_won) = ones(&id, &roster.first_won)?;
                    let (_, second_won) = ones(&id, &roster.second_won)?;
                    (trials > 0).then_some(Outcome {
                        trials,
                        first_won,
                        second_won,
                    })
                })
                .collect()
        })
        .collect()
}

/// `matchups.csv`, or `None` for a report that is not a roster's.
pub fn matchups_csv(report: &Report) -> Option<Vec<u8>> {
    let roster = report.roster.as_ref()?;
    let table = outcomes(report, roster)?;
    let variant = report.variants.first()?;
    let mut out = String::from(
        "scenario,first,second,trials,first_won,second_won,draw,first_won_ci95_low,first_won_ci95_high\n",
    );
    for (a, row) in roster.profiles.iter().zip(&table) {
        for (b, o) in roster.profiles.iter().zip(row) {
            let id = matchup_id(&a.id, &b.id);
            let s = variant
                .metrics
                .iter()
                .find(|m| m.choice == id && m.metric == roster.first_won)
                .and_then(|m| Summary::from_histogram(&m.histogram))?;
            let share = |k: u64| (k as f64 / o.trials as f64).to_string();
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{}\n",
                report.scenario,
                a.id,
                b.id,
                o.trials,
                share(o.first_won),
                share(o.second_won),
                share(o.draw()),
                s.ci95_low,
                s.ci95_high
            ));
        }
    }
    Some(out.into_bytes())
}

/// One profile's row of `ratings.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct Rating {
    pub score: f64,
    pub score_ci95_low: f64,
    pub score_ci95_high: f64,
    /// Bradley-Terry log strength, field mean 0; `None` when the fit has no finite maximum.
    pub rating: Option<f64>,
}

/// Each profile's score against the field and its Bradley-Terry rating.
///
/// The score is the mean, over every other profile and both seats, of the per-trial score
/// (won 1, draw 1/2). Its matchups share random numbers, so their errors are not
/// independent; the interval uses the mean of their standard errors (the largest the
/// standard error of their mean can be, whatever their correlation), so it is never too
/// narrow.
pub fn ratings(roster: &Roster, table: &[Vec<Outcome>]) -> Vec<Rating> {
    let n = roster.profiles.len();
    let mut wins = vec![vec![0.0; n]; n];
    for (i, row) in table.iter().enumerate() {
        for (j, o) in row.iter().enumerate() {
            if i != j {
                let half = o.draw() as f64 / 2.0;
                wins[i][j] += o.first_won as f64 + half;
                wins[j][i] += o.second_won as f64 + half;
            }
        }
    }
    let fitted = bradley_terry::fit(&wins);
    (0..n)
        .map(|i| {
            let scores: Vec<(f64, f64, u64)> = (0..n)
                .filter(|&j| j != i)
                .flat_map(|j| {
                    let (a, b) = (table[i][j], table[j][i]);
                    let (m1, e1) = a.score(false);
                    let (m2, e2) = b.score(true);
                    [(m1, e1, a.trials), (m2, e2, b.trials)]
                })
                .collect();
            let (score, _, half) = field_score(&scores);
            Rating {
                score,
                score_ci95_low: score - half,
                score_ci95_high: score + half,
                rating: fitted.as_ref().map(|r| r[i]),
            }
        })
        .collect()
}

/// A profile's score against the field from its matchups' (mean, standard error, trials)
/// in both seats, with its standard error and the half-width of its 95% interval. The
/// matchups share random numbers,
/// so their errors are not independent: the mean of their standard errors is the largest the
/// standard error of the mean can be, whatever their correlation.
pub fn field_score(scores: &[(f64, f64, u64)]) -> (f64, f64, f64) {
    let k = scores.len() as f64;
    let score = scores.iter().map(|s| s.0).sum::<f64>() / k;
    let error = scores.iter().map(|s| s.1).sum::<f64>() / k;
    let fewest = scores.iter().map(|s| s.2).min().unwrap_or(1);
    let half = t_critical_95(fewest.saturating_sub(1).max(1)) * error;
    (score, error, half)
}

/// The points per model at which a profile scores 1/2 against the field: the budget divided
/// by the crossing model count; `None` when the search found no crossing.
pub fn fair_points(budget: u64, fair: &Fair) -> Option<f64> {
    fair.crossing.map(|[models, ..]| budget as f64 / models)
}

/// `ratings.csv`, or `None` for a report that is not a roster's. `fair_points` is empty for a
/// profile whose score does not cross 1/2 over the model counts searched (docs/rosters.md).
pub fn ratings_csv(report: &Report) -> Option<Vec<u8>> {
    let roster = report.roster.as_ref()?;
    if roster.profiles.len() < 2 {
        return None;
    }
    let table = outcomes(report, roster)?;
    let mut out = String::from(
        "scenario,profile,points,models,score,score_ci95_low,score_ci95_high,rating,fair_points\n",
    );
    for (p, r) in roster.profiles.iter().zip(ratings(roster, &table)) {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{}\n",
            report.scenario,
            p.id,
            p.points,
            p.models,
            r.score,
            r.score_ci95_low,
            r.score_ci95_high,
            r.rating.map(|x| x.to_string()).unwrap_or_default(),
            p.fair
                .as_ref()
                .and_then(|f| fair_points(roster.budget, f))
                .map(|x| x.to_string())
                .unwrap_or_default()
        ));
    }
    Some(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(id: &str) -> Profile {
        Profile {
            id: id.into(),
            points: 10,
            models: 10,
            fair: None,
        }
    }

    /// Outcomes drawn from chosen Bradley-Terry strengths (no draws, many trials, as expected
    /// counts): the fit must give back the log strengths, centred.
    #[test]
    fn ratings_recover_chosen_strengths() {
        let strengths: [f64; 3] = [1.0, 2.0, 4.0];
        let n = 1_000_000u64;
        let table: Vec<Vec<Outcome>> = (0..3)
            .map(|i| {
                (0..3)
                    .map(|j| {
                        let p = strengths[i] / (strengths[i] + strengths[j]);
                        let first_won = (p * n as f64).round() as u64;
                        Outcome {
                            trials: n,
                            first_won,
                            second_won: n - first_won,
                        }
                    })
                    .collect()
            })
            .collect();
        let roster = Roster {
            budget: 100,
            profiles: vec![profile("a"), profile("b"), profile("c")],
            first_won: "blue.won".into(),
            second_won: "red.won".into(),
        };
        let r = ratings(&roster, &table);
        let mean_log = strengths.iter().map(|s| s.ln()).sum::<f64>() / 3.0;
        for (got, s) in r.iter().zip(strengths) {
            assert!(
                (got.rating.unwrap() - (s.ln() - mean_log)).abs() < 1e-5,
                "{got:?}"
            );
        }
        // Profile a against b (1/3) and c (1/5), in both seats.
        let want = (1.0 / 3.0 + 1.0 / 5.0) / 2.0;
        assert!((r[0].score - want).abs() < 1e-6, "{:?}", r[0]);
        assert!(r[0].score_ci95_low < want && want < r[0].score_ci95_high);
    }

    #[test]
    fn a_draw_scores_half_to_each_seat() {
        let o = Outcome {
            trials: 4,
            first_won: 1,
            second_won: 1,
        };
        // Scores 1, 0, 1/2, 1/2: mean 1/2, sample variance 1/6.
        let (m, e) = o.score(false);
        assert_eq!(m, 0.5);
        assert!((e - (1.0f64 / 6.0 / 4.0).sqrt()).abs() < 1e-15);
    }
}
