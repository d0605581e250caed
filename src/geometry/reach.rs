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
use super::spatial::{box_distance_squared, box_gap_squared, box_span_squared};

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

    /// Whether the test holds between `p` and some centre of `blocks`. A block whose box is
    /// at least `no` from `p` (squared, as [`box_distance_squared`] computes it, no more than
    /// the squared distance of any centre in it) is skipped whole; the others have their
    /// eight squared distances worked out side by side, a square root only in the band.
    pub fn any(&self, p: Point, blocks: &Blocks) -> bool {
        self.find(p, blocks).is_some()
    }

    /// [`Reach::any`], naming a centre of `blocks` (its place in the order pushed) for which
    /// the test holds.
    pub fn find(&self, p: Point, blocks: &Blocks) -> Option<usize> {
        for (b, &(lo, hi)) in blocks.boxes.iter().enumerate() {
            if box_distance_squared(p, lo, hi) >= self.no {
                continue;
            }
            let at = b * BLOCK;
            let (xs, ys) = (&blocks.xs[at..at + BLOCK], &blocks.ys[at..at + BLOCK]);
            let mut d2 = [0.0; BLOCK];
            for k in 0..BLOCK {
                let (dx, dy) = (p.x - xs[k], p.y - ys[k]);
                d2[k] = dx * dx + dy * dy;
            }
            let (mut sure, mut unsure) = (false, false);
            for &v in &d2 {
                sure |= v <= self.yes;
                unsure |= v > self.yes && v < self.no;
            }
            if sure || unsure {
                if let Some(k) = d2.iter().position(|&v| self.test(v)) {
                    return Some(at + k);
                }
            }
        }
        None
    }
}

/// Centres per block of [`Reach::any`].
const BLOCK: usize = 8;

/// Centres in blocks of eight, as columns of coordinates, each block with its box: what
/// [`Reach::any`] asks of many bases of one size at once. The last block is filled out with
/// centres at infinity, whose squared distance from any point is infinite, so that they pass
/// no test. Buffers are kept when cleared.
#[derive(Debug, Clone, Default)]
pub struct Blocks {
    xs: Vec<f64>,
    ys: Vec<f64>,
    boxes: Vec<(Point, Point)>,
    len: usize,
}

impl Blocks {
    pub fn clear(&mut self) {
        self.xs.clear();
        self.ys.clear();
        self.boxes.clear();
        self.len = 0;
    }

    pub fn push(&mut self, p: Point) {
        if self.len.is_multiple_of(BLOCK) {
            self.xs.extend([f64::INFINITY; BLOCK]);
            self.ys.extend([f64::INFINITY; BLOCK]);
            self.boxes.push((p, p));
        }
        let last = self.boxes.len() - 1;
        let (lo, hi) = &mut self.boxes[last];
        *lo = Point::new(lo.x.min(p.x), lo.y.min(p.y));
        *hi = Point::new(hi.x.max(p.x), hi.y.max(p.y));
        self.xs[self.len] = p.x;
        self.ys[self.len] = p.y;
        self.len += 1;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The centre pushed `i`th.
    pub fn get(&self, i: usize) -> Point {
        Point::new(self.xs[i], self.ys[i])
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
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

    /// `any` over groups of 0 to 40 centres, on a half-inch lattice (so that some lie exactly
    /// at the boundary) or anywhere, against asking each.
    #[test]
    fn any_asks_every_base() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(161);
        let mut blocks = Blocks::default();
        let mut hits = 0;
        for round in 0..5_000 {
            let n = (rng.next_u64() % 41) as usize;
            let lattice = round % 3 != 0;
            let mut c = || {
                if lattice {
                    (rng.next_u64() % 40) as f64 * 0.5
                } else {
                    (rng.next_u64() % (1 << 20)) as f64 / (1 << 20) as f64 * 20.0
                }
            };
            let centres: Vec<Point> = (0..n).map(|_| Point::new(c(), c())).collect();
            let p = Point::new(c(), c());
            let test = if round % 2 == 0 {
                Reach::within(0.5, 0.75, [0.0, 1.0, 2.5][round % 3])
            } else {
                Reach::overlapping(0.5, 1.0)
            };
            blocks.clear();
            for &q in &centres {
                blocks.push(q);
            }
            assert_eq!(blocks.len(), n);
            let every = centres.iter().any(|&q| test.between(p, q));
            assert_eq!(test.any(p, &blocks), every, "round {round}");
            if let Some(i) = test.find(p, &blocks) {
                assert!(test.between(p, centres[i]) && blocks.get(i) == centres[i]);
            }
            hits += usize::from(every);
        }
        assert!((500..4_500).contains(&hits), "{hits}");
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
}
