//! The outcome tree: trials remembered as the draws they make.
//!
//! A trial that draws only from tables is a pure function of its draws' results. The tree
//! keeps, per arm, every path of results seen so far: a branch node holds the draw made at
//! that point and one child per result, a leaf holds the metrics the trial wrote. A trial then
//! costs one word and one lookup per draw, however much geometry the rules did to get there.
//! When a walk meets a result not seen before, the trial is played in full with the results
//! already drawn replayed, and the new path is added. Either way each draw reads exactly one
//! word, as [`Plain`](super::draws::Plain) does, so results are identical with or without the
//! tree; the tree only decides how much work a trial costs.
//!
//! Trials that ask for raw words (see [`Draws::words`]) mark their node opaque and are always
//! played in full. A tree stops growing at `MAX_NODES`/`MAX_CHILDREN`; paths beyond it are
//! played in full too.

use super::draws::{Draw, Draws, Plain};
use super::Trial;
use rand::Rng;
use std::collections::HashMap;

/// Bounds on a tree's memory (per worker and arm): about 10 MB at most.
const MAX_NODES: usize = 1 << 16;
const MAX_CHILDREN: usize = 1 << 21;

/// `children` entry of a result not seen yet. The root is never a child, so 0 is free.
const UNSEEN: u32 = 0;

#[derive(Debug, Clone, Copy)]
enum Node<'t> {
    /// The trial ends here, writing row `leaf`.
    Leaf(u32),
    /// The next draw; the child of result k is `children[first + k]`.
    Branch { draw: Draw<'t>, first: u32 },
    /// A raw word is drawn here: trials that reach it are played in full.
    Opaque,
}

/// How a trial went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walked {
    /// It ended at this leaf; [`Tree::row`] holds its metrics.
    Leaf(u32),
    /// It was played in full: its metrics are in `out`.
    Played,
}

/// A whole-chunk shortcut, when every trial is one draw that ends at a known leaf (or no draw
/// at all): the engine then counts results instead of walking.
pub enum Flat<'a, 't> {
    /// No draw: every trial ends at this leaf.
    Constant(u32),
    /// One draw; `leaves[k]` is where result k ends.
    OneDraw { draw: Draw<'t>, leaves: &'a [u32] },
}

/// One arm's tree.
pub struct Tree<'t> {
    arm: usize,
    /// The metric slots this arm writes, in row order.
    slots: Vec<usize>,
    remember: bool,
    nodes: Vec<Node<'t>>,
    children: Vec<u32>,
    /// Leaf rows, `slots.len()` values each.
    rows: Vec<i64>,
    row_leaf: HashMap<Vec<i64>, u32>,
    /// The results drawn by the walk in progress.
    path: Vec<u32>,
    record: Vec<(Draw<'t>, u32)>,
    /// `leaves[k]` of the root when it is a one-draw root whose children are all leaves.
    flat: Vec<u32>,
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
            nodes: Vec::new(),
            children: Vec::new(),
            rows: Vec::new(),
            row_leaf: HashMap::new(),
            path: Vec::new(),
            record: Vec::new(),
            flat: Vec::new(),
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

    /// Plays one trial of this arm, drawing from `rng`.
    #[inline]
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
        self.path.clear();
        let mut node = 0;
        while let Some(&n) = self.nodes.get(node) {
            match n {
                Node::Leaf(leaf) => return Walked::Leaf(leaf),
                Node::Branch { draw, first } => {
                    let k = draw.result(rng.next_u64());
                    self.path.push(k);
                    match self.children[first as usize + k as usize] {
                        UNSEEN => break,
                        child => node = child as usize,
                    }
                }
                Node::Opaque => break,
            }
        }
        self.discover(trial, scratch, rng, out)
    }

    /// Plays the trial in full, replaying the results already drawn, and remembers its path.
    #[cold]
    fn discover<T: Trial, R: Rng>(
        &mut self,
        trial: &'t T,
        scratch: &mut T::Scratch,
        rng: &mut R,
        out: &mut [i64],
    ) -> Walked {
        self.record.clear();
        let mut recorder = Recorder {
            replay: &self.path,
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
            Some(Node::Leaf(leaf)) => Walked::Leaf(leaf),
            _ => Walked::Played,
        }
    }

    /// Adds the recorded path, ending at a leaf for the metrics `ended` (or an opaque node
    /// when `None`); returns the node it ends at, or `None` when the tree is full.
    fn insert(&mut self, ended: Option<&[i64]>) -> Option<Node<'t>> {
        let depth = self.record.len();
        if self.nodes.is_empty() {
            let root = self.node_at(0, ended)?;
            self.push(root)?;
        }
        let mut node = 0;
        for i in 0..depth {
            let Node::Branch { first, .. } = self.nodes[node] else {
                // Rules are deterministic given their draws, so a remembered path and a new
                // one agree on every draw they share: this cannot happen, and is harmless.
                return None;
            };
            let slot = first as usize + self.record[i].1 as usize;
            if self.children[slot] == UNSEEN {
                let child = self.node_at(i + 1, ended)?;
                self.children[slot] = self.push(child)?;
            }
            node = self.children[slot] as usize;
        }
        self.flat.clear();
        Some(self.nodes[node])
    }

    /// The node at depth `i` of the recorded path.
    fn node_at(&mut self, i: usize, ended: Option<&[i64]>) -> Option<Node<'t>> {
        Some(match (self.record.get(i), ended) {
            (Some(&(draw, _)), _) => Node::Branch { draw, first: 0 },
            (None, Some(out)) => Node::Leaf(self.leaf(out)?),
            (None, None) => Node::Opaque,
        })
    }

    /// The leaf of the row `out` writes, added if new (`None` when the tree is full).
    fn leaf(&mut self, out: &[i64]) -> Option<u32> {
        let row: Vec<i64> = self.slots.iter().map(|&s| out[s]).collect();
        if let Some(&leaf) = self.row_leaf.get(&row) {
            return Some(leaf);
        }
        if self.row_leaf.len() >= MAX_NODES {
            return None;
        }
        let leaf = self.row_leaf.len() as u32;
        self.rows.extend_from_slice(&row);
        self.row_leaf.insert(row, leaf);
        Some(leaf)
    }

    fn push(&mut self, node: Node<'t>) -> Option<u32> {
        let node = match node {
            Node::Branch { draw, .. } => {
                if self.children.len() + draw.outcomes() > MAX_CHILDREN {
                    return None;
                }
                let first = self.children.len() as u32;
                self.children
                    .resize(self.children.len() + draw.outcomes(), UNSEEN);
                Node::Branch { draw, first }
            }
            other => other,
        };
        if self.nodes.len() >= MAX_NODES {
            return None;
        }
        self.nodes.push(node);
        Some(self.nodes.len() as u32 - 1)
    }

    /// The whole-chunk shortcut, once the tree has seen enough to know every trial's end.
    pub fn flat(&mut self) -> Option<Flat<'_, 't>> {
        if !self.remember {
            return None;
        }
        match *self.nodes.first()? {
            Node::Leaf(leaf) => Some(Flat::Constant(leaf)),
            Node::Branch { draw, first } => {
                if self.flat.is_empty() {
                    for k in 0..draw.outcomes() as u32 {
                        let child = self.children[first as usize + k as usize];
                        let leaf = match self.nodes[child as usize] {
                            Node::Leaf(leaf) if child != UNSEEN => leaf,
                            // A result no word draws never needs a leaf.
                            _ if !draw.can_draw(k) => u32::MAX,
                            _ => {
                                self.flat.clear();
                                return None;
                            }
                        };
                        self.flat.push(leaf);
                    }
                }
                Some(Flat::OneDraw {
                    draw,
                    leaves: &self.flat,
                })
            }
            Node::Opaque => None,
        }
    }
}

/// Replays the results of a walk's draws, then draws from the stream, recording every draw.
struct Recorder<'a, 't, R> {
    replay: &'a [u32],
    next: usize,
    rng: &'a mut R,
    record: &'a mut Vec<(Draw<'t>, u32)>,
    /// How many draws came before the first raw word, if one was asked for.
    raw_at: Option<usize>,
}

impl<'t, R: Rng> Draws<'t> for Recorder<'_, 't, R> {
    type Words = R;

    fn draw(&mut self, draw: Draw<'t>) -> u32 {
        let k = match self.replay.get(self.next) {
            Some(&k) => k,
            None => draw.result(self.rng.next_u64()),
        };
        self.next += 1;
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
    use crate::engine::{run, Gathered, MetricName, Monitor, RunSpec, Shard};

    /// Trials of several shapes, each playable with or without the tree.
    struct Shaped {
        shape: Shape,
        memoise: bool,
        names: Vec<MetricName>,
        table: SuccessCount,
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
        for shape in [Shape::Ladder, Shape::PartlyRaw, Shape::Wide, Shape::Fixed] {
            let trials = 300_001;
            let memoised = gather(&Shaped::new(shape, true), trials);
            let played = gather(&Shaped::new(shape, false), trials);
            assert_eq!(memoised, played);
            assert_eq!(memoised.metrics[0].total(), trials);
        }
    }

    #[test]
    fn a_tree_remembers_paths_and_marks_raw_draws_opaque() {
        let trial = Shaped::new(Shape::PartlyRaw, true);
        let mut tree = Tree::new(&trial, 0, true);
        let mut rng = crate::engine::stream::chunk_stream(3, 0);
        let mut out = [0i64; 2];
        let mut walked = Vec::new();
        for _ in 0..2000 {
            walked.push(tree.walk(&trial, &mut (), &mut rng, &mut out));
        }
        // Leaves: first = 0 (one row), 2 and 3 with five picks each; first = 1 is opaque.
        assert_eq!(tree.leaves(), 11);
        assert!(matches!(tree.nodes[0], Node::Branch { .. }));
        let first = match tree.nodes[0] {
            Node::Branch { first, .. } => first as usize,
            _ => unreachable!(),
        };
        assert!(matches!(
            tree.nodes[tree.children[first + 1] as usize],
            Node::Opaque
        ));
        assert!(walked.contains(&Walked::Played));
        assert!(tree.flat().is_none(), "two-draw paths are not flat");
    }

    #[test]
    fn a_one_draw_tree_becomes_flat_once_every_result_is_seen() {
        let mut trial = Shaped::new(Shape::Ladder, true);
        trial.table = SuccessCount::new(1, Fraction::new(1, 2));
        let mut tree = Tree::new(&trial, 0, true);
        let mut rng = crate::engine::stream::chunk_stream(3, 0);
        let mut out = [0i64; 2];
        assert!(tree.flat().is_none());
        while tree.leaves() < 2 {
            tree.walk(&trial, &mut (), &mut rng, &mut out);
        }
        match tree.flat() {
            Some(Flat::OneDraw { leaves, .. }) => assert_eq!(leaves.len(), 2),
            _ => panic!("one draw, both results seen: flat"),
        }
    }
}
