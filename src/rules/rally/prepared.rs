//! What Rally works out before any trial, for one unit: its Resolve tables, whether an enemy
//! starts within 1", and where Rally from the starting layout places models. It reads only
//! the scenario, so the plan can hold it without depending on the rule that uses it.

use crate::rules::geometry::{within, Point};
use crate::rules::placement::{self, Base, Surroundings};
use crate::rules::tables::CountTables;
use crate::scenario::Scenario;
use std::sync::OnceLock;

/// Rally's precomputation for one unit.
pub struct Prepared {
    pub(super) unit: usize,
    /// `None` for a unit without a Resolve test, which validation never lets Rally.
    pub(super) resolve: Option<CountTables>,
    pub(super) enemy_within_1_at_start: bool,
    /// Placements from the starting layout, searched on first need.
    first: OnceLock<Vec<Point>>,
    /// Indexed by how many models the first use restored: the second use's spots.
    second: Vec<OnceLock<Vec<Point>>>,
}

impl Prepared {
    pub fn new(scenario: &Scenario, unit: usize) -> Prepared {
        let u = &scenario.units[unit];
        let missing = (u.size - u.alive()) as usize;
        Prepared {
            unit,
            resolve: u
                .resolve
                .as_ref()
                .map(|r| CountTables::new(r.probability(), u.size)),
            enemy_within_1_at_start: enemy_within_1_at_start(scenario, unit),
            first: OnceLock::new(),
            second: (0..=missing).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Where a Rally from the starting layout puts up to every missing model.
    pub fn first(&self, scenario: &Scenario) -> &[Point] {
        self.first.get_or_init(|| spots(scenario, self.unit, &[]))
    }

    /// The second use's spots after the first restored `restored_first` models from the
    /// starting layout.
    pub fn second(&self, scenario: &Scenario, restored_first: usize) -> &[Point] {
        self.second[restored_first].get_or_init(|| {
            let placed = &self.first(scenario)[..restored_first];
            spots(scenario, self.unit, placed)
        })
    }
}

/// Every model's base at the start, and those of `unit`'s enemies.
fn starting_bases(scenario: &Scenario, unit: usize) -> (Vec<Base>, Vec<Base>) {
    let side = &scenario.units[unit].side;
    let mut all = Vec::new();
    let mut enemies = Vec::new();
    for u in &scenario.units {
        for &centre in &u.models {
            let b = Base {
                centre,
                radius: u.radius(),
            };
            all.push(b);
            if &u.side != side {
                enemies.push(b);
            }
        }
    }
    (all, enemies)
}

fn enemy_within_1_at_start(scenario: &Scenario, unit: usize) -> bool {
    let u = &scenario.units[unit];
    let (_, enemies) = starting_bases(scenario, unit);
    u.models.iter().any(|&p| {
        enemies
            .iter()
            .any(|e| within(p, u.radius(), e.centre, e.radius, 1.0))
    })
}

/// Where a Rally use puts its models when the unit has its starting models plus `placed`.
fn spots(scenario: &Scenario, unit: usize, placed: &[Point]) -> Vec<Point> {
    let u = &scenario.units[unit];
    let (mut bases, enemies) = starting_bases(scenario, unit);
    bases.extend(placed.iter().map(|&centre| Base {
        centre,
        radius: u.radius(),
    }));
    let anchors: Vec<Point> = u.models.iter().chain(placed).copied().collect();
    let missing = u.size as usize - anchors.len();
    let around = Surroundings {
        field: &scenario.battlefield,
        bases: &bases,
        enemies: &enemies,
    };
    placement::place(
        &around,
        &anchors,
        u.radius(),
        missing,
        scenario.options.rally_chain,
    )
}
