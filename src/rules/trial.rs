//! The driver the engine runs: [`Trial`] for a compiled [`Plan`]. Each trial plays one
//! choice's steps in order through [`commands::declare`] and writes each step's and each
//! unit's metrics row; in an engagement scenario it plays the engagement instead
//! ([`super::engagement::play`]).

use super::commands::{self, Ineligible, Resolved};
use super::plan::Plan;
use super::world::World;
use crate::engine::{Draws, MetricName, Trial};
use crate::metrics::{StepMetrics, UnitMetrics};

impl Trial for Plan {
    type Scratch = World;

    fn metrics(&self) -> &[MetricName] {
        &self.metrics
    }

    fn arms(&self) -> usize {
        self.arms.len()
    }

    fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }

    fn scratch(&self) -> World {
        World::new(self)
    }

    /// The general path (`force_general_path`) plays every trial in full.
    fn memoise(&self) -> bool {
        self.fast_paths()
    }

    fn play<'t, D: Draws<'t>>(
        &'t self,
        arm: usize,
        world: &mut World,
        draws: &mut D,
        out: &mut [i64],
    ) {
        let index = arm;
        let arm = &self.arms[arm];
        if let Some((engagement, prepared)) = self.engagement() {
            let row = &mut out[arm.offset..];
            super::engagement::play(self, engagement, prepared, world, draws, row);
            self.derive(index, out);
            return;
        }
        world.reset(self, arm.first_round);
        let unit_end = arm.offset + self.scenario().units.len() * UnitMetrics::LEN;
        let step_out = &mut out[unit_end..];
        for (i, step) in arm.steps.iter().enumerate() {
            // Ctrl-C: the engine drops this chunk, so a trial cut short is never counted.
            if crate::engine::interrupted() {
                return;
            }
            // The rest of the trial depends on the steps still to play, the world, and the
            // rows the steps before wrote.
            let (before, rest) = step_out.split_at_mut(i * StepMetrics::LEN);
            draws.at_state(|key| {
                key.push(i as u64);
                world.state_key(key);
                key.extend(before.iter().map(|&v| v as u64));
            });
            world.start_round(step.round);
            let declared = commands::declare(self, world, step.unit, step.order, draws);
            step_metrics(declared).write(&mut rest[..StepMetrics::LEN]);
        }
        let unit_out = &mut out[arm.offset..unit_end];
        for (unit, slot) in world
            .units
            .iter()
            .zip(unit_out.chunks_exact_mut(UnitMetrics::LEN))
        {
            unit.metrics().write(slot);
        }
        self.derive(index, out);
    }
}

fn step_metrics(declared: Result<Resolved, Ineligible>) -> StepMetrics {
    let (r, ineligible) = match declared {
        Ok(r) => (r, 0),
        Err(_) => (Resolved::default(), 1),
    };
    StepMetrics {
        resolved: i64::from(r.uses),
        fizzled: i64::from(r.fizzled),
        ineligible,
        responses: i64::from(r.responses),
    }
}
