//! Order conditions and derived metrics: the `when` text of a unit's order (`missing * 2 >=
//! size and not enemy_within(1)`) and the expression of a `[metrics]` entry (`blue.alive -
//! red.alive`), parsed once at load into a small typed tree and evaluated at each activation
//! (a condition, against a [`Situation`]) or once per trial (an [`Expression`], against the
//! trial's metric values).
//!
//! [`Condition::parse`] and [`Expression::parse`] read the text; [`Condition::holds`] and
//! [`Expression::value`] answer it; [`ConditionError`] says what is wrong with bad text, with
//! a caret under the place. The grammar, loosest first:
//!
//! ```text
//! condition  = and ("or" and)*
//! and        = not ("and" not)*
//! not        = "not" not | comparison
//! comparison = sum [("<" | "<=" | ">" | ">=" | "==" | "!=") sum]
//! sum        = product (("+" | "-") product)*
//! product    = unary ("*" unary)*
//! unary      = "-" unary | primary
//! primary    = NUMBER | NAME | "enemy_within" "(" NUMBER ")"
//!            | ("min" | "max") "(" condition "," condition ")" | "abs" "(" condition ")"
//!            | "(" condition ")"
//! ```
//!
//! There are two types, a count (a whole number) and a truth. In a condition they are checked
//! while parsing, so a condition that loads can always be evaluated: a count is `alive`,
//! `missing`, `size`, `round`, `damaged`, a whole number, or arithmetic of counts; a truth is
//! `in_range`, `enemy_within(D)`, a comparison of two counts, or `and`/`or`/`not` of truths,
//! and the whole condition is a truth. In an expression the names are the trial's metrics, and
//! the two types convert as a designer expects: a count is true when it is not 0, a truth is
//! the count 1 or 0 (`blue.won and engagement.rounds <= 3` is 1 or 0 per trial).
//!
//! No value wraps. Arithmetic is checked; a condition is refused at load when some value of
//! its counts (each at most [`COUNT_MAX`]) could take it past the range of `i64`, so a
//! condition that loads never overflows. A metric's values have no bound the parser knows, so
//! [`Expression::value`] says `None` when a trial's arithmetic overflows and the caller stops
//! the run naming the metric.
//!
//! The parser is written by hand (recursive descent over a lazy tokenizer) rather than
//! generated or taken from a crate: the grammar is a handful of rules, and owning each step is
//! what lets every error point at the exact span, explain itself in the game's terms (`alive`
//! is a number: compare it) and recognise habits from other languages (`&&`, `=`, `AND`).
//! Tokens are read on demand, so the first error from the left is the one reported.
//!
//! Evaluation walks the tree and allocates nothing. `and`, `or`, sums and products are n-ary
//! nodes (a chain `a and b and c` is one node), which keeps the tree shallow however long the
//! chain; parentheses, `not`, unary `-` and function calls are what deepen it, and they are
//! limited to [`MAX_DEPTH`], so no input can overflow the stack while parsing, evaluating,
//! printing or dropping a tree.

use crate::config::suggest::{distance, nearest};
use std::fmt;
use std::str::FromStr;

pub mod derived;

/// How deeply parentheses, `not`, unary `-` and function calls may nest.
pub const MAX_DEPTH: usize = 64;

/// The largest value a count of a [`Situation`] takes: the scenario limits keep `size` (and so
/// `alive` and `missing`) at most 100,000, `round` at most 1,000 and a model's HP (so
/// `damaged`) at most 1,000,000. Conditions are checked for overflow against it.
pub const COUNT_MAX: u32 = 1_000_000;

/// The most characters of a condition an error message quotes; longer text is shown as a
/// window around the error.
const QUOTE_WIDTH: usize = 80;

/// The names a condition may use, as error messages list them.
const ALLOWED: &str =
    "alive, missing, size, round, damaged, enemy_within(D), in_range, min(a, b), max(a, b), abs(a)";

/// The functions both dialects know, with how many arguments each takes.
const FUNCTIONS: [(&str, usize); 3] = [("min", 2), ("max", 2), ("abs", 1)];

/// Words that cannot name a derived metric: the keywords and the functions.
pub const RESERVED: [&str; 6] = ["and", "or", "not", "min", "max", "abs"];

/// What a condition asks of the unit whose order it guards, and of the table around it.
///
/// The methods take `&mut self` so an implementation may compute an answer only when a
/// condition asks for it and keep it for the rest of the activation.
pub trait Situation {
    /// Models of the unit on the table.
    fn alive(&mut self) -> u32;
    /// Models the unit started with.
    fn size(&mut self) -> u32;
    /// The current round, counting from 1.
    fn round(&mut self) -> u32;
    /// Hit points missing on the unit's damaged model, or 0 if no model is damaged.
    fn damaged(&mut self) -> u32;
    /// Whether some enemy model is within `inches` of a model of the unit.
    fn enemy_within(&mut self, inches: f64) -> bool;
    /// Whether some enemy unit can be shot by the unit.
    fn in_range(&mut self) -> bool;
}

/// A parsed and type-checked order condition.
///
/// Two conditions are equal when their trees are: `(a and b) and c` equals `a and b and c`,
/// whatever the spacing of the text they came from. [`fmt::Display`] gives the canonical text
/// (single spaces, no redundant parentheses), which parses back to an equal condition;
/// [`Condition::text`] gives the text as written.
#[derive(Clone, Debug)]
pub struct Condition {
    text: String,
    tree: Truth,
}

/// A parsed derived-metric expression: a whole number per trial, computed from the trial's
/// metric values, named by their index in the list [`Expression::parse`] was given.
#[derive(Clone, Debug)]
pub struct Expression {
    text: String,
    tree: Count,
}

/// A truth-valued node.
#[derive(Clone, Debug, PartialEq)]
enum Truth {
    /// All of at least two operands, none itself an `All`.
    All(Box<[Truth]>),
    /// Any of at least two operands, none itself an `Any`.
    Any(Box<[Truth]>),
    Not(Box<Truth>),
    Compare(Count, Comparison, Count),
    EnemyWithin(f64),
    InRange,
    /// A count read as a truth (expressions only): true when not 0.
    NonZero(Count),
}

/// A count-valued node.
#[derive(Clone, Debug, PartialEq)]
enum Count {
    Alive,
    Missing,
    Size,
    Round,
    Damaged,
    /// Written without a sign; `-3` is `Neg(Literal(3))`.
    Literal(i64),
    /// A metric of the trial (expressions only): its index in the names given, and its name.
    Metric(u32, Box<str>),
    /// At least two terms added or subtracted left to right; the first is added.
    Sum(Box<[(Sign, Count)]>),
    /// At least two factors multiplied left to right.
    Product(Box<[Count]>),
    Neg(Box<Count>),
    Min(Box<[Count; 2]>),
    Max(Box<[Count; 2]>),
    Abs(Box<Count>),
    /// A truth read as a count (expressions only): 1 or 0.
    Of(Box<Truth>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sign {
    Plus,
    Minus,
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Comparison {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// What evaluation reads: a situation's counts and geometry, or a trial's metrics.
trait Env {
    /// The value of a named count (`Alive` to `Damaged`).
    fn count(&mut self, name: &Count) -> i64;
    fn metric(&mut self, index: u32) -> i64;
    fn enemy_within(&mut self, inches: f64) -> bool;
    fn in_range(&mut self) -> bool;
}

/// A situation as an [`Env`]; it has no metrics (conditions name none).
struct Asked<'s, S: ?Sized>(&'s mut S);

impl<S: Situation + ?Sized> Env for Asked<'_, S> {
    fn count(&mut self, name: &Count) -> i64 {
        let s = &mut *self.0;
        i64::from(match name {
            Count::Alive => s.alive(),
            // A unit never has more models than it started with; saturate anyway so a
            // misbehaving situation cannot make a condition panic.
            Count::Missing => {
                let size = s.size();
                size.saturating_sub(s.alive())
            }
            Count::Size => s.size(),
            Count::Round => s.round(),
            Count::Damaged => s.damaged(),
            _ => 0,
        })
    }
    fn metric(&mut self, _: u32) -> i64 {
        0
    }
    fn enemy_within(&mut self, inches: f64) -> bool {
        self.0.enemy_within(inches)
    }
    fn in_range(&mut self) -> bool {
        self.0.in_range()
    }
}

/// A trial's metrics as an [`Env`]; it has no situation (expressions name none).
struct Metrics<F>(F);

impl<F: FnMut(usize) -> i64> Env for Metrics<F> {
    fn count(&mut self, _: &Count) -> i64 {
        0
    }
    fn metric(&mut self, index: u32) -> i64 {
        (self.0)(index as usize)
    }
    fn enemy_within(&mut self, _: f64) -> bool {
        false
    }
    fn in_range(&mut self) -> bool {
        false
    }
}

impl Condition {
    /// Parses and type-checks a condition (see the module documentation for the grammar).
    ///
    /// Names and keywords are lower case; whitespace may separate any two tokens. Counts are
    /// compared with whole numbers up to `u32::MAX`; the distance of `enemy_within` is a
    /// non-negative number of inches, decimals allowed. Arithmetic that some counts up to
    /// [`COUNT_MAX`] could take past the range of `i64` is refused.
    ///
    /// ```
    /// use rollcall::condition::Condition;
    /// let c = Condition::parse("missing*2>=size and not(enemy_within(1.5))").unwrap();
    /// assert_eq!(c.to_string(), "missing * 2 >= size and not enemy_within(1.5)");
    /// let e = Condition::parse("alive and in_range").unwrap_err();
    /// assert_eq!((e.offset, e.len), (0, 5));
    /// ```
    pub fn parse(text: &str) -> Result<Condition, ConditionError> {
        let fail = |(offset, len, message)| ConditionError {
            text: text.to_string(),
            offset,
            len,
            message,
            kind: "condition",
        };
        let mut parser = Parser::new(text, None).map_err(fail)?;
        let tree = parser.condition().map_err(fail)?;
        Ok(Condition {
            text: text.to_string(),
            tree,
        })
    }

    /// The text the condition was parsed from, as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the condition holds in `situation`.
    ///
    /// Operands are evaluated left to right, and `and` and `or` stop at the first operand that
    /// decides them, so a situation is asked only what the answer depends on: put cheap tests
    /// (counts) before geometric ones (`enemy_within`, `in_range`) to spare the geometry.
    /// Allocates nothing. `S` may be unsized, so a `&mut dyn Situation` works too.
    pub fn holds<S: Situation + ?Sized>(&self, situation: &mut S) -> bool {
        // Parsing refused every condition whose arithmetic could overflow with counts up to
        // COUNT_MAX, so `None` needs a situation beyond the scenario limits; it reads as false
        // rather than as a wrapped number.
        self.tree.holds(&mut Asked(situation)).unwrap_or(false)
    }
}

impl Expression {
    /// Parses a derived metric's expression over the metrics `names` (see the module
    /// documentation for the grammar). A metric is named as the tables name it; a name with a
    /// `-` in it is read whole when it is a metric, so write spaces around a subtraction.
    ///
    /// ```
    /// use rollcall::condition::Expression;
    /// let names = ["blue.alive", "red.alive", "blue.won"];
    /// let e = Expression::parse("max(0, blue.alive-red.alive) * 2", &names).unwrap();
    /// assert_eq!(e.to_string(), "max(0, blue.alive - red.alive) * 2");
    /// assert_eq!(e.value(|i| [7, 3, 1][i]), Some(8));
    /// assert_eq!(e.inputs(), [0, 1]);
    /// let won = Expression::parse("blue.won and red.alive <= 3", &names).unwrap();
    /// assert_eq!(won.value(|i| [7, 3, 1][i]), Some(1));
    /// let e = Expression::parse("blue.alvie", &names).unwrap_err();
    /// assert!(e.message.contains("did you mean `blue.alive`?"));
    /// ```
    pub fn parse(text: &str, names: &[&str]) -> Result<Expression, ConditionError> {
        let fail = |(offset, len, message)| ConditionError {
            text: text.to_string(),
            offset,
            len,
            message,
            kind: "expression",
        };
        let mut parser = Parser::new(text, Some(names)).map_err(fail)?;
        let tree = parser.expression().map_err(fail)?;
        Ok(Expression {
            text: text.to_string(),
            tree,
        })
    }

    /// The text the expression was parsed from, as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The value for a trial whose metric `i` (an index into the names given to
    /// [`Expression::parse`]) is `metric(i)`, or `None` when the arithmetic overflows `i64`.
    /// `and` and `or` stop at the first operand that decides them. Allocates nothing.
    pub fn value(&self, metric: impl FnMut(usize) -> i64) -> Option<i64> {
        self.tree.value(&mut Metrics(metric))
    }

    /// The indices of the metrics the expression reads, ascending, each once.
    pub fn inputs(&self) -> Vec<usize> {
        let mut out = Vec::new();
        self.tree.metrics(&mut out);
        out.sort_unstable();
        out.dedup();
        out
    }
}

impl PartialEq for Condition {
    fn eq(&self, other: &Condition) -> bool {
        self.tree == other.tree
    }
}

impl PartialEq for Expression {
    fn eq(&self, other: &Expression) -> bool {
        self.tree == other.tree
    }
}

impl FromStr for Condition {
    type Err = ConditionError;

    fn from_str(s: &str) -> Result<Condition, ConditionError> {
        Condition::parse(s)
    }
}

impl fmt::Display for Condition {
    /// The canonical text: single spaces around operators, parentheses only where needed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.tree)
    }
}

impl fmt::Display for Expression {
    /// The canonical text, as for a condition.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.tree {
            Count::Of(t) => write!(f, "{t}"),
            c => write!(f, "{c}"),
        }
    }
}

impl Truth {
    /// Whether the truth holds, or `None` when arithmetic in it overflows.
    fn holds<E: Env + ?Sized>(&self, e: &mut E) -> Option<bool> {
        Some(match self {
            Truth::All(xs) => {
                for x in xs.iter() {
                    if !x.holds(e)? {
                        return Some(false);
                    }
                }
                true
            }
            Truth::Any(xs) => {
                for x in xs.iter() {
                    if x.holds(e)? {
                        return Some(true);
                    }
                }
                false
            }
            Truth::Not(x) => !x.holds(e)?,
            Truth::Compare(a, op, b) => {
                let a = a.value(e)?;
                op.holds(a, b.value(e)?)
            }
            Truth::EnemyWithin(d) => e.enemy_within(*d),
            Truth::InRange => e.in_range(),
            Truth::NonZero(c) => c.value(e)? != 0,
        })
    }

    /// Joins `parts` with `and` (`all`) or `or`, flattening operands of the same kind so the
    /// tree stays canonical and shallow.
    fn join(all: bool, parts: Vec<Truth>) -> Truth {
        let mut flat = Vec::with_capacity(parts.len());
        for part in parts {
            match part {
                Truth::All(xs) if all => flat.extend(xs.into_vec()),
                Truth::Any(xs) if !all => flat.extend(xs.into_vec()),
                other => flat.push(other),
            }
        }
        if all {
            Truth::All(flat.into_boxed_slice())
        } else {
            Truth::Any(flat.into_boxed_slice())
        }
    }

    fn metrics(&self, out: &mut Vec<usize>) {
        match self {
            Truth::All(xs) | Truth::Any(xs) => xs.iter().for_each(|x| x.metrics(out)),
            Truth::Not(x) => x.metrics(out),
            Truth::Compare(a, _, b) => {
                a.metrics(out);
                b.metrics(out);
            }
            Truth::NonZero(c) => c.metrics(out),
            Truth::EnemyWithin(_) | Truth::InRange => {}
        }
    }
}

impl Count {
    /// The value, or `None` when the arithmetic overflows `i64`.
    fn value<E: Env + ?Sized>(&self, e: &mut E) -> Option<i64> {
        match self {
            Count::Alive | Count::Missing | Count::Size | Count::Round | Count::Damaged => {
                Some(e.count(self))
            }
            Count::Literal(n) => Some(*n),
            Count::Metric(i, _) => Some(e.metric(*i)),
            Count::Sum(terms) => {
                let mut total = 0i64;
                for (sign, t) in terms.iter() {
                    let v = t.value(e)?;
                    total = match sign {
                        Sign::Plus => total.checked_add(v)?,
                        Sign::Minus => total.checked_sub(v)?,
                    };
                }
                Some(total)
            }
            Count::Product(factors) => {
                let mut product = 1i64;
                for x in factors.iter() {
                    product = product.checked_mul(x.value(e)?)?;
                }
                Some(product)
            }
            Count::Neg(x) => x.value(e)?.checked_neg(),
            Count::Min(xs) => {
                let a = xs[0].value(e)?;
                Some(a.min(xs[1].value(e)?))
            }
            Count::Max(xs) => {
                let a = xs[0].value(e)?;
                Some(a.max(xs[1].value(e)?))
            }
            Count::Abs(x) => x.value(e)?.checked_abs(),
            Count::Of(t) => Some(i64::from(t.holds(e)?)),
        }
    }

    /// The smallest and largest values the count can take when every named count lies in
    /// 0..=[`COUNT_MAX`], or `None` when some step of its evaluation could leave `i64`.
    /// Metrics have no known bound and are never asked here (conditions name none).
    fn range(&self) -> Option<(i64, i64)> {
        let fits = |lo: i128, hi: i128| Some((i64::try_from(lo).ok()?, i64::try_from(hi).ok()?));
        match self {
            Count::Alive | Count::Missing | Count::Size | Count::Round | Count::Damaged => {
                Some((0, i64::from(COUNT_MAX)))
            }
            Count::Literal(n) => Some((*n, *n)),
            Count::Metric(..) => Some((i64::MIN, i64::MAX)),
            Count::Sum(terms) => {
                // Every partial sum is checked, as evaluation adds left to right.
                let (mut lo, mut hi) = (0i128, 0i128);
                for (sign, t) in terms.iter() {
                    let (a, b) = t.range()?;
                    (lo, hi) = match sign {
                        Sign::Plus => (lo + i128::from(a), hi + i128::from(b)),
                        Sign::Minus => (lo - i128::from(b), hi - i128::from(a)),
                    };
                    fits(lo, hi)?;
                }
                fits(lo, hi)
            }
            Count::Product(factors) => {
                let (mut lo, mut hi) = (1i64, 1i64);
                for x in factors.iter() {
                    let (a, b) = x.range()?;
                    let corners = [lo, hi]
                        .into_iter()
                        .flat_map(|p| [a, b].map(|q| i128::from(p) * i128::from(q)));
                    let (l, h) =
                        corners.fold((i128::MAX, i128::MIN), |(l, h), v| (l.min(v), h.max(v)));
                    (lo, hi) = fits(l, h)?;
                }
                Some((lo, hi))
            }
            Count::Neg(x) => {
                let (a, b) = x.range()?;
                fits(-i128::from(b), -i128::from(a))
            }
            Count::Min(xs) | Count::Max(xs) => {
                let (a, b) = xs[0].range()?;
                let (c, d) = xs[1].range()?;
                Some(if matches!(self, Count::Min(_)) {
                    (a.min(c), b.min(d))
                } else {
                    (a.max(c), b.max(d))
                })
            }
            Count::Abs(x) => {
                let (a, b) = x.range()?;
                let (a, b) = (i128::from(a), i128::from(b));
                if a >= 0 {
                    fits(a, b)
                } else if b <= 0 {
                    fits(-b, -a)
                } else {
                    fits(0, (-a).max(b))
                }
            }
            Count::Of(_) => Some((0, 1)),
        }
    }

    fn metrics(&self, out: &mut Vec<usize>) {
        match self {
            Count::Metric(i, _) => out.push(*i as usize),
            Count::Sum(terms) => terms.iter().for_each(|(_, t)| t.metrics(out)),
            Count::Product(xs) => xs.iter().for_each(|x| x.metrics(out)),
            Count::Min(xs) | Count::Max(xs) => xs.iter().for_each(|x| x.metrics(out)),
            Count::Neg(x) | Count::Abs(x) => x.metrics(out),
            Count::Of(t) => t.metrics(out),
            Count::Alive
            | Count::Missing
            | Count::Size
            | Count::Round
            | Count::Damaged
            | Count::Literal(_) => {}
        }
    }

    fn from_name(name: &str) -> Option<Count> {
        Some(match name {
            "alive" => Count::Alive,
            "missing" => Count::Missing,
            "size" => Count::Size,
            "round" => Count::Round,
            "damaged" => Count::Damaged,
            _ => return None,
        })
    }

    /// How tightly the count's text binds: an operand of a looser operator needs no
    /// parentheses, one of a tighter operator does.
    fn binding(&self) -> u8 {
        match self {
            Count::Of(_) => 0,
            Count::Sum(_) => 1,
            Count::Product(_) => 2,
            Count::Neg(_) => 3,
            _ => 4,
        }
    }

    /// Writes the count, in parentheses when it binds less tightly than `at_least`.
    fn write(&self, f: &mut fmt::Formatter<'_>, at_least: u8) -> fmt::Result {
        if self.binding() < at_least {
            write!(f, "({self})")
        } else {
            write!(f, "{self}")
        }
    }
}

impl Comparison {
    fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Comparison::Lt => a < b,
            Comparison::Le => a <= b,
            Comparison::Gt => a > b,
            Comparison::Ge => a >= b,
            Comparison::Eq => a == b,
            Comparison::Ne => a != b,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            Comparison::Lt => "<",
            Comparison::Le => "<=",
            Comparison::Gt => ">",
            Comparison::Ge => ">=",
            Comparison::Eq => "==",
            Comparison::Ne => "!=",
        }
    }
}

impl fmt::Display for Truth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Truth::All(xs) | Truth::Any(xs) => {
                let all = matches!(self, Truth::All(_));
                for (i, x) in xs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(if all { " and " } else { " or " })?;
                    }
                    // `and` binds tighter than `or`, so only an `or` inside an `and` needs
                    // parentheses.
                    if all && matches!(x, Truth::Any(_)) {
                        write!(f, "({x})")?;
                    } else {
                        write!(f, "{x}")?;
                    }
                }
                Ok(())
            }
            Truth::Not(x) => match **x {
                Truth::All(_) | Truth::Any(_) => write!(f, "not ({x})"),
                _ => write!(f, "not {x}"),
            },
            Truth::Compare(a, op, b) => {
                a.write(f, 1)?;
                write!(f, " {} ", op.symbol())?;
                b.write(f, 1)
            }
            // `f64`'s Display is the shortest text that reads back to the same value, and
            // never uses an exponent, so it parses back exactly.
            Truth::EnemyWithin(d) => write!(f, "enemy_within({d})"),
            Truth::InRange => f.write_str("in_range"),
            Truth::NonZero(c) => c.write(f, 1),
        }
    }
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Count::Alive => f.write_str("alive"),
            Count::Missing => f.write_str("missing"),
            Count::Size => f.write_str("size"),
            Count::Round => f.write_str("round"),
            Count::Damaged => f.write_str("damaged"),
            Count::Literal(n) => write!(f, "{n}"),
            Count::Metric(_, name) => f.write_str(name),
            Count::Sum(terms) => {
                for (i, (sign, t)) in terms.iter().enumerate() {
                    match (i, sign) {
                        (0, _) => {}
                        (_, Sign::Plus) => f.write_str(" + ")?,
                        (_, Sign::Minus) => f.write_str(" - ")?,
                    }
                    t.write(f, 2)?;
                }
                Ok(())
            }
            Count::Product(xs) => {
                for (i, x) in xs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" * ")?;
                    }
                    x.write(f, 3)?;
                }
                Ok(())
            }
            Count::Neg(x) => {
                f.write_str("-")?;
                x.write(f, 3)
            }
            // A function's arguments are written bare: a truth needs no parentheses there.
            Count::Min(xs) => write!(f, "min({}, {})", xs[0], xs[1]),
            Count::Max(xs) => write!(f, "max({}, {})", xs[0], xs[1]),
            Count::Abs(x) => write!(f, "abs({x})"),
            Count::Of(t) => write!(f, "{t}"),
        }
    }
}

/// A condition's or an expression's text could not be understood.
///
/// `offset` and `len` give the offending span in bytes of `text` (`len` is 0 at the end of
/// the text). [`fmt::Display`] writes a header line, then the text (a window of it, if long)
/// and a caret line under the span followed by the message, so a loader can prefix the file
/// and key before it: ``file.toml: key `unit.blue.orders[0].when`: {error}``.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionError {
    /// The condition as written.
    pub text: String,
    /// Byte offset of the offending span in `text`.
    pub offset: usize,
    /// Byte length of the offending span.
    pub len: usize,
    /// What is wrong and how to put it right.
    pub message: String,
    /// What the text is, for the header line: "condition" or "expression".
    pub kind: &'static str,
}

impl std::error::Error for ConditionError {}

impl fmt::Display for ConditionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Positions are counted in chars so carets line up under non-ASCII text; offsets from
        // outside the parser are clamped rather than trusted.
        let chars: Vec<char> = self.text.chars().collect();
        let before = self
            .text
            .get(..self.offset)
            .map_or(chars.len(), |s| s.chars().count());
        let span = self
            .text
            .get(self.offset..self.offset.saturating_add(self.len))
            .map_or(0, |s| s.chars().count());
        let (from, to) = if chars.len() <= QUOTE_WIDTH {
            (0, chars.len())
        } else {
            let from = before.saturating_sub(QUOTE_WIDTH / 3);
            let to = (from + QUOTE_WIDTH).min(chars.len());
            (to.saturating_sub(QUOTE_WIDTH), to)
        };
        let mut line = String::new();
        let mut lead = 0;
        if from > 0 {
            line.push_str("...");
            lead = 3;
        }
        // Control characters (a tab, a newline) would break the alignment or the line.
        line.extend(
            chars[from..to]
                .iter()
                .map(|&c| if c.is_control() { ' ' } else { c }),
        );
        if to < chars.len() {
            line.push_str("...");
        }
        let col = lead + before.clamp(from, to) - from;
        let width = span.min(to.saturating_sub(before)).max(1);
        writeln!(f, "bad {}:", self.kind)?;
        writeln!(f, "    {line}")?;
        write!(
            f,
            "    {}{} {}",
            " ".repeat(col),
            "^".repeat(width),
            self.message
        )
    }
}

/// An error before it is attached to its text: byte offset, byte length, message.
type Problem = (usize, usize, String);

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok {
    /// Digits with an optional fraction; the text is read again where the kind of number
    /// (count or distance) is known.
    Number,
    Name,
    Open,
    Close,
    Cmp(Comparison),
    Plus,
    Minus,
    Star,
    Comma,
    And,
    Or,
    Not,
    End,
}

#[derive(Clone, Copy, Debug)]
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
}

/// A parsed operand with its span, before its type is checked against its use.
struct Operand {
    value: Value,
    start: usize,
    end: usize,
}

enum Value {
    Count(Count),
    Truth(Truth),
}

struct Parser<'t> {
    text: &'t str,
    /// Byte offset of the next unread character.
    pos: usize,
    /// The token under consideration.
    tok: Token,
    /// The last token consumed, for "expected ... after `x`" messages.
    prev: Option<Token>,
    /// Open parentheses, `not`s, `-`s and calls around the current position.
    depth: usize,
    /// The metrics an expression may name; `None` for a condition.
    metrics: Option<&'t [&'t str]>,
}

impl<'t> Parser<'t> {
    fn new(text: &'t str, metrics: Option<&'t [&'t str]>) -> Result<Parser<'t>, Problem> {
        let mut p = Parser {
            text,
            metrics,
            pos: 0,
            tok: Token {
                tok: Tok::End,
                start: 0,
                end: 0,
            },
            prev: None,
            depth: 0,
        };
        p.tok = p.lex()?;
        Ok(p)
    }

    fn slice(&self, t: Token) -> &'t str {
        &self.text[t.start..t.end]
    }

    fn advance(&mut self) -> Result<Token, Problem> {
        let t = self.tok;
        self.prev = Some(t);
        self.tok = self.lex()?;
        Ok(t)
    }

    /// Reads the next token, or says why the characters there are not one.
    fn lex(&mut self) -> Result<Token, Problem> {
        let text = self.text;
        let rest = &text[self.pos..];
        let trimmed = rest.trim_start();
        let start = text.len() - trimmed.len();
        let mut chars = trimmed.chars();
        let Some(c) = chars.next() else {
            self.pos = text.len();
            return Ok(Token {
                tok: Tok::End,
                start: text.len(),
                end: text.len(),
            });
        };
        let next = chars.next();
        let token = |tok, len: usize| Token {
            tok,
            start,
            end: start + len,
        };
        let bad = |len: usize, message: String| Err((start, len, message));
        let t = match (c, next) {
            ('(', _) => token(Tok::Open, 1),
            (')', _) => token(Tok::Close, 1),
            ('<', Some('=')) => token(Tok::Cmp(Comparison::Le), 2),
            ('<', Some('>')) => {
                return bad(2, "`<>` is not an operator: did you mean `!=`?".into())
            }
            ('<', _) => token(Tok::Cmp(Comparison::Lt), 1),
            ('>', Some('=')) => token(Tok::Cmp(Comparison::Ge), 2),
            ('>', _) => token(Tok::Cmp(Comparison::Gt), 1),
            ('=', Some('=')) => token(Tok::Cmp(Comparison::Eq), 2),
            ('=', Some('<')) => {
                return bad(2, "`=<` is not an operator: did you mean `<=`?".into())
            }
            ('=', Some('>')) => {
                return bad(2, "`=>` is not an operator: did you mean `>=`?".into())
            }
            ('=', _) => return bad(1, "`=` is not a comparison: did you mean `==`?".into()),
            ('!', Some('=')) => token(Tok::Cmp(Comparison::Ne), 2),
            ('!', _) => return bad(1, "`!` is not an operator: did you mean `not`?".into()),
            ('&', Some('&')) => {
                return bad(2, "`&&` is not an operator: did you mean `and`?".into())
            }
            ('&', _) => return bad(1, "`&` is not an operator: did you mean `and`?".into()),
            ('|', Some('|')) => {
                return bad(2, "`||` is not an operator: did you mean `or`?".into())
            }
            ('|', _) => return bad(1, "`|` is not an operator: did you mean `or`?".into()),
            ('+', _) => token(Tok::Plus, 1),
            ('-', _) => token(Tok::Minus, 1),
            ('*', _) => token(Tok::Star, 1),
            (',', _) => token(Tok::Comma, 1),
            ('/', _) => {
                return bad(
                    1,
                    "there is no division: a mean of ratios is not a ratio of means; derive \
                     the numerator and the denominator as two metrics and divide their means"
                        .into(),
                )
            }
            ('.', Some(d)) if d.is_ascii_digit() => {
                let digits = digits_len(&trimmed[1..]);
                return bad(
                    1 + digits,
                    format!(
                        "a number starts with a digit: write `0{}`",
                        &trimmed[..1 + digits]
                    ),
                );
            }
            ('"', _) if self.prev_is_number_ending_at(start) => {
                return bad(
                    1,
                    "distances are in inches already: drop the `\"`, e.g. `enemy_within(1)`".into(),
                )
            }
            (d, _) if d.is_ascii_digit() && self.digits_start_a_name(trimmed) => {
                token(Tok::Name, self.name_len(trimmed))
            }
            (d, _) if d.is_ascii_digit() => {
                let whole = digits_len(trimmed);
                let after = &trimmed[whole..];
                let len = if let Some(fraction) = after.strip_prefix('.') {
                    let digits = digits_len(fraction);
                    if digits == 0 {
                        return bad(
                            whole + 1,
                            format!(
                                "a number cannot end with `.`: write `{}` or `{}.5`",
                                &trimmed[..whole],
                                &trimmed[..whole]
                            ),
                        );
                    }
                    whole + 1 + digits
                } else {
                    whole
                };
                token(Tok::Number, len)
            }
            (a, _) if a.is_alphabetic() || a == '_' => {
                let len = self.name_len(trimmed);
                let tok = match &trimmed[..len] {
                    "and" => Tok::And,
                    "or" => Tok::Or,
                    "not" => Tok::Not,
                    _ => Tok::Name,
                };
                token(tok, len)
            }
            (other, _) => return bad(other.len_utf8(), format!("unexpected character {other:?}")),
        };
        self.pos = t.end;
        Ok(t)
    }

    /// The length of the name at the start of `rest`: letters, digits and `_`, and in an
    /// expression also `.` (metrics are `unit.alive`) and `-` where the name with it is a
    /// metric (ids may hold a `-`; `a-b` is a subtraction unless `a-b` is a metric).
    fn name_len(&self, rest: &str) -> usize {
        let dotted = self.metrics.is_some();
        let word = |c: char| c.is_alphanumeric() || c == '_' || (dotted && c == '.');
        let plain = rest.find(|c| !word(c)).unwrap_or(rest.len());
        let Some(metrics) = self.metrics else {
            return plain;
        };
        let hyphened = rest
            .find(|c: char| !(word(c) || c == '-'))
            .unwrap_or(rest.len());
        (plain + 1..=hyphened)
            .rev()
            .filter(|&end| rest.is_char_boundary(end))
            .find(|&end| metrics.contains(&&rest[..end]))
            .unwrap_or(plain)
    }

    /// Whether digits at the start of `rest` begin a metric's name in an expression
    /// (`3rd.alive`, for a unit whose id starts with a digit) rather than a number.
    fn digits_start_a_name(&self, rest: &str) -> bool {
        self.metrics.is_some()
            && rest[digits_len(rest)..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
    }

    /// Whether the token just read (the current one, while lexing its successor) is a
    /// number ending right at `at`: `1"` is a distance written with an inch mark.
    fn prev_is_number_ending_at(&self, at: usize) -> bool {
        self.tok.tok == Tok::Number && self.tok.end == at
    }

    /// `condition = and ("or" and)*`, then the end of the text; the result must be a truth.
    fn condition(&mut self) -> Result<Truth, Problem> {
        if self.tok.tok == Tok::End {
            return Err((
                0,
                self.text.len(),
                "empty condition: write one such as `missing >= 3 and not enemy_within(1)`".into(),
            ));
        }
        let whole = self.or()?;
        if self.tok.tok != Tok::End {
            return Err(self.junk(false));
        }
        self.truth(whole)
    }

    /// An expression: `or` up to the end of the text; a truth is the count 1 or 0.
    fn expression(&mut self) -> Result<Count, Problem> {
        if self.tok.tok == Tok::End {
            return Err((
                0,
                self.text.len(),
                "empty expression: write one such as `blue.alive - red.alive`".into(),
            ));
        }
        let whole = self.or()?;
        if self.tok.tok != Tok::End {
            return Err(self.junk(false));
        }
        self.count(whole)
    }

    fn or(&mut self) -> Result<Operand, Problem> {
        let first = self.and()?;
        if self.tok.tok != Tok::Or {
            return Ok(first);
        }
        let start = first.start;
        let mut parts = vec![self.truth(first)?];
        let mut end = start;
        while self.tok.tok == Tok::Or {
            self.advance()?;
            let next = self.and()?;
            end = next.end;
            parts.push(self.truth(next)?);
        }
        Ok(Operand {
            value: Value::Truth(Truth::join(false, parts)),
            start,
            end,
        })
    }

    fn and(&mut self) -> Result<Operand, Problem> {
        let first = self.not()?;
        if self.tok.tok != Tok::And {
            return Ok(first);
        }
        let start = first.start;
        let mut parts = vec![self.truth(first)?];
        let mut end = start;
        while self.tok.tok == Tok::And {
            self.advance()?;
            let next = self.not()?;
            end = next.end;
            parts.push(self.truth(next)?);
        }
        Ok(Operand {
            value: Value::Truth(Truth::join(true, parts)),
            start,
            end,
        })
    }

    fn not(&mut self) -> Result<Operand, Problem> {
        if self.tok.tok != Tok::Not {
            return self.comparison();
        }
        let not = self.advance()?;
        self.enter(not)?;
        let operand = self.not()?;
        self.depth -= 1;
        let end = operand.end;
        let inner = self.truth(operand)?;
        Ok(Operand {
            value: Value::Truth(Truth::Not(Box::new(inner))),
            start: not.start,
            end,
        })
    }

    fn comparison(&mut self) -> Result<Operand, Problem> {
        let left = self.sum()?;
        let Tok::Cmp(op) = self.tok.tok else {
            return Ok(left);
        };
        let start = left.start;
        let a = self.count(left)?;
        self.advance()?;
        let right = self.sum()?;
        let end = right.end;
        let b = self.count(right)?;
        if let Tok::Cmp(_) = self.tok.tok {
            return Err((
                self.tok.start,
                self.tok.end - self.tok.start,
                "comparisons do not chain: join two with `and`, e.g. `1 < alive and alive < 5`"
                    .into(),
            ));
        }
        Ok(Operand {
            value: Value::Truth(Truth::Compare(a, op, b)),
            start,
            end,
        })
    }

    /// `sum = product (("+" | "-") product)*`.
    fn sum(&mut self) -> Result<Operand, Problem> {
        let first = self.product()?;
        if !matches!(self.tok.tok, Tok::Plus | Tok::Minus) {
            return Ok(first);
        }
        let (start, mut end) = (first.start, first.end);
        let mut terms = vec![(Sign::Plus, self.count(first)?)];
        while let Tok::Plus | Tok::Minus = self.tok.tok {
            let sign = if self.advance()?.tok == Tok::Plus {
                Sign::Plus
            } else {
                Sign::Minus
            };
            let next = self.product()?;
            end = next.end;
            terms.push((sign, self.count(next)?));
        }
        self.arithmetic(Count::Sum(terms.into_boxed_slice()), start, end)
    }

    /// `product = unary ("*" unary)*`.
    fn product(&mut self) -> Result<Operand, Problem> {
        let first = self.unary()?;
        if self.tok.tok != Tok::Star {
            return Ok(first);
        }
        let (start, mut end) = (first.start, first.end);
        let mut factors = vec![self.count(first)?];
        while self.tok.tok == Tok::Star {
            self.advance()?;
            let next = self.unary()?;
            end = next.end;
            factors.push(self.count(next)?);
        }
        self.arithmetic(Count::Product(factors.into_boxed_slice()), start, end)
    }

    /// `unary = "-" unary | primary`.
    fn unary(&mut self) -> Result<Operand, Problem> {
        if self.tok.tok != Tok::Minus {
            return self.primary();
        }
        let minus = self.advance()?;
        self.enter(minus)?;
        let operand = self.unary()?;
        self.depth -= 1;
        let end = operand.end;
        let inner = self.count(operand)?;
        self.arithmetic(Count::Neg(Box::new(inner)), minus.start, end)
    }

    /// A count made by arithmetic, refused in a condition when counts up to [`COUNT_MAX`]
    /// could take some step of it past the range of `i64`.
    fn arithmetic(&self, count: Count, start: usize, end: usize) -> Result<Operand, Problem> {
        if self.metrics.is_none() && count.range().is_none() {
            return Err((
                start,
                end - start,
                format!(
                    "this arithmetic could pass {}, the largest whole number a condition \
                     holds, when counts reach {COUNT_MAX}: simplify it",
                    i64::MAX
                ),
            ));
        }
        Ok(Operand {
            value: Value::Count(count),
            start,
            end,
        })
    }

    /// `min(a, b)`, `max(a, b)` or `abs(a)` after its name, the calling token `name`.
    fn call(&mut self, name: Token, arity: usize) -> Result<Operand, Problem> {
        let function = self.slice(name);
        let example = if arity == 2 {
            format!("`{function}(alive, 3)`")
        } else {
            format!("`{function}(alive - 3)`")
        };
        let takes = if arity == 2 {
            "two numbers"
        } else {
            "one number"
        };
        if self.tok.tok != Tok::Open {
            return Err((
                name.start,
                name.end - name.start,
                format!("`{function}` takes {takes} in parentheses, e.g. {example}"),
            ));
        }
        let open = self.advance()?;
        self.enter(open)?;
        let mut args = Vec::with_capacity(arity);
        loop {
            let arg = self.or()?;
            args.push(self.count(arg)?);
            match self.tok.tok {
                Tok::Comma if args.len() < arity => {
                    self.advance()?;
                }
                Tok::Close if args.len() == arity => break,
                Tok::Comma | Tok::Close => {
                    let t = self.tok;
                    return Err((
                        t.start,
                        t.end - t.start,
                        format!("`{function}` takes {takes}, e.g. {example}"),
                    ));
                }
                Tok::End => {
                    return Err((open.start, 1, "this `(` is never closed: add a `)`".into()))
                }
                _ => return Err(self.junk(true)),
            }
        }
        let close = self.advance()?;
        self.depth -= 1;
        let count = match (function, args.pop(), args.pop()) {
            ("abs", Some(a), None) => Count::Abs(Box::new(a)),
            ("min", Some(b), Some(a)) => Count::Min(Box::new([a, b])),
            (_, Some(b), Some(a)) => Count::Max(Box::new([a, b])),
            _ => unreachable!("the loop reads exactly `arity` arguments"),
        };
        self.arithmetic(count, name.start, close.end)
    }

    /// A metric's name in an expression, or why it is not one.
    fn metric(&self, t: Token, metrics: &[&str]) -> Result<Count, Problem> {
        let name = self.slice(t);
        if let Some(i) = metrics.iter().position(|m| *m == name) {
            return Ok(Count::Metric(i as u32, name.into()));
        }
        let message = if let Some(keyword) = keyword_in_wrong_case(name) {
            format!("keywords are lower case: did you mean `{keyword}`?")
        } else {
            let hint = nearest(name, metrics)
                .map(|m| format!("; did you mean `{m}`?"))
                .unwrap_or_default();
            format!(
                "unknown metric `{}`{hint} {}",
                shorten(name),
                metric_list(metrics)
            )
        };
        Err((t.start, t.end - t.start, message))
    }

    /// `primary = NUMBER | NAME | "enemy_within" "(" NUMBER ")" | "(" condition ")"`.
    fn primary(&mut self) -> Result<Operand, Problem> {
        let t = self.tok;
        let operand = |value, end| Operand {
            value,
            start: t.start,
            end,
        };
        match t.tok {
            Tok::Number => {
                self.advance()?;
                let n = self.literal(t)?;
                Ok(operand(Value::Count(n), t.end))
            }
            Tok::Name => {
                self.advance()?;
                let name = self.slice(t);
                if let Some(&(_, arity)) = FUNCTIONS.iter().find(|(f, _)| *f == name) {
                    return self.call(t, arity);
                }
                if let Some(metrics) = self.metrics {
                    let count = self.metric(t, metrics)?;
                    return Ok(operand(Value::Count(count), t.end));
                }
                if let Some(count) = Count::from_name(name) {
                    self.no_argument(t)?;
                    return Ok(operand(Value::Count(count), t.end));
                }
                match name {
                    "in_range" => {
                        self.no_argument(t)?;
                        Ok(operand(Value::Truth(Truth::InRange), t.end))
                    }
                    "enemy_within" => {
                        let (d, end) = self.distance(t)?;
                        Ok(operand(Value::Truth(Truth::EnemyWithin(d)), end))
                    }
                    _ => Err((t.start, t.end - t.start, unknown_name(name))),
                }
            }
            Tok::Open => {
                self.advance()?;
                self.enter(t)?;
                let inner = self.or()?;
                if self.tok.tok != Tok::Close {
                    if self.tok.tok == Tok::End {
                        return Err((t.start, 1, "this `(` is never closed: add a `)`".into()));
                    }
                    return Err(self.junk(true));
                }
                let close = self.advance()?;
                self.depth -= 1;
                Ok(operand(inner.value, close.end))
            }
            _ => Err(self.expected("a name, a number or `(`")),
        }
    }

    /// A whole number to compare a count with.
    fn literal(&self, t: Token) -> Result<Count, Problem> {
        let text = self.slice(t);
        let span = |message| Err((t.start, t.end - t.start, message));
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        if fraction.bytes().any(|b| b != b'0') {
            return span(format!(
                "`{text}` is not a whole number: counts are whole numbers, so compare with one, \
                 e.g. `alive >= 3`"
            ));
        }
        // A condition compares counts, which are at most u32::MAX; an expression's whole
        // numbers go as far as its metrics can.
        let max = match self.metrics {
            None => i64::from(u32::MAX),
            Some(_) => i64::MAX,
        };
        match whole.parse::<i64>() {
            Ok(n) if n <= max => Ok(Count::Literal(n)),
            _ => span(format!(
                "`{}` is too large: whole numbers here are at most {max}",
                shorten(text)
            )),
        }
    }

    /// The `(NUMBER)` after `enemy_within`, as inches, and the end of the `)`.
    fn distance(&mut self, name: Token) -> Result<(f64, usize), Problem> {
        if self.tok.tok != Tok::Open {
            return Err((
                name.start,
                name.end - name.start,
                "`enemy_within` needs a distance in inches in parentheses, e.g. \
                 `enemy_within(1)`"
                    .into(),
            ));
        }
        self.advance()?;
        let t = self.tok;
        if t.tok != Tok::Number {
            return Err((
                t.start,
                t.end - t.start,
                format!(
                    "the distance of `enemy_within` is a number of inches, e.g. \
                     `enemy_within(1)`; found {}",
                    self.describe(t)
                ),
            ));
        }
        self.advance()?;
        let text = self.slice(t);
        let inches = match text.parse::<f64>() {
            Ok(d) if d.is_finite() => d,
            _ => {
                return Err((
                    t.start,
                    t.end - t.start,
                    format!("`{}` is too large for a distance", shorten(text)),
                ))
            }
        };
        if self.tok.tok != Tok::Close {
            let found = self.tok;
            return Err((
                found.start,
                found.end - found.start,
                format!(
                    "expected `)` after the distance of `enemy_within`, found {}",
                    self.describe(found)
                ),
            ));
        }
        let close = self.advance()?;
        Ok((inches, close.end))
    }

    /// Refuses `(` after a name that takes no argument.
    fn no_argument(&self, name: Token) -> Result<(), Problem> {
        if self.tok.tok != Tok::Open {
            return Ok(());
        }
        let name = self.slice(name);
        let hint = if name == "in_range" {
            "use it as it is, e.g. `in_range and alive >= 3`".to_string()
        } else {
            format!("compare it, e.g. `{name} >= 3`")
        };
        Err((
            self.tok.start,
            1,
            format!("`{name}` takes no argument: {hint}"),
        ))
    }

    /// Counts a `(` or `not` that deepens the tree, refusing to go past [`MAX_DEPTH`].
    fn enter(&mut self, t: Token) -> Result<(), Problem> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err((
                t.start,
                t.end - t.start,
                format!(
                    "nested more than {MAX_DEPTH} deep (parentheses and `not`): simplify the \
                     condition"
                ),
            ));
        }
        Ok(())
    }

    /// The operand as a truth, or why a count cannot stand where a truth is needed.
    fn truth(&self, operand: Operand) -> Result<Truth, Problem> {
        match operand.value {
            Value::Truth(t) => Ok(t),
            Value::Count(Count::Of(t)) => Ok(*t),
            Value::Count(c) if self.metrics.is_some() => Ok(Truth::NonZero(c)),
            Value::Count(c) => {
                let message = match c {
                    Count::Literal(n) => format!(
                        "`{n}` is a number, not true or false: compare a count with it, e.g. \
                         `alive >= {n}`"
                    ),
                    _ => {
                        let c = shorten(&c.to_string());
                        format!("`{c}` is a number: compare it, e.g. `{c} >= 3`")
                    }
                };
                Err((operand.start, operand.end - operand.start, message))
            }
        }
    }

    /// The operand as a count, or why a truth cannot be compared.
    fn count(&self, operand: Operand) -> Result<Count, Problem> {
        match operand.value {
            Value::Count(c) => Ok(c),
            Value::Truth(Truth::NonZero(c)) => Ok(c),
            Value::Truth(t) if self.metrics.is_some() => Ok(Count::Of(Box::new(t))),
            Value::Truth(t) => {
                let shown = t.to_string();
                let what = if shown.chars().count() <= 40 {
                    format!("`{shown}`")
                } else {
                    "this".to_string()
                };
                Err((
                    operand.start,
                    operand.end - operand.start,
                    format!(
                        "{what} is true or false: it cannot be compared with a number; \
                         combine it with `and`, `or`, `not`"
                    ),
                ))
            }
        }
    }

    /// "expected X after `prev`, found Y" at the current token.
    fn expected(&self, what: &str) -> Problem {
        let t = self.tok;
        let found = self.describe(t);
        let message = match self.prev {
            Some(p) => format!("expected {what} after `{}`, found {found}", self.shown(p)),
            None => format!("expected {what}, found {found}"),
        };
        (t.start, t.end - t.start, message)
    }

    /// Why the current token cannot follow a complete operand (at the top level, or inside
    /// parentheses when `inside`).
    fn junk(&self, inside: bool) -> Problem {
        let t = self.tok;
        let span = (t.start, t.end - t.start);
        let text = self.slice(t);
        let message = if t.tok == Tok::Close && !inside {
            "unmatched `)`: there is no `(` before it".to_string()
        } else if let Some(keyword) = keyword_in_wrong_case(text) {
            format!("keywords are lower case: did you mean `{keyword}`?")
        } else if inside {
            format!("expected `and`, `or` or `)`, found {}", self.describe(t))
        } else {
            format!(
                "expected `and` or `or` before {}, or the end of the {}",
                self.describe(t),
                self.kind()
            )
        };
        (span.0, span.1, message)
    }

    /// What the text is, as messages call it.
    fn kind(&self) -> &'static str {
        match self.metrics {
            None => "condition",
            Some(_) => "expression",
        }
    }

    fn describe(&self, t: Token) -> String {
        match t.tok {
            Tok::End => format!("the end of the {}", self.kind()),
            _ => format!("`{}`", self.shown(t)),
        }
    }

    fn shown(&self, t: Token) -> String {
        shorten(self.slice(t))
    }
}

/// At most 30 characters of `s`, marked when cut.
fn shorten(s: &str) -> String {
    if s.chars().count() <= 30 {
        s.to_string()
    } else {
        let mut cut: String = s.chars().take(30).collect();
        cut.push_str("...");
        cut
    }
}

/// The metrics an expression may name, for an error message: all of them when few, else a
/// pointer to where they are listed.
fn metric_list(metrics: &[&str]) -> String {
    const SHOWN: usize = 12;
    if metrics.is_empty() {
        return "(this scenario has no metric to name)".into();
    }
    let shown: Vec<&str> = metrics.iter().take(SHOWN).copied().collect();
    if metrics.len() <= SHOWN {
        format!("(the metrics are: {})", shown.join(", "))
    } else {
        format!(
            "(the metrics include: {}, ... {} in all; `rollcall explain` lists them)",
            shown.join(", "),
            metrics.len()
        )
    }
}

/// `AND`, `Or`, `NOT`: the keyword meant, if `word` is one in the wrong case.
fn keyword_in_wrong_case(word: &str) -> Option<&'static str> {
    ["and", "or", "not"]
        .into_iter()
        .find(|k| word != *k && word.eq_ignore_ascii_case(k))
}

/// The message for a name that is not one of [`ALLOWED`], with the likely intended name.
fn unknown_name(name: &str) -> String {
    if let Some(keyword) = keyword_in_wrong_case(name) {
        return format!("keywords are lower case: did you mean `{keyword}`?");
    }
    match suggestion(name) {
        Some(s) => format!(
            "unknown name `{}`; did you mean `{s}`? allowed: {ALLOWED}",
            shorten(name)
        ),
        None => format!("unknown name `{}`; allowed: {ALLOWED}", shorten(name)),
    }
}

/// The allowed name closest to `name`: a synonym players use, the same name in another case,
/// a name it begins, or one within a small edit distance (a typo).
fn suggestion(name: &str) -> Option<&'static str> {
    const NAMES: [&str; 7] = [
        "alive",
        "missing",
        "size",
        "round",
        "damaged",
        "enemy_within",
        "in_range",
    ];
    const SYNONYMS: [(&str, &str); 8] = [
        ("turn", "round"),
        ("dead", "missing"),
        ("lost", "missing"),
        ("casualties", "missing"),
        ("models", "alive"),
        ("wounds", "damaged"),
        ("wounded", "damaged"),
        ("range", "in_range"),
    ];
    if name.chars().count() > 40 {
        return None;
    }
    let lower = name.to_lowercase();
    if let Some(&(_, s)) = SYNONYMS.iter().find(|(w, _)| *w == lower) {
        return Some(s);
    }
    if lower.len() >= 3 {
        if let Some(s) = NAMES.iter().find(|n| n.starts_with(&lower)) {
            return Some(s);
        }
    }
    let (distance, best) = NAMES
        .iter()
        .map(|n| (distance(&lower, n), *n))
        .min_by_key(|&(d, _)| d)?;
    let allowed = match best.len() {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    (distance <= allowed).then_some(best)
}

fn digits_len(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// A table written out by hand: the unit's counts, the distance to the nearest enemy
    /// model, whether something can be shot, and a log of what was asked.
    #[derive(Default)]
    struct Table {
        alive: u32,
        size: u32,
        round: u32,
        damaged: u32,
        nearest_enemy: f64,
        in_range: bool,
        asked: Vec<String>,
    }

    impl Situation for Table {
        fn alive(&mut self) -> u32 {
            self.asked.push("alive".into());
            self.alive
        }
        fn size(&mut self) -> u32 {
            self.asked.push("size".into());
            self.size
        }
        fn round(&mut self) -> u32 {
            self.asked.push("round".into());
            self.round
        }
        fn damaged(&mut self) -> u32 {
            self.asked.push("damaged".into());
            self.damaged
        }
        fn enemy_within(&mut self, inches: f64) -> bool {
            self.asked.push(format!("enemy_within({inches})"));
            self.nearest_enemy <= inches
        }
        fn in_range(&mut self) -> bool {
            self.asked.push("in_range".into());
            self.in_range
        }
    }

    fn table() -> Table {
        Table {
            alive: 7,
            size: 10,
            round: 2,
            damaged: 1,
            nearest_enemy: 3.5,
            in_range: true,
            asked: Vec::new(),
        }
    }

    fn holds(text: &str, t: &mut Table) -> bool {
        Condition::parse(text).unwrap().holds(t)
    }

    fn err(text: &str) -> ConditionError {
        match Condition::parse(text) {
            Ok(c) => panic!("{text:?} parsed as {c}"),
            Err(e) => e,
        }
    }

    /// The whole rendered error.
    fn shown(text: &str) -> String {
        err(text).to_string()
    }

    #[test]
    fn each_name_reads_its_own_count() {
        // alive 7, size 10 (so missing 3), round 2, damaged 1.
        let mut t = table();
        for (text, want) in [
            ("alive == 7", true),
            ("alive == 6", false),
            ("size == 10", true),
            ("missing == 3", true),
            ("missing == 7", false),
            ("round == 2", true),
            ("round == 1", false),
            ("damaged == 1", true),
            ("damaged == 0", false),
            ("7 == alive", true),
        ] {
            assert_eq!(holds(text, &mut t), want, "{text}");
        }
        // A count may be compared with a count.
        assert!(holds("alive > missing", &mut t));
        assert!(holds("size == size", &mut t));
        assert!(!holds("round > alive", &mut t));
    }

    #[test]
    fn missing_never_underflows() {
        // A situation that reports more models than the unit started with.
        let mut t = Table {
            alive: 5,
            size: 3,
            ..table()
        };
        assert!(holds("missing == 0", &mut t));
    }

    #[test]
    fn each_comparison_against_its_definition() {
        // alive runs over 0..=4 against 2; truth tables written out.
        let cases: [(&str, [bool; 5]); 6] = [
            ("alive < 2", [true, true, false, false, false]),
            ("alive <= 2", [true, true, true, false, false]),
            ("alive > 2", [false, false, false, true, true]),
            ("alive >= 2", [false, false, true, true, true]),
            ("alive == 2", [false, false, true, false, false]),
            ("alive != 2", [true, true, false, true, true]),
        ];
        for (text, want) in cases {
            for (alive, &w) in want.iter().enumerate() {
                let mut t = Table {
                    alive: alive as u32,
                    ..table()
                };
                assert_eq!(holds(text, &mut t), w, "{text} with alive {alive}");
            }
        }
    }

    #[test]
    fn enemy_within_compares_the_distance_in_inches() {
        // The nearest enemy is 3.5" away.
        let mut t = table();
        assert!(holds("enemy_within(3.5)", &mut t));
        assert!(holds("enemy_within(4)", &mut t));
        assert!(!holds("enemy_within(3)", &mut t));
        assert!(!holds("enemy_within(0)", &mut t));
        assert!(!holds("enemy_within(3.49)", &mut t));
        assert!(holds("enemy_within(003.50)", &mut t));
        assert!(t.asked.contains(&"enemy_within(3.49)".to_string()));
    }

    #[test]
    fn logic_operators_follow_their_truth_tables() {
        // in_range and enemy_within(1) over all four combinations.
        for (in_range, near) in [(false, false), (false, true), (true, false), (true, true)] {
            let mut t = Table {
                in_range,
                nearest_enemy: if near { 0.5 } else { 5.0 },
                ..table()
            };
            assert_eq!(
                holds("in_range and enemy_within(1)", &mut t),
                in_range && near
            );
            assert_eq!(
                holds("in_range or enemy_within(1)", &mut t),
                in_range || near
            );
            assert_eq!(holds("not in_range", &mut t), !in_range);
            assert_eq!(holds("not not in_range", &mut t), in_range);
        }
    }

    #[test]
    fn and_or_stop_at_the_first_deciding_operand() {
        let mut t = table();
        assert!(holds("in_range or enemy_within(1)", &mut t));
        assert_eq!(t.asked, ["in_range"]);

        let mut t = table();
        assert!(!holds("alive > 8 and enemy_within(1) and in_range", &mut t));
        assert_eq!(t.asked, ["alive"]);

        // Undecided operands are asked, left to right; `missing` asks size then alive.
        let mut t = table();
        assert!(holds("missing >= 4 or not in_range or round == 2", &mut t));
        assert_eq!(t.asked, ["size", "alive", "in_range", "round"]);

        let dynamic: &mut dyn Situation = &mut table();
        assert!(Condition::parse("round == 2").unwrap().holds(dynamic));
    }

    fn cmp(a: Count, op: Comparison, b: u32) -> Truth {
        Truth::Compare(a, op, Count::Literal(b.into()))
    }

    fn tree(text: &str) -> Truth {
        Condition::parse(text).unwrap().tree
    }

    #[test]
    fn precedence_or_and_not_comparison() {
        use Comparison::*;
        use Count::*;
        let alive_gt_2 = || cmp(Alive, Gt, 2);
        let round_eq_1 = || cmp(Round, Eq, 1);
        let all = |xs: Vec<Truth>| Truth::All(xs.into_boxed_slice());
        let any = |xs: Vec<Truth>| Truth::Any(xs.into_boxed_slice());
        let not = |x| Truth::Not(Box::new(x));

        // (not (alive > 2)) or (round == 1)
        assert_eq!(
            tree("not alive > 2 or round == 1"),
            any(vec![not(alive_gt_2()), round_eq_1()])
        );
        // in_range or (alive > 2 and round == 1)
        assert_eq!(
            tree("in_range or alive > 2 and round == 1"),
            any(vec![Truth::InRange, all(vec![alive_gt_2(), round_eq_1()])])
        );
        // (not in_range) and (alive > 2)
        assert_eq!(
            tree("not in_range and alive > 2"),
            all(vec![not(Truth::InRange), alive_gt_2()])
        );
        // (a and b) or (c and d)
        assert_eq!(
            tree("in_range and alive > 2 or round == 1 and enemy_within(1)"),
            any(vec![
                all(vec![Truth::InRange, alive_gt_2()]),
                all(vec![round_eq_1(), Truth::EnemyWithin(1.0)]),
            ])
        );
        // Parentheses override; a chain is one node however it is grouped.
        assert_eq!(
            tree("(in_range or alive > 2) and round == 1"),
            all(vec![any(vec![Truth::InRange, alive_gt_2()]), round_eq_1()])
        );
        assert_eq!(
            tree("(in_range and alive > 2) and (round == 1 and enemy_within(2))"),
            tree("in_range and alive > 2 and round == 1 and enemy_within(2)")
        );
        assert_eq!(
            tree("not (alive > 2 or round == 1)"),
            not(any(vec![alive_gt_2(), round_eq_1()]))
        );
        // Parenthesised counts compare like bare ones.
        assert_eq!(tree("((alive)) > (2)"), alive_gt_2());
        // Evaluated: alive 1, round 1 tells the two readings apart.
        let mut t = Table {
            alive: 1,
            round: 1,
            ..table()
        };
        assert!(holds("not alive > 2 or round == 1", &mut t));
        assert!(!holds("not (alive > 2 or round == 1)", &mut t));
    }

    #[test]
    fn canonical_text() {
        for (text, canonical) in [
            (
                "missing>=3 and not(enemy_within(1.50))",
                "missing >= 3 and not enemy_within(1.5)",
            ),
            ("((in_range))", "in_range"),
            (
                "(in_range or alive<2) and round==1",
                "(in_range or alive < 2) and round == 1",
            ),
            (
                "in_range or (alive<2 and round==1)",
                "in_range or alive < 2 and round == 1",
            ),
            (
                "not (in_range and damaged != 0)",
                "not (in_range and damaged != 0)",
            ),
            ("not (not in_range)", "not not in_range"),
            ("alive >= 3.00", "alive >= 3"),
            ("enemy_within(0.1)", "enemy_within(0.1)"),
        ] {
            let c = Condition::parse(text).unwrap();
            assert_eq!(c.to_string(), canonical, "{text}");
            assert_eq!(c.text(), text);
            assert_eq!(Condition::parse(canonical).unwrap(), c);
        }
        assert_eq!(
            "in_range".parse::<Condition>().unwrap().to_string(),
            "in_range"
        );
    }

    #[test]
    fn typical_mistakes_are_explained_under_a_caret() {
        let allowed = "allowed: alive, missing, size, round, damaged, enemy_within(D), in_range, \
                       min(a, b), max(a, b), abs(a)";
        assert_eq!(
            shown("missing >= 3 and not enemy_withn(1)"),
            format!(
                "bad condition:\n    missing >= 3 and not enemy_withn(1)\n    \
                 {}^^^^^^^^^^^ unknown name `enemy_withn`; did you mean `enemy_within`? {allowed}",
                " ".repeat(21)
            )
        );
        assert_eq!(
            shown("(alive > 3 and in_range"),
            "bad condition:\n    (alive > 3 and in_range\n    ^ this `(` is never closed: add a `)`"
        );
        assert_eq!(
            shown("alive > 3 in_range"),
            "bad condition:\n    alive > 3 in_range\n              ^^^^^^^^ expected `and` or \
             `or` before `in_range`, or the end of the condition"
        );
        assert_eq!(
            shown("alive > 3)"),
            "bad condition:\n    alive > 3)\n             ^ unmatched `)`: there is no `(` before it"
        );
        assert_eq!(
            shown("alive = 3"),
            "bad condition:\n    alive = 3\n          ^ `=` is not a comparison: did you mean `==`?"
        );
        assert_eq!(
            shown("alive and in_range"),
            "bad condition:\n    alive and in_range\n    ^^^^^ `alive` is a number: compare it, \
             e.g. `alive >= 3`"
        );
        assert_eq!(
            shown("in_range > 1"),
            "bad condition:\n    in_range > 1\n    ^^^^^^^^ `in_range` is true or false: it \
             cannot be compared with a number; combine it with `and`, `or`, `not`"
        );
    }

    /// (offset, len, a piece of the message) for each mistake, spans counted by hand.
    #[test]
    fn spans_and_messages() {
        for (text, offset, len, says) in [
            ("alive >= 3 AND in_range", 11, 3, "did you mean `and`?"),
            ("NOT in_range", 0, 3, "did you mean `not`?"),
            ("in_range Or alive > 1", 9, 2, "did you mean `or`?"),
            ("in_range && alive > 1", 9, 2, "did you mean `and`?"),
            ("in_range || alive > 1", 9, 2, "did you mean `or`?"),
            ("!in_range", 0, 1, "did you mean `not`?"),
            ("alive => 3", 6, 2, "did you mean `>=`?"),
            ("alive =< 3", 6, 2, "did you mean `<=`?"),
            ("alive <> 3", 6, 2, "did you mean `!=`?"),
            ("alive >= 2.5", 9, 3, "not a whole number"),
            ("alive >= 3.", 9, 2, "cannot end with `.`"),
            ("enemy_within(.5)", 13, 2, "write `0.5`"),
            ("alive > 4294967296", 8, 10, "too large"),
            ("alive * alive * alive * 10 > 1", 0, 26, "could pass"),
            ("size * -size * size * 10 < 1", 0, 24, "could pass"),
            ("alive / 2 > 1", 6, 1, "no division"),
            ("min(alive) > 1", 9, 1, "`min` takes two numbers"),
            ("abs(alive, 1) > 1", 9, 1, "`abs` takes one number"),
            ("max > 1", 0, 3, "`max` takes two numbers in parentheses"),
            (
                "min(alive, in_range) > 1",
                11,
                8,
                "`in_range` is true or false",
            ),
            ("alive + in_range > 1", 8, 8, "`in_range` is true or false"),
            ("alive + 1", 0, 9, "`alive + 1` is a number"),
            ("abs(alive", 3, 1, "never closed"),
            ("1 < alive < 3", 10, 1, "do not chain"),
            ("alive", 0, 5, "`alive` is a number"),
            ("3", 0, 1, "`3` is a number, not true or false"),
            ("not (missing)", 4, 9, "`missing` is a number"),
            ("(alive > 2) == 1", 0, 11, "`alive > 2` is true or false"),
            (
                "enemy_within(1) != 0",
                0,
                15,
                "`enemy_within(1)` is true or false",
            ),
            ("alive >", 7, 0, "after `>`, found the end of the condition"),
            ("in_range and", 12, 0, "after `and`"),
            (
                "and in_range",
                0,
                3,
                "expected a name, a number or `(`, found `and`",
            ),
            ("()", 1, 1, "found `)`"),
            ("", 0, 0, "empty condition"),
            ("enemy_within", 0, 12, "needs a distance"),
            ("enemy_within(alive)", 13, 5, "number of inches"),
            ("enemy_within(1", 14, 0, "expected `)`"),
            ("enemy_within(1\")", 14, 1, "inches already"),
            ("in_range(1)", 8, 1, "`in_range` takes no argument"),
            ("damaged(1) > 0", 7, 1, "`damaged` takes no argument"),
            ("alive > 3 # note", 10, 1, "unexpected character '#'"),
            ("Alive > 3", 0, 5, "did you mean `alive`?"),
            ("turn == 1", 0, 4, "did you mean `round`?"),
            ("dead >= 2", 0, 4, "did you mean `missing`?"),
            ("miss >= 2", 0, 4, "did you mean `missing`?"),
            ("damgaed > 0", 0, 7, "did you mean `damaged`?"),
            ("sise > 0", 0, 4, "did you mean `size`?"),
            ("inrange", 0, 7, "did you mean `in_range`?"),
            ("true", 0, 4, "unknown name `true`; allowed:"),
        ] {
            let e = err(text);
            assert_eq!((e.offset, e.len), (offset, len), "{text}: {e}");
            assert!(e.message.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn carets_count_chars_not_bytes() {
        // `größe` is 7 bytes, 5 chars.
        let e = err("größe >= 3");
        assert_eq!((e.offset, e.len), (0, 7));
        assert!(e
            .to_string()
            .contains("\n    größe >= 3\n    ^^^^^ unknown name `größe`"));
        // An ideographic space is 3 bytes, 1 char, of whitespace.
        let e = err("\u{3000}alive and in_range");
        assert_eq!((e.offset, e.len), (3, 5));
        assert!(e
            .to_string()
            .contains("\n    \u{3000}alive and in_range\n     ^^^^^ `alive`"));
        // A tab is shown as one space so the caret stays under its target.
        let e = err("\tmissing");
        assert!(e.to_string().contains("\n     missing\n     ^^^^^^^ "));
    }

    #[test]
    fn long_text_is_quoted_as_a_window_around_the_error() {
        let text = format!(
            "{}in_range and enemy_withn(1) and {}",
            "in_range and ".repeat(20),
            "in_range and ".repeat(20) + "in_range"
        );
        let e = err(&text);
        let shown = e.to_string();
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines.len(), 3);
        let quote = lines[1].strip_prefix("    ").unwrap();
        assert!(
            quote.starts_with("...") && quote.ends_with("..."),
            "{quote}"
        );
        assert_eq!(quote.chars().count(), QUOTE_WIDTH + 6);
        let col = lines[2].find('^').unwrap() - 4;
        assert!(quote[col..].starts_with("enemy_withn("), "{shown}");
        assert!(lines[2][col + 4..].starts_with("^^^^^^^^^^^ unknown name"));
        // Near either end, the window is flush with that end.
        let head = err(&format!(
            "alive and {}",
            "in_range and ".repeat(20) + "in_range"
        ));
        let quote = head.to_string().lines().nth(1).unwrap().to_string();
        assert!(quote.starts_with("    alive and") && quote.ends_with("..."));
        let tail = err(&format!("{}enemy_withn(1)", "in_range and ".repeat(20)));
        let shown = tail.to_string();
        let quote = shown.lines().nth(1).unwrap();
        assert!(quote.starts_with("    ...") && quote.ends_with("enemy_withn(1)"));
    }

    #[test]
    fn end_of_text_errors_put_the_caret_just_past_it() {
        assert_eq!(
            shown("alive >="),
            "bad condition:\n    alive >=\n            ^ expected a name, a number or `(` \
             after `>=`, found the end of the condition"
        );
    }

    #[test]
    fn nesting_is_limited_and_long_chains_are_not() {
        let nested = |n: usize| format!("{}in_range{}", "(".repeat(n), ")".repeat(n));
        assert!(Condition::parse(&nested(MAX_DEPTH)).is_ok());
        let e = err(&nested(MAX_DEPTH + 1));
        assert_eq!((e.offset, e.len), (MAX_DEPTH, 1));
        assert!(e.message.contains("nested more than 64 deep"));

        let nots = |n: usize| format!("{}in_range", "not ".repeat(n));
        assert!(Condition::parse(&nots(MAX_DEPTH))
            .unwrap()
            .holds(&mut table()));
        assert!(err(&nots(MAX_DEPTH + 1)).message.contains("nested"));
        // Far deeper than any stack allows, without overflowing it.
        assert!(err(&nots(200_000)).message.contains("nested"));
        assert!(err(&nested(200_000)).message.contains("nested"));
        assert!(err(&"(".repeat(200_000)).message.contains("nested"));

        // A long chain is one node: parse, evaluate, print and drop it.
        let chain = vec!["alive > 0"; 100_000].join(" and ");
        let c = Condition::parse(&chain).unwrap();
        assert!(c.holds(&mut table()));
        assert_eq!(c.to_string(), chain);
        let mixed = vec!["alive > 0 and in_range"; 50_000].join(" or ");
        assert_eq!(Condition::parse(&mixed).unwrap().to_string(), mixed);
    }

    fn check_error(text: &str, e: &ConditionError) {
        assert_eq!(e.text, text);
        let end = e.offset + e.len;
        assert!(end <= text.len(), "{text:?}: {e:?}");
        assert!(text.is_char_boundary(e.offset) && text.is_char_boundary(end));
        let shown = e.to_string();
        assert_eq!(shown.lines().count(), 3, "{shown}");
        assert!(shown.ends_with(&e.message));
        assert!(!e.message.is_empty());
    }

    fn check_ok(text: &str, c: &Condition) {
        let canonical = c.to_string();
        let again = Condition::parse(&canonical)
            .unwrap_or_else(|e| panic!("{text:?} -> {canonical:?} does not parse: {e}"));
        assert_eq!(&again, c, "{text:?} -> {canonical:?}");
        assert_eq!(again.to_string(), canonical);
        c.holds(&mut table());
    }

    fn check(text: &str) -> bool {
        match Condition::parse(text) {
            Ok(c) => {
                check_ok(text, &c);
                true
            }
            Err(e) => {
                check_error(text, &e);
                false
            }
        }
    }

    #[test]
    fn garbage_never_panics() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(13);
        let alphabet: Vec<char> =
            "aelivmsngzrodtbcwhy_( )<>=!&|-.,\"0123456789\t\n#ßé\u{3000}\u{1F600}"
                .chars()
                .collect();
        for _ in 0..4000 {
            let len = (rng.next_u64() % 40) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(rng.next_u64() % alphabet.len() as u64) as usize])
                .collect();
            check(&text);
        }
        // Arbitrary chars, including ones from outside the alphabet above.
        for _ in 0..2000 {
            let len = (rng.next_u64() % 20) as usize;
            let text: String = (0..len)
                .filter_map(|_| char::from_u32((rng.next_u64() % 0x11_0000) as u32))
                .collect();
            check(&text);
        }
    }

    #[test]
    fn random_token_sequences_never_panic() {
        let tokens = [
            "alive",
            "missing",
            "size",
            "round",
            "damaged",
            "in_range",
            "enemy_within(1)",
            "enemy_within(2.5)",
            "enemy_within",
            "(",
            ")",
            "(",
            ")",
            "and",
            "or",
            "not",
            "not",
            "<",
            "<=",
            ">",
            ">=",
            "==",
            "!=",
            "0",
            "3",
            "2.5",
            "99999999999",
            "AND",
            "&&",
            "=",
            "x",
            "enemy_withn(1)",
            "1.",
        ];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(29);
        let mut parsed = 0;
        for _ in 0..20_000 {
            let len = 1 + (rng.next_u64() % 12) as usize;
            let mut text = String::new();
            for _ in 0..len {
                text.push_str(tokens[(rng.next_u64() % tokens.len() as u64) as usize]);
                if !rng.next_u64().is_multiple_of(4) {
                    text.push(' ');
                }
            }
            parsed += usize::from(check(&text));
        }
        // The sequences must reach the success path too, not only errors.
        assert!(parsed > 100, "{parsed}");
    }

    #[test]
    fn edited_valid_conditions_never_panic() {
        // Valid text with a few random edits: errors close to what people write.
        let inserts = [
            "(", ")", " and ", " or ", "not ", "=", ">", "3", ".", "AND", "x", "é", "\"", " ",
        ];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(37);
        let (mut parsed, mut refused) = (0, 0);
        for _ in 0..5000 {
            let text = Condition {
                text: String::new(),
                tree: random_truth(&mut rng, 3, None),
            }
            .to_string();
            let mut chars: Vec<char> = text.chars().collect();
            for _ in 0..1 + rng.next_u64() % 3 {
                let at = (rng.next_u64() % (chars.len() as u64 + 1)) as usize;
                if rng.next_u64().is_multiple_of(2) && at < chars.len() {
                    let n = 1 + (rng.next_u64() % 4) as usize;
                    chars.drain(at..(at + n).min(chars.len()));
                } else {
                    let piece = inserts[(rng.next_u64() % inserts.len() as u64) as usize];
                    chars.splice(at..at, piece.chars());
                }
            }
            let text: String = chars.into_iter().collect();
            if check(&text) {
                parsed += 1;
            } else {
                refused += 1;
            }
        }
        assert!(parsed > 100 && refused > 1000, "{parsed} {refused}");
    }

    /// A random arithmetic count over the leaves `leaf` makes, `depth` operators deep at most.
    /// Products multiply leaves only, so a condition's range check passes.
    fn random_count(
        rng: &mut Xoshiro256PlusPlus,
        depth: u32,
        leaf: &mut dyn FnMut(&mut Xoshiro256PlusPlus) -> Count,
    ) -> Count {
        let pick = if depth == 0 { 0 } else { rng.next_u64() % 7 };
        match pick {
            0 => leaf(rng),
            1 => {
                let n = 2 + (rng.next_u64() % 3) as usize;
                let terms: Vec<(Sign, Count)> = (0..n)
                    .map(|i| {
                        let sign = if i > 0 && rng.next_u64().is_multiple_of(2) {
                            Sign::Minus
                        } else {
                            Sign::Plus
                        };
                        (sign, random_count(rng, depth - 1, leaf))
                    })
                    .collect();
                Count::Sum(terms.into_boxed_slice())
            }
            2 => Count::Product(vec![leaf(rng), leaf(rng)].into_boxed_slice()),
            3 => Count::Neg(Box::new(random_count(rng, depth - 1, leaf))),
            4 => Count::Abs(Box::new(random_count(rng, depth - 1, leaf))),
            5 => Count::Min(Box::new([
                random_count(rng, depth - 1, leaf),
                random_count(rng, depth - 1, leaf),
            ])),
            _ => Count::Max(Box::new([
                random_count(rng, depth - 1, leaf),
                random_count(rng, depth - 1, leaf),
            ])),
        }
    }

    /// A random canonical tree: `and`/`or` have at least two operands, none of their own kind.
    fn random_truth(rng: &mut Xoshiro256PlusPlus, depth: u32, parent: Option<bool>) -> Truth {
        let counts = [
            Count::Alive,
            Count::Missing,
            Count::Size,
            Count::Round,
            Count::Damaged,
        ];
        let ops = [
            Comparison::Lt,
            Comparison::Le,
            Comparison::Gt,
            Comparison::Ge,
            Comparison::Eq,
            Comparison::Ne,
        ];
        let count = |rng: &mut Xoshiro256PlusPlus| {
            if rng.next_u64().is_multiple_of(3) {
                Count::Literal(match rng.next_u64() % 3 {
                    0 => 0,
                    1 => u32::MAX.into(),
                    _ => (rng.next_u64() % 20) as i64,
                })
            } else if rng.next_u64().is_multiple_of(2) {
                counts[(rng.next_u64() % 5) as usize].clone()
            } else {
                random_count(rng, 2, &mut |rng| {
                    if rng.next_u64().is_multiple_of(3) {
                        Count::Literal((rng.next_u64() % 20) as i64)
                    } else {
                        counts[(rng.next_u64() % 5) as usize].clone()
                    }
                })
            }
        };
        let pick = if depth == 0 {
            rng.next_u64() % 3
        } else {
            rng.next_u64() % 6
        };
        match pick {
            0 => Truth::InRange,
            1 => {
                let d = match rng.next_u64() % 3 {
                    0 => (rng.next_u64() % 10) as f64,
                    1 => (rng.next_u64() % 1000) as f64 / 7.0,
                    _ => f64::from_bits(rng.next_u64() >> 2).abs().min(1e300),
                };
                Truth::EnemyWithin(d)
            }
            2 => {
                let a = count(rng);
                let op = ops[(rng.next_u64() % 6) as usize];
                Truth::Compare(a, op, count(rng))
            }
            3 => Truth::Not(Box::new(random_truth(rng, depth - 1, None))),
            4 | 5 => {
                let all = pick == 4;
                if parent == Some(all) {
                    return random_truth(rng, depth, parent);
                }
                let n = 2 + (rng.next_u64() % 3) as usize;
                let xs: Vec<Truth> = (0..n)
                    .map(|_| random_truth(rng, depth - 1, Some(all)))
                    .collect();
                if all {
                    Truth::All(xs.into_boxed_slice())
                } else {
                    Truth::Any(xs.into_boxed_slice())
                }
            }
            _ => unreachable!(),
        }
    }

    #[test]
    fn display_parses_back_to_the_same_tree() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(41);
        for _ in 0..3000 {
            let tree = random_truth(&mut rng, 5, None);
            let c = Condition {
                text: String::new(),
                tree,
            };
            let text = c.to_string();
            let back = Condition::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(back, c, "{text}");
        }
    }

    #[test]
    fn arithmetic_in_conditions_by_hand() {
        // alive 7, size 10 (missing 3), round 2, damaged 1.
        let mut t = table();
        for (text, want) in [
            // 3 * 2 = 6 >= 10 is false; 3 * 4 = 12 >= 10 is true.
            ("missing * 2 >= size", false),
            ("missing * 4 >= size", true),
            // Precedence: 7 - 3 * 2 = 1, not 8.
            ("alive - missing * 2 == 1", true),
            ("(alive - missing) * 2 == 8", true),
            // Left to right: 10 - 7 - 3 = 0.
            ("size - alive - missing == 0", true),
            ("size - (alive - missing) == 6", true),
            ("-alive + size == 3", true),
            ("alive > -1", true),
            ("- -alive == 7", true),
            ("min(alive, 3) == 3 and max(alive, 3) == 7", true),
            ("abs(missing - alive) == 4", true),
            ("abs(round - damaged * 5) == 3", true),
            ("alive * alive * alive * 9 > 1", true),
        ] {
            assert_eq!(holds(text, &mut t), want, "{text}");
        }
        // The largest values the counts may take evaluate without wrapping.
        let mut big = Table {
            alive: COUNT_MAX,
            size: COUNT_MAX,
            ..table()
        };
        assert!(holds(
            "alive * alive * alive * 9 > size * size * size * 8",
            &mut big
        ));
    }

    #[test]
    fn expressions_over_metrics_by_hand() {
        let names = [
            "blue.alive",
            "red.alive",
            "blue.won",
            "red-guard.lost",
            "3rd.alive",
        ];
        let row = [7i64, 3, 1, 2, 5];
        let value = |text: &str| Expression::parse(text, &names).unwrap().value(|i| row[i]);
        assert_eq!(value("blue.alive - red.alive"), Some(4));
        assert_eq!(value("red-guard.lost - 1"), Some(1));
        assert_eq!(value("red-guard.lost-1"), Some(1));
        assert_eq!(value("3rd.alive * 2"), Some(10));
        assert_eq!(value("blue.won and red.alive <= 3"), Some(1));
        assert_eq!(value("blue.won and red.alive < 3"), Some(0));
        assert_eq!(value("not blue.won or red.alive"), Some(1));
        assert_eq!(
            value("(blue.alive > red.alive) + (blue.won == 1) * 10"),
            Some(11)
        );
        assert_eq!(value("max(0, red.alive - blue.alive)"), Some(0));
        assert_eq!(value("-9223372036854775807 - blue.won"), Some(i64::MIN));
        assert_eq!(value("-9223372036854775807 - blue.won - 1"), None);
        assert_eq!(value("abs(-9223372036854775807 - blue.won)"), None);
        assert_eq!(value("9223372036854775807 * blue.won"), Some(i64::MAX));
        // `and` stops before an overflowing operand that cannot change the answer.
        assert_eq!(
            value("red.alive > 5 and 9223372036854775807 + 1 > 0"),
            Some(0)
        );
        let e = Expression::parse("blue.alive + 9223372036854775808", &names).unwrap_err();
        assert!(e.message.contains("too large"), "{e}");
        let e = Expression::parse("red.alvie", &names).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad expression:\n    red.alvie\n    ^^^^^^^^^ unknown metric `red.alvie`; did you \
             mean `red.alive`? (the metrics are: blue.alive, red.alive, blue.won, \
             red-guard.lost, 3rd.alive)"
        );
        assert!(Expression::parse("", &names)
            .unwrap_err()
            .message
            .contains("empty"));
    }

    #[test]
    fn expressions_print_back_to_the_same_tree() {
        let names = ["a.x", "b.y", "c-d.z"];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(43);
        let mut leaf = |rng: &mut Xoshiro256PlusPlus| match rng.next_u64() % 4 {
            0 => Count::Literal((rng.next_u64() >> 1) as i64 % 100),
            1 => Count::Literal(i64::MAX),
            k => {
                let i = (k as usize + rng.next_u64() as usize) % names.len();
                Count::Metric(i as u32, names[i].into())
            }
        };
        for _ in 0..3000 {
            let mut tree = random_count(&mut rng, 4, &mut leaf);
            // Truths inside counts and counts read as truths.
            if rng.next_u64().is_multiple_of(3) {
                let a = random_count(&mut rng, 2, &mut leaf);
                let b = random_count(&mut rng, 2, &mut leaf);
                let t = match rng.next_u64() % 3 {
                    0 => Truth::Compare(a, Comparison::Le, b),
                    1 => Truth::All(vec![Truth::NonZero(a), Truth::NonZero(b)].into_boxed_slice()),
                    _ => Truth::Not(Box::new(Truth::NonZero(a))),
                };
                let of = Count::Of(Box::new(t));
                tree = Count::Sum(vec![(Sign::Plus, of), (Sign::Minus, tree)].into_boxed_slice());
            }
            let e = Expression {
                text: String::new(),
                tree,
            };
            let text = e.to_string();
            let back = Expression::parse(&text, &names).unwrap_or_else(|x| panic!("{text}: {x}"));
            assert_eq!(back, e, "{text}");
        }
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggestion("enemy_withn"), Some("enemy_within"));
        assert_eq!(suggestion("ENEMY_WITHIN"), Some("enemy_within"));
        assert_eq!(suggestion("in_rnage"), Some("in_range"));
        assert_eq!(suggestion("Turn"), Some("round"));
        assert_eq!(suggestion("xyz"), None);
        assert_eq!(suggestion("hp"), None);
    }

    #[test]
    fn errors_from_outside_the_parser_render_without_panicking() {
        for (offset, len) in [(0, 0), (3, 100), (100, 5), (1, 1), (usize::MAX, usize::MAX)] {
            let e = ConditionError {
                text: "ßa".into(),
                offset,
                len,
                message: "m".into(),
                kind: "condition",
            };
            assert!(e.to_string().ends_with("^ m"));
        }
    }
}
