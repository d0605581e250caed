//! The rules: units and models on a battlefield, commands as state transitions (Rally, Shoot,
//! Run, and the responses Defend and Covering Fire), placement, and Call of the Masters.
//! Nothing here touches files or threads.
//!
//! A validated [`crate::scenario::Step`] gives a unit an [`crate::scenario::Order`]: a command
//! with its arguments. [`Plan`] compiles a scenario, keeping each command's precomputation
//! beside that command ([`rally::Prepared`], [`shoot::Prepared`]); [`trial`] is the driver the
//! engine runs; [`World`] is one trial's state; [`commands::declare`] plays one order
//! (eligibility, response window, uses, token and restrictions) and hands back a reason when
//! it cannot be declared; the rows of [`crate::metrics`] carry what a trial reports. An
//! `[engagement]` gives units orders instead of steps: [`engagement`] plays its rounds, each
//! activated unit declaring the first of its orders whose [`crate::condition`] holds and which
//! [`commands::declare`] accepts.
//! [`Designs`] plays `[[choice]]`s with `set` (each arm a scenario of its own, compiled to its
//! own plan) as the arms of one trial.
//!
//! The files depend on each other in one direction, so each can be read from those below it
//! (the test of the layers holds them to it): `placement`, `tables` and `outcome` depend on no
//! other rule (only on [`crate::geometry`] and the scenario); each command's `prepared.rs` (what it works out before any trial) reads only
//! the scenario and those; `plan.rs` holds the precomputations; `world.rs` is a trial's state
//! over the plan; the command rules (`rally/`, `shoot/`, `run.rs`, `response.rs`) change the
//! world; `commands.rs` declares an order through them; `engagement/` and `trial.rs` drive a
//! plan's trials, and `designs.rs` drives one plan per design arm.
//!
//! Adding a command (say Charge) takes one new file, `src/rules/charge.rs`, with its rule (a
//! `resolve` over the plan, the world and the draws); a command with a precomputation is a
//! folder instead, `charge/mod.rs` with the rule and `charge/prepared.rs` with what it works
//! out from the scenario alone. Then these places:
//!
//! - `src/scenario/mod.rs`: a variant of `Order` with the command's arguments and one of
//!   `Command`; the compiler then points at `Order::command` and `Command::name`.
//! - `src/scenario/orders.rs`, `order` (which builds steps' and engagement orders' commands
//!   alike): the command's name among the names read from the file and in the messages
//!   listing them (`command`: strings, so the compiler cannot point here), and the checks of
//!   the keys it takes; the compiler points at `aimed`, which builds the order from the
//!   `target` key, and `able`, what a unit needs to take it. A
//!   key no command took before also needs a field in `src/scenario/raw.rs` (`RawStep` and
//!   `RawOrder`, with `OrderKeys`) and in `src/scenario/keys.rs`.
//! - `src/scenario/mod.rs`: its place in `Command::ALL` and `Command::index` (the
//!   engagement's `<unit>.declared.<command>` metrics).
//! - `src/rules/commands.rs` (compiler-pointed): `Command::applies` (the restrictions it
//!   applies and is barred by; a new restriction bit goes in [`world::Restrictions`]), and in
//!   `declare` its eligibility check and `Aimed` variant (which also says whether the order
//!   aims at a unit, for Defend) and the call of its `resolve`.
//! - `src/rules/plan.rs`: a field of `UnitPlan` for its precomputation, if it has one, built
//!   in `Plan::compile`.
//! - `src/rules/mod.rs`: the `mod` line.
//! - `src/exact/commands.rs` (compiler-pointed): `restrictions` (the restrictions it applies,
//!   in the exact engine's own bits, `src/exact/state.rs`), and in `Ctx::eligible` and
//!   `Ctx::declare` its restatement over counts (a `Followed` variant) or a refusal saying
//!   why the exact engine cannot follow it.
//! - The documentation (its step keys in `docs/scenario-keys.md`, its readings where the
//!   rules are silent in `docs/rules.md`), and tests beside those of the other commands (the
//!   integration tests' `commands` and `exact` modules).

pub mod commands;

pub mod designs;
pub mod engagement;

pub(crate) mod layout;

pub mod outcome;
pub mod placement;
pub mod plan;
pub mod rally;
pub mod response;
pub mod run;
pub mod shoot;

pub mod tables;
pub mod trial;
pub mod world;

pub use designs::Designs;
pub use plan::Plan;
pub use world::World;
