//! The states a graph knows: each announced key ([`Draws::at_state`](super::Draws::at_state))
//! with the node it led to.
//!
//! Keys are tens to hundreds of words, and a path recorded asks for a few of them. Held as
//! boxed slices in a map, each key cost an allocation, and each growth of the map hashed
//! every key again: in `configs/run-duel.toml` at 1e6 trials (perf, 2 threads) the map's
//! growth and the boxes' allocations were a fifth of the time spent recording paths. Here
//! the keys lie end to end in one array, and the table holds each key's place, its node and
//! its hash, so that growing it hashes nothing.

use super::{Entry, WordHasher};
use hashbrown::HashTable;
use std::hash::Hasher;

/// A key in the table: its hash, its words `words[start..start + len]`, and its node.
#[derive(Debug, Clone, Copy)]
struct Key {
    hash: u64,
    start: u32,
    len: u32,
    node: Entry,
}

#[derive(Clone, Default)]
pub(super) struct States {
    words: Vec<u64>,
    table: HashTable<Key>,
}

/// The hash of a key's words (a fast word-at-a-time one: keys come from the rules, not from
/// users).
fn hash(key: &[u64]) -> u64 {
    let mut h = WordHasher::default();
    for &w in key {
        h.write_u64(w);
    }
    h.write_usize(key.len());
    h.finish()
}

impl States {
    /// The node `key` led to, if the graph knows it.
    pub(super) fn get(&self, key: &[u64]) -> Option<Entry> {
        let words = &self.words;
        (self.table)
            .find(hash(key), |k| Self::words_of(words, k) == key)
            .map(|k| k.node)
    }

    /// Keeps `key` as leading to `node` unless it is known already; returns whether it was
    /// new.
    pub(super) fn add(&mut self, key: &[u64], node: Entry) -> bool {
        let h = hash(key);
        let words = &self.words;
        if (self.table)
            .find(h, |k| Self::words_of(words, k) == key)
            .is_some()
        {
            return false;
        }
        // The bounds on a graph's state words keep these far below 2^32.
        let (start, len) = (self.words.len() as u32, key.len() as u32);
        self.words.extend_from_slice(key);
        let key = Key {
            hash: h,
            start,
            len,
            node,
        };
        self.table.insert_unique(h, key, |k| k.hash);
        true
    }

    pub(super) fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    fn words_of<'w>(words: &'w [u64], k: &Key) -> &'w [u64] {
        &words[k.start as usize..][..k.len as usize]
    }
}

/// Graphs are equal in their states when they know the same keys, each leading to the same
/// node, in whatever order they met them.
impl PartialEq for States {
    fn eq(&self, other: &States) -> bool {
        self.table.len() == other.table.len()
            && (self.table.iter())
                .all(|k| other.get(Self::words_of(&self.words, k)) == Some(k.node))
    }
}

impl std::fmt::Debug for States {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys = self
            .table
            .iter()
            .map(|k| (Self::words_of(&self.words, k), k.node));
        f.debug_map().entries(keys).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Against a map of boxed keys: keys of many lengths, some prefixes of others, added
    /// twice over, the second time with other nodes that must not replace the first.
    #[test]
    fn states_keep_the_first_node_of_every_key_as_a_map_does() {
        let mut states = States::default();
        let mut map: HashMap<Box<[u64]>, Entry> = HashMap::new();
        for round in 0..2u32 {
            for i in 0..5_000u64 {
                let key: Vec<u64> = (0..i % 40).map(|j| (i * 31 + j) % 97).collect();
                let node = round * 100_000 + i as u32;
                let new = !map.contains_key(key.as_slice());
                if new {
                    map.insert(key.clone().into(), node);
                }
                assert_eq!(states.add(&key, node), new, "{key:?}");
            }
        }
        for (key, &node) in &map {
            assert_eq!(states.get(key), Some(node));
        }
        assert_eq!(states.get(&[1000]), None);
        assert_eq!(states.table.len(), map.len());
        assert!(states == states.clone());
    }
}
