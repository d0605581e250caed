//! Geometry facts the exact engine may rely on, and when it must refuse.
//!
//! A state does not say where models stand. A unit with no model removed or restored stands
//! exactly where the scenario placed it; otherwise its models are some subset of its
//! *potential positions*: its starting models and every Rally spot any reachable state has
//! used so far. A question about two units (is one in range of the other, is one within 1" of
//! the other) is answered exactly when both stand at the start; otherwise it is answered only
//! when every pair of potential positions gives the same answer (all within, or none), since
//! then no choice of removed or restored models can change it. Otherwise the answer would
//! depend on which model the dice removed, and the engine refuses. Which of two units is
//! nearer (target rules, retargeting) is answered from [`Geometry::bounds`] likewise: the
//! unit distance lies between the closest and the farthest pair of potential positions.

use crate::rules::geometry::{edge_distance, Point, EPS};
use crate::scenario::Scenario;

/// The answer to "is some model of A within d of some model of B?".
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Within {
    Yes,
    No,
    /// Some pairs of potential positions are within d and some are not.
    Depends {
        closest: f64,
        farthest: f64,
    },
}

pub struct Geometry {
    start: Vec<Vec<Point>>,
    potential: Vec<Vec<Point>>,
    radius: Vec<f64>,
}

impl Geometry {
    pub fn new(scenario: &Scenario) -> Geometry {
        let start: Vec<Vec<Point>> = scenario.units.iter().map(|u| u.models.clone()).collect();
        Geometry {
            potential: start.clone(),
            start,
            radius: scenario.units.iter().map(|u| u.radius()).collect(),
        }
    }

    /// Records that models of `unit` may now stand at `spots` (Rally placements).
    pub fn add_spots(&mut self, unit: usize, spots: &[Point]) {
        let known = &mut self.potential[unit];
        for &p in spots {
            if !known.iter().any(|q| q.x == p.x && q.y == p.y) {
                known.push(p);
            }
        }
    }

    /// The closest and farthest edge-to-edge distances between a model of `a` and a model of
    /// `b`, over the positions they may hold (`*_at_start`: that unit stands exactly as
    /// placed). When both stand at the start, `closest` is the rules' unit distance.
    pub fn bounds(&self, a: usize, a_at_start: bool, b: usize, b_at_start: bool) -> (f64, f64) {
        let pick = |u: usize, at_start: bool| {
            if at_start {
                &self.start[u]
            } else {
                &self.potential[u]
            }
        };
        let (pa, pb) = (pick(a, a_at_start), pick(b, b_at_start));
        let (ra, rb) = (self.radius[a], self.radius[b]);
        let mut closest = f64::INFINITY;
        let mut farthest = f64::NEG_INFINITY;
        for &p in pa {
            for &q in pb {
                let e = edge_distance(p, ra, q, rb);
                closest = closest.min(e);
                farthest = farthest.max(e);
            }
        }
        (closest, farthest)
    }

    /// Whether some model of `a` is within `d` inches (edge to edge, with the rules' slack) of
    /// some model of `b`.
    pub fn within(&self, a: usize, a_at_start: bool, b: usize, b_at_start: bool, d: f64) -> Within {
        let (closest, farthest) = self.bounds(a, a_at_start, b, b_at_start);
        if closest > d + EPS {
            Within::No
        } else if (a_at_start && b_at_start) || farthest <= d + EPS {
            // Both as placed: the closest pair decides, exactly as the rules measure it.
            Within::Yes
        } else {
            Within::Depends { closest, farthest }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;

    #[test]
    fn answers_only_what_removals_cannot_change() {
        let text = r#"
[scenario]
name = "g"
[[unit]]
id = "a"
side = "blue"
size = 2
resolve = "d6>=4"
models = [[10.0, 10.0], [30.0, 10.0]]
[[unit]]
id = "b"
side = "red"
size = 1
resolve = "d6>=4"
models = [[20.0, 10.0]]
[[step]]
unit = "a"
command = "rally"
"#;
        let set = scenario::parse(text, "g.toml", &[]).unwrap();
        let g = Geometry::new(&set.variants[0].scenario);
        // 9" edge to edge from both models of a.
        assert_eq!(g.within(0, true, 1, true, 9.0), Within::Yes);
        assert_eq!(g.within(0, false, 1, true, 9.0), Within::Yes);
        assert_eq!(g.within(0, false, 1, true, 8.0), Within::No);
        let mut g = g;
        g.add_spots(0, &[Point::new(12.0, 10.0)]);
        // The restored spot is 7" away; the starting models 9": depends unless both start.
        assert_eq!(g.within(0, true, 1, true, 8.0), Within::No);
        assert!(matches!(
            g.within(0, false, 1, true, 8.0),
            Within::Depends { .. }
        ));
    }
}
