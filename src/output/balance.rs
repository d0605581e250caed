//! `balance.csv` and the answer a balance search gives in `run.json`: laid out as given.

use super::tables::{finish, header, record, writer};
use serde::{Deserialize, Serialize};

/// One candidate the search played.
#[derive(Debug, Clone, PartialEq)]
pub struct BalanceRow {
    pub value: String,
    pub trials: u64,
    pub mean: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    /// `below`, `above` or `undecided` against the target, at 95%.
    pub relative: &'static str,
    pub closest: bool,
    /// The candidates this one contradicts monotonicity with, at 95%.
    pub contradicts: Vec<String>,
}

/// `scenario,vary,value,trials,mean,ci95_low,ci95_high,relative,closest,contradicts`
pub fn balance_csv(scenario: &str, vary: &str, rows: &[BalanceRow]) -> Vec<u8> {
    let mut w = writer();
    header(
        &mut w,
        &[
            "scenario",
            "vary",
            "value",
            "trials",
            "mean",
            "ci95_low",
            "ci95_high",
            "relative",
            "closest",
            "contradicts",
        ],
        &[],
        &[],
    );
    for r in rows {
        record(
            &mut w,
            [
                scenario.to_string(),
                vary.to_string(),
                r.value.clone(),
                r.trials.to_string(),
                r.mean.to_string(),
                r.ci95_low.to_string(),
                r.ci95_high.to_string(),
                r.relative.to_string(),
                u8::from(r.closest).to_string(),
                r.contradicts.join(";"),
            ],
        );
    }
    finish(w)
}

/// What a balance search found, as `run.json` keeps it under `balance`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BalanceAnswer {
    pub vary: String,
    pub metric: String,
    pub target: f64,
    /// The adjacent candidates whose means straddle the target; absent when none do.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub pair: Option<[String; 2]>,
    /// The candidate whose mean is nearest the target.
    pub closest: String,
    /// Where the line through the pair's means meets the target, with an interval from the
    /// lines through their 95% interval ends; numeric candidates only.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub crossing: Option<Crossing>,
    /// Whether both candidates of the pair (or the closest, without a pair) differ from the
    /// target at 95%; false when `--trials-max` stopped the search first.
    pub decided: bool,
    /// Pairs of candidates that contradict monotonicity at 95%.
    pub violations: Vec<[String; 2]>,
    /// Trials played over every candidate.
    pub trials_played: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Crossing {
    pub estimate: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_in_full_precision() {
        let row = BalanceRow {
            value: "3".into(),
            trials: 512,
            mean: 0.1,
            ci95_low: -0.25,
            ci95_high: 1.0 / 3.0,
            relative: "undecided",
            closest: true,
            contradicts: vec!["4".into(), "5".into()],
        };
        let text = String::from_utf8(balance_csv("s", "unit.a.size", &[row])).unwrap();
        assert_eq!(
            text,
            "scenario,vary,value,trials,mean,ci95_low,ci95_high,relative,closest,contradicts\n\
             s,unit.a.size,3,512,0.1,-0.25,0.3333333333333333,undecided,1,4;5\n"
        );
    }
}
