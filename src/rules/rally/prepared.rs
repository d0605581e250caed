//! What Rally works out before any trial, for one unit: its Resolve tables, whether an enemy
//! starts within 1", and where Rally from the starting layout places models. It reads only
//! the scenario, so the plan can hold it without depending on the rule that uses it.

use crate::geometry::{any_within, Point};
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
    ///
    /// They begin with the first use's spots after those it restored: the second use walks
    /// the same candidates around the same anchors with the same bases taken, all those before
    /// the first use's next spot still taken or illegal. Only without `chain`, and when the
    /// first use's search ran out of candidates before placing every missing model, does the
    /// second go on, around the models the first restored (its only new anchors).
    pub fn second(&self, scenario: &Scenario, restored_first: usize) -> &[Point] {
        self.second[restored_first].get_or_init(|| {
            let first = self.first(scenario);
            let u = &scenario.units[self.unit];
            let missing = (u.size - u.alive()) as usize;
            let mut spots = first[restored_first..].to_vec();
            if first.len() < missing && !scenario.options.rally_chain {
                let (mut bases, enemies) = starting_bases(scenario, self.unit);
                bases.extend(first.iter().map(|&centre| Base {
                    centre,
                    radius: u.radius(),
                }));
                let anchors: Vec<Point> = u
                    .models
                    .iter()
                    .chain(&first[..restored_first])
                    .copied()
                    .collect();
                let around = Surroundings {
                    field: &scenario.battlefield,
                    bases: &bases,
                    enemies: &enemies,
                };
                spots.extend(placement::place_from_anchor(
                    &around,
                    &anchors,
                    u.models.len(),
                    u.radius(),
                    missing - first.len(),
                    false,
                ));
            }
            spots
        })
    }
}

/// Every model's base at the start, and those of `unit`'s enemies.
fn starting_bases(scenario: &Scenario, unit: usize) -> (Vec<Base>, Vec<Base>) {
    placement::bases_around(scenario, unit, |i| scenario.units[i].models.iter().copied())
}

fn enemy_within_1_at_start(scenario: &Scenario, unit: usize) -> bool {
    let u = &scenario.units[unit];
    scenario.units.iter().any(|e| {
        e.side != u.side
            && any_within(
                u.models.iter().copied(),
                u.radius(),
                e.models.iter().copied(),
                e.radius(),
                1.0,
            )
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;
    use rand::{Rng, SeedableRng};

    /// A unit of `alive` models in a block on a small table (so that space can run out), an
    /// enemy block beside it, with or without `chain`.
    fn scenario_text(rng: &mut impl Rng) -> String {
        let mut below = |n: u64| rng.next_u64() % n;
        let alive = 1 + below(12);
        let size = alive + 1 + below(60);
        let side = 6 + below(10);
        let chain = below(2) == 0;
        let base = [1.0, 1.0, 1.5][below(3) as usize];
        format!(
            r#"
[scenario]
name = "r"
[options]
rally.chain = {chain}
[battlefield]
width = {side}.0
height = {side}.0
[[unit]]
id = "a"
side = "blue"
size = {size}
alive = {alive}
base = {base}
resolve = "d6>=4"
formation = {{ kind = "grid", x = 1.5, y = 1.5, spacing = {base}, columns = 3 }}
[[unit]]
id = "e"
side = "red"
size = 3
formation = {{ kind = "line", x = {ex}.5, y = 1.0, spacing = 1.0 }}
[[step]]
unit = "a"
command = "rally"
"#,
            ex = 5 + below(side - 5),
        )
    }

    #[test]
    fn second_spots_are_the_search_over_the_first_use_layout() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(151);
        let (mut short, mut tried) = (0, 0);
        while tried < 150 {
            let text = scenario_text(&mut rng);
            let Ok(set) = scenario::parse(&text, "r.toml", &[]) else {
                continue; // an enemy drawn onto the unit: another layout
            };
            tried += 1;
            let scenario = set.variants[0].scenario();
            let prepared = Prepared::new(scenario, 0);
            let first = prepared.first(scenario);
            let u = &scenario.units[0];
            short += usize::from(first.len() < (u.size - u.alive()) as usize);
            for f in 0..=first.len() {
                assert_eq!(
                    prepared.second(scenario, f),
                    spots(scenario, 0, &first[..f]),
                    "{text}\nafter {f}"
                );
            }
        }
        // Both ways of ending a first use are exercised.
        assert!(
            (10..140).contains(&short),
            "{short} of {tried} ran out of space"
        );
    }
}
