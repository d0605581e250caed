//! Round records in a graph: how a trial stood at the end of each round ([`MetricName::round`]),
//! counted where trials pass rather than kept in their rows.
//!
//! A row that carried its trial's rounds would keep apart, in leaves and state keys, trials
//! that reach one state by different rounds, and the graph would stop joining them. So a
//! trial's records stay out of its leaf row and of its keys: the record of a round the trial
//! wrote before a later draw ([`Draws::at_round`](super::Draws::at_round)) is a mark on the
//! branch that draw is made at, counted each time a walk enters that branch, and the records
//! written after the last draw (an ended engagement's last values carried forward, mostly) go
//! with the leaf. The root's marks are passed by every trial that ends at a leaf. A trial
//! played in full and counted by its row (past the graph's bounds or a raw draw) has its
//! records in its row, and the passes its walk had counted are taken back; one whose path
//! the graph took in is counted at its leaf, and its passes along that path.

use super::super::Gathered;
use super::{Cursor, Entry};
use std::collections::HashMap;
use std::ops::Range;

/// Counters per branch ([`Records::visits`]).
const SPREAD: usize = 4;

/// Passes logged before they are counted ([`Records::log`]): 4 KB, so the log stays in the
/// first-level cache.
const LOG: usize = 1024;

/// A branch without marks ([`Records::marks`]).
const NO_MARKS: u32 = u32::MAX;

/// The kind of `marks` among `kinds` (`NO_MARKS` for none), added if new.
fn kind_of(
    kinds: &mut Vec<Box<[i64]>>,
    of: &mut HashMap<Box<[i64]>, u32>,
    marks: Option<&[i64]>,
) -> u32 {
    let Some(marks) = marks else {
        return NO_MARKS;
    };
    if let Some(&kind) = of.get(marks) {
        return kind;
    }
    let kind = kinds.len() as u32;
    kinds.push(marks.into());
    of.insert(marks.into(), kind);
    kind
}

/// The marks `pending` says depth `depth` has, among `pending_marks` ([`Records::pending`]).
fn pending_at<'a>(
    pending: &[Range<usize>],
    pending_marks: &'a [i64],
    depth: usize,
) -> Option<&'a [i64]> {
    let marks = pending.get(depth)?;
    (!marks.is_empty()).then(|| &pending_marks[marks.clone()])
}

/// One arm's records: where they go in the rows and how the graph counts them.
#[derive(Debug, Default, Clone)]
pub(super) struct Records {
    /// The metric slots of the records, round 0's first, `len` a round.
    slots: Vec<usize>,
    len: usize,
    /// Per branch, the records marked on it (round, then its `len` values, for each round)
    /// as an index into `kinds`, or `NO_MARKS`. Thousands of branches carry a few hundred
    /// kinds of marks (the units' counts at a round's end), so a drain adds each kind's
    /// values to the histograms once, not each branch's: adding them branch by branch was
    /// 2 to 4% of the duels' runs (perf).
    marks: Vec<u32>,
    kinds: Vec<Box<[i64]>>,
    kind_of: HashMap<Box<[i64]>, u32>,
    /// Passes by kind, while a drain adds them up.
    by_kind: Vec<u64>,
    /// The branches with marks, in order, and the same as bits (branch e is bit e % 64 of
    /// word e / 64), then a word of zeros that every place past them reads: 4 KB for the
    /// most branches a graph holds, so a walk reads whether a step counts from the
    /// first-level cache instead of reaching for a counter beside the branch.
    marked: Vec<Entry>,
    bits: Vec<u64>,
    /// The marked branches walks entered, not counted yet: the first `logged`. A walk
    /// writes every step here and moves on past it only at a marked branch, so a step costs
    /// a store to the log, which stays in cache, and no branch on where the walk stands
    /// (which would mispredict as often as marks are met). Counting at once was a
    /// read-modify-write of a counter beside the branch, out of the first-level cache, that
    /// held back the walk's own lookups.
    log: Vec<Entry>,
    logged: usize,
    /// Per branch, `SPREAD` counters of the passes counted from the log since last drained
    /// (by place in the log, so that passes of one branch in a row do not wait on each
    /// other's increments).
    visits: Vec<u32>,
    /// Per leaf, the first round it holds and every round's values from there (zeros before).
    tails: Vec<i64>,
    /// The rounds written by the trial being recorded, with the draws made before each.
    pub(super) noted: Vec<(u32, u32)>,
    /// What [`Records::prepare`] worked out: per depth of the path, where its branch's marks
    /// lie in `pending_marks` (none when empty); and its leaf's tail. Every trial recorded is
    /// prepared, and few of its branches are new: a box per depth was about a twentieth of
    /// configs/run-duel.toml's run at 1e6 trials (perf).
    pending: Vec<Range<usize>>,
    pending_marks: Vec<i64>,
    pending_tail: Vec<i64>,
}

/// Counts the passes in `log` into `visits`.
#[inline(never)]
fn count(log: &[Entry], visits: &mut [u32]) {
    for (k, &e) in log.iter().enumerate() {
        let at = e as usize * SPREAD + k % SPREAD;
        visits[at] = visits[at].wrapping_add(1);
    }
}

/// Whether node `e` is a branch with marks, by the bits of [`Records::bits`].
#[inline(always)]
fn marked(bits: &[u64], e: Entry) -> bool {
    // Leaves and markers are past every branch: they read the last word, all zeros.
    let word = (e as usize / 64).min(bits.len() - 1);
    bits[word] >> (e % 64) & 1 != 0
}

/// [`Records::pass`] for a walk of many trials ([`Records::passes`]).
pub(crate) struct Passes<'a> {
    bits: &'a [u64],
    log: &'a mut [Entry; LOG],
    visits: &'a mut [u32],
    logged: usize,
    /// The records' own count of entries logged, written back on drop.
    kept: &'a mut usize,
}

impl Passes<'_> {
    /// Counts a walk entering node `e` (a branch, or anything else: then nothing is
    /// counted).
    #[inline(always)]
    pub(crate) fn pass(&mut self, at: Cursor) {
        let e = at.0;
        // Below `LOG` always: the log is counted as soon as it is full.
        let n = self.logged % LOG;
        self.log[n] = e;
        self.logged = n + usize::from(marked(self.bits, e));
        if self.logged == LOG {
            count(self.log, self.visits);
            self.logged = 0;
        }
    }
}

impl Drop for Passes<'_> {
    fn drop(&mut self) {
        *self.kept = self.logged;
    }
}

impl Records {
    /// The records of an arm whose round records are the metrics `slots`, `len` a round.
    pub(super) fn new(slots: Vec<usize>, len: usize) -> Records {
        Records {
            slots,
            len,
            bits: vec![0],
            log: vec![0; LOG],
            ..Records::default()
        }
    }

    /// Whether the arm writes records.
    #[inline]
    pub(super) fn any(&self) -> bool {
        self.len > 0
    }

    pub(super) fn slots(&self) -> &[usize] {
        &self.slots
    }

    /// Counts a walk entering node `e` (a branch, or anything else: then nothing is
    /// counted).
    #[inline(always)]
    pub(super) fn pass(&mut self, e: Entry) {
        self.passes().pass(Cursor(e));
    }

    /// Takes back a walk's passes of branch `e`: its trial is to be played in full.
    pub(super) fn unpass(&mut self, e: Entry) {
        if self.marked(e) {
            let at = e as usize * SPREAD;
            self.visits[at] = self.visits[at].wrapping_sub(1);
        }
    }

    /// Counts the passes logged, and empties the log.
    fn count_log(&mut self) {
        count(&self.log[..self.logged], &mut self.visits);
        self.logged = 0;
    }

    /// The counting of [`pass`](Self::pass) apart from the rest of the records, for a walk
    /// that keeps where the log stands in a register; the records see its passes once it is
    /// dropped.
    #[inline]
    pub(super) fn passes(&mut self) -> Passes<'_> {
        let Records {
            bits,
            log,
            logged,
            visits,
            ..
        } = self;
        Passes {
            bits,
            log: log
                .as_mut_slice()
                .try_into()
                .expect("the log holds LOG entries"),
            visits,
            logged: *logged,
            kept: logged,
        }
    }

    /// Whether node `e` is a branch with marks: walks entering it count.
    #[inline(always)]
    pub(super) fn marked(&self, e: Entry) -> bool {
        marked(&self.bits, e)
    }

    /// The bits of [`marked`](Self::marked), by 32-bit word (word j holds branches
    /// `32 j..32 j + 32`), for walks that gather them.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) fn bits(&self) -> &[u64] {
        &self.bits
    }

    /// Counts walks entering the branches `entered`, each with marks (at most `LOG`).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) fn pass_marked(&mut self, entered: &[Entry]) {
        debug_assert!(entered.iter().all(|&e| self.marked(e)), "marked branches");
        // The log is never left full: a pass writes one entry past those logged.
        if self.logged + entered.len() >= LOG {
            self.count_log();
        }
        self.log[self.logged..][..entered.len()].copy_from_slice(entered);
        self.logged += entered.len();
    }

    /// Works out, from the trial just played (its row `out`, `drawn` draws), the marks of
    /// each branch of its path and the tail of its leaf, for [`insert`](super::Tree::insert).
    pub(super) fn prepare(&mut self, drawn: usize, out: &[i64]) {
        self.pending.clear();
        self.pending_marks.clear();
        self.pending_tail.clear();
        if !self.any() {
            return;
        }
        self.pending.resize(drawn, 0..0);
        let mut first = 0;
        // Rounds are noted in the order they are written, so those of one depth are together.
        for &(round, at) in &self.noted {
            let Some(marks) = self.pending.get_mut(at as usize) else {
                continue;
            };
            let start = self.pending_marks.len();
            let from = round as usize * self.len;
            self.pending_marks.push(i64::from(round));
            (self.pending_marks).extend(self.slots[from..from + self.len].iter().map(|&s| out[s]));
            let end = self.pending_marks.len();
            *marks = match Range::is_empty(marks) {
                true => start..end,
                false => marks.start..end,
            };
            first = first.max(round as usize + 1);
        }
        self.pending_tail.push(first as i64);
        let len = self.len;
        (self.pending_tail).extend(self.slots.iter().enumerate().map(|(i, &s)| {
            match i / len < first {
                true => 0,
                false => out[s],
            }
        }));
    }

    /// The marks of the path being inserted at depth `depth`.
    pub(super) fn marks_at(&self, depth: usize) -> Option<&[i64]> {
        pending_at(&self.pending, &self.pending_marks, depth)
    }

    /// The tail of the leaf of the path being inserted.
    pub(super) fn tail(&self) -> &[i64] {
        &self.pending_tail
    }

    /// The marks of kind `kind`.
    fn kind(&self, kind: u32) -> Option<&[i64]> {
        self.kinds.get(kind as usize).map(|m| &m[..])
    }

    /// Whether branch `e` has the marks `marks`.
    pub(super) fn has(&self, e: Entry, marks: Option<&[i64]>) -> bool {
        self.marks
            .get(e as usize)
            .map_or(marks.is_none(), |&kind| self.kind(kind) == marks)
    }

    /// Gives new branch `e` the marks of the path being inserted at depth `depth`.
    pub(super) fn mark_as_path(&mut self, e: Entry, depth: usize) {
        let marks = pending_at(&self.pending, &self.pending_marks, depth);
        let kind = kind_of(&mut self.kinds, &mut self.kind_of, marks);
        self.mark_kind(e, kind);
    }

    /// Gives new branch `e` the marks `marks`.
    #[cfg(test)]
    fn mark(&mut self, e: Entry, marks: Option<&[i64]>) {
        let kind = kind_of(&mut self.kinds, &mut self.kind_of, marks);
        self.mark_kind(e, kind);
    }

    /// Gives new branch `e` its marks, of kind `kind`.
    fn mark_kind(&mut self, e: Entry, kind: u32) {
        let at = e as usize;
        if self.marks.len() <= at {
            self.marks.resize(at + 1, NO_MARKS);
            self.bits.resize(at / 64 + 2, 0);
            self.visits.resize((at + 1) * SPREAD, 0);
        }
        debug_assert!(
            self.marks[at] == NO_MARKS,
            "a branch is marked once, when made"
        );
        if kind != NO_MARKS {
            self.bits[at / 64] |= 1 << (at % 64);
            self.marked.push(e);
        }
        self.marks[at] = kind;
    }

    /// Keeps a new leaf's tail.
    pub(super) fn add_leaf(&mut self, tail: &[i64]) {
        self.tails.extend_from_slice(tail);
    }

    /// Adds `n` trials that ended at `leaf` to `acc`: its tail and the root's marks.
    pub(super) fn add_ended(&self, leaf: u32, root: Entry, n: u64, acc: &mut Gathered) {
        if !self.any() {
            return;
        }
        let width = 1 + self.slots.len();
        let tail = &self.tails[leaf as usize * width..][..width];
        let first = tail[0] as usize * self.len;
        for (&slot, &v) in self.slots[first..].iter().zip(&tail[1 + first..]) {
            acc.metrics[slot].add_count(v, n);
        }
        self.add_marks(root, n, acc);
    }

    fn add_marks(&self, e: Entry, n: u64, acc: &mut Gathered) {
        if let Some(&kind) = self.marks.get(e as usize) {
            self.add_kind(kind, n, acc);
        }
    }

    /// Adds `n` passes of marks of kind `kind` to `acc`.
    fn add_kind(&self, kind: u32, n: u64, acc: &mut Gathered) {
        let Some(marks) = self.kind(kind) else {
            return;
        };
        for round in marks.chunks_exact(1 + self.len) {
            let from = round[0] as usize * self.len;
            for (&slot, &v) in self.slots[from..from + self.len].iter().zip(&round[1..]) {
                acc.metrics[slot].add_count(v, n);
            }
        }
    }

    /// Adds the passes counted to `acc`, and forgets them.
    pub(super) fn drain(&mut self, acc: &mut Gathered) {
        self.count_log();
        let mut by_kind = std::mem::take(&mut self.by_kind);
        by_kind.resize(self.kinds.len(), 0);
        for &e in &self.marked {
            let spread = &mut self.visits[e as usize * SPREAD..][..SPREAD];
            // Counts within a drain fit: a chunk has 2^16 trials.
            let n = spread.iter().fold(0u32, |n, &v| n.wrapping_add(v));
            spread.fill(0);
            by_kind[self.marks[e as usize] as usize] += u64::from(n);
        }
        for (kind, n) in by_kind.iter_mut().enumerate() {
            if *n > 0 {
                self.add_kind(kind as u32, std::mem::take(n), acc);
            }
        }
        self.by_kind = by_kind;
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{play_lanes_by, walks};
    use super::super::{Player, Tree, LEAF, MAX_GUIDED};
    use crate::dice::{Fraction, SuccessCount};
    use crate::engine::draws::{Draws, Plain};
    use crate::engine::stream::{Lanes, LANES};
    use crate::engine::{Gathered, MetricName, Trial};

    /// Rounds of one draw each, adding to a total, until the total reaches `stop` or the
    /// rounds run out: metrics the total and the rounds played, then the total at the end of
    /// each round (carried forward once it stops). With `announce`, each round's start
    /// announces (round, total) as its state, so that paths with different earlier rounds
    /// join.
    struct Totals {
        names: Vec<MetricName>,
        rounds: u32,
        dice: SuccessCount,
        /// Rounds draw a uniform pick of this many instead, when not zero.
        pick: u32,
        stop: i64,
        announce: bool,
        memoise: bool,
    }

    impl Totals {
        fn new(rounds: u32, dice: SuccessCount, pick: u32, stop: i64, announce: bool) -> Totals {
            let name = |name: &str, round| MetricName {
                arm: 0,
                choice: String::new(),
                name: name.into(),
                round,
            };
            let mut names = vec![name("total", None), name("rounds", None)];
            names.extend((0..=rounds).map(|r| name("total", Some(r))));
            Totals {
                names,
                rounds,
                dice,
                pick,
                stop,
                announce,
                memoise: true,
            }
        }
    }

    impl Trial for Totals {
        type Scratch = ();
        fn metrics(&self) -> &[MetricName] {
            &self.names
        }
        fn arms(&self) -> usize {
            1
        }
        fn pairs(&self) -> &[(usize, usize)] {
            &[]
        }
        fn scratch(&self) {}
        fn memoise(&self) -> bool {
            self.memoise
        }
        fn play<'t, D: Draws<'t>>(&'t self, _: usize, _: &mut (), draws: &mut D, out: &mut [i64]) {
            let mut total = 0;
            let mut played = self.rounds;
            for round in 1..=self.rounds {
                out[2 + round as usize - 1] = total;
                if total >= self.stop {
                    played = round - 1;
                    break;
                }
                draws.at_round(round - 1);
                if self.announce {
                    draws.at_state(|key| key.extend([u64::from(round), total as u64]));
                }
                total += i64::from(match self.pick {
                    0 => draws.count(&self.dice),
                    n => draws.uniform(n),
                });
            }
            out[2 + played as usize..].fill(total);
            (out[0], out[1]) = (total, i64::from(played));
        }
    }

    fn add_row(acc: &mut Gathered, row: &[i64], n: u64) {
        for (h, &v) in acc.metrics.iter_mut().zip(row) {
            h.add_count(v, n);
        }
    }

    /// Every trial played in full on its lane, one after another.
    fn plain(trial: &Totals, quota: [u64; LANES]) -> Gathered {
        let mut acc = Gathered::empty(trial.metrics().len(), 0);
        let mut out = vec![0; trial.metrics().len()];
        let mut lanes = Lanes::new(5, 3);
        for (j, &q) in quota.iter().enumerate() {
            for _ in 0..q {
                trial.play(0, &mut (), &mut Plain(lanes.lane(j)), &mut out);
                add_row(&mut acc, &out, 1);
            }
        }
        acc
    }

    /// The lanes walked side by side with `walk` in segments of `segment` trials a lane,
    /// records counted where walks pass and read out after each segment, as the engine
    /// does; the tree's branches, and whether a segment could walk in rounds (with AVX-512).
    fn walked(
        walk: super::super::tests::Walk,
        trial: &Totals,
        quota: [u64; LANES],
        segment: u64,
    ) -> (Gathered, usize, bool) {
        let mut acc = Gathered::empty(trial.metrics().len(), 0);
        let mut tree = Tree::new(trial, 0, true);
        let mut player = Player::new(trial);
        let mut lanes = Lanes::new(5, 3);
        let first = tree.walk(&mut player, &mut lanes.lane(0));
        player.count(first, 0);
        let mut left = quota;
        left[0] -= 1;
        let mut rounds = false;
        while left.iter().any(|&l| l > 0) {
            let part = left.map(|l| l.min(segment));
            rounds |= part.iter().all(|&l| l > 0) && tree.common_depth().is_some();
            play_lanes_by(walk, &mut tree, &mut player, &mut lanes, part);
            for (l, s) in left.iter_mut().zip(part) {
                *l -= s;
            }
            tree.drain_rounds(&mut acc);
        }
        for row in player.ended.played.chunks_exact(trial.metrics().len()) {
            add_row(&mut acc, row, 1);
        }
        for (leaf, n) in player.ended.leaves.drain() {
            for (&slot, &v) in tree.slots().iter().zip(tree.row(leaf)) {
                acc.metrics[slot].add_count(v, n);
            }
            tree.add_rounds(leaf, n, &mut acc);
        }
        (acc, tree.branches.len(), rounds)
    }

    #[test]
    fn every_walk_counts_the_records_of_trials_played_in_full() {
        let dice = |n, num, den| SuccessCount::new(n, Fraction::new(num, den));
        let cases = [
            // A graph: totals reached by different rounds join.
            Totals::new(4, dice(3, 1, 2), 0, 6, true),
            Totals::new(6, dice(1, 1, 2), 0, 3, true),
            // A tree whose trials mostly make all their draws (the AVX-512 walk in rounds),
            // with rare results met late.
            Totals::new(3, dice(2, 1, 36), 0, 99, false),
            Totals::new(2, dice(4, 5, 6), 0, 7, false),
            // More branches than have guides: walks leave the vectors part-way.
            Totals::new(3, dice(1, 1, 2), 97, i64::MAX, false),
        ];
        for (case, trial) in cases.iter().enumerate() {
            let quota = std::array::from_fn(|j| 3000 + 37 * j as u64);
            let truth = plain(trial, quota);
            let trials: u64 = quota.iter().sum();
            assert_eq!(truth.metrics[2].total(), trials);
            for walk in walks() {
                let (got, branches, rounds) = walked(walk, trial, quota, 500);
                assert!(got == truth, "case {case}, {walk:?}");
                if case == 4 {
                    assert!(branches > MAX_GUIDED, "case {case}: {branches} branches");
                }
                if case == 2 {
                    assert!(
                        rounds,
                        "case {case}: trials mostly of three draws, in rounds"
                    );
                }
            }
        }
    }

    /// The records of arm 0 of `trial`.
    fn records_of<T: Trial>(trial: &T) -> super::Records {
        let arm = super::super::ArmMetrics::of(trial).swap_remove(0);
        super::Records::new(arm.rounds, arm.round_len)
    }

    #[test]
    fn passes_logged_count_as_passes_counted_one_by_one() {
        // Branch e (a multiple of 3 below 200) marks round 0 with the value e: the read-out's
        // histogram of round 0 counts each branch's passes at its own value.
        let trial = Totals::new(2, SuccessCount::new(1, Fraction::new(1, 2)), 0, 9, false);
        let mut records = records_of(&trial);
        for e in 0..200 {
            records.mark(e, (e % 3 == 0).then_some(&[0, i64::from(e)][..]));
        }
        let mut expected = vec![0u64; 200];
        let mut x = 7u64;
        // More passes than the log holds, leaves and markers among them, and some taken back.
        for k in 0..12 * super::LOG as u64 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let e = match x >> 61 {
                0 => LEAF | ((x >> 40) as u32 % 50),
                1 => u32::MAX,
                _ => (x >> 33) as u32 % 200,
            };
            // Taken back only once passed, as walks do.
            if k % 7 == 0 && e < 200 && (e % 3 != 0 || expected[e as usize] > 0) {
                records.unpass(e);
                expected[e as usize] -= u64::from(e % 3 == 0);
            } else if k % 5 == 0 && e < 200 && e % 3 == 0 {
                records.pass_marked(&[e, e]);
                expected[e as usize] += 2;
            } else {
                records.pass(e);
                expected[e as usize % 200] += u64::from(e < 200 && e % 3 == 0);
            }
        }
        let mut acc = Gathered::empty(trial.metrics().len(), 0);
        records.drain(&mut acc);
        let mut truth = Gathered::empty(trial.metrics().len(), 0);
        for (e, &n) in expected.iter().enumerate().filter(|(_, &n)| n > 0) {
            truth.metrics[2].add_count(e as i64, n);
        }
        assert!(expected.iter().sum::<u64>() > 2 * super::LOG as u64);
        assert_eq!(acc, truth);
    }

    #[test]
    fn recording_from_where_the_walk_fell_off_grows_the_graph_recording_from_the_root_grows() {
        // A walk records a new path from the branch it stood at; recording every new path
        // from the root (the walk's words replayed from the trial's start) is the plain way.
        let dice = |n, num, den| SuccessCount::new(n, Fraction::new(num, den));
        for trial in [
            Totals::new(4, dice(3, 1, 2), 0, 6, true),
            Totals::new(5, dice(2, 1, 6), 0, 4, false),
        ] {
            let (mut walked, mut rooted) = (Tree::new(&trial, 0, true), Tree::new(&trial, 0, true));
            let (mut pa, mut pb) = (Player::new(&trial), Player::new(&trial));
            let mut lanes = Lanes::new(9, 1);
            let mut found = 0;
            for _ in 0..3000 {
                let mut rng = lanes.state(0);
                let mut probe = rng;
                let mut e = rooted.root;
                while e < LEAF {
                    e = rooted.child(e, rand::Rng::next_u64(&mut probe));
                }
                if e >= super::super::SLOW {
                    found += 1;
                    let mut from_start = rng;
                    rooted.discover(&mut pb, &mut from_start, &[], rooted.root);
                }
                walked.walk(&mut pa, &mut rng);
                lanes.restore(0, rng);
            }
            assert!(found > 20, "{found} paths recorded");
            let depths = |t: &Tree| {
                t.branches
                    .iter()
                    .map(|b| (b.first, b.depth))
                    .collect::<Vec<_>>()
            };
            assert_eq!(depths(&walked), depths(&rooted));
            assert_eq!(walked.children, rooted.children);
            walked.build_guides();
            rooted.build_guides();
            assert_eq!(walked.guides, rooted.guides);
            assert_eq!(walked.rows, rooted.rows);
            assert_eq!(walked.records.marks, rooted.records.marks);
            assert_eq!(walked.records.tails, rooted.records.tails);
            assert_eq!(walked.states, rooted.states);
            assert_eq!(walked.depth_mass, rooted.depth_mass);
        }
    }

    #[test]
    fn marked_reads_the_bits_of_branches_with_marks_only() {
        let trial = Totals::new(2, SuccessCount::new(1, Fraction::new(1, 2)), 0, 9, false);
        let mut records = records_of(&trial);
        for e in 0..200 {
            records.mark(e, (e % 3 == 0).then_some(&[0, 1][..]));
        }
        for e in 0..300 {
            assert_eq!(records.marked(e), e < 200 && e % 3 == 0, "branch {e}");
        }
        for e in [LEAF, LEAF | 5, u32::MAX, u32::MAX - 1] {
            assert!(!records.marked(e), "{e:#x} is no branch");
        }
    }
}
