//! What Shoot works out before any trial, for one armed unit: its weapon, and by target, by
//! [`Hit`] and by [`Save`] kind, the table of failed defense tests its attacks cause. It reads
//! only the scenario, so the plan can hold it without depending on the rule that uses it.

use crate::dice::{Amount, Fraction, SuccessCount};
use crate::rules::tables::CountTables;
use crate::scenario::{Scenario, Unit};

/// How an attack is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    Normal,
    /// Covering Fire's, with `options.covering_fire.hit_modifier`.
    CoveringFire,
}

/// How its defense test is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Save {
    Normal,
    /// With Defend's `options.defend.bonus`.
    Defending,
}

/// Tables by [`Hit`] then [`Save`].
type ByKind = [[CountTables; 2]; 2];

/// Shoot's precomputation for one armed unit.
pub struct Prepared {
    pub(super) attacks: Amount,
    pub(super) damage: Amount,
    pub(super) range: f64,
    /// By target: the count of failed defense tests its attacks cause.
    wounds: Vec<ByKind>,
}

impl Prepared {
    /// `None` for a unit without a weapon, which can neither shoot nor give Covering Fire.
    pub fn new(scenario: &Scenario, unit: usize) -> Option<Prepared> {
        let u = &scenario.units[unit];
        let w = u.weapon.as_ref()?;
        let options = &scenario.options;
        let attacks = u.size * w.attacks.max();
        let hit = |kind: Hit| match kind {
            Hit::Normal => w.hit.probability(),
            Hit::CoveringFire => w
                .hit
                .with_bonus(options.covering_fire_hit_modifier)
                .probability(),
        };
        let bonus = |kind: Save| match kind {
            Save::Normal => 0,
            Save::Defending => options.defend_bonus,
        };
        let wounds = scenario
            .units
            .iter()
            .map(|target| {
                [Hit::Normal, Hit::CoveringFire].map(|h| {
                    [Save::Normal, Save::Defending].map(|s| {
                        CountTables::new(wound_probability(hit(h), target, bonus(s)), attacks)
                    })
                })
            })
            .collect();
        Some(Prepared {
            attacks: w.attacks.clone(),
            damage: w.damage.clone(),
            range: w.range,
            wounds,
        })
    }

    /// The draw of failed defense tests among `attacks` attacks at `target`.
    pub(super) fn wound_count(
        &self,
        target: usize,
        hit: Hit,
        save: Save,
        attacks: u32,
    ) -> &SuccessCount {
        let by_hit = &self.wounds[target][match hit {
            Hit::Normal => 0,
            Hit::CoveringFire => 1,
        }];
        by_hit[match save {
            Save::Normal => 0,
            Save::Defending => 1,
        }]
        .get(attacks)
    }
}

/// The chance that one attack hits and its defense test (taken with `bonus`) fails. Hits are
/// Binomial(attacks, p_hit) and failed tests Binomial(hits, 1 - p_save) given the hits, so
/// failed tests are Binomial(attacks, p_hit * (1 - p_save)): one draw instead of two.
fn wound_probability(hit: Fraction, target: &Unit, bonus: i32) -> Fraction {
    let Some(defense) = &target.defense else {
        return hit;
    };
    let fail = defense.with_bonus(bonus).probability().one_minus();
    hit.checked_mul(fail).unwrap_or_else(|| {
        // Only dice with more than 2^64 outcomes on both tests get here; the sampler works in
        // f64 anyway, so the product rounded to 2^-120 draws the same.
        const SCALE: f64 = (1u128 << 120) as f64;
        Fraction::new((hit.to_f64() * fail.to_f64() * SCALE) as u128, 1 << 120)
    })
}
