//! A dice test's exact success probability: the dice sums are counted over every equally likely
//! outcome in `u128` (both rolls when the test rerolls) and the winning share is reduced to a
//! [`Fraction`], which the exact engine composes without rounding and the sampler is built from.

use super::{Comparison, DiceTest, Fraction, Reroll};

impl DiceTest {
    /// Exact success probability of one test, counted over every equally likely outcome
    /// (both rolls included when the test rerolls), reduced.
    pub fn probability(&self) -> Fraction {
        let dist = sum_ways(
            self.count(),
            self.sides(),
            self.reroll() == Some(Reroll::Ones),
        );
        let total: u128 = dist.iter().sum();
        // Index i of `dist` is a dice sum of `count + i`; the test succeeds for
        // `sum + modifier` against `target`, i.e. for i against `bound` (no overflow in i64).
        let bound = i64::from(self.target()) - i64::from(self.modifier()) - i64::from(self.count());
        let len = dist.len() as i64;
        let wins: u128 = match self.comparison() {
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
        match self.reroll() {
            // A failed test is rolled again: p + (1-p)p = p(2-p) = n(2d-n)/d^2. The squared
            // denominator fits because parse limited the outcomes of both rolls (see
            // MAX_OUTCOMES_LOG2).
            Some(Reroll::Fails) => Fraction::new(p.num * (2 * p.den - p.num), p.den * p.den),
            _ => p,
        }
    }
}

/// Number of ways (out of sides^count, or sides^(2 count) with `reroll ones`) to roll
/// each dice sum, index 0 being the smallest sum `count`.
pub(super) fn sum_ways(count: u32, sides: u32, reroll_ones: bool) -> Vec<u128> {
    let s = sides as usize;
    // With `reroll ones`, a die reads f >= 2 when it first shows f (1 way of S) or first
    // shows 1 then f (1 way of S*S): S+1 ways of S*S; it reads 1 only as 1 then 1: 1 way.
    // Every face but 1 weighs the same, which lets each convolution step use a sliding
    // window instead of multiplying by every face (O(range) rather than O(range * S)).
    let (weight_one, weight_other): (u128, u128) = if reroll_ones {
        (1, u128::from(sides) + 1)
    } else {
        (1, 1)
    };
    let mut dist: Vec<u128> = vec![1];
    let mut prefix: Vec<u128> = Vec::new();
    for _ in 0..count {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn frac(num: u128, den: u128) -> Fraction {
        Fraction::new(num, den)
    }

    fn prob(text: &str) -> Fraction {
        DiceTest::parse(text).unwrap().probability()
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
                            let text = format!(
                                "{n}d{s}{k:+}{}{t}{}",
                                if at_least { ">=" } else { "<=" },
                                reroll
                                    .map_or(String::new(), |r| format!(" reroll {}", r.keyword()))
                            );
                            if reroll == Some(Reroll::Ones) && !at_least {
                                // Refused by the parser (rerolling a passing one never helps).
                                assert!(DiceTest::parse(&text).is_err(), "{text}");
                                continue;
                            }
                            let test = DiceTest::parse(&text).unwrap();
                            assert_eq!(
                                (test.count(), test.sides(), test.modifier(), test.target()),
                                (n, s, k, t),
                                "{text}"
                            );
                            let expected = brute_force(n, s, k.into(), at_least, t.into(), reroll);
                            assert_eq!(test.probability(), expected, "{test}");
                        }
                    }
                }
            }
        }
    }
}
