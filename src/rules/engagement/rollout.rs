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
                round: None,
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
        // The row holds the rounds' records after the metrics.
        let len = self.plan.engagement().map_or(0, |(_, p)| p.len);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{self, Monitor, RunSpec, Shard};
    use crate::scenario;

    const DUEL: &str = r#"
[scenario]
name = "duel"
[battlefield]
width = 48.0
height = 48.0
[engagement]
rounds = 3
first = "random"
[[unit]]
id = "wardens"
side = "blue"
size = 10
alive = 6
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=4", damage = 1, range = 24.0 }
formation = { kind = "line", x = 10.0, y = 10.0, spacing = 1.5 }
orders = [{ command = "best", among = ["rally", "shoot"], target = "nearest" }]
[[unit]]
id = "raiders"
side = "red"
size = 6
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=3", damage = 1, range = 24.0 }
formation = { kind = "line", x = 10.0, y = 22.0, spacing = 1.5 }
orders = [{ command = "shoot", target = "nearest" }]
"#;

    fn gathered(options: Vec<Command>, threads: usize) -> engine::Gathered {
        let set = scenario::parse(DUEL, "duel.toml", &[]).unwrap();
        let plan = Plan::compile(set.variants[0].scenario());
        // Slot 0: wardens.alive.
        let trial = Rollouts::new(&plan, 0, options, 0).unwrap();
        let spec = RunSpec {
            trials: engine::CHUNK_SIZE + 17,
            seed: 7,
            threads,
            shard: Shard::WHOLE,
            precision: None,
        };
        engine::run(&trial, &spec, &Monitor::default())
            .unwrap()
            .gathered
    }

    #[test]
    fn an_option_scored_twice_plays_the_same_continuations() {
        // Common random numbers: trial i of every option starts from the same stream, so the
        // same option in two arms differs by exactly 0 in every trial, though its values vary.
        let g = gathered(vec![Command::Shoot, Command::Shoot], 2);
        assert_eq!(g.metrics[0], g.metrics[1]);
        assert!(g.metrics[0].iter().count() > 1);
        assert_eq!(
            g.differences[0].iter().collect::<Vec<_>>(),
            vec![(0, g.trials)]
        );
    }

    #[test]
    fn rollouts_do_not_depend_on_the_thread_count() {
        let options = vec![Command::Rally, Command::Shoot];
        let one = gathered(options.clone(), 1);
        assert_eq!(one, gathered(options, 3));
        // The options differ: Rally brings models back, Shoot thins the volleys.
        assert_ne!(one.metrics[0], one.metrics[1]);
    }
}
