//! Design arms: one trial whose arms are different scenarios (the `[[choice]]`s with `set`),
//! each compiled to its own [`Plan`] and joined as arms of one trial, so the engine plays
//! them on the same random numbers exactly as the step-list choices of one plan are.

use super::plan::Plan;
use crate::engine::{Joined, Pairing};
use crate::scenario::Scenario;

/// The design arms of one sweep point, each arm against every later one.
pub type Designs = Joined<Plan>;

impl Joined<Plan> {
    /// Compiles one arm per scenario; each has exactly one choice (as
    /// `scenario::Arms::Designs` holds them).
    pub fn compile(arms: &[Scenario]) -> Designs {
        Joined::new(arms.iter().map(Plan::compile).collect(), Pairing::Every)
    }

    /// Compiles one arm per scenario, no arm compared with another: a roster's matchups.
    pub fn compile_apart(arms: &[Scenario]) -> Designs {
        Joined::new(arms.iter().map(Plan::compile).collect(), Pairing::Apart)
    }

    /// Disables every arm's precomputed fast paths (for tests that check them against the
    /// general path).
    pub fn force_general_path(self) -> Designs {
        self.map_parts(Plan::force_general_path)
    }

    /// The plans joined, in order.
    pub fn plans(&self) -> &[Plan] {
        self.parts()
    }

    /// The arms' plans, to give them advice (`Plan::set_policy`).
    pub fn plans_mut(&mut self) -> &mut [Plan] {
        self.parts_mut()
    }
}
