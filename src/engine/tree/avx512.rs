//! [`Tree::play_lanes`] with AVX-512: the sixteen lanes walk as two vectors of eight.
//!
//! Each vector steps its eight xoshiro256++ lanes in registers, gathers the eight guide
//! entries its words' top bits pick, and moves every lane one node on, with no branch on any
//! lane's result: a lane that reaches a leaf writes the leaf to a buffer (counted later) and
//! goes back to the root. Two vectors are in flight so one's gathers overlap the other's (in
//! a standalone model of the composite scenario, one vector of eight lanes took 3.8 ns a
//! trial, two 2.7 ns, and one vector of sixteen 3.3 ns; four vectors of four lanes were
//! slower than two of eight, in both walks below). Lanes whose guide entry is not a node (a
//! key the guide cannot decide, a result never seen, a node that does not fit in a guide
//! entry) leave the vectors for [`Tree::child`] or [`Tree::discover`], as in the scalar walk,
//! so both walks give the same results (see the tests). A lane that needs its trial replayed
//! finds the trial's start by stepping its generator back as many words as the trial has
//! drawn ([`LaneState::back`]), instead of every lane keeping its start.
//!
//! Where nearly all trials make the same number of draws, [`Tree::play_rounds`] walks them
//! in rounds first; the walk above plays what is left of each lane's quota.

use super::*;
use std::arch::x86_64::*;

/// Lanes per vector.
const WIDTH: usize = 8;
/// Vectors of lanes: two, written out in [`Tree::play_lanes_avx512`].
const GROUPS: usize = 2;
const _: () = assert!(GROUPS * WIDTH == LANES);
/// All of a vector's lanes, as a mask.
const ALL: __mmask8 = u8::MAX >> (8 - WIDTH);

/// The tally: counters for leaves below `TALLY_LEAVES`, in `TALLY_COPIES` copies
/// `TALLY_STRIDE` counters apart (see [`Tree::tally`]).
const TALLY_LEAVES: usize = 1 << 15;
const TALLY_COPIES: usize = 4;
const TALLY_STRIDE: usize = TALLY_LEAVES + 64;

/// Leaves buffered before they are counted: a few kilobytes, so they stay in cache.
const BUFFERED: usize = 1024;

/// Eight lanes walking together.
#[derive(Clone, Copy)]
struct Group {
    /// The lanes' xoshiro256++ state, word i of every lane in `s[i]`.
    s: [__m512i; 4],
    /// Each lane's node, as its first guide index (branch << GUIDE_BITS).
    at: __m256i,
    done: __m256i,
    quota: __m256i,
    /// Lanes with trials left to play.
    active: __mmask8,
}

impl Group {
    /// The fewest trials any of the group's lanes has left.
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    fn fewest_left(&self) -> u32 {
        let mut left = [0u32; WIDTH];
        let difference = _mm256_sub_epi32(self.quota, self.done);
        // SAFETY: `left` holds exactly one vector.
        unsafe { _mm256_storeu_si256(left.as_mut_ptr().cast(), difference) };
        left.into_iter().min().unwrap_or(0)
    }
}

/// What a step of a round met, for [`Tree::round_off`].
#[derive(Clone, Copy)]
struct Went {
    /// Lanes that did not meet what was expected.
    odd: __mmask8,
    /// Words the round has drawn, this step's included.
    step: u32,
    depth: u32,
    last: bool,
    words: __m512i,
    at: __m256i,
}

/// A group written out to memory, for the lanes that leave the vectors.
#[repr(C, align(64))]
struct Spilled {
    s: [[u64; WIDTH]; 4],
    words: [u64; WIDTH],
    entries: [u32; WIDTH],
    at: [u32; WIDTH],
    done: [u32; WIDTH],
}

impl<'t> Tree<'t> {
    /// # Safety
    /// The CPU must have AVX-512 F and VL ([`Kernel::Avx512`] checks both).
    #[target_feature(enable = "avx512f,avx512vl,avx2,popcnt")]
    pub(super) unsafe fn play_lanes_avx512<T: Trial>(
        &mut self,
        trial: &'t T,
        scratch: &mut T::Scratch,
        lanes: &mut Lanes,
        quota: [u64; LANES],
        out: &mut [i64],
        ended: &mut Ended,
    ) {
        debug_assert!(self.root < LEAF, "trials side by side start with a draw");
        let mut quota = quota;
        if let Some(depth) = self.common_depth() {
            self.play_rounds(trial, scratch, lanes, depth, &mut quota, out, ended);
        }
        let root_at = _mm256_set1_epi32((self.root << GUIDE_BITS) as i32);
        // Where each lane stands once it has played its quota; a lane with none stays put.
        let mut finished = *lanes.words_mut();
        let groups: [Group; GROUPS] = std::array::from_fn(|g| {
            let lanes = g * WIDTH..(g + 1) * WIDTH;
            let s = finished.map(|word| _mm512_loadu_si512(word[lanes.clone()].as_ptr().cast()));
            let quota: [u32; WIDTH] =
                std::array::from_fn(|l| u32::try_from(quota[g * WIDTH + l]).unwrap_or(u32::MAX));
            let quota = _mm256_loadu_si256(quota.as_ptr().cast());
            Group {
                s,
                at: root_at,
                done: _mm256_setzero_si256(),
                quota,
                active: _mm256_cmpgt_epu32_mask(quota, _mm256_setzero_si256()),
            }
        });
        let mut leaves = [0u32; BUFFERED + WIDTH];
        let mut buffered = 0;
        let entry_bits = _mm256_set1_epi32(0xFFFF);
        let split_base = _mm256_set1_epi32(GUIDE_SPLIT as i32);
        let leaf_bit = _mm256_set1_epi32(GUIDE_LEAF as i32);
        let one = _mm256_set1_epi32(1);
        // One step of one group. A macro, not a function: the groups are written out one
        // after the other so they stay in registers and their gathers overlap (a loop over
        // the groups, or a function the compiler did not inline, kept them in memory: twice
        // as slow, measured).
        // With `$all`, every lane is known to have a trial left, and which lanes are active
        // is neither read nor kept.
        macro_rules! step {
            ($group:ident, $g:expr, $all:expr) => {{
                let active = if $all { ALL } else { $group.active };
                let words = next(&mut $group.s);
                let key = _mm512_cvtepi64_epi32(_mm512_srli_epi64::<{ 64 - GUIDE_BITS }>(words));
                let index = _mm256_or_si256($group.at, key);
                let mut entry = self.entries(index);
                let mut slow = _mm256_mask_cmpge_epu32_mask(active, entry, split_base);
                if slow != 0 {
                    entry = self.resolve(slow, words, $group.at, entry);
                    slow = _mm256_mask_cmpeq_epi32_mask(active, entry, entry_bits);
                }
                if slow != 0 {
                    ($group, entry) = self
                        .leave_vectors(trial, scratch, $group, $g, slow, words, entry, out, ended);
                }
                // Back to the root at a leaf, and on idle lanes at `GUIDE_SLOW` (which has the
                // leaf bit): the next gather stays inside the guides. Which lanes are active
                // stays off this path from one gather to the next, which it would lengthen.
                let stop = _mm256_test_epi32_mask(entry, leaf_bit);
                $group.at = _mm256_mask_blend_epi32(
                    stop,
                    _mm256_slli_epi32::<{ GUIDE_BITS as i32 }>(entry),
                    root_at,
                );
                let leaf = stop & active;
                let ended = _mm256_maskz_compress_epi32(leaf, _mm256_andnot_si256(leaf_bit, entry));
                _mm256_storeu_si256(leaves.as_mut_ptr().add(buffered).cast(), ended);
                buffered += leaf.count_ones() as usize;
                $group.done = _mm256_mask_add_epi32($group.done, leaf, $group.done, one);
                if !$all {
                    let was = $group.active;
                    $group.active = _mm256_cmplt_epu32_mask($group.done, $group.quota);
                    if was != $group.active {
                        keep(&mut finished, $g, was & !$group.active, $group.s);
                    }
                }
            }};
        }
        let [mut first, mut second] = groups;
        macro_rules! steps {
            ($all:expr) => {{
                step!(first, 0, $all);
                step!(second, 1, $all);
                if buffered > BUFFERED - GROUPS * WIDTH {
                    self.tally(&leaves[..buffered]);
                    buffered = 0;
                }
            }};
        }
        // A step ends at most one trial a lane, so while every lane has at least `sure` trials
        // left, `sure` steps need no look at which lanes are done (measured 5% faster on the
        // composite than looking every step).
        loop {
            let sure = [first, second]
                .iter()
                .map(|g| g.fewest_left())
                .min()
                .unwrap_or(0);
            if sure == 0 {
                break;
            }
            for _ in 0..sure {
                steps!(true);
            }
        }
        for (g, group) in [&mut first, &mut second].into_iter().enumerate() {
            group.active = _mm256_cmplt_epu32_mask(group.done, group.quota);
            keep(&mut finished, g, !group.active & ALL, group.s);
        }
        while (first.active | second.active) != 0 {
            steps!(false);
        }
        self.tally(&leaves[..buffered]);
        self.drain_tally(ended);
        *lanes.words_mut() = finished;
    }

    /// Plays trials on every lane in rounds of `depth` steps, one trial a lane a round, for
    /// as many rounds as every lane has trials left in `quota` (which it lowers).
    ///
    /// Every lane starts a round at the root and is expected to end its trial at a leaf at
    /// the round's last step. So the round's first lookup waits on nothing, and the checks
    /// are whether each step met what was expected: no per-lane bookkeeping of where trials
    /// ended. Splits are decided in the vectors; keys the guide cannot decide go to the
    /// branch's table ([`Tree::round_off`]). A lane whose trial still goes otherwise is
    /// finished outside the vectors: a trial that ended early is counted at its leaf, one
    /// that goes on or meets a result never seen is played from its start with
    /// [`Tree::walk`]. Its state is then set back as many words as the round has left to
    /// draw, and its lookups for the rest of the round are overridden, ending at
    /// [`GUIDE_JUNK`], which is not counted. Either way each lane plays its trials on its own
    /// words, in order, so results are those of the plain path.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx512f,avx512vl,avx2,popcnt")]
    unsafe fn play_rounds<T: Trial>(
        &mut self,
        trial: &'t T,
        scratch: &mut T::Scratch,
        lanes: &mut Lanes,
        depth: u32,
        quota: &mut [u64; LANES],
        out: &mut [i64],
        ended: &mut Ended,
    ) {
        let rounds = quota.iter().copied().min().unwrap_or(0);
        if rounds == 0 {
            return;
        }
        let root = _mm256_set1_epi32(self.root as i32);
        let root_at = _mm256_slli_epi32::<{ GUIDE_BITS as i32 }>(root);
        let leaf_bit = _mm256_set1_epi32(GUIDE_LEAF as i32);
        let kind_bits = _mm256_set1_epi32(GUIDE_SPLIT as i32);
        let slow_entry = _mm256_set1_epi32(GUIDE_SLOW as i32);
        let junk = _mm256_set1_epi32(GUIDE_JUNK as i32);
        let state = *lanes.words_mut();
        let load =
            |g: usize| state.map(|word| _mm512_loadu_si512(word[g * WIDTH..].as_ptr().cast()));
        let (mut first, mut second) = (load(0), load(1));
        let mut leaves = [0u32; BUFFERED + LANES];
        let mut buffered = 0;
        // One step of one group: `$at` is where its lanes stand, `$step` how many words the
        // round has drawn with this one, `$last` whether it is the round's last.
        macro_rules! step {
            ($s:ident, $g:expr, $at:ident, $off:ident, $step:expr, $last:expr) => {{
                let words = next(&mut $s);
                let key = _mm512_cvtepi64_epi32(_mm512_srli_epi64::<{ 64 - GUIDE_BITS }>(words));
                let mut entry = self.entries(_mm256_or_si256($at, key));
                entry = _mm256_mask_blend_epi32($off, entry, if $last { junk } else { root });
                // Expected: a branch before the last step, a leaf at it.
                let unexpected = |entry| {
                    if $last {
                        _mm256_cmpneq_epi32_mask(_mm256_and_si256(entry, kind_bits), leaf_bit)
                    } else {
                        _mm256_test_epi32_mask(entry, leaf_bit)
                    }
                };
                let mut odd = unexpected(entry);
                if odd != 0 {
                    let split = odd
                        & _mm256_cmpge_epu32_mask(entry, kind_bits)
                        & _mm256_cmpneq_epi32_mask(entry, slow_entry);
                    if split != 0 {
                        entry = self.split_entries(split, words, entry);
                        odd = unexpected(entry);
                    }
                }
                if odd != 0 {
                    let went = Went {
                        odd,
                        step: $step,
                        depth,
                        last: $last,
                        words,
                        at: $at,
                    };
                    ($s, entry, $off) =
                        self.round_off(trial, scratch, $s, $g, went, entry, $off, out, ended);
                }
                if $last {
                    _mm256_storeu_si256(
                        leaves.as_mut_ptr().add(buffered).cast(),
                        _mm256_andnot_si256(leaf_bit, entry),
                    );
                    buffered += WIDTH;
                } else {
                    $at = _mm256_slli_epi32::<{ GUIDE_BITS as i32 }>(entry);
                }
            }};
        }
        // The last step's new places and overrides are not read: the next round starts over.
        #[allow(unused_assignments)]
        for _ in 0..rounds {
            let (mut off_first, mut off_second): (__mmask8, __mmask8) = (0, 0);
            let (mut at_first, mut at_second) = (root_at, root_at);
            for step in 1..depth {
                step!(first, 0, at_first, off_first, step, false);
                step!(second, 1, at_second, off_second, step, false);
            }
            step!(first, 0, at_first, off_first, depth, true);
            step!(second, 1, at_second, off_second, depth, true);
            if buffered > BUFFERED - LANES {
                self.tally(&leaves[..buffered]);
                buffered = 0;
            }
        }
        self.tally(&leaves[..buffered]);
        // Overridden lanes ended their rounds at the junk leaf: their trials were counted
        // where they were finished.
        let _overridden = self.take_tally(usize::from(GUIDE_JUNK & !GUIDE_LEAF));
        // The rest of the tally is handed over once, after the walk that follows.
        let state = lanes.words_mut();
        for (g, group) in [first, second].iter().enumerate() {
            for (word, &v) in state.iter_mut().zip(group) {
                _mm512_storeu_si512(word[g * WIDTH..].as_mut_ptr().cast(), v);
            }
        }
        for q in quota.iter_mut() {
            *q -= rounds;
        }
    }

    /// The lanes of `went.odd`, whose step in a round did not meet what was expected.
    /// Returns the step's entries and the group's overridden lanes, both updated.
    #[allow(clippy::too_many_arguments)]
    #[cold]
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    unsafe fn round_off<T: Trial>(
        &mut self,
        trial: &'t T,
        scratch: &mut T::Scratch,
        s: [__m512i; 4],
        g: usize,
        went: Went,
        entry: __m256i,
        off: __mmask8,
        out: &mut [i64],
        ended: &mut Ended,
    ) -> ([__m512i; 4], __m256i, __mmask8) {
        let mut words = [0u64; WIDTH];
        let mut at = [0u32; WIDTH];
        let mut entries = [0u32; WIDTH];
        _mm512_storeu_si512(words.as_mut_ptr().cast(), went.words);
        _mm256_storeu_si256(at.as_mut_ptr().cast(), went.at);
        _mm256_storeu_si256(entries.as_mut_ptr().cast(), entry);
        // A key that did not decide its draw may still have gone the expected way: most
        // calls end here.
        let mut irregular: __mmask8 = 0;
        for l in (0..WIDTH).filter(|l| went.odd & (1 << l) != 0) {
            let e = self.child(at[l] >> GUIDE_BITS, words[l]);
            entries[l] = guide_form(e);
            if entries[l] == Entry::from(GUIDE_SLOW)
                || (entries[l] & Entry::from(GUIDE_LEAF) != 0) != went.last
            {
                irregular |= 1 << l;
            }
        }
        if irregular == 0 {
            return (s, _mm256_loadu_si256(entries.as_ptr().cast()), off);
        }
        // Play the others' trials from their start, and set each lane back so that the
        // round's remaining steps end where its trial did.
        let mut state = [[0u64; WIDTH]; 4];
        for (word, v) in state.iter_mut().zip(s) {
            _mm512_storeu_si512(word.as_mut_ptr().cast(), v);
        }
        for l in (0..WIDTH).filter(|l| irregular & (1 << l) != 0) {
            let mut rng = LaneState(std::array::from_fn(|i| state[i][l]));
            let lane = g * WIDTH + l;
            if entries[l] != Entry::from(GUIDE_SLOW) && !went.last {
                // The trial ended early, at a leaf: the lane stands where it ended.
                ended
                    .leaves
                    .add(entries[l] & !Entry::from(GUIDE_LEAF), lane, 1);
            } else {
                for _ in 0..went.step {
                    rng.back();
                }
                match self.walk(trial, scratch, &mut rng, out) {
                    Walked::Leaf(leaf) => ended.leaves.add(leaf, lane, 1),
                    Walked::Played => ended.played.extend_from_slice(out),
                }
            }
            for _ in went.step..went.depth {
                rng.back();
            }
            for (word, v) in state.iter_mut().zip(rng.0) {
                word[l] = v;
            }
            entries[l] = if went.last {
                Entry::from(GUIDE_JUNK)
            } else {
                self.root
            };
        }
        let s = state.map(|word| _mm512_loadu_si512(word.as_ptr().cast()));
        (
            s,
            _mm256_loadu_si256(entries.as_ptr().cast()),
            off | irregular,
        )
    }

    /// Hands the leaves counted in the tally to `ended`, leaving the tally at zero.
    fn drain_tally(&mut self, ended: &mut Ended) {
        for leaf in 0..self.leaves().min(TALLY_LEAVES) {
            let n = self.take_tally(leaf);
            if n > 0 {
                ended.leaves.add(leaf as u32, 0, n);
            }
        }
    }

    /// The guide entries at `index` (`branch << GUIDE_BITS | key`, one per lane): 32 bits
    /// at each 16-bit entry (the spare entry keeps the last one inside), the upper half
    /// dropped.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    unsafe fn entries(&self, index: __m256i) -> __m256i {
        let guides = self.guides.as_ptr().cast::<i32>();
        _mm256_and_si256(
            _mm256_i32gather_epi32::<2>(guides, index),
            _mm256_set1_epi32(0xFFFF),
        )
    }

    /// The entries of the lanes of `split`, whose guide entries are splits, decided by the
    /// splits' thresholds.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    unsafe fn split_entries(&self, split: __mmask8, words: __m512i, entry: __m256i) -> __m256i {
        let j = _mm256_sub_epi32(entry, _mm256_set1_epi32(GUIDE_SPLIT as i32));
        let at = self.split_at.as_ptr().cast();
        let to = self.split_to.as_ptr().cast();
        let at = _mm512_mask_i32gather_epi64::<8>(_mm512_setzero_si512(), split, j, at);
        let to = _mm256_mmask_i32gather_epi32::<4>(_mm256_setzero_si256(), split, j, to);
        let above = _mm512_mask_cmpge_epu64_mask(split, words, at);
        let to = _mm256_mask_srli_epi32(to, above, to, 16);
        _mm256_mask_blend_epi32(
            split,
            entry,
            _mm256_and_si256(to, _mm256_set1_epi32(0xFFFF)),
        )
    }

    /// Counts one trial at each of `leaves` (guide entries' leaves, below 2^15), in 32-bit
    /// counters packed together (a call plays a segment, far fewer than 2^32 trials), so the
    /// ones in use stay in the first-level cache beside the guides. Leaves in turn go to one
    /// of four copies of the counters, so that a leaf met twice in a row does not wait on its
    /// own increment (composite scenario, 2e8 trials on one thread: 0.59 s against 0.61 s
    /// with one copy); the copies are 256 bytes apart modulo 4 KiB, as a load may wait on an
    /// earlier store to an address equal modulo 4 KiB. A fixed length needs no bounds checks.
    fn tally(&mut self, leaves: &[u32]) {
        self.tally.resize(TALLY_COPIES * TALLY_STRIDE, 0);
        let tally: &mut [u32; TALLY_COPIES * TALLY_STRIDE] =
            (&mut self.tally[..]).try_into().expect("sized above");
        let mut quads = leaves.chunks_exact(TALLY_COPIES);
        for quad in &mut quads {
            for (copy, &leaf) in quad.iter().enumerate() {
                tally[copy * TALLY_STRIDE + leaf as usize % TALLY_LEAVES] += 1;
            }
        }
        for &leaf in quads.remainder() {
            tally[leaf as usize % TALLY_LEAVES] += 1;
        }
    }

    /// Takes leaf `leaf`'s count out of the tally's copies.
    fn take_tally(&mut self, leaf: usize) -> u64 {
        self.tally
            .iter_mut()
            .skip(leaf)
            .step_by(TALLY_STRIDE)
            .map(|n| u64::from(std::mem::take(n)))
            .sum()
    }

    /// The entries of the lanes of `slow` through their branch's table, where the guide
    /// could not say: the common reason a lane leaves the vectors, so it touches nothing
    /// else. Lanes whose child is not a node that fits a guide entry stay `GUIDE_SLOW`.
    #[cold]
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    unsafe fn resolve(
        &self,
        slow: __mmask8,
        words: __m512i,
        at: __m256i,
        entry: __m256i,
    ) -> __m256i {
        let mut w = [0u64; WIDTH];
        let mut branch = [0u32; WIDTH];
        let mut entries = [0u32; WIDTH];
        _mm512_storeu_si512(w.as_mut_ptr().cast(), words);
        _mm256_storeu_si256(branch.as_mut_ptr().cast(), at);
        _mm256_storeu_si256(entries.as_mut_ptr().cast(), entry);
        for l in (0..WIDTH).filter(|l| slow & (1 << l) != 0) {
            entries[l] = guide_form(self.child(branch[l] >> GUIDE_BITS, w[l]));
        }
        _mm256_loadu_si256(entries.as_ptr().cast())
    }

    /// Moves the lanes of `slow` one step on outside the vectors, for results not seen yet,
    /// raw draws, and leaves that do not fit a guide entry: by playing the trial in full, or
    /// counting the leaf here. Returns the group and the entries the vector code goes on
    /// with: a lane whose trial was finished here gets the root, so the vector code does not
    /// count it again.
    #[allow(clippy::too_many_arguments)]
    #[cold]
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    unsafe fn leave_vectors<T: Trial>(
        &mut self,
        trial: &'t T,
        scratch: &mut T::Scratch,
        mut group: Group,
        g: usize,
        slow: __mmask8,
        words: __m512i,
        entry: __m256i,
        out: &mut [i64],
        ended: &mut Ended,
    ) -> (Group, __m256i) {
        let mut m = Spilled {
            s: [[0; WIDTH]; 4],
            words: [0; WIDTH],
            entries: [0; WIDTH],
            at: [0; WIDTH],
            done: [0; WIDTH],
        };
        for i in 0..4 {
            _mm512_storeu_si512(m.s[i].as_mut_ptr().cast(), group.s[i]);
        }
        _mm512_storeu_si512(m.words.as_mut_ptr().cast(), words);
        _mm256_storeu_si256(m.entries.as_mut_ptr().cast(), entry);
        _mm256_storeu_si256(m.at.as_mut_ptr().cast(), group.at);
        _mm256_storeu_si256(m.done.as_mut_ptr().cast(), group.done);
        for l in (0..WIDTH).filter(|l| slow & (1 << l) != 0) {
            let lane = g * WIDTH + l;
            let branch = m.at[l] >> GUIDE_BITS;
            let e = self.child(branch, m.words[l]);
            if e < LEAF {
                // A lane before this one discovered the same path just now.
                m.entries[l] = e;
                continue;
            }
            if e < SLOW {
                // A leaf whose index does not fit in a guide entry.
                ended.leaves.add(e & !LEAF, lane, 1);
            } else {
                // Replay from where the trial began: as many words back as it has drawn.
                let mut rng = LaneState(std::array::from_fn(|i| m.s[i][l]));
                for _ in 0..=self.branches[branch as usize].depth {
                    rng.back();
                }
                match self.discover(trial, scratch, &mut rng, out, &[]) {
                    Walked::Leaf(leaf) => ended.leaves.add(leaf, lane, 1),
                    Walked::Played => ended.played.extend_from_slice(out),
                }
                for (s, v) in m.s.iter_mut().zip(rng.0) {
                    s[l] = v;
                }
            }
            m.done[l] += 1;
            m.entries[l] = self.root;
        }
        for i in 0..4 {
            group.s[i] = _mm512_loadu_si512(m.s[i].as_ptr().cast());
        }
        group.done = _mm256_loadu_si256(m.done.as_ptr().cast());
        (group, _mm256_loadu_si256(m.entries.as_ptr().cast()))
    }
}

/// Writes the state of group `g`'s lanes in `lanes` to `finished`: they have played their
/// quota, and stand where their last trial ended.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx512f,avx512vl,avx2")]
fn keep(finished: &mut [[u64; LANES]; 4], g: usize, lanes: __mmask8, s: [__m512i; 4]) {
    for (word, v) in finished.iter_mut().zip(s) {
        let mut lane_words = [0u64; WIDTH];
        // SAFETY: `lane_words` holds exactly one vector.
        unsafe { _mm512_storeu_si512(lane_words.as_mut_ptr().cast(), v) };
        for l in (0..WIDTH).filter(|l| lanes & (1 << l) != 0) {
            word[g * WIDTH + l] = lane_words[l];
        }
    }
}

/// One xoshiro256++ step of four lanes: their words, and the state moved on.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx2")]
fn next(s: &mut [__m512i; 4]) -> __m512i {
    let [s0, s1, s2, s3] = *s;
    let words = _mm512_add_epi64(_mm512_rol_epi64::<23>(_mm512_add_epi64(s0, s3)), s0);
    let t = _mm512_slli_epi64::<17>(s1);
    let s2 = _mm512_xor_si512(s2, s0);
    let s3 = _mm512_xor_si512(s3, s1);
    let s1 = _mm512_xor_si512(s1, s2);
    let s0 = _mm512_xor_si512(s0, s3);
    let s2 = _mm512_xor_si512(s2, t);
    let s3 = _mm512_rol_epi64::<45>(s3);
    *s = [s0, s1, s2, s3];
    words
}
