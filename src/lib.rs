//! rollcall: a Monte Carlo statistics simulator for tabletop game rules.
//!
//! How the modules depend on each other, so each can be read and changed on its own:
//!
//! - [`config`] (errors, key paths, suggestions), [`dice`] (dice-test grammar, exact
//!   probabilities, samplers) and [`format`](mod@format) (numbers, durations and dates for
//!   people) depend on nothing else here.
//! - [`scenario`] turns TOML into a validated [`scenario::Scenario`]; [`cards`] does the same
//!   for card games. Both report through [`config`]; neither imports the other's loader.
//! - [`rules`] and [`cards`] say what one trial does, as pure state transitions over the
//!   [`engine`]'s `Trial` and `Draws` traits. [`engine`] plays any `Trial` over deterministic
//!   random streams and knows nothing of the rules.
//! - [`stats`] holds histograms that merge exactly, summaries and goodness of fit; [`exact`]
//!   computes exact distributions from a compiled [`rules::Plan`], independently of the
//!   sampler; [`output`] writes tables and decides nothing; [`explain`] tells a loaded
//!   scenario in words and decides nothing either.
//! - [`report`] reads a results folder and writes HTML and Markdown reports; it runs nothing.
//! - [`app`] wires one module per command line verb; [`cli`] turns flags into typed options.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

pub mod app;
pub mod cards;
pub mod cli;
pub mod condition;
pub mod config;
pub mod dice;
pub mod engine;
pub mod exact;
pub mod explain;
pub mod format;
pub mod geometry;
pub mod metrics;
pub mod output;
pub mod progress;
pub mod report;
pub mod rules;
pub mod scenario;
pub mod stats;
