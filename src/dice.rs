//! Dice tests: the text form `[N]dS[(+|-)K] (>=|<=) T [reroll (fails|ones)]`, each test's
//! exact success probability, and the samplers the Monte Carlo engine plays them with.
//!
//! Two consumers shape this module:
//!
//! - The exact engine (SPEC section 3) composes success probabilities without rounding, so a
//!   published table can be derived rather than estimated, and the simulator can be checked
//!   against it. That is why [`DiceTest::probability`] returns a reduced [`Fraction`] counted
//!   over every equally likely outcome instead of a float.
//! - The simulator's hot loop plays billions of tests. Once a test is reduced to its
//!   probability, rolling the actual dice is wasted work: [`Bernoulli`] compares one random
//!   64-bit word with a precomputed threshold, and [`SuccessCount`] turns "how many of these
//!   `m` identical tests succeed" into one word and a table lookup. Both consume exactly one
//!   word per call whatever the probability or the number of dice, so the random stream, and
//!   with it every reproducible result, does not depend on the dice being rolled.
//!
//! The exact counts are `u128`; to keep them (and the squared denominators of rerolls)
//! representable, a test may have at most 2^120 equally likely outcomes (see
//! [`MAX_OUTCOMES_LOG2`]). That is far beyond any table-top roll (46d6, or 23d6 with a reroll).

use std::fmt;
use std::str::FromStr;

use rand::Rng;
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
    /// even if it is 1 again.
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
#[error("bad dice test \"{text}\": {problem}; expected [N]dS[(+|-)K] (>=|<=) T [reroll (fails|ones)], e.g. \"d6>=4\", \"2d6<=7\", \"d10+1>=6\", \"d6>=4 reroll ones\"")]
pub struct DiceError {
    /// The text as given.
    pub text: String,
    /// What was wrong with it.
    pub problem: String,
}

/// An exact probability as a fraction `num/den`.
///
/// Invariant (kept by every constructor and operation here, and expected of values built
/// from the public fields): `den > 0`, `num <= den`, and `gcd(num, den) == 1`, so equal
/// probabilities compare equal with `==`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fraction {
    /// Numerator.
    pub num: u128,
    /// Denominator, never 0.
    pub den: u128,
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Fraction {
    /// Probability 0.
    pub const ZERO: Fraction = Fraction { num: 0, den: 1 };
    /// Probability 1.
    pub const ONE: Fraction = Fraction { num: 1, den: 1 };

    /// `num/den`, reduced.
    ///
    /// # Panics
    /// If `den == 0` or `num > den`: such a value is not a probability, and letting it through
    /// would corrupt exact results silently.
    pub fn new(num: u128, den: u128) -> Fraction {
        assert!(
            den > 0 && num <= den,
            "{num}/{den} is not a probability (need 0 <= num <= den, den > 0)"
        );
        // gcd(0, den) == den, so zero comes out as 0/1.
        let g = gcd(num, den);
        Fraction {
            num: num / g,
            den: den / g,
        }
    }

    /// The nearest-ish `f64` (each of `num` and `den` is rounded once, so the result is within
    /// a few ulps); for reporting and for building samplers, never for exact work.
    pub fn to_f64(self) -> f64 {
        if self.num >= self.den {
            1.0
        } else {
            self.num as f64 / self.den as f64
        }
    }

    /// `1 - self`, the probability of the complementary event. Stays reduced because
    /// `gcd(den - num, den) == gcd(num, den)`.
    pub fn one_minus(self) -> Fraction {
        Fraction {
            num: self.den - self.num,
            den: self.den,
        }
    }

    /// `self * o`, the probability that two independent events both happen, or `None` if the
    /// reduced result does not fit in `u128`.
    pub fn checked_mul(self, o: Fraction) -> Option<Fraction> {
        // Cancelling across before multiplying keeps the product reduced (for reduced inputs)
        // and overflows only when the exact answer itself cannot be represented.
        let g1 = gcd(self.num, o.den);
        let g2 = gcd(o.num, self.den);
        let num = (self.num / g1).checked_mul(o.num / g2)?;
        if num == 0 {
            return Some(Fraction::ZERO);
        }
        let den = (self.den / g2).checked_mul(o.den / g1)?;
        Some(Fraction { num, den })
    }

    /// `self * o`, the probability that two independent events both happen.
    ///
    /// # Panics
    /// If the reduced product's denominator does not fit in `u128` (use
    /// [`Fraction::checked_mul`] to handle that case): an exact result must not be rounded
    /// silently. Also available as the `*` operator; the inherent method exists so callers
    /// need not import `std::ops::Mul`.
    #[allow(clippy::should_implement_trait)]
    pub fn mul(self, o: Fraction) -> Fraction {
        self.checked_mul(o).unwrap_or_else(|| {
            panic!("exact probability {self} * {o} does not fit in a u128 fraction")
        })
    }
}

impl std::ops::Mul for Fraction {
    type Output = Fraction;

    /// See [`Fraction::mul`] (panics if the exact product does not fit).
    fn mul(self, o: Fraction) -> Fraction {
        Fraction::mul(self, o)
    }
}

impl fmt::Display for Fraction {
    /// `"0"`, `"1"`, or `"num/den"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.num == 0 {
            write!(f, "0")
        } else if self.num == self.den {
            write!(f, "1")
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
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
fn check_outcomes(count: u32, sides: u32, reroll: Option<Reroll>) -> Result<(), String> {
    let rolls_per_die = if reroll.is_some() { 2 } else { 1 };
    let limit = 1u128 << MAX_OUTCOMES_LOG2;
    // Largest n with sides^(rolls_per_die * n) <= 2^120, by repeated multiplication so no
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

impl DiceTest {
    /// Parses `[N]dS[(+|-)K] (>=|<=) T [reroll (fails|ones)]`.
    ///
    /// Whitespace may surround any token; `d`, `reroll`, `fails` and `ones` are
    /// case-insensitive. `N` defaults to 1 and must be in 1..=100, `S` in 2..=1000, and the
    /// test may have at most 2^120 outcomes. `K` and `T` are any `i32` (`T` may carry a sign),
    /// so impossible and certain tests are accepted: they are legitimate rules outcomes.
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

        let count = match c.digits() {
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
        let mut reroll = None;
        if !c.rest.is_empty() {
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
            reroll = Some(if kind.eq_ignore_ascii_case("fails") {
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
            });
            c.skip_ws();
            if !c.rest.is_empty() {
                return Err(format!(
                    "unexpected '{}' after 'reroll {kind}'",
                    snippet(c.rest)
                ));
            }
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

    /// Exact success probability of one test, counted over every equally likely outcome
    /// (both rolls included when the test rerolls), reduced.
    pub fn probability(&self) -> Fraction {
        let dist = self.sum_ways();
        let total: u128 = dist.iter().sum();
        // Index i of `dist` is a dice sum of `count + i`; the test succeeds for
        // `sum + modifier` against `target`, i.e. for i against `bound` (no overflow in i64).
        let bound = i64::from(self.target) - i64::from(self.modifier) - i64::from(self.count);
        let len = dist.len() as i64;
        let wins: u128 = match self.comparison {
            Comparison::AtLeast => {
                let from = bound.clamp(0, len) as usize;
                dist[from..].iter().sum()
            }
            Comparison::AtMost => {
                let to = (bound + 1).clamp(0, len) as usize;
                dist[..to].iter().sum()
            }
        };
        let p = Fraction::new(wins, total);
        match self.reroll {
            // A failed test is rolled again: p + (1-p)p = p(2-p) = n(2d-n)/d^2. The squared
            // denominator fits because parse limited the outcomes of both rolls to 2^120.
            Some(Reroll::Fails) => Fraction::new(p.num * (2 * p.den - p.num), p.den * p.den),
            _ => p,
        }
    }

    /// Number of ways (out of sides^count, or sides^(2 count) with `reroll ones`) to roll
    /// each dice sum, index 0 being the smallest sum `count`.
    fn sum_ways(&self) -> Vec<u128> {
        let s = self.sides as usize;
        // With `reroll ones`, a die reads f >= 2 when it first shows f (1 way of S) or first
        // shows 1 then f (1 way of S*S): S+1 ways of S*S; it reads 1 only as 1 then 1: 1 way.
        // Every face but 1 weighs the same, which lets each convolution step use a sliding
        // window instead of multiplying by every face (O(range) rather than O(range * S)).
        let (weight_one, weight_other): (u128, u128) = match self.reroll {
            Some(Reroll::Ones) => (1, u128::from(self.sides) + 1),
            _ => (1, 1),
        };
        let mut dist: Vec<u128> = vec![1];
        let mut prefix: Vec<u128> = Vec::new();
        for _ in 0..self.count {
            prefix.clear();
            prefix.push(0);
            let mut acc = 0u128;
            for &w in &dist {
                acc += w;
                prefix.push(acc);
            }
            let old_len = dist.len();
            let next: Vec<u128> = (0..old_len + s - 1)
                .map(|j| {
                    // New index j = old index i + (face - 1), face 1..=S.
                    let lo = j.saturating_sub(s - 1);
                    let hi = j.min(old_len - 1);
                    let window = prefix[hi + 1] - prefix[lo];
                    let via_one = if j < old_len { dist[j] } else { 0 };
                    weight_other * (window - via_one) + weight_one * via_one
                })
                .collect();
            dist = next;
        }
        dist
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

/// `floor(num * 2^64 / den)` for `num < den`, exactly, by binary long division: `num * 2^64`
/// does not fit in `u128` when `den` is large, and a float would lose the exactness the
/// threshold promises.
fn scaled_floor(num: u128, den: u128) -> u64 {
    let mut quotient = 0u64;
    let mut rem = num;
    for _ in 0..64 {
        // Doubling `rem` could overflow when den > 2^127; comparing with `den - rem` cannot.
        let bit = rem >= den - rem;
        rem = if bit { rem - (den - rem) } else { rem + rem };
        quotient = (quotient << 1) | u64::from(bit);
    }
    quotient
}

/// Fast sampler for one test: success iff `rng.next_u64() < threshold`, with
/// `threshold = floor(p * 2^64)`, so the success probability is `p` to within 2^-64
/// (exactly `p` when `p` is 0, 1, or a dyadic fraction such as 1/2).
#[derive(Clone, Copy, Debug)]
pub struct Bernoulli {
    threshold: u64,
    /// `p == 1`: no 64-bit threshold can make every word succeed.
    always: bool,
}

impl Bernoulli {
    /// The sampler for probability `p` (values with `num >= den` are treated as 1).
    pub fn new(p: Fraction) -> Bernoulli {
        if p.num >= p.den {
            Bernoulli {
                threshold: u64::MAX,
                always: true,
            }
        } else {
            Bernoulli {
                threshold: scaled_floor(p.num, p.den),
                always: false,
            }
        }
    }

    /// One test. Draws exactly one `next_u64()` per call, even when `p` is 0 or 1, so the
    /// position in the random stream never depends on the probability.
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> bool {
        let u = rng.next_u64();
        self.always | (u < self.threshold)
    }
}

/// Up to this many thresholds a linear scan beats a binary search: the scan usually stops
/// near the mode after a few well-predicted compares.
const LINEAR_SCAN_MAX: usize = 16;

/// 2^64 as an `f64` (exact).
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;

/// `round(x * 2^64)` for `x` in [0, 1], saturating at `u64::MAX`.
fn to_word(x: f64) -> u64 {
    // `as` saturates, which is the clamping we want at x ~ 1.
    (x * TWO_POW_64).round() as u64
}

/// Inverse-CDF table for the number of successes among `m` independent tests with
/// probability `p` (a binomial count): one random word per draw, whatever `m` is, so a unit
/// rolling fifty Resolve tests costs what one test costs.
#[derive(Clone, Debug)]
pub struct SuccessCount {
    m: u32,
    /// `thresholds[k] = round(P(X <= k) * 2^64)`, non-decreasing. Stops at the largest `k`
    /// with `P(X = k) > 0`: there the CDF is exactly 1, which no `u64` threshold expresses,
    /// so "past the last threshold" stands for "always".
    thresholds: Vec<u64>,
    /// `guide[b]` is the count every word whose top byte is `b` draws, or `AMBIGUOUS` when a
    /// threshold falls inside that byte's range: most draws are then one lookup. Empty when
    /// counts do not fit below `AMBIGUOUS`.
    guide: Vec<u8>,
    pmf: Vec<f64>,
}

pub(crate) const AMBIGUOUS: u8 = u8::MAX;

impl SuccessCount {
    /// The table for `m` tests of probability `p`.
    pub fn new(m: u32, p: Fraction) -> SuccessCount {
        let pmf = binomial_pmf(m, p);
        let support_end = pmf.iter().rposition(|&x| x > 0.0).unwrap_or(0);

        // Each threshold is taken from the side where its probability is small: the lower
        // CDF from the left, the upper one as 1 - (upper tail summed from the right). Near
        // 1, a CDF summed from the left has lost the tail's relative precision, which would
        // misweight rare "almost all succeed" outcomes.
        let mut upper_tail = vec![0.0; pmf.len() + 1];
        for k in (0..pmf.len()).rev() {
            upper_tail[k] = upper_tail[k + 1] + pmf[k];
        }
        let mut thresholds = Vec::with_capacity(support_end);
        let mut lower = 0.0;
        let mut last = 0u64;
        for k in 0..support_end {
            lower += pmf[k];
            let t = if lower <= 0.5 {
                to_word(lower)
            } else {
                // 2^64 - round(tail * 2^64), saturating at u64::MAX when the tail rounds to 0.
                (u64::MAX - to_word(upper_tail[k + 1])).saturating_add(1)
            };
            // Rounding from two sides could dip at the switch; the search needs monotonicity.
            last = last.max(t);
            thresholds.push(last);
        }
        let mut table = SuccessCount {
            m,
            thresholds,
            guide: Vec::new(),
            pmf,
        };
        if table.thresholds.len() < AMBIGUOUS as usize {
            table.guide = (0..=255u64)
                .map(|b| {
                    let (low, high) = (b << 56, (b << 56) | ((1 << 56) - 1));
                    let k = table.scan(low);
                    if k == table.scan(high) {
                        k as u8
                    } else {
                        AMBIGUOUS
                    }
                })
                .collect();
        }
        table
    }

    /// `m`, the number of tests counted.
    pub fn trials(&self) -> u32 {
        self.m
    }

    /// The count for each value of a word's top byte, `AMBIGUOUS` where the byte does not
    /// decide it (then [`scan`](Self::scan) does); `None` for tables too long for a guide.
    #[inline]
    pub(crate) fn guide(&self) -> Option<&[u8; 256]> {
        self.guide.as_slice().try_into().ok()
    }

    /// The number of successes among the `m` tests. Draws exactly one `next_u64()` per call,
    /// even when `m == 0` or `p` is 0 or 1 (the answer is then fixed), so the position in the
    /// random stream never depends on the parameters.
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u32 {
        self.count_for(rng.next_u64())
    }

    /// The count a random word `u` draws.
    #[inline]
    pub(crate) fn count_for(&self, u: u64) -> u32 {
        // Counts are monotone in `u`, so a byte range whose two ends agree draws one count.
        match self.guide.get((u >> 56) as usize) {
            Some(&k) if k != AMBIGUOUS => k as u32,
            _ => self.scan(u),
        }
    }

    /// The count a word draws, from the thresholds alone.
    #[inline]
    pub(crate) fn scan(&self, u: u64) -> u32 {
        // The smallest k with u < thresholds[k] is the number of thresholds <= u.
        let k = if self.thresholds.len() <= LINEAR_SCAN_MAX {
            // Counted without an early exit: the loop length is fixed per table, so no branch
            // depends on the random word and nothing is mispredicted.
            self.thresholds.iter().map(|&t| (t <= u) as usize).sum()
        } else {
            self.thresholds.partition_point(|&t| t <= u)
        };
        k as u32
    }

    /// A word that makes [`sample`](Self::sample) draw `k`, or `None` when no word does (`k`
    /// impossible, or rounded away). Lets a caller list every outcome of a draw through the
    /// very code that samples it.
    pub fn word_for(&self, k: u32) -> Option<u64> {
        let u = match k {
            0 => 0,
            _ => *self.thresholds.get(k as usize - 1)?,
        };
        (self.count_for(u) == k).then_some(u)
    }

    /// The words that draw `k`, as an inclusive range, or `None` when no word does.
    pub(crate) fn words_drawing(&self, k: u32) -> Option<(u64, u64)> {
        let low = self.word_for(k)?;
        let high = match self.thresholds.get(k as usize) {
            Some(&t) => t - 1,
            None => u64::MAX,
        };
        Some((low, high))
    }

    /// `P(X = k)` for `k = 0..=m`, in `f64`; sums to 1 within about `m * 1e-16`.
    pub fn pmf(&self) -> &[f64] {
        &self.pmf
    }
}

/// Binomial pmf by the ratio recurrence `P(k+1)/P(k) = (m-k)/(k+1) * p/(1-p)`, walked
/// outwards from the mode and then normalised. Starting at the largest term means nothing
/// overflows, terms far in the tails underflow harmlessly to 0, and each term carries a
/// relative error of only a few ulps per step from the mode, where the mass is; no
/// `lgamma` or `(1-p)^m` (which underflows for large `m`) is needed.
fn binomial_pmf(m: u32, p: Fraction) -> Vec<f64> {
    let n = m as usize;
    let mut pmf = vec![0.0; n + 1];
    if p.num == 0 {
        pmf[0] = 1.0;
        return pmf;
    }
    if p.num >= p.den {
        pmf[n] = 1.0;
        return pmf;
    }
    let p_f = p.to_f64();
    // 1-p from the exact fraction, not 1.0 - p_f, so probabilities near 1 keep their odds.
    let odds = p_f / p.one_minus().to_f64();
    let mode = (((f64::from(m) + 1.0) * p_f).floor() as usize).min(n);
    pmf[mode] = 1.0;
    for k in mode..n {
        pmf[k + 1] = pmf[k] * ((n - k) as f64 / (k + 1) as f64 * odds);
    }
    for k in (1..=mode).rev() {
        pmf[k - 1] = pmf[k] * (k as f64 / (n - k + 1) as f64 / odds);
    }
    let sum: f64 = pmf.iter().sum();
    for x in &mut pmf {
        *x /= sum;
    }
    pmf
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn frac(num: u128, den: u128) -> Fraction {
        Fraction::new(num, den)
    }

    fn prob(text: &str) -> Fraction {
        DiceTest::parse(text).unwrap().probability()
    }

    /// An RNG that replays given words (cycling) and counts how many were drawn, to pin
    /// threshold edges and the one-word-per-call contract.
    struct Words {
        words: Vec<u64>,
        drawn: usize,
    }

    impl Words {
        fn new(words: &[u64]) -> Words {
            Words {
                words: words.to_vec(),
                drawn: 0,
            }
        }
    }

    impl rand::TryRng for Words {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Ok(self.try_next_u64()? as u32)
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            let w = self.words[self.drawn % self.words.len()];
            self.drawn += 1;
            Ok(w)
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
            for b in dst {
                *b = self.try_next_u64()? as u8;
            }
            Ok(())
        }
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
            ("2 D 6 - 1 <= -3 ReRoll ONES", "2d6-1<=-3 reroll ones"),
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
    fn probabilities_by_hand() {
        // 4, 5, 6 of 6 faces.
        assert_eq!(prob("d6>=4"), frac(1, 2));
        // 5, 6 of 6.
        assert_eq!(prob("d6>=5"), frac(1, 3));
        // Sums 2..=7 of 2d6: 1+2+3+4+5+6 = 21 of 36.
        assert_eq!(prob("2d6<=7"), frac(7, 12));
        // d10+1 >= 6 means d10 >= 5: faces 5..=10, 6 of 10.
        assert_eq!(prob("d10+1>=6"), frac(3, 5));
        // Fail (1/2) then succeed on the second roll (1/2): 1/2 + 1/2 * 1/2.
        assert_eq!(prob("d6>=4 reroll fails"), frac(3, 4));
        // A 1 (1/6) is rerolled and then succeeds half the time: 1/2 + 1/6 * 1/2 = 7/12.
        assert_eq!(prob("d6>=4 reroll ones"), frac(7, 12));
        // 2d6>=7 reroll ones: per die, face 1 has 1 way of 36 (1 then 1), faces 2..6 have 7
        // (the face at once: 6 of 36, or 1 then the face: 1 of 36). Weighted pairs (a, b),
        // a + b >= 7, by a: a=1 (1): b=6 -> 1*7 = 7; a=2 (7): b in 5..6 -> 7*14 = 98;
        // a=3: 7*21 = 147; a=4: 7*28 = 196; a=5: 7*35 = 245; a=6: b any -> 7*(1+35) = 252.
        // 7+98+147+196+245+252 = 945 of 36^2 = 1296; gcd 27 -> 35/48 (plain: 7/12).
        assert_eq!(prob("2d6>=7 reroll ones"), frac(35, 48));
        assert_eq!(prob("d6>=7"), Fraction::ZERO);
        assert_eq!(prob("d6>=1"), Fraction::ONE);
        assert_eq!(prob("d6<=0"), Fraction::ZERO);
        assert_eq!(prob("d6-100>=-2147483648"), Fraction::ONE);
        // A certain test stays certain with a reroll, an impossible one impossible.
        assert_eq!(prob("d6>=1 reroll fails"), Fraction::ONE);
        assert_eq!(prob("d6>=7 reroll ones"), Fraction::ZERO);
        // 3d6-2 >= 10 means 3d6 >= 12: ways for sums 12..=18 are 25+21+15+10+6+3+1 = 81 of
        // 216 = 3/8.
        assert_eq!(prob("3d6-2>=10"), frac(3, 8));
        // 46d6, the largest plain d6 pool, has sums 46..=276, symmetric around 161, so
        // P(sum >= 162) = P(sum <= 160) exactly, with a denominator dividing 6^46.
        let upper = prob("46d6>=162");
        assert_eq!(upper, prob("46d6<=160"));
        assert!(upper.num < upper.den && 6u128.pow(46).is_multiple_of(upper.den));
        assert!((upper.to_f64() - 0.5).abs() < 0.05);
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

    /// Plays the literal process over every equally likely outcome: each die (or the whole
    /// test, for `reroll fails`) gets a second roll that is used only when the rule says so.
    fn brute_force(
        n: u32,
        s: u32,
        k: i64,
        at_least: bool,
        t: i64,
        reroll: Option<Reroll>,
    ) -> Fraction {
        let rolls = if reroll.is_some() { 2 * n } else { n };
        let outcomes = u128::from(s).pow(rolls);
        let judge = |sum: i64| {
            if at_least {
                sum + k >= t
            } else {
                sum + k <= t
            }
        };
        let mut wins = 0u128;
        for o in 0..outcomes {
            let mut rest = o;
            let faces: Vec<i64> = (0..rolls)
                .map(|_| {
                    let f = (rest % u128::from(s)) as i64 + 1;
                    rest /= u128::from(s);
                    f
                })
                .collect();
            let n = n as usize;
            let first: i64 = faces[..n].iter().sum();
            let win = match reroll {
                None => judge(first),
                Some(Reroll::Fails) => judge(first) || judge(faces[n..].iter().sum()),
                Some(Reroll::Ones) => judge(
                    (0..n)
                        .map(|i| {
                            if faces[i] == 1 {
                                faces[n + i]
                            } else {
                                faces[i]
                            }
                        })
                        .sum(),
                ),
            };
            wins += u128::from(win);
        }
        Fraction::new(wins, outcomes)
    }

    #[test]
    fn probability_matches_brute_force() {
        for (n, s) in [(1, 2), (1, 6), (2, 3), (2, 6), (3, 4), (1, 20)] {
            for k in [-2i32, 0, 1] {
                for reroll in [None, Some(Reroll::Fails), Some(Reroll::Ones)] {
                    for at_least in [true, false] {
                        for t in -1..=(n * s) as i32 + 3 {
                            let test = DiceTest {
                                count: n,
                                sides: s,
                                modifier: k,
                                comparison: if at_least {
                                    Comparison::AtLeast
                                } else {
                                    Comparison::AtMost
                                },
                                target: t,
                                reroll,
                            };
                            let expected = brute_force(n, s, k.into(), at_least, t.into(), reroll);
                            assert_eq!(test.probability(), expected, "{test}");
                            assert_eq!(DiceTest::parse(&test.to_string()).unwrap(), test);
                        }
                    }
                }
            }
        }
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
            "2d6<=7 reroll ones",
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

    #[test]
    fn fraction_arithmetic() {
        assert_eq!(frac(2, 4), Fraction { num: 1, den: 2 });
        assert_eq!(frac(0, 7), Fraction::ZERO);
        assert_eq!(frac(5, 5), Fraction::ONE);
        assert_eq!(frac(1, 2).to_string(), "1/2");
        assert_eq!(Fraction::ZERO.to_string(), "0");
        assert_eq!(Fraction::ONE.to_string(), "1");
        assert_eq!(frac(1, 3).one_minus(), frac(2, 3));
        assert_eq!(Fraction::ZERO.one_minus(), Fraction::ONE);
        // 2/3 * 3/4 = 6/12 = 1/2, reduced by cross-cancelling.
        assert_eq!(frac(2, 3).mul(frac(3, 4)), frac(1, 2));
        assert_eq!(frac(2, 3).mul(Fraction::ZERO), Fraction::ZERO);
        assert_eq!(Fraction::ZERO.mul(frac(2, 3)), Fraction::ZERO);
        assert_eq!(frac(7, 12).mul(Fraction::ONE), frac(7, 12));
        assert_eq!(frac(1, 2) * frac(1, 3), frac(1, 6));
        assert_eq!(frac(1, 3).to_f64(), 1.0 / 3.0);
        assert_eq!(Fraction::ONE.to_f64(), 1.0);
        let tiny = frac(1, 1u128 << 100);
        assert_eq!(tiny.checked_mul(tiny), None);
        assert_eq!(
            tiny.checked_mul(frac(1, 2)),
            Some(Fraction {
                num: 1,
                den: 1 << 101
            })
        );
    }

    #[test]
    fn bernoulli_thresholds_are_exact() {
        assert_eq!(Bernoulli::new(frac(1, 2)).threshold, 1 << 63);
        // floor(2^64 / 3) and floor(2^65 / 3).
        assert_eq!(
            Bernoulli::new(frac(1, 3)).threshold,
            6_148_914_691_236_517_205
        );
        assert_eq!(
            Bernoulli::new(frac(2, 3)).threshold,
            12_297_829_382_473_034_410
        );
        assert_eq!(Bernoulli::new(Fraction::ZERO).threshold, 0);
        // Denominators above 2^127 must not overflow: 1 - 1/den rounds down to 2^64 - 1.
        let near_one = Fraction {
            num: u128::MAX - 1,
            den: u128::MAX,
        };
        let b = Bernoulli::new(near_one);
        assert_eq!((b.threshold, b.always), (u64::MAX, false));
        let half_big = Fraction {
            num: u128::MAX / 2,
            den: u128::MAX,
        };
        // (2^128 - 1)/2 rounded down over 2^128 - 1 is just under 1/2.
        assert_eq!(Bernoulli::new(half_big).threshold, (1 << 63) - 1);

        // Edges with chosen words, and exactly one word per call.
        let mut words = Words::new(&[0, u64::MAX, 1 << 63, (1 << 63) - 1]);
        let never = Bernoulli::new(Fraction::ZERO);
        let always = Bernoulli::new(Fraction::ONE);
        let half = Bernoulli::new(frac(1, 2));
        assert!(!never.sample(&mut words) && !never.sample(&mut words));
        assert!(always.sample(&mut words) && always.sample(&mut words));
        assert_eq!(words.drawn, 4);
        let got: Vec<bool> = (0..4).map(|_| half.sample(&mut words)).collect();
        assert_eq!(got, [true, false, false, true]);
        assert_eq!(words.drawn, 8);
    }

    #[test]
    fn bernoulli_frequencies() {
        let n = 1_000_000u32;
        for p in [
            frac(1, 2),
            frac(1, 3),
            frac(7, 12),
            frac(35, 48),
            frac(1, 1000),
        ] {
            let b = Bernoulli::new(p);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(2024);
            let hits = (0..n).filter(|_| b.sample(&mut rng)).count();
            let freq = hits as f64 / f64::from(n);
            let pf = p.to_f64();
            let se = (pf * (1.0 - pf) / f64::from(n)).sqrt();
            assert!((freq - pf).abs() < 5.0 * se, "p={p}: freq {freq}");
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        assert!((0..1000).all(|_| Bernoulli::new(Fraction::ONE).sample(&mut rng)));
        assert!((0..1000).all(|_| !Bernoulli::new(Fraction::ZERO).sample(&mut rng)));
    }

    /// C(m, k) p^k (1-p)^(m-k), straight from the definition.
    fn binomial_formula(m: u32, k: u32, p: f64) -> f64 {
        let c: f64 = (0..k)
            .map(|i| f64::from(m - i) / f64::from(i + 1))
            .product();
        c * p.powi(k as i32) * (1.0 - p).powi((m - k) as i32)
    }

    #[test]
    fn pmf_matches_binomial_formula() {
        for (m, p) in [(5, frac(1, 2)), (7, frac(1, 3)), (30, frac(35, 48))] {
            let sc = SuccessCount::new(m, p);
            assert_eq!(sc.trials(), m);
            assert_eq!(sc.pmf().len(), m as usize + 1);
            for (k, &x) in sc.pmf().iter().enumerate() {
                let want = binomial_formula(m, k as u32, p.to_f64());
                assert!((x - want).abs() < 1e-14, "m={m} p={p} k={k}: {x} vs {want}");
            }
        }
        // m=5, p=1/2: C(5,k)/32 exactly representable.
        let sc = SuccessCount::new(5, frac(1, 2));
        let exact = [1.0, 5.0, 10.0, 10.0, 5.0, 1.0].map(|c| c / 32.0);
        for (x, want) in sc.pmf().iter().zip(exact) {
            assert!((x - want).abs() < 1e-15);
        }
    }

    #[test]
    fn pmf_sums_to_one_for_large_m() {
        for m in [1000u32, 5000] {
            let sc = SuccessCount::new(m, frac(3, 4));
            let pmf = sc.pmf();
            let sum: f64 = pmf.iter().sum();
            assert!((sum - 1.0).abs() < 1e-12, "m={m}: sum {sum}");
            // Mean mp and variance mp(1-p) confirm the mass sits where it should.
            let mean: f64 = pmf.iter().enumerate().map(|(k, x)| k as f64 * x).sum();
            let var: f64 = pmf
                .iter()
                .enumerate()
                .map(|(k, x)| (k as f64 - mean).powi(2) * x)
                .sum();
            let m = f64::from(m);
            assert!((mean - 0.75 * m).abs() < 1e-9 * m, "mean {mean}");
            assert!((var - 0.1875 * m).abs() < 1e-8 * m, "var {var}");
            assert!(pmf.iter().all(|x| x.is_finite() && *x >= 0.0));
        }
        // Extreme odds: p = 1 - 2^-100 keeps its odds from the exact complement.
        let sc = SuccessCount::new(10, frac((1 << 100) - 1, 1 << 100));
        assert!((sc.pmf()[10] - 1.0).abs() < 1e-15);
        assert!((sc.pmf()[9] - 10.0 * 2f64.powi(-100)).abs() < 1e-40);
    }

    #[test]
    fn success_count_frequencies() {
        let n = 1_000_000u32;
        // 5 and 7 use the linear scan, 40 and 300 the binary search.
        for (m, p) in [
            (5, frac(1, 2)),
            (7, frac(1, 3)),
            (40, frac(3, 4)),
            (300, frac(1, 6)),
        ] {
            let sc = SuccessCount::new(m, p);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(99);
            let mut counts = vec![0u32; m as usize + 1];
            for _ in 0..n {
                counts[sc.sample(&mut rng) as usize] += 1;
            }
            let n = f64::from(n);
            for (k, (&c, &q)) in counts.iter().zip(sc.pmf()).enumerate() {
                let freq = f64::from(c) / n;
                // The 1/n floor keeps bins expected to be (nearly) empty from failing on a
                // single hit: a Poisson count is discrete, its normal approximation is not.
                let se = (q * (1.0 - q)).max(1.0 / n).sqrt() / n.sqrt();
                assert!(
                    (freq - q).abs() < 5.0 * se,
                    "m={m} p={p} k={k}: {freq} vs {q}"
                );
            }
        }
    }

    #[test]
    fn success_count_edges() {
        // m = 0: always 0, still one word per draw.
        let sc = SuccessCount::new(0, frac(1, 2));
        assert_eq!(sc.pmf(), &[1.0]);
        let mut words = Words::new(&[0, u64::MAX]);
        assert_eq!((sc.sample(&mut words), sc.sample(&mut words)), (0, 0));
        assert_eq!(words.drawn, 2);
        // p = 0: never a success, even on the largest word.
        let sc = SuccessCount::new(12, Fraction::ZERO);
        assert_eq!(sc.pmf()[0], 1.0);
        assert_eq!(sc.sample(&mut words), 0);
        assert_eq!(sc.sample(&mut words), 0);
        // p = 1: always all, even on word 0; on both search paths.
        for m in [12, 100] {
            let sc = SuccessCount::new(m, Fraction::ONE);
            assert_eq!(sc.pmf()[m as usize], 1.0);
            assert_eq!(sc.sample(&mut words), m);
            assert_eq!(sc.sample(&mut words), m);
        }
        assert_eq!(words.drawn, 8);
        // Extreme words on an ordinary table hit both ends of the support.
        let sc = SuccessCount::new(5, frac(1, 2));
        assert_eq!(sc.sample(&mut Words::new(&[0])), 0);
        assert_eq!(sc.sample(&mut Words::new(&[u64::MAX])), 5);
        // P(X=0) = 1/32 exactly: thresholds[0] = 2^59, the boundary word goes to 1.
        assert_eq!(sc.thresholds[0], 1 << 59);
        assert_eq!(sc.sample(&mut Words::new(&[(1 << 59) - 1])), 0);
        assert_eq!(sc.sample(&mut Words::new(&[1 << 59])), 1);
    }

    #[test]
    fn linear_scan_and_binary_search_agree() {
        let sc = SuccessCount::new(60, frac(2, 5));
        assert!(sc.thresholds.windows(2).all(|w| w[0] <= w[1]));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        for _ in 0..100_000 {
            let u = rng.next_u64();
            let linear = sc.thresholds.iter().take_while(|&&t| t <= u).count();
            let binary = sc.thresholds.partition_point(|&t| t <= u);
            assert_eq!(linear, binary);
            assert_eq!(sc.sample(&mut Words::new(&[u])), linear as u32);
        }
    }

    #[test]
    fn the_guide_table_draws_what_the_thresholds_draw() {
        // The byte guide is a shortcut; every word must draw the same count through it as
        // through the thresholds, boundary words included.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(77);
        for (m, num, den) in [
            (5u32, 1u128, 2u128),
            (7, 1, 3),
            (40, 5, 9),
            (0, 1, 2),
            (3, 1, 1),
        ] {
            let table = SuccessCount::new(m, Fraction::new(num, den));
            let mut words: Vec<u64> = (0..20_000).map(|_| rng.next_u64()).collect();
            for &t in &table.thresholds {
                words.extend([t.wrapping_sub(1), t, t.wrapping_add(1)]);
            }
            words.extend((0..=255u64).flat_map(|b| [b << 56, (b << 56) | ((1 << 56) - 1)]));
            for u in words {
                assert_eq!(table.count_for(u), table.scan(u), "m = {m}, word {u:#x}");
            }
        }
    }
}
