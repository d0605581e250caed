//! Dice tests: the text form `[N]dS[(+|-)K] (>=|<=) T [reroll (fails|ones)]` (or `T+`, a d6
//! test), each test's exact success probability, and the sampler the Monte Carlo engine plays
//! them with; and amounts (a weapon's attacks or damage), a number or dice `[N]dS[(+|-)K]`.
//!
//! Two consumers shape this module:
//!
//! - The exact engine composes success probabilities without rounding, so a published table
//!   can be derived rather than estimated, and the simulator can be checked against it. That
//!   is why [`DiceTest::probability`] returns a reduced [`Fraction`] counted over every equally
//!   likely outcome instead of a float.
//! - The simulator plays tests in every trial, so its hot loop never rolls dice: every test,
//!   or group of identical tests, is one draw from a [`SuccessCount`] table built from the
//!   exact probability, one random word per draw.
//!
//! The exact counts are `u128`; to keep them (and the squared denominators of rerolls)
//! representable, [`DiceTest::parse`] refuses a test with more than 2^[`MAX_OUTCOMES_LOG2`]
//! equally likely outcomes, far beyond any table-top roll.
//!
//! The parts, each in its own file: `grammar` (the [`DiceTest`] type, its parser, canonical
//! text and serde form), `fraction` ([`Fraction`]), `probability`
//! ([`DiceTest::probability`]), `sampler` ([`SuccessCount`]) and `amount` ([`Amount`]).

mod amount;
mod fraction;
mod grammar;
mod probability;
mod sampler;

pub use amount::{Amount, AmountError};
pub use fraction::Fraction;
pub use grammar::{
    Comparison, DiceError, DiceTest, Reroll, MAX_DICE, MAX_OUTCOMES_LOG2, MAX_SIDES, MIN_SIDES,
};
pub use sampler::SuccessCount;
pub(crate) use sampler::{words_share, AMBIGUOUS};
