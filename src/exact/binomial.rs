//! Binomial probability mass functions in `f64`, from exact per-test probabilities.
//!
//! Written here rather than borrowed from the samplers in `dice`, so the exact engine stays an
//! independent check of the Monte Carlo path. Each pmf is walked outwards from its mode by the
//! ratio `P(k+1)/P(k) = (m-k)/(k+1) * p/(1-p)` and then normalised: nothing overflows, far
//! tails underflow harmlessly to 0, and every term keeps a relative error of a few ulps per
//! step from the mode. The odds come from the exact fraction, so `p` near 1 keeps its
//! precision. [`Pmfs`] caches them by `(m, p)`.

use crate::dice::Fraction;
use std::collections::HashMap;
use std::rc::Rc;

/// `P(X = k)` for `X ~ Binomial(m, p)`, `k = 0..=m`; sums to 1 within about `1e-15`.
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
    let odds = p.num as f64 / (p.den - p.num) as f64;
    // The mode of a binomial is floor((m + 1) p).
    let mode = ((u128::from(m) + 1) * p.num / p.den).min(n as u128) as usize;
    out[mode] = 1.0;
    for k in mode..n {
        out[k + 1] = out[k] * ((n - k) as f64 / (k + 1) as f64) * odds;
    }
    for k in (1..=mode).rev() {
        out[k - 1] = out[k] * (k as f64 / (n - k + 1) as f64) / odds;
    }
    let total: f64 = out.iter().sum();
    for x in &mut out {
        *x /= total;
    }
    out
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

    fn closed_form(m: u32, p: f64) -> Vec<f64> {
        (0..=m)
            .map(|k| {
                let choose: f64 = (0..k).map(|i| (m - i) as f64 / (i + 1) as f64).product();
                choose * p.powi(k as i32) * (1.0 - p).powi((m - k) as i32)
            })
            .collect()
    }

    #[test]
    fn matches_the_formula() {
        for (m, num, den) in [
            (0, 1, 2),
            (1, 1, 2),
            (5, 1, 2),
            (10, 1, 6),
            (30, 5, 6),
            (7, 2, 3),
        ] {
            let got = pmf(m, Fraction::new(num, den));
            let want = closed_form(m, num as f64 / den as f64);
            for (a, b) in got.iter().zip(&want) {
                assert!((a - b).abs() < 1e-14, "m={m} p={num}/{den}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn certain_tests_and_large_counts() {
        assert_eq!(pmf(3, Fraction::ZERO), vec![1.0, 0.0, 0.0, 0.0]);
        assert_eq!(pmf(3, Fraction::ONE), vec![0.0, 0.0, 0.0, 1.0]);
        let big = pmf(5000, Fraction::new(1, 3));
        assert!((big.iter().sum::<f64>() - 1.0).abs() < 1e-13);
        let mean: f64 = big.iter().enumerate().map(|(k, p)| k as f64 * p).sum();
        assert!((mean - 5000.0 / 3.0).abs() < 1e-9);
    }
}
