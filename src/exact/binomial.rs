//! Binomial probability mass functions in `f64`, from exact per-test probabilities.
//!
//! The exact engine is meant to check the Monte Carlo path, so its pmfs are not computed the
//! way the sampler's tables are (`crate::dice::SuccessCount` walks the ratio
//! `P(k+1)/P(k)` outwards from the mode and normalises). Instead every term is computed on
//! its own, in one of two ways:
//!
//! - While `b^m` fits in a `u128` (for `p = a/b`; this covers the dice pools of a table-top
//!   game), exactly: `C(m, k) a^k (b-a)^(m-k) / b^m` in integers, rounded once to the nearest
//!   `f64`. A probability an `f64` can hold, such as `5/32`, comes out as exactly that.
//! - Beyond, from Stirling's formula with its error term, in Loader's saddle-point form:
//!
//! ```text
//! P(k) = sqrt(m / (2 pi k (m-k))) * exp(d(m) - d(k) - d(m-k) - D(k, mp) - D(m-k, mq))
//! ```
//!
//! where `d(n) = ln n! - ln(sqrt(2 pi n) (n/e)^n)` is Stirling's error and
//! `D(x, M) = x ln(x/M) + M - x` the deviance of a count `x` from its mean `M`, with `p` and
//! `q = 1 - p` each taken from the exact fraction, and the end terms `q^m` and `p^m` taken
//! directly. Near the mode both deviances are small and summed as series without
//! cancellation, so the terms that carry the mass keep a relative error of a few ulps, and a
//! term of probability `P` far out in a tail a few ulps times `|ln P|`. Nothing is normalised
//! or carried from term to term, nothing overflows, and far tails underflow harmlessly to 0.
//!
//! [`Pmfs`] caches the pmfs by `(m, p)`.

use crate::dice::Fraction;
use std::collections::HashMap;
use std::rc::Rc;

/// `P(X = k)` for `X ~ Binomial(m, p)`, `k = 0..=m`; sums to 1 within rounding.
pub fn pmf(m: u32, p: Fraction) -> Vec<f64> {
    let n = m as usize;
    let mut out = vec![0.0; n + 1];
    if p.num == 0 {
        out[0] = 1.0;
        return out;
    }
    if p.num >= p.den {
        out[n] = 1.0;
        return out;
    }
    exact_pmf(m, p).unwrap_or_else(|| saddle_point_pmf(m, p))
}

/// Every term as its exact fraction `C(m, k) a^k (b-a)^(m-k) / b^m` (for `p = a/b`) rounded
/// once, or `None` when `b^m` does not fit in a `u128`. Each numerator is a term of the
/// binomial expansion of `(a + (b-a))^m = b^m`, so it fits whenever `b^m` does.
fn exact_pmf(m: u32, p: Fraction) -> Option<Vec<f64>> {
    let (a, b) = (p.num, p.den);
    let den = b.checked_pow(m)?;
    // Row m of Pascal's triangle, by additions only; its entries are below 2^m <= b^m.
    let mut choose = vec![1u128];
    for _ in 0..m {
        choose = (0..=choose.len())
            .map(|k| {
                let left = if k > 0 { choose[k - 1] } else { 0 };
                left + choose.get(k).copied().unwrap_or(0)
            })
            .collect();
    }
    (0..=m)
        .map(|k| {
            let num = choose[k as usize]
                .checked_mul(a.checked_pow(k)?)?
                .checked_mul((b - a).checked_pow(m - k)?)?;
            Some(ratio(num, den))
        })
        .collect()
}

/// `num / den` for `num <= den`, rounded once to the nearest `f64` (ties to even).
fn ratio(num: u128, den: u128) -> f64 {
    if num == 0 {
        return 0.0;
    }
    if num >= den {
        return 1.0;
    }
    // Binary long division: the bits of num/den after the point, one at a time. `rem < den`
    // throughout, and doubling it is compared through `den - rem`, so nothing overflows.
    let mut rem = num;
    let mut next_bit = || {
        let bit = rem >= den - rem;
        rem = if bit { rem - (den - rem) } else { rem + rem };
        bit
    };
    // The first 1 is bit `lead` after the point (num/den >= 1/den > 2^-128, so lead <= 128).
    let mut lead = 1;
    while !next_bit() {
        lead += 1;
    }
    // Sixty-four significant bits: 53 to keep, 11 to round on, then whether anything is left.
    let mut bits = 1u64;
    for _ in 1..64 {
        bits = (bits << 1) | u64::from(next_bit());
    }
    let inexact = rem != 0;
    let (mut kept, dropped) = (bits >> 11, bits & 0x7ff);
    let half = 0x400;
    if dropped > half || (dropped == half && (inexact || kept & 1 == 1)) {
        // May carry to 2^53, which is still exact.
        kept += 1;
    }
    // num/den = kept * 2^-(lead + 52); both factors are exact f64 values and so is their
    // product, far from the subnormal range.
    kept as f64 * 2f64.powi(-(lead + 52))
}

/// Every term from Stirling's formula (see the module doc), for `0 < p < 1`.
fn saddle_point_pmf(m: u32, p: Fraction) -> Vec<f64> {
    let (p, q) = (p.to_f64(), p.one_minus().to_f64());
    (0..=m).map(|k| term(m, k, p, q)).collect()
}

/// `P(X = k)` for `0 < p < 1`.
fn term(m: u32, k: u32, p: f64, q: f64) -> f64 {
    let n = f64::from(m);
    if k == 0 {
        return (n * ln_of(q, p)).exp();
    }
    if k == m {
        return (n * ln_of(p, q)).exp();
    }
    let (x, y) = (f64::from(k), f64::from(m - k));
    let exponent = stirling_error(m)
        - stirling_error(k)
        - stirling_error(m - k)
        - deviance(x, n * p)
        - deviance(y, n * q);
    let scale = n / (2.0 * std::f64::consts::PI * x * y);
    scale.sqrt() * exponent.exp()
}

/// `ln a` for a probability `a = 1 - b`: from whichever of the two is small, so a value near
/// 1 does not lose the digits of its complement.
fn ln_of(a: f64, b: f64) -> f64 {
    if b < 0.5 {
        (-b).ln_1p()
    } else {
        a.ln()
    }
}

/// `d(n) = ln n! - ln(sqrt(2 pi n) (n/e)^n)`, the error of Stirling's formula, which is small
/// and positive for `n >= 1`.
fn stirling_error(n: u32) -> f64 {
    // Small n, where the series below converges too slowly: each the f64 nearest the true
    // value, worked out to more digits than an f64 holds (0 stands for n = 0, never asked).
    const TABLE: [f64; 16] = [
        0.0,
        0.08106146679532726,
        0.0413406959554093,
        0.02767792568499834,
        0.020790672103765093,
        0.016644691189821193,
        0.013876128823070748,
        0.01189670994589177,
        0.010411265261972096,
        0.009255462182712733,
        0.00833056343336287,
        0.007573675487951841,
        0.00694284010720953,
        0.006408994188004207,
        0.0059513701127588475,
        0.005554733551962801,
    ];
    if let Some(&d) = TABLE.get(n as usize) {
        return d;
    }
    // The asymptotic series, whose first omitted term, 691/(360360 n^11), is lost in f64
    // rounding once n is past the table.
    let n = f64::from(n);
    let nn = n * n;
    let (s0, s1, s2, s3, s4) = (
        1.0 / 12.0,
        1.0 / 360.0,
        1.0 / 1260.0,
        1.0 / 1680.0,
        1.0 / 1188.0,
    );
    (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n
}

/// `D(x, mean) = x ln(x/mean) + mean - x` for `x, mean > 0`: how far a count lies from its
/// mean, zero at the mean.
fn deviance(x: f64, mean: f64) -> f64 {
    let diff = x - mean;
    let sum = x + mean;
    if diff.abs() < 0.5 * sum {
        // Close to the mean the closed form cancels; with v = (x - mean)/(x + mean),
        // ln(x/mean) = 2 artanh(v) gives D = (x - mean) v + 2x (v^3/3 + v^5/5 + ...), every
        // term of one sign and each at most a quarter of the one before. Further out the
        // closed form loses only a small factor to cancellation.
        let v = diff / sum;
        let v2 = v * v;
        let mut total = diff * v;
        let mut power = 2.0 * x * v;
        for j in 1..1000u32 {
            power *= v2;
            let next = total + power / f64::from(2 * j + 1);
            if next == total {
                break;
            }
            total = next;
        }
        return total;
    }
    x * (x / mean).ln() + mean - x
}

/// A cache of binomial pmfs, shared by every step of one dynamic programme.
#[derive(Default)]
pub struct Pmfs {
    cache: HashMap<(u32, Fraction), Rc<[f64]>>,
}

impl Pmfs {
    pub fn get(&mut self, m: u32, p: Fraction) -> Rc<[f64]> {
        self.cache
            .entry((m, p))
            .or_insert_with(|| pmf(m, p).into())
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::SuccessCount;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn frac(num: u128, den: u128) -> Fraction {
        Fraction::new(num, den)
    }

    #[test]
    fn small_pmfs_by_hand() {
        // Three fair tests: 1, 3, 3, 1 ways out of 8, each exact in an f64.
        assert_eq!(pmf(3, frac(1, 2)), [1.0, 3.0, 3.0, 1.0].map(|w| w / 8.0));
        // Two tests at 1/6: 25, 10, 1 ways of 36; one f64 division rounds each once too.
        assert_eq!(pmf(2, frac(1, 6)), [25.0, 10.0, 1.0].map(|w| w / 36.0));
        // Four tests at 35/36: C(4, k) 35^k of 36^4 = 1,679,616.
        assert_eq!(
            pmf(4, frac(35, 36)),
            [1.0, 140.0, 7350.0, 171_500.0, 1_500_625.0].map(|w| w / 1_679_616.0)
        );
        assert_eq!(pmf(0, frac(1, 3)), vec![1.0]);
        assert_eq!(pmf(1, frac(1, 3)), vec![2.0 / 3.0, 1.0 / 3.0]);
        assert_eq!(pmf(3, Fraction::ZERO), vec![1.0, 0.0, 0.0, 0.0]);
        assert_eq!(pmf(3, Fraction::ONE), vec![0.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn ratios_round_once() {
        // Below 2^53 both integers are exact f64 values, and IEEE division rounds their
        // quotient once, to nearest even: the reference.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(13);
        for _ in 0..100_000 {
            let den = (rng.next_u64() >> (11 + rng.next_u64() % 50)).max(1);
            let num = rng.next_u64() % (den + 1);
            let want = num as f64 / den as f64;
            assert_eq!(ratio(num.into(), den.into()), want, "{num}/{den}");
            // Scaling the denominator by a power of two scales the quotient exactly.
            let shift = rng.next_u64() % 70;
            let scaled = ratio(num.into(), u128::from(den) << shift);
            assert_eq!(
                scaled,
                want * 2f64.powi(-(shift as i32)),
                "{num}/{den} >> {shift}"
            );
        }
        // Halfway cases go to the even neighbour, anything past half goes up.
        let half_ulp = 1u128 << 54;
        assert_eq!(ratio((1 << 53) + 1, half_ulp), 0.5);
        assert_eq!(ratio((1 << 53) + 3, half_ulp), 0.5 + 2f64.powi(-52));
        assert_eq!(
            ratio(((1 << 53) + 1) << 70 | 1, half_ulp << 70),
            0.5 + 2f64.powi(-53)
        );
        // The extremes of u128.
        assert_eq!(ratio(1, u128::MAX), 2f64.powi(-128));
        assert_eq!(ratio(u128::MAX - 1, u128::MAX), 1.0);
        assert_eq!(ratio(u128::MAX / 3, u128::MAX), 1.0 / 3.0);
    }

    #[test]
    fn the_two_methods_agree() {
        // Wherever the exact fraction can be had, the saddle-point terms must match it: the
        // exponential's argument is about ln P(k) and is rounded to a few of its ulps, so a
        // term is good to a few ulps times (1 + |ln P(k)|), a few ulps where the mass is.
        for (m_max, p) in [
            (127, frac(1, 2)),
            (49, frac(1, 6)),
            (49, frac(5, 6)),
            (80, frac(2, 3)),
            (63, frac(3, 4)),
            (24, frac(35, 36)),
            (24, frac(1, 36)),
            (35, frac(7, 12)),
            (22, frac(35, 48)),
        ] {
            assert!(exact_pmf(m_max + 1, p).is_none(), "{p}: b^m fits further");
            for m in 1..=m_max {
                let exact = exact_pmf(m, p).expect("b^m fits");
                let saddle = saddle_point_pmf(m, p);
                for (k, (&e, &s)) in exact.iter().zip(&saddle).enumerate() {
                    let tolerance = 4.0 * (4.0 + e.ln().abs()) * f64::EPSILON * e;
                    assert!((e - s).abs() <= tolerance, "m={m} p={p} k={k}: {e} vs {s}");
                }
            }
        }
    }

    #[test]
    fn agrees_with_the_samplers_tables() {
        // The sampler's pmf, and the probability its table gives each count (the share of
        // 64-bit words drawing it), must both agree with this independent computation. 1e-12
        // leaves room for f64 rounding over thousands of terms and for the table's 2^-64 grid.
        const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
        for m in [0u32, 1, 2, 3, 7, 10, 40, 100, 333, 1000, 2500] {
            for p in [
                Fraction::ZERO,
                Fraction::ONE,
                frac(1, 2),
                frac(1, 6),
                frac(5, 6),
                frac(1, 3),
                frac(3, 4),
                frac(35, 36),
                frac(1, 1296),
                frac(1, 1 << 100),
                frac((1 << 100) - 1, 1 << 100),
            ] {
                let exact = pmf(m, p);
                let table = SuccessCount::new(m, p);
                assert_eq!(exact.len(), table.pmf().len());
                let sum: f64 = exact.iter().sum();
                assert!((sum - 1.0).abs() < 1e-12, "m={m} p={p}: sum {sum}");
                for (k, (&e, &s)) in exact.iter().zip(table.pmf()).enumerate() {
                    assert!((e - s).abs() < 1e-12, "m={m} p={p} k={k}: {e} vs {s}");
                    let words = table
                        .words_drawing(k as u32)
                        .map_or(0.0, |(low, high)| (high - low) as f64 + 1.0);
                    let drawn = words / TWO_POW_64;
                    assert!(
                        (e - drawn).abs() < 1e-12,
                        "m={m} p={p} k={k}: {e} vs {drawn}"
                    );
                }
            }
        }
    }

    #[test]
    fn large_counts_and_extreme_odds() {
        for m in [5000u32, 100_000] {
            let big = pmf(m, frac(1, 3));
            assert!((big.iter().sum::<f64>() - 1.0).abs() < 1e-13);
            // Mean mp and variance mp(1-p).
            let mean: f64 = big.iter().enumerate().map(|(k, p)| k as f64 * p).sum();
            let var: f64 = big
                .iter()
                .enumerate()
                .map(|(k, p)| (k as f64 - mean).powi(2) * p)
                .sum();
            let m = f64::from(m);
            assert!((mean - m / 3.0).abs() < 1e-10 * m, "mean {mean}");
            assert!((var - m * 2.0 / 9.0).abs() < 1e-9 * m, "var {var}");
            assert!(big.iter().all(|x| x.is_finite() && *x >= 0.0));
        }
        // Near-certain tests keep their rare outcomes, on both paths: P(m) = (1-q)^m and
        // P(m-1) = m (1-q)^(m-1) q with q = 2^-100.
        for m in [10, 200] {
            let sure = pmf(m, frac((1 << 100) - 1, 1 << 100));
            let q = 2f64.powi(-100);
            assert!((sure[m as usize] - 1.0).abs() < 1e-15);
            let want = f64::from(m) * q;
            assert!((sure[m as usize - 1] - want).abs() < 1e-14 * want, "m={m}");
        }
    }

    #[test]
    fn the_stirling_table_joins_the_series() {
        // ln n! summed from its definition against Stirling's formula with the error term:
        // accurate enough to check the table's every entry and the series beyond it.
        let mut ln_fact = 0.0f64;
        for n in 1..=40u32 {
            ln_fact += f64::from(n).ln();
            let nf = f64::from(n);
            let stirling = 0.5 * (2.0 * std::f64::consts::PI * nf).ln() + nf * nf.ln() - nf;
            let d = ln_fact - stirling;
            assert!(
                (stirling_error(n) - d).abs() < 1e-13,
                "n={n}: {} vs {d}",
                stirling_error(n)
            );
        }
    }
}
