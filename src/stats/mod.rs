//! Mergeable statistics: integer histograms and the summaries derived from them.
//!
//! Every metric is an integer per trial, gathered in a [`Histogram`] of exact `u64` counts.
//! Chunks, threads and shards combine by adding counts, which is exact, commutative and
//! associative, so the merged histogram is the same whatever the split or the merge order.
//! Floats ([`Summary`], [`distribution`], [`chi_square`], [`z_score`]) are then derived once
//! from exact integer sums ([`Sums`]); a floating accumulator would round differently for each
//! merge order and break byte-identical output across thread counts.

pub mod bradley_terry;
pub mod fit;
pub mod histogram;
pub mod pmf;
pub mod summary;

pub use fit::{chi_square, z_score, GoodnessOfFit};
pub use histogram::{Histogram, Sums};
pub use summary::{distribution, t_critical_95, DistributionRow, Summary, Z_975};
