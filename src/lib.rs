//! rollcall: a Monte Carlo statistics simulator for tabletop game rules.
//!
//! The design (what each module holds and why) is in `docs/architecture.md`. The layers,
//! lowest first: a module imports only from layers below its own, never from its own layer
//! or above, so each can be read and tested from those below it. `tests/integration/layers.rs`
//! holds every `crate::` import to this list, and every file of `src/` free of import circles.
//!
//! 1. [`config`], [`dice`], [`format`](mod@format), [`geometry`], [`metrics`], [`stats`]:
//!    errors, key paths, limits; dice tests; numbers, durations and dates for people; the
//!    table's geometry; metric rows with their meanings; histograms and summaries that merge
//!    exactly
//! 2. [`condition`]: conditions over metric names
//! 3. [`engine`]: plays any trial over deterministic random streams, knows nothing of rules
//! 4. [`output`], [`progress`]: tables, results folders, run metadata; the progress line
//! 5. [`cards`]: the card game, its data, loader, resolution and equilibrium
//! 6. [`scenario`]: TOML to a validated scenario
//! 7. [`rules`]: what one trial does, as pure state transitions
//! 8. [`exact`]: exact distributions and advice
//! 9. [`explain`], [`report`]: a scenario in words; reports from a results folder
//! 10. [`app`]: one module per command line verb
//! 11. [`cli`]: flags to typed options

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
