//! The sampler the Monte Carlo engine plays dice tests with. Once a test is reduced to its
//! probability, rolling the actual dice is wasted work: [`SuccessCount`] turns "how many of
//! these `m` identical tests succeed" (a single test being `m = 1`) into one random word and a
//! table lookup. It draws exactly one word whatever the probability or the number of tests, so
//! the random stream, and with it every reproducible result, does not depend on the dice
//! being rolled.

use rand::Rng;

use super::Fraction;

/// Up to this many thresholds, counting every threshold at or below the word (a fixed loop
/// with no branch on the word) beats a binary search, whose branches depend on the random
/// word and are mispredicted.
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
    /// `shares[k]`: the share of all words that draw `k` (`pmf` rounded to the thresholds),
    /// asked for at every step of every path the outcome tree records.
    shares: Vec<f64>,
}

pub(crate) const AMBIGUOUS: u8 = u8::MAX;

/// The share of all 2^64 words that the inclusive range `low..=high` holds.
pub(crate) fn words_share((low, high): (u64, u64)) -> f64 {
    ((high - low) as f64 + 1.0) / 2f64.powi(64)
}

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
            shares: Vec::new(),
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
        table.shares = (0..=m)
            .map(|k| table.words_drawing(k).map_or(0.0, words_share))
            .collect();
        table
    }

    /// The share of all words that draw `k` (0 for no word, or `k` past `m`).
    pub(crate) fn share(&self, k: u32) -> f64 {
        self.shares.get(k as usize).copied().unwrap_or(0.0)
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
    fn shares_are_the_words_drawing_each_count_over_all_words() {
        // The share of k is the count of words drawing k, exactly as the thresholds cut
        // them, over 2^64; the shares of all counts cover every word once.
        for (m, p) in [
            (1, frac(1, 2)),
            (5, frac(1, 6)),
            (12, frac(2, 3)),
            (0, frac(1, 2)),
        ] {
            let sc = SuccessCount::new(m, p);
            let mut words = 0u128;
            for k in 0..=m + 1 {
                let expected = match sc.words_drawing(k) {
                    Some((low, high)) => {
                        words += u128::from(high - low) + 1;
                        ((high - low) as f64 + 1.0) / 2f64.powi(64)
                    }
                    None => 0.0,
                };
                assert_eq!(sc.share(k).to_bits(), expected.to_bits(), "m {m}, k {k}");
                // Against the closed form C(m, k) p^k (1 - p)^(m - k): the thresholds round
                // each cumulative chance to 2^-64, far inside this bound.
                let q = p.num as f64 / p.den as f64;
                let exact = match k <= m {
                    true => {
                        let choose =
                            (0..k).fold(1.0, |c, i| c * f64::from(m - i) / f64::from(i + 1));
                        choose * q.powi(k as i32) * (1.0 - q).powi((m - k) as i32)
                    }
                    false => 0.0,
                };
                assert!(
                    (sc.share(k) - exact).abs() < 1e-12,
                    "m {m}, k {k}: {} against {exact}",
                    sc.share(k)
                );
            }
            assert_eq!(words, 1 << 64, "m {m}");
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
