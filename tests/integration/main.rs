//! The integration tests: one test binary of modules, one file per subject, with the helpers
//! they share in `common`. One binary links once, so changing a test or the library relinks it
//! and not one binary per file. `tests/conditions/` stays a binary of its own: it installs a
//! counting global allocator, which would count every test's allocations here.

mod common;

mod advise;
mod bad_input;
mod balance;
mod cards;
mod cli;
mod commands;
mod costs;
mod derived;
mod designs;
mod docs;
mod engagements;
mod engine_kernels;
mod equilibrium;
mod exact;
mod exact_engagements;
mod exact_layouts;
mod explain;
mod fuzz_inputs;
mod golden;
mod layers;
mod limits;
mod missing;
mod paths;
mod profiles;
mod rally;
mod reliability;
mod report;
mod resilience;
mod rollouts;
mod roster;
mod rounds;
mod shards;
mod state_graph;
mod sweeps;
mod warnings;
