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

    /// Whether the test holds for some base of the points `xs`, `ys` (the same length) around
    /// `p`: the squared distances of a block are worked out side by side, and a square root is
    /// taken only in the band.
    pub fn any(&self, p: Point, xs: &[f64], ys: &[f64]) -> bool {
        const BLOCK: usize = 8;
        let (xs, ys) = (&xs[..xs.len().min(ys.len())], &ys[..xs.len().min(ys.len())]);
        let mut x_blocks = xs.chunks_exact(BLOCK);
        let mut y_blocks = ys.chunks_exact(BLOCK);
        for (bx, by) in (&mut x_blocks).zip(&mut y_blocks) {
            let mut d2 = [0.0; BLOCK];
            for k in 0..BLOCK {
                let (dx, dy) = (p.x - bx[k], p.y - by[k]);
                d2[k] = dx * dx + dy * dy;
            }
            // A block is settled by two comparisons a point unless one falls in the band.
            let (mut sure, mut unsure) = (false, false);
            for &v in &d2 {
                sure |= v <= self.yes;
                unsure |= v > self.yes && v < self.no;
            }
            if sure || (unsure && d2.iter().any(|&v| self.test(v))) {
                return true;
            }
        }
        x_blocks
            .remainder()
            .iter()
            .zip(y_blocks.remainder())
            .any(|(&x, &y)| self.between(p, Point::new(x, y)))
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
                dist = if ulps > 0 { dist.next_up() } else { dist.next_down() };
            }
            if round % 5 == 4 {
                dist = (rng.next_u64() % (1 << 20)) as f64 / (1 << 20) as f64 * 3.0 * edge;
            }
            let b = Point::new(a.x + dist * angle.cos(), a.y + dist * angle.sin());
            let w = Reach::within(ra, rb, d);
            let o = Reach::overlapping(ra, rb);
            assert_eq!(w.between(a, b), within(a, ra, b, rb, d), "{a:?} {b:?} {ra} {rb} {d}");
            assert_eq!(w.between(b, a), within(a, ra, b, rb, d));
            assert_eq!(o.between(a, b), overlaps(a, ra, b, rb), "{a:?} {b:?} {ra} {rb}");
            boundary += usize::from(ulps.abs() <= 1 && round % 5 != 4);
            // On a lattice, bases at exactly `d` edge to edge.
            if angle == 0.0 && ulps == 0 {
                assert!(w.between(a, b) || round % 5 == 4);
            }
        }
        assert!(boundary > 5_000, "{boundary}");
    }

    /// `any` over groups of 0 to 40 centres against asking each.
    #[test]
    fn any_asks_every_base() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(161);
        let mut hits = 0;
        for round in 0..5_000 {
            let n = (rng.next_u64() % 41) as usize;
            let mut c = || (rng.next_u64() % 40) as f64 * 0.5;
            let xs: Vec<f64> = (0..n).map(|_| c()).collect();
            let ys: Vec<f64> = (0..n).map(|_| c()).collect();
            let p = Point::new(c(), c());
            let test = if round % 2 == 0 {
                Reach::within(0.5, 0.75, [0.0, 1.0, 2.5][round % 3])
            } else {
                Reach::overlapping(0.5, 1.0)
            };
            let every = xs
                .iter()
                .zip(&ys)
                .any(|(&x, &y)| test.between(p, Point::new(x, y)));
            assert_eq!(test.any(p, &xs, &ys), every);
            hits += usize::from(every);
        }
        assert!((500..4_500).contains(&hits), "{hits}");
    }
}
