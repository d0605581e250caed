//! rollcall: a Monte Carlo statistics simulator for tabletop game rules.
//!
//! The crate is layered so that each layer knows only the one below it:
//! `scenario` turns TOML into a validated [`scenario::Scenario`]; `rules` compiles it into a
//! plan of pure state transitions; `engine` plays that plan over deterministic random streams
//! without knowing what a rule is; `stats` merges integer histograms exactly; `output` writes
//! the tables.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

pub mod app;
pub mod cards;
pub mod cli;
pub mod dice;
pub mod engine;
pub mod exact;
pub mod output;
pub mod progress;
pub mod rules;
pub mod scenario;
pub mod stats;
