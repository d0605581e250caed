//! Moments and tail probabilities of an exact distribution: a pmf as `(value, probability)` pairs,
//! ascending by value, probabilities positive and summing to 1 within 1e-12.

/// Mean, population variance, and support of an exact pmf.
#[derive(Debug, Clone, PartialEq)]
pub struct Moments {
    pub mean: f64,
    /// `E[(X - mean)^2]`, the population variance of the distribution itself.
    pub variance: f64,
    pub min: i64,
    pub max: i64,
}

/// `None` for an empty pmf.
pub fn moments(pmf: &[(i64, f64)]) -> Option<Moments> {
    let (min, max) = (pmf.first()?.0, pmf.last()?.0);
    let total: f64 = pmf.iter().map(|&(_, p)| p).sum();
    let mean = pmf.iter().map(|&(v, p)| v as f64 * p).sum::<f64>() / total;
    // Central form, so a large mean does not cancel the variance away.
    let variance = pmf
        .iter()
        .map(|&(v, p)| {
            let d = v as f64 - mean;
            d * d * p
        })
        .sum::<f64>()
        / total;
    Some(Moments {
        mean,
        variance,
        min,
        max,
    })
}

/// `P(X >= value)` for each value of the pmf, in its order. Each is summed from the side
/// where it is small (1 minus the lower tail, or the upper tail), so the first is exactly 1
/// and far upper tails keep their relative precision.
pub fn at_least(pmf: &[(i64, f64)]) -> Vec<f64> {
    let mut upper = vec![0.0; pmf.len() + 1];
    for i in (0..pmf.len()).rev() {
        upper[i] = upper[i + 1] + pmf[i].1;
    }
    let mut below = 0.0;
    pmf.iter()
        .enumerate()
        .map(|(i, &(_, p))| {
            let v = if below <= 0.5 { 1.0 - below } else { upper[i] };
            below += p;
            v
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_and_tails_of_a_small_pmf() {
        let pmf = [(0, 0.25), (1, 0.5), (2, 0.25)];
        let m = moments(&pmf).unwrap();
        assert_eq!((m.mean, m.variance, m.min, m.max), (1.0, 0.5, 0, 2));
        assert_eq!(at_least(&pmf), vec![1.0, 0.75, 0.25]);
        assert!(moments(&[]).is_none());
    }
}
