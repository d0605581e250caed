//! What Shoot works out before any trial, for one armed unit: its weapon, and by target, by
//! [`Hit`] and by [`Save`] kind, the table of failed defense tests its attacks cause. It reads
//! only the scenario, so the plan can hold it without depending on the rule that uses it.

use crate::dice::{Amount, DiceTest, Fraction, SuccessCount};
use crate::rules::tables::CountTables;
use crate::scenario::Scenario;
use std::sync::OnceLock;

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
    /// The most attacks one volley rolls: every model of the unit rolling its most.
    volley: u32,
    /// By hit kind: the chance that one attack hits.
    hit: [Fraction; 2],
    /// By save kind: the bonus to the defense test.
    bonus: [i32; 2],
    /// By target: its defense test.
    defense: Vec<Option<DiceTest>>,
    /// By target, made when the unit first shoots it: the count of failed defense tests its
    /// attacks cause. Units a unit never shoots cost nothing.
    wounds: Vec<OnceLock<ByKind>>,
}

impl Prepared {
    /// `None` for a unit without a weapon, which can neither shoot nor give Covering Fire.
    pub fn new(scenario: &Scenario, unit: usize) -> Option<Prepared> {
        let u = &scenario.units[unit];
        let w = u.weapon.as_ref()?;
        let options = &scenario.options;
        Some(Prepared {
            attacks: w.attacks.clone(),
            damage: w.damage.clone(),
            range: w.range,
            volley: u.size * w.attacks.max(),
            hit: [
                w.hit.probability(),
                w.hit
                    .with_bonus(options.covering_fire_hit_modifier)
                    .probability(),
            ],
            bonus: [0, options.defend_bonus],
            defense: scenario.units.iter().map(|t| t.defense.clone()).collect(),
            wounds: scenario.units.iter().map(|_| OnceLock::new()).collect(),
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
        let by_kind = self.wounds[target].get_or_init(|| {
            let defense = self.defense[target].as_ref();
            [0, 1].map(|h| {
                [0, 1].map(|s| {
                    CountTables::new(
                        wound_probability(self.hit[h], defense, self.bonus[s]),
                        self.volley,
                    )
                })
            })
        });
        by_kind[match hit {
            Hit::Normal => 0,
            Hit::CoveringFire => 1,
        }][match save {
            Save::Normal => 0,
            Save::Defending => 1,
        }]
        .get(attacks)
    }
}

/// The chance that one attack hits and its defense test (taken with `bonus`) fails. Hits are
/// Binomial(attacks, p_hit) and failed tests Binomial(hits, 1 - p_save) given the hits, so
/// failed tests are Binomial(attacks, p_hit * (1 - p_save)): one draw instead of two.
fn wound_probability(hit: Fraction, defense: Option<&DiceTest>, bonus: i32) -> Fraction {
    let Some(defense) = defense else {
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
