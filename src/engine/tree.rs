//! The outcome tree: trials remembered as the draws they make.
//!
//! A trial that draws only from tables is a pure function of its draws' results. The tree
//! keeps, per arm, every path of results seen so far: a branch holds the draw made at that
//! point and one child per result, a leaf holds the metrics the trial wrote. A trial then
//! costs one word and one lookup per draw, however much geometry the rules did to get there.
//! When a walk meets a result not seen before, the trial is played in full with the words
//! already drawn replayed, and the new path is added. Either way each draw reads exactly one
//! word, as [`Plain`](super::draws::Plain) does, so results are identical with or without the
//! tree; the tree only decides how much work a trial costs.
//!
//! Each branch keeps a guide: the child for each value of a word's top eleven bits, when
//! those bits alone decide the result (all but a fraction of a percent of draws), so a step
//! is one load. Because trial t of a chunk draws from lane t mod 16 ([`Lanes`]), sixteen
//! trials can walk side by side ([`Tree::play_lanes`]), their lookups overlapping instead of
//! waiting on each other; with AVX-512 ([`avx512`]) they walk as two vectors of eight.
//!
//! Trials that ask for raw words (see [`Draws::words`]) mark their node opaque and are always
//! played in full. A tree stops growing at its size limits; paths beyond them are played in
//! full too.

use super::draws::{Draw, Draws, Plain};
#[cfg(target_arch = "x86_64")]
use super::stream::Kernel;
use super::stream::{self, LaneState, Lanes, LANES};
use super::Trial;
use rand::Rng;
use std::collections::HashMap;

#[cfg(target_arch = "x86_64")]
mod avx512;

/// Bounds on a tree (per worker and arm): at most about 8 MB of branches, guides and children,
/// plus two copies of each leaf's metric row.
const MAX_BRANCHES: usize = 1 << 10;
const MAX_CHILDREN: usize = 1 << 20;
const MAX_LEAVES: usize = 1 << 16;

/// A node, as a child entry: a branch index, `LEAF | leaf`, or a marker.
type Entry = u32;
const LEAF: Entry = 1 << 31;
/// A result not seen yet.
const UNSEEN: Entry = u32::MAX;
/// A raw word is drawn here: trials that reach it are played in full.
const OPAQUE: Entry = u32::MAX - 1;
/// Never a node: entries at or above it are markers.
const SLOW: Entry = u32::MAX - 2;

/// A guide entry: a branch index, `GUIDE_LEAF | leaf` (leaves below `GUIDE_LEAVES`),
/// `GUIDE_SPLIT | j` when the key's words draw two results, told apart by split j's
/// threshold, or `GUIDE_SLOW` otherwise (the key's words draw more results, a child is not a
/// node yet, or cannot be named here). Two bytes, so that guides stay in the first-level
/// cache.
type GuideEntry = u16;
const GUIDE_LEAF: GuideEntry = 1 << 15;
const GUIDE_LEAVES: Entry = 1 << 14;
const GUIDE_SPLIT: GuideEntry = GUIDE_LEAF | GUIDE_LEAVES as GuideEntry;
const GUIDE_SLOW: GuideEntry = u16::MAX;
/// A leaf no trial ends at: what a walk in rounds counts for a lane whose trial it played
/// outside the vectors ([`avx512`]). Never in a guide.
const GUIDE_JUNK: GuideEntry = GUIDE_LEAF | (GUIDE_LEAVES as GuideEntry - 1);
/// A guide is keyed by a word's top `GUIDE_BITS` bits. Ten, measured on the composite
/// scenario (configs/shoot-then-rally.toml, 2e8 trials on one thread, medians of 5): with
/// keys that draw two results decided by splits, 0.60 s against 0.61 s with eleven bits and
/// 0.63-0.82 s with nine, where more keys draw three results. Before splits, eight bits ran
/// 35% slower than ten, as one trial in sixteen met a key that did not decide its draw.
const GUIDE_BITS: u32 = 10;
const GUIDE_LEN: usize = 1 << GUIDE_BITS;

/// Trials that walk in rounds are used once paths of one depth have this chance.
const ROUNDS_MASS: f64 = 0.75;

/// Entry `e` as a guide entry (widened): `GUIDE_SLOW` for markers and leaves a guide entry
/// cannot name.
fn guide_form(e: Entry) -> Entry {
    let leaf = e & !LEAF;
    if e < LEAF {
        e
    } else if e < SLOW && leaf < Entry::from(GUIDE_JUNK & !GUIDE_LEAF) {
        Entry::from(GUIDE_LEAF) | leaf
    } else {
        Entry::from(GUIDE_SLOW)
    }
}

/// A guide entry as a node entry, for entries that name one.
fn from_guide(g: Entry) -> Entry {
    if g & Entry::from(GUIDE_LEAF) != 0 {
        LEAF | (g & !Entry::from(GUIDE_LEAF))
    } else {
        g
    }
}

#[derive(Debug, Clone, Copy)]
struct Branch<'t> {
    draw: Draw<'t>,
    /// The child of result k is `children[first + k]`.
    first: u32,
    /// Draws made before this one on the way here.
    depth: u32,
}

/// How a trial went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walked {
    /// It ended at this leaf; [`Tree::row`] holds its metrics.
    Leaf(u32),
    /// It was played in full: its metrics are in `out`.
    Played,
}

/// How the engine can play the rest of a chunk.
pub enum Mode<'a, 't> {
    /// Nothing is known yet: play one trial with [`Tree::walk`].
    Unknown,
    /// No draw: every trial ends at this leaf.
    Constant(u32),
    /// One draw; `leaves[k]` is where result k ends (`u32::MAX` for results no word draws).
    OneDraw { draw: Draw<'t>, leaves: &'a [u32] },
    /// Every trial starts with a draw: [`Tree::play_lanes`].
    Branching,
    /// Every trial is played in full.
    Played,
}

/// One arm's tree.
pub struct Tree<'t> {
    arm: usize,
    /// The metric slots this arm writes, in row order.
    slots: Vec<usize>,
    remember: bool,
    root: Entry,
    branches: Vec<Branch<'t>>,
    children: Vec<Entry>,
    /// `GUIDE_LEN` entries per branch, by a word's top bits, then one spare entry so a
    /// vector gather of 32 bits at the last entry stays inside.
    guides: Vec<GuideEntry>,
    /// Leaf rows, `slots.len()` values each.
    rows: Vec<i64>,
    row_leaf: HashMap<Vec<i64>, u32>,
    /// The words of the trial being walked or replayed.
    words: Vec<u64>,
    record: Vec<(Draw<'t>, u32)>,
    /// The leaves of a one-draw root, once known; cleared when the tree grows.
    flat: Vec<u32>,
    /// Split j's threshold: words from it on draw the upper of the key's two results.
    split_at: Vec<u64>,
    /// Split j's guide entries, below its threshold in the low half, from it in the high.
    split_to: Vec<u32>,
    /// Trials ended at each leaf, while lanes walk as vectors.
    tally: Vec<u32>,
    /// The chance of the paths seen that end after each number of draws: where trials
    /// mostly end, lanes can walk in rounds of that many steps.
    depth_mass: Vec<f64>,
    /// Whether paths were added since branches were last shared ([`Tree::share_alike`]).
    grown: bool,
}

impl<'t> Tree<'t> {
    /// The tree of arm `arm`; with `remember` false it plays every trial in full.
    pub fn new<T: Trial>(trial: &T, arm: usize, remember: bool) -> Tree<'t> {
        let slots = trial
            .metrics()
            .iter()
            .enumerate()
            .filter(|(_, m)| m.arm == arm)
            .map(|(i, _)| i)
            .collect();
        Tree {
            arm,
            slots,
            remember,
            root: UNSEEN,
            branches: Vec::new(),
            children: Vec::new(),
            guides: Vec::new(),
            rows: Vec::new(),
            row_leaf: HashMap::new(),
            words: Vec::new(),
            record: Vec::new(),
            flat: Vec::new(),
            split_at: Vec::new(),
            split_to: Vec::new(),
            tally: Vec::new(),
            depth_mass: Vec::new(),
            grown: false,
        }
    }

    /// The metric slots of this arm; a leaf row lists their values in this order.
    pub fn slots(&self) -> &[usize] {
        &self.slots
    }

    pub fn leaves(&self) -> usize {
        self.row_leaf.len()
    }

    pub fn row(&self, leaf: u32) -> &[i64] {
        let w = self.slots.len();
        &self.rows[leaf as usize * w..(leaf as usize + 1) * w]
    }

    /// How the rest of a chunk can be played.
    pub fn mode(&mut self) -> Mode<'_, 't> {
        if !self.remember {
            return Mode::Played;
        }
        match self.root {
            UNSEEN => Mode::Unknown,
            OPAQUE => Mode::Played,
            e if e & LEAF != 0 => Mode::Constant(e & !LEAF),
            e => {
                let Branch { draw, first, .. } = self.branches[e as usize];
                if self.flat.is_empty() {
                    for k in 0..draw.outcomes() {
                        let child = self.children[first as usize + k];
                        let leaf = if child & LEAF != 0 && child < SLOW {
                            child & !LEAF
                        } else if !draw.can_draw(k as u32) {
                            u32::MAX
                        } else {
                            self.flat.clear();
                            return Mode::Branching;
                        };
                        self.flat.push(leaf);
                    }
                }
                Mode::OneDraw {
                    draw,
                    leaves: &self.flat,
                }
            }
        }
    }

    /// Plays one trial of this arm, drawing from `rng`.
    pub fn walk<T: Trial, R: Rng>(
        &mut self,
        trial: &'t T,
        scratch: &mut T::Scratch,
        rng: &mut R,
        out: &mut [i64],
    ) -> Walked {
        if !self.remember {
            trial.play(self.arm, scratch, &mut Plain(rng), out);
            return Walked::Played;
        }
        let mut words = std::mem::take(&mut self.words);
        words.clear();
        let mut e = self.root;
        let walked = loop {
            if e < LEAF {
                let w = rng.next_u64();
                words.push(w);
                e = self.child(e, w);
            } else if e < SLOW {
                break Walked::Leaf(e & !LEAF);
            } else {
                break self.discover(trial, scratch, rng, out, &words);
            }
        };
        self.words = words;
        walked
    }

    /// Plays `quota[j]` trials on each lane j of `lanes`, side by side, and leaves each lane
    /// just after its trials' words; where the trials ended goes to `ended`, `out` is scratch
    /// for trials played in full. The root must be a branch ([`Mode::Branching`] or
    /// [`Mode::OneDraw`]). Uses AVX-512 when the lanes' kernel does.
    pub fn play_lanes<T: Trial>(
        &mut self,
        trial: &'t T,
        scratch: &mut T::Scratch,
        lanes: &mut Lanes,
        quota: [u64; LANES],
        out: &mut [i64],
        ended: &mut Ended,
    ) {
        self.share_alike();
        #[cfg(target_arch = "x86_64")]
        if stream::kernel() == Kernel::Avx512 {
            // SAFETY: the Avx512 kernel is picked only when the CPU has what it needs.
            unsafe { self.play_lanes_avx512(trial, scratch, lanes, quota, out, ended) };
            return;
        }
        self.play_lanes_scalar(trial, scratch, lanes, quota, out, ended);
    }

    /// [`play_lanes`](Self::play_lanes) on any CPU: the lanes take turns, one step each.
    fn play_lanes_scalar<T: Trial>(
        &mut self,
        trial: &'t T,
        scratch: &mut T::Scratch,
        lanes: &mut Lanes,
        quota: [u64; LANES],
        out: &mut [i64],
        ended: &mut Ended,
    ) {
        let root = self.root;
        debug_assert!(root < LEAF, "trials side by side start with a draw");
        let mut at = [root; LANES];
        // Where each lane's trial started and how many words it drew: enough to replay its
        // words if it needs discovering, without recording every word.
        let mut start: [LaneState; LANES] = std::array::from_fn(|j| lanes.state(j));
        let mut drawn = [0usize; LANES];
        let mut left = quota;
        let mut active = left.iter().filter(|&&l| l > 0).count();
        // Every step draws a word on every lane, finished or not: a finished lane is put back
        // where its last trial left it.
        let mut finished = start;
        while active > 0 {
            let words = lanes.next_all();
            for j in 0..LANES {
                if left[j] == 0 {
                    continue;
                }
                drawn[j] += 1;
                let e = self.child(at[j], words[j]);
                if e < LEAF {
                    at[j] = e;
                    continue;
                }
                let walked = if e < SLOW {
                    Walked::Leaf(e & !LEAF)
                } else {
                    let mut replay = std::mem::take(&mut self.words);
                    replay.clear();
                    let mut words = start[j];
                    replay.extend((0..drawn[j]).map(|_| words.next_u64()));
                    let walked = self.discover(trial, scratch, &mut lanes.lane(j), out, &replay);
                    self.words = replay;
                    walked
                };
                match walked {
                    Walked::Leaf(leaf) => ended.leaves.add(leaf, j, 1),
                    Walked::Played => ended.played.extend_from_slice(out),
                }
                left[j] -= 1;
                at[j] = root;
                drawn[j] = 0;
                start[j] = lanes.state(j);
                if left[j] == 0 {
                    active -= 1;
                    finished[j] = start[j];
                }
            }
        }
        for (j, state) in finished.into_iter().enumerate() {
            lanes.restore(j, state);
        }
    }

    /// The number of draws after which trials end, when nearly all of them do so after the
    /// same number (at least two): then lanes can walk in rounds (`play_rounds`, with AVX-512).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) fn common_depth(&self) -> Option<u32> {
        let (depth, &mass) = self
            .depth_mass
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))?;
        (depth >= 2 && mass >= ROUNDS_MASS).then_some(depth as u32)
    }

    /// The child of branch `branch` that word `w` draws.
    #[inline(always)]
    fn child(&self, branch: Entry, w: u64) -> Entry {
        match self.guides[(branch as usize) << GUIDE_BITS | (w >> (64 - GUIDE_BITS)) as usize] {
            g if g < GUIDE_SPLIT => from_guide(Entry::from(g)),
            g => self.child_past(branch, w, g),
        }
    }

    /// [`child`](Self::child) where the guide entry `g` is a split or says nothing: out of
    /// line, so the common case inlines into the walks (with splits handled in `child`, the
    /// compiler stopped inlining it: the scalar walk took 1.30 s against 1.02 s, composite
    /// 1e8 trials on one thread).
    #[inline(never)]
    fn child_past(&self, branch: Entry, w: u64, g: GuideEntry) -> Entry {
        if g == GUIDE_SLOW {
            let b = &self.branches[branch as usize];
            return self.children[b.first as usize + b.draw.result(w) as usize];
        }
        let j = usize::from(g - GUIDE_SPLIT);
        let to = self.split_to[j];
        from_guide(if w >= self.split_at[j] {
            to >> 16
        } else {
            to & 0xFFFF
        })
    }

    /// Plays the trial in full, replaying the words already drawn, and remembers its path.
    #[cold]
    #[inline(never)]
    fn discover<T: Trial, R: Rng>(
        &mut self,
        trial: &'t T,
        scratch: &mut T::Scratch,
        rng: &mut R,
        out: &mut [i64],
        replay: &[u64],
    ) -> Walked {
        self.record.clear();
        let mut recorder = Recorder {
            replay,
            next: 0,
            rng,
            record: &mut self.record,
            raw_at: None,
        };
        trial.play(self.arm, scratch, &mut recorder, out);
        let raw_at = recorder.raw_at;
        let ended = match raw_at {
            Some(depth) => {
                self.record.truncate(depth);
                None
            }
            None => Some(&*out),
        };
        match self.insert(ended) {
            Some(e) if e & LEAF != 0 && e < SLOW => Walked::Leaf(e & !LEAF),
            _ => Walked::Played,
        }
    }

    /// Adds the recorded path, ending at a leaf for the metrics `ended` (or an opaque node
    /// when `None`); returns the entry it ends at, or `None` when the tree is full.
    fn insert(&mut self, ended: Option<&[i64]>) -> Option<Entry> {
        if self.root == UNSEEN {
            self.root = self.node_at(0, ended)?;
        }
        let mut e = self.root;
        let mut chance = 1.0;
        for i in 0..self.record.len() {
            if e >= LEAF {
                // Rules are deterministic given their draws, so a remembered path and a new
                // one agree on every draw they share: this cannot happen, and is harmless.
                return None;
            }
            let Branch { draw, first, .. } = self.branches[e as usize];
            let k = self.record[i].1;
            chance *= draw.words_drawing(k).map_or(0.0, |(low, high)| {
                ((high - low) as f64 + 1.0) / 2f64.powi(64)
            });
            let slot = first as usize + k as usize;
            if self.children[slot] == UNSEEN {
                let child = self.node_at(i + 1, ended)?;
                self.children[slot] = child;
                if child < SLOW {
                    self.guide_to(e, draw, k, child);
                }
                if child & LEAF != 0 && child < SLOW {
                    let depth = i + 1;
                    if self.depth_mass.len() <= depth {
                        self.depth_mass.resize(depth + 1, 0.0);
                    }
                    self.depth_mass[depth] += chance;
                }
            }
            e = self.children[slot];
        }
        self.flat.clear();
        self.grown = true;
        Some(e)
    }

    /// Makes branches that are alike one: a branch whose paths are all known (every result
    /// any word draws leads to a leaf, an opaque node or such a branch) is the same function
    /// of the words still to come as any other known branch at the same depth with the same
    /// draw and the same children, so their parents can point to one of them. Walks then
    /// read fewer guides: in the composite scenario, where Rally follows two volleys and
    /// only their sum matters, 37 branches share 15 guides. Nothing changes for a branch
    /// with an unseen result: its paths, once seen, may differ from the other's.
    pub(super) fn share_alike(&mut self) {
        if !std::mem::take(&mut self.grown) {
            return;
        }
        // Deepest first, so children are settled before their parents are compared.
        let mut order: Vec<usize> = (0..self.branches.len()).collect();
        order.sort_by_key(|&b| std::cmp::Reverse(self.branches[b].depth));
        let mut known = vec![false; self.branches.len()];
        let mut same: HashMap<Entry, Entry> = HashMap::new();
        let mut alike: HashMap<(u32, usize, usize, Vec<Entry>), Entry> = HashMap::new();
        for b in order {
            let Branch { draw, first, depth } = self.branches[b];
            let children = first as usize..first as usize + draw.outcomes();
            let mut moved = Vec::new();
            for slot in children.clone() {
                if let Some(&to) = self.children.get(slot).and_then(|c| same.get(c)) {
                    moved.push((self.children[slot], to));
                    self.children[slot] = to;
                }
            }
            if !moved.is_empty() {
                let to = |e: Entry| {
                    moved
                        .iter()
                        .find(|&&(from, _)| e == from)
                        .map_or(e, |m| m.1)
                };
                for g in &mut self.guides[b << GUIDE_BITS..][..GUIDE_LEN] {
                    match *g {
                        GUIDE_SLOW => {}
                        split if split >= GUIDE_SPLIT => {
                            let halves = &mut self.split_to[usize::from(split - GUIDE_SPLIT)];
                            *halves = to(*halves & 0xFFFF) | to(*halves >> 16) << 16;
                        }
                        entry => *g = to(Entry::from(entry)) as GuideEntry,
                    }
                }
            }
            known[b] = children.clone().enumerate().all(|(k, slot)| {
                let c = self.children[slot];
                !draw.can_draw(k as u32) || (c != UNSEEN && (c >= LEAF || known[c as usize]))
            });
            if known[b] {
                let (kind, table) = match draw {
                    Draw::Count(table) => (0, std::ptr::from_ref(table) as usize),
                    Draw::Uniform(n) => (1, n as usize),
                };
                let key = (depth, kind, table, self.children[children].to_vec());
                let to = *alike.entry(key).or_insert(b as Entry);
                if to != b as Entry {
                    same.insert(b as Entry, to);
                }
            }
        }
        if let Some(&to) = same.get(&self.root) {
            self.root = to;
        }
    }

    /// Points every key of `branch`'s guide whose words all draw `k` at `child`.
    fn guide_to(&mut self, branch: Entry, draw: Draw<'t>, k: u32, child: Entry) {
        const SHIFT: u32 = 64 - GUIDE_BITS;
        let Some((low, high)) = draw.words_drawing(k) else {
            return;
        };
        let child = guide_form(child);
        if child == Entry::from(GUIDE_SLOW) {
            return;
        }
        // The keys whose first and last words both fall in low..=high.
        let first = (low >> SHIFT) + u64::from(low & ((1 << SHIFT) - 1) != 0);
        let last = (high >> SHIFT) + u64::from(!high & ((1 << SHIFT) - 1) == 0);
        let guide = &mut self.guides[(branch as usize) << GUIDE_BITS..][..GUIDE_LEN];
        if first < last {
            guide[first as usize..last as usize].fill(child as GuideEntry);
        }
        // The keys at either end may draw k and one other result.
        self.split(branch, draw, low >> SHIFT);
        self.split(branch, draw, high >> SHIFT);
    }

    /// Makes key `key` of `branch`'s guide a split if its words draw exactly two results
    /// whose children a guide entry can name.
    fn split(&mut self, branch: Entry, draw: Draw<'t>, key: u64) {
        const SHIFT: u32 = 64 - GUIDE_BITS;
        let slot = ((branch as usize) << GUIDE_BITS) + key as usize;
        let (start, end) = (key << SHIFT, key << SHIFT | ((1 << SHIFT) - 1));
        let (below, above) = (draw.result(start), draw.result(end));
        if self.guides[slot] != GUIDE_SLOW || below == above {
            return;
        }
        // Exactly one threshold: the upper result starts just past the lower one's end.
        let threshold = match (draw.words_drawing(below), draw.words_drawing(above)) {
            (Some((_, end_below)), Some((threshold, _)))
                if end_below.wrapping_add(1) == threshold =>
            {
                threshold
            }
            _ => return,
        };
        let first = self.branches[branch as usize].first as usize;
        let to = [below, above].map(|k| guide_form(self.children[first + k as usize]));
        let j = self.split_at.len();
        if to.contains(&Entry::from(GUIDE_SLOW)) || j >= usize::from(GUIDE_SLOW - GUIDE_SPLIT) {
            return;
        }
        self.split_at.push(threshold);
        self.split_to.push(to[0] | to[1] << 16);
        self.guides[slot] = GUIDE_SPLIT + j as GuideEntry;
    }

    /// The node at depth `i` of the recorded path, created.
    fn node_at(&mut self, i: usize, ended: Option<&[i64]>) -> Option<Entry> {
        match (self.record.get(i), ended) {
            (Some(&(draw, _)), _) => self.branch(draw, i as u32),
            (None, Some(out)) => Some(LEAF | self.leaf(out)?),
            (None, None) => Some(OPAQUE),
        }
    }

    fn branch(&mut self, draw: Draw<'t>, depth: u32) -> Option<Entry> {
        if self.branches.len() >= MAX_BRANCHES
            || self.children.len() + draw.outcomes() > MAX_CHILDREN
        {
            return None;
        }
        let first = self.children.len() as u32;
        self.children
            .resize(self.children.len() + draw.outcomes(), UNSEEN);
        // The spare entry at the end becomes the new guide's first.
        self.guides
            .resize((self.branches.len() + 1) * GUIDE_LEN + 1, GUIDE_SLOW);
        self.branches.push(Branch { draw, first, depth });
        Some(self.branches.len() as Entry - 1)
    }

    /// The leaf of the row `out` writes, added if new (`None` when the tree is full).
    fn leaf(&mut self, out: &[i64]) -> Option<u32> {
        let row: Vec<i64> = self.slots.iter().map(|&s| out[s]).collect();
        if let Some(&leaf) = self.row_leaf.get(&row) {
            return Some(leaf);
        }
        if self.row_leaf.len() >= MAX_LEAVES {
            return None;
        }
        let leaf = self.row_leaf.len() as u32;
        self.rows.extend_from_slice(&row);
        self.row_leaf.insert(row, leaf);
        Some(leaf)
    }
}

/// Where trials walked side by side ended.
#[derive(Debug, Default)]
pub struct Ended {
    /// Trials that ended at a leaf, counted by leaf.
    pub leaves: LeafCounts,
    /// The metric rows of trials played in full, one after another.
    pub played: Vec<i64>,
}

/// Trials counted by the leaf they ended at, with several counters per leaf: trials on
/// different lanes ending at the same leaf then do not wait on each other's increments.
#[derive(Debug, Default)]
pub struct LeafCounts(Vec<u64>);

/// Counters per leaf.
const SPREAD: usize = 8;

impl LeafCounts {
    #[inline]
    pub fn add(&mut self, leaf: u32, lane: usize, n: u64) {
        let i = leaf as usize * SPREAD + lane % SPREAD;
        if i >= self.0.len() {
            self.0.resize((leaf as usize + 1) * SPREAD, 0);
        }
        self.0[i] += n;
    }

    /// Each leaf with its count, leaving every count at zero.
    pub fn drain(&mut self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.0
            .chunks_exact_mut(SPREAD)
            .enumerate()
            .filter_map(|(leaf, lanes)| {
                let n: u64 = lanes.iter().sum();
                lanes.fill(0);
                (n > 0).then_some((leaf as u32, n))
            })
    }
}

/// Replays the words of a walk's draws, then draws from the stream, recording every draw.
struct Recorder<'a, 't, R> {
    replay: &'a [u64],
    next: usize,
    rng: &'a mut R,
    record: &'a mut Vec<(Draw<'t>, u32)>,
    /// How many draws came before the first raw word, if one was asked for.
    raw_at: Option<usize>,
}

impl<'t, R: Rng> Draws<'t> for Recorder<'_, 't, R> {
    type Words = R;

    fn draw(&mut self, draw: Draw<'t>) -> u32 {
        let word = match self.replay.get(self.next) {
            Some(&w) => w,
            None => self.rng.next_u64(),
        };
        self.next += 1;
        let k = draw.result(word);
        if self.raw_at.is_none() {
            self.record.push((draw, k));
        }
        k
    }

    fn words(&mut self) -> &mut R {
        if self.raw_at.is_none() {
            self.raw_at = Some(self.record.len());
        }
        self.rng
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::{Fraction, SuccessCount};
    use crate::engine::stream::Lanes;
    use crate::engine::{run, Gathered, MetricName, Monitor, RunSpec, Shard};

    /// Trials of several shapes, each playable with or without the tree.
    struct Shaped {
        shape: Shape,
        memoise: bool,
        names: Vec<MetricName>,
        table: SuccessCount,
        rare: SuccessCount,
    }

    #[derive(Clone, Copy)]
    enum Shape {
        /// Successes of 3 tests at 1/2; on 2 or more, a uniform pick of 5 more: paths of
        /// different depths.
        Ladder,
        /// The ladder, but a result of 1 asks for a raw word.
        PartlyRaw,
        /// Two uniform picks of 1000: a million paths, more than a tree holds.
        Wide,
        /// Mostly two draws, the second a pick of 97 (so one key in twenty does not decide
        /// it); one trial in eight ends after one draw, a few go on to a third draw, and some
        /// ask for a raw word: what a walk in rounds hands back to the tree.
        Rounds,
        /// Two picks of three, then successes of 2 tests at 1/8, reported with the picks'
        /// sum: paths whose picks differ but sum alike go on alike, except that a first pick
        /// of 2 tells when both tests succeed (one trial in 64, so alike at first).
        Sums,
        /// No draw at all.
        Fixed,
    }

    impl Shaped {
        fn new(shape: Shape, memoise: bool) -> Shaped {
            let names = ["first", "second"]
                .map(|name| MetricName {
                    arm: 0,
                    choice: String::new(),
                    name: name.into(),
                })
                .to_vec();
            Shaped {
                shape,
                memoise,
                names,
                table: SuccessCount::new(3, Fraction::new(1, 2)),
                rare: SuccessCount::new(2, Fraction::new(1, 8)),
            }
        }
    }

    impl Trial for Shaped {
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
            let (first, second) = match self.shape {
                Shape::Fixed => (7, 0),
                Shape::Wide => (draws.uniform(1000), draws.uniform(1000)),
                Shape::Sums => {
                    let first = draws.uniform(3);
                    let sum = first + draws.uniform(3);
                    match draws.count(&self.rare) {
                        2 if first == 2 => (100 + sum, 2),
                        third => (sum, third),
                    }
                }
                Shape::Rounds => match draws.count(&self.table) {
                    0 => (0, 0),
                    first => {
                        let second = match (first, draws.uniform(97)) {
                            (3, 0) => 100 + draws.uniform(5),
                            (2, 1) => 200 + (draws.words().next_u64() % 9) as u32,
                            (_, second) => second,
                        };
                        (first, second)
                    }
                },
                Shape::Ladder | Shape::PartlyRaw => {
                    let first = draws.count(&self.table);
                    let second = match first {
                        1 if matches!(self.shape, Shape::PartlyRaw) => {
                            (draws.words().next_u64() % 9) as u32
                        }
                        2.. => draws.uniform(5),
                        _ => 0,
                    };
                    (first, second)
                }
            };
            out[0] = first as i64;
            out[1] = second as i64;
        }
    }

    fn gather(trial: &Shaped, trials: u64) -> Gathered {
        let spec = RunSpec {
            trials,
            seed: 11,
            threads: 2,
            shard: Shard::WHOLE,
            precision: None,
        };
        run(trial, &spec, &Monitor::default()).unwrap().gathered
    }

    #[test]
    fn the_tree_gives_what_playing_in_full_gives() {
        let shapes = [
            Shape::Ladder,
            Shape::PartlyRaw,
            Shape::Wide,
            Shape::Rounds,
            Shape::Sums,
            Shape::Fixed,
        ];
        for shape in shapes {
            let trials = 300_001;
            let memoised = gather(&Shaped::new(shape, true), trials);
            let played = gather(&Shaped::new(shape, false), trials);
            assert_eq!(memoised.metrics[0].total(), trials, "{}", shape as u8);
            assert_eq!(memoised, played, "{}", shape as u8);
        }
    }

    #[test]
    fn a_tree_remembers_paths_and_marks_raw_draws_opaque() {
        let trial = Shaped::new(Shape::PartlyRaw, true);
        let mut tree = Tree::new(&trial, 0, true);
        let mut rng = crate::engine::stream::trial_stream(3);
        let mut out = [0i64; 2];
        let mut walked = Vec::new();
        for _ in 0..2000 {
            walked.push(tree.walk(&trial, &mut (), &mut rng, &mut out));
        }
        // Leaves: first = 0 (one row), 2 and 3 with five picks each; first = 1 is opaque.
        assert_eq!(tree.leaves(), 11);
        assert_eq!(tree.root, 0, "the root is the first branch");
        let first = tree.branches[0].first as usize;
        assert_eq!(tree.children[first + 1], OPAQUE);
        assert!(walked.contains(&Walked::Played));
        assert!(matches!(tree.mode(), Mode::Branching), "two-draw paths");
    }

    #[test]
    fn a_one_draw_tree_is_flat_once_every_result_is_seen() {
        let mut trial = Shaped::new(Shape::Ladder, true);
        trial.table = SuccessCount::new(1, Fraction::new(1, 2));
        let mut tree = Tree::new(&trial, 0, true);
        let mut rng = crate::engine::stream::trial_stream(3);
        let mut out = [0i64; 2];
        assert!(matches!(tree.mode(), Mode::Unknown));
        tree.walk(&trial, &mut (), &mut rng, &mut out);
        assert!(matches!(tree.mode(), Mode::Branching), "one result seen");
        while tree.leaves() < 2 {
            tree.walk(&trial, &mut (), &mut rng, &mut out);
        }
        match tree.mode() {
            Mode::OneDraw { leaves, .. } => assert_eq!(leaves.len(), 2),
            _ => panic!("one draw, both results seen: flat"),
        }
    }

    #[test]
    fn every_guide_entry_draws_what_the_table_draws() {
        // Picks of 97 put up to two results in a key, and sometimes more.
        let trial = Shaped::new(Shape::Rounds, true);
        let mut tree = Tree::new(&trial, 0, true);
        let mut rng = crate::engine::stream::trial_stream(5);
        let mut out = [0i64; 2];
        for _ in 0..100_000 {
            tree.walk(&trial, &mut (), &mut rng, &mut out);
        }
        assert!(tree.split_at.len() > 50, "keys told apart by a threshold");
        let shift = 64 - GUIDE_BITS;
        for (b, branch) in tree.branches.iter().enumerate() {
            let by_table =
                |w: u64| tree.children[branch.first as usize + branch.draw.result(w) as usize];
            let mut words: Vec<u64> = (0..GUIDE_LEN as u64)
                .flat_map(|key| [key << shift, (key << shift) | ((1 << shift) - 1)])
                .collect();
            for &t in &tree.split_at {
                words.extend([t.wrapping_sub(1), t, t.wrapping_add(1)]);
            }
            words.extend((0..10_000).map(|_| rng.next_u64()));
            for w in words {
                assert_eq!(
                    tree.child(b as Entry, w),
                    by_table(w),
                    "branch {b}, word {w:#x}"
                );
            }
        }
    }

    #[test]
    fn branches_alike_share_a_guide() {
        let trial = Shaped::new(Shape::Sums, true);
        let mut tree = Tree::new(&trial, 0, true);
        let mut rng = crate::engine::stream::trial_stream(6);
        let mut plain = crate::engine::stream::trial_stream(6);
        let (mut out, mut full) = ([0i64; 2], [0i64; 2]);
        for i in 0..20_000 {
            // While paths are still being found too: sharing must not change any trial.
            tree.share_alike();
            let row = match tree.walk(&trial, &mut (), &mut rng, &mut out) {
                Walked::Leaf(leaf) => tree.row(leaf).to_vec(),
                Walked::Played => out.to_vec(),
            };
            trial.play(0, &mut (), &mut Plain(&mut plain), &mut full);
            assert_eq!(row, full, "trial {i}");
        }
        // The root, three branches after the first pick, nine after the second.
        assert_eq!(tree.branches.len(), 13);
        tree.share_alike();
        let mut reached = std::collections::HashSet::new();
        let mut todo = vec![tree.root];
        while let Some(b) = todo.pop() {
            if b < LEAF && reached.insert(b) {
                let Branch { draw, first, .. } = tree.branches[b as usize];
                todo.extend(&tree.children[first as usize..][..draw.outcomes()]);
            }
        }
        // After the second pick only the sum matters, and whether the first pick was 2:
        // sums 0 and 1 without, 4 with, 2 and 3 both ways.
        assert_eq!(reached.len(), 1 + 3 + 7);
    }

    /// The ways of walking lanes side by side this CPU has.
    fn walks() -> Vec<&'static str> {
        let mut walks = vec!["scalar"];
        #[cfg(target_arch = "x86_64")]
        if Kernel::Avx512.is_available() {
            walks.push("avx512");
        } else {
            eprintln!("no AVX-512 on this CPU: its walk not compared");
        }
        walks
    }

    fn play_lanes_by<'t, T: Trial>(
        walk: &str,
        tree: &mut Tree<'t>,
        trial: &'t T,
        lanes: &mut Lanes,
        quota: [u64; LANES],
        out: &mut [i64],
        ended: &mut Ended,
    ) where
        T::Scratch: Default,
    {
        let scratch = &mut T::Scratch::default();
        // As `play_lanes` does.
        tree.share_alike();
        match walk {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: only named when the CPU has it (see `walks`).
            "avx512" => unsafe { tree.play_lanes_avx512(trial, scratch, lanes, quota, out, ended) },
            _ => tree.play_lanes_scalar(trial, scratch, lanes, quota, out, ended),
        }
    }

    #[test]
    fn lanes_side_by_side_draw_what_lanes_one_by_one_draw() {
        for walk in walks() {
            let shapes = [
                Shape::Ladder,
                Shape::PartlyRaw,
                Shape::Wide,
                Shape::Rounds,
                Shape::Sums,
            ];
            for shape in shapes {
                side_by_side_as_one_by_one(walk, shape);
            }
        }
    }

    fn side_by_side_as_one_by_one(walk: &str, shape: Shape) {
        let trial = Shaped::new(shape, true);
        // Uneven, with idle lanes: lanes that finish early keep stepping with the others.
        // Walks in rounds need every lane busy.
        let quota = match shape {
            Shape::Rounds | Shape::Sums => std::array::from_fn(|j| 4000 + 61 * j as u64),
            _ => [
                5000, 5000, 5000, 4999, 4999, 0, 4999, 2000, 3000, 5000, 4999, 0, 1, 5000, 4999,
                4999,
            ],
        };
        let mut side_by_side = Tree::new(&trial, 0, true);
        let mut out = [0i64; 2];
        let mut lanes = Lanes::new(4, 2);
        let mut ended = Ended::default();
        // One trial first, so the root is known.
        match side_by_side.walk(&trial, &mut (), &mut lanes.lane(0), &mut out) {
            Walked::Leaf(leaf) => ended.leaves.add(leaf, 0, 1),
            Walked::Played => ended.played.extend_from_slice(&out),
        }
        let mut left = quota;
        left[0] -= 1;
        // In segments, as the engine plays them: a walk may change its way between them.
        for segments in 0.. {
            if !left.iter().any(|&l| l > 0) {
                break;
            }
            let segment = left.map(|l| l.min(700));
            if matches!(shape, Shape::Rounds) && segments == 2 {
                // From here on, the AVX-512 walk plays rounds.
                assert_eq!(side_by_side.common_depth(), Some(2), "two draws, mostly");
            }
            play_lanes_by(
                walk,
                &mut side_by_side,
                &trial,
                &mut lanes,
                segment,
                &mut out,
                &mut ended,
            );
            for (l, s) in left.iter_mut().zip(segment) {
                *l -= s;
            }
        }
        let mut one_by_one: HashMap<Vec<i64>, u64> = HashMap::new();
        let mut plain = Lanes::new(4, 2);
        for (j, &q) in quota.iter().enumerate() {
            for _ in 0..q {
                trial.play(0, &mut (), &mut Plain(plain.lane(j)), &mut out);
                *one_by_one.entry(out.to_vec()).or_default() += 1;
            }
        }
        assert_eq!(
            lanes.next_all(),
            plain.next_all(),
            "{walk}: every lane is left just after its own trials"
        );
        if matches!(shape, Shape::Ladder) {
            // Its paths all fit the tree: once known, no trial is played in full.
            assert!(
                ended.played.is_empty(),
                "{walk}: ladder trials played in full"
            );
        }
        let mut got: HashMap<Vec<i64>, u64> = HashMap::new();
        for row in ended.played.chunks_exact(out.len()) {
            *got.entry(row.to_vec()).or_default() += 1;
        }
        for (leaf, n) in ended.leaves.drain() {
            *got.entry(side_by_side.row(leaf).to_vec()).or_default() += n;
        }
        assert_eq!(got, one_by_one, "{walk}");
    }
}
