//! Dense integer histogram: the one accumulator every metric is gathered in.
//!
//! Storage is kept *trimmed* at all times (either empty, or the first and last cells are
//! nonzero), so the derived `PartialEq` and the serialized bytes depend only on the counts,
//! never on the order in which values arrived or parts were merged.

use serde::{Deserialize, Deserializer, Serialize};

/// Counts of integer values. Dense storage: `counts[i]` is the count of value `offset + i`.
///
/// Merging is exact integer addition, hence commutative and associative: chunks, threads and
/// shards can be combined in any order and give the same histogram.
///
/// Memory is proportional to `max - min + 1`, which suits game metrics (wounds, models, turns);
/// values spread over a huge range would need a sparse structure instead.
///
/// ```
/// use rollcall::stats::Histogram;
/// let mut a = Histogram::new();
/// a.add(3);
/// a.add(5);
/// let mut b = Histogram::new();
/// b.add_count(5, 2);
/// a.merge(&b);
/// assert_eq!(a.total(), 4);
/// assert_eq!(a.iter().collect::<Vec<_>>(), vec![(3, 1), (5, 3)]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Histogram {
    offset: i64,
    counts: Vec<u64>,
}

/// Exact moments of a histogram, wide enough that `n` up to `u64::MAX` trials of game-sized
/// values cannot overflow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sums {
    /// Number of trials.
    pub n: u128,
    /// Sum of the values.
    pub sum: i128,
    /// Sum of the squared values.
    pub sum_sq: u128,
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records one trial with `value`.
    #[inline]
    pub fn add(&mut self, value: i64) {
        // Wrapping difference: a value below `offset` wraps to `2^64 - (offset - value)`,
        // which lies past `i64::MAX - offset` and so past any stored cell; one comparison
        // therefore checks both ends of the range.
        let index = value.wrapping_sub(self.offset) as u64;
        if let Some(cell) = usize::try_from(index)
            .ok()
            .and_then(|i| self.counts.get_mut(i))
        {
            *cell += 1;
        } else {
            self.add_outside(value, 1);
        }
    }

    /// Records `count` trials with `value`.
    pub fn add_count(&mut self, value: i64, count: u64) {
        if count == 0 {
            // Growing storage for a zero count would break the trimmed invariant.
            return;
        }
        match self.index_of(value) {
            Some(i) => self.counts[i] += count,
            None => self.add_outside(value, count),
        }
    }

    /// Adds every count of `other` to `self`.
    pub fn merge(&mut self, other: &Histogram) {
        let (Some(lo), Some(hi)) = (other.min(), other.max()) else {
            return;
        };
        if self.is_empty() {
            self.clone_from(other);
            return;
        }
        // Both sides are trimmed, so the union's extremes are nonzero: no trimming needed.
        self.cover(lo, hi);
        let start = index_distance(self.offset, other.offset);
        for (cell, &c) in self.counts[start..].iter_mut().zip(&other.counts) {
            *cell += c;
        }
    }

    /// Number of trials recorded.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// True when no trial has been recorded.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Smallest recorded value.
    pub fn min(&self) -> Option<i64> {
        (!self.counts.is_empty()).then_some(self.offset)
    }

    /// Largest recorded value.
    pub fn max(&self) -> Option<i64> {
        (!self.counts.is_empty()).then(|| self.value_at(self.counts.len() - 1))
    }

    /// Nonzero cells as `(value, count)`, ascending by value.
    pub fn iter(&self) -> impl Iterator<Item = (i64, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c != 0)
            .map(|(i, &c)| (self.value_at(i), c))
    }

    /// Number of trials recorded with `value`.
    pub fn count(&self, value: i64) -> u64 {
        self.index_of(value).map_or(0, |i| self.counts[i])
    }

    /// Exact sums `(n, Σv, Σv²)`, the only inputs from which floats are derived.
    ///
    /// # Panics
    /// If `Σ count·v²` exceeds `u128::MAX` (about 3.4e38), which needs values beyond 1e9 with
    /// more than 1e20 trials, or values near `i64::MAX`.
    pub fn sums(&self) -> Sums {
        let mut sums = Sums::default();
        for (value, count) in self.iter() {
            let count = u128::from(count);
            let magnitude = u128::from(value.unsigned_abs());
            // Checked first: |Σ count·v| <= sqrt(n · Σ count·v²), so once the sum of squares
            // is known to fit, the plain sum fits in i128 too.
            sums.sum_sq = (magnitude * magnitude)
                .checked_mul(count)
                .and_then(|term| sums.sum_sq.checked_add(term))
                .expect("histogram sum of squares exceeds u128");
            sums.n += count;
            sums.sum += count as i128 * i128::from(value);
        }
        sums
    }

    fn value_at(&self, index: usize) -> i64 {
        // Every index in storage maps to an i64 that was once added, so this cannot overflow.
        self.offset + index as i64
    }

    fn index_of(&self, value: i64) -> Option<usize> {
        let index = usize::try_from(value.wrapping_sub(self.offset) as u64).ok()?;
        (index < self.counts.len()).then_some(index)
    }

    // Kept out of line so the inlined `add` stays small.
    #[cold]
    #[inline(never)]
    fn add_outside(&mut self, value: i64, count: u64) {
        if self.is_empty() {
            self.offset = value;
            self.counts.push(count);
            return;
        }
        self.cover(value, value);
        let i = index_distance(self.offset, value);
        self.counts[i] += count;
    }

    /// Grows storage (with zero cells) so that `lo..=hi` is in range; `self` must be nonempty.
    fn cover(&mut self, lo: i64, hi: i64) {
        let old_hi = self.value_at(self.counts.len() - 1);
        if hi > old_hi {
            self.counts.resize(index_distance(self.offset, hi) + 1, 0);
        }
        if lo < self.offset {
            let shift = index_distance(lo, self.offset);
            let mut grown = vec![0; shift + self.counts.len()];
            grown[shift..].copy_from_slice(&self.counts);
            self.counts = grown;
            self.offset = lo;
        }
    }

    /// Rebuilds the trimmed form from arbitrary `{offset, counts}` (e.g. a deserialized file).
    fn from_parts(offset: i64, counts: &[u64]) -> Result<Self, String> {
        let Some(first) = counts.iter().position(|&c| c != 0) else {
            return Ok(Self::new());
        };
        let last = counts.iter().rposition(|&c| c != 0).unwrap_or(first);
        let value = |i: usize| {
            i64::try_from(i)
                .ok()
                .and_then(|i| offset.checked_add(i))
                .ok_or_else(|| {
                    format!("histogram cell {i} at offset {offset} lies beyond the i64 value range")
                })
        };
        value(last)?;
        Ok(Self {
            offset: value(first)?,
            counts: counts[first..=last].to_vec(),
        })
    }
}

/// `to - from` as an index; callers guarantee `from <= to` and that the span fits in memory.
fn index_distance(from: i64, to: i64) -> usize {
    let distance = (i128::from(to) - i128::from(from)) as u128;
    usize::try_from(distance).expect("histogram value span exceeds the address space")
}

#[derive(Deserialize)]
struct HistogramRepr {
    offset: i64,
    counts: Vec<u64>,
}

// Hand-written so that untrimmed or hand-edited input still yields the canonical form, and so
// that an offset/length pair beyond the i64 range is rejected instead of overflowing later.
impl<'de> Deserialize<'de> for Histogram {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let repr = HistogramRepr::deserialize(deserializer)?;
        Histogram::from_parts(repr.offset, &repr.counts).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// SplitMix64: a self-contained generator so the tests pin their own randomness.
    pub(crate) struct SplitMix(pub u64);
    impl SplitMix {
        pub fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        pub fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn from_values(values: &[i64]) -> Histogram {
        let mut h = Histogram::new();
        for &v in values {
            h.add(v);
        }
        h
    }

    #[test]
    fn empty_histogram() {
        let h = Histogram::new();
        assert!(h.is_empty());
        assert_eq!(h.total(), 0);
        assert_eq!(h.min(), None);
        assert_eq!(h.max(), None);
        assert_eq!(h.iter().count(), 0);
        assert_eq!(h.count(0), 0);
        assert_eq!(h.sums(), Sums::default());
        assert_eq!(h, Histogram::default());
    }

    #[test]
    fn counts_min_max_and_iteration_order() {
        let h = from_values(&[3, -2, 7, 3, -2, 3]);
        assert_eq!(h.total(), 6);
        assert_eq!(h.min(), Some(-2));
        assert_eq!(h.max(), Some(7));
        assert_eq!(h.count(3), 3);
        assert_eq!(h.count(0), 0);
        assert_eq!(h.count(100), 0);
        assert_eq!(h.count(-100), 0);
        assert_eq!(h.iter().collect::<Vec<_>>(), vec![(-2, 2), (3, 3), (7, 1)]);
    }

    #[test]
    fn sums_by_hand() {
        // 1 + 2 + 2 + 3 + 7 = 15; 1 + 4 + 4 + 9 + 49 = 67.
        let s = from_values(&[1, 2, 2, 3, 7]).sums();
        assert_eq!(
            s,
            Sums {
                n: 5,
                sum: 15,
                sum_sq: 67
            }
        );
        // Negative values: -4 - 4 + 1 = -7; 16 + 16 + 1 = 33.
        let s = from_values(&[-4, 1, -4]).sums();
        assert_eq!(
            s,
            Sums {
                n: 3,
                sum: -7,
                sum_sq: 33
            }
        );
    }

    #[test]
    fn add_count_matches_repeated_add() {
        let mut a = Histogram::new();
        let mut b = Histogram::new();
        for (v, c) in [(5, 3), (-1, 2), (9, 1), (5, 1)] {
            a.add_count(v, c);
            for _ in 0..c {
                b.add(v);
            }
        }
        assert_eq!(a, b);
        // A zero count must not extend storage and so must not change equality or bytes.
        a.add_count(1000, 0);
        a.add_count(-1000, 0);
        assert_eq!(a, b);
        assert_eq!(a.max(), Some(9));
    }

    #[test]
    fn merge_with_empty_is_identity() {
        let h = from_values(&[4, -3, 4]);
        let mut left = Histogram::new();
        left.merge(&h);
        assert_eq!(left, h);
        let mut right = h.clone();
        right.merge(&Histogram::new());
        assert_eq!(right, h);
    }

    #[test]
    fn merge_disjoint_and_overlapping_ranges() {
        let mut a = from_values(&[10, 11]);
        a.merge(&from_values(&[-5, -5]));
        assert_eq!(
            a.iter().collect::<Vec<_>>(),
            vec![(-5, 2), (10, 1), (11, 1)]
        );
        a.merge(&from_values(&[11, 20, -6]));
        assert_eq!(
            a.iter().collect::<Vec<_>>(),
            vec![(-6, 1), (-5, 2), (10, 1), (11, 2), (20, 1)]
        );
    }

    #[test]
    fn merging_random_parts_equals_one_pass_in_any_order() {
        let mut rng = SplitMix(0x5EED_0001);
        for _ in 0..50 {
            let len = rng.below(400) as usize;
            let values: Vec<i64> = (0..len).map(|_| rng.below(61) as i64 - 30).collect();
            let whole = from_values(&values);

            // Random cut points split the stream into contiguous chunks, as the engine does.
            let parts_n = 1 + rng.below(8) as usize;
            let mut cuts: Vec<usize> = (0..parts_n - 1)
                .map(|_| rng.below(len as u64 + 1) as usize)
                .collect();
            cuts.sort_unstable();
            let mut bounds = vec![0];
            bounds.extend(cuts);
            bounds.push(len);
            let parts: Vec<Histogram> = bounds
                .windows(2)
                .map(|w| from_values(&values[w[0]..w[1]]))
                .collect();

            let mut forward = Histogram::new();
            for p in &parts {
                forward.merge(p);
            }
            let mut backward = Histogram::new();
            for p in parts.iter().rev() {
                backward.merge(p);
            }
            // Tree-shaped merge, as a reduction over threads would do.
            let mut level = parts.clone();
            while level.len() > 1 {
                level = level
                    .chunks(2)
                    .map(|pair| {
                        let mut m = pair[0].clone();
                        if let Some(b) = pair.get(1) {
                            m.merge(b);
                        }
                        m
                    })
                    .collect();
            }
            let tree = level.pop().unwrap_or_default();

            for merged in [&forward, &backward, &tree] {
                assert_eq!(merged, &whole);
                assert_eq!(merged.sums(), whole.sums());
                assert_eq!(
                    serde_json::to_string(merged).unwrap(),
                    serde_json::to_string(&whole).unwrap()
                );
            }
        }
    }

    #[test]
    fn serialization_is_canonical_and_round_trips() {
        let h = from_values(&[2, 4, 4]);
        let json = serde_json::to_string(&h).unwrap();
        assert_eq!(json, r#"{"offset":2,"counts":[1,0,2]}"#);
        assert_eq!(serde_json::from_str::<Histogram>(&json).unwrap(), h);
        assert_eq!(
            serde_json::to_string(&Histogram::new()).unwrap(),
            r#"{"offset":0,"counts":[]}"#
        );

        // Untrimmed input is normalised, so it compares and re-serializes canonically.
        let padded: Histogram =
            serde_json::from_str(r#"{"offset":0,"counts":[0,0,1,0,2,0]}"#).unwrap();
        assert_eq!(padded, h);
        assert_eq!(serde_json::to_string(&padded).unwrap(), json);
        let zeros: Histogram = serde_json::from_str(r#"{"offset":-7,"counts":[0,0]}"#).unwrap();
        assert_eq!(zeros, Histogram::new());

        let too_far = format!(r#"{{"offset":{},"counts":[1,1]}}"#, i64::MAX);
        assert!(serde_json::from_str::<Histogram>(&too_far).is_err());
    }

    #[test]
    fn large_values_and_counts_do_not_overflow_sums() {
        let mut h = Histogram::new();
        h.add_count(1_000_000, 1_000_000_000_000);
        h.add_count(-1_000_000, 1_000_000_000_000);
        h.add_count(0, 1);
        let s = h.sums();
        assert_eq!(s.n, 2_000_000_000_001);
        assert_eq!(s.sum, 0);
        // 2 · 1e12 · (1e6)² = 2e24.
        assert_eq!(s.sum_sq, 2_000_000_000_000_000_000_000_000);

        let mut one_sided = Histogram::new();
        one_sided.add_count(1_000_000, 1_000_000_000_000);
        assert_eq!(one_sided.sums().sum, 1_000_000_000_000_000_000);
    }

    #[test]
    fn extreme_i64_values_are_stored_without_wrapping() {
        let mut h = Histogram::new();
        h.add(i64::MAX);
        h.add(i64::MAX - 1);
        h.add(i64::MAX);
        assert_eq!(h.min(), Some(i64::MAX - 1));
        assert_eq!(h.max(), Some(i64::MAX));
        assert_eq!(h.count(i64::MAX), 2);
        // Far below the stored range: must not alias a stored cell through wrapping.
        assert_eq!(h.count(i64::MIN), 0);
        let mut low = Histogram::new();
        low.add(i64::MIN);
        assert_eq!(low.count(i64::MAX), 0);
        assert_eq!(low.iter().collect::<Vec<_>>(), vec![(i64::MIN, 1)]);
    }
}
