//! Spatial indexes over model centres, so a question about one spot or one model visits the
//! few models near it instead of every model on the table: [`Grid`] buckets points by square
//! cells (which points may lie within some reach of a spot) and [`Nearest`] is a k-d tree
//! (how near is the nearest point to a spot).
//!
//! Both only prune. A caller still evaluates its own distance test on each point they hand
//! back, and every point they skip provably fails it, so answers are those of a scan over all
//! points to the last bit. The proofs lean on rounding being monotone: for a fixed `b`,
//! `a - b`, `a / c` (with `c > 0`), `floor`, squaring a non-negative number and adding a
//! non-negative number never reverse the order of their results.

use super::shapes::Point;

/// No entry: the end of a cell's list.
const NONE: u32 = u32::MAX;

/// Points bucketed by square cells over a rectangle, each cell a linked list through `next`,
/// so points can be added one by one and the buffers reused without allocating.
#[derive(Debug, Clone, Default)]
pub struct Grid {
    x0: f64,
    y0: f64,
    cell: f64,
    cols: usize,
    rows: usize,
    /// Per cell: its most recent entry, or [`NONE`].
    head: Vec<u32>,
    /// Per entry: the cell's previous entry, or [`NONE`].
    next: Vec<u32>,
    points: Vec<Point>,
}

impl Grid {
    /// Empties the grid and lays cells over the rectangle from `lo` to `hi`, at least `reach`
    /// wide so that a query within `reach` looks at no more than 3 x 3 cells, and wider when
    /// that would make many more cells than the `expected` number of points. Points outside
    /// the rectangle go in its border cells, which keeps answers right, only slower.
    pub fn reset(&mut self, lo: Point, hi: Point, reach: f64, expected: usize) {
        let (width, height) = ((hi.x - lo.x).max(0.0), (hi.y - lo.y).max(0.0));
        let budget = (2 * expected).clamp(16, 1 << 22) as f64;
        let mut cell = reach.max(f64::MIN_POSITIVE);
        // Cells of side `cell` over the rectangle: more than the budget means wider cells.
        let wanted = ((width / cell).floor() + 1.0) * ((height / cell).floor() + 1.0);
        if wanted.is_nan() || wanted > budget {
            cell = (width * height / budget)
                .sqrt()
                .max(width.max(height) / budget)
                .max(cell);
        }
        self.x0 = lo.x;
        self.y0 = lo.y;
        self.cell = cell;
        self.cols = ((width / cell).floor() as usize)
            .saturating_add(1)
            .min(1 << 22);
        self.rows = ((height / cell).floor() as usize)
            .saturating_add(1)
            .min(1 << 22);
        self.head.clear();
        self.head.resize(self.cols * self.rows, NONE);
        self.next.clear();
        self.points.clear();
    }

    /// The column (or row, with `y0` and `rows`) of a coordinate: monotone in it.
    fn index(v: f64, origin: f64, cell: f64, count: usize) -> usize {
        let i = (v - origin) / cell;
        // Below 0 (or NaN) is the first cell; above, `as` truncates, which is `floor` there
        // (without its call), and saturates; clamping keeps the order.
        if i > 0.0 {
            (i as usize).min(count - 1)
        } else {
            0
        }
    }

    fn cell_of(&self, p: Point) -> usize {
        let c = Self::index(p.x, self.x0, self.cell, self.cols);
        let r = Self::index(p.y, self.y0, self.cell, self.rows);
        r * self.cols + c
    }

    /// Adds a point; its entry is the number of points added before it.
    pub fn insert(&mut self, p: Point) -> u32 {
        let entry = self.points.len() as u32;
        let cell = self.cell_of(p);
        self.next.push(self.head[cell]);
        self.head[cell] = entry;
        self.points.push(p);
        entry
    }

    /// Whether `test` holds for some point `q` (given as its entry and centre) among those
    /// that may lie within `reach` of `p` on both axes: every point whose coordinates lie in
    /// `[p - reach, p + reach]` as computed in floating point is offered (others may be too).
    /// Callers give `reach` a margin over their test's bound, so rounding cannot matter.
    pub fn any_near(&self, p: Point, reach: f64, mut test: impl FnMut(u32, Point) -> bool) -> bool {
        if self.points.is_empty() {
            return false;
        }
        let c0 = Self::index(p.x - reach, self.x0, self.cell, self.cols);
        let c1 = Self::index(p.x + reach, self.x0, self.cell, self.cols);
        let r0 = Self::index(p.y - reach, self.y0, self.cell, self.rows);
        let r1 = Self::index(p.y + reach, self.y0, self.cell, self.rows);
        for r in r0..=r1 {
            for c in c0..=c1 {
                let mut e = self.head[r * self.cols + c];
                while e != NONE {
                    if test(e, self.points[e as usize]) {
                        return true;
                    }
                    e = self.next[e as usize];
                }
            }
        }
        false
    }
}

/// The smallest and largest coordinates of some points (`None` when there are none).
pub fn bounds(points: impl IntoIterator<Item = Point>) -> Option<(Point, Point)> {
    points.into_iter().fold(None, |b, p| {
        let (lo, hi) = b.unwrap_or((p, p));
        Some((
            Point::new(lo.x.min(p.x), lo.y.min(p.y)),
            Point::new(hi.x.max(p.x), hi.y.max(p.y)),
        ))
    })
}

/// Points below this many go in a leaf, scanned whole.
const LEAF: usize = 8;

/// A k-d tree over points for the squared distance from a spot to the nearest of them, as
/// the smallest [`Point::distance_squared`] over all of them would give it, bit for bit.
#[derive(Debug, Clone, Default)]
pub struct Nearest {
    /// Laid out as the tree: a range's middle point splits it (by x at even depths, by y at
    /// odd ones), those before it are no greater on that axis and those after no smaller.
    points: Vec<Point>,
    /// At each range's middle index: the range's bounding box (no two ranges share one).
    boxes: Vec<(Point, Point)>,
}

impl Nearest {
    /// Rebuilds the tree over `points`, reusing its buffers.
    pub fn rebuild(&mut self, points: impl IntoIterator<Item = Point>) {
        self.points.clear();
        self.points.extend(points);
        let origin = Point::new(0.0, 0.0);
        self.boxes.clear();
        self.boxes.resize(self.points.len(), (origin, origin));
        split(&mut self.points, &mut self.boxes, 0);
    }

    /// The box around every point (`None` when there are none).
    pub fn bounds(&self) -> Option<(Point, Point)> {
        self.boxes.get(self.points.len() / 2).copied()
    }

    /// The smallest `spot.distance_squared(q)` over the points `q` (infinite when there are
    /// none).
    pub fn distance_squared(&self, spot: Point) -> f64 {
        let mut best = f64::INFINITY;
        self.search(0, self.points.len(), 0, spot, &mut best);
        best
    }

    /// Lowers `best` to the nearest point of the range from `lo` to `hi` when nearer. A range
    /// is skipped when its box is at least `best` from `spot` (squared, as computed): each of
    /// its points is then at least as far, because the rounded difference of two coordinates
    /// grows with the exact one.
    fn search(&self, lo: usize, hi: usize, depth: usize, spot: Point, best: &mut f64) {
        let points = &self.points[lo..hi];
        let mid = points.len() / 2;
        let Some(&(bl, bh)) = self.boxes.get(lo + mid).filter(|_| !points.is_empty()) else {
            return;
        };
        if box_distance_squared(spot, bl, bh) >= *best {
            return;
        }
        if points.len() <= LEAF {
            for &q in points {
                *best = best.min(spot.distance_squared(q));
            }
            return;
        }
        let pivot = points[mid];
        *best = best.min(spot.distance_squared(pivot));
        let before = (lo, lo + mid);
        let after = (lo + mid + 1, hi);
        let (near, far) = if axis(spot, depth) < axis(pivot, depth) {
            (before, after)
        } else {
            (after, before)
        };
        self.search(near.0, near.1, depth + 1, spot, best);
        self.search(far.0, far.1, depth + 1, spot, best);
    }
}

/// The squared distance from `spot` to the box from `lo` to `hi` (0 inside), computed so that
/// it is no more than `spot.distance_squared(q)` for any `q` in the box.
pub fn box_distance_squared(spot: Point, lo: Point, hi: Point) -> f64 {
    let gap = |v: f64, lo: f64, hi: f64| {
        if v < lo {
            lo - v
        } else if v > hi {
            v - hi
        } else {
            0.0
        }
    };
    let (dx, dy) = (gap(spot.x, lo.x, hi.x), gap(spot.y, lo.y, hi.y));
    dx * dx + dy * dy
}

/// The squared distance between the boxes `a` and `b` (each from its low corner to its high
/// one; 0 when they meet), computed so that it is no more than `p.distance_squared(q)` for
/// any `p` in `a` and `q` in `b`: on each axis the gap is a rounded difference of two
/// coordinates that are no further apart than those of `p` and `q`, rounding is monotone and
/// symmetric (`b - a` rounds to minus `a - b`), and so are squaring and adding.
pub fn box_gap_squared(a: (Point, Point), b: (Point, Point)) -> f64 {
    let gap = |a_lo: f64, a_hi: f64, b_lo: f64, b_hi: f64| {
        if b_lo > a_hi {
            b_lo - a_hi
        } else if a_lo > b_hi {
            a_lo - b_hi
        } else {
            0.0
        }
    };
    let dx = gap(a.0.x, a.1.x, b.0.x, b.1.x);
    let dy = gap(a.0.y, a.1.y, b.0.y, b.1.y);
    dx * dx + dy * dy
}

/// The squared distance between the farthest corners of the boxes `a` and `b`, computed so
/// that it is no less than `p.distance_squared(q)` for any `p` in `a` and `q` in `b` (the
/// argument of [`box_gap_squared`], the other way).
pub fn box_span_squared(a: (Point, Point), b: (Point, Point)) -> f64 {
    let span = |a_lo: f64, a_hi: f64, b_lo: f64, b_hi: f64| (b_hi - a_lo).max(a_hi - b_lo);
    let dx = span(a.0.x, a.1.x, b.0.x, b.1.x);
    let dy = span(a.0.y, a.1.y, b.0.y, b.1.y);
    dx * dx + dy * dy
}

fn axis(p: Point, depth: usize) -> f64 {
    if depth.is_multiple_of(2) {
        p.x
    } else {
        p.y
    }
}

fn split(points: &mut [Point], boxes: &mut [(Point, Point)], depth: usize) {
    if points.is_empty() {
        return;
    }
    let mid = points.len() / 2;
    if let Some(b) = bounds(points.iter().copied()) {
        boxes[mid] = b;
    }
    if points.len() <= LEAF {
        return;
    }
    points.select_nth_unstable_by(mid, |a, b| axis(*a, depth).total_cmp(&axis(*b, depth)));
    let (before, rest) = points.split_at_mut(mid);
    let (boxes_before, boxes_rest) = boxes.split_at_mut(mid);
    split(before, boxes_before, depth + 1);
    split(&mut rest[1..], &mut boxes_rest[1..], depth + 1);
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn below(rng: &mut Xoshiro256PlusPlus, n: u64) -> usize {
        (rng.next_u64() % n) as usize
    }

    fn unit(rng: &mut Xoshiro256PlusPlus) -> f64 {
        (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Random points, some on a coarse lattice so that ties and points on splitting lines
    /// are common.
    fn points(rng: &mut Xoshiro256PlusPlus, n: usize, span: f64) -> Vec<Point> {
        (0..n)
            .map(|_| {
                if below(rng, 2) == 0 {
                    let mut k = || below(rng, 8) as f64 * 0.5;
                    Point::new(k(), k())
                } else {
                    Point::new(unit(rng) * span, unit(rng) * span)
                }
            })
            .collect()
    }

    #[test]
    fn nearest_matches_the_scan_of_every_point_bit_for_bit() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(15);
        let mut tree = Nearest::default();
        for round in 0..200 {
            let n = below(&mut rng, 60);
            let set = points(&mut rng, n, 4.0 + round as f64);
            tree.rebuild(set.iter().copied());
            for spot in points(&mut rng, 30, 40.0) {
                let scan = set
                    .iter()
                    .map(|&q| spot.distance_squared(q))
                    .fold(f64::INFINITY, f64::min);
                assert_eq!(tree.distance_squared(spot).to_bits(), scan.to_bits());
            }
        }
    }

    #[test]
    fn the_grid_offers_every_point_within_reach() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(16);
        let mut grid = Grid::default();
        for round in 0..200 {
            let n = below(&mut rng, 80);
            let set = points(&mut rng, n, 2.0 + round as f64 / 4.0);
            let reach = unit(&mut rng) * 3.0;
            // Some rectangles smaller than the points' spread, to exercise the border cells.
            let (lo, hi) =
                bounds(set.iter().copied()).unwrap_or((Point::new(0.0, 0.0), Point::new(1.0, 1.0)));
            let hi = if round % 3 == 0 {
                Point::new((lo.x + hi.x) / 2.0, (lo.y + hi.y) / 2.0)
            } else {
                hi
            };
            grid.reset(lo, hi, reach, if round % 5 == 0 { 1 } else { n });
            for &p in &set {
                grid.insert(p);
            }
            for spot in points(&mut rng, 20, 2.0 + round as f64 / 4.0) {
                let mut offered = vec![false; n];
                grid.any_near(spot, reach, |e, q| {
                    assert_eq!(q, set[e as usize]);
                    offered[e as usize] = true;
                    false
                });
                for (i, q) in set.iter().enumerate() {
                    if (q.x - spot.x).abs() <= reach && (q.y - spot.y).abs() <= reach {
                        assert!(offered[i], "{q:?} within {reach} of {spot:?} not offered");
                    }
                }
            }
        }
    }
}
