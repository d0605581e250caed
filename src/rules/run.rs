//! Run: the unit moves as a block up to `move` inches, straight toward a point or away from
//! the nearest enemy model, stopping short where the full move would leave it off the table,
//! in impassable terrain or overlapping another unit.

use super::plan::Plan;
use super::world::{Model, World};
use crate::geometry::spatial::bounds;
use crate::geometry::{Point, Reach};
use crate::scenario::Heading;

/// Steps tried from the full move down to nothing when the full move is not allowed.
const FRACTIONS: u32 = 64;

/// One use of Run. A unit without a move distance stays put; validation gives every unit
/// ordered to run one.
pub fn resolve(plan: &Plan, world: &mut World, unit: usize, toward: Heading) {
    let u = &plan.scenario().units[unit];
    let Some(reach) = u.move_distance else { return };
    let all = world.models(plan);
    let models = &all[unit];
    if models.is_empty() {
        return;
    }
    let n = models.len() as f64;
    let centre = Point::new(
        models.iter().map(|m| m.centre.x).sum::<f64>() / n,
        models.iter().map(|m| m.centre.y).sum::<f64>() / n,
    );
    let (dx, dy, length) = match toward {
        Heading::Point(p) => {
            let d = centre.distance(p);
            (p.x - centre.x, p.y - centre.y, reach.min(d))
        }
        Heading::AwayFromNearestEnemy => {
            let Some(enemy) = nearest_enemy(plan, all, unit) else {
                return;
            };
            (centre.x - enemy.x, centre.y - enemy.y, reach)
        }
    };
    let norm = dx.hypot(dy);
    if norm == 0.0 || length == 0.0 {
        return;
    }
    let (ux, uy) = (dx / norm, dy / norm);
    for k in (1..=FRACTIONS).rev() {
        let d = length * k as f64 / FRACTIONS as f64;
        if allowed(plan, all, unit, ux * d, uy * d) {
            for m in &mut world.models_mut(plan)[unit] {
                m.centre = Point::new(m.centre.x + ux * d, m.centre.y + uy * d);
            }
            return;
        }
    }
}

fn nearest_enemy(plan: &Plan, models: &[Vec<Model>], unit: usize) -> Option<Point> {
    let side = &plan.scenario().units[unit].side;
    let own = &models[unit];
    let mut best: Option<(f64, Point)> = None;
    for (i, u) in plan.scenario().units.iter().enumerate() {
        if &u.side == side {
            continue;
        }
        for e in &models[i] {
            for m in own {
                let d = m.centre.distance(e.centre);
                if best.is_none_or(|(b, _)| d < b) {
                    best = Some((d, e.centre));
                }
            }
        }
    }
    best.map(|(_, p)| p)
}

/// Whether every model of `unit`, moved by (`dx`, `dy`), stands on the table, outside
/// terrain and overlapping no model of another unit. A unit whose box is clear of the moved
/// unit's box (the boxes decide it, exactly: [`Reach::decide_boxes`]) is not looked at model
/// by model.
fn allowed(plan: &Plan, models: &[Vec<Model>], unit: usize, dx: f64, dy: f64) -> bool {
    let u = &plan.scenario().units[unit];
    let field = &plan.scenario().battlefield;
    let moved = |m: &Model| Point::new(m.centre.x + dx, m.centre.y + dy);
    if !models[unit]
        .iter()
        .all(|m| field.admits(moved(m), u.radius()))
    {
        return false;
    }
    let Some(mine) = bounds(models[unit].iter().map(moved)) else {
        return true;
    };
    plan.scenario()
        .units
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != unit)
        .all(|(i, o)| {
            let overlap = Reach::overlapping(u.radius(), o.radius());
            let Some(theirs) = bounds(models[i].iter().map(|q| q.centre)) else {
                return true;
            };
            match overlap.decide_boxes(mine, theirs) {
                Some(any) => !any,
                None => models[unit].iter().all(|m| {
                    let p = moved(m);
                    models[i].iter().all(|q| !overlap.between(p, q.centre))
                }),
            }
        })
}
