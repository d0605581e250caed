//! Distance tests between two round bases decided from the squared distance of their centres,
//! without a square root nearly always, and with the answers of [`within`](super::within) and
//! [`overlaps`](super::overlaps) to the last bit.
//!
//! Both tests compare `f(d2) = sqrt(d2) - ra - rb` (as computed, in that order) with a
//! bound. Each step of `f` is monotone in `d2` (a correctly rounded square root, then two
//! subtractions of fixed numbers), so `f` never decreases as `d2` grows: once `f(yes)` is
//! found to pass and `f(no)` to fail, by evaluating `f` itself at those two numbers, every
//! `d2 <= yes` passes and every `d2 >= no` fails. Only the thin band between them costs a
//! square root.

use super::shapes::{Point, EPS};
use super::spatial::{box_gap_squared, box_span_squared};

/// A test on two bases of radii `ra` and `rb`, as a function of their centres' squared
/// distance ([`Point::distance_squared`], the same in either order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reach {
    ra: f64,
    rb: f64,
    /// The bound `f` is compared with.
    bound: f64,
    /// Whether the test is `f < bound` (else `f <= bound`).
    strict: bool,
    /// Every squared distance up to this passes (negative: none is known to).
    yes: f64,
    /// Every squared distance from this on fails (infinite: none is known to).
    no: f64,
}

impl Reach {
    /// [`within`](super::within)`(a, ra, b, rb, d)`: edge to edge at most `d` (with `EPS`).
    pub fn within(ra: f64, rb: f64, d: f64) -> Reach {
        Reach::new(ra, rb, d + EPS, false)
    }

    /// [`overlaps`](super::overlaps)`(a, ra, b, rb)`: closer than touching (beyond `EPS`).
    pub fn overlapping(ra: f64, rb: f64) -> Reach {
        Reach::new(ra, rb, -EPS, true)
    }

    fn new(ra: f64, rb: f64, bound: f64, strict: bool) -> Reach {
        let mut r = Reach {
            ra,
            rb,
            bound,
            strict,
            yes: -1.0,
            no: f64::INFINITY,
        };
        // The exact boundary is near (bound + ra + rb)^2; step off it by a relative margin
        // far above rounding, then check each guess with `f` itself (so the margin only
        // decides how thin the band is, never an answer).
        let edge = bound + ra + rb;
        if edge.is_finite() && edge > 0.0 {
            for margin in [1e-12, 1e-9, 1e-6] {
                let guess = edge * (1.0 - margin);
                if r.passes(guess * guess) {
                    r.yes = guess * guess;
                    break;
                }
            }
            for margin in [1e-12, 1e-9, 1e-6] {
                let guess = edge * (1.0 + margin);
                if !r.passes(guess * guess) {
                    r.no = guess * guess;
                    break;
                }
            }
        }
        r
    }

    /// The test as stated, on a squared centre distance.
    #[inline]
    fn passes(&self, d2: f64) -> bool {
        let edge = d2.sqrt() - self.ra - self.rb;
        if self.strict {
            edge < self.bound
        } else {
            edge <= self.bound
        }
    }

    /// How far apart two centres can be for the test to hold, as far as known: every pair
    /// whose squared distance is at least this squared (as computed) fails. Infinite when
    /// no bound is known.
    pub fn reach(&self) -> f64 {
        let far = self.no.sqrt();
        // The square root may round down: step up to a number whose square is not below.
        if far * far >= self.no {
            far
        } else {
            far.next_up()
        }
    }

    /// The test on two centres whose squared distance is `d2`.
    #[inline]
    pub fn test(&self, d2: f64) -> bool {
        if d2 <= self.yes {
            true
        } else if d2 >= self.no {
            false
        } else {
            self.passes(d2)
        }
    }

    /// The test on the bases centred at `a` (radius `ra`) and `b` (radius `rb`).
    #[inline]
    pub fn between(&self, a: Point, b: Point) -> bool {
        self.test(a.distance_squared(b))
    }

    /// What two groups' boxes (each holding its group's centres) alone say of whether the test
    /// holds for some pair of one centre from each group: `Some(true)` when it holds even for
    /// the boxes' farthest corners (so for every pair), `Some(false)` when it fails even for
    /// their nearest points (so for every pair), `None` when the boxes do not decide. The
    /// boxes' squared distances bound every pair's, as computed ([`box_gap_squared`],
    /// [`box_span_squared`]), and the test only ever changes once as the distance grows.
    pub fn decide_boxes(&self, a: (Point, Point), b: (Point, Point)) -> Option<bool> {
        if self.test(box_span_squared(a, b)) {
            Some(true)
        } else if self.test(box_gap_squared(a, b)) {
            None
        } else {
            Some(false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{overlaps, within};
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Centres on and near every boundary (exactly touching, exactly `d` apart edge to edge,
    /// and a few units in the last place either side), and anywhere: the tests against
    /// `within` and `overlaps` as stated.
    #[test]
    fn reach_answers_as_the_tests_as_stated() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(160);
        let radii: [f64; 6] = [0.5, 0.75, 1.0, 1.25, 0.3, 12.5];
        let reaches: [f64; 8] = [0.0, 1.0, 2.0, 2.5, 6.0, 12.0, 24.0, 0.1];
        let mut boundary = 0;
        for round in 0..20_000 {
            let ra = radii[round % radii.len()];
            let rb = radii[(round / 7) % radii.len()];
            let d = reaches[(round / 3) % reaches.len()];
            let a = Point::new(
                (rng.next_u64() % 96) as f64 * 0.5,
                (rng.next_u64() % 96) as f64 * 0.5,
            );
            let angle = (rng.next_u64() % 24) as f64 * std::f64::consts::TAU / 24.0;
            // The centre distance at the boundary of one test or the other, nudged.
            let edge = if round % 2 == 0 { ra + rb + d } else { ra + rb };
            let ulps = (rng.next_u64() % 9) as i64 - 4;
            let mut dist = edge;
            for _ in 0..ulps.abs() {
                dist = if ulps > 0 {
                    dist.next_up()
                } else {
                    dist.next_down()
                };
            }
            if round % 5 == 4 {
                dist = (rng.next_u64() % (1 << 20)) as f64 / (1 << 20) as f64 * 3.0 * edge;
            }
            let b = Point::new(a.x + dist * angle.cos(), a.y + dist * angle.sin());
            let w = Reach::within(ra, rb, d);
            let o = Reach::overlapping(ra, rb);
            assert_eq!(
                w.between(a, b),
                within(a, ra, b, rb, d),
                "{a:?} {b:?} {ra} {rb} {d}"
            );
            assert_eq!(w.between(b, a), within(a, ra, b, rb, d));
            assert_eq!(
                o.between(a, b),
                overlaps(a, ra, b, rb),
                "{a:?} {b:?} {ra} {rb}"
            );
            boundary += usize::from(ulps.abs() <= 1 && round % 5 != 4);
            // On a lattice, bases at exactly `d` edge to edge.
            if angle == 0.0 && ulps == 0 {
                assert!(w.between(a, b) || round % 5 == 4);
            }
        }
        assert!(boundary > 5_000, "{boundary}");
    }

    /// Two groups on a half-inch lattice (so that pairs are often exactly touching, or exactly
    /// `d` apart edge to edge), their boxes or boxes around them: wherever the boxes decide,
    /// they say what every pair says.
    #[test]
    fn boxes_decide_as_every_pair_does() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(164);
        let (mut decided, mut undecided) = (0, 0);
        for round in 0..20_000 {
            let (ra, rb) = ([0.5, 0.75, 1.0][round % 3], [0.5, 1.25][round % 2]);
            let test = match round % 5 {
                0 | 1 => Reach::overlapping(ra, rb),
                k => Reach::within(ra, rb, [0.0, 1.0, 2.0, 12.0][(k + round / 5) % 4]),
            };
            let group = |rng: &mut rand_xoshiro::Xoshiro256PlusPlus, x0: f64, y0: f64| {
                (0..1 + rng.next_u64() % 8)
                    .map(|_| {
                        let (i, j) = (rng.next_u64() % 6, rng.next_u64() % 4);
                        Point::new(x0 + i as f64 * 0.5, y0 + j as f64 * 0.5)
                    })
                    .collect::<Vec<Point>>()
            };
            let a = group(&mut rng, 10.0, 10.0);
            let (bx, by) = (rng.next_u64() % 9, rng.next_u64() % 40);
            let b = group(&mut rng, 10.0 + bx as f64 * 0.5, 10.0 + by as f64 * 0.5);
            let every = a.iter().any(|&p| b.iter().any(|&q| test.between(p, q)));
            let box_of = |g: &[Point]| super::super::spatial::bounds(g.iter().copied()).unwrap();
            let (mut box_a, box_b) = (box_of(&a), box_of(&b));
            if round % 4 == 3 {
                box_a.0.x -= 0.5;
                box_a.1.y += 0.5;
            }
            match test.decide_boxes(box_a, box_b) {
                Some(answer) => {
                    assert_eq!(answer, every, "round {round}: {a:?} {b:?}");
                    decided += 1;
                }
                None => undecided += 1,
            }
        }
        assert!(
            decided > 5_000 && undecided > 1_000,
            "{decided} {undecided}"
        );
    }

    /// Centres at the reach a test reports, a few units in the last place beyond it, and
    /// farther: the test fails there, and holds just inside the boundary it stands for.
    #[test]
    fn no_pair_at_the_reach_or_beyond_passes() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(165);
        let radii: [f64; 5] = [0.5, 0.75, 1.0, 1.25, 0.3];
        for round in 0..20_000 {
            let (ra, rb) = (radii[round % 5], radii[(round / 5) % 5]);
            let test = match round % 3 {
                0 => Reach::overlapping(ra, rb),
                k => Reach::within(ra, rb, [0.0, 1.0, 2.5, 24.0][(k + round / 3) % 4]),
            };
            let far = test.reach();
            assert!(far.is_finite() && !test.test(far * far), "round {round}");
            let mut dist = far;
            for _ in 0..rng.next_u64() % 8 {
                dist = dist.next_up();
            }
            dist += (rng.next_u64() % 4) as f64 * 0.25;
            let a = Point::new(
                (rng.next_u64() % 96) as f64 * 0.5,
                (rng.next_u64() % 96) as f64 * 0.5,
            );
            let angle = (rng.next_u64() % 24) as f64 * std::f64::consts::TAU / 24.0;
            let b = Point::new(a.x + dist * angle.cos(), a.y + dist * angle.sin());
            // Rounding the centre may bring it a hair nearer than `dist`; the reach holds for
            // squared distances as computed.
            if a.distance_squared(b) >= far * far {
                assert!(!test.between(a, b), "round {round}: {a:?} {b:?}");
            }
            // A thousandth of an inch inside the boundary the test stands for, it holds.
            let inside = far - 1e-3;
            assert!(test.test(inside * inside), "round {round}");
        }
    }
}
