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

use super::super::{Gathered, MetricName, Trial};
use super::Entry;

/// Counters per branch ([`Records::visits`]).
const SPREAD: usize = 4;

/// One arm's records: where they go in the rows and how the graph counts them.
#[derive(Debug, Default)]
pub(super) struct Records {
    /// The metric slots of the records, round 0's first, `len` a round.
    slots: Vec<usize>,
    len: usize,
    /// Per branch, the records marked on it (round, then its `len` values, for each round),
    /// and whether it has any.
    marks: Vec<Option<Box<[i64]>>>,
    marked: Vec<bool>,
    /// Per branch, the walks that entered it since last drained, then one for every other
    /// place: walks side by side count each step without a branch on where they stand (a
    /// branch per trial mispredicts as often as trials end), marked or not. `SPREAD`
    /// counters each, by the walk's place in its side, so that walks at one node do not
    /// wait on each other's increments.
    visits: Vec<u32>,
    /// Per leaf, the first round it holds and every round's values from there (zeros before).
    tails: Vec<i64>,
    /// The rounds written by the trial being recorded, with the draws made before each.
    pub(super) noted: Vec<(u32, u32)>,
    /// What [`Records::prepare`] worked out: per depth of the path, its branch's marks; and
    /// its leaf's tail.
    pending: Vec<Option<Box<[i64]>>>,
    pending_tail: Vec<i64>,
}

impl Records {
    pub(super) fn new<T: Trial>(trial: &T, arm: usize) -> Records {
        let of_arm = |m: &&MetricName| m.arm == arm;
        let slots: Vec<usize> = (trial.metrics().iter().enumerate())
            .filter(|(_, m)| m.round.is_some() && of_arm(m))
            .map(|(i, _)| i)
            .collect();
        let len = (trial.metrics().iter())
            .filter(|m| m.round == Some(0) && of_arm(m))
            .count();
        Records {
            slots,
            len,
            visits: vec![0; SPREAD],
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

    /// Counts walk `i` of a side entering node `e` (a branch, or anything else: then
    /// nothing is counted).
    #[inline(always)]
    pub(super) fn pass(&mut self, e: Entry, i: usize) {
        let other = self.visits.len() / SPREAD - 1;
        let at = (e as usize).min(other) * SPREAD + i % SPREAD;
        self.visits[at] = self.visits[at].wrapping_add(1);
    }

    /// Takes back a walk's passes of branch `e`: its trial is to be played in full.
    pub(super) fn unpass(&mut self, e: Entry) {
        let other = self.visits.len() / SPREAD - 1;
        let n = &mut self.visits[(e as usize).min(other) * SPREAD];
        *n = n.wrapping_sub(1);
    }

    /// Whether branch `e` has marks: walks entering it count.
    #[inline]
    pub(super) fn marked(&self, e: Entry) -> bool {
        self.marked.get(e as usize).copied().unwrap_or(false)
    }

    /// Works out, from the trial just played (its row `out`, `drawn` draws), the marks of
    /// each branch of its path and the tail of its leaf, for [`insert`](super::Tree::insert).
    pub(super) fn prepare(&mut self, drawn: usize, out: &[i64]) {
        self.pending.clear();
        self.pending_tail.clear();
        if !self.any() {
            return;
        }
        self.pending.resize(drawn, None);
        let mut first = 0;
        for &(round, at) in &self.noted {
            let Some(marks) = self.pending.get_mut(at as usize) else {
                continue;
            };
            let from = round as usize * self.len;
            let mut v = marks.take().map(Vec::from).unwrap_or_default();
            v.push(i64::from(round));
            v.extend(self.slots[from..from + self.len].iter().map(|&s| out[s]));
            *marks = Some(v.into_boxed_slice());
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
        self.pending.get(depth).and_then(Option::as_deref)
    }

    /// The tail of the leaf of the path being inserted.
    pub(super) fn tail(&self) -> &[i64] {
        &self.pending_tail
    }

    /// Whether branch `e` has the marks `marks`.
    pub(super) fn has(&self, e: Entry, marks: Option<&[i64]>) -> bool {
        self.marks
            .get(e as usize)
            .map_or(marks.is_none(), |m| m.as_deref() == marks)
    }

    /// Gives new branch `e` its marks.
    pub(super) fn mark(&mut self, e: Entry, marks: Option<&[i64]>) {
        let marks = marks.map(Box::from);
        let at = e as usize;
        if self.marks.len() <= at {
            self.marks.resize(at + 1, None);
            self.marked.resize(at + 1, false);
            // The counters of other places become branch `at`'s, or one's before it.
            let other = self.visits.len() - SPREAD;
            self.visits[other..].fill(0);
            self.visits.resize((at + 2) * SPREAD, 0);
        }
        self.marked[at] = marks.is_some();
        self.marks[at] = marks;
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
        let Some(Some(marks)) = self.marks.get(e as usize) else {
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
        for e in 0..self.marked.len() {
            let spread = &self.visits[e * SPREAD..(e + 1) * SPREAD];
            // Counts within a drain fit: a chunk has 2^16 trials.
            let n = spread.iter().fold(0u32, |n, &v| n.wrapping_add(v));
            if n > 0 && self.marked[e] {
                self.add_marks(e as Entry, u64::from(n), acc);
            }
        }
        self.visits.fill(0);
    }
}
