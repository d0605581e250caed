//! A shoot-out engagement and the exact law of its end, by a Markov chain over model counts
//! worked out independently of the engines: the independent truth the engagement tests of
//! both engines are checked against.

use super::binomial_pmf;
use std::collections::BTreeMap;

/// Blue and red, `b` and `r` one-HP models on an open field, everything in range: each
/// activation every model makes one attack hitting with `pb` (blue) or `pr` (red).
pub fn shootout(b: u32, r: u32, pb: &str, pr: &str, first: &str, rounds: u32) -> String {
    format!(
        r#"
[scenario]
name = "shootout"
[engagement]
rounds = {rounds}
first = "{first}"
[[unit]]
id = "blue"
side = "blue"
size = {b}
resolve = "d6>=4"
weapon = {{ attacks = 1, hit = "{pb}", damage = 1, range = 48.0 }}
formation = {{ kind = "line", x = 10.0, y = 10.0, spacing = 1.5 }}
orders = [{{ command = "shoot", target = "nearest" }}]
[[unit]]
id = "red"
side = "red"
size = {r}
resolve = "d6>=4"
weapon = {{ attacks = 1, hit = "{pr}", damage = 1, range = 48.0 }}
formation = {{ kind = "line", x = 10.0, y = 30.0, spacing = 1.5 }}
orders = [{{ command = "shoot", target = "blue" }}]
"#
    )
}

/// An end of the chain: blue alive, red alive, rounds begun, blue's and red's volleys.
pub type End = (u32, u32, u32, u32, u32);

/// The exact law of a shoot-out's end, by iterating the chain: a round begins while both
/// sides have models; in it blue goes first with chance `blue_first(round)`; the first side's
/// volley kills min(Binomial(its models, p), enemy models), then, if the enemy still stands,
/// the other side's volley. Each volley is one declared Shoot.
pub fn chain(
    b0: u32,
    r0: u32,
    pb: f64,
    pr: f64,
    rounds: u32,
    blue_first: impl Fn(u32) -> f64,
) -> BTreeMap<End, f64> {
    let mut done: BTreeMap<End, f64> = BTreeMap::new();
    // (blue, red, blue volleys, red volleys)
    let mut live: BTreeMap<(u32, u32, u32, u32), f64> = BTreeMap::from([((b0, r0, 0, 0), 1.0)]);
    for round in 1..=rounds {
        let mut next: BTreeMap<(u32, u32, u32, u32), f64> = BTreeMap::new();
        for (&start, &p) in &live {
            let q = blue_first(round);
            for (blue_leads, pq) in [(true, q), (false, 1.0 - q)] {
                if pq == 0.0 {
                    continue;
                }
                let mut states = vec![(start, p * pq)];
                for turn in 0..2 {
                    let blue_shoots = (turn == 0) == blue_leads;
                    let mut after = Vec::new();
                    for ((b, r, nb, nr), p) in states {
                        if blue_shoots {
                            for (k, q) in binomial_pmf(b, pb) {
                                after.push(((b, r.saturating_sub(k as u32), nb + 1, nr), p * q));
                            }
                        } else {
                            for (k, q) in binomial_pmf(r, pr) {
                                after.push(((b.saturating_sub(k as u32), r, nb, nr + 1), p * q));
                            }
                        }
                    }
                    states = Vec::new();
                    for ((b, r, nb, nr), p) in after {
                        if b == 0 || r == 0 {
                            *done.entry((b, r, round, nb, nr)).or_default() += p;
                        } else {
                            states.push(((b, r, nb, nr), p));
                        }
                    }
                }
                for (s, p) in states {
                    *next.entry(s).or_default() += p;
                }
            }
        }
        live = next;
    }
    for ((b, r, nb, nr), p) in live {
        *done.entry((b, r, rounds, nb, nr)).or_default() += p;
    }
    done
}

pub fn marginal(law: &BTreeMap<End, f64>, f: impl Fn(End) -> i64) -> Vec<(i64, f64)> {
    let mut m: BTreeMap<i64, f64> = BTreeMap::new();
    for (&end, &p) in law {
        *m.entry(f(end)).or_default() += p;
    }
    m.into_iter().filter(|&(_, p)| p > 0.0).collect()
}
