//! Derived metrics (`[metrics]`): new per-trial metrics computed from a trial's own metric
//! values, each an [`Expression`] over the metrics an arm writes and the other derived
//! metrics.
//!
//! An arm's row of metric values is laid out as the rules write it (the built-in metrics),
//! then the derived metrics in file order; each expression names metrics by their index in that
//! row, so a trial evaluates them in place, in an order where every derived metric comes after
//! those it reads ([`Derived::evaluate`]). The same row serves the exact engine, which
//! evaluates them on every joint outcome of the built-in metrics.

use super::{Expression, RESERVED};
use std::collections::BTreeSet;

/// The largest magnitude a derived metric's value may have: 2^32. Histograms sum the squares
/// of values exactly in 128 bits, and (2^32)^2 times the most trials a run may have (2^63)
/// is 2^127, so every statistic of a derived metric stays exact. Arithmetic in between runs
/// over all of `i64`, checked.
pub const VALUE_MAX: i64 = 1 << 32;

/// The derived metrics of one arm, parsed and ordered.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Derived {
    /// How many built-in metrics the arm's row holds before the derived ones.
    builtins: usize,
    /// In file order.
    metrics: Vec<(String, Expression)>,
    /// Indices into `metrics`, each after every derived metric it reads.
    order: Vec<usize>,
}

/// A `[metrics]` entry that cannot be used: its name (the key under `metrics`) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DerivedError {
    pub name: String,
    pub message: String,
}

impl Derived {
    /// Parses `entries` (name, expression text, in file order) over an arm whose rules write
    /// the metrics `builtins`. Refuses a name that is not a plain word, is reserved or is a
    /// built-in metric, an expression that does not parse over the built-in and derived
    /// names, and derived metrics that read each other in a cycle.
    pub fn parse(
        entries: &[(String, String)],
        builtins: &[String],
    ) -> Result<Derived, DerivedError> {
        let names: Vec<&str> = builtins
            .iter()
            .map(String::as_str)
            .chain(entries.iter().map(|(n, _)| n.as_str()))
            .collect();
        let mut metrics = Vec::with_capacity(entries.len());
        for (j, (name, text)) in entries.iter().enumerate() {
            let fail = |message: String| DerivedError {
                name: name.clone(),
                message,
            };
            check_name(name, builtins).map_err(fail)?;
            let expression = Expression::parse(text, &names).map_err(|e| fail(e.to_string()))?;
            if expression.inputs().contains(&(builtins.len() + j)) {
                return Err(fail(format!(
                    "`{name}` = `{text}` reads itself; a derived metric is computed from other \
                     metrics"
                )));
            }
            metrics.push((name.clone(), expression));
        }
        let order = order(&metrics, builtins.len())?;
        Ok(Derived {
            builtins: builtins.len(),
            metrics,
            order,
        })
    }

    /// Whether there are no derived metrics.
    pub fn is_empty(&self) -> bool {
        self.metrics.is_empty()
    }

    /// The derived metrics' names and expressions, in file order (their order in the row).
    pub fn metrics(&self) -> impl Iterator<Item = (&str, &Expression)> {
        self.metrics.iter().map(|(n, e)| (n.as_str(), e))
    }

    /// How many built-in metrics come before the derived ones in the arm's row.
    pub fn builtins(&self) -> usize {
        self.builtins
    }

    /// The built-in metrics (indices into the row) derived metric `j` reads, directly or
    /// through other derived metrics, ascending.
    pub fn builtin_inputs(&self, j: usize) -> Vec<usize> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![j];
        let mut out = BTreeSet::new();
        while let Some(k) = todo.pop() {
            if !seen.insert(k) {
                continue;
            }
            for i in self.metrics[k].1.inputs() {
                match i.checked_sub(self.builtins) {
                    Some(d) => todo.push(d),
                    None => {
                        out.insert(i);
                    }
                }
            }
        }
        out.into_iter().collect()
    }

    /// Computes every derived metric of `row` (the built-in values, then one slot per
    /// derived metric) in place. On overflow, returns the index (in file order) of the first
    /// derived metric whose arithmetic left `i64` or whose value lies beyond +-[`VALUE_MAX`];
    /// the slots not yet computed are left as they were. Allocates nothing.
    pub fn evaluate(&self, row: &mut [i64]) -> Result<(), usize> {
        for &j in &self.order {
            let value = self.metrics[j].1.value(|i| row[i]);
            match value {
                Some(v) if v.unsigned_abs() <= VALUE_MAX.unsigned_abs() => {
                    row[self.builtins + j] = v
                }
                _ => return Err(j),
            }
        }
        Ok(())
    }
}

/// A derived metric's name: a word an expression can name, and not already a metric.
fn check_name(name: &str, builtins: &[String]) -> Result<(), String> {
    if builtins.iter().any(|b| b == name) {
        return Err(format!(
            "`{name}` is already a metric of this scenario; a derived metric needs a new name"
        ));
    }
    let word = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && crate::config::is_identifier(name);
    if !word {
        return Err(format!(
            "`{}` cannot name a metric: use 1 to {} letters, digits, '_' or '-', starting with a \
             letter or '_'",
            crate::config::suggest::clip(name),
            crate::config::limits::MAX_NAME
        ));
    }
    if RESERVED.contains(&name) {
        return Err(format!(
            "`{name}` is a word of the expression grammar ({}); choose another name",
            RESERVED.join(", ")
        ));
    }
    Ok(())
}

/// An evaluation order: repeatedly the first derived metric (in file order) whose derived
/// inputs are all computed. When none is left but some remain, they read each other in a
/// cycle, which the error traces from the first of them.
fn order(metrics: &[(String, Expression)], builtins: usize) -> Result<Vec<usize>, DerivedError> {
    let reads: Vec<Vec<usize>> = metrics
        .iter()
        .map(|(_, e)| {
            e.inputs()
                .into_iter()
                .filter_map(|i| i.checked_sub(builtins))
                .collect()
        })
        .collect();
    let mut done = vec![false; metrics.len()];
    let mut order = Vec::with_capacity(metrics.len());
    while order.len() < metrics.len() {
        let next = (0..metrics.len()).find(|&j| !done[j] && reads[j].iter().all(|&k| done[k]));
        let Some(j) = next else {
            return Err(cycle(metrics, &reads, &done));
        };
        done[j] = true;
        order.push(j);
    }
    Ok(order)
}

/// The error for a cycle among the derived metrics not `done`: the path from the first of
/// them, following the first input not done, until a metric repeats.
fn cycle(metrics: &[(String, Expression)], reads: &[Vec<usize>], done: &[bool]) -> DerivedError {
    let start = done.iter().position(|d| !d).unwrap_or(0);
    let mut path = vec![start];
    let mut seen = BTreeSet::from([start]);
    let mut at = start;
    while let Some(&next) = reads[at].iter().find(|&&k| !done[k]) {
        path.push(next);
        if !seen.insert(next) {
            break;
        }
        at = next;
    }
    // The cycle proper starts where the repeated metric first appeared.
    let last = *path.last().unwrap_or(&start);
    let from = path.iter().position(|&k| k == last).unwrap_or(0);
    let shown: Vec<String> = path[from..]
        .iter()
        .map(|&k| format!("`{}`", metrics[k].0))
        .collect();
    let first = path[from];
    DerivedError {
        name: metrics[first].0.clone(),
        message: format!(
            "`{}` = `{}`: derived metrics read each other in a cycle: {}; one of them must be \
             computed from the others without it",
            metrics[first].0,
            metrics[first].1.text(),
            shown.join(" -> ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect()
    }

    fn builtins() -> Vec<String> {
        ["blue.alive", "red.alive", "blue.won"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn derived_metrics_are_computed_after_those_they_read() {
        // `double` reads `margin`, defined after it.
        let d = Derived::parse(
            &entries(&[
                ("double", "margin * 2"),
                ("margin", "blue.alive - red.alive"),
                ("close", "abs(margin) <= 1 and not blue.won"),
            ]),
            &builtins(),
        )
        .unwrap();
        let mut row = [5, 7, 0, 99, 99, 99];
        d.evaluate(&mut row).unwrap();
        // margin = 5 - 7 = -2, double = -4, close = (2 <= 1) = 0.
        assert_eq!(row, [5, 7, 0, -4, -2, 0]);
        let mut row = [3, 3, 0, 0, 0, 0];
        d.evaluate(&mut row).unwrap();
        assert_eq!(row, [3, 3, 0, 0, 0, 1]);
    }

    #[test]
    fn overflow_names_the_metric_instead_of_wrapping() {
        let d = Derived::parse(
            &entries(&[("fine", "blue.alive + 1"), ("big", "red.alive * red.alive")]),
            &builtins(),
        )
        .unwrap();
        // 3,037,000,500^2 passes i64::MAX; 65,537^2 passes 2^32; 65,536^2 is 2^32.
        let mut row = [1, 3_037_000_500, 0, 0, 0];
        assert_eq!(d.evaluate(&mut row), Err(1));
        let mut row = [VALUE_MAX, 1, 0, 0, 0];
        assert_eq!(d.evaluate(&mut row), Err(0));
        let mut row = [1, 65_537, 0, 0, 0];
        assert_eq!(d.evaluate(&mut row), Err(1));
        let mut row = [1, -65_536, 0, 0, 0];
        assert_eq!(d.evaluate(&mut row), Ok(()));
        assert_eq!(row[3..], [2, VALUE_MAX]);
    }

    #[test]
    fn bad_entries_are_refused_with_their_name() {
        let refuse =
            |list: &[(&str, &str)]| Derived::parse(&entries(list), &builtins()).unwrap_err();
        let e = refuse(&[("m", "blue.alvie - red.alive")]);
        assert_eq!(e.name, "m");
        assert!(e.message.contains("bad expression:\n    blue.alvie - red.alive\n    ^^^^^^^^^^ unknown metric `blue.alvie`; did you mean `blue.alive`?"), "{}", e.message);
        let e = refuse(&[("a", "b + 1"), ("b", "c"), ("c", "b * 2")]);
        assert_eq!(e.name, "b");
        assert!(
            e.message.contains("cycle: `b` -> `c` -> `b`"),
            "{}",
            e.message
        );
        let e = refuse(&[("a", "a + 1")]);
        assert!(e.message.contains("reads itself"), "{}", e.message);
        let e = refuse(&[("blue.alive", "1")]);
        assert!(e.message.contains("already a metric"), "{}", e.message);
        let e = refuse(&[("a.b", "1")]);
        assert!(e.message.contains("cannot name a metric"), "{}", e.message);
        let e = refuse(&[("min", "1")]);
        assert!(
            e.message.contains("word of the expression grammar"),
            "{}",
            e.message
        );
        let e = Derived::parse(&entries(&[("x", "1")]), &["x".to_string()]).unwrap_err();
        assert!(e.message.contains("already a metric"), "{}", e.message);
        let e = refuse(&[("m", "blue.alive / 2")]);
        assert!(e.message.contains("no division"), "{}", e.message);
        let e = refuse(&[("m", "(blue.alive - red.alive")]);
        assert!(e.message.contains("never closed"), "{}", e.message);
    }
}
