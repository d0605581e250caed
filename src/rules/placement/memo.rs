//! Placements remembered by the anchors they were searched around.
//!
//! A Rally without `chain` whose unit stands clear of every other unit places where its own
//! models alone say: every other base is too far from every anchor to bar any candidate
//! (the argument of `Nearby::can_bar`, for whole units through their boxes). Its spots are
//! then a function of the unit's models' centres in order, the radius and the table, and a
//! unit's layouts repeat from trial to trial far more than they differ, so each is searched
//! once. The spots for `k` models are the first `k` of those for more (see the module doc
//! of [`super`]), so one search for every missing model answers any number of successes.

use super::{place_into, Base, Reach, Surroundings, ENEMY_EXCLUSION, RING_GAPS};
use crate::engine::tree::WordHasher;
use crate::geometry::spatial::box_gap_squared;
use crate::geometry::{Battlefield, Point};
use hashbrown::HashTable;
use std::hash::Hasher;

/// Words of searches remembered (2 MiB) before the memo starts afresh: a bound on memory,
/// never on answers. Each plan's world has its own, and a sweep or a roster joins many plans
/// on every worker.
const LIMIT: usize = 1 << 18;

/// One table's remembered placements (a memo belongs to one scenario's world).
#[derive(Debug, Clone, Default)]
pub struct Memo {
    /// One allocation per search, so that a lookup touches little memory: its key's hash,
    /// the key's length and words (the unit, the radius and each anchor's coordinates, as
    /// bits), how many spots the search was asked for, then the spots' coordinates as bits.
    /// Fewer spots than asked means the search ran out of candidates, and no count asks for
    /// more.
    spots: HashTable<Box<[u64]>>,
    /// The words in `spots`.
    words: usize,
    /// How far from an anchor a base of a given kind can bar a candidate: (the placed
    /// radius's bits, the base's radius's bits, whether an enemy) and the distance.
    reaches: Vec<(u64, u64, bool, f64)>,
    key: Vec<u64>,
    bases: Vec<Base>,
    anchors: Vec<Point>,
    found: Vec<Point>,
}

/// Whether the entry `e` holds the search for `key`, whose hash is `h`.
fn same(e: &[u64], h: u64, key: &[u64]) -> bool {
    e[0] == h && e[1] as usize == key.len() && e[2..][..key.len()] == *key
}

/// The key's hash: [`WordHasher`] over the even words and over the odd ones (two chains of
/// multiplications, each waiting only on itself), joined, then the high half folded onto the
/// low one. A product's low bits depend only on its factors' low bits, the table picks a
/// bucket by the hash's low bits, and a coordinate such as 18.5 has none set.
fn hash(key: &[u64]) -> u64 {
    let (mut even, mut odd) = (WordHasher::default(), WordHasher::default());
    let mut pairs = key.chunks_exact(2);
    for pair in &mut pairs {
        even.write_u64(pair[0]);
        odd.write_u64(pair[1]);
    }
    for &word in pairs.remainder() {
        even.write_u64(word);
    }
    even.write_u64(odd.finish());
    let h = even.finish();
    h ^ h >> 32
}

impl Memo {
    /// Whether no base of radius `rb` whose centre lies in `others` can bar a candidate of a
    /// model of radius `radius` around an anchor in `own` (an enemy base by overlapping or by
    /// standing within 1"; any other by overlapping). Decided from the boxes' gap, which is
    /// no more than any pair's squared distance as computed, against the reach
    /// `Nearby::gather` uses, with a margin at least as wide.
    pub fn bars_none(
        &mut self,
        own: (Point, Point),
        radius: f64,
        others: (Point, Point),
        rb: f64,
        enemy: bool,
    ) -> bool {
        let reach = self.reach(radius, rb, enemy);
        let ring = 2.0 * radius + RING_GAPS[RING_GAPS.len() - 1];
        // No anchor's |x| + |y| is above this.
        let corner = own.0.x.abs().max(own.1.x.abs()) + own.0.y.abs().max(own.1.y.abs());
        let margin = 1e-6 * (1.0 + ring + corner);
        let far = reach + ring + margin;
        box_gap_squared(own, others) >= far * far
    }

    /// The farthest a base can stand from an anchor and still bar one of its candidates,
    /// less the ring: the reach of every test the rule puts on such a base.
    fn reach(&mut self, radius: f64, rb: f64, enemy: bool) -> f64 {
        let key = (radius.to_bits(), rb.to_bits(), enemy);
        if let Some(&(.., r)) = self.reaches.iter().find(|e| (e.0, e.1, e.2) == key) {
            return r;
        }
        let mut r = Reach::overlapping(radius, rb).reach();
        if enemy {
            r = r.max(Reach::within(radius, rb, ENEMY_EXCLUSION).reach());
        }
        self.reaches.push((key.0, key.1, key.2, r));
        r
    }

    /// The spots for up to `count` models of radius `radius` around `anchors` (unit `unit`'s
    /// models, in order) with no other base near (see [`Memo::bars_none`]), no `chain`,
    /// searched for `missing` models when not remembered, and appended to `out`.
    pub fn place(
        &mut self,
        field: &Battlefield,
        unit: usize,
        anchors: &[Point],
        radius: f64,
        (count, missing): (usize, usize),
        out: &mut Vec<Point>,
    ) {
        self.key.clear();
        self.key.extend([unit as u64, radius.to_bits()]);
        for a in anchors {
            self.key.extend([a.x.to_bits(), a.y.to_bits()]);
        }
        let (h, len) = (hash(&self.key), self.key.len());
        // The spots follow the key, and the number asked for.
        let spots = |e: &[u64]| (e.len() - 3 - len) / 2;
        let enough = |e: &[u64]| count <= spots(e) || spots(e) < e[2 + len] as usize;
        let copy = |e: &[u64], out: &mut Vec<Point>| {
            let n = count.min(spots(e));
            let xys = e[3 + len..][..2 * n].chunks_exact(2);
            out.extend(xys.map(|xy| Point::new(f64::from_bits(xy[0]), f64::from_bits(xy[1]))));
        };
        match self.spots.find(h, |e| same(e, h, &self.key)) {
            Some(e) if enough(e) => copy(e, out),
            _ => {
                let asked = count.max(missing);
                self.search(field, anchors, radius, asked);
                let mut entry = Vec::with_capacity(3 + len + 2 * self.found.len());
                entry.extend([h, len as u64]);
                entry.extend_from_slice(&self.key);
                entry.push(asked as u64);
                entry.extend(
                    self.found
                        .iter()
                        .flat_map(|p| [p.x.to_bits(), p.y.to_bits()]),
                );
                copy(&entry, out);
                if self.words + entry.len() > LIMIT {
                    self.spots.clear();
                    self.words = 0;
                }
                self.words += entry.len();
                match self.spots.find_mut(h, |e| same(e, h, &self.key)) {
                    Some(e) => {
                        self.words -= e.len();
                        *e = entry.into();
                    }
                    None => {
                        self.spots.insert_unique(h, entry.into(), |e| e[0]);
                    }
                }
            }
        }
    }

    /// The search itself, the unit's own bases the only ones on the table: its spots in
    /// `found`.
    fn search(&mut self, field: &Battlefield, anchors: &[Point], radius: f64, n: usize) {
        self.bases.clear();
        self.bases
            .extend(anchors.iter().map(|&centre| Base { centre, radius }));
        self.anchors.clear();
        self.anchors.extend_from_slice(anchors);
        let around = Surroundings {
            field,
            bases: &self.bases,
            enemies: &[],
        };
        place_into(
            &around,
            &mut self.anchors,
            radius,
            n,
            false,
            &mut self.found,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::place_as_stated;
    use super::*;
    use crate::geometry::spatial::bounds;
    use rand::{Rng, SeedableRng};

    /// A unit's models packed on a half-inch lattice (on a table small enough, at times, that
    /// the search runs out), and other units' bases (friends and enemies, several radii) on
    /// the lattice at about the distance where they start to bar the outermost candidates,
    /// or exactly there, or a few units in the last place either side, or anywhere. Whenever
    /// every other unit is found to bar none, the remembered spots for each count, asked in a
    /// random order so that counts are answered from earlier searches, are the search's with
    /// every base on the table.
    #[test]
    fn remembered_spots_are_the_search_with_every_base() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(172);
        let (mut alone, mut near, mut ran_out, mut compared) = (0, 0, 0, 0);
        for round in 0..2_000 {
            let mut below = |n: u64| (rng.next_u64() % n) as usize;
            let size = [12.0, 24.0, 48.0][round % 3];
            let field = Battlefield {
                width: size,
                height: size,
                terrain: vec![],
            };
            let radius = [0.5, 0.75, 1.0][below(3)];
            let mut lattice = |lo: f64, n: u64| lo + below(n) as f64 * 0.5;
            let mut anchors: Vec<Point> = Vec::new();
            for _ in 0..1 + round % 12 {
                let p = Point::new(lattice(3.0, 12), lattice(3.0, 12));
                if anchors
                    .iter()
                    .all(|&q| q.distance_squared(p) >= 4.0 * radius * radius)
                {
                    anchors.push(p);
                }
            }
            let own = bounds(anchors.iter().copied()).unwrap();
            let mut memo = Memo::default();
            let mut bases: Vec<Base> = anchors
                .iter()
                .map(|&centre| Base { centre, radius })
                .collect();
            let mut enemies = Vec::new();
            let mut all_clear = true;
            for _ in 0..1 + below(3) {
                let rb = [0.5, 0.75, 1.25][below(3)];
                let enemy = below(2) == 0;
                let ring = 2.0 * radius + RING_GAPS[RING_GAPS.len() - 1];
                let reach = radius + rb + if enemy { ENEMY_EXCLUSION } else { 0.0 };
                // Beside the unit's box, to the right or above, about where it starts to bar.
                let mut gap = ring + reach + [0.0, -0.5, 0.5, 2.0][below(4)];
                for _ in 0..below(4) {
                    gap = if below(2) == 0 {
                        gap.next_up()
                    } else {
                        gap.next_down()
                    };
                }
                let centre = match below(3) {
                    0 => Point::new(own.1.x + gap, own.0.y + below(4) as f64 * 0.5),
                    1 => Point::new(own.0.x + below(4) as f64 * 0.5, own.1.y + gap),
                    _ => Point::new(below(96) as f64 * 0.5, below(96) as f64 * 0.5),
                };
                let b = Base { centre, radius: rb };
                all_clear &= memo.bars_none(own, radius, (centre, centre), rb, enemy);
                bases.push(b);
                if enemy {
                    enemies.push(b);
                }
            }
            if !all_clear {
                near += 1;
                continue;
            }
            alone += 1;
            let around = Surroundings {
                field: &field,
                bases: &bases,
                enemies: &enemies,
            };
            let missing = 1 + below(30);
            let all = super::super::place(&around, &anchors, radius, missing, false);
            ran_out += usize::from(all.len() < missing);
            for _ in 0..4 {
                // At times more than the first search was asked for: searched again.
                let count = below(missing as u64 + 3);
                let mut out = Vec::new();
                memo.place(&field, 0, &anchors, radius, (count, missing), &mut out);
                let stated = place_as_stated(&around, &anchors, radius, count, false);
                assert_eq!(out, stated, "round {round}: {count} of {missing}");
                compared += out.len();
            }
        }
        assert!(alone > 500 && near > 500, "{alone} alone, {near} near");
        assert!(
            ran_out > 50 && compared > 10_000,
            "{ran_out} ran out, {compared}"
        );
    }
}
