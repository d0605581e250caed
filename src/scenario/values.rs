//! The checks of single values that every part of a scenario reads alike: whole numbers in a
//! range, lengths, dice tests and amounts. They know no section of the file: the caller names
//! the key.

use super::error::Context;
use super::raw::RawAmount;
use super::ScenarioError;
use crate::config::suggest::{clip, quoted};
use crate::dice::{Amount, DiceTest};

type Result<T> = std::result::Result<T, ScenarioError>;

/// A whole number from `min` to `max`.
pub(super) fn count(ctx: &Context, key: &str, v: i64, min: i64, max: i64) -> Result<u32> {
    if (min..=max).contains(&v) {
        Ok(v as u32)
    } else {
        Err(ctx.invalid(
            key,
            format!("{v} must be a whole number from {min} to {max}"),
        ))
    }
}

/// A length or size: finite and greater than 0.
pub(super) fn positive(ctx: &Context, key: &str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(ctx.invalid(key, format!("{v} must be a number greater than 0")))
    }
}

/// A coordinate: any finite number.
pub(super) fn finite(ctx: &Context, key: &str, v: f64) -> Result<f64> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(ctx.invalid(key, format!("{v} must be a finite number")))
    }
}

/// A dice test such as `d6>=4`.
pub(super) fn dice(ctx: &Context, key: &str, text: &str) -> Result<DiceTest> {
    DiceTest::parse(text).map_err(|mut e| {
        e.text = clip(&e.text);
        ctx.invalid(key, e.to_string())
    })
}

/// A weapon's attacks or damage: a whole number from `min` to `max`, or dice whose largest
/// result is at most `max` and can reach `min` (a roll below `min`, such as `d3-1` giving 0
/// damage, is allowed: it is a legitimate rules outcome).
pub(super) fn amount(
    ctx: &Context,
    key: &str,
    raw: &RawAmount,
    min: u32,
    max: u32,
) -> Result<Amount> {
    let parsed = match raw {
        RawAmount::Int(v) => Amount::Fixed(count(ctx, key, *v, min.into(), max.into())?),
        RawAmount::Text(t) => Amount::parse(t).map_err(|mut e| {
            e.text = clip(&e.text);
            ctx.invalid(key, e.to_string())
        })?,
    };
    match parsed {
        Amount::Fixed(n) if n < min || n > max => Err(ctx.invalid(
            key,
            format!("{n} must be a whole number from {min} to {max}"),
        )),
        Amount::Dice { .. } if parsed.max() > max => Err(ctx.invalid(
            key,
            format!(
                "{} can roll up to {}, more than the most allowed, {max}",
                quoted(&parsed.to_string()),
                parsed.max()
            ),
        )),
        Amount::Dice { .. } if parsed.max() < min => Err(ctx.invalid(
            key,
            format!(
                "{} never rolls more than {}; it must be able to reach {min} (results below 0 \
                 count as 0)",
                quoted(&parsed.to_string()),
                parsed.max()
            ),
        )),
        _ => Ok(parsed),
    }
}
