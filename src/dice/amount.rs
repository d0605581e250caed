//! An amount (a weapon's attacks or damage): a whole number, or dice written
//! `[N]dS[(+|-)K]` (`"d3"`, `"2d6"`, `"d3+1"`) rolled each time the amount is needed. A roll
//! whose total falls below 0 counts as 0, so `"d3-1"` is 0, 1 or 2 with equal chances.
//!
//! The exact engine needs each value's probability ([`Amount::probabilities`]); the simulator
//! rolls the dice one by one ([`Amount::value`] turns their faces' sum into the amount).

use std::fmt;

use super::grammar::check_outcomes;
use super::{MAX_DICE, MAX_SIDES, MIN_SIDES};

/// A fixed number, or dice rolled each time.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Amount {
    /// Always this many.
    Fixed(u32),
    /// `count` dice of `sides` sides plus `modifier`, floored at 0.
    Dice {
        count: u32,
        sides: u32,
        modifier: i32,
    },
}

/// An amount's text could not be understood; the message quotes it and shows the grammar.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad amount \"{text}\": {problem}; expected a whole number or dice [N]dS[(+|-)K], e.g. 2, \"d3\", \"2d6\", \"d3+1\"")]
pub struct AmountError {
    /// The text as given.
    pub text: String,
    /// What was wrong with it.
    pub problem: String,
}

impl Amount {
    /// Parses a whole number (`"3"`) or `[N]dS[(+|-)K]`. Whitespace may surround any token
    /// and `d` is case-insensitive; `N` is 1 to [`MAX_DICE`], `S` is [`MIN_SIDES`] to
    /// [`MAX_SIDES`], and the dice may have at most 2^[`super::MAX_OUTCOMES_LOG2`] outcomes
    /// (so each value's probability is counted exactly).
    pub fn parse(text: &str) -> Result<Amount, AmountError> {
        Self::parse_inner(text.trim()).map_err(|problem| AmountError {
            text: text.to_string(),
            problem,
        })
    }

    fn parse_inner(t: &str) -> Result<Amount, String> {
        if t.is_empty() {
            return Err("empty text".to_string());
        }
        let number = |d: &str, what: &str| -> Result<u32, String> {
            d.parse::<u32>()
                .map_err(|_| format!("{what} '{d}' is not a whole number from 0 to {}", u32::MAX))
        };
        if t.chars().all(|c| c.is_ascii_digit()) {
            return Ok(Amount::Fixed(number(t, "amount")?));
        }
        let Some(at) = t.find(['d', 'D']) else {
            return Err("neither a whole number nor dice such as 'd3'".to_string());
        };
        let (head, tail) = (t[..at].trim(), t[at + 1..].trim_start());
        let count = match head {
            "" => 1,
            d if d.chars().all(|c| c.is_ascii_digit()) => match d.parse::<u32>() {
                Ok(n) if (1..=MAX_DICE).contains(&n) => n,
                _ => return Err(format!("dice count {d} must be between 1 and {MAX_DICE}")),
            },
            other => return Err(format!("'{other}' before 'd' is not a dice count")),
        };
        let sides_end = tail
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len());
        let (digits, rest) = tail.split_at(sides_end);
        let sides = match digits.parse::<u32>() {
            Ok(s) if (MIN_SIDES..=MAX_SIDES).contains(&s) => s,
            _ if digits.is_empty() => return Err("missing number of sides after 'd'".to_string()),
            _ => {
                return Err(format!(
                    "dice sides {digits} must be between {MIN_SIDES} and {MAX_SIDES}"
                ))
            }
        };
        let rest = rest.trim();
        let modifier = if rest.is_empty() {
            0
        } else {
            let (negative, k) = match (rest.strip_prefix('+'), rest.strip_prefix('-')) {
                (Some(k), _) => (false, k.trim_start()),
                (_, Some(k)) => (true, k.trim_start()),
                _ => {
                    return Err(format!(
                        "unexpected '{rest}' after the dice; only +K or -K may follow"
                    ))
                }
            };
            let bound = 1_000_000;
            match k.parse::<i32>() {
                Ok(v) if k.chars().all(|c| c.is_ascii_digit()) && v <= bound => {
                    if negative {
                        -v
                    } else {
                        v
                    }
                }
                _ => {
                    return Err(format!(
                        "modifier '{rest}' must be + or - a whole number up to {bound}"
                    ))
                }
            }
        };
        check_outcomes(count, sides, None)?;
        Ok(Amount::Dice {
            count,
            sides,
            modifier,
        })
    }

    /// The fixed number, when there are no dice.
    pub fn fixed(&self) -> Option<u32> {
        match *self {
            Amount::Fixed(n) => Some(n),
            Amount::Dice { .. } => None,
        }
    }

    /// The amount a roll whose faces sum to `faces` gives: `faces + modifier`, 0 if lower.
    pub fn value(&self, faces: u32) -> u32 {
        match *self {
            Amount::Fixed(n) => n,
            Amount::Dice { modifier, .. } => {
                let v = i64::from(faces) + i64::from(modifier);
                v.clamp(0, i64::from(u32::MAX)) as u32
            }
        }
    }

    /// The smallest amount possible.
    pub fn min(&self) -> u32 {
        match *self {
            Amount::Fixed(n) => n,
            Amount::Dice { count, .. } => self.value(count),
        }
    }

    /// The largest amount possible.
    pub fn max(&self) -> u32 {
        match *self {
            Amount::Fixed(n) => n,
            Amount::Dice { count, sides, .. } => self.value(count * sides),
        }
    }

    /// `P(amount = v)` for `v = 0..=max()`: the ways to roll each face sum, counted exactly
    /// in `u128` over the `sides^count` equally likely rolls, each divided once in `f64`.
    pub fn probabilities(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.max() as usize + 1];
        let Amount::Dice { count, sides, .. } = *self else {
            out[self.max() as usize] = 1.0;
            return out;
        };
        // ways[i]: rolls whose faces sum to count + i.
        let ways = super::probability::sum_ways(count, sides, false);
        let total = u128::from(sides).pow(count);
        for (i, &w) in ways.iter().enumerate() {
            out[self.value(count + i as u32) as usize] += w as f64 / total as f64;
        }
        out
    }
}

impl fmt::Display for Amount {
    /// Canonical text: the number, or the dice with the count omitted when 1 and the
    /// modifier when 0; parsing it gives back the same amount.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Amount::Fixed(n) => write!(f, "{n}"),
            Amount::Dice {
                count,
                sides,
                modifier,
            } => {
                if count != 1 {
                    write!(f, "{count}")?;
                }
                write!(f, "d{sides}")?;
                if modifier != 0 {
                    write!(f, "{modifier:+}")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_round_trip() {
        for (text, canonical) in [
            ("3", "3"),
            (" 0 ", "0"),
            ("d3", "d3"),
            ("D6", "d6"),
            ("1d6", "d6"),
            ("2d6", "2d6"),
            ("d3+1", "d3+1"),
            (" 2 d 6 - 1 ", "2d6-1"),
            ("d3+0", "d3"),
        ] {
            let a = Amount::parse(text).unwrap();
            assert_eq!(a.to_string(), canonical, "{text:?}");
            assert_eq!(Amount::parse(canonical).unwrap(), a);
        }
        assert_eq!(Amount::parse("7").unwrap().fixed(), Some(7));
        assert_eq!(Amount::parse("d3").unwrap().fixed(), None);
    }

    #[test]
    fn bad_texts_are_quoted_with_a_hint() {
        for (text, problem) in [
            ("", "empty text"),
            ("x", "neither a whole number nor dice"),
            ("-1", "neither a whole number nor dice"),
            ("0d6", "dice count 0 must be between 1 and 100"),
            ("d1", "dice sides 1 must be between 2 and 1000"),
            ("d", "missing number of sides"),
            ("d3*2", "unexpected '*2' after the dice"),
            ("d3+", "modifier '+' must be"),
            ("d3+x", "modifier '+x' must be"),
            ("d6>=4", "unexpected '>=4' after the dice"),
            ("47d6", "too many dice"),
            ("2xd6", "'2x' before 'd'"),
        ] {
            let e = Amount::parse(text).unwrap_err();
            let msg = e.to_string();
            assert!(
                msg.contains(&format!("\"{text}\"")) && msg.contains(problem),
                "{text:?}: {msg}"
            );
            assert!(
                msg.contains("expected a whole number or dice [N]dS"),
                "{msg}"
            );
        }
    }

    #[test]
    fn probabilities_by_hand() {
        // d3: 1, 2, 3 a third each.
        let t = 1.0 / 3.0;
        assert_eq!(Amount::parse("d3").unwrap().probabilities(), [0.0, t, t, t]);
        // d3-1 floors nothing: 0, 1, 2 a third each; d3-2: -1 and 0 both count as 0.
        assert_eq!(Amount::parse("d3-1").unwrap().probabilities(), [t, t, t]);
        assert_eq!(Amount::parse("d3-2").unwrap().probabilities(), [2.0 * t, t]);
        let a = Amount::parse("d3-2").unwrap();
        assert_eq!((a.min(), a.max()), (0, 1));
        // 2d6: sums 2..=12 with 1,2,3,4,5,6,5,4,3,2,1 ways of 36.
        let p = Amount::parse("2d6").unwrap().probabilities();
        let ways = [0, 0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1];
        for (v, w) in ways.iter().enumerate() {
            assert_eq!(p[v], f64::from(*w) / 36.0, "2d6 = {v}");
        }
        assert_eq!(Amount::Fixed(2).probabilities(), [0.0, 0.0, 1.0]);
        let a = Amount::parse("d3+1").unwrap();
        assert_eq!((a.min(), a.max(), a.value(3)), (2, 4, 4));
    }
}
