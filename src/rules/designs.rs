//! Design arms: one trial whose arms are different scenarios (the `[[choice]]`s with `set`),
//! each compiled to its own [`Plan`]. The engine plays every arm of a trial on the same random
//! stream, so the arms are compared on common random numbers exactly as the step-list choices
//! of one plan are.

use super::plan::{pairs_by_name, Plan};
use super::world::World;
use crate::engine::{Draws, MetricName, Trial};
use crate::scenario::Scenario;

pub struct Designs {
    /// One per arm, each with one choice.
    plans: Vec<Plan>,
    metrics: Vec<MetricName>,
    /// Arm `a`'s metrics are `metrics[offsets[a]..offsets[a + 1]]`.
    offsets: Vec<usize>,
    pairs: Vec<(usize, usize)>,
}

impl Designs {
    /// Compiles one arm per scenario; each must have exactly one choice (as
    /// `scenario::Variant::designs` holds them).
    pub fn compile(arms: &[Scenario]) -> Designs {
        let plans: Vec<Plan> = arms.iter().map(Plan::compile).collect();
        let mut metrics = Vec::new();
        let mut offsets = vec![0];
        for (arm, plan) in plans.iter().enumerate() {
            assert_eq!(plan.arms.len(), 1, "a design arm has one choice");
            metrics.extend(plan.metrics.iter().map(|m| MetricName {
                arm,
                choice: m.choice.clone(),
                name: m.name.clone(),
            }));
            offsets.push(metrics.len());
        }
        let pairs = pairs_by_name(&metrics, plans.len());
        Designs {
            plans,
            metrics,
            offsets,
            pairs,
        }
    }

    /// Disables every arm's precomputed fast paths (for tests that check them against the
    /// general path).
    pub fn force_general_path(mut self) -> Designs {
        self.plans = self
            .plans
            .into_iter()
            .map(Plan::force_general_path)
            .collect();
        self
    }

    /// The arms' plans, in choice order.
    pub fn plans(&self) -> &[Plan] {
        &self.plans
    }

    /// The arms' plans, to give them advice (`Plan::set_policy`).
    pub fn plans_mut(&mut self) -> &mut [Plan] {
        &mut self.plans
    }
}

impl Trial for Designs {
    /// One world per arm: each arm has its own units.
    type Scratch = Vec<World>;

    fn metrics(&self) -> &[MetricName] {
        &self.metrics
    }

    fn arms(&self) -> usize {
        self.plans.len()
    }

    fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }

    fn scratch(&self) -> Vec<World> {
        self.plans.iter().map(Trial::scratch).collect()
    }

    fn memoise(&self) -> bool {
        self.plans.iter().all(Trial::memoise)
    }

    fn play<'t, D: Draws<'t>>(
        &'t self,
        arm: usize,
        worlds: &mut Vec<World>,
        draws: &mut D,
        out: &mut [i64],
    ) {
        let out = &mut out[self.offsets[arm]..self.offsets[arm + 1]];
        self.plans[arm].play(0, &mut worlds[arm], draws, out);
    }
}
