//! Keys of a fixed number of words, each numbered on first sight: the exact engine's tables of
//! states, held as one array of words and a table of indices into it, so that a state costs
//! its words and a few bytes of table, never an allocation of its own.

use hashbrown::HashTable;

/// Keys of `stride` words, numbered 0, 1, ... in the order they were first interned.
pub struct Interner {
    stride: usize,
    words: Vec<u32>,
    table: HashTable<u32>,
}

/// A fixed, fast hash of a key's words (FxHash's mixing): the numbering depends only on the
/// order of first sight, so any hash would do; this one is the same on every run.
fn hash(key: &[u32]) -> u64 {
    key.iter().fold(key.len() as u64, |h, &w| {
        (h.rotate_left(5) ^ u64::from(w)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
    })
}

impl Interner {
    pub fn new(stride: usize) -> Interner {
        Interner {
            stride,
            words: Vec::new(),
            table: HashTable::new(),
        }
    }

    /// `key`'s number, and whether it is new.
    pub fn intern(&mut self, key: &[u32]) -> (u32, bool) {
        debug_assert_eq!(key.len(), self.stride);
        let (stride, words) = (self.stride, &self.words);
        let at = |id: u32| &words[id as usize * stride..(id as usize + 1) * stride];
        let h = hash(key);
        if let Some(&id) = self.table.find(h, |&id| at(id) == key) {
            return (id, false);
        }
        let id = u32::try_from(self.len()).expect("fewer than 2^32 keys");
        self.words.extend_from_slice(key);
        let (stride, words) = (self.stride, &self.words);
        self.table.insert_unique(h, id, |&id| {
            hash(&words[id as usize * stride..(id as usize + 1) * stride])
        });
        (id, true)
    }

    /// The key numbered `id`.
    pub fn get(&self, id: u32) -> &[u32] {
        &self.words[id as usize * self.stride..(id as usize + 1) * self.stride]
    }

    pub fn len(&self) -> usize {
        self.words.len().checked_div(self.stride).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_get_one_number_in_order_of_first_sight() {
        let mut keys = Interner::new(2);
        assert_eq!(keys.intern(&[1, 2]), (0, true));
        assert_eq!(keys.intern(&[2, 1]), (1, true));
        assert_eq!(keys.intern(&[1, 2]), (0, false));
        assert_eq!(keys.get(1), &[2, 1]);
        assert_eq!(keys.len(), 2);
        for i in 0..10_000u32 {
            keys.intern(&[i, i ^ 7]);
        }
        // No i gives [1, 2] or [2, 1] (i ^ 7 would be 6 or 5): 10,000 new keys.
        assert_eq!(keys.len(), 10_002);
    }
}
