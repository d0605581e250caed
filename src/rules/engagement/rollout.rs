//! Rollouts: one unit's first `best` decision scored by simulation. Each option is an arm of
//! one trial, so the engine plays every option's continuation on the same random numbers
//! (trial i of one option and trial i of another start from the same stream), and the paired
//! differences between options are gathered beside each option's objective.
//!
//! In a continuation, the unit's first `best` decision takes the arm's option ([`Forced`]);
//! every later `best` order of either side takes the first of its options that can be declared
//! (the base policy), as a plan without advice plays them.

use super::{play_forcing, Forced};
use crate::engine::{Draws, MetricName, Trial};
use crate::rules::plan::Plan;
use crate::rules::world::World;
use crate::scenario::Command;

/// The continuations of one unit's first decision, one arm per option.
pub struct Rollouts<'p> {
    plan: &'p Plan,
    unit: usize,
    options: Vec<Command>,
    /// Where the deciding side's objective is among the engagement's metrics.
    objective: usize,
    metrics: Vec<MetricName>,
    pairs: Vec<(usize, usize)>,
}

impl<'p> Rollouts<'p> {
    /// Scores `options` of `unit`'s first decision in `plan` (an engagement, played without
    /// advice) by metric `objective` (its index among the engagement's metrics); `None` when
    /// the plan has no engagement. Every option is paired with every later one.
    pub fn new(
        plan: &'p Plan,
        unit: usize,
        options: Vec<Command>,
        objective: usize,
    ) -> Option<Rollouts<'p>> {
        plan.engagement()?;
        let metrics = options
            .iter()
            .enumerate()
            .map(|(arm, c)| MetricName {
                arm,
                choice: c.name().to_string(),
                name: "objective".into(),
            })
            .collect();
        let n = options.len();
        let pairs = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect();
        Some(Rollouts {
            plan,
            unit,
            options,
            objective,
            metrics,
            pairs,
        })
    }
}

impl Trial for Rollouts<'_> {
    /// The world, and the engagement's metrics of the continuation under way.
    type Scratch = (World, Vec<i64>);

    fn metrics(&self) -> &[MetricName] {
        &self.metrics
    }

    fn arms(&self) -> usize {
        self.options.len()
    }

    fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }

    fn scratch(&self) -> Self::Scratch {
        let len = self
            .plan
            .engagement()
            .map_or(0, |(e, _)| e.metric_names(&self.plan.scenario().units).len());
        (World::new(self.plan), vec![0; len])
    }

    /// The forced decision is part of the state but not of the keys a trial announces.
    fn memoise(&self) -> bool {
        false
    }

    fn play<'t, D: Draws<'t>>(
        &'t self,
        arm: usize,
        (world, metrics): &mut Self::Scratch,
        draws: &mut D,
        out: &mut [i64],
    ) {
        let Some((engagement, prepared)) = self.plan.engagement() else {
            return;
        };
        let mut forced = Some(Forced {
            unit: self.unit,
            command: self.options[arm],
        });
        play_forcing(
            self.plan,
            engagement,
            prepared,
            world,
            draws,
            metrics,
            &mut forced,
        );
        out[arm] = metrics[self.objective];
    }
}
