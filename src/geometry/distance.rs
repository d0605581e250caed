//! Distances between groups of bases: the closest pair, and whether any pair is within a
//! reach. Small groups are scanned pair by pair; large ones go through the indexes of
//! [`super::spatial`], with answers equal to the scan's to the last bit.

use super::reach::Reach;
use super::shapes::{edge_distance, Point, EPS};
use super::spatial;
use std::cell::RefCell;

/// Edge-to-edge distance between the closest bases of two groups (infinite when either is
/// empty): groups of radius `ra` centred at `a` and of radius `rb` centred at `b`.
///
/// The answer is the smallest [`edge_distance`] over all pairs, bit for bit, since the square
/// root and the subtractions keep the order of squared centre distances. Large groups first
/// take one pair, the points of each group nearest the other's box, then look only at the
/// points nearer the other group's box than that pair (no other point can be in a nearer
/// pair): through a k-d tree when many remain.
pub fn closest<A, B>(a: A, ra: f64, b: B, rb: f64) -> f64
where
    A: IntoIterator<Item = Point>,
    B: IntoIterator<Item = Point> + Clone,
{
    let a = a.into_iter();
    let (a_len, b_len) = (a.size_hint().0, b.clone().into_iter().size_hint().0);
    if a_len.saturating_mul(b_len) <= SMALL_PAIRS {
        return closest_by_squares(a, ra, b, rb);
    }
    SCRATCH.with_borrow_mut(|s| {
        let Scratch {
            nearest,
            points,
            others,
            ..
        } = s;
        points.clear();
        points.extend(a);
        others.clear();
        others.extend(b);
        let (Some((a_lo, a_hi)), Some((b_lo, b_hi))) = (
            spatial::bounds(points.iter().copied()),
            spatial::bounds(others.iter().copied()),
        ) else {
            return f64::INFINITY;
        };
        let gap_to_b = |p: &Point| spatial::box_distance_squared(*p, b_lo, b_hi);
        let gap_to_a = |p: &Point| spatial::box_distance_squared(*p, a_lo, a_hi);
        let (Some(&pa), Some(&pb)) = (
            points
                .iter()
                .min_by(|p, q| gap_to_b(p).total_cmp(&gap_to_b(q))),
            others
                .iter()
                .min_by(|p, q| gap_to_a(p).total_cmp(&gap_to_a(q))),
        ) else {
            return f64::INFINITY;
        };
        let mut best = pa.distance_squared(pb);
        // A pair nearer than `best` has each point nearer the other group's box than `best`.
        points.retain(|p| gap_to_b(p) < best);
        others.retain(|p| gap_to_a(p) < best);
        if points.len().saturating_mul(others.len()) <= SMALL_PAIRS {
            for &pa in points.iter() {
                for &pb in others.iter() {
                    best = best.min(pa.distance_squared(pb));
                }
            }
        } else {
            nearest.rebuild(others.iter().copied());
            for &pa in points.iter() {
                best = best.min(nearest.distance_squared(pa));
            }
        }
        best.sqrt() - ra - rb
    })
}

/// [`closest`] by looking at every pair: the definition, and faster for small groups.
pub fn closest_by_scan<A, B>(a: A, ra: f64, b: B, rb: f64) -> f64
where
    A: IntoIterator<Item = Point>,
    B: IntoIterator<Item = Point> + Clone,
{
    let mut best = f64::INFINITY;
    for pa in a {
        for pb in b.clone() {
            best = best.min(edge_distance(pa, ra, pb, rb));
        }
    }
    best
}

/// [`closest_by_scan`] with one square root: the smallest squared distance, then its edge
/// distance. The same bits, because [`edge_distance`] is a monotone function of the squared
/// distance (a correctly rounded root, then two subtractions), and the minimum of a monotone
/// function of some numbers is that function of their minimum.
fn closest_by_squares<A, B>(a: A, ra: f64, b: B, rb: f64) -> f64
where
    A: IntoIterator<Item = Point>,
    B: IntoIterator<Item = Point> + Clone,
{
    let mut best = f64::INFINITY;
    for pa in a {
        for pb in b.clone() {
            best = best.min(pa.distance_squared(pb));
        }
    }
    best.sqrt() - ra - rb
}

/// Whether some base of radius `ra` centred in `a` is [`within`](super::within) `d` inches of some base of
/// radius `rb` centred in `b`, as asking every pair would say; large groups ask only the
/// pairs a grid over `a` finds near each other.
pub fn any_within<A, B>(a: A, ra: f64, b: B, rb: f64, d: f64) -> bool
where
    A: IntoIterator<Item = Point> + Clone,
    B: IntoIterator<Item = Point> + Clone,
{
    let (a_len, b_len) = (
        a.clone().into_iter().size_hint().0,
        b.clone().into_iter().size_hint().0,
    );
    if a_len.saturating_mul(b_len) <= SMALL_PAIRS {
        let reach = Reach::within(ra, rb, d);
        return b
            .into_iter()
            .any(|pb| a.clone().into_iter().any(|pa| reach.between(pa, pb)));
    }
    let (Some((lo, hi)), Some((b_lo, b_hi))) =
        (spatial::bounds(a.clone()), spatial::bounds(b.clone()))
    else {
        return false;
    };
    // A pair within `d` is at most this far apart on either axis, with room for rounding.
    let bound = ra + rb + d + EPS;
    let reach = bound + slack(lo, hi, bound);
    if b_lo.x > hi.x + reach
        || b_hi.x < lo.x - reach
        || b_lo.y > hi.y + reach
        || b_hi.y < lo.y - reach
    {
        return false;
    }
    SCRATCH.with_borrow_mut(|s| {
        s.grid.reset(lo, hi, reach, a_len);
        for pa in a {
            s.grid.insert(pa);
        }
        let grid = &s.grid;
        let test = Reach::within(ra, rb, d);
        b.into_iter()
            .any(|pb| grid.any_near(pb, reach, |_, pa| test.between(pa, pb)))
    })
}

/// What the boxes around two groups of centres (`a_box`, `b_box`, as [`spatial::bounds`]
/// gives them, or any boxes holding them) say of whether some base of radius `ra` centred in
/// the first group is within `d` of some base of radius `rb` centred in the second, as
/// [`any_within`] or `closest(a, ra, b, rb) <= d + EPS` would answer: `Some(true)` when even
/// the farthest corners are within `d`, `Some(false)` when even the nearest points of the
/// boxes are not, `None` when the boxes do not decide. Exact, not approximate: the edge
/// distance is a monotone function of the squared centre distance (see [`closest`]), and
/// the boxes' squared distances bound every pair's from below and above as computed.
pub fn boxes_decide_within(
    a_box: (Point, Point),
    ra: f64,
    b_box: (Point, Point),
    rb: f64,
    d: f64,
) -> Option<bool> {
    let edge = |d2: f64| d2.sqrt() - ra - rb;
    if edge(spatial::box_span_squared(a_box, b_box)) <= d + EPS {
        Some(true)
    } else if edge(spatial::box_gap_squared(a_box, b_box)) <= d + EPS {
        None
    } else {
        Some(false)
    }
}

/// A margin to add to `bound`, a bound on the distance between points near the rectangle
/// from `lo` to `hi`, so that it also covers rounding: far more than the few units in the
/// last place that rounding can cost.
pub(crate) fn slack(lo: Point, hi: Point, bound: f64) -> f64 {
    let scale = [lo.x, lo.y, hi.x, hi.y, bound]
        .iter()
        .fold(1.0f64, |m, v| m.max(v.abs()));
    scale * 1e-9
}

/// Below this many pairs, looking at each is faster than building an index.
const SMALL_PAIRS: usize = 256;

/// Buffers for the indexes above, kept per thread so queries on the hot path allocate only
/// while warming up.
#[derive(Default)]
struct Scratch {
    grid: spatial::Grid,
    nearest: spatial::Nearest,
    points: Vec<Point>,
    others: Vec<Point>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

#[cfg(test)]
mod tests {
    use super::super::within;
    use super::*;

    /// Groups of 0 to 60 points, on a half-inch lattice or anywhere, one group sometimes far
    /// off: the indexed answers against the scan of every pair.
    #[test]
    fn closest_and_any_within_match_every_pair() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(154);
        let mut below = |n: u64| (rng.next_u64() % n) as f64;
        let mut hits = 0;
        for round in 0..2_000 {
            let mut group = |off: f64| -> Vec<Point> {
                let n = below(61) as usize;
                let lattice = below(2) == 0.0;
                (0..n)
                    .map(|_| {
                        let mut c = || {
                            off + if lattice {
                                below(40) * 0.5
                            } else {
                                below(1 << 20) / (1 << 20) as f64 * 20.0
                            }
                        };
                        Point::new(c(), c())
                    })
                    .collect()
            };
            let a = group(0.0);
            let b = group(if round % 4 == 0 { 37.0 } else { 3.0 });
            let (ra, rb) = (0.5, [0.5, 0.75, 1.0][round % 3]);
            let d = [0.0, 1.0, 2.5, 6.0][round % 4];
            let fast = closest(a.iter().copied(), ra, b.iter().copied(), rb);
            let scan = closest_by_scan(a.iter().copied(), ra, b.iter().copied(), rb);
            assert_eq!(fast.to_bits(), scan.to_bits(), "round {round}");
            let every = a
                .iter()
                .any(|&pa| b.iter().any(|&pb| within(pa, ra, pb, rb, d)));
            assert_eq!(
                any_within(a.iter().copied(), ra, b.iter().copied(), rb, d),
                every
            );
            hits += usize::from(every);
        }
        assert!((200..1_800).contains(&hits), "{hits}");
    }

    /// Two groups on a half-inch lattice a whole number of inches apart (so that the closest
    /// pair is often exactly `d` edge to edge), bases of 0.5" to 1.25", reaches 0" to 24":
    /// wherever the boxes decide, they say what every pair says; and they decide often.
    #[test]
    fn boxes_decide_as_every_pair_does_at_the_boundaries() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(162);
        let (mut decided, mut at_boundary) = (0, 0);
        for round in 0..20_000 {
            let mut below = |n: u64| rng.next_u64() % n;
            let radii = [0.5, 0.75, 1.0, 1.25];
            let (ra, rb) = (radii[below(4) as usize], radii[below(4) as usize]);
            let d = [0.0, 1.0, 2.0, 6.0, 12.0, 18.0, 24.0][round % 7];
            let group = |x0: f64, y0: f64, below: &mut dyn FnMut(u64) -> u64| -> Vec<Point> {
                let n = 1 + below(12);
                (0..n)
                    .map(|_| Point::new(x0 + below(8) as f64 * 0.5, y0 + below(4) as f64 * 0.5))
                    .collect()
            };
            let a = group(10.0, 10.0, &mut below);
            // The second group's lowest row sits so that the gap along y is d, d +- 0.5 or
            // anything up to twice the reach.
            let gap = if round % 3 == 2 {
                below(100) as f64 * 0.5
            } else {
                d + ra + rb + [-0.5, 0.0, 0.0, 0.5][below(4) as usize]
            };
            let top = a.iter().map(|p| p.y).fold(f64::MIN, f64::max);
            let b = group(10.0 + below(8) as f64 - 4.0, top + gap, &mut below);
            let every = a
                .iter()
                .any(|&pa| b.iter().any(|&pb| within(pa, ra, pb, rb, d)));
            let closest = closest_by_scan(a.iter().copied(), ra, b.iter().copied(), rb);
            assert_eq!(every, closest <= d + EPS, "round {round}");
            at_boundary += usize::from(closest == d);
            let (box_a, box_b) = (
                spatial::bounds(a.iter().copied()).unwrap(),
                spatial::bounds(b.iter().copied()).unwrap(),
            );
            if let Some(answer) = boxes_decide_within(box_a, ra, box_b, rb, d) {
                assert_eq!(answer, every, "round {round}: {a:?} {b:?} {ra} {rb} {d}");
                decided += 1;
            }
            // Boxes larger than the groups (as after models leave) decide no differently.
            let grown = (
                Point::new(box_a.0.x - 0.5, box_a.0.y - 0.25),
                Point::new(box_a.1.x + 0.25, box_a.1.y),
            );
            if let Some(answer) = boxes_decide_within(grown, ra, box_b, rb, d) {
                assert_eq!(answer, every, "round {round}, grown box");
            }
        }
        assert!(decided > 10_000, "{decided}");
        assert!(at_boundary > 1_000, "{at_boundary}");
    }
}
