//! What Shoot and Rally do to models, as pure functions of every unit's models: for the exact
//! engine, which keys its states by layouts (which models stand where, with what HP) and
//! works out each successor layout once instead of mutating a [`super::World`].
//!
//! Both follow the rules' own code: [`wound_order`] is the order in which Shoot's `victim`
//! picks models; [`rally_spots`] gathers the bases with [`placement::bases_around`], as
//! Rally's precomputation does, and calls the same placement search as Rally's general path.

use super::placement::{self, Surroundings};
use super::world::Model;
use crate::geometry::Point;
use crate::scenario::Scenario;

/// The indices of `target`'s models in the order a volley's failed tests reach them: the
/// damaged model first (a model below `full` HP; at most one ever is), then the others by
/// squared distance to the shooter's closest model, ties to the first in order. Shoot picks
/// one victim at a time, but taking a model away changes no other model's distance and keeps
/// the rest in order, so one victim after another is this order.
pub(crate) fn wound_order(target: &[Model], full: u32, shooter: &[Model]) -> Vec<usize> {
    let damaged = target.iter().position(|m| m.hp < full);
    let mut rest: Vec<(f64, usize)> = target
        .iter()
        .enumerate()
        .filter(|&(i, _)| Some(i) != damaged)
        .map(|(i, m)| {
            let d = shooter
                .iter()
                .map(|s| m.centre.distance_squared(s.centre))
                .fold(f64::INFINITY, f64::min);
            (d, i)
        })
        .collect();
    // Stable, and keyed by index too: equal distances keep file order.
    rest.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    damaged
        .into_iter()
        .chain(rest.into_iter().map(|(_, i)| i))
        .collect()
}

/// Where one use of Rally by `unit` places up to `count` models when unit i's models are
/// `models[i]`: around the unit's models, clear of every base and of enemies, on the table.
pub(crate) fn rally_spots(
    scenario: &Scenario,
    models: &[&[Model]],
    unit: usize,
    count: usize,
) -> Vec<Point> {
    let units = &scenario.units;
    let (bases, enemies) =
        placement::bases_around(scenario, unit, |i| models[i].iter().map(|m| m.centre));
    let anchors: Vec<Point> = models[unit].iter().map(|m| m.centre).collect();
    let around = Surroundings {
        field: &scenario.battlefield,
        bases: &bases,
        enemies: &enemies,
    };
    placement::place(
        &around,
        &anchors,
        units[unit].radius(),
        count,
        scenario.options.rally_chain,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(x: f64, hp: u32) -> Model {
        Model {
            centre: Point::new(x, 0.0),
            hp,
        }
    }

    #[test]
    fn wounds_go_to_the_damaged_model_then_nearest_first_ties_in_order() {
        let shooter = [model(0.0, 1), model(20.0, 1)];
        // Distances to the closest shooter model: 5, 3, 3, 1 (the last from the second).
        let target = [model(5.0, 2), model(3.0, 2), model(17.0, 2), model(19.0, 2)];
        assert_eq!(wound_order(&target, 2, &shooter), [3, 1, 2, 0]);
        let mut hurt = target;
        hurt[0].hp = 1;
        assert_eq!(wound_order(&hurt, 2, &shooter), [0, 3, 1, 2]);
    }
}
