//! Success-count tables a command draws from, built on first use.
//!
//! A table depends only on the number of tests and their probability, so building it lazily
//! (behind `OnceLock`, shared by every worker thread and always computing the same value)
//! cannot change results; scenarios then pay only for the counts their trials reach.

use crate::dice::{Fraction, SuccessCount};
use std::sync::OnceLock;

/// The success counts of 0 to `max_count` tests of one probability.
pub struct CountTables {
    p: Fraction,
    by_count: Vec<OnceLock<SuccessCount>>,
}

impl CountTables {
    pub fn new(p: Fraction, max_count: u32) -> CountTables {
        CountTables {
            p,
            by_count: (0..=max_count).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The draw of successes among `count` tests (`count` at most the `max_count` built for).
    pub fn get(&self, count: u32) -> &SuccessCount {
        self.by_count[count as usize].get_or_init(|| SuccessCount::new(count, self.p))
    }
}
