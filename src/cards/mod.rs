//! The card game of seed 001: card data, resolution order, latency queue, listeners.
//! (Being written: the validated game and its plan are placeholders until then.)

use crate::engine::{MetricName, Trial};
use crate::scenario::ScenarioError;
use rand::Rng;

/// A validated `[cards]` section.
#[derive(Debug, Clone, PartialEq)]
pub struct CardGame {}

/// Validates a scenario's `[cards]` section; `file` is the scenario file's path (card-set
/// paths are relative to its folder).
pub fn validate(file: &str, _cards: &toml::Value) -> Result<CardGame, ScenarioError> {
    Err(ScenarioError::Invalid {
        file: file.to_string(),
        key: "cards".into(),
        problem: "card-game scenarios are not supported by this version of rollcall yet".into(),
    })
}

/// A card game compiled for play.
pub struct CardPlan {
    metrics: Vec<MetricName>,
}

impl CardPlan {
    pub fn compile(_game: &CardGame) -> CardPlan {
        CardPlan {
            metrics: Vec::new(),
        }
    }
}

impl Trial for CardPlan {
    type Scratch = ();

    fn metrics(&self) -> &[MetricName] {
        &self.metrics
    }

    fn arms(&self) -> usize {
        1
    }

    fn pairs(&self) -> &[(usize, usize)] {
        &[]
    }

    fn scratch(&self) {}

    fn play<R: Rng>(&self, _arm: usize, _: &mut (), _rng: &mut R, _out: &mut [i64]) {}
}

/// `orderings.csv` for scenarios whose players enumerate their orderings; `None` otherwise.
pub fn orderings_csv(_report: &crate::output::Report) -> Option<Vec<u8>> {
    None
}
