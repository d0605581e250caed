//! Geometry of the table, below the scenario and the rules that both use it: points, round
//! bases, terrain and the battlefield (`shapes.rs`), spatial indexes over model centres
//! ([`spatial`]), and distances between groups of bases built on them (`distance.rs`).

mod distance;
mod reach;
mod shapes;
pub mod spatial;

pub(crate) use distance::slack;
pub use distance::{any_within, boxes_decide_within, closest, closest_by_scan};
pub use reach::Reach;
pub use shapes::{edge_distance, overlaps, within, Battlefield, Point, Rect, EPS};
