//! Points, round bases and the battlefield. Distances between models are measured edge to
//! edge between round bases, in inches.

/// Slack for comparisons of distances computed in floating point: a model placed exactly 2"
/// away must count as within 2" whatever the last bit says.
pub const EPS: f64 = 1e-9;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    pub fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    pub fn distance(self, other: Point) -> f64 {
        self.distance_squared(other).sqrt()
    }

    /// Cheaper than [`distance`](Self::distance) when only the order matters. (Not `hypot`:
    /// its care against overflow costs far more than table-sized coordinates need.)
    pub fn distance_squared(self, other: Point) -> f64 {
        let (dx, dy) = (self.x - other.x, self.y - other.y);
        dx * dx + dy * dy
    }
}

/// An axis-aligned rectangle of impassable terrain, from (x, y) to (x + width, y + height).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Rect {
    /// Distance from a point to the rectangle (0 inside).
    pub fn distance_to(&self, p: Point) -> f64 {
        let dx = (self.x - p.x).max(p.x - (self.x + self.width)).max(0.0);
        let dy = (self.y - p.y).max(p.y - (self.y + self.height)).max(0.0);
        (dx * dx + dy * dy).sqrt()
    }
}

/// Edge-to-edge distance between two round bases given their centres and radii; negative when
/// they overlap.
pub fn edge_distance(a: Point, ra: f64, b: Point, rb: f64) -> f64 {
    a.distance(b) - ra - rb
}

/// Whether two bases are within `d` inches of each other, edge to edge.
pub fn within(a: Point, ra: f64, b: Point, rb: f64, d: f64) -> bool {
    edge_distance(a, ra, b, rb) <= d + EPS
}

/// Whether two bases overlap (touching is allowed).
pub fn overlaps(a: Point, ra: f64, b: Point, rb: f64) -> bool {
    edge_distance(a, ra, b, rb) < -EPS
}

/// The table: its size and its impassable terrain.
#[derive(Debug, Clone, PartialEq)]
pub struct Battlefield {
    pub width: f64,
    pub height: f64,
    pub terrain: Vec<Rect>,
}

impl Battlefield {
    /// Whether a base of radius `r` centred at `p` lies wholly on the table.
    pub fn contains(&self, p: Point, r: f64) -> bool {
        p.x - r >= -EPS
            && p.y - r >= -EPS
            && p.x + r <= self.width + EPS
            && p.y + r <= self.height + EPS
    }

    /// The first terrain rectangle the base overlaps, if any (touching is allowed).
    pub fn blocking_terrain(&self, p: Point, r: f64) -> Option<&Rect> {
        self.terrain.iter().find(|t| t.distance_to(p) < r - EPS)
    }

    /// Whether a base may stand at `p`: on the table and outside impassable terrain.
    pub fn admits(&self, p: Point, r: f64) -> bool {
        self.contains(p, r) && self.blocking_terrain(p, r).is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_distance_of_touching_bases_is_zero() {
        let a = Point::new(0.0, 0.0);
        let b = Point::new(1.0, 0.0);
        assert!(edge_distance(a, 0.5, b, 0.5).abs() < 1e-12);
        assert!(!overlaps(a, 0.5, b, 0.5));
        assert!(overlaps(a, 0.5, Point::new(0.9, 0.0), 0.5));
        // 3" between centres, 1" bases: 2" edge to edge, exactly within 2".
        assert!(within(a, 0.5, Point::new(3.0, 0.0), 0.5, 2.0));
        assert!(!within(a, 0.5, Point::new(3.01, 0.0), 0.5, 2.0));
    }

    #[test]
    fn terrain_blocks_overlapping_bases_only() {
        let field = Battlefield {
            width: 10.0,
            height: 10.0,
            terrain: vec![Rect {
                x: 4.0,
                y: 4.0,
                width: 2.0,
                height: 2.0,
            }],
        };
        assert!(field.admits(Point::new(3.5, 5.0), 0.5)); // touches the left face
        assert!(!field.admits(Point::new(3.6, 5.0), 0.5));
        assert!(!field.admits(Point::new(5.0, 5.0), 0.5));
        assert!(!field.admits(Point::new(0.4, 5.0), 0.5)); // hangs off the table
        assert!(field.admits(Point::new(0.5, 0.5), 0.5));
    }
}
