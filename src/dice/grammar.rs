//! The text form of a dice test, `[N]dS[(+|-)K] (>=|<=) T [reroll (fails|ones)]` or the d6
//! shorthand `T+ [reroll (fails|ones)]`: the
//! [`DiceTest`] type and its limits, a parser whose errors quote the text and hint at the fix,
//! and the canonical text it prints, which is also its serde form, so scenario files and
//! outputs show what a user would write.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Most dice one test may roll.
pub const MAX_DICE: u32 = 100;
/// Fewest sides a die may have (a one-sided die is not random).
pub const MIN_SIDES: u32 = 2;
/// Most sides a die may have.
pub const MAX_SIDES: u32 = 1000;
/// A test may have at most 2^MAX_OUTCOMES_LOG2 equally likely outcomes, counting both rolls
/// when it rerolls, so that exact counts, and a reroll's squared denominator, fit in `u128`.
pub const MAX_OUTCOMES_LOG2: u32 = 120;

/// How a test's total is compared with its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Comparison {
    /// `>=`: the total must reach the target.
    AtLeast,
    /// `<=`: the total must not exceed the target (roll-under systems).
    AtMost,
}

impl Comparison {
    /// The operator as written in a test: `">="` or `"<="`.
    pub fn symbol(self) -> &'static str {
        match self {
            Comparison::AtLeast => ">=",
            Comparison::AtMost => "<=",
        }
    }
}

/// Which reroll a test grants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reroll {
    /// `reroll fails`: a failed test is rolled once more, and the second result stands.
    Fails,
    /// `reroll ones`: every die showing 1 is rolled once more, and the second result stands
    /// even if it is 1 again. Only on `>=` tests: the parser refuses it on `<=` tests.
    Ones,
}

impl Reroll {
    /// The keyword after `reroll`: `"fails"` or `"ones"`.
    pub fn keyword(self) -> &'static str {
        match self {
            Reroll::Fails => "fails",
            Reroll::Ones => "ones",
        }
    }
}

/// One dice test, e.g. `2d6+1>=8 reroll ones`: roll `count` dice of `sides` sides, add
/// `modifier`, compare with `target`.
///
/// Only [`DiceTest::parse`] (and [`DiceTest::with_bonus`] on a parsed test) creates one, so
/// every value satisfies the limits checked there and [`DiceTest::probability`] cannot
/// overflow.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DiceTest {
    count: u32,
    sides: u32,
    modifier: i32,
    comparison: Comparison,
    target: i32,
    reroll: Option<Reroll>,
}

/// A dice test's text could not be understood. The message quotes the text, says what was
/// wrong, and shows the grammar with examples.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad dice test \"{text}\": {problem}; expected [N]dS[(+|-)K] (>=|<=) T [reroll (fails|ones)] or T+ (d6>=T), e.g. \"d6>=4\", \"4+\", \"2d6<=7\", \"d10+1>=6\", \"d6>=4 reroll ones\"")]
pub struct DiceError {
    /// The text as given.
    pub text: String,
    /// What was wrong with it.
    pub problem: String,
}
/// A read position in the text being parsed. Every step works on `&str` prefixes found with
/// `find`/`strip_prefix`, so slicing always lands on a char boundary and parsing never panics.
struct Cursor<'a> {
    rest: &'a str,
}

impl<'a> Cursor<'a> {
    fn skip_ws(&mut self) {
        self.rest = self.rest.trim_start();
    }

    fn eat(&mut self, prefix: &str) -> bool {
        match self.rest.strip_prefix(prefix) {
            Some(r) => {
                self.rest = r;
                true
            }
            None => false,
        }
    }

    fn take_while(&mut self, keep: impl Fn(char) -> bool) -> &'a str {
        let end = self
            .rest
            .find(|c: char| !keep(c))
            .unwrap_or(self.rest.len());
        let (taken, rest) = self.rest.split_at(end);
        self.rest = rest;
        taken
    }

    fn digits(&mut self) -> Option<&'a str> {
        Some(self.take_while(|c| c.is_ascii_digit())).filter(|d| !d.is_empty())
    }

    fn word(&mut self) -> &'a str {
        self.take_while(char::is_alphanumeric)
    }
}

/// The start of `rest` (up to whitespace, at most a few characters) to quote in an error.
fn snippet(rest: &str) -> String {
    let token = rest.split(char::is_whitespace).next().unwrap_or("");
    let mut out: String = token.chars().take(12).collect();
    if token.chars().count() > 12 {
        out.push_str("...");
    }
    out
}

/// Why the text at a comparison's place is not `>=` or `<=`; the common slips get a
/// targeted hint.
fn comparison_problem(rest: &str) -> String {
    if rest.is_empty() {
        "missing comparison '>=' or '<=' and target, e.g. 'd6>=4'".to_string()
    } else if rest.starts_with("=>") {
        "comparison '=>' must be written '>='".to_string()
    } else if rest.starts_with("=<") {
        "comparison '=<' must be written '<='".to_string()
    } else if rest.starts_with('>') {
        "comparison '>' is not supported, use '>=' (e.g. '>4' is '>=5')".to_string()
    } else if rest.starts_with('<') {
        "comparison '<' is not supported, use '<=' (e.g. '<4' is '<=3')".to_string()
    } else if rest.starts_with('=') {
        "comparison '=' is not supported, use '>=' or '<='".to_string()
    } else if rest.starts_with('≥') {
        "comparison '≥' must be written '>='".to_string()
    } else if rest.starts_with('≤') {
        "comparison '≤' must be written '<='".to_string()
    } else {
        format!(
            "missing comparison '>=' or '<=' (found '{}')",
            snippet(rest)
        )
    }
}

/// Checks that the test's outcomes (both rolls counted when it rerolls) fit the exact
/// arithmetic; the error names the largest count that would.
pub(super) fn check_outcomes(count: u32, sides: u32, reroll: Option<Reroll>) -> Result<(), String> {
    let rolls_per_die = if reroll.is_some() { 2 } else { 1 };
    let limit = 1u128 << MAX_OUTCOMES_LOG2;
    // Largest n with sides^(rolls_per_die * n) <= 2^MAX_OUTCOMES_LOG2, by repeated multiplication so no
    // floating-point log can misjudge an exact power.
    let per_die = u128::from(sides).pow(rolls_per_die);
    let mut max_n = 0u32;
    let mut outcomes = 1u128;
    while max_n < count {
        match outcomes.checked_mul(per_die) {
            Some(next) if next <= limit => {
                outcomes = next;
                max_n += 1;
            }
            _ => break,
        }
    }
    if max_n >= count {
        return Ok(());
    }
    let why = match reroll {
        None => String::new(),
        Some(r) => format!(
            " with 'reroll {}' (the dice may be rolled twice)",
            r.keyword()
        ),
    };
    Err(format!(
        "too many dice: {count}d{sides}{why} has more than 2^{MAX_OUTCOMES_LOG2} outcomes, \
         more than an exact probability can count (at most {max_n}d{sides})"
    ))
}

/// Why `reroll ones` is refused on a `<=` test.
const ONES_ON_AT_MOST: &str = "'reroll ones' on a '<=' test rerolls ones that already \
    pass, which only turns successes into failures; did you mean 'reroll fails'?";

/// The optional `reroll (fails|ones)` after a test's target, up to the end of the text.
fn reroll_suffix(c: &mut Cursor<'_>) -> Result<Option<Reroll>, String> {
    if c.rest.is_empty() {
        return Ok(None);
    }
    let word = c.word();
    if !word.eq_ignore_ascii_case("reroll") {
        let found = if word.is_empty() {
            snippet(c.rest)
        } else {
            word.to_string()
        };
        return Err(format!(
            "unexpected '{found}' after the target; only 'reroll fails' or \
             'reroll ones' may follow"
        ));
    }
    c.skip_ws();
    let kind = c.word();
    let reroll = if kind.eq_ignore_ascii_case("fails") {
        Reroll::Fails
    } else if kind.eq_ignore_ascii_case("ones") {
        Reroll::Ones
    } else if kind.is_empty() && c.rest.is_empty() {
        return Err(
            "missing what to reroll after 'reroll', expected 'fails' or 'ones'".to_string(),
        );
    } else {
        let found = if kind.is_empty() {
            snippet(c.rest)
        } else {
            kind.to_string()
        };
        return Err(format!(
            "unknown reroll '{found}', expected 'fails' or 'ones'"
        ));
    };
    c.skip_ws();
    if !c.rest.is_empty() {
        return Err(format!(
            "unexpected '{}' after 'reroll {kind}'",
            snippet(c.rest)
        ));
    }
    Ok(Some(reroll))
}

impl DiceTest {
    /// Parses `[N]dS[(+|-)K] (>=|<=) T [reroll (fails|ones)]`.
    ///
    /// Whitespace may surround any token; `d`, `reroll`, `fails` and `ones` are
    /// case-insensitive. `N` defaults to 1 and may not exceed [`MAX_DICE`], `S` must lie in
    /// [`MIN_SIDES`]`..=`[`MAX_SIDES`], and the test may have at most
    /// 2^[`MAX_OUTCOMES_LOG2`] outcomes. `K` and `T` are any `i32` (`T` may carry a sign),
    /// so impossible and certain tests are accepted: they are legitimate rules outcomes.
    ///
    /// `T+` (e.g. `4+`, `4+ reroll ones`) is the usual shorthand for a d6 test: it parses
    /// to `d6>=T`, and prints as that. `reroll ones` on a `<=` test is refused: a one is the
    /// best a `<=` roll can show, so rerolling it never helps; `reroll fails` is what is meant.
    pub fn parse(text: &str) -> Result<DiceTest, DiceError> {
        Self::parse_inner(text).map_err(|problem| DiceError {
            text: text.to_string(),
            problem,
        })
    }

    fn parse_inner(text: &str) -> Result<DiceTest, String> {
        let mut c = Cursor {
            rest: text.trim_start(),
        };
        if c.rest.is_empty() {
            return Err("empty text".to_string());
        }

        let leading = c.digits();
        c.skip_ws();
        if let Some(target) = leading.filter(|_| c.rest.starts_with('+')) {
            return Self::plus_form(&mut c, target);
        }
        let count = match leading {
            None => 1,
            Some(d) => match d.parse::<u32>() {
                Ok(n) if (1..=MAX_DICE).contains(&n) => n,
                _ => return Err(format!("dice count {d} must be between 1 and {MAX_DICE}")),
            },
        };

        c.skip_ws();
        if !(c.eat("d") || c.eat("D")) {
            return Err(if c.rest.is_empty() {
                "missing 'd' and the number of sides, e.g. 'd6' or '2d6'".to_string()
            } else {
                format!(
                    "expected 'd' and the number of sides, e.g. 'd6' or '2d6' (found '{}')",
                    snippet(c.rest)
                )
            });
        }

        c.skip_ws();
        let sides = match c.digits() {
            None if c.rest.is_empty() => {
                return Err("missing number of sides after 'd'".to_string());
            }
            None => {
                return Err(format!(
                    "missing number of sides after 'd' (found '{}')",
                    snippet(c.rest)
                ));
            }
            Some(d) => match d.parse::<u32>() {
                Ok(s) if (MIN_SIDES..=MAX_SIDES).contains(&s) => s,
                _ => {
                    return Err(format!(
                        "dice sides {d} must be between {MIN_SIDES} and {MAX_SIDES}"
                    ));
                }
            },
        };

        c.skip_ws();
        let mut modifier = 0i32;
        let sign = if c.eat("+") {
            Some('+')
        } else if c.eat("-") {
            Some('-')
        } else {
            None
        };
        if let Some(sign) = sign {
            c.skip_ws();
            let Some(d) = c.digits() else {
                return Err(format!(
                    "missing modifier number after '{sign}' (found '{}')",
                    snippet(c.rest)
                ));
            };
            modifier = signed_i32(sign == '-', d)
                .ok_or_else(|| format!("modifier {sign}{d} is out of range"))?;
        }

        c.skip_ws();
        let comparison = if c.eat(">=") {
            Comparison::AtLeast
        } else if c.eat("<=") {
            Comparison::AtMost
        } else {
            return Err(comparison_problem(c.rest));
        };

        c.skip_ws();
        let negative = c.eat("-");
        if !negative {
            c.eat("+");
        }
        let Some(d) = c.digits() else {
            return Err(if c.rest.is_empty() {
                format!("missing target number after '{}'", comparison.symbol())
            } else {
                format!(
                    "missing target number after '{}' (found '{}')",
                    comparison.symbol(),
                    snippet(c.rest)
                )
            });
        };
        let target = signed_i32(negative, d).ok_or_else(|| {
            format!(
                "target {}{d} is out of range",
                if negative { "-" } else { "" }
            )
        })?;

        c.skip_ws();
        let reroll = reroll_suffix(&mut c)?;
        if reroll == Some(Reroll::Ones) && comparison == Comparison::AtMost {
            return Err(ONES_ON_AT_MOST.to_string());
        }
        check_outcomes(count, sides, reroll)?;
        Ok(DiceTest {
            count,
            sides,
            modifier,
            comparison,
            target,
            reroll,
        })
    }

    /// The rest of `T+` (a d6 test, `d6>=T`) after its digits `target`, at the `+`.
    fn plus_form(c: &mut Cursor<'_>, target: &str) -> Result<DiceTest, String> {
        c.eat("+");
        let target = signed_i32(false, target)
            .ok_or_else(|| format!("target {target} of '{target}+' is out of range"))?;
        c.skip_ws();
        let reroll = reroll_suffix(c)?;
        Ok(DiceTest {
            count: 1,
            sides: 6,
            modifier: 0,
            comparison: Comparison::AtLeast,
            target,
            reroll,
        })
    }

    /// Number of dice rolled.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Sides of each die.
    pub fn sides(&self) -> u32 {
        self.sides
    }

    /// Added to the dice total before the comparison.
    pub fn modifier(&self) -> i32 {
        self.modifier
    }

    /// How the total is compared with the target.
    pub fn comparison(&self) -> Comparison {
        self.comparison
    }

    /// The number the total is compared with.
    pub fn target(&self) -> i32 {
        self.target
    }

    /// The reroll the test grants, if any.
    pub fn reroll(&self) -> Option<Reroll> {
        self.reroll
    }
    /// The test with a bonus in the tester's favour: `+bonus` to the total for `>=`,
    /// `-bonus` for `<=`; a negative bonus is a penalty. The modifier saturates at the `i32`
    /// range, which only matters for targets near `i32::MIN`/`i32::MAX`.
    pub fn with_bonus(&self, bonus: i32) -> DiceTest {
        let modifier = match self.comparison {
            Comparison::AtLeast => self.modifier.saturating_add(bonus),
            Comparison::AtMost => self.modifier.saturating_sub(bonus),
        };
        DiceTest {
            modifier,
            ..self.clone()
        }
    }
}

/// `digits` with a sign, if it fits in `i32` (so `-2147483648` is accepted).
fn signed_i32(negative: bool, digits: &str) -> Option<i32> {
    let magnitude: i64 = digits.parse().ok()?;
    i32::try_from(if negative { -magnitude } else { magnitude }).ok()
}

impl fmt::Display for DiceTest {
    /// Canonical text: count omitted when 1, modifier omitted when 0, no spaces except before
    /// `reroll`; parsing it gives back the same test.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.count != 1 {
            write!(f, "{}", self.count)?;
        }
        write!(f, "d{}", self.sides)?;
        if self.modifier > 0 {
            write!(f, "+{}", self.modifier)?;
        } else if self.modifier < 0 {
            write!(f, "{}", self.modifier)?;
        }
        write!(f, "{}{}", self.comparison.symbol(), self.target)?;
        if let Some(r) = self.reroll {
            write!(f, " reroll {}", r.keyword())?;
        }
        Ok(())
    }
}

impl FromStr for DiceTest {
    type Err = DiceError;

    fn from_str(s: &str) -> Result<DiceTest, DiceError> {
        DiceTest::parse(s)
    }
}

impl Serialize for DiceTest {
    /// As its canonical text, so scenario files and outputs show what a user would write.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DiceTest {
    /// From its text, reporting the full [`DiceError`] message on bad text.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<DiceTest, D::Error> {
        let text = String::deserialize(deserializer)?;
        DiceTest::parse(&text).map_err(serde::de::Error::custom)
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::Fraction;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn frac(num: u128, den: u128) -> Fraction {
        Fraction::new(num, den)
    }

    #[test]
    fn spec_examples_round_trip() {
        let cases = [
            ("d6>=4", "d6>=4"),
            ("2d6<=7", "2d6<=7"),
            ("d10+1>=6", "d10+1>=6"),
            ("d6>=4 reroll fails", "d6>=4 reroll fails"),
            ("d6>=4 reroll ones", "d6>=4 reroll ones"),
            ("D6 >= 4", "d6>=4"),
            ("3d6-2>=10", "3d6-2>=10"),
            ("  1d6 + 0 >= +4  ", "d6>=4"),
            ("2 D 6 - 1 <= -3 ReRoll FAILS", "2d6-1<=-3 reroll fails"),
            ("4+", "d6>=4"),
            (" 5 + ", "d6>=5"),
            ("4+ reroll ones", "d6>=4 reroll ones"),
            ("2+reroll FAILS", "d6>=2 reroll fails"),
            ("7+", "d6>=7"),
            ("d6>=4reroll Fails", "d6>=4 reroll fails"),
            ("d6-2147483648>=2147483647", "d6-2147483648>=2147483647"),
        ];
        for (text, canonical) in cases {
            let test = DiceTest::parse(text).unwrap();
            assert_eq!(test.to_string(), canonical, "display of {text:?}");
            assert_eq!(DiceTest::parse(canonical).unwrap(), test, "{text:?}");
            assert_eq!(text.parse::<DiceTest>().unwrap(), test);
        }
        let t = DiceTest::parse("3d6-2>=10 reroll ones").unwrap();
        assert_eq!(
            (t.count(), t.sides(), t.modifier(), t.target()),
            (3, 6, -2, 10)
        );
        assert_eq!(t.comparison(), Comparison::AtLeast);
        assert_eq!(t.reroll(), Some(Reroll::Ones));
    }

    #[test]
    fn bonus_moves_in_testers_favour() {
        let t = DiceTest::parse("d6>=6").unwrap().with_bonus(1);
        assert_eq!(t.to_string(), "d6+1>=6");
        // d6+1 >= 6 means d6 >= 5.
        assert_eq!(t.probability(), frac(1, 3));
        // d6-1 >= 4 means d6 >= 5.
        let t = DiceTest::parse("d6>=4").unwrap().with_bonus(-1);
        assert_eq!(t.to_string(), "d6-1>=4");
        assert_eq!(t.probability(), frac(1, 3));
        // On <=, a bonus lowers the total: 2d6-1 <= 7 means 2d6 <= 8: 36 - (4+3+2+1) = 26/36.
        let t = DiceTest::parse("2d6<=7").unwrap().with_bonus(1);
        assert_eq!(t.to_string(), "2d6-1<=7");
        assert_eq!(t.probability(), frac(13, 18));
        // And a penalty raises it: 2d6+1 <= 7 means 2d6 <= 6: 1+2+3+4+5 = 15/36.
        let t = DiceTest::parse("2d6<=7").unwrap().with_bonus(-1);
        assert_eq!(t.probability(), frac(5, 12));
        // Bonuses keep the reroll and saturate rather than overflow.
        let t = DiceTest::parse("d6+2147483647>=4 reroll ones").unwrap();
        let t = t.with_bonus(5);
        assert_eq!(t.modifier(), i32::MAX);
        assert_eq!(t.reroll(), Some(Reroll::Ones));
        assert_eq!(DiceTest::parse(&t.to_string()).unwrap(), t);
    }

    #[test]
    fn bad_texts_are_quoted_with_a_hint() {
        let cases = [
            ("", "empty text"),
            ("   ", "empty text"),
            ("d6", "missing comparison '>=' or '<='"),
            ("d6>4", "'>' is not supported, use '>='"),
            ("d6=>4", "must be written '>='"),
            ("0d6>=4", "dice count 0 must be between 1 and 100"),
            ("101d6>=4", "dice count 101 must be between 1 and 100"),
            ("99999999999d6>=4", "dice count 99999999999 must be between"),
            ("d1>=2", "dice sides 1 must be between 2 and 1000"),
            ("d1001>=2", "dice sides 1001 must be between 2 and 1000"),
            ("d>=4", "missing number of sides after 'd' (found '>=4')"),
            ("2x6>=4", "expected 'd' and the number of sides"),
            ("d6+>=4", "missing modifier number after '+'"),
            ("d6+99999999999>=4", "modifier +99999999999 is out of range"),
            ("d6>=", "missing target number after '>='"),
            ("d6<=x", "missing target number after '<=' (found 'x')"),
            ("d6>=2147483648", "target 2147483648 is out of range"),
            (
                "d6>=4 reroll twice",
                "unknown reroll 'twice', expected 'fails' or 'ones'",
            ),
            ("d6>=4 reroll", "missing what to reroll"),
            ("d6>=4 extra", "unexpected 'extra' after the target"),
            ("d6>=4.5", "unexpected '.5' after the target"),
            (
                "d6>=4 reroll ones fails",
                "unexpected 'fails' after 'reroll ones'",
            ),
            (
                "47d6>=4",
                "too many dice: 47d6 has more than 2^120 outcomes",
            ),
            ("24d6>=4 reroll ones", "(at most 23d6)"),
            ("d6 ≥ 4", "'≥' must be written '>='"),
            ("4+1", "unexpected '1' after the target"),
            ("4+ twice", "unexpected 'twice' after the target"),
            (
                "99999999999+",
                "target 99999999999 of '99999999999+' is out of range",
            ),
            (
                "2d6<=7 reroll ones",
                "'reroll ones' on a '<=' test rerolls ones that already pass",
            ),
            ("d6<=3 reroll ones", "did you mean 'reroll fails'?"),
        ];
        for (text, problem) in cases {
            let err = DiceTest::parse(text).unwrap_err();
            let msg = err.to_string();
            assert!(msg.contains(&format!("\"{text}\"")), "{msg}");
            assert!(msg.contains(problem), "{text:?}: {msg}");
            assert!(msg.contains("expected [N]dS[(+|-)K] (>=|<=) T"), "{msg}");
            assert_eq!(err.text, text);
        }
        // The limits are exact: the largest pools still parse and compute.
        assert!(DiceTest::parse("46d6>=4").is_ok());
        assert!(DiceTest::parse("23d6>=4 reroll fails").is_ok());
        assert!(DiceTest::parse("100d2>=50").is_ok());
        assert!(DiceTest::parse("60d2>=50 reroll ones").is_ok());
        assert!(DiceTest::parse("61d2>=50 reroll ones").is_err());
        assert!(DiceTest::parse("12d1000>=6000").is_ok());
        assert!(DiceTest::parse("13d1000>=6000").is_err());
    }

    #[test]
    fn parse_never_panics() {
        let alphabet: Vec<char> = " \tdD0123456789+-<>=rerollfailsonesx.é≥\u{3000}"
            .chars()
            .collect();
        let seeds = [
            "d6>=4",
            "2d6<=7 reroll fails",
            "4+ reroll ones",
            "d10+1>=6 reroll fails",
            "100d2>=-3",
            "46d6<=100",
        ];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut pick = |n: usize| (rng.next_u64() % n as u64) as usize;
        let mut parsed = 0;
        for i in 0..30_000 {
            let text: String = if i % 2 == 0 {
                let len = pick(16);
                (0..len).map(|_| alphabet[pick(alphabet.len())]).collect()
            } else {
                let mut chars: Vec<char> = seeds[pick(seeds.len())].chars().collect();
                for _ in 0..1 + pick(3) {
                    let at = pick(chars.len() + 1);
                    match pick(3) {
                        0 => chars.insert(at, alphabet[pick(alphabet.len())]),
                        1 if at < chars.len() => {
                            chars.remove(at);
                        }
                        _ if at < chars.len() => chars[at] = alphabet[pick(alphabet.len())],
                        _ => {}
                    }
                }
                chars.into_iter().collect()
            };
            match DiceTest::parse(&text) {
                Ok(test) => {
                    parsed += 1;
                    assert_eq!(
                        DiceTest::parse(&test.to_string()).unwrap(),
                        test,
                        "{text:?}"
                    );
                    let p = test.probability();
                    assert!(p.den > 0 && p.num <= p.den, "{text:?}: {p}");
                }
                Err(e) => assert!(e.to_string().contains(&format!("\"{text}\""))),
            }
        }
        assert!(
            parsed > 1000,
            "fuzzing should also reach valid texts ({parsed})"
        );
    }

    #[test]
    fn serde_uses_the_text() {
        let t: DiceTest = serde_json::from_str("\"2D6 + 1 >= 8 reroll ONES\"").unwrap();
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            "\"2d6+1>=8 reroll ones\""
        );
        let err = serde_json::from_str::<DiceTest>("\"d6>4\"").unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("bad dice test \"d6>4\"") && msg.contains("use '>='"),
            "{msg}"
        );
    }
}
