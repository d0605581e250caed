//! Several trials played as the arms of one, so that they share random numbers: the design
//! arms of a `[[choice]]` list (every arm against every later one) and the points of a sweep
//! (each point against the first). Each part keeps its own metrics and its own pairs; the
//! joined trial adds the pairs across parts, so `compare.csv` gets paired differences.

use super::{Draws, MetricName, Trial};

/// Which metrics of two parts are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairing {
    /// Every part with every later part, metrics paired by name: design arms, where each part
    /// is one choice with an id of its own.
    Every,
    /// Every part with the first, metrics paired by choice and name: sweep points.
    AgainstFirst,
    /// No part with another: a roster's matchups, whose results are each matchup's own
    /// (and whose pairs, n^4 / 2 for n profiles, would cost more than the matchups).
    Apart,
}

/// Where a pair of [`Joined::pairs`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairOf {
    /// A pair of part `part`'s own.
    Within { part: usize },
    /// A metric of part `part` against the same metric of part `against`.
    Across { part: usize, against: usize },
}

pub struct Joined<T> {
    parts: Vec<T>,
    metrics: Vec<MetricName>,
    /// Part p's metrics are `metrics[metric_from[p]..metric_from[p + 1]]`.
    metric_from: Vec<usize>,
    /// Part p's arms are `arm_from[p]..arm_from[p + 1]`.
    arm_from: Vec<usize>,
    /// The part each arm belongs to.
    arm_part: Vec<usize>,
    pairs: Vec<(usize, usize)>,
    pair_of: Vec<PairOf>,
    pairing: Pairing,
}

impl<T: Trial> Joined<T> {
    pub fn new(parts: Vec<T>, pairing: Pairing) -> Joined<T> {
        let mut metrics = Vec::new();
        let mut metric_from = vec![0];
        let mut arm_from = vec![0];
        let mut arm_part = Vec::new();
        for (p, part) in parts.iter().enumerate() {
            let first_arm = arm_part.len();
            metrics.extend(part.metrics().iter().map(|m| MetricName {
                arm: first_arm + m.arm,
                choice: m.choice.clone(),
                name: m.name.clone(),
                round: m.round,
            }));
            arm_part.extend(std::iter::repeat_n(p, part.arms()));
            metric_from.push(metrics.len());
            arm_from.push(arm_part.len());
        }
        let mut pairs = Vec::new();
        let mut pair_of = Vec::new();
        for (p, part) in parts.iter().enumerate() {
            let from = metric_from[p];
            pairs.extend(part.pairs().iter().map(|&(a, b)| (from + a, from + b)));
            pair_of.extend(part.pairs().iter().map(|_| PairOf::Within { part: p }));
        }
        let across: Vec<(usize, usize)> = match pairing {
            Pairing::Every => (0..parts.len())
                .flat_map(|a| (a + 1..parts.len()).map(move |b| (a, b)))
                .collect(),
            Pairing::AgainstFirst => (1..parts.len()).map(|p| (p, 0)).collect(),
            Pairing::Apart => Vec::new(),
        };
        for (a, b) in across {
            let of = |p: usize| metric_from[p]..metric_from[p + 1];
            for i in of(a) {
                let same = |j: &usize| {
                    let (m, n) = (&metrics[i], &metrics[*j]);
                    m.round.is_none()
                        && n.round.is_none()
                        && m.name == n.name
                        && (pairing == Pairing::Every || m.choice == n.choice)
                };
                if let Some(j) = of(b).find(same) {
                    pairs.push((i, j));
                    pair_of.push(PairOf::Across {
                        part: a,
                        against: b,
                    });
                }
            }
        }
        Joined {
            parts,
            metrics,
            metric_from,
            arm_from,
            arm_part,
            pairs,
            pair_of,
            pairing,
        }
    }

    pub fn parts(&self) -> &[T] {
        &self.parts
    }

    /// The parts, to change what they hold but not their metrics or arms (a plan given its
    /// advice).
    pub fn parts_mut(&mut self) -> &mut [T] {
        &mut self.parts
    }

    /// The metrics of part `p`, as indices into [`Trial::metrics`].
    pub fn metrics_of(&self, p: usize) -> std::ops::Range<usize> {
        self.metric_from[p]..self.metric_from[p + 1]
    }

    /// Where each of [`Trial::pairs`] comes from, in the same order.
    pub fn pair_of(&self) -> &[PairOf] {
        &self.pair_of
    }

    /// The same parts, each changed by `f` (for tests that compare fast paths with the
    /// general path).
    pub fn map_parts(self, f: impl FnMut(T) -> T) -> Joined<T> {
        Joined::new(self.parts.into_iter().map(f).collect(), self.pairing)
    }
}

impl<T: Trial> Trial for Joined<T> {
    /// One per part.
    type Scratch = Vec<T::Scratch>;

    fn metrics(&self) -> &[MetricName] {
        &self.metrics
    }

    fn arms(&self) -> usize {
        self.arm_part.len()
    }

    fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }

    fn scratch(&self) -> Vec<T::Scratch> {
        self.parts.iter().map(Trial::scratch).collect()
    }

    fn memoise(&self) -> bool {
        self.parts.iter().all(Trial::memoise)
    }

    fn play<'t, D: Draws<'t>>(
        &'t self,
        arm: usize,
        scratch: &mut Vec<T::Scratch>,
        draws: &mut D,
        out: &mut [i64],
    ) {
        let p = self.arm_part[arm];
        self.parts[p].play(
            arm - self.arm_from[p],
            &mut scratch[p],
            draws,
            &mut out[self.metrics_of(p)],
        );
    }
}
