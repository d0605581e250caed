//! Where restored models go: a deterministic greedy search over candidate spots.
//!
//! Candidates are laid around each anchor model on five rings, from base contact out to 2"
//! edge to edge in 0.5" steps, at 24 angles (every 15°, starting along +x). They are tried
//! anchor by anchor (in model order), ring by ring, angle by angle; each restored model takes
//! the first legal candidate. Because placing a model only ever makes candidates illegal, and
//! chained anchors (`options.rally.chain`) only add candidates at the end of the order, the
//! search resumes where the last one stopped: placing k models is the first k of placing
//! k + 1, which the fast path relies on.

use super::geometry::{overlaps, within, Battlefield, Point};

/// Gaps (edge to edge, inches) between an anchor and a candidate: 0 is base contact.
const RING_GAPS: [f64; 5] = [0.0, 0.5, 1.0, 1.5, 2.0];
const ANGLES: usize = 24;
/// A restored model may not be placed within this distance of an enemy model.
const ENEMY_EXCLUSION: f64 = 1.0;

/// A round base on the table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Base {
    pub centre: Point,
    pub radius: f64,
}

/// What a placement must respect.
pub struct Surroundings<'a> {
    pub field: &'a Battlefield,
    /// Every base on the table, friend or foe, the unit's own included.
    pub bases: &'a [Base],
    /// Enemy bases (also in `bases`).
    pub enemies: &'a [Base],
}

/// Places up to `count` models of radius `radius` within 2" of `anchors` (the unit's models
/// alive when this use began); with `chain`, each placed model becomes an anchor too.
/// Returns the centres placed, in order; fewer than `count` when space runs out.
pub fn place(
    around: &Surroundings<'_>,
    anchors: &[Point],
    radius: f64,
    count: usize,
    chain: bool,
) -> Vec<Point> {
    let mut placed = Vec::with_capacity(count);
    place_into(
        around,
        &mut anchors.to_vec(),
        radius,
        count,
        chain,
        &mut placed,
    );
    placed
}

/// [`place`] with caller-owned buffers, so a trial's hot path does not allocate: `anchors`
/// may grow (with `chain`), and the spots are appended to `placed` (cleared first).
pub fn place_into(
    around: &Surroundings<'_>,
    anchors: &mut Vec<Point>,
    radius: f64,
    count: usize,
    chain: bool,
    placed: &mut Vec<Point>,
) {
    placed.clear();
    let per_anchor = RING_GAPS.len() * ANGLES;
    let mut cursor = 0;
    while placed.len() < count && cursor < anchors.len() * per_anchor {
        let candidate = candidate(anchors[cursor / per_anchor], radius, cursor % per_anchor);
        cursor += 1;
        if legal(around, placed, candidate, radius) {
            placed.push(candidate);
            if chain {
                anchors.push(candidate);
            }
            // The spot just taken is now illegal, so resuming after it loses nothing.
        }
    }
}

fn candidate(anchor: Point, radius: f64, index: usize) -> Point {
    let ring = index / ANGLES;
    let angle = (index % ANGLES) as f64 * std::f64::consts::TAU / ANGLES as f64;
    let d = 2.0 * radius + RING_GAPS[ring];
    Point::new(anchor.x + d * angle.cos(), anchor.y + d * angle.sin())
}

fn legal(around: &Surroundings<'_>, placed: &[Point], p: Point, r: f64) -> bool {
    around.field.admits(p, r)
        && !around
            .bases
            .iter()
            .any(|b| overlaps(p, r, b.centre, b.radius))
        && !placed.iter().any(|&q| overlaps(p, r, q, r))
        && !around
            .enemies
            .iter()
            .any(|e| within(p, r, e.centre, e.radius, ENEMY_EXCLUSION))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corridor(length: f64) -> Battlefield {
        Battlefield {
            width: length,
            height: 1.0,
            terrain: vec![],
        }
    }

    fn base(x: f64, y: f64) -> Base {
        Base {
            centre: Point::new(x, y),
            radius: 0.5,
        }
    }

    #[test]
    fn a_corridor_one_base_wide_holds_three_models_each_side() {
        // One 1" model at x = 10 in a 1"-wide corridor. Restored centres must lie on y = 0.5,
        // 1" to 3" from x = 10 (base contact to 2" edge to edge) and 1" apart: x = 7, 8, 9 and
        // 11, 12, 13. Six spots, no more.
        let field = corridor(40.0);
        let bases = [base(10.0, 0.5)];
        let around = Surroundings {
            field: &field,
            bases: &bases,
            enemies: &[],
        };
        let placed = place(&around, &[bases[0].centre], 0.5, 10, false);
        let mut xs: Vec<f64> = placed.iter().map(|p| (p.x * 1e6).round() / 1e6).collect();
        xs.sort_by(f64::total_cmp);
        assert_eq!(xs, vec![7.0, 8.0, 9.0, 11.0, 12.0, 13.0]);
        // Chained, every placed model anchors the next: all ten fit.
        assert_eq!(place(&around, &[bases[0].centre], 0.5, 10, true).len(), 10);
    }

    #[test]
    fn enemies_push_placements_beyond_one_inch() {
        let field = corridor(40.0);
        let bases = [base(10.0, 0.5), base(12.5, 0.5)];
        let around = Surroundings {
            field: &field,
            bases: &bases,
            enemies: &bases[1..],
        };
        // The enemy at 12.5 bars x in (10.5, 14.5); only the spots at 7, 8, 9 remain.
        let placed = place(&around, &[bases[0].centre], 0.5, 10, false);
        assert_eq!(placed.len(), 3);
        assert!(placed.iter().all(|p| p.x < 10.0));
    }

    #[test]
    fn placing_k_is_a_prefix_of_placing_more() {
        let field = Battlefield {
            width: 48.0,
            height: 48.0,
            terrain: vec![],
        };
        let bases: Vec<Base> = (0..4).map(|i| base(20.0 + 1.5 * i as f64, 20.0)).collect();
        let anchors: Vec<Point> = bases.iter().map(|b| b.centre).collect();
        let around = Surroundings {
            field: &field,
            bases: &bases,
            enemies: &[],
        };
        for chain in [false, true] {
            let all = place(&around, &anchors, 0.5, 30, chain);
            for k in 0..30 {
                assert_eq!(
                    place(&around, &anchors, 0.5, k, chain),
                    all[..k.min(all.len())]
                );
            }
        }
    }
}
