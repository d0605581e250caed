//! [`Tree::play_lanes`] with AVX-512: the sixteen lanes walk as two vectors of eight.
//!
//! Each vector steps its eight xoshiro256++ lanes in registers, gathers the eight guide
//! entries its words' top bits pick, and moves every lane one node on, with no branch on any
//! lane's result: a lane that reaches a leaf writes the leaf to a buffer (counted later) and
//! goes back to the root. Two vectors are in flight so one's gathers overlap the other's
//! (timed against one vector of eight lanes, one of sixteen, and four of four, in both walks
//! below). Lanes whose guide entry is not a node (a key the guide cannot decide, a result
//! never seen, a node that does not fit in a guide entry) leave the vectors for
//! [`Tree::child`] or [`Tree::discover`], as in the scalar walk, so both walks give the same
//! results (see the tests). A lane that needs its trial replayed finds the trial's start by
//! stepping its generator back as many words as the trial has drawn ([`LaneState::back`]),
//! instead of every lane keeping its start.
//!
//! Where nearly all trials make the same number of draws, [`Tree::play_rounds`] walks them
//! in rounds first; the walk above plays what is left of each lane's quota.
//!
//! The fence: the one way in, [`Tree::play_lanes_avx512`], takes an [`Avx512`] token, which
//! exists only on a CPU with every feature the walk is compiled for. Behind it every function
//! is a safe `#[target_feature]` function but [`Tree::entries`], whose gather is in bounds only
//! for indices of this tree's guides: the walks call it where every lane stands at a branch of
//! the tree, which holds because every guide entry names a branch or a leaf
//! ([`Tree::guides_sound`]). Vectors go to and from memory only through arrays of their exact
//! size ([`load_words`] and its kin).

use super::*;
use crate::engine::cpu::Avx512;
use std::arch::x86_64::*;

/// Lanes per vector.
const WIDTH: usize = 8;
/// Vectors of lanes: two, written out in [`Tree::walk_vectors`].
const GROUPS: usize = 2;
const _: () = assert!(GROUPS * WIDTH == LANES);
/// All of a vector's lanes, as a mask.
const ALL: __mmask8 = u8::MAX >> (8 - WIDTH);

/// The tally: counters for leaves below `TALLY_LEAVES`, in `TALLY_COPIES` copies
/// `TALLY_STRIDE` counters apart (see [`Tree::tally`]).
const TALLY_LEAVES: usize = 1 << 15;
const TALLY_COPIES: usize = 4;
const TALLY_STRIDE: usize = TALLY_LEAVES + 64;

/// Leaves buffered before they are counted: a few kilobytes, so they stay in cache. A power of
/// two, so that [`put`] keeps any position inside the buffer with a mask.
const BUFFERED: usize = 1024;
const _: () = assert!(BUFFERED.is_power_of_two());

/// Leaves met and not counted yet. The walks count them out once more than
/// `BUFFERED - LANES` are buffered, so a step's `WIDTH` leaves always fit.
type Buffer = [u32; BUFFERED + LANES];

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
        let left = u32s_of(_mm256_sub_epi32(self.quota, self.done));
        left.into_iter().min().unwrap_or(0)
    }
}

/// Lanes of group `g` whose guide entries are not nodes, for [`Tree::leave_vectors`].
#[derive(Clone, Copy)]
struct Leaving {
    g: usize,
    slow: __mmask8,
    /// The step's words and entries, every lane's.
    words: __m512i,
    entry: __m256i,
}

/// What a step of a round met, for [`Tree::round_off`].
#[derive(Clone, Copy)]
struct Went {
    /// The group.
    g: usize,
    /// Lanes that did not meet what was expected.
    odd: __mmask8,
    /// Words the round has drawn, this step's included.
    step: u32,
    depth: u32,
    last: bool,
    words: __m512i,
    at: __m256i,
    entry: __m256i,
    /// Lanes overridden earlier in the round.
    off: __mmask8,
}

impl<'t> Tree<'t> {
    /// [`play_lanes`](Tree::play_lanes) on a CPU that the token proves has AVX-512.
    pub(super) fn play_lanes_avx512<T: Trial>(
        &mut self,
        _: Avx512,
        player: &mut Player<'t, T>,
        lanes: &mut Lanes,
        quota: [u64; LANES],
    ) {
        debug_assert!(Avx512::detect().is_some(), "the token proves AVX-512");
        debug_assert!(self.root < LEAF, "trials side by side start with a draw");
        debug_assert!(
            self.guides_sound(),
            "the walk's gathers stay inside the guides"
        );
        // SAFETY: an `Avx512` token exists only on a CPU with every feature `walk_vectors`
        // enables (`Avx512::FEATURES`).
        unsafe {
            // Compiled apart: the counting kept out of a walk with nothing to count, whose
            // steps stay as they were (with the check inside, configs/shoot-then-rally.toml
            // took 1.22 times the CPU time).
            match self.records.any() {
                true => self.walk_vectors::<T, true>(player, lanes, quota),
                false => self.walk_vectors::<T, false>(player, lanes, quota),
            }
        };
    }

    /// The walk: the rounds if trials mostly end after one depth, then the lanes step by step.
    /// With `RECORDS`, the steps count round records where they pass.
    #[target_feature(enable = "avx512f,avx512vl,avx2,popcnt")]
    fn walk_vectors<T: Trial, const RECORDS: bool>(
        &mut self,
        player: &mut Player<'t, T>,
        lanes: &mut Lanes,
        quota: [u64; LANES],
    ) {
        let mut quota = quota;
        if let Some(depth) = self.common_depth() {
            self.play_rounds::<T, RECORDS>(player, lanes, depth, &mut quota);
        }
        let root_at = _mm256_set1_epi32((self.root << GUIDE_BITS) as i32);
        // Where each lane stands once it has played its quota; a lane with none stays put.
        let mut finished = *lanes.words_mut();
        let groups: [Group; GROUPS] = std::array::from_fn(|g| {
            let s = finished.map(|word| load_words(part(&word, g)));
            let quota: [u32; WIDTH] =
                std::array::from_fn(|l| u32::try_from(quota[g * WIDTH + l]).unwrap_or(u32::MAX));
            let quota = load_u32s(&quota);
            Group {
                s,
                at: root_at,
                done: _mm256_setzero_si256(),
                quota,
                active: _mm256_cmpgt_epu32_mask(quota, _mm256_setzero_si256()),
            }
        });
        let mut leaves: Buffer = [0; BUFFERED + LANES];
        let mut buffered = 0;
        let entry_bits = _mm256_set1_epi32(0xFFFF);
        let split_base = _mm256_set1_epi32(GUIDE_SPLIT as i32);
        let leaf_bit = _mm256_set1_epi32(GUIDE_LEAF as i32);
        let one = _mm256_set1_epi32(1);
        // One step of one group. A macro, not a function: the groups are written out one
        // after the other so they stay in registers and their gathers overlap (a loop over
        // the groups, or a function the compiler did not inline, kept them in memory, and
        // was timed much slower).
        // With `$all`, every lane is known to have a trial left, and which lanes are active
        // is neither read nor kept.
        macro_rules! step {
            ($group:ident, $g:expr, $all:expr) => {{
                let active = if $all { ALL } else { $group.active };
                let words = next(&mut $group.s);
                let key = _mm512_cvtepi64_epi32(_mm512_srli_epi64::<{ 64 - GUIDE_BITS }>(words));
                let index = _mm256_or_si256($group.at, key);
                // SAFETY: every lane stands at a branch of this tree, its `at` being the
                // root's or that of a branch a guide entry or `leave_vectors` named (entries
                // with the leaf bit send the lane to the root, below), and its key has
                // `GUIDE_BITS` bits: each index is inside the guides.
                let mut entry = unsafe { self.entries(index) };
                let mut slow = _mm256_mask_cmpge_epu32_mask(active, entry, split_base);
                if slow != 0 {
                    entry = self.resolve(slow, words, $group.at, entry);
                    slow = _mm256_mask_cmpeq_epi32_mask(active, entry, entry_bits);
                }
                // Lanes whose trial `leave_vectors` finished: they stand at the root, not
                // having entered it.
                let mut gone = 0;
                if slow != 0 {
                    let leaving = Leaving {
                        g: $g,
                        slow,
                        words,
                        entry,
                    };
                    ($group, entry, gone) = self.leave_vectors(player, $group, leaving);
                }
                // Back to the root at a leaf, and on idle lanes at `GUIDE_SLOW` (which has the
                // leaf bit): the next gather stays inside the guides. Which lanes are active
                // stays off this path from one gather to the next, which it would lengthen.
                let stop = _mm256_test_epi32_mask(entry, leaf_bit);
                if RECORDS {
                    self.pass_lanes(active & !stop & !gone, entry);
                }
                $group.at = _mm256_mask_blend_epi32(
                    stop,
                    _mm256_slli_epi32::<{ GUIDE_BITS as i32 }>(entry),
                    root_at,
                );
                let leaf = stop & active;
                let ended = _mm256_maskz_compress_epi32(leaf, _mm256_andnot_si256(leaf_bit, entry));
                put(&mut leaves, buffered, ended);
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
        // left, `sure` steps need no look at which lanes are done (timed faster than looking
        // every step).
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
        self.drain_tally(&mut player.ended);
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
    #[target_feature(enable = "avx512f,avx512vl,avx2,popcnt")]
    fn play_rounds<T: Trial, const RECORDS: bool>(
        &mut self,
        player: &mut Player<'t, T>,
        lanes: &mut Lanes,
        depth: u32,
        quota: &mut [u64; LANES],
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
        let load = |g: usize| state.map(|word| load_words(part(&word, g)));
        let (mut first, mut second) = (load(0), load(1));
        let mut leaves: Buffer = [0; BUFFERED + LANES];
        let mut buffered = 0;
        // One step of one group: `$at` is where its lanes stand, `$step` how many words the
        // round has drawn with this one, `$last` whether it is the round's last.
        macro_rules! step {
            ($s:ident, $g:expr, $at:ident, $off:ident, $step:expr, $last:expr) => {{
                let words = next(&mut $s);
                let key = _mm512_cvtepi64_epi32(_mm512_srli_epi64::<{ 64 - GUIDE_BITS }>(words));
                // SAFETY: every lane stands at a branch of this tree: the root at a round's
                // first step, then the branch its last entry named (a lane that met anything
                // else was sent to a branch or the root by `round_off`, or is overridden to
                // the root); its key has `GUIDE_BITS` bits: each index is inside the guides.
                let mut entry = unsafe { self.entries(_mm256_or_si256($at, key)) };
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
                        g: $g,
                        odd,
                        step: $step,
                        depth,
                        last: $last,
                        words,
                        at: $at,
                        entry,
                        off: $off,
                    };
                    ($s, entry, $off) = self.round_off(player, $s, went);
                }
                // Every lane not overridden entered a branch, but at the last step.
                if RECORDS && !$last {
                    self.pass_lanes(ALL & !$off, entry);
                }
                if $last {
                    put(&mut leaves, buffered, _mm256_andnot_si256(leaf_bit, entry));
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
                *part_mut(word, g) = words_of(v);
            }
        }
        for q in quota.iter_mut() {
            *q -= rounds;
        }
    }

    /// The lanes of `went.odd`, whose step in a round did not meet what was expected, on
    /// group state `s`. Returns the state, the step's entries and the group's overridden
    /// lanes, all updated.
    #[cold]
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    fn round_off<T: Trial>(
        &mut self,
        player: &mut Player<'t, T>,
        s: [__m512i; 4],
        went: Went,
    ) -> ([__m512i; 4], __m256i, __mmask8) {
        let words = words_of(went.words);
        let at = u32s_of(went.at);
        let mut entries = u32s_of(went.entry);
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
            return (s, load_u32s(&entries), went.off);
        }
        // Play the others' trials from their start, and set each lane back so that the
        // round's remaining steps end where its trial did.
        let mut state = s.map(|v| words_of(v));
        for l in (0..WIDTH).filter(|l| irregular & (1 << l) != 0) {
            let mut rng = LaneState(std::array::from_fn(|i| state[i][l]));
            let lane = went.g * WIDTH + l;
            if entries[l] != Entry::from(GUIDE_SLOW) && !went.last {
                // The trial ended early, at a leaf: the lane stands where it ended.
                let leaf = entries[l] & !Entry::from(GUIDE_LEAF);
                player.ended.leaves.add(leaf, lane, 1);
            } else {
                for _ in 0..went.step {
                    rng.back();
                }
                // The round's earlier steps were counted: the walk counts them again.
                self.unpass_lane(rng, went.step - 1);
                let walked = self.walk(player, &mut rng);
                player.count(walked, lane);
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
        let s = state.map(|words| load_words(&words));
        (s, load_u32s(&entries), went.off | irregular)
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
    ///
    /// # Safety
    /// Every lane of `index` must be an entry of the guides other than the spare one (below
    /// `self.guides.len() - 1`), as `branch << GUIDE_BITS | key` is for a branch of this tree
    /// and a key of `GUIDE_BITS` bits.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    unsafe fn entries(&self, index: __m256i) -> __m256i {
        debug_assert!(
            u32s_of(index)
                .iter()
                .all(|&i| (i as usize) < self.guides.len().saturating_sub(1)),
            "gathers inside the guides"
        );
        let guides = self.guides.as_ptr().cast::<i32>();
        // SAFETY: by the caller's promise, each lane reads the four bytes at twice its index,
        // that is its entry and the next one, both inside `guides`.
        let gathered = unsafe { _mm256_i32gather_epi32::<2>(guides, index) };
        _mm256_and_si256(gathered, _mm256_set1_epi32(0xFFFF))
    }

    /// The entries of the lanes of `split`, whose guide entries are splits, decided by the
    /// splits' thresholds. A lane whose split is not in the tables (none is: see
    /// [`Tree::guides_sound`]) keeps its entry, and so goes to its branch's table.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    fn split_entries(&self, split: __mmask8, words: __m512i, entry: __m256i) -> __m256i {
        let j = _mm256_sub_epi32(entry, _mm256_set1_epi32(GUIDE_SPLIT as i32));
        let splits = self.split_at.len().min(self.split_to.len());
        let known = _mm256_mask_cmplt_epu32_mask(split, j, _mm256_set1_epi32(splits as i32));
        debug_assert_eq!(known, split, "every split entry is in the split tables");
        let split = known;
        let at = self.split_at.as_ptr().cast();
        let to = self.split_to.as_ptr().cast();
        // SAFETY: only the lanes of `split` read, and each has j below the tables' length
        // (masked just above): 8 bytes at 8 j are inside `split_at`, 4 at 4 j inside
        // `split_to`.
        let (at, to) = unsafe {
            (
                _mm512_mask_i32gather_epi64::<8>(_mm512_setzero_si512(), split, j, at),
                _mm256_mmask_i32gather_epi32::<4>(_mm256_setzero_si256(), split, j, to),
            )
        };
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
    /// of `TALLY_COPIES` copies of the counters, so that a leaf met twice in a row does not
    /// wait on its own increment (timed faster than one copy); the copies' stride is not a
    /// multiple of 4 KiB, as a load may wait on an earlier store to an address equal modulo
    /// 4 KiB. A fixed length needs no bounds checks.
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
    fn resolve(&self, slow: __mmask8, words: __m512i, at: __m256i, entry: __m256i) -> __m256i {
        let words = words_of(words);
        let branch = u32s_of(at);
        let mut entries = u32s_of(entry);
        for l in (0..WIDTH).filter(|l| slow & (1 << l) != 0) {
            entries[l] = guide_form(self.child(branch[l] >> GUIDE_BITS, words[l]));
        }
        load_u32s(&entries)
    }

    /// Moves the lanes of `leaving.slow` one step on outside the vectors, for results not
    /// seen yet, raw draws, and leaves that do not fit a guide entry: by playing the trial in
    /// full, or counting the leaf here. Returns the group and the entries the vector code goes
    /// on with: a lane whose trial was finished here gets the root, so the vector code does
    /// not count it again.
    #[cold]
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    fn leave_vectors<T: Trial>(
        &mut self,
        player: &mut Player<'t, T>,
        mut group: Group,
        leaving: Leaving,
    ) -> (Group, __m256i, __mmask8) {
        let mut s = group.s.map(|v| words_of(v));
        let mut gone: __mmask8 = 0;
        let words = words_of(leaving.words);
        let mut entries = u32s_of(leaving.entry);
        let at = u32s_of(group.at);
        let mut done = u32s_of(group.done);
        for l in (0..WIDTH).filter(|l| leaving.slow & (1 << l) != 0) {
            let lane = leaving.g * WIDTH + l;
            let branch = at[l] >> GUIDE_BITS;
            let e = self.child(branch, words[l]);
            if (e as usize) < MAX_GUIDED {
                // A lane before this one discovered the same path just now.
                entries[l] = e;
                continue;
            }
            if e & LEAF != 0 && e < SLOW {
                // A leaf whose index does not fit in a guide entry.
                player.ended.leaves.add(e & !LEAF, lane, 1);
            } else {
                // Replay from where the trial began: as many words back as it has drawn.
                // Past a branch without a guide the trial is walked on its own.
                let mut rng = LaneState(std::array::from_fn(|i| s[i][l]));
                let depth = self.branches[branch as usize].depth;
                for _ in 0..=depth {
                    rng.back();
                }
                // The steps to `branch` were counted: the walk counts them again.
                self.unpass_lane(rng, depth);
                let walked = if e < LEAF {
                    self.walk(player, &mut rng)
                } else {
                    self.discover(player, &mut rng, &[], self.root)
                };
                player.count(walked, lane);
                for (s, v) in s.iter_mut().zip(rng.0) {
                    s[l] = v;
                }
            }
            done[l] += 1;
            entries[l] = self.root;
            gone |= 1 << l;
        }
        group.s = s.map(|words| load_words(&words));
        group.done = load_u32s(&done);
        (group, load_u32s(&entries), gone)
    }

    /// Takes back the passes a lane counted in the vectors for the trial starting at
    /// `start`, which entered a branch with each of its first `steps` words: it is to be
    /// walked again from its start.
    fn unpass_lane(&mut self, start: LaneState, steps: u32) {
        let mut words = start;
        self.unpass((0..steps).map(|_| words.next_u64()));
    }

    /// Counts the lanes of `lanes` entering the branches `entry` names, those with marks:
    /// their bits gathered from the first-level cache, then the marked lanes' branches
    /// packed into the log.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    fn pass_lanes(&mut self, lanes: __mmask8, entry: __m256i) {
        let bits = self.records.bits();
        let words = u32::try_from(2 * bits.len()).unwrap_or(u32::MAX);
        let last = _mm256_set1_epi32(words.saturating_sub(1) as i32);
        let word = _mm256_min_epu32(_mm256_srli_epi32::<5>(entry), last);
        // SAFETY: `bits` holds `words` 32-bit words (at least two: it always has its word of
        // zeros), and every lane's index is at most the last of them.
        let gathered = unsafe {
            _mm256_mmask_i32gather_epi32::<4>(
                _mm256_setzero_si256(),
                lanes,
                word,
                bits.as_ptr().cast(),
            )
        };
        let shifted = _mm256_srlv_epi32(gathered, _mm256_and_si256(entry, _mm256_set1_epi32(31)));
        let marked = _mm256_mask_test_epi32_mask(lanes, shifted, _mm256_set1_epi32(1));
        if marked != 0 {
            let entered = u32s_of(_mm256_maskz_compress_epi32(marked, entry));
            self.records
                .pass_marked(&entered[..marked.count_ones() as usize]);
        }
    }
}

/// Writes the state of group `g`'s lanes in `lanes` to `finished`: they have played their
/// quota, and stand where their last trial ended.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx512f,avx512vl,avx2")]
fn keep(finished: &mut [[u64; LANES]; 4], g: usize, lanes: __mmask8, s: [__m512i; 4]) {
    for (word, v) in finished.iter_mut().zip(s) {
        let lane_words = words_of(v);
        for l in (0..WIDTH).filter(|l| lanes & (1 << l) != 0) {
            word[g * WIDTH + l] = lane_words[l];
        }
    }
}

/// One xoshiro256++ step of a vector's eight lanes: their words, and the state moved on.
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

/// Group `g`'s lanes of a lane-wise word of [`Lanes`].
fn part(word: &[u64; LANES], g: usize) -> &[u64; WIDTH] {
    word[g * WIDTH..][..WIDTH]
        .try_into()
        .expect("a group's lanes")
}

fn part_mut(word: &mut [u64; LANES], g: usize) -> &mut [u64; WIDTH] {
    (&mut word[g * WIDTH..][..WIDTH])
        .try_into()
        .expect("a group's lanes")
}

// The arrays the vectors go to and from memory through are exactly one vector long.
const _: () = assert!(size_of::<[u64; WIDTH]>() == size_of::<__m512i>());
const _: () = assert!(size_of::<[u32; WIDTH]>() == size_of::<__m256i>());

/// `words` as a vector.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_words(words: &[u64; WIDTH]) -> __m512i {
    // SAFETY: reads the 64 bytes `words` refers to (asserted one vector long above); the
    // load needs no alignment.
    unsafe { _mm512_loadu_si512(words.as_ptr().cast()) }
}

/// The words of a vector.
#[inline]
#[target_feature(enable = "avx512f")]
fn words_of(v: __m512i) -> [u64; WIDTH] {
    let mut words = [0; WIDTH];
    // SAFETY: writes the 64 bytes of `words` (asserted one vector long above); the store
    // needs no alignment.
    unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), v) };
    words
}

/// `values` as a vector.
#[inline]
#[target_feature(enable = "avx2")]
fn load_u32s(values: &[u32; WIDTH]) -> __m256i {
    // SAFETY: reads the 32 bytes `values` refers to (asserted one vector long above); the
    // load needs no alignment.
    unsafe { _mm256_loadu_si256(values.as_ptr().cast()) }
}

/// Writes a vector's values to `to`.
#[inline]
#[target_feature(enable = "avx2")]
fn store_u32s(to: &mut [u32; WIDTH], v: __m256i) {
    // SAFETY: writes the 32 bytes of `to` (asserted one vector long above); the store needs
    // no alignment.
    unsafe { _mm256_storeu_si256(to.as_mut_ptr().cast(), v) };
}

/// The values of a vector.
#[inline]
#[target_feature(enable = "avx2")]
fn u32s_of(v: __m256i) -> [u32; WIDTH] {
    let mut values = [0; WIDTH];
    store_u32s(&mut values, v);
    values
}

/// Writes a vector of leaves to `leaves` from position `at` on. The walks count the buffer
/// out before `at` reaches `BUFFERED`; the mask that keeps `at` inside changes nothing then,
/// and lets the compiler drop the bounds checks.
#[inline]
#[target_feature(enable = "avx2")]
fn put(leaves: &mut Buffer, at: usize, v: __m256i) {
    debug_assert!(at < BUFFERED, "the buffer is counted out before it is full");
    let to = &mut leaves[at % BUFFERED..][..WIDTH];
    store_u32s(to.try_into().expect("one vector"), v);
}
