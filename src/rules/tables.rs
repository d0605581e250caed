//! Success-count tables a command draws from, built on first use.
//!
//! A table depends only on the number of tests and their probability, so building it lazily
//! (behind `OnceLock`, shared by every worker thread and always computing the same value)
//! cannot change results; scenarios then pay only for the counts their trials reach. The
//! slots themselves come in blocks, also made on first use, so a unit that could roll
//! thousands of tests but never does costs a few pointers.

use crate::dice::{Fraction, SuccessCount};
use std::sync::OnceLock;

/// Counts per block of slots.
const BLOCK: usize = 32;

/// The success counts of 0 to `max_count` tests of one probability.
pub struct CountTables {
    p: Fraction,
    blocks: Vec<OnceLock<Box<[OnceLock<SuccessCount>]>>>,
}

impl CountTables {
    pub fn new(p: Fraction, max_count: u32) -> CountTables {
        let blocks = max_count as usize / BLOCK + 1;
        CountTables {
            p,
            blocks: (0..blocks).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The draw of successes among `count` tests (`count` at most the `max_count` built for).
    pub fn get(&self, count: u32) -> &SuccessCount {
        let count = count as usize;
        self.blocks[count / BLOCK].get_or_init(|| (0..BLOCK).map(|_| OnceLock::new()).collect())
            [count % BLOCK]
            .get_or_init(|| SuccessCount::new(count as u32, self.p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_count_gets_its_own_table_across_blocks() {
        let p = Fraction::new(1, 2);
        let tables = CountTables::new(p, 3 * BLOCK as u32);
        for count in [0, 1, BLOCK as u32 - 1, BLOCK as u32, 3 * BLOCK as u32] {
            // A table of `count` tests has `count + 1` outcomes, the same as one built directly.
            let t = tables.get(count);
            let direct = SuccessCount::new(count, p);
            assert_eq!(t.pmf(), direct.pmf(), "count {count}");
            assert_eq!(t.pmf().len(), count as usize + 1);
        }
    }
}
