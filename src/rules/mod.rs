//! The rules: units and models on a battlefield, commands as state transitions (Rally, Shoot,
//! Run, and the responses Defend and Covering Fire), placement, and Call of the Masters.
//!
//! [`Plan`] compiles a validated scenario into what the engine plays; [`World`] is one
//! trial's state; [`commands`] holds the command rules. Nothing here touches files or threads.

pub mod commands;
pub mod condition;
pub mod geometry;
pub mod movement;
pub mod placement;
pub mod plan;
pub mod rally;
pub mod response;
pub mod shoot;
pub mod world;

pub use plan::Plan;
pub use world::World;
