//! The outcome tree: trials remembered as the draws they make.
//!
//! A trial that draws only from tables is a pure function of its draws' results. The tree
//! keeps, per arm, every path of results seen so far: a branch holds the draw made at that
//! point and one child per result, a leaf holds the metrics the trial wrote. A trial then
//! costs one word and one lookup per draw, however much geometry the rules did to get there.
//! When a walk meets a result not seen before, the trial is played in full with the words
//! already drawn replayed, and the new path is added. Either way each draw reads exactly one
//! word, as [`Plain`] does, so results are identical with or without the tree; the tree only
//! decides how much work a trial costs.
//!
//! Each branch keeps a guide: the child for each value of a word's top `GUIDE_BITS` bits,
//! when those bits alone decide the result (nearly always), so a step is one load. Because
//! trial t of a chunk draws from lane t mod 16 ([`Lanes`]), sixteen trials can walk side by
//! side ([`Tree::play_lanes`]), their lookups overlapping instead of waiting on each other;
//! with AVX-512 (the `avx512` module) they walk as two vectors of eight.
//!
//! Playing a trial in full takes the trial, its scratch memory and a metric row, which a
//! worker lends its trees as one [`Player`]; the player also keeps where trials walked side
//! by side ended ([`Ended`]).
//!
//! Paths never meet in a tree, though a trial's future depends only on its state: trials
//! announce their state where it is cheap to say ([`Draws::at_state`], before each step of a
//! script, say), and the tree keeps the node each announced state led to. A trial being
//! recorded that reaches a known state goes on from that node, so the tree becomes a graph
//! (a DAG: each key holds the number of draws before it, so a node's depth stays one number,
//! as the AVX-512 walk's replays need). Walks do not change; only recording writes keys.
//!
//! Trials that ask for raw words (see [`Draws::words`]) mark their node opaque and are always
//! played in full. A graph stops growing at its size limits; paths beyond them are played in
//! full too, and counted ([`Tree::take_played`]).

use super::draws::{Draw, Draws, Plain};
#[cfg(target_arch = "x86_64")]
use super::stream::{self, Ready};
use super::stream::{LaneState, Lanes, LANES};
use super::Trial;
use rand::Rng;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

#[cfg(target_arch = "x86_64")]
mod avx512;
mod hops;
mod rounds;
mod states;

use hops::Hops;
pub(crate) use hops::Steps;
pub(crate) use rounds::Passes;
use rounds::Records;
use states::States;

/// Bounds on a worker's graphs, so that a run's memory stays within tens of megabytes however
/// many states its trials reach: branches and their children (about 1 and 16 MB at most),
/// guides for the first `MAX_GUIDED` branches (2 KB each; the others are stepped through
/// their children, a few times slower), two copies of each leaf's metric row (at most
/// `MAX_LEAF_WORDS` values), and the state keys (`MAX_STATE_WORDS` words, 8 MB, counted
/// without the table's own memory). A worker keeps a graph per arm, and the arms share these
/// ([`Bounds::share`]): a sweep of a hundred points, or a card game of 256 pairs of
/// orderings, would otherwise hold a hundred or 256 full graphs, growing with the trials.
const MAX_BRANCHES: usize = 1 << 15;
const MAX_CHILDREN: usize = 1 << 22;
const MAX_LEAVES: usize = 1 << 16;
const MAX_LEAF_WORDS: usize = 1 << 22;
/// Guides past the first 2,048 branches left the second-level cache: with 4,096,
/// configs/run-duel.toml (7,700 branches) took about 5% more CPU time and the duels 16 MB
/// more memory, and no other shipped scenario was faster (8,192 was slower still).
const MAX_GUIDED: usize = 1 << 11;
const MAX_STATE_WORDS: usize = 1 << 20;
/// The most ways the bounds are divided: past this many arms each graph keeps this share,
/// so that a graph can still learn a few paths (many arms of tiny graphs would play nearly
/// every trial in full).
const MAX_SHARES: usize = 256;

/// One graph's share of the worker's bounds.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    branches: usize,
    children: usize,
    leaves: usize,
    leaf_words: usize,
    state_words: usize,
}

impl Bounds {
    /// The share of one of `arms` graphs. The bounds only decide which trials are played in
    /// full, never what they give, so results do not depend on them.
    fn share(arms: usize) -> Bounds {
        let n = arms.clamp(1, MAX_SHARES);
        Bounds {
            branches: MAX_BRANCHES / n,
            children: MAX_CHILDREN / n,
            leaves: MAX_LEAVES / n,
            leaf_words: MAX_LEAF_WORDS / n,
            state_words: MAX_STATE_WORDS / n,
        }
    }
}
const _: () = assert!(
    MAX_GUIDED <= GUIDE_LEAF as usize,
    "a guide entry names every guided branch"
);

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
/// A guide is keyed by a word's top `GUIDE_BITS` bits. Chosen by timing the composite
/// scenario (configs/shoot-then-rally.toml): more bits make guides that fall out of the
/// first-level cache, fewer make more keys that draw three results, which splits cannot
/// decide.
const GUIDE_BITS: u32 = 10;
const GUIDE_LEN: usize = 1 << GUIDE_BITS;

/// A tree takes its guides once a segment of its walk plays fewer than one trial in this many
/// in full ([`Tree::guide_once_settled`]).
const SETTLED: u64 = 128;

/// Branches are shared again once paths numbering a `SHARE_AFTER`th of the branches have been
/// added since they last were.
const SHARE_AFTER: usize = 32;

/// Trials that walk in rounds are used once paths of one depth have this chance.
const ROUNDS_MASS: f64 = 0.75;
/// In a graph: once this share of the paths met end after one number of draws.
const ROUNDS_SHARE: f64 = 0.95;

/// Entry `e` as a guide entry (widened): `GUIDE_SLOW` for markers, branches without a guide
/// and leaves a guide entry cannot name.
fn guide_form(e: Entry) -> Entry {
    let leaf = e & !LEAF;
    if (e as usize) < MAX_GUIDED {
        e
    } else if e < LEAF {
        Entry::from(GUIDE_SLOW)
    } else if e < SLOW && leaf < Entry::from(GUIDE_JUNK & !GUIDE_LEAF) {
        Entry::from(GUIDE_LEAF) | leaf
    } else {
        Entry::from(GUIDE_SLOW)
    }
}

/// A guide entry as a node entry, for entries that name one: the guide's leaf bit moved to
/// the node's, with bits rather than a branch on whether it names a leaf (walks side by side
/// step every trial alike).
#[inline(always)]
fn from_guide(g: Entry) -> Entry {
    let leaf = g & Entry::from(GUIDE_LEAF);
    g ^ leaf | leaf << (LEAF.trailing_zeros() - GUIDE_LEAF.trailing_zeros())
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

/// The metrics of one arm: those a leaf row lists, and its round records.
struct ArmMetrics {
    slots: Vec<usize>,
    rounds: Vec<usize>,
    /// Records a round.
    round_len: usize,
}

impl ArmMetrics {
    /// Every arm's, by arm.
    fn of<T: Trial>(trial: &T) -> Vec<ArmMetrics> {
        let mut arms: Vec<ArmMetrics> = (0..trial.arms())
            .map(|_| ArmMetrics {
                slots: Vec::new(),
                rounds: Vec::new(),
                round_len: 0,
            })
            .collect();
        for (i, m) in trial.metrics().iter().enumerate() {
            let Some(arm) = arms.get_mut(m.arm) else {
                continue;
            };
            match m.round {
                None => arm.slots.push(i),
                Some(round) => {
                    arm.rounds.push(i);
                    arm.round_len += usize::from(round == 0);
                }
            }
        }
        arms
    }
}

/// One arm's tree.
#[derive(Clone)]
pub struct Tree<'t> {
    arm: usize,
    /// The metric slots this arm writes, in row order.
    slots: Vec<usize>,
    remember: bool,
    root: Entry,
    branches: Vec<Branch<'t>>,
    /// The branches as the walks of arms step through them ([`hops`]).
    hops: Hops<'t>,
    children: Vec<Entry>,
    /// `GUIDE_LEN` entries per branch, by a word's top bits, then one spare entry so a
    /// vector gather of 32 bits at the last entry stays inside. Only the first `guided_most`
    /// branches have one. Every entry names a guided branch, a leaf, a split in `split_to`,
    /// or nothing (`GUIDE_SLOW`): what keeps the AVX-512 walk's gathers inside
    /// ([`Tree::guides_sound`]).
    guides: Vec<GuideEntry>,
    /// How many branches get a guide: none until the tree is settled
    /// ([`guide_once_settled`](Self::guide_once_settled)), then `MAX_GUIDED`.
    guided_most: usize,
    /// Whether guides are ever built: not in the tree of a trial of several arms, whose walks
    /// step through hops ([`super::arms`]) and never read a guide.
    guidable: bool,
    /// Leaf rows, `slots.len()` values each.
    rows: Vec<i64>,
    /// Each leaf by its row and tail, hashed as state keys are: looked up for every path
    /// recorded, where the default hasher took 1.6% of configs/run-duel.toml (perf, 2 threads).
    row_leaf: HashMap<Vec<i64>, u32, BuildHasherDefault<WordHasher>>,
    /// The row of the leaf looked up last ([`Tree::leaf`]).
    leaf_row: Vec<i64>,
    /// The words of the trial being walked or replayed.
    words: Vec<u64>,
    record: Vec<(Draw<'t>, u32)>,
    /// The leaves of a one-draw root, once known; cleared when the tree grows.
    flat: Vec<u32>,
    /// Split j's threshold: words from it on draw the upper of the key's two results.
    split_at: Vec<u64>,
    /// Split j's guide entries, below its threshold in the low half, from it in the high.
    split_to: Vec<u32>,
    /// Trials ended at each leaf, while lanes walk as vectors (only x86-64 has such a walk).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    tally: Vec<u32>,
    /// The chance of the paths seen that end after each number of draws: where trials
    /// mostly end, lanes can walk in rounds of that many steps.
    depth_mass: Vec<f64>,
    /// Paths added since branches were last shared ([`Tree::share_alike`]).
    grown: usize,
    /// The node reached right after each state the trial announced ([`Draws::at_state`]), by
    /// its key: the number of draws made before it, then the words the trial wrote.
    states: States,
    /// Words held by the keys of `states`, at most its share of `MAX_STATE_WORDS`.
    state_words: usize,
    /// The states announced by the trial being recorded: where each key ends in `keys` (it
    /// starts where the one before ends), and the keys one after another.
    marks: Vec<usize>,
    keys: Vec<u64>,
    /// Trials played in full (the rules ran), to be taken by [`Tree::take_played`].
    played: u64,
    bounds: Bounds,
    /// The arm's round records, counted where walks pass ([`rounds`]).
    records: Records,
}

impl<'t> Tree<'t> {
    /// The tree of arm `arm`; with `remember` false it plays every trial in full.
    pub fn new<T: Trial>(trial: &T, arm: usize, remember: bool) -> Tree<'t> {
        let metrics = ArmMetrics::of(trial).swap_remove(arm);
        Tree::of_arm(trial, arm, metrics, remember)
    }

    /// The tree of every arm, as [`new`](Self::new) makes each, the metrics sorted to their
    /// arms in one pass: each arm looking through every metric took a sweep of 1,600 points
    /// (1,600 arms) a fifth of its run, and a worker per thread does it again.
    pub fn every_arm<T: Trial>(trial: &T, remember: bool) -> Vec<Tree<'t>> {
        (ArmMetrics::of(trial).into_iter().enumerate())
            .map(|(arm, metrics)| Tree::of_arm(trial, arm, metrics, remember))
            .collect()
    }

    fn of_arm<T: Trial>(trial: &T, arm: usize, metrics: ArmMetrics, remember: bool) -> Tree<'t> {
        Tree {
            arm,
            slots: metrics.slots,
            remember,
            root: UNSEEN,
            branches: Vec::new(),
            hops: Hops::default(),
            children: Vec::new(),
            guides: Vec::new(),
            guided_most: 0,
            guidable: trial.arms() == 1,
            rows: Vec::new(),
            row_leaf: HashMap::default(),
            leaf_row: Vec::new(),
            words: Vec::new(),
            record: Vec::new(),
            flat: Vec::new(),
            split_at: Vec::new(),
            split_to: Vec::new(),
            tally: Vec::new(),
            depth_mass: Vec::new(),
            grown: 0,
            states: States::default(),
            state_words: 0,
            marks: Vec::new(),
            keys: Vec::new(),
            played: 0,
            bounds: Bounds::share(trial.arms()),
            records: Records::new(metrics.rounds, metrics.round_len),
        }
    }

    /// The metric slots of this arm; a leaf row lists their values in this order.
    pub fn slots(&self) -> &[usize] {
        &self.slots
    }

    /// The metric slots of this arm's round records, which leaf rows do not hold.
    pub fn round_slots(&self) -> &[usize] {
        self.records.slots()
    }

    /// Whether this arm writes round records: its walks count them where they pass, so
    /// only walks that do ([`walk`](Self::walk), [`play_lanes`](Self::play_lanes),
    /// [`advance`](Self::advance) with [`pass`](Self::pass)) may walk it.
    pub fn has_rounds(&self) -> bool {
        self.records.any()
    }

    /// Adds the round records of `n` trials that ended at `leaf` to `acc`, but for those
    /// counted where the walks passed ([`drain_rounds`](Self::drain_rounds)).
    pub fn add_rounds(&self, leaf: u32, n: u64, acc: &mut super::Gathered) {
        self.records.add_ended(leaf, self.root, n, acc);
    }

    /// Adds the round records counted where walks passed to `acc`, and forgets them.
    pub fn drain_rounds(&mut self, acc: &mut super::Gathered) {
        self.records.drain(acc);
    }

    /// Counts a walk that stepped to `at` with [`advance`](Self::advance), or stayed there
    /// (then, at a leaf or a node no walk knows, nothing is counted).
    #[inline(always)]
    pub fn pass(&mut self, at: Cursor) {
        self.records.pass(at.0);
    }

    /// A place no walk leaves and where nothing is counted: for walks side by side that only
    /// fill the rows of the side.
    pub fn nowhere(&self) -> Cursor {
        Cursor(UNSEEN)
    }

    /// Takes back the passes of a trial walked on `words` (to where the tree knows no more):
    /// it is to be played in full, and counted by its row.
    pub fn unpass(&mut self, words: impl IntoIterator<Item = u64>) {
        // An arm without records counted nothing: no walk to retrace.
        if !self.records.any() {
            return;
        }
        let mut e = self.root;
        for w in words {
            if e >= LEAF {
                break;
            }
            e = self.child(e, w);
            if e < LEAF {
                self.records.unpass(e);
            }
        }
    }

    pub fn leaves(&self) -> usize {
        self.row_leaf.len()
    }

    /// How many trials this tree had played in full since last asked: trials on paths not
    /// seen before, and those beyond its bounds.
    pub fn take_played(&mut self) -> u64 {
        std::mem::take(&mut self.played)
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

    /// The leaf a trial whose first words are `words` ends at, when the tree knows its path
    /// and it ends within them: a walk that only looks, so that arms sharing a trial's words
    /// draw them once. `None` sends the trial to [`walk`](Self::walk).
    #[inline]
    pub fn leaf_for(&self, words: &[u64]) -> Option<u32> {
        if !self.remember {
            return None;
        }
        let mut e = self.root;
        for &w in words {
            if e >= LEAF {
                break;
            }
            e = self.child(e, w);
            if e < LEAF && self.records.marked(e) {
                // A pass to count: the trial is walked.
                return None;
            }
        }
        (e & LEAF != 0 && e < SLOW).then_some(e & !LEAF)
    }

    /// Plays one trial of this arm, drawing from `rng`; a trial played in full leaves its
    /// metrics in `player.out`.
    pub fn walk<T: Trial, R: Rng>(&mut self, player: &mut Player<'t, T>, rng: &mut R) -> Walked {
        if !self.remember {
            self.played += 1;
            let trial = player.trial;
            trial.play(
                self.arm,
                &mut player.scratch,
                &mut Plain(rng),
                &mut player.out,
            );
            return Walked::Played;
        }
        let mut words = std::mem::take(&mut self.words);
        words.clear();
        let mut e = self.root;
        // The branch the last word was drawn at.
        let mut at = e;
        let rounds = self.records.any();
        let walked = loop {
            if e < LEAF {
                let w = rng.next_u64();
                words.push(w);
                at = e;
                e = self.child(e, w);
                if rounds {
                    self.records.pass(e);
                }
            } else if e < SLOW {
                break Walked::Leaf(e & !LEAF);
            } else {
                break self.discover(player, rng, &words, at);
            }
        };
        self.words = words;
        walked
    }

    /// Plays `quota[j]` trials on each lane j of `lanes`, side by side, and leaves each lane
    /// just after its trials' words; where the trials ended goes to `player.ended`. The root
    /// must be a branch ([`Mode::Branching`] or [`Mode::OneDraw`]). Uses AVX-512 when the
    /// lanes' kernel does.
    pub fn play_lanes<T: Trial>(
        &mut self,
        player: &mut Player<'t, T>,
        lanes: &mut Lanes,
        quota: [u64; LANES],
    ) {
        self.play_lanes_with(stream::ready(), player, lanes, quota);
    }

    /// [`play_lanes`](Self::play_lanes) on the kernel `ready`: with AVX-512 when it has it and
    /// the tree has its guides, lane by lane otherwise; then the guides, once the tree has
    /// settled.
    fn play_lanes_with<T: Trial>(
        &mut self,
        ready: Ready,
        player: &mut Player<'t, T>,
        lanes: &mut Lanes,
        quota: [u64; LANES],
    ) {
        self.share_alike();
        #[cfg(target_arch = "x86_64")]
        if let (Ready::Avx512(cpu), true) = (ready, self.guided_most > 0) {
            self.play_lanes_avx512(cpu, player, lanes, quota);
            return;
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = ready;
        let played = self.played;
        self.play_lanes_scalar(player, lanes, quota);
        self.guide_once_settled(played, quota);
    }

    /// Builds the guides once a segment of `quota` trials played fewer than one in `SETTLED`
    /// of them in full (`played`: the count before it). Until then the tree grows more than it
    /// is walked: each new branch's guide was 2 KB to write, and the vector walk left the
    /// vectors for every trial it did not know, so a tree still learning walks faster lane by
    /// lane through its hops (configs/run-duel.toml at 1e6 trials, which never settles: 0.90
    /// of the CPU time; configs/exchange-rally.toml 0.93). A settled tree is walked far more
    /// than it grows, and its guides pay (configs/exchange-volleys.toml, settled after some
    /// 50,000 trials, takes twice the time without them).
    fn guide_once_settled(&mut self, played: u64, quota: [u64; LANES]) {
        let walked: u64 = quota.iter().sum();
        let full = self.played.saturating_sub(played);
        if self.guidable && self.guided_most == 0 && full * SETTLED < walked {
            self.build_guides();
        }
    }

    /// Gives the first `MAX_GUIDED` branches their guides from the children they have; the
    /// branches made after get theirs as they are made.
    fn build_guides(&mut self) {
        self.guided_most = MAX_GUIDED;
        let guided = self.guided();
        if guided == 0 {
            return;
        }
        self.reserve_guides();
        self.guides.resize(guided * GUIDE_LEN + 1, GUIDE_SLOW);
        for b in 0..guided {
            let Branch { draw, first, .. } = self.branches[b];
            for k in 0..draw.outcomes() as u32 {
                let child = self.children[first as usize + k as usize];
                if child < SLOW {
                    self.guide_to(b as Entry, draw, k, child);
                }
            }
        }
        debug_assert!(self.guides_sound(), "built guides name nodes of the tree");
    }

    /// [`play_lanes`](Self::play_lanes) on any CPU: the lanes take turns, one step each.
    fn play_lanes_scalar<T: Trial>(
        &mut self,
        player: &mut Player<'t, T>,
        lanes: &mut Lanes,
        quota: [u64; LANES],
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
        let rounds = self.records.any();
        while active > 0 {
            let words = lanes.next_all();
            for j in 0..LANES {
                if left[j] == 0 {
                    continue;
                }
                drawn[j] += 1;
                let e = self.child(at[j], words[j]);
                if e < LEAF {
                    if rounds {
                        self.records.pass(e);
                    }
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
                    let walked = self.discover(player, &mut lanes.lane(j), &replay, at[j]);
                    self.words = replay;
                    walked
                };
                player.count(walked, j);
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
        // A tree counts every path's chance; a graph, the paths it met one by one, so only
        // shares, and a stricter bar (timed: configs/shoot-then-rally.toml walks in rounds,
        // configs/exchange-volleys.toml, whose twelve volleys end early a fifth of the time,
        // is faster without).
        let (total, bar) = if self.states.is_empty() {
            (1.0, ROUNDS_MASS)
        } else {
            (self.depth_mass.iter().sum(), ROUNDS_SHARE)
        };
        (depth >= 2 && mass >= bar * total).then_some(depth as u32)
    }

    /// The child of branch `branch` that word `w` draws. A branch past the guided ones reads
    /// past the guides (or at the spare entry, `GUIDE_SLOW`): the bounds check that indexing
    /// makes anyway tells them apart.
    #[inline(always)]
    fn child(&self, branch: Entry, w: u64) -> Entry {
        let key = (branch as usize) << GUIDE_BITS | (w >> (64 - GUIDE_BITS)) as usize;
        match self.guides.get(key).copied().unwrap_or(GUIDE_SLOW) {
            g if g < GUIDE_SPLIT => from_guide(Entry::from(g)),
            g => self.child_past(branch, w, g),
        }
    }

    /// [`child`](Self::child) where the guide entry `g` is a split or says nothing: out of
    /// line, so the common case inlines into the walks (with splits handled in `child`, the
    /// compiler stopped inlining it, and the scalar walk was measurably slower).
    #[inline(never)]
    fn child_past(&self, branch: Entry, w: u64, g: GuideEntry) -> Entry {
        if g == GUIDE_SLOW {
            return self.hops.steps(&self.children).child(branch, w);
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
    /// The walk drew the last word of `replay` at branch `at` (any node if `replay` is
    /// empty), and counted its passes up to there: they are kept if the trial ends at a
    /// leaf, taken back if it is played in full. Recording starts from `at`, not the root:
    /// a walk down the known part of the path was a chain of loads that missed the cache.
    #[cold]
    #[inline(never)]
    fn discover<T: Trial, R: Rng>(
        &mut self,
        player: &mut Player<'t, T>,
        rng: &mut R,
        replay: &[u64],
        at: Entry,
    ) -> Walked {
        self.played += 1;
        self.record.clear();
        self.marks.clear();
        self.keys.clear();
        self.records.noted.clear();
        // A full graph takes no new state: its trials are not asked for keys.
        let announce = self.state_words < self.bounds.state_words
            && self.branches.len() < self.bounds.branches;
        let mut recorder = Recorder {
            replay,
            announce,
            next: 0,
            rng,
            record: &mut self.record,
            raw_at: None,
            marks: &mut self.marks,
            keys: &mut self.keys,
            noted: &mut self.records.noted,
            room: self.bounds.state_words - self.state_words.min(self.bounds.state_words),
        };
        let trial = player.trial;
        trial.play(
            self.arm,
            &mut player.scratch,
            &mut recorder,
            &mut player.out,
        );
        let raw_at = recorder.raw_at;
        let ended = match raw_at {
            Some(depth) => {
                self.record.truncate(depth);
                None
            }
            None => Some(&player.out[..]),
        };
        self.records.prepare(self.record.len(), &player.out);
        let depth = replay.len().saturating_sub(1);
        let start = (depth > 0 && depth <= self.record.len()).then_some((depth, at));
        debug_assert!(
            start.is_none_or(|(d, at)| at < LEAF && self.branches[at as usize].depth as usize == d),
            "the walk drew its last word at a branch of its depth"
        );
        let counted = &replay[..depth];
        let rounds = self.records.any();
        if start.is_none() && rounds {
            // Recorded from the root: its passes are all counted again.
            self.unpass(counted.iter().copied());
        }
        match self.insert(ended, start) {
            Some(e) if e & LEAF != 0 && e < SLOW => {
                // Counted at its leaf as walks are: its passes too.
                if rounds {
                    self.pass_recorded(start);
                }
                Walked::Leaf(e & !LEAF)
            }
            _ => {
                if start.is_some() && rounds {
                    self.unpass(counted.iter().copied());
                }
                Walked::Played
            }
        }
    }

    /// Counts the passes of the path just recorded from `start` (its depth and branch; the
    /// root when `None`) on, as a walk on its words would.
    fn pass_recorded(&mut self, start: Option<(usize, Entry)>) {
        let (depth, mut e) = start.unwrap_or((0, self.root));
        for &(_, k) in &self.record[depth..] {
            if e >= LEAF {
                break;
            }
            e = self.children[self.branches[e as usize].first as usize + k as usize];
            self.records.pass(e);
        }
    }

    /// Adds the recorded path, ending at a leaf for the metrics `ended` (or an opaque node
    /// when `None`); returns the entry it ends at, or `None` when the tree is full. Where the
    /// path reaches a state already known, it goes on from that state's node: the tree
    /// becomes a graph. With `start`, the path is known down to that depth and branch.
    fn insert(&mut self, ended: Option<&[i64]>, start: Option<(usize, Entry)>) -> Option<Entry> {
        let marks = std::mem::take(&mut self.marks);
        let keys = std::mem::take(&mut self.keys);
        let e = self.insert_marked(ended, &marks, &keys, start);
        (self.marks, self.keys) = (marks, keys);
        self.flat.clear();
        self.grown += 1;
        e
    }

    /// [`insert`](Self::insert), with the states the path announced: key j is
    /// `keys[marks[j - 1]..marks[j]]`, its first word the draws made before it.
    fn insert_marked(
        &mut self,
        ended: Option<&[i64]>,
        marks: &[usize],
        keys: &[u64],
        start: Option<(usize, Entry)>,
    ) -> Option<Entry> {
        let key = |j: usize| &keys[if j == 0 { 0 } else { marks[j - 1] }..marks[j]];
        // The branch and result the node at depth i hangs from (none for the root).
        let mut from: Option<(Entry, Draw<'t>, u32)> = None;
        let (known_to, mut e) = start.unwrap_or((0, self.root));
        // The chance of the known part, multiplied in the same order as below.
        let mut chance =
            (self.record[..known_to].iter()).fold(1.0, |c, &(draw, k)| c * draw.chance(k));
        let mut new = false;
        let mut next = 0;
        for i in known_to..=self.record.len() {
            // The states announced at depth i (those before the start name known nodes).
            while next < marks.len() && key(next)[0] < i as u64 {
                next += 1;
            }
            let at = next;
            while next < marks.len() && key(next)[0] == i as u64 {
                next += 1;
            }
            let here = (at..next).map(key);
            if e == UNSEEN {
                // A known state whose branch marks other rounds than this path's (or whose
                // leaf may hold another tail) is not joined: its walks count those rounds.
                let joins = |n: Entry| {
                    !self.records.any()
                        || (n < LEAF && self.records.has(n, self.records.marks_at(i)))
                };
                let known = (here.clone())
                    .find_map(|key| self.states.get(key))
                    .filter(|&n| joins(n));
                let node = match known {
                    Some(node) => node,
                    None => {
                        let node = self.node_at(i, ended)?;
                        if node < LEAF && self.records.any() {
                            self.records.mark_as_path(node, i);
                        }
                        node
                    }
                };
                match from {
                    None => self.root = node,
                    Some((parent, draw, k)) => {
                        let first = self.branches[parent as usize].first as usize;
                        self.children[first + k as usize] = node;
                        if node < SLOW {
                            self.guide_to(parent, draw, k, node);
                        }
                        new = true;
                    }
                }
                e = node;
                // A node known before has its states known (or the map was full).
                for key in here {
                    if self.state_words + key.len() <= self.bounds.state_words
                        && self.states.add(key, e)
                    {
                        self.state_words += key.len();
                    }
                }
            }
            let Some(&(_, k)) = self.record.get(i) else {
                break;
            };
            if e >= LEAF {
                // Rules are deterministic given their draws, and go on alike from states
                // alike, so a remembered path and a new one agree on every draw they share:
                // this cannot happen, and is harmless.
                return None;
            }
            let Branch { draw, first, .. } = self.branches[e as usize];
            chance *= draw.chance(k);
            from = Some((e, draw, k));
            e = self.children[first as usize + k as usize];
        }
        // A path seen for the first time counts its chance where it ends. In a graph the
        // paths a linked node already knew are not counted again, so only the shares of the
        // depths mean anything there ([`Tree::common_depth`]).
        if new && e & LEAF != 0 && e < SLOW {
            let depth = self.record.len();
            if self.depth_mass.len() <= depth {
                self.depth_mass.resize(depth + 1, 0.0);
            }
            self.depth_mass[depth] += chance;
        }
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
        // Sharing looks at every branch: in a large graph that still finds rare paths, it waits
        // for paths in proportion (timed on configs/exchange-volleys.toml, where sharing
        // after every segment took as long as the walks).
        // Past the guided branches it stops: sharing saves guide reads, and walks there read
        // none (on configs/exchange-rally.toml it cost more than it saved). Nor does a graph
        // of announced states need it: paths alike met at their states already (on
        // configs/exchange-volleys.toml it found next to nothing, at a twentieth of the run).
        if self.grown == 0
            || self.grown * SHARE_AFTER < self.branches.len()
            || self.branches.len() > self.guided_most
            || !self.states.is_empty()
            // Sharing would join branches that carry different round marks.
            || self.records.any()
        {
            return;
        }
        self.grown = 0;
        // Deepest first, so children are settled before their parents are compared.
        let mut order: Vec<usize> = (0..self.branches.len()).collect();
        order.sort_by_key(|&b| std::cmp::Reverse(self.branches[b].depth));
        let mut known = vec![false; self.branches.len()];
        let mut same: HashMap<Entry, Entry> = HashMap::new();
        let mut alike = HashMap::new();
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
            if !moved.is_empty() && b < self.guided() {
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
                let key = (depth, draw.identity(), self.children[children].to_vec());
                let to = *alike.entry(key).or_insert(b as Entry);
                if to != b as Entry {
                    same.insert(b as Entry, to);
                }
            }
        }
        if let Some(&to) = same.get(&self.root) {
            self.root = to;
        }
        debug_assert!(self.guides_sound(), "shared guides name nodes of the tree");
    }

    /// Points every key of `branch`'s guide whose words all draw `k` at `child`.
    fn guide_to(&mut self, branch: Entry, draw: Draw<'t>, k: u32, child: Entry) {
        const SHIFT: u32 = 64 - GUIDE_BITS;
        if branch as usize >= self.guided_most {
            return;
        }
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
        debug_assert!(self.names_a_node(child), "a guide entry names a node");
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
        debug_assert!(
            to.iter().all(|&e| self.names_a_node(e)),
            "a split's halves name nodes"
        );
        self.split_at.push(threshold);
        self.split_to.push(to[0] | to[1] << 16);
        self.guides[slot] = GUIDE_SPLIT + j as GuideEntry;
    }

    /// Whether guide entry `g` (widened) names a node a walk may stand at or end at: a
    /// branch of this tree, or a leaf.
    fn names_a_node(&self, g: Entry) -> bool {
        g & Entry::from(GUIDE_LEAF) != 0 || (g as usize) < self.guided()
    }

    /// Room for every guide the graph may have, taken once: grown by doubling, the guides
    /// (megabytes in a large graph) were copied over and over, a twentieth of
    /// configs/run-duel.toml's run at 1e6 trials (perf). Pages not written stay free.
    fn reserve_guides(&mut self) {
        let guided = self.bounds.branches.min(self.guided_most);
        self.guides.reserve_exact(guided * GUIDE_LEN + 1);
    }

    /// How many branches have a guide: the first ones made.
    fn guided(&self) -> usize {
        self.branches.len().min(self.guided_most)
    }

    /// Whether the guides are as the AVX-512 walk needs them to be memory-safe: it gathers
    /// 32 bits at entry `b << GUIDE_BITS | key` for branch `b` (the root, or a branch some
    /// entry named) and a key of `GUIDE_BITS` bits, and at split `j`'s row of the split
    /// tables. So: `GUIDE_LEN` entries per branch and the spare one; the root a branch or
    /// not one at all; every entry naming a branch of this tree, a leaf, a split whose
    /// halves do the same, or nothing. Checked where guides change, in debug builds.
    pub(super) fn guides_sound(&self) -> bool {
        if self.guided_most == 0 {
            return self.guides.is_empty();
        }
        let sized = if self.branches.is_empty() {
            self.guides.is_empty()
        } else {
            self.guides.len() == self.guided() * GUIDE_LEN + 1
        };
        let root = self.root >= LEAF || (self.root as usize) < self.guided();
        let splits = self.split_at.len() == self.split_to.len();
        let entries = self.guides.iter().all(|&g| match g {
            GUIDE_SLOW => true,
            split if split >= GUIDE_SPLIT => self
                .split_to
                .get(usize::from(split - GUIDE_SPLIT))
                .is_some_and(|&to| self.names_a_node(to & 0xFFFF) && self.names_a_node(to >> 16)),
            entry => self.names_a_node(Entry::from(entry)),
        });
        sized && root && splits && entries
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
        if self.branches.len() >= self.bounds.branches
            || self.children.len() + draw.outcomes() > self.bounds.children
        {
            return None;
        }
        let first = self.children.len() as u32;
        self.children
            .resize(self.children.len() + draw.outcomes(), UNSEEN);
        if self.guides.is_empty() && self.guided_most > 0 {
            self.reserve_guides();
        }
        if self.branches.len() < self.guided_most {
            // The spare entry at the end becomes the new guide's first.
            self.guides
                .resize((self.branches.len() + 1) * GUIDE_LEN + 1, GUIDE_SLOW);
        }
        self.branches.push(Branch { draw, first, depth });
        self.hops.push(draw, first);
        Some(self.branches.len() as Entry - 1)
    }

    /// The leaf of the row `out` writes, added if new (`None` when the tree is full).
    fn leaf(&mut self, out: &[i64]) -> Option<u32> {
        // Leaves of a row apart by their tails ([`rounds`]): the records after the last draw.
        // Built where the last one was: most rows are known, and need no vector of their own.
        let mut row = std::mem::take(&mut self.leaf_row);
        row.clear();
        row.extend(self.slots.iter().map(|&s| out[s]));
        let width = row.len();
        row.extend_from_slice(self.records.tail());
        let known = self.row_leaf.get(&row).copied();
        self.leaf_row = row;
        let row = &self.leaf_row;
        if known.is_some() {
            return known;
        }
        if self.row_leaf.len() >= self.bounds.leaves
            || self.rows.len() + row.len() > self.bounds.leaf_words
        {
            return None;
        }
        let leaf = self.row_leaf.len() as u32;
        self.rows.extend_from_slice(&row[..width]);
        self.records.add_leaf(&row[width..]);
        self.row_leaf.insert(row.clone(), leaf);
        Some(leaf)
    }

    /// Where a trial whose draws read `words` stands after them, as far as the tree knows:
    /// the branch it draws at next, or the leaf it ended at (within the words or before
    /// them). Added for arms counted by the words they draw (`super::arms`), with
    /// [`draw_at`](Self::draw_at); arms walked side by side step with
    /// [`advance`](Self::advance).
    pub fn after(&self, words: &[u64]) -> Next {
        if !self.remember {
            return Next::Unknown;
        }
        let mut e = self.root;
        for &w in words {
            if e >= LEAF {
                break;
            }
            e = self.child(e, w);
        }
        Next::of(e)
    }

    /// Where every walk starts: walks of several trials step side by side outside the tree
    /// with [`advance`](Self::advance).
    #[inline]
    pub fn start(&self) -> Cursor {
        Cursor(if self.remember { self.root } else { UNSEEN })
    }

    /// Where drawing word `w` at `at` leads; a place that is not a branch stays where it is.
    /// Trials walked side by side then all take the same steps, whatever their depth, and a
    /// step costs a load and a select rather than a branch per trial, which mispredicts as
    /// often as trials end (timed on configs/advise-rally-or-shoot.toml, eight arms of three
    /// or four draws, 3e6 trials: 0.59 s of CPU with a walk that branched per trial and
    /// step, 0.41 s with this one).
    #[inline(always)]
    pub fn advance(&self, at: Cursor, w: u64) -> Cursor {
        self.hops.steps(&self.children).advance(at, w)
    }

    /// What [`advance`](Self::advance) reads, and the counting of [`pass`](Self::pass), apart:
    /// a walk of many trials steps and counts through them with the tree's slices in
    /// registers. The counting is `None` for an arm without round records.
    #[inline]
    pub(crate) fn walk_parts(&mut self) -> (Steps<'_, 't>, Option<Passes<'_>>) {
        let passes = self.records.any().then(|| self.records.passes());
        (self.hops.steps(&self.children), passes)
    }

    /// The draw made at branch `branch` (named by a [`Next`]).
    pub fn draw_at(&self, branch: u32) -> Draw<'t> {
        self.branches[branch as usize].draw
    }
}

/// Where a walk stands ([`Tree::start`], [`Tree::advance`]): a branch, a leaf or a node no
/// walk knows, as the tree stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor(Entry);

impl Cursor {
    /// Whether a trial standing here draws again.
    #[inline]
    pub fn open(self) -> bool {
        self.0 < LEAF
    }

    /// What the tree knows here.
    #[inline]
    pub fn next(self) -> Next {
        Next::of(self.0)
    }
}

/// What [`Tree::after`] and [`Cursor::next`] know of a trial after some of its draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// It draws at this branch next.
    Branch(u32),
    /// It ended at this leaf.
    Leaf(u32),
    /// No trial has gone this way yet, or it is played in full.
    Unknown,
}

impl Next {
    #[inline]
    fn of(e: Entry) -> Next {
        if e < LEAF {
            Next::Branch(e)
        } else if e < SLOW {
            Next::Leaf(e & !LEAF)
        } else {
            Next::Unknown
        }
    }
}

/// Hashes state keys a word at a time (as rustc's FxHasher does): keys run to hundreds of words
/// and are hashed on every path recorded, where the default hasher was timed a tenth of
/// configs/exchange-rally.toml's run. Keys come from the rules, not from users, so hash
/// flooding is no concern.
#[derive(Default, Clone)]
pub struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Whole words first, read as words: copying each into a buffer of the chunk's length
        // was a call to memcpy per word (memmove fell from 5.4% to 2.7% of
        // configs/run-duel.toml without it, perf, 2 threads).
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.write_u64(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// What playing a trial in full takes besides its tree, lent by a worker to its trees: the
/// trial, the memory it plays in, the metrics it wrote, and where trials walked side by side
/// ended.
pub struct Player<'t, T: Trial> {
    pub trial: &'t T,
    pub scratch: T::Scratch,
    /// One slot per metric of the trial ([`Trial::metrics`]): the row of the trial last
    /// played in full.
    pub out: Vec<i64>,
    pub ended: Ended,
}

impl<'t, T: Trial> Player<'t, T> {
    pub fn new(trial: &'t T) -> Self {
        Player {
            trial,
            scratch: trial.scratch(),
            out: vec![0; trial.metrics().len()],
            ended: Ended::default(),
        }
    }

    /// Counts a trial walked on lane `lane` where it ended: at its leaf, or with the row it
    /// left in `out`.
    #[inline]
    pub fn count(&mut self, walked: Walked, lane: usize) {
        match walked {
            Walked::Leaf(leaf) => self.ended.leaves.add(leaf, lane, 1),
            Walked::Played => self.ended.played.extend_from_slice(&self.out),
        }
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
    /// Whether states are recorded.
    announce: bool,
    next: usize,
    rng: &'a mut R,
    record: &'a mut Vec<(Draw<'t>, u32)>,
    /// How many draws came before the first raw word, if one was asked for.
    raw_at: Option<usize>,
    /// The states announced, as [`Tree::marks`] and [`Tree::keys`] hold them.
    marks: &'a mut Vec<usize>,
    keys: &'a mut Vec<u64>,
    /// The rounds the trial wrote, with the draws made before each ([`Records::noted`]).
    noted: &'a mut Vec<(u32, u32)>,
    /// The words the graph can still keep: keys past them are not written, so a long trial
    /// (thousands of steps, each announcing the rows so far) does not gather keys the graph
    /// would drop.
    room: usize,
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

    /// States reached before the last word replayed have their nodes already (the walk
    /// stood at them), and those after a raw word have none: their keys are not written.
    fn at_state(&mut self, key: impl FnOnce(&mut Vec<u64>)) {
        if !self.announce
            || self.raw_at.is_some()
            || self.next < self.replay.len()
            || self.keys.len() >= self.room
        {
            return;
        }
        self.keys.push(self.next as u64);
        key(self.keys);
        self.marks.push(self.keys.len());
    }

    fn at_round(&mut self, round: u32) {
        if self.raw_at.is_none() {
            self.noted.push((round, self.next as u32));
        }
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
    use crate::engine::stream::{trial_stream, Lanes};
    use crate::engine::{run, Gathered, MetricName, Monitor, RunSpec, Shard};
    use std::io::Write;

    /// Trials of several shapes, each playable with or without the tree.
    struct Shaped {
        shape: Shape,
        memoise: bool,
        names: Vec<MetricName>,
        table: SuccessCount,
        rare: SuccessCount,
    }

    #[derive(Clone, Copy, Debug)]
    enum Shape {
        /// Successes of 3 tests at 1/2; on 2 or more, a uniform pick of 5 more: paths of
        /// different depths.
        Ladder,
        /// The ladder, but a result of 1 asks for a raw word.
        PartlyRaw,
        /// Two uniform picks of 1000: a million paths, more than a tree holds.
        Wide,
        /// Mostly two draws, the second a pick of 97 (so the keys where one result gives way
        /// to the next do not decide it); one trial in eight ends after one draw, a few go on
        /// to a third draw, and some ask for a raw word: what a walk in rounds hands back to
        /// the tree.
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
                    round: None,
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

    fn gather<T: Trial>(trial: &T, trials: u64) -> Gathered {
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
        let mut player = Player::new(&trial);
        let mut rng = trial_stream(3);
        let mut walked = Vec::new();
        for _ in 0..2000 {
            walked.push(tree.walk(&mut player, &mut rng));
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
        let mut player = Player::new(&trial);
        let mut rng = trial_stream(3);
        assert!(matches!(tree.mode(), Mode::Unknown));
        tree.walk(&mut player, &mut rng);
        assert!(matches!(tree.mode(), Mode::Branching), "one result seen");
        while tree.leaves() < 2 {
            tree.walk(&mut player, &mut rng);
        }
        match tree.mode() {
            Mode::OneDraw { leaves, .. } => assert_eq!(leaves.len(), 2),
            _ => panic!("one draw, both results seen: flat"),
        }
    }

    #[test]
    fn every_guide_entry_draws_what_the_table_draws() {
        // Picks of 97 put two results in some keys: those keys become splits. Guides built
        // with the tree, and built once it has grown.
        for late in [false, true] {
            every_guide_entry_draws_what_the_table_draws_when(late);
        }
    }

    fn every_guide_entry_draws_what_the_table_draws_when(late: bool) {
        let trial = Shaped::new(Shape::Rounds, true);
        let mut tree = Tree::new(&trial, 0, true);
        let mut player = Player::new(&trial);
        let mut rng = trial_stream(5);
        if !late {
            tree.build_guides();
        }
        for _ in 0..100_000 {
            tree.walk(&mut player, &mut rng);
        }
        if late {
            tree.build_guides();
        }
        assert!(tree.split_at.len() > 50, "keys told apart by a threshold");
        assert!(tree.guides_sound());
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
        let mut player = Player::new(&trial);
        let mut rng = trial_stream(6);
        let mut plain = trial_stream(6);
        let mut full = [0i64; 2];
        for i in 0..20_000 {
            // While paths are still being found too: sharing must not change any trial.
            tree.share_alike();
            assert!(tree.guides_sound(), "trial {i}");
            let row = match tree.walk(&mut player, &mut rng) {
                Walked::Leaf(leaf) => tree.row(leaf).to_vec(),
                Walked::Played => player.out.clone(),
            };
            trial.play(0, &mut (), &mut Plain(&mut plain), &mut full);
            assert_eq!(row, full, "trial {i}");
        }
        // The root, three branches after the first pick, nine after the second.
        assert_eq!(tree.branches.len(), 13);
        tree.build_guides();
        tree.share_alike();
        assert!(tree.guides_sound());
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

    /// Guides built once a tree is grown lead where guides built with it lead, and where its
    /// hops lead: for every guided branch, on random words and on the words at either end of
    /// each guide key (where splits decide).
    #[test]
    fn guides_built_late_lead_where_the_branches_lead() {
        for shape in [Shape::Ladder, Shape::Rounds, Shape::Sums] {
            let trial = Shaped::new(shape, true);
            let (mut late, mut along) = (Tree::new(&trial, 0, true), Tree::new(&trial, 0, true));
            along.build_guides();
            let (mut pa, mut pb) = (Player::new(&trial), Player::new(&trial));
            let (mut ra, mut rb) = (trial_stream(11), trial_stream(11));
            for _ in 0..5_000 {
                late.walk(&mut pa, &mut ra);
                along.walk(&mut pb, &mut rb);
            }
            assert!(late.guides.is_empty(), "{shape:?}: no guide until built");
            late.build_guides();
            assert!(late.guides_sound(), "{shape:?}");
            assert_eq!(late.branches.len(), along.branches.len(), "{shape:?}");
            let mut words = trial_stream(12);
            let ends = (0..GUIDE_LEN as u64).flat_map(|key| {
                let low = key << (64 - GUIDE_BITS);
                [low, low | ((1 << (64 - GUIDE_BITS)) - 1)]
            });
            let words: Vec<u64> = ends
                .chain((0..4_000).map(|_| rand::Rng::next_u64(&mut words)))
                .collect();
            let mut guided = 0;
            for b in 0..late.guided() as Entry {
                for &w in &words {
                    let hop = late.hops.steps(&late.children).child(b, w);
                    assert_eq!(late.child(b, w), hop, "{shape:?}: branch {b}, word {w:#x}");
                    assert_eq!(along.child(b, w), hop, "{shape:?}: branch {b}, word {w:#x}");
                    let key = (b as usize) << GUIDE_BITS | (w >> (64 - GUIDE_BITS)) as usize;
                    guided += usize::from(late.guides[key] != GUIDE_SLOW);
                }
            }
            assert!(
                guided > 1_000,
                "{shape:?}: {guided} lookups through a guide entry"
            );
        }
    }

    #[test]
    fn unsound_guides_are_told_apart() {
        let trial = Shaped::new(Shape::Rounds, true);
        let mut tree = Tree::new(&trial, 0, true);
        let mut player = Player::new(&trial);
        let mut rng = trial_stream(7);
        assert!(tree.guides_sound(), "no branch, no guide");
        for _ in 0..10_000 {
            tree.walk(&mut player, &mut rng);
        }
        assert!(tree.guides_sound(), "no guide before they are built");
        tree.build_guides();
        assert!(tree.guides_sound());
        let branches = tree.branches.len() as GuideEntry;
        let splits = tree.split_at.len() as GuideEntry;
        let sound = tree.guides.clone();
        // An entry naming a branch past the last, or a split past the tables.
        for bad in [branches, GUIDE_LEAF - 1, GUIDE_SPLIT + splits] {
            tree.guides[GUIDE_LEN / 2] = bad;
            assert!(!tree.guides_sound(), "entry {bad:#x}");
            tree.guides.clone_from(&sound);
        }
        // No spare entry at the end.
        tree.guides.pop();
        assert!(!tree.guides_sound(), "guides without their spare entry");
    }

    /// A way of walking lanes side by side.
    #[derive(Clone, Copy, Debug)]
    pub(super) enum Walk {
        Scalar,
        #[cfg(target_arch = "x86_64")]
        Avx512(crate::engine::cpu::Avx512),
    }

    /// The ways of walking lanes side by side this CPU has; says on the terminal (past the
    /// test harness's capture) which it cannot run, and why.
    pub(super) fn walks() -> Vec<Walk> {
        #[allow(unused_mut)]
        let mut walks = vec![Walk::Scalar];
        #[cfg(target_arch = "x86_64")]
        {
            use crate::engine::cpu::Avx512;
            match Avx512::detect() {
                Some(cpu) => walks.push(Walk::Avx512(cpu)),
                None => {
                    let lacks = Avx512::missing().unwrap_or("?");
                    let _ = writeln!(
                        std::io::stderr(),
                        "SKIPPED avx512 walk: CPU lacks {lacks}; comparing the others"
                    );
                }
            }
        }
        walks
    }

    pub(super) fn play_lanes_by<'t, T: Trial>(
        walk: Walk,
        tree: &mut Tree<'t>,
        player: &mut Player<'t, T>,
        lanes: &mut Lanes,
        quota: [u64; LANES],
    ) {
        // As `play_lanes` does, but the vector walk has its guides from the start: it cannot
        // walk without them.
        match walk {
            #[cfg(target_arch = "x86_64")]
            Walk::Avx512(cpu) => {
                if tree.guided_most == 0 {
                    tree.build_guides();
                }
                tree.play_lanes_with(Ready::Avx512(cpu), player, lanes, quota)
            }
            Walk::Scalar => tree.play_lanes_with(Ready::Portable, player, lanes, quota),
        }
    }

    /// What trials ended with, counted by metric row.
    type Rows = HashMap<Vec<i64>, u64>;

    /// How lanes walked side by side went.
    struct SideBySide {
        rows: Rows,
        /// The lanes' next words after the walk.
        next: [u64; LANES],
        /// Trials played in full, not counted at a leaf.
        played: usize,
        /// Whether some segment was walked in rounds (with AVX-512).
        rounds: bool,
    }

    /// Plays `quota[j]` trials on lane j of chunk `chunk`, side by side with walk `walk`, in
    /// segments of `segment` trials a lane, as the engine does; the first trial alone, so
    /// the root is known.
    fn side_by_side<T: Trial>(
        walk: Walk,
        trial: &T,
        chunk: u64,
        quota: [u64; LANES],
        segment: u64,
    ) -> SideBySide {
        let mut tree = Tree::new(trial, 0, true);
        let mut player = Player::new(trial);
        let mut lanes = Lanes::new(4, chunk);
        let walked = tree.walk(&mut player, &mut lanes.lane(0));
        player.count(walked, 0);
        let mut left = quota;
        left[0] -= 1;
        let mut rounds = false;
        while left.iter().any(|&l| l > 0) {
            let part = left.map(|l| l.min(segment));
            rounds |= part.iter().all(|&l| l > 0) && tree.common_depth().is_some();
            play_lanes_by(walk, &mut tree, &mut player, &mut lanes, part);
            assert!(
                tree.guides_sound(),
                "{walk:?}: guides sound after a segment"
            );
            for (l, s) in left.iter_mut().zip(part) {
                *l -= s;
            }
        }
        let mut rows = Rows::new();
        let width = player.out.len();
        for row in player.ended.played.chunks_exact(width) {
            *rows.entry(row.to_vec()).or_default() += 1;
        }
        for (leaf, n) in player.ended.leaves.drain() {
            *rows.entry(tree.row(leaf).to_vec()).or_default() += n;
        }
        SideBySide {
            rows,
            next: lanes.next_all(),
            played: player.ended.played.len() / width.max(1),
            rounds,
        }
    }

    /// The plain path: each lane's trials played in full one after another, with the lanes'
    /// next words after them.
    fn one_by_one<T: Trial>(trial: &T, chunk: u64, quota: [u64; LANES]) -> (Rows, [u64; LANES]) {
        let mut rows = Rows::new();
        let mut scratch = trial.scratch();
        let mut out = vec![0; trial.metrics().len()];
        let mut plain = Lanes::new(4, chunk);
        for (j, &q) in quota.iter().enumerate() {
            for _ in 0..q {
                trial.play(0, &mut scratch, &mut Plain(plain.lane(j)), &mut out);
                *rows.entry(out.clone()).or_default() += 1;
            }
        }
        (rows, plain.next_all())
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
                let trial = Shaped::new(shape, true);
                // Uneven, with idle lanes: lanes that finish early keep stepping with the
                // others. Walks in rounds need every lane busy.
                let quota = match shape {
                    Shape::Rounds | Shape::Sums => std::array::from_fn(|j| 4000 + 61 * j as u64),
                    _ => [
                        5000, 5000, 5000, 4999, 4999, 0, 4999, 2000, 3000, 5000, 4999, 0, 1, 5000,
                        4999, 4999,
                    ],
                };
                let got = side_by_side(walk, &trial, 2, quota, 700);
                let (rows, next) = one_by_one(&trial, 2, quota);
                assert_eq!(got.next, next, "{walk:?}: every lane just after its trials");
                assert_eq!(got.rows, rows, "{walk:?}, shape {}", shape as u8);
                if matches!(shape, Shape::Ladder) {
                    // Its paths all fit the tree: once known, no trial is played in full.
                    assert_eq!(got.played, 0, "{walk:?}: ladder trials played in full");
                }
                if matches!(shape, Shape::Rounds) {
                    assert!(got.rounds, "{walk:?}: two draws, mostly: rounds");
                }
            }
        }
    }

    fn mix(z: u64) -> u64 {
        let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A trial of random shape: draws from random tables and picks, up to a random depth; the
    /// next draw picked from a summary of the results so far (coarse, so that different
    /// paths go on alike), a stop now and then, and now and then a raw word.
    struct Random {
        names: Vec<MetricName>,
        memoise: bool,
        tables: Vec<SuccessCount>,
        /// Sizes of uniform picks.
        picks: Vec<u32>,
        /// The most draws a trial makes.
        most: u32,
        /// Chances per thousand, after the first draw, of stopping and of a raw word.
        stop: u64,
        raw: u64,
        /// Results are summarised modulo this.
        alike: u64,
        seed: u64,
    }

    impl Random {
        fn new(case: u64, memoise: bool) -> Random {
            let mut rng = trial_stream(case);
            let mut below = move |n: u64| rng.next_u64() % n;
            let mut one_of = |options: &[u64]| options[below(options.len() as u64) as usize];
            let metrics = 1 + one_of(&[0, 1, 2]) as usize;
            let tables = (0..one_of(&[0, 1, 1, 2, 3]))
                .map(|_| {
                    let den = one_of(&[1, 2, 3, 6, 8, 36, 97]);
                    let num = one_of(&[0, 1, 2, 5, 35, 96]).min(den);
                    SuccessCount::new(
                        1 + one_of(&[0, 1, 2, 3, 4, 5]) as u32,
                        Fraction::new(num.into(), den.into()),
                    )
                })
                .collect::<Vec<_>>();
            let picks = (0..one_of(&[0, 1, 2]) + u64::from(tables.is_empty()))
                .map(|_| one_of(&[1, 2, 3, 6, 97, 250, 1000]) as u32)
                .collect();
            Random {
                names: (0..metrics)
                    .map(|i| MetricName {
                        arm: 0,
                        choice: String::new(),
                        name: format!("m{i}"),
                        round: None,
                    })
                    .collect(),
                memoise,
                tables,
                picks,
                most: 1 + one_of(&[0, 1, 1, 2, 2, 3]) as u32,
                stop: one_of(&[0, 30, 100, 200, 500]),
                raw: one_of(&[0, 0, 30, 150]),
                alike: one_of(&[1, 2, 3, 7, 1 << 40, 1 << 40]),
                seed: one_of(&[case, case.wrapping_mul(3), u64::MAX - case]),
            }
        }
    }

    impl Trial for Random {
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
            let (mut value, mut depth, mut h) = (0u64, 0u32, mix(self.seed));
            while depth < self.most {
                // Whether to go on depends on every result so far, the next draw on a summary.
                let go = mix(h ^ value);
                if depth > 0 && go % 1000 < self.stop {
                    break;
                }
                if depth > 0 && (go >> 10) % 1000 < self.raw {
                    value += draws.words().next_u64() % 5;
                    break;
                }
                let choice = (h >> 20) as usize % (self.tables.len() + self.picks.len());
                let k = match self.tables.get(choice) {
                    Some(table) => draws.count(table),
                    None => draws.uniform(self.picks[choice - self.tables.len()]),
                };
                value += u64::from(k);
                depth += 1;
                h = mix(self.seed ^ (u64::from(depth) << 40) ^ (value % self.alike));
            }
            let row = [value as i64, i64::from(depth), (h % 3) as i64];
            out.copy_from_slice(&row[..out.len()]);
        }
    }

    #[test]
    fn every_walk_plays_random_shapes_as_the_plain_path() {
        let walks = walks();
        let mut rounds = 0;
        let cases = 96;
        for case in 0..cases {
            let trial = Random::new(case, true);
            let mut rng = trial_stream(1000 + case);
            let mut below = |n: u64| rng.next_u64() % n;
            // Walks in rounds need every lane busy.
            let busy = below(4) > 0;
            let quota: [u64; LANES] = std::array::from_fn(|_| match below(8) {
                _ if busy => 300 + below(1200),
                0 => 0,
                1 => 1,
                _ => below(1500),
            });
            if quota.iter().all(|&q| q == 0) {
                continue;
            }
            let mut quota = quota;
            quota[0] = quota[0].max(1);
            let segment = 50 + below(1000);
            let chunk = below(1 << 20);
            let (rows, next) = one_by_one(&trial, chunk, quota);
            for &walk in &walks {
                let got = side_by_side(walk, &trial, chunk, quota, segment);
                assert_eq!(
                    got.next, next,
                    "case {case}, {walk:?}: lanes left as the plain path"
                );
                assert_eq!(
                    got.rows, rows,
                    "case {case}, {walk:?}: rows of the plain path"
                );
                #[cfg(target_arch = "x86_64")]
                if matches!(walk, Walk::Avx512(_)) {
                    rounds += usize::from(got.rounds);
                }
            }
        }
        // Enough cases where every lane is busy and trials end at one depth: the AVX-512
        // walk's rounds were compared, not only its steps.
        if walks.len() > 1 {
            assert!(rounds >= 5, "walks in rounds compared in {rounds} cases");
        }
    }

    /// `draws` coin flips (uniform picks of 2), reporting how many came up 1; with `announce`,
    /// the count so far is announced before each flip, as the state it is.
    struct Flips {
        names: Vec<MetricName>,
        draws: u32,
        announce: bool,
        memoise: bool,
        /// Arms the trial claims (only arm 0 is walked): how many graphs share the bounds.
        arms: usize,
    }

    impl Flips {
        fn new(draws: u32, announce: bool) -> Flips {
            let names = vec![MetricName {
                arm: 0,
                choice: String::new(),
                name: "ones".into(),
                round: None,
            }];
            Flips {
                names,
                draws,
                announce,
                memoise: true,
                arms: 1,
            }
        }
    }

    impl Trial for Flips {
        type Scratch = ();
        fn metrics(&self) -> &[MetricName] {
            &self.names
        }
        fn arms(&self) -> usize {
            self.arms
        }
        fn pairs(&self) -> &[(usize, usize)] {
            &[]
        }
        fn scratch(&self) {}
        fn memoise(&self) -> bool {
            self.memoise
        }
        fn play<'t, D: Draws<'t>>(&'t self, _: usize, _: &mut (), draws: &mut D, out: &mut [i64]) {
            let mut ones = 0;
            for _ in 0..self.draws {
                if self.announce {
                    draws.at_state(|key| key.push(ones));
                }
                ones += u64::from(draws.uniform(2));
            }
            out[0] = ones as i64;
        }
    }

    #[test]
    fn the_graphs_of_many_arms_share_the_bounds_and_stop_growing() {
        // Forty flips and no state announced: every trial is a new path, until the graph of
        // arm 0, one of 256, is full at its share.
        let mut trial = Flips::new(40, false);
        trial.arms = 256;
        let share = Bounds::share(256);
        assert_eq!(share.branches * 256, MAX_BRANCHES);
        let mut tree = Tree::new(&trial, 0, true);
        let mut player = Player::new(&trial);
        let mut rng = trial_stream(3);
        let size = |t: &Tree| {
            (
                t.branches.len(),
                t.children.len(),
                t.rows.len(),
                t.state_words,
            )
        };
        for _ in 0..5_000 {
            tree.walk(&mut player, &mut rng);
        }
        let full = size(&tree);
        assert!(
            full.0 <= share.branches && full.0 + 40 > share.branches,
            "{full:?}"
        );
        // Memory flat in trials: as many again add nothing.
        for _ in 0..5_000 {
            tree.walk(&mut player, &mut rng);
        }
        assert_eq!(size(&tree), full);
        // A trial of one arm keeps the whole bounds.
        assert_eq!(Bounds::share(1).branches, MAX_BRANCHES);
    }

    #[test]
    fn the_word_hasher_takes_bytes_eight_at_a_time_the_last_padded_with_zeros() {
        let bytes: Vec<u8> = (0..40u8).map(|b| b.wrapping_mul(37) ^ 0x5A).collect();
        for len in 0..=bytes.len() {
            let mut hasher = WordHasher::default();
            hasher.write(&bytes[..len]);
            let mut words = WordHasher::default();
            for chunk in bytes[..len].chunks(8) {
                let mut word = [0; 8];
                word[..chunk.len()].copy_from_slice(chunk);
                words.write_u64(u64::from_le_bytes(word));
            }
            assert_eq!(hasher.finish(), words.finish(), "{len} bytes");
        }
    }

    #[test]
    fn paths_that_reach_a_known_state_share_its_node() {
        // Ten flips: 2^10 - 1 branches as a tree; as a graph, one per count at each depth,
        // 1 + 2 + ... + 10 = 55.
        let trial = Flips::new(10, true);
        let mut tree = Tree::new(&trial, 0, true);
        let mut player = Player::new(&trial);
        let (mut rng, mut plain) = (trial_stream(8), trial_stream(8));
        let mut full = [0i64];
        for i in 0..20_000 {
            let row = match tree.walk(&mut player, &mut rng) {
                Walked::Leaf(leaf) => tree.row(leaf).to_vec(),
                Walked::Played => player.out.clone(),
            };
            trial.play(0, &mut (), &mut Plain(&mut plain), &mut full);
            assert_eq!(row, full, "trial {i}");
        }
        assert_eq!(tree.branches.len(), 55);
        assert_eq!(tree.leaves(), 11);
        // Every path of 20,000 seen is a walk of the graph but the ones that made a node: the
        // graph holds 55 + 11 nodes and 2 * 55 edges, each made once.
        assert!(tree.take_played() <= 2 * 55, "trials played in full");
    }

    #[test]
    fn branches_past_the_guided_ones_walk_as_the_plain_path() {
        // Thirteen flips, no state announced: 2^13 - 1 branches, most without a guide.
        let trial = Flips::new(13, false);
        for walk in walks() {
            let quota = std::array::from_fn(|j| 3000 + 17 * j as u64);
            let got = side_by_side(walk, &trial, 5, quota, 4000);
            let (rows, next) = one_by_one(&trial, 5, quota);
            assert_eq!(got.next, next, "{walk:?}: every lane just after its trials");
            assert_eq!(got.rows, rows, "{walk:?}");
        }
        let mut tree = Tree::new(&trial, 0, true);
        let mut player = Player::new(&trial);
        let mut rng = trial_stream(9);
        for _ in 0..50_000 {
            tree.walk(&mut player, &mut rng);
        }
        assert!(
            tree.branches.len() > MAX_GUIDED,
            "unguided branches reached"
        );
        assert!(tree.guides_sound());
    }

    #[test]
    fn joined_paths_past_the_shared_words_count_as_rows_played_in_full_count() {
        // Arms walk a trial's first words side by side, and paths longer than those on their
        // own streams: thirteen flips also go through branches past the guided ones, and
        // announced states make graphs. Playing every arm in full is the truth.
        use crate::engine::{Joined, Pairing};
        let joined = |memoise: bool| {
            let parts =
                [(13, false), (6, true), (2, false), (9, true)].map(|(draws, announce)| Flips {
                    memoise,
                    ..Flips::new(draws, announce)
                });
            Joined::new(parts.into(), Pairing::Every)
        };
        let trials = 300_000;
        let spec = RunSpec {
            trials,
            seed: 12,
            threads: 2,
            shard: Shard::WHOLE,
            precision: None,
        };
        let monitor = Monitor::default();
        let counted = run(&joined(true), &spec, &monitor).unwrap().gathered;
        let played = run(&joined(false), &spec, &Monitor::default())
            .unwrap()
            .gathered;
        assert_eq!(counted.differences[0].total(), trials);
        assert_eq!(counted, played);
        // The arms' paths were mostly walked, not played: the walks were compared.
        let full = monitor
            .played_in_full
            .load(std::sync::atomic::Ordering::Relaxed);
        assert!(
            full < trials / 4,
            "{full} of {trials} trials played in full"
        );
    }

    #[test]
    fn the_engine_plays_random_shapes_as_without_the_tree() {
        for case in 0..16 {
            let trials = 100_000 + 37 * case;
            let memoised = gather(&Random::new(case, true), trials);
            let played = gather(&Random::new(case, false), trials);
            assert_eq!(memoised.metrics[0].total(), trials, "case {case}");
            assert_eq!(memoised, played, "case {case}");
        }
    }

    #[test]
    fn joined_random_shapes_count_as_rows_played_in_full_count() {
        // Arms counted by their leaves (and pairs of arms by their pairs of leaves) give the
        // histograms and paired differences that rows of trials played in full give.
        use crate::engine::{Joined, Pairing};
        for case in 0..8 {
            for pairing in [Pairing::AgainstFirst, Pairing::Every] {
                let joined = |memoise: bool| {
                    let parts = (0..3).map(|i| Random::new(3 * case + i, memoise)).collect();
                    Joined::new(parts, pairing)
                };
                let trials = 50_000 + 37 * case;
                let counted = gather(&joined(true), trials);
                let played = gather(&joined(false), trials);
                assert!(!counted.differences.is_empty(), "case {case}");
                assert_eq!(counted.differences[0].total(), trials, "case {case}");
                assert_eq!(counted, played, "case {case} {pairing:?}");
            }
        }
    }
}
