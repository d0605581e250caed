//! Integer histogram: the one accumulator every metric is gathered in.
//!
//! Values within [`DENSE_SPAN`] of each other are counted in a dense array (one cell per value,
//! the fast path of every trial); a histogram whose values spread wider switches, once and for
//! good, to a sorted map of its nonzero cells, so memory follows the number of distinct values
//! instead of their span. Which form a histogram has depends only on its smallest and largest
//! value, and the dense form is kept *trimmed* (empty, or first and last cells nonzero), so the
//! derived `PartialEq` and the serialized bytes depend only on the counts, never on the order
//! in which values arrived or parts were merged.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// The widest span of values (largest minus smallest) counted densely; wider histograms keep
/// only their nonzero cells. Dense storage is then at most 8 bytes times this per histogram.
pub const DENSE_SPAN: u64 = 1 << 16;

/// Counts of integer values: `counts[i]` is the count of value `offset + i` while the values
/// span less than [`DENSE_SPAN`], `sparse` holds the nonzero cells beyond it (and `counts` is
/// then empty).
///
/// Merging is exact integer addition, hence commutative and associative: chunks, threads and
/// shards can be combined in any order and give the same histogram. Counts are `u64`: callers
/// keep totals within it (a run's totals are its trial count; `merge` checks parts' totals).
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
/// // Values a billion apart take two cells, not a billion.
/// a.add(1_000_000_000);
/// assert_eq!(a.iter().count(), 3);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Histogram {
    offset: i64,
    counts: Vec<u64>,
    sparse: BTreeMap<i64, u64>,
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
        if self.sparse.is_empty() && other.sparse.is_empty() && !self.spans_wide(lo, hi) {
            // Both sides are trimmed, so the union's extremes are nonzero: no trimming needed.
            self.cover(lo, hi);
            let start = index_distance(self.offset, other.offset);
            for (cell, &c) in self.counts[start..].iter_mut().zip(&other.counts) {
                *cell += c;
            }
            return;
        }
        self.make_sparse();
        for (value, count) in other.iter() {
            *self.sparse.entry(value).or_insert(0) += count;
        }
    }

    /// Number of trials recorded.
    pub fn total(&self) -> u64 {
        self.counts.iter().chain(self.sparse.values()).sum()
    }

    /// Number of trials recorded, or `None` when it does not fit in a `u64` (only a forged
    /// file's counts can get there).
    pub fn checked_total(&self) -> Option<u64> {
        self.counts
            .iter()
            .chain(self.sparse.values())
            .try_fold(0u64, |t, &c| t.checked_add(c))
    }

    /// True when no trial has been recorded.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty() && self.sparse.is_empty()
    }

    /// True when the values spread beyond [`DENSE_SPAN`] and only nonzero cells are kept.
    pub fn is_sparse(&self) -> bool {
        !self.sparse.is_empty()
    }

    /// Smallest recorded value.
    pub fn min(&self) -> Option<i64> {
        match self.sparse.first_key_value() {
            Some((&v, _)) => Some(v),
            None => (!self.counts.is_empty()).then_some(self.offset),
        }
    }

    /// Largest recorded value.
    pub fn max(&self) -> Option<i64> {
        match self.sparse.last_key_value() {
            Some((&v, _)) => Some(v),
            None => (!self.counts.is_empty()).then(|| self.value_at(self.counts.len() - 1)),
        }
    }

    /// Nonzero cells as `(value, count)`, ascending by value.
    pub fn iter(&self) -> impl Iterator<Item = (i64, u64)> + '_ {
        // At most one of the two forms holds cells.
        self.counts
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c != 0)
            .map(|(i, &c)| (self.value_at(i), c))
            .chain(self.sparse.iter().map(|(&v, &c)| (v, c)))
    }

    /// Number of trials recorded with `value`.
    pub fn count(&self, value: i64) -> u64 {
        match self.index_of(value) {
            Some(i) => self.counts[i],
            None => self.sparse.get(&value).copied().unwrap_or(0),
        }
    }

    /// Exact sums `(n, Σv, Σv²)`, the only inputs from which floats are derived.
    ///
    /// # Panics
    /// If `Σ count·v²` exceeds `u128::MAX` (about 3.4e38), which needs values beyond 1e9 with
    /// more than 1e20 trials, or values near `i64::MAX`; [`Histogram::checked_sums`] says so
    /// instead.
    pub fn sums(&self) -> Sums {
        self.checked_sums()
            .expect("histogram sum of squares exceeds u128")
    }

    /// Exact sums `(n, Σv, Σv²)`, or `None` when `Σ count·v²` exceeds `u128::MAX`.
    pub fn checked_sums(&self) -> Option<Sums> {
        let mut sums = Sums::default();
        for (value, count) in self.iter() {
            let count = u128::from(count);
            let magnitude = u128::from(value.unsigned_abs());
            // Checked first: |Σ count·v| <= sqrt(n · Σ count·v²), so once the sum of squares
            // is known to fit, the plain sum fits in i128 too.
            sums.sum_sq = (magnitude * magnitude)
                .checked_mul(count)
                .and_then(|term| sums.sum_sq.checked_add(term))?;
            sums.n += count;
            sums.sum += count as i128 * i128::from(value);
        }
        Some(sums)
    }

    fn value_at(&self, index: usize) -> i64 {
        // Every index in storage maps to an i64 that was once added, so this cannot overflow.
        self.offset + index as i64
    }

    fn index_of(&self, value: i64) -> Option<usize> {
        let index = usize::try_from(value.wrapping_sub(self.offset) as u64).ok()?;
        (index < self.counts.len()).then_some(index)
    }

    /// True when storing `lo..=hi` beside the values held would span [`DENSE_SPAN`] or more;
    /// `self` must be nonempty.
    fn spans_wide(&self, lo: i64, hi: i64) -> bool {
        let (min, max) = match self.sparse.first_key_value() {
            Some((&min, _)) => (min, self.max().unwrap_or(min)),
            None if self.counts.is_empty() => return false,
            None => (self.offset, self.value_at(self.counts.len() - 1)),
        };
        let span = i128::from(hi.max(max)) - i128::from(lo.min(min));
        span >= i128::from(DENSE_SPAN)
    }

    /// Moves the dense cells into the sparse map, for good.
    fn make_sparse(&mut self) {
        let cells: Vec<(i64, u64)> = self.iter().collect();
        self.counts = Vec::new();
        self.offset = 0;
        self.sparse.extend(cells);
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
        if !self.sparse.is_empty() || self.spans_wide(value, value) {
            self.make_sparse();
            *self.sparse.entry(value).or_insert(0) += count;
            return;
        }
        self.cover(value, value);
        let i = index_distance(self.offset, value);
        self.counts[i] += count;
    }

    /// Grows dense storage (with zero cells) so that `lo..=hi` is in range; `self` must be
    /// dense, nonempty, and stay within [`DENSE_SPAN`].
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

    /// Rebuilds the canonical form from arbitrary `{offset, counts}` and `cells` (e.g. a
    /// deserialized file), refusing cells beyond the `i64` value range and counts that
    /// overflow `u64`.
    fn from_parts(offset: i64, counts: &[u64], cells: &[(i64, u64)]) -> Result<Self, String> {
        let mut h = Self::new();
        if let Some(first) = counts.iter().position(|&c| c != 0) {
            let last = counts.iter().rposition(|&c| c != 0).unwrap_or(first);
            let value = |i: usize| {
                i64::try_from(i)
                    .ok()
                    .and_then(|i| offset.checked_add(i))
                    .ok_or_else(|| {
                        format!(
                            "histogram cell {i} at offset {offset} lies beyond the i64 value range"
                        )
                    })
            };
            value(last)?;
            let first_value = value(first)?;
            let dense = &counts[first..=last];
            if (dense.len() as u64) <= DENSE_SPAN {
                h.offset = first_value;
                h.counts = dense.to_vec();
            } else {
                for (i, &c) in dense.iter().enumerate().filter(|&(_, &c)| c != 0) {
                    h.sparse.insert(first_value + i as i64, c);
                }
            }
        }
        for &(value, count) in cells {
            if h.count(value).checked_add(count).is_none() {
                return Err(format!(
                    "histogram count of value {value} overflows a 64-bit count"
                ));
            }
            h.add_count(value, count);
        }
        Ok(h)
    }
}

/// `to - from` as an index; callers guarantee `from <= to` and that the span is below
/// [`DENSE_SPAN`].
fn index_distance(from: i64, to: i64) -> usize {
    let distance = (i128::from(to) - i128::from(from)) as u128;
    usize::try_from(distance).expect("a dense histogram spans less than DENSE_SPAN")
}

/// The file form: the dense cells as `offset` and `counts` (the form every histogram within
/// [`DENSE_SPAN`] has always had), and the nonzero cells of a wide one as `[value, count]`
/// pairs in `cells`, written only when there are some.
#[derive(Serialize, Deserialize)]
struct HistogramRepr<'a> {
    offset: i64,
    counts: std::borrow::Cow<'a, [u64]>,
    #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
    cells: Vec<(i64, u64)>,
}

impl Serialize for Histogram {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        HistogramRepr {
            offset: self.offset,
            counts: std::borrow::Cow::Borrowed(&self.counts),
            cells: self.sparse.iter().map(|(&v, &c)| (v, c)).collect(),
        }
        .serialize(serializer)
    }
}

// Hand-written so that untrimmed or hand-edited input still yields the canonical form, and so
// that an offset/length pair beyond the i64 range is rejected instead of overflowing later.
impl<'de> Deserialize<'de> for Histogram {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let repr = HistogramRepr::deserialize(deserializer)?;
        Histogram::from_parts(repr.offset, &repr.counts, &repr.cells)
            .map_err(serde::de::Error::custom)
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
    fn values_spread_wider_than_the_dense_span_keep_only_their_cells() {
        let span = DENSE_SPAN as i64;
        // Just inside the dense span: still dense.
        let mut h = from_values(&[0, span - 1]);
        assert!(!h.is_sparse());
        // One more value makes the span DENSE_SPAN: sparse from then on.
        h.add(span);
        assert!(h.is_sparse());
        assert_eq!(
            h.iter().collect::<Vec<_>>(),
            [(0, 1), (span - 1, 1), (span, 1)]
        );
        // Extremes a whole i64 range apart take two cells.
        let mut far = from_values(&[i64::MIN, i64::MAX, i64::MIN]);
        assert!(far.is_sparse());
        assert_eq!(
            far.iter().collect::<Vec<_>>(),
            [(i64::MIN, 2), (i64::MAX, 1)]
        );
        assert_eq!((far.min(), far.max()), (Some(i64::MIN), Some(i64::MAX)));
        assert_eq!((far.count(i64::MIN), far.count(0)), (2, 0));
        far.add_count(7, 0);
        assert_eq!(far.total(), 3);
        // Σv = 2·MIN + MAX = MIN - 1; Σv² = 2·2^126 + (2^63 - 1)².
        let s = far.sums();
        assert_eq!(s.sum, i128::from(i64::MIN) - 1);
        let m = i128::from(i64::MAX) as u128;
        assert_eq!(s.sum_sq, 2 * (1u128 << 126) + m * m);
    }

    #[test]
    fn wide_and_narrow_parts_merge_to_one_pass_in_any_order() {
        let mut rng = SplitMix(0x5EED_0002);
        for _ in 0..40 {
            let len = rng.below(300) as usize;
            // Mostly small values, now and then one far away, so some parts are dense, some
            // sparse, and the whole is sparse or not depending on the draw.
            let values: Vec<i64> = (0..len)
                .map(|_| match rng.below(50) {
                    0 => rng.next() as i64,
                    1 => 3 * DENSE_SPAN as i64,
                    _ => rng.below(41) as i64 - 20,
                })
                .collect();
            let whole = from_values(&values);
            let mut cuts: Vec<usize> = (0..rng.below(6))
                .map(|_| rng.below(len as u64 + 1) as usize)
                .collect();
            cuts.push(0);
            cuts.push(len);
            cuts.sort_unstable();
            let parts: Vec<Histogram> = cuts
                .windows(2)
                .map(|w| from_values(&values[w[0]..w[1]]))
                .collect();
            let mut forward = Histogram::new();
            parts.iter().for_each(|p| forward.merge(p));
            let mut backward = Histogram::new();
            parts.iter().rev().for_each(|p| backward.merge(p));
            for merged in [&forward, &backward] {
                assert_eq!(merged, &whole);
                let json = serde_json::to_string(merged).unwrap();
                assert_eq!(json, serde_json::to_string(&whole).unwrap());
                assert_eq!(serde_json::from_str::<Histogram>(&json).unwrap(), whole);
            }
            // Against a count by value written out independently.
            let mut by_value = BTreeMap::new();
            for &v in &values {
                *by_value.entry(v).or_insert(0u64) += 1;
            }
            assert_eq!(
                whole.iter().collect::<Vec<_>>(),
                by_value.into_iter().collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn the_sparse_file_form_lists_cells_and_reads_back_canonically() {
        let h = from_values(&[-1_000_000, 5, 5]);
        let json = serde_json::to_string(&h).unwrap();
        assert_eq!(
            json,
            r#"{"offset":0,"counts":[],"cells":[[-1000000,1],[5,2]]}"#
        );
        // Cells listed twice add up; cells given densely and sparsely add up too.
        let mixed: Histogram =
            serde_json::from_str(r#"{"offset":5,"counts":[1],"cells":[[5,1],[-1000000,1]]}"#)
                .unwrap();
        assert_eq!(mixed, h);
        // Cells that fit the dense span come back dense.
        let narrow: Histogram =
            serde_json::from_str(r#"{"offset":0,"counts":[],"cells":[[3,1],[1,2]]}"#).unwrap();
        assert_eq!(narrow, from_values(&[1, 1, 3]));
        assert!(!narrow.is_sparse());
        // A count that overflows u64 is refused, not wrapped.
        let max = u64::MAX;
        let over = format!(r#"{{"offset":0,"counts":[{max}],"cells":[[0,1]]}}"#);
        assert!(serde_json::from_str::<Histogram>(&over).is_err());
    }

    #[test]
    fn checked_totals_and_sums_say_when_they_overflow() {
        let mut h = Histogram::new();
        h.add_count(1, u64::MAX);
        assert_eq!(h.checked_total(), Some(u64::MAX));
        h.add_count(i64::MAX, 1);
        assert_eq!(h.checked_total(), None);
        // Five squares of i64::MAX: 5 · (2^63 - 1)² > 2^128.
        let mut far = Histogram::new();
        far.add_count(i64::MAX, 4);
        assert!(far.checked_sums().is_some());
        far.add(i64::MAX);
        assert_eq!(far.checked_sums(), None);
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
