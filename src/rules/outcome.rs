//! What declaring a command gives back: [`Resolved`] when it was declared, [`Ineligible`] (why
//! not) when it could not be. Every rule may refuse, so these sit below all of them.

use std::fmt;

/// Why a command could not be declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ineligible {
    NoModelAlive,
    /// The unit already has a command token this round.
    AlreadyCommanded,
    /// The unit has a restriction that bars this command.
    Restricted,
    EnemyWithin1,
    /// The target is destroyed or out of range.
    NoLegalTarget,
}

impl fmt::Display for Ineligible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ineligible::NoModelAlive => "the unit has no model alive",
            Ineligible::AlreadyCommanded => "the unit already took a command this round",
            Ineligible::Restricted => "the unit has a restriction that bars this command",
            Ineligible::EnemyWithin1 => "a model of the unit is within 1\" of an enemy model",
            Ineligible::NoLegalTarget => "the target is destroyed or out of range",
        })
    }
}

/// A declared command: how many uses resolved, how many fizzled (did nothing because the
/// target, or the acting unit itself, was gone), and how many responses it drew.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Resolved {
    pub uses: u32,
    pub fizzled: u32,
    pub responses: u32,
}
